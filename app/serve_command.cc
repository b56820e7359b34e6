// `vzero serve`: the web interface (serve/http_server.h, serve/web_api.h; docs/web.md). Serves
// until SIGINT or SIGTERM, then stops the server and the engines and returns (status 0).

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "app/commands.h"
#include "engine/core/error.h"
#include "serve/http_server.h"
#include "serve/web_api.h"
#include "nets/shipped_nets.h"
#if defined(VZ_HAVE_TORCH)
#include "nets/variant_nets.h"
#endif

namespace vz::app {
namespace {

std::atomic<bool> stop_requested{false};

struct ServeOptions {
  HttpServerConfig http;
  std::vector<std::string> nets;
  WebApiConfig api;
};

void RunServe(const ServeOptions& options) {
  WebApiConfig api_config = options.api;
#if defined(VZ_HAVE_TORCH)
  api_config.engine.nets = [&] {
    std::vector<std::string> messages;
    auto files = nets::NetFilesWithShipped(options.nets, &messages);
    for (const std::string& message : messages) std::fprintf(stderr, "vzero serve: %s\n", message.c_str());
    return files;
  }();
#else
  if (!options.nets.empty() && !(options.nets.size() == 1 && nets::IsNoNet(options.nets[0]))) {
    throw Error("--net " + options.nets[0] + ": this vzero was built without LibTorch (no nets/)");
  }
#endif
  WebApi api(api_config);
  HttpServer server(options.http, api);
  const int port = server.Start();
  std::signal(SIGINT, [](int) { stop_requested = true; });
  std::signal(SIGTERM, [](int) { stop_requested = true; });
  std::string host = options.http.host;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  std::fprintf(stderr, "vzero serve: http://%s:%d/ (Ctrl-C stops)\n", host.c_str(), port);
  if (options.http.host != "127.0.0.1" && options.http.host != "localhost" &&
      options.http.host != "::1") {
    std::fprintf(stderr,
                 "vzero serve: listening on %s: anyone who can reach this address can use the "
                 "engine (there is no login)\n",
                 options.http.host.c_str());
  }
  while (!stop_requested) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::fprintf(stderr, "vzero serve: stopping\n");
  server.Stop();
}

}  // namespace

void AddServeCommand(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand(
      "serve", "Web interface: play, analyse and watch training in a browser (docs/web.md)");
  command->add_option("--host", options->http.host, "Address to listen on (default 127.0.0.1)");
  command->add_option("--port", options->http.port, "Port (default 8080; 0: any free port)")
      ->check(CLI::Range(0, 65535));
  command->add_option("--net", options->nets,
                      "Net file; repeat for several variants (each serves the game it names; "
                      "the others use their shipped net, models/, or random rollouts); none: "
                      "random rollouts for every game");
  command->add_option("--device", options->api.engine.device, "cpu, cuda or cuda:N (the nets)");
  command
      ->add_option("--runs", options->api.runs_dir,
                   "Directory of training runs shown on the dashboard")
      ->check(CLI::ExistingDirectory);
  command
      ->add_option("--max-jobs", options->api.engine.max_jobs,
                   "Searches (analyses and engine moves) running at once (default 8)")
      ->check(CLI::Range(1, 256));
  command
      ->add_option("--max-jobs-per-client", options->api.engine.max_jobs_per_client,
                   "Searches of one client address running at once (default 0: half of "
                   "--max-jobs, rounded up)")
      ->check(CLI::Range(0, 256));
  command
      ->add_option("--max-simulations", options->api.max_simulations,
                   "Most simulations of one search (default 50000)")
      ->check(CLI::Range(int64_t{1}, int64_t{10000000}));
  command
      ->add_option("--simulations", options->api.default_simulations,
                   "Simulations of an engine move that names none (default 400)")
      ->check(CLI::Range(int64_t{1}, int64_t{10000000}));
  command
      ->add_option("--rate", options->http.rate_per_second,
                   "Requests per second per client address (default 50)")
      ->check(CLI::Range(1.0, 100000.0));
  command->callback([options] {
    options->http.rate_burst = 4 * options->http.rate_per_second;
    RunServe(*options);
  });
}

}  // namespace vz::app
