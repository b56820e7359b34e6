// Fuzz target: HTTP requests to `vzero serve` (serve/http_server.h) in process, without sockets.
// Input: the bytes a client sends on one connection (one or more requests), fed by
// HttpServer::ServeBytes through httplib's request parser, the keep-alive loop, the routes, the
// JSON API (serve/web_api.h) with its engine, the event streams and every guard. One server serves
// all inputs: the rollout evaluator, searches of at most 16 simulations and 4096 nodes, engine
// moves of at most 0.05 s, two jobs at once, a rate limit far above the fuzzer's, a runs directory
// with one run. httplib itself is Debian's shared library, not instrumented: its code runs, but
// only ours guides the fuzzer. Checks: nothing crashes or escapes ServeBytes; an answer starts with
// an HTTP/1.1 status line; the first answer's JSON body (when it has one) parses, and is an object
// with "error" when its status is 4xx or 5xx.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "serve/http_server.h"
#include "serve/web_api.h"

namespace {

namespace fs = std::filesystem;

struct Fixture {
  fs::path root;
  std::unique_ptr<vz::WebApi> api;
  std::unique_ptr<vz::HttpServer> server;

  Fixture() {
    root = fs::temp_directory_path() / ("vz-http-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(root / "runs" / "run1" / "plots");
    std::ofstream(root / "runs" / "run1" / "metrics.jsonl")
        << R"({"type":"train","step":10,"loss":2.5})"
        << "\n";
    std::ofstream(root / "runs" / "run1" / "plots" / "losses.svg") << "<svg>losses</svg>";
    vz::WebApiConfig config;
    config.runs_dir = (root / "runs").string();
    config.engine.max_jobs = 2;
    config.engine.max_nodes = 4096;
    config.default_simulations = 8;
    config.max_simulations = 16;
    config.max_move_seconds = 0.05;
    api = std::make_unique<vz::WebApi>(config);
    vz::HttpServerConfig http;
    http.rate_per_second = 1e12;
    http.rate_burst = 1e12;
    http.threads = 4;
    http.max_streams = 2;
    http.max_streams_per_analysis = 1;
    server = std::make_unique<vz::HttpServer>(http, *api);
  }
  ~Fixture() {
    server.reset();
    api.reset();
    std::error_code error;
    fs::remove_all(root, error);
  }
};

// The status and, when its head gives a Content-Length, the body of the first answer in `output`.
bool FirstAnswer(const std::string& output, int& status, std::string& head, std::string& body) {
  const size_t end = output.find("\r\n\r\n");
  if (end == std::string::npos) return false;
  head = output.substr(0, end);
  status = std::atoi(head.c_str() + 9);
  const size_t length = head.find("Content-Length: ");
  if (length == std::string::npos) return true;
  body = output.substr(end + 4, size_t(std::atoll(head.c_str() + length + 16)));
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture fixture;
  const std::string output =
      fixture.server->ServeBytes(std::string_view(reinterpret_cast<const char*>(data), size));
  if (output.empty()) return 0;
  // Like VZ_FUZZ_CHECK, showing the answer first.
  auto check = [&output](bool condition, const char* what) {
    if (condition) return;
    std::fprintf(stderr, "fuzz invariant failed: %s\nanswer:\n%s\n", what,
                 output.substr(0, 800).c_str());
    std::abort();
  };

  check(output.rfind("HTTP/1.1 ", 0) == 0, "output.rfind(\"HTTP/1.1 \", 0) == 0");
  int status = 0;
  std::string head, body;
  check(FirstAnswer(output, status, head, body), "FirstAnswer(output, status, head, body)");
  check(status >= 200 && status < 600, "status >= 200 && status < 600");
  // The answer to a HEAD request has the headers of a GET's and no body: what follows its head
  // is the next answer.
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t first = input.find_first_not_of("\r\n");
  const bool head_request =
      first != std::string_view::npos && input.substr(first).starts_with("HEAD");
  if (!head_request && head.find("Content-Type: application/json") != std::string::npos &&
      !body.empty()) {
    const nlohmann::json reply = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
    check(!reply.is_discarded(), "!reply.is_discarded()");
    if (status >= 400)
      check(reply.is_object() && reply.contains("error"),
            "reply.is_object() && reply.contains(\"error\")");
  }
  return 0;
}
