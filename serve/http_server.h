#pragma once

// The HTTP side of `vzero serve` (cpp-httplib, Debian's libcpp-httplib-dev): the embedded page
// (serve/web_assets.h), the JSON API of serve/web_api.h under /api/, and analyses streamed as
// Server-Sent Events. Routes and limits are listed in docs/web.md.
//
// Safe by default: binds to 127.0.0.1 unless told otherwise; serves only the embedded assets and,
// through WebApi, the run files of --runs (exact names, no paths); a request body over
// max_body_bytes gets 413, a client over its rate gets 429, a bad request 4xx; every error body is
// JSON {"error": "...", "field": "..." or null}, text from the client in it made valid UTF-8 (bad
// bytes replaced). Every handler, the error path included, runs under one guard: a failure is a
// JSON 4xx/5xx answer or, at worst, that connection closed, never the end of the process.
//
// Limits under load (docs/web.md): a pool of `threads` threads, each serving one connection at a
// time; at most `max_streams` analysis event streams (and `max_streams_per_analysis` per
// analysis), fewer than the threads, so that quick requests always find one (503 past either
// cap); a request must arrive whole (request line, headers, body) within `request_seconds` of its
// first byte and a connection idle for `idle_seconds` between requests is closed; while a
// connection waits for a thread, connections whose client has kept their thread waiting longer than
// `patience_seconds` are closed; past `max_waiting` waiting connections a new one gets 503 at once.
//
// Thread-safety: Start, Stop and Wait from one controlling thread; ServeBytes from any thread.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace vz {

class WebApi;

struct HttpServerConfig {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (Start returns it)
  size_t max_body_bytes = 256 * 1024;
  // Requests per second each client address may make on average, and in a burst.
  double rate_per_second = 50;
  double rate_burst = 200;
  // Worker threads; each open connection holds one while it is served. At least 4.
  int threads = 32;
  // Analysis event streams open at once, in all (below `threads`) and per analysis.
  int max_streams = 16;
  int max_streams_per_analysis = 4;
  // Seconds a request may take to arrive whole from its first byte, and a connection may stay
  // idle between requests; both > 0.
  double request_seconds = 10;
  double idle_seconds = 5;
  // Seconds a client may keep its thread waiting (idle, or sending slowly) while another
  // connection waits for a thread.
  double patience_seconds = 1;
  // Connections waiting for a free thread at most.
  int max_waiting = 256;
};

class HttpServer {
 public:
  // `api` must outlive the server. Throws vz::Error naming a limit that is out of range.
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

  // Serves `input`, the bytes a client sent on one connection (one or more HTTP/1.1 requests), in
  // process without a socket, through the same parser, routes, limits and guards as a real
  // connection, and returns the bytes the server answered. For the fuzz target and tests; works
  // without Start. Event streams run until their analysis ends. Never throws.
  std::string ServeBytes(std::string_view input);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vz
