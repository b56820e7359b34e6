#include <fmt/core.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.h"
#include "engine/registry.h"
#include "engine/search/search_params.h"
#include "engine/search/search_report.h"

namespace vz::app {
namespace {

struct BenchOptions {
  std::optional<std::string> variant;  // absent: every game
  int64_t simulations = 20000;
};

void RunBench(const BenchOptions& options) {
  std::vector<const Variant*> variants;
  if (!options.variant) {
    variants = AllVariants();
  } else {
    variants.push_back(&FindVariant(*options.variant));
  }
  int64_t total = 0;
  uint64_t signature = kSignatureBasis;
  for (const Variant* variant : variants) {
    const BenchReport report = variant->Bench(options.simulations);
    // Rate per CPU second of the searching thread: one core's throughput even on a busy machine.
    const double rate =
        report.cpu_seconds > 0 ? double(report.simulations) / report.cpu_seconds : 0.0;
    fmt::print(
        "{:<20} positions {} simulations {} signature {:016x} nodes {} time_ms {} cpu_ms {} "
        "sims/s {}\n",
        variant->name(), report.positions, report.simulations, report.signature, report.nodes,
        int64_t(report.seconds * 1000.0), int64_t(report.cpu_seconds * 1000.0), int64_t(rate));
    total += report.simulations;
    signature = MixSignature(signature, report.signature);
  }
  fmt::print("bench simulations {} signature {:016x}\n", total, signature);
}

}  // namespace

void AddBenchCommand(CLI::App& app) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* command =
      app.add_subcommand("bench",
                         "Search fixed positions of every game (uniform evaluator, fixed seed): a "
                         "deterministic signature and simulations per second");
  command->add_option("--variant", options->variant, "Only this game (default: every game)");
  command
      ->add_option("--simulations", options->simulations,
                   "Simulations per position (default 20000)")
      ->check(CLI::Range(int64_t{1}, kMaxSimulations));
  command->callback([options] { RunBench(*options); });
}

}  // namespace vz::app
