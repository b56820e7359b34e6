#include "serve/http_server.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
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

void SendJson(httplib::Response& response, const json& body, int status = 200) {
  response.status = status;
  response.set_content(body.dump(), "application/json");
}

void SendError(httplib::Response& response, int status, const std::string& message,
               const std::string& field) {
  SendJson(response, {{"error", message}, {"field", field.empty() ? json(nullptr) : json(field)}},
           status);
}

json ParseBody(const httplib::Request& request) {
  try {
    return json::parse(request.body);
  } catch (const json::parse_error& e) {
    throw RequestError(400, "body", std::string("body: malformed JSON: ") + e.what());
  }
}

}  // namespace

struct HttpServer::Impl {
  HttpServerConfig config;
  WebApi& api;
  httplib::Server server;
  RateLimiter limiter;
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<bool> listening{false};

  Impl(const HttpServerConfig& c, WebApi& a)
      : config(c), api(a), limiter(c.rate_per_second, c.rate_burst) {}

  // Runs `handler`, turning its exceptions into JSON errors.
  template <class F>
  static void Guard(httplib::Response& response, F&& handler) {
    try {
      handler();
    } catch (const RequestError& e) {
      SendError(response, e.status(), e.what(), e.field());
    } catch (const Error& e) {
      SendError(response, 400, e.what(), "");
    } catch (const std::exception& e) {
      SendError(response, 500, std::string("internal error: ") + e.what(), "");
    }
  }

  void Routes() {
    using httplib::Request;
    using httplib::Response;
    const int threads = std::max(4, config.threads);
    server.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
    server.set_payload_max_length(config.max_body_bytes);
    server.set_read_timeout(10, 0);
    server.set_write_timeout(10, 0);
    server.set_keep_alive_max_count(1000);
    server.set_default_headers(
        {{"X-Content-Type-Options", "nosniff"},
         {"Referrer-Policy", "no-referrer"},
         {"X-Frame-Options", "DENY"},
         {"Content-Security-Policy",
          "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
          "connect-src 'self'; frame-ancestors 'none'"}});
    server.set_pre_routing_handler([this](const Request& request, Response& response) {
      if (!limiter.Allow(request.remote_addr)) {
        SendError(response, 429,
                  "too many requests from " + request.remote_addr + " (the server allows " +
                      std::to_string(int(config.rate_per_second)) + " a second)",
                  "");
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    // Errors httplib makes itself (413 too large, 404 no route, 400 bad request line) get a JSON
    // body too; ours already have one.
    server.set_error_handler([](const Request& request, Response& response) {
      if (!response.body.empty()) return;
      std::string message = "HTTP " + std::to_string(response.status);
      if (response.status == 404) message = "not found: " + request.path;
      if (response.status == 413) message = "request body too large";
      if (response.status == 405) message = "method not allowed: " + request.method;
      SendError(response, response.status, message, response.status == 413 ? "body" : "");
    });
    server.set_exception_handler([](const Request&, Response& response, std::exception_ptr ep) {
      std::string message = "internal error";
      try {
        if (ep) std::rethrow_exception(ep);
      } catch (const std::exception& e) {
        message += std::string(": ") + e.what();
      } catch (...) {
      }
      SendError(response, 500, message, "");
    });

    server.Get(R"(/|/[A-Za-z0-9_-]+\.(html|css|js|svg))",
               [](const Request& request, Response& response) {
                 const WebAsset* asset = FindWebAsset(request.path);
                 if (asset == nullptr) {
                   SendError(response, 404, "not found: " + request.path, "");
                   return;
                 }
                 response.set_header("Cache-Control", "no-cache");
                 response.set_content(std::string(asset->body), std::string(asset->content_type));
               });
    server.Get("/api/info", [this](const Request&, Response& response) {
      Guard(response, [&] { SendJson(response, api.Info()); });
    });
    auto post = [this](const char* path, auto&& call) {
      server.Post(path, [this, call](const Request& request, Response& response) {
        Guard(response, [&] { SendJson(response, call(ParseBody(request))); });
      });
    };
    post("/api/position", [this](const json& body) { return api.Position(body); });
    post("/api/play", [this](const json& body) { return api.Play(body); });
    post("/api/record/export", [this](const json& body) { return api.ExportRecord(body); });
    post("/api/record/import", [this](const json& body) { return api.ImportRecord(body); });
    post("/api/analysis", [this](const json& body) {
      return json{{"id", api.StartAnalysis(body)}};
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
                 const std::string id = request.matches[1];
                 if (!api.AnalysisExists(id)) {
                   SendError(response, 404, "no analysis " + id, "");
                   return;
                 }
                 response.set_header("Cache-Control", "no-cache");
                 response.set_chunked_content_provider(
                     "text/event-stream",
                     [this, id](size_t, httplib::DataSink& sink) { return Stream(id, sink); },
                     [this, id](bool) { api.ForgetAnalysis(id); });
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
  // as a keep-alive (which also finds a client that has gone), "event: end" when it is over.
  bool Stream(const std::string& id, httplib::DataSink& sink) {
    if (stopping) return false;
    std::vector<json> answers;
    const bool more = api.NextAnalysis(id, answers, std::chrono::milliseconds(250));
    std::string text;
    for (const json& answer : answers) text += "data: " + answer.dump() + "\n\n";
    if (!more) text += "event: end\ndata: {}\n\n";
    if (text.empty()) text = ": waiting\n\n";
    if (!sink.write(text.data(), text.size())) return false;
    if (!more) sink.done();
    return true;
  }
};

HttpServer::HttpServer(const HttpServerConfig& config, WebApi& api)
    : impl_(std::make_unique<Impl>(config, api)) {
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

}  // namespace vz
