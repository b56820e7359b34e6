#include "serve/http_server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "serve/web_api.h"
#include "serve/web_assets.h"

namespace vz {

const WebAsset* FindWebAsset(std::string_view path) {
  if (path == "/") path = "/index.html";
  for (const WebAsset& asset : EmbeddedWebAssets()) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Requests one connection may make before the server closes it.
constexpr int kMaxRequestsPerConnection = 1000;
// Bytes of a request's line and headers at most (its body has max_body_bytes on top).
constexpr size_t kMaxHeadBytes = 64 * 1024;
// How often a thread that waits for its client looks at the server's state.
constexpr auto kWaitSlice = std::chrono::milliseconds(100);

// Set by the error handler when httplib rejected a request itself (a malformed request line or
// header, a body too large or of a bad length, a target too long, a bad Range): the bytes after
// it are not a request boundary one can trust, so the keep-alive loop closes the connection
// instead of parsing them as the next request. Also set before routing (SetUpRequest, the
// rate limiter) where a body could be left unread. Per thread: one thread serves one connection
// at a time, from its parse to its answer.
thread_local bool tl_close_connection = false;
// Why the request's body cannot be delimited ("" when it can): answered 400 before routing.
thread_local std::string tl_bad_framing;
// Set when a request ran past the connection's byte cap (a chunked body too large): httplib then
// answers 400, which the error handler turns into the 413 it is.
thread_local bool tl_request_too_large = false;

// Whether `value` is a Content-Length httplib may trust: 1 to 18 decimal digits (RFC 9110: a
// non-negative integer; 18 digits are far beyond any body limit, and cannot overflow).
bool IsByteCount(const std::string& value) {
  return !value.empty() && value.size() <= 18 &&
         std::all_of(value.begin(), value.end(),
                     [](unsigned char c) { return c >= '0' && c <= '9'; });
}

// Whether httplib 0.11.4 reads a body for this method (the others' bodies it leaves unread).
bool HttplibReadsBody(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE" ||
         method == "PRI";
}

// The request as HTTP/1.1 defines its body (RFC 9112, 6.3), before httplib reads it:
// - without Content-Length or Transfer-Encoding it has none (httplib would read until the client
//   closes, while the client waits for the answer);
// - a Content-Length that is not a byte count (or two that differ), and a Transfer-Encoding other
//   than "chunked", make a bad request (tl_bad_framing: answered 400 without reading a body);
// - a Content-Length above `max_body_bytes` is answered 413 at once (httplib would first read the
//   whole body to skip it);
// - where the bytes after the request might be its unread body (a body on a method httplib reads
//   none for; Content-Length and Transfer-Encoding together, on which a proxy in front could
//   disagree), the connection is closed after the answer.
void SetUpRequest(httplib::Request& request, size_t max_body_bytes) {
  request.ranges.clear();  // whole answers only: httplib would cut JSON answers too
  tl_bad_framing.clear();
  tl_request_too_large = false;
  const bool chunked = request.has_header("Transfer-Encoding");
  const auto length = request.headers.equal_range("Content-Length");
  const bool has_length = length.first != length.second;
  if (chunked && request.get_header_value("Transfer-Encoding") != "chunked") {
    tl_bad_framing = "unsupported Transfer-Encoding: only chunked is accepted";
  }
  for (auto it = length.first; it != length.second; ++it) {
    if (!IsByteCount(it->second) || it->second != length.first->second) {
      tl_bad_framing = "malformed Content-Length header: not a byte count";
    }
  }
  const bool nonzero_length =
      has_length && length.first->second.find_first_not_of('0') != std::string::npos;
  if ((chunked && has_length) ||
      ((chunked || nonzero_length) && !HttplibReadsBody(request.method))) {
    tl_close_connection = true;
  }
  if (!has_length) {
    if (!chunked) request.headers.emplace("Content-Length", "0");
    return;
  }
  if (tl_bad_framing.empty() && std::stoull(length.first->second) > max_body_bytes) {
    tl_request_too_large = true;
  }
  if (!tl_bad_framing.empty() || tl_request_too_large) {
    request.headers.erase("Content-Length");
    request.headers.erase("Transfer-Encoding");
    request.headers.emplace("Content-Length", "0");
  }
}

Clock::duration Seconds(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// Token buckets per client address.
class RateLimiter {
 public:
  RateLimiter(double rate, double burst) : rate_(rate), burst_(burst) {}

  // Takes one token of `client`; false when it has none left.
  bool Allow(const std::string& client) {
    std::lock_guard<std::mutex> lock(mutex_);
    const Clock::time_point now = Clock::now();
    if (buckets_.size() > 10000) buckets_.clear();  // bounded memory under address churn
    auto [it, fresh] = buckets_.try_emplace(client, Bucket{burst_, now});
    Bucket& bucket = it->second;
    if (!fresh) {
      const double elapsed = std::chrono::duration<double>(now - bucket.last).count();
      bucket.tokens = std::min(burst_, bucket.tokens + elapsed * rate_);
      bucket.last = now;
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

 private:
  struct Bucket {
    double tokens;
    Clock::time_point last;
  };
  double rate_, burst_;
  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;
};

// Text from a client may hold any bytes: invalid UTF-8 is replaced (U+FFFD), so dump never throws.
void SendJson(httplib::Response& response, const json& body, int status = 200) {
  response.status = status;
  response.set_content(body.dump(-1, ' ', false, json::error_handler_t::replace),
                       "application/json");
}

void SendError(httplib::Response& response, int status, const std::string& message,
               const std::string& field) {
  SendJson(response, {{"error", message}, {"field", field.empty() ? json(nullptr) : json(field)}},
           status);
}

// The last resort of the error path: a fixed body that cannot fail.
void SendPlainError(httplib::Response& response, int status) {
  response.status = status;
  response.set_content(R"({"error": "internal error", "field": null})", "application/json");
}

json ParseBody(const httplib::Request& request) {
  try {
    return json::parse(request.body);
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number beyond a double (1e999).
    throw RequestError(400, "body", std::string("body: malformed JSON: ") + e.what());
  }
}

// The limits a connection is served under (HttpServerConfig).
struct ConnectionPolicy {
  Clock::duration request;   // a whole request, from its first byte
  Clock::duration idle;      // between requests
  Clock::duration patience;  // waiting for the client while another connection waits for a thread
  Clock::duration io;        // one read or write without progress
  size_t max_request_bytes = 0;
  std::function<bool()> stopping;
  std::function<bool()> crowded;  // some connection waits for a thread
};

// One connection as the keep-alive loop (Impl::ServeConnection) sees it: httplib's parser reads
// and writes through it; it enforces the per-request byte cap.
class ConnectionStream : public httplib::Stream {
 public:
  // Waits for the first byte of the next request. False when the client closed, or the
  // connection should close (idle too long, the server stopping or crowded).
  virtual bool WaitForRequest() = 0;
  // A request begins: its bytes are counted (and, on a socket, timed) from here.
  virtual void StartRequest() {
    request_bytes_ = 0;
    tl_request_too_large = false;
  }

  ssize_t read(char* ptr, size_t size) final {
    if (request_bytes_ >= max_request_bytes_) {
      failed_ = true;
      tl_request_too_large = true;
      return -1;
    }
    const ssize_t got = ReadSome(ptr, std::min(size, max_request_bytes_ - request_bytes_));
    if (got > 0) {
      request_bytes_ += size_t(got);
    } else {
      failed_ = true;
    }
    return got;
  }
  // True once a read failed (the client closed, was too slow or sent too much): httplib has then
  // answered 400 or 413 and the connection is closed.
  bool failed() const { return failed_; }

 protected:
  explicit ConnectionStream(size_t max_request_bytes) : max_request_bytes_(max_request_bytes) {}
  virtual ssize_t ReadSome(char* ptr, size_t size) = 0;

 private:
  size_t max_request_bytes_;
  size_t request_bytes_ = 0;
  bool failed_ = false;
};

// A client's bytes in memory (HttpServer::ServeBytes): reads take from the input, writes append
// to the output.
class MemoryStream final : public ConnectionStream {
 public:
  MemoryStream(std::string_view input, size_t max_request_bytes)
      : ConnectionStream(max_request_bytes), input_(input) {}
  bool WaitForRequest() override { return position_ < input_.size(); }
  bool is_readable() const override { return position_ < input_.size(); }
  bool is_writable() const override { return true; }
  ssize_t write(const char* ptr, size_t size) override {
    output_.append(ptr, size);
    return ssize_t(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = "127.0.0.1";
    port = 0;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    get_remote_ip_and_port(ip, port);
  }
  socket_t socket() const override { return INVALID_SOCKET; }
  std::string& output() { return output_; }

 protected:
  ssize_t ReadSome(char* ptr, size_t size) override {
    const size_t count = std::min(size, input_.size() - position_);
    std::memcpy(ptr, input_.data() + position_, count);
    position_ += count;
    return ssize_t(count);
  }

 private:
  std::string_view input_;
  size_t position_ = 0;
  std::string output_;
};

void SocketAddress(const sockaddr_storage& address, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    ::inet_ntop(AF_INET, &v4.sin_addr, text, sizeof(text));
    port = ntohs(v4.sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof(text));
    port = ntohs(v6.sin6_port);
  }
  ip = text;
}

// An accepted socket under the connection policy: every wait for the client is cut at the
// request deadline (or the idle limit between requests), when the server stops, and after
// `patience` when another connection waits for a thread; a write that makes no progress for `io`
// fails. Reads are buffered (httplib's parser reads byte by byte).
class SocketStream final : public ConnectionStream {
 public:
  SocketStream(int fd, const ConnectionPolicy& policy)
      : ConnectionStream(policy.max_request_bytes), fd_(fd), policy_(policy) {}

  bool WaitForRequest() override {
    if (begin_ < end_) return true;
    const Clock::time_point now = Clock::now();
    return WaitFor(POLLIN, now + policy_.idle, now);
  }
  void StartRequest() override {
    ConnectionStream::StartRequest();
    request_start_ = Clock::now();
  }
  bool is_readable() const override { return begin_ < end_ || Poll(POLLIN, 0) > 0; }
  bool is_writable() const override { return Poll(POLLOUT, 0) >= 0; }
  ssize_t write(const char* ptr, size_t size) override {
    size_t done = 0;
    while (done < size) {
      const Clock::time_point now = Clock::now();
      if (!WaitFor(POLLOUT, now + policy_.io, Clock::time_point::max())) return -1;
      const ssize_t sent = ::send(fd_, ptr + done, size - done, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
      if (sent <= 0) return -1;
      done += size_t(sent);
    }
    return ssize_t(size);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (::getpeername(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      SocketAddress(address, ip, port);
    }
    // A client whose address cannot be told still has a name for the per-client limits (the
    // rate, the engine's jobs), shared with every such client.
    if (ip.empty()) ip = "unknown";
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
      SocketAddress(address, ip, port);
    }
  }
  socket_t socket() const override { return fd_; }

 protected:
  ssize_t ReadSome(char* ptr, size_t size) override {
    if (begin_ == end_) {
      const Clock::time_point now = Clock::now();
      if (!WaitFor(POLLIN, std::min(request_start_ + policy_.request, now + policy_.io),
                   request_start_)) {
        return -1;
      }
      const ssize_t got = ::recv(fd_, buffer_, sizeof(buffer_), MSG_DONTWAIT);
      if (got <= 0) return -1;
      begin_ = 0;
      end_ = size_t(got);
    }
    const size_t count = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_ + begin_, count);
    begin_ += count;
    return ssize_t(count);
  }

 private:
  int Poll(short events, int milliseconds) const {
    pollfd entry{fd_, events, 0};
    const int ready = ::poll(&entry, 1, milliseconds);
    if (ready > 0 && (entry.revents & (POLLERR | POLLNVAL))) return -1;
    return ready;
  }

  // Waits until the socket is ready for `events` (or hung up). False at `deadline`, when the
  // server stops, or when the client has kept this thread waiting since `since` longer than the
  // patience while another connection waits for a thread.
  bool WaitFor(short events, Clock::time_point deadline, Clock::time_point since) const {
    for (;;) {
      const Clock::time_point now = Clock::now();
      if (now >= deadline || policy_.stopping()) return false;
      if (since != Clock::time_point::max() && now - since >= policy_.patience &&
          policy_.crowded()) {
        return false;
      }
      const auto slice = std::min<Clock::duration>(deadline - now, kWaitSlice);
      const int ready =
          Poll(events, int(std::chrono::ceil<std::chrono::milliseconds>(slice).count()));
      if (ready > 0) return true;
      if (ready < 0 && errno != EINTR) return false;
    }
  }

  int fd_;
  const ConnectionPolicy& policy_;
  Clock::time_point request_start_ = Clock::now();
  char buffer_[4096];
  size_t begin_ = 0, end_ = 0;
};

// Set on the accepting thread while it refuses a connection the pool has no room for.
thread_local bool tl_refusing = false;

// The server's worker threads (httplib's ThreadPool with a bound): at most `max_waiting`
// connections wait for a thread; one more is refused at once, on the accepting thread
// (tl_refusing: HttpServer answers it 503 and closes it without reading).
class BoundedPool final : public httplib::TaskQueue {
 public:
  BoundedPool(int threads, int max_waiting, std::atomic<BoundedPool*>& registered)
      : max_waiting_(size_t(max_waiting)), registered_(registered) {
    for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Work(); });
    registered_ = this;
  }
  ~BoundedPool() override { registered_ = nullptr; }

  void enqueue(std::function<void()> task) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (tasks_.size() < max_waiting_) {
        tasks_.push_back(std::move(task));
        waiting_ = tasks_.size();
        wake_.notify_one();
        return;
      }
    }
    tl_refusing = true;
    task();
    tl_refusing = false;
  }

  void shutdown() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread& thread : threads_) thread.join();
  }

  // True while some connection waits for a thread.
  bool Crowded() const { return waiting_ > 0; }

 private:
  void Work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
        waiting_ = tasks_.size();
      }
      task();
    }
  }

  size_t max_waiting_;
  std::atomic<BoundedPool*>& registered_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;  // guarded by mutex_
  bool stopping_ = false;                    // guarded by mutex_
  std::atomic<size_t> waiting_{0};
  std::vector<std::thread> threads_;
};

// httplib's server with our connection loop: the accepted socket is served by `serve_socket`
// (Impl::ServeConnection over a SocketStream) instead of httplib's own loop, whose timeouts are
// per read and so never end a request that trickles in.
class RoutedServer final : public httplib::Server {
 public:
  using httplib::Server::process_request;
  // httplib (0.11.4) listens with a backlog of 5: a burst of connections beyond it overflows the
  // accept queue. Listening again on the bound socket widens it.
  void WidenBacklog() { ::listen(svr_sock_, SOMAXCONN); }
  std::function<void(socket_t)> serve_socket;

 private:
  bool process_and_close_socket(socket_t sock) override {
    serve_socket(sock);
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return true;
  }
};

constexpr std::string_view kRefusal =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
    "Content-Length: 69\r\nConnection: close\r\n\r\n"
    R"({"error": "server busy: too many connections waiting", "field": null})";

}  // namespace

struct HttpServer::Impl {
  HttpServerConfig config;
  WebApi& api;
  RoutedServer server;
  RateLimiter limiter;
  ConnectionPolicy policy;
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<bool> listening{false};
  std::atomic<BoundedPool*> pool{nullptr};
  std::mutex streams_mutex;
  int open_streams = 0;                   // guarded by streams_mutex
  std::map<std::string, int> streams_of;  // analysis id -> its open streams; streams_mutex

  Impl(const HttpServerConfig& c, WebApi& a)
      : config(c), api(a), limiter(c.rate_per_second, c.rate_burst) {
    policy.request = Seconds(config.request_seconds);
    policy.idle = Seconds(config.idle_seconds);
    policy.patience = Seconds(config.patience_seconds);
    policy.io = std::chrono::seconds(10);
    policy.max_request_bytes = config.max_body_bytes + kMaxHeadBytes;
    policy.stopping = [this] { return stopping.load(); };
    policy.crowded = [this] {
      BoundedPool* current = pool.load();
      return current != nullptr && current->Crowded();
    };
  }

  // Runs `handler`, turning its exceptions into JSON errors.
  template <class F>
  static void Guard(httplib::Response& response, F&& handler) {
    try {
      try {
        handler();
      } catch (const RequestError& e) {
        SendError(response, e.status(), e.what(), e.field());
      } catch (const Error& e) {
        SendError(response, 400, e.what(), "");
      } catch (const std::exception& e) {
        SendError(response, 500, std::string("internal error: ") + e.what(), "");
      } catch (...) {
        SendPlainError(response, 500);
      }
    } catch (...) {
      SendPlainError(response, 500);  // the error answer itself failed (out of memory)
    }
  }

  // The keep-alive loop of one connection, and the last guard of its requests: a failure that
  // escapes httplib closes this connection, never the process.
  void ServeConnection(ConnectionStream& stream) {
    for (int left = kMaxRequestsPerConnection; left > 0 && !stopping; --left) {
      if (!stream.WaitForRequest()) return;
      stream.StartRequest();
      bool closed = false;
      bool ok = false;
      tl_close_connection = false;
      try {
        ok = server.process_request(stream, left == 1, closed, [this](httplib::Request& request) {
          SetUpRequest(request, config.max_body_bytes);
        });
      } catch (...) {
        return;
      }
      if (!ok || closed || stream.failed() || tl_close_connection) return;
    }
  }

  void ServeSocket(socket_t sock) {
    if (tl_refusing) {
      ::send(sock, kRefusal.data(), kRefusal.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      return;
    }
    tl_close_connection = false;
    try {
      SocketStream stream(sock, policy);
      ServeConnection(stream);
    } catch (...) {
    }
    if (tl_close_connection) DrainBeforeClose(sock);
  }

  // Closing a socket with unread bytes in it resets the connection, and a client still sending
  // its request (a body refused unread, 413 or 429) may then never see the answer: after an error
  // answer, the rest of what the client sends is read and dropped, for at most 2 s and as many
  // bytes as one request may hold, before the socket is closed.
  void DrainBeforeClose(socket_t sock) const {
    ::shutdown(sock, SHUT_WR);
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(2);
    size_t drained = 0;
    char buffer[16384];
    while (drained < policy.max_request_bytes) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return;
      pollfd entry{sock, POLLIN, 0};
      if (::poll(&entry, 1, int(left.count())) <= 0) return;
      const ssize_t got = ::recv(sock, buffer, sizeof(buffer), MSG_DONTWAIT);
      if (got <= 0) return;
      drained += size_t(got);
    }
  }

  // Takes a stream slot of analysis `id`; RequestError 503 past either cap.
  void OpenStream(const std::string& id) {
    std::lock_guard<std::mutex> lock(streams_mutex);
    auto mine = streams_of.find(id);
    if (mine != streams_of.end() && mine->second >= config.max_streams_per_analysis) {
      throw RequestError(503, "",
                         "too many event streams of analysis " + id + ": " +
                             std::to_string(config.max_streams_per_analysis) + " are open");
    }
    if (open_streams >= config.max_streams) {
      throw RequestError(503, "",
                         "too many event streams: " + std::to_string(config.max_streams) +
                             " are open (the server's limit); close one or try again later");
    }
    ++streams_of[id];
    ++open_streams;
  }

  // One event stream: the answers it has taken (EngineService::Next's `seen`: each stream of an
  // analysis gets every answer, the final one included), and whether its slot was given back.
  struct StreamState {
    uint64_t seen = 0;
    bool closed = false;
  };
  // CloseStream, once per stream: at its end event, or when httplib drops it (a client gone).
  void CloseStreamOnce(const std::string& id, StreamState& stream) noexcept {
    if (stream.closed) return;
    stream.closed = true;
    CloseStream(id);
  }

  // Gives the slot back; the last stream of an analysis to close forgets it (stops its search).
  void CloseStream(const std::string& id) noexcept {
    try {
      bool last = false;
      {
        std::lock_guard<std::mutex> lock(streams_mutex);
        --open_streams;
        auto it = streams_of.find(id);
        if (it != streams_of.end() && --it->second <= 0) {
          streams_of.erase(it);
          last = true;
        }
      }
      if (last) {
        api.ForgetAnalysis(id);
        malloc_trim(0);  // the stream's own answers too (web_engine.cc trims the search's)
      }
    } catch (...) {
    }
  }

  void Routes() {
    using httplib::Request;
    using httplib::Response;
    const int threads = config.threads;
    const int max_waiting = config.max_waiting;
    server.new_task_queue = [this, threads, max_waiting] {
      return new BoundedPool(threads, max_waiting, pool);
    };
    server.serve_socket = [this](socket_t sock) { ServeSocket(sock); };
    server.set_payload_max_length(config.max_body_bytes);
    server.set_keep_alive_max_count(kMaxRequestsPerConnection);
    server.set_default_headers(
        {{"X-Content-Type-Options", "nosniff"},
         {"Referrer-Policy", "no-referrer"},
         {"X-Frame-Options", "DENY"},
         {"Content-Security-Policy",
          "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
          "connect-src 'self'; frame-ancestors 'none'"}});
    server.set_pre_routing_handler([this](const Request& request, Response& response) {
      try {
        if (!tl_bad_framing.empty() || tl_request_too_large) {
          tl_close_connection = true;
          response.set_header("Connection", "close");
          if (!tl_bad_framing.empty()) {
            SendError(response, 400, tl_bad_framing, "");
          } else {
            SendError(response, 413,
                      "request body too large: more than " + std::to_string(config.max_body_bytes) +
                          " bytes",
                      "body");
          }
          return httplib::Server::HandlerResponse::Handled;
        }
        if (limiter.Allow(request.remote_addr)) return httplib::Server::HandlerResponse::Unhandled;
        // Refused before its body was read: the body's bytes must not be taken for a request.
        tl_close_connection = true;
        response.set_header("Connection", "close");
        SendError(response, 429,
                  "too many requests from " + request.remote_addr + " (the server allows " +
                      std::to_string(int(config.rate_per_second)) + " a second)",
                  "");
      } catch (...) {
        SendPlainError(response, 500);
      }
      return httplib::Server::HandlerResponse::Handled;
    });
    // Errors httplib makes itself (a malformed request, 413 too large, 404 no route, 416 a bad
    // Range) get a JSON body naming what is wrong too; ours already have one. The request's path
    // and method are the client's bytes. Past any of them but a well-formed request for a missing
    // route or method, the connection is closed (tl_close_connection). "Not handled" keeps httplib
    // from cutting the body to a Range the request gave.
    server.set_error_handler(httplib::Server::HandlerWithResponse(
        [max_body = config.max_body_bytes](const Request& request, Response& response) {
          if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
          try {
            if (response.status == 400 && tl_request_too_large) response.status = 413;
            const int status = response.status;
            if (status != 404 && status != 405) {
              tl_close_connection = true;
              response.set_header("Connection", "close");
            }
            std::string message = "HTTP " + std::to_string(status);
            switch (status) {
              case 400:
                message =
                    "malformed or incomplete request: its request line, a header, or its body "
                    "(length, chunks, encoding; sent in time) cannot be read";
                break;
              case 404: message = "not found: " + request.path; break;
              case 405: message = "method not allowed: " + request.method; break;
              case 413:
                message =
                    "request body too large: more than " + std::to_string(max_body) + " bytes";
                break;
              case 414: message = "request target too long"; break;
              case 415: message = "unsupported Content-Encoding: send the body uncompressed"; break;
              case 416: message = "bad Range header"; break;
              default: break;
            }
            SendError(response, status, message, status == 413 ? "body" : "");
          } catch (...) {
            SendPlainError(response, response.status);
          }
          return httplib::Server::HandlerResponse::Unhandled;
        }));
    server.set_exception_handler([](const Request&, Response& response, std::exception_ptr ep) {
      Guard(response, [&] {
        if (ep) std::rethrow_exception(ep);
        throw std::runtime_error("unknown failure");
      });
    });

    server.Get(R"(/|/[A-Za-z0-9_-]+\.(html|css|js|svg))",
               [](const Request& request, Response& response) {
                 Guard(response, [&] {
                   const WebAsset* asset = FindWebAsset(request.path);
                   if (asset == nullptr) throw RequestError(404, "", "not found: " + request.path);
                   response.set_header("Cache-Control", "no-cache");
                   response.set_content(std::string(asset->body), std::string(asset->content_type));
                 });
               });
    server.Get("/api/info", [this](const Request&, Response& response) {
      Guard(response, [&] { SendJson(response, api.Info()); });
    });
    // `call` takes the parsed body and the client's address (the engine's per-client cap).
    auto post = [this](const char* path, auto&& call) {
      server.Post(path, [this, call](const Request& request, Response& response) {
        Guard(response, [&] { SendJson(response, call(ParseBody(request), request.remote_addr)); });
      });
    };
    post("/api/position",
         [this](const json& body, const std::string&) { return api.Position(body); });
    post("/api/play",
         [this](const json& body, const std::string& client) { return api.Play(body, client); });
    post("/api/record/export",
         [this](const json& body, const std::string&) { return api.ExportRecord(body); });
    post("/api/record/import",
         [this](const json& body, const std::string&) { return api.ImportRecord(body); });
    post("/api/analysis", [this](const json& body, const std::string& client) {
      return json{{"id", api.StartAnalysis(body, client)}};
    });
    server.Post(R"(/api/analysis/(j[0-9]{1,18})/stop)",
                [this](const Request& request, Response& response) {
                  Guard(response, [&] {
                    const std::string id = request.matches[1];
                    if (!api.AnalysisExists(id)) throw RequestError(404, "", "no analysis " + id);
                    api.StopAnalysis(id);
                    SendJson(response, {{"id", id}, {"stopping", true}});
                  });
                });
    server.Get(R"(/api/analysis/(j[0-9]{1,18})/events)",
               [this](const Request& request, Response& response) {
                 Guard(response, [&] {
                   const std::string id = request.matches[1];
                   if (!api.AnalysisExists(id)) throw RequestError(404, "", "no analysis " + id);
                   response.set_header("Cache-Control", "no-cache");
                   if (request.method == "HEAD") {
                     // The headers alone: a HEAD (a prefetcher, a link checker) opens no stream,
                     // so its end does not forget the analysis as a last stream's does.
                     response.set_header("Content-Type", "text/event-stream");
                     return;
                   }
                   OpenStream(id);
                   auto stream = std::make_shared<StreamState>();
                   response.set_chunked_content_provider(
                       "text/event-stream",
                       [this, id, stream](size_t, httplib::DataSink& sink) {
                         return StreamStep(id, *stream, sink);
                       },
                       [this, id, stream](bool) { CloseStreamOnce(id, *stream); });
                 });
               });
    server.Get("/api/runs", [this](const Request&, Response& response) {
      Guard(response, [&] { SendJson(response, api.Runs()); });
    });
    server.Get(R"(/api/runs/([^/]{1,200}))", [this](const Request& request, Response& response) {
      Guard(response, [&] { SendJson(response, api.Run(request.matches[1])); });
    });
    server.Get(R"(/api/runs/([^/]{1,200})/plots/([^/]{1,200}))", [this](const Request& request,
                                                                        Response& response) {
      Guard(response, [&] {
        response.set_content(api.RunPlot(request.matches[1], request.matches[2]), "image/svg+xml");
      });
    });
  }

  // One step of an analysis' event stream: its next answers as SSE "data:" events, a comment line
  // as a keep-alive (which also finds a client that has gone), "event: end" when it is over. Runs
  // outside httplib's handler guard: any failure ends the stream.
  bool StreamStep(const std::string& id, StreamState& stream, httplib::DataSink& sink) {
    try {
      if (stopping) return false;
      std::vector<json> answers;
      const bool more = api.NextAnalysis(id, stream.seen, answers, std::chrono::milliseconds(250));
      std::string text;
      for (const json& answer : answers) {
        text += "data: " + answer.dump(-1, ' ', false, json::error_handler_t::replace) + "\n\n";
      }
      // The stream's slot is given back before its end event, so that once a client has read the
      // end of the last stream, the analysis is gone.
      if (!more) CloseStreamOnce(id, stream);
      if (!more) text += "event: end\ndata: {}\n\n";
      if (text.empty()) text = ": waiting\n\n";
      if (!sink.write(text.data(), text.size())) return false;
      if (!more) sink.done();
      return true;
    } catch (...) {
      return false;
    }
  }
};

namespace {

void CheckConfig(const HttpServerConfig& config) {
  auto refuse = [](const std::string& what) { throw Error("vzero serve: " + what); };
  if (config.threads < 4) refuse("threads " + std::to_string(config.threads) + " is below 4");
  if (config.max_streams < 1 || config.max_streams > config.threads - 2) {
    refuse("max streams " + std::to_string(config.max_streams) + " is outside 1.." +
           std::to_string(config.threads - 2) + " (two threads stay for quick requests)");
  }
  if (config.max_streams_per_analysis < 1 || config.max_streams_per_analysis > config.max_streams) {
    refuse("max streams per analysis " + std::to_string(config.max_streams_per_analysis) +
           " is outside 1.." + std::to_string(config.max_streams));
  }
  if (!(config.request_seconds > 0) || !(config.idle_seconds > 0) ||
      !(config.patience_seconds >= 0)) {
    refuse("request, idle and patience seconds must be positive");
  }
  if (config.max_waiting < 1) refuse("max waiting connections must be at least 1");
}

}  // namespace

HttpServer::HttpServer(const HttpServerConfig& config, WebApi& api)
    : impl_((CheckConfig(config), std::make_unique<Impl>(config, api))) {
  impl_->Routes();
}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::Start() {
  const std::string where = impl_->config.host + ":" + std::to_string(impl_->config.port);
  int port = impl_->config.port;
  if (port == 0) {
    port = impl_->server.bind_to_any_port(impl_->config.host);
    if (port < 0) throw Error("vzero serve: cannot bind " + where);
  } else if (!impl_->server.bind_to_port(impl_->config.host, port)) {
    throw Error("vzero serve: cannot bind " + where + " (in use, or not an address of this host)");
  }
  impl_->server.WidenBacklog();
  impl_->listening = true;
  impl_->thread = std::thread([this] {
    impl_->server.listen_after_bind();
    impl_->listening = false;
  });
  // httplib's stop() does nothing before the listen loop has begun (and the loop would then block
  // in accept for ever): return only once it runs.
  while (impl_->listening && !impl_->server.is_running()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return port;
}

void HttpServer::Stop() {
  if (!impl_) return;
  impl_->stopping = true;
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void HttpServer::Wait() {
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string HttpServer::ServeBytes(std::string_view input) {
  try {
    MemoryStream stream(input, impl_->policy.max_request_bytes);
    impl_->ServeConnection(stream);
    return std::move(stream.output());
  } catch (...) {
    return "";
  }
}

}  // namespace vz
