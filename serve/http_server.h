#pragma once

// The HTTP side of `vzero serve` (cpp-httplib, Debian's libcpp-httplib-dev): the embedded page
// (serve/web_assets.h), the JSON API of serve/web_api.h under /api/, and analyses streamed as
// Server-Sent Events. Routes and limits are listed in docs/web.md.
//
// Safe by default: binds to 127.0.0.1 unless told otherwise; serves only the embedded assets and,
// through WebApi, the run files of --runs (exact names, no paths); a request body over
// max_body_bytes gets 413, a client over its rate gets 429, a bad request 4xx; every error body is
// JSON {"error": "...", "field": "..." or null}. Requests run on a pool of `threads` threads;
// WebApi guards what they share.
//
// Thread-safety: Start, Stop and Wait from one controlling thread.

#include <cstddef>
#include <memory>
#include <string>

namespace vz {

class WebApi;

struct HttpServerConfig {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (Start returns it)
  size_t max_body_bytes = 256 * 1024;
  // Requests per second each client address may make on average, and in a burst.
  double rate_per_second = 50;
  double rate_burst = 200;
  // Worker threads (each open analysis stream holds one).
  int threads = 32;
};

class HttpServer {
 public:
  // `api` must outlive the server.
  HttpServer(const HttpServerConfig& config, WebApi& api);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds host:port and starts serving on a background thread. Returns the bound port. Throws
  // vz::Error naming host:port when it cannot bind.
  int Start();
  // Stops listening, ends open streams and joins the threads. Idempotent.
  void Stop();
  // Blocks until the server stops.
  void Wait();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vz
