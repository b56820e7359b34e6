// A bounded load test of `vzero serve` on 127.0.0.1 (label slow; about half a minute): the server
// in process with its default limits except the rate (every client here shares one address), a
// 3 s request deadline. Four storms, one after the other: many quick clients,
// slow clients that trickle a header line every 500 ms, more event streams than the caps allow,
// and 16 analyses of up to 20000 simulations (stopped after 4 s). Then /api/info must answer within
// a second and the process' resident memory must be back within 64 MiB of its value before the
// storms. The figures (latencies, refusals, RSS) are printed; docs/reliability.md records a run.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/allocator.h"
#include "serve/http_server.h"
#include "serve/web_api.h"

namespace vz {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// This process' resident set, MiB (/proc/self/status VmRSS).
double ResidentMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

int Connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

class WebLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WebApiConfig config;
    config.engine.max_jobs = 8;
    config.engine.max_jobs_per_client = 8;  // every client of this test has the address 127.0.0.1
    config.default_simulations = 16;
    config.max_simulations = 20000;
    api_ = std::make_unique<WebApi>(config);
    HttpServerConfig http;
    http.host = "127.0.0.1";
    http.port = 0;
    http.rate_per_second = 1e9;
    http.rate_burst = 1e9;
    http.request_seconds = 3;
    server_ = std::make_unique<HttpServer>(http, *api_);
    port_ = server_->Start();
  }

  // Seconds /api/info takes on a fresh connection (-1 when it fails).
  double InfoSeconds() {
    httplib::Client client("127.0.0.1", port_);
    client.set_connection_timeout(30, 0);
    client.set_read_timeout(30, 0);
    const Clock::time_point start = Clock::now();
    auto result = client.Get("/api/info");
    return result && result->status == 200 ? SecondsSince(start) : -1;
  }

  // Runs an analysis of `simulations` through its event stream, stopped after `seconds` when it
  // has not ended by then.
  void Analyse(const std::string& variant, int simulations, double seconds) {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(120, 0);
    auto started = client.Post("/api/analysis",
                               Json{{"variant", variant}, {"simulations", simulations}}.dump(),
                               "application/json");
    if (!started || started->status != 200) return;
    const std::string id = Json::parse(started->body)["id"];
    std::atomic<bool> ended{false};
    std::thread stopper([&] {
      const Clock::time_point start = Clock::now();
      while (!ended && SecondsSince(start) < seconds) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      if (ended) return;
      httplib::Client stop("127.0.0.1", port_);
      stop.Post(("/api/analysis/" + id + "/stop").c_str(), "{}", "application/json");
    });
    client.Get(("/api/analysis/" + id + "/events").c_str(),
               [](const char*, size_t) { return true; });
    ended = true;
    stopper.join();
  }

  std::unique_ptr<WebApi> api_;
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
};

TEST_F(WebLoadTest, StormsEndWithAQuickServerAndMemoryGivenBack) {
  KeepFreedMemoryInTheHeap();  // the allocator of `vzero serve`
  const Clock::time_point test_start = Clock::now();
  Analyse("chad", 200, 30);  // warm up: code, first allocations, the engine's pools
  const double rss_start = ResidentMiB();
  std::printf("[load] RSS before the storms: %.0f MiB\n", rss_start);

  // 1. Many clients: 32 keep-alive clients x 25 positions.
  {
    const Clock::time_point start = Clock::now();
    std::atomic<int> ok{0};
    std::vector<std::thread> clients;
    for (int c = 0; c < 32; ++c) {
      clients.emplace_back([&] {
        httplib::Client client("127.0.0.1", port_);
        client.set_read_timeout(30, 0);
        for (int i = 0; i < 25; ++i) {
          auto result =
              client.Post("/api/position", R"({"variant":"cuarenta"})", "application/json");
          ok += result && result->status == 200;
          if (!result || result->status != 200) {
            std::printf("[load] a quick request failed: %s\n",
                        result ? std::to_string(result->status).c_str()
                               : httplib::to_string(result.error()).c_str());
          }
        }
      });
    }
    for (std::thread& client : clients) client.join();
    std::printf("[load] many clients: %d/800 answered 200 in %.1f s\n", ok.load(),
                SecondsSince(start));
    EXPECT_EQ(ok.load(), 800);
  }

  // 2. Slow clients: 48 connections (more than the 32 threads) each sending a header line every
  // 500 ms, never finishing; /api/info asked meanwhile.
  {
    const Clock::time_point start = Clock::now();
    std::vector<int> sockets;
    for (int c = 0; c < 48; ++c) {
      const int fd = Connect(port_);
      if (fd < 0) continue;
      const std::string line = "GET /api/info HTTP/1.1\r\n";
      ::send(fd, line.data(), line.size(), MSG_NOSIGNAL);
      sockets.push_back(fd);
    }
    std::atomic<bool> trickling{true};
    std::thread trickle([&] {
      while (trickling) {
        for (int fd : sockets) ::send(fd, "X-Slow: 1\r\n", 11, MSG_NOSIGNAL | MSG_DONTWAIT);
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    double worst = 0;
    int failed = 0;
    for (int i = 0; i < 5; ++i) {
      const double seconds = InfoSeconds();
      if (seconds < 0) ++failed;
      worst = std::max(worst, seconds);
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    // By the 3 s request deadline every slow connection is closed by the server.
    std::this_thread::sleep_for(std::chrono::milliseconds(3000));
    int closed = 0;
    for (int fd : sockets) {
      // The server answers 400 (the request never arrived whole), then closes.
      char buffer[4096];
      timeval timeout{0, 200000};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
      ssize_t got;
      while ((got = ::recv(fd, buffer, sizeof(buffer), 0)) > 0) {
      }
      closed += got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
    }
    trickling = false;
    trickle.join();
    for (int fd : sockets) ::close(fd);
    std::printf(
        "[load] slow clients: %zu connected; /api/info meanwhile worst %.3f s (%d failed); "
        "%d/%zu closed by the server within %.1f s\n",
        sockets.size(), worst, failed, closed, sockets.size(), SecondsSince(start));
    EXPECT_EQ(failed, 0);
    EXPECT_EQ(closed, int(sockets.size()));
  }

  // 3. Streams: 8 long analyses, 5 streams asked of each (40; the caps allow 4 per analysis and
  // 16 in all); /api/info asked while they are open.
  {
    const Clock::time_point start = Clock::now();
    httplib::Client client("127.0.0.1", port_);
    std::vector<std::string> ids;
    for (int i = 0; i < 8; ++i) {
      auto result =
          client.Post("/api/analysis", R"({"variant":"chaco-rex","simulations":20000,"every":0.2})",
                      "application/json");
      if (result && result->status == 200) ids.push_back(Json::parse(result->body)["id"]);
    }
    std::atomic<int> opened{0}, refused{0};
    std::vector<std::thread> streams;
    for (const std::string& id : ids) {
      for (int k = 0; k < 5; ++k) {
        streams.emplace_back([&, id] {
          httplib::Client stream("127.0.0.1", port_);
          stream.set_read_timeout(120, 0);
          auto result = stream.Get(("/api/analysis/" + id + "/events").c_str(),
                                   [&](const httplib::Response& response) {
                                     opened += response.status == 200;
                                     return true;
                                   },
                                   [&](const char*, size_t) { return true; });
          if (result && result->status == 503) ++refused;
        });
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    const double info = InfoSeconds();
    const int open_now = opened.load();
    for (const std::string& id : ids) {
      client.Post(("/api/analysis/" + id + "/stop").c_str(), "{}", "application/json");
    }
    for (std::thread& stream : streams) stream.join();
    std::printf(
        "[load] streams: %zu analyses, 40 asked, %d opened, %d refused 503; /api/info with "
        "them open %.3f s; %.1f s\n",
        ids.size(), open_now, refused.load(), info, SecondsSince(start));
    EXPECT_EQ(ids.size(), 8u);
    EXPECT_LE(open_now, 16);
    EXPECT_GE(refused.load(), 40 - 16);
    EXPECT_GE(info, 0);
  }

  // 4. Memory: 16 analyses of 20000 simulations (stopped after 4 s when not done), 8 at a time.
  {
    const Clock::time_point start = Clock::now();
    double peak = 0;
    for (int round = 0; round < 2; ++round) {
      std::vector<std::thread> analyses;
      for (int i = 0; i < 8; ++i) {
        analyses.emplace_back([&, i] { Analyse(i % 2 ? "chad" : "cuarenta", 20000, 4); });
      }
      for (std::thread& analysis : analyses) analysis.join();
      peak = std::max(peak, ResidentMiB());
    }
    std::printf(
        "[load] 16 analyses of up to 20000 simulations in %.1f s; RSS after each 8: peak %.0f "
        "MiB\n",
        SecondsSince(start), peak);
  }

  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const double info = InfoSeconds();
  const double rss_end = ResidentMiB();
  std::printf(
      "[load] after the storms: /api/info %.3f s; RSS %.0f MiB (start %.0f MiB, %+.0f); "
      "whole test %.1f s\n",
      info, rss_end, rss_start, rss_end - rss_start, SecondsSince(test_start));
  EXPECT_GE(info, 0);
  EXPECT_LT(info, 1.0);
  EXPECT_LT(rss_end, rss_start + 64) << "memory was not given back";
}

}  // namespace
}  // namespace vz
