// `vzero analysis`: the JSON-lines analysis engine (serve/analysis.h; format in
// docs/analysis.md, after KataGo's analysis engine). A reader thread (serve/line_io.h) queues stdin
// lines so that a
// terminate request is seen between two search rounds; the main thread handles the lines and runs
// the lockstep rounds, and alone writes stdout (one JSON object per line, flushed at once). At the
// end of stdin the queued and running queries are finished, then the command returns (status 0).

#include <fmt/core.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app/commands.h"
#include "engine/core/error.h"
#include "engine/registry.h"
#include "build_info.h"
#include "engine/search/search_params.h"
#include "serve/analysis.h"
#include "serve/line_io.h"
#include "nets/shipped_nets.h"
#if defined(VZ_HAVE_TORCH)
#include "nets/variant_nets.h"
#endif


namespace vz::app {
namespace {

struct AnalysisOptions {
  std::vector<std::string> nets;
  std::string device = "cpu";
  std::string variant;
  int64_t simulations = 200;
  int batch = 256;
  int max_queries = 64;
  int leaves = 0;
  int64_t max_nodes = int64_t{1} << 22;
};

void WriteLine(const std::string& line) {
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

void RunAnalysis(const AnalysisOptions& options) {
  AnalysisConfig config;
  config.default_simulations = options.simulations;
  config.max_batch = options.batch;
  config.max_active = options.max_queries;
  config.leaves_per_search = options.leaves;
  config.max_nodes = options.max_nodes;
  config.device = options.device;
  config.default_variant = options.variant;
  config.version = VZ_VERSION;
  config.git_revision = VZ_GIT_REVISION;
#if defined(VZ_HAVE_TORCH)
  config.nets = [&] {
    std::vector<std::string> messages;
    auto files = nets::NetFilesWithShipped(options.nets, &messages);
    for (const std::string& message : messages) std::fprintf(stderr, "vzero analysis: %s\n", message.c_str());
    return files;
  }();
#else
  if (!options.nets.empty() && !(options.nets.size() == 1 && nets::IsNoNet(options.nets[0]))) {
    throw Error("--net " + options.nets[0] + ": this vzero was built without LibTorch (no nets/)");
  }
#endif
  AnalysisEngine engine(config, WriteLine);
  std::string rollout;
  for (const Variant* variant : AllVariants()) {
    if (engine.EvaluatorKind(variant->name()) == "rollout") {
      rollout += (rollout.empty() ? "" : ", ") + std::string(variant->name());
    }
  }
  if (!rollout.empty()) {
    std::fprintf(stderr,
                 "vzero analysis: no net for %s: analysed with random rollouts (weak; give "
                 "--net FILE)\n",
                 rollout.c_str());
  }
  std::fprintf(stderr, "vzero analysis: ready for queries (one JSON object per line)\n");

  LineReader reader(std::cin);
  std::vector<std::string> lines;
  for (;;) {
    const bool ended = reader.Take(lines, /*wait=*/!engine.Busy());
    for (const std::string& line : lines) engine.HandleLine(line);
    if (engine.Busy()) {
      engine.RunRound();
    } else if (ended) {
      break;
    }
  }
}

}  // namespace

void AddAnalysisCommand(CLI::App& app) {
  auto options = std::make_shared<AnalysisOptions>();
  CLI::App* command = app.add_subcommand(
      "analysis",
      "JSON-lines analysis engine: queries on stdin, one result per analysed turn on stdout "
      "(docs/analysis.md)");
  command->add_option("--net", options->nets,
                      "Net file; repeat for several variants (each file serves the game it names; "
                      "the others use their shipped net, models/, or random rollouts); none: "
                      "random rollouts for every game");
  command->add_option("--device", options->device, "cpu, cuda or cuda:N (the nets)");
  command->add_option("--variant", options->variant,
                      "Variant of queries that name none (default: queries must name one)");
  command
      ->add_option("--simulations", options->simulations,
                   "Simulations of a query without maxVisits (default 200)")
      ->check(CLI::Range(int64_t{1}, kMaxSimulations));
  command
      ->add_option("--batch", options->batch, "Positions per evaluator call at most (default 256)")
      ->check(CLI::Range(1, 1 << 20));
  command
      ->add_option("--max-queries", options->max_queries,
                   "Turn analyses searched at once; more wait their turn (default 64)")
      ->check(CLI::Range(1, 1 << 20));
  command
      ->add_option("--leaves", options->leaves,
                   "Leaves each search adds to a batch per round (default 0: 8 with a net, 1 "
                   "with rollouts)")
      ->check(CLI::Range(0, 256));
  command->add_option("--max-nodes", options->max_nodes, "Tree node cap per search (default 4M)")
      ->check(CLI::Range(int64_t{1}, int64_t{2147483647}));
  command->callback([options] { RunAnalysis(*options); });
}

}  // namespace vz::app
