#include <fmt/core.h>

#include <chrono>
#include <memory>
#include <string>

#include "app/commands.h"
#include "engine/registry.h"

namespace vz::app {
namespace {

struct PerftOptions {
  std::string variant;
  std::string fen;
  int depth = 0;
  bool divide = false;
};

void RunPerft(const PerftOptions& options) {
  const Variant& variant = FindVariant(options.variant);
  const auto start = std::chrono::steady_clock::now();
  uint64_t nodes = 0;
  if (options.divide) {
    for (const auto& [move, count] : variant.PerftDivide(options.fen, options.depth)) {
      fmt::print("{} {}\n", move, count);
      nodes += count;
    }
  } else {
    nodes = variant.Perft(options.fen, options.depth);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto nps = seconds > 0 ? uint64_t(double(nodes) / seconds) : uint64_t(0);
  fmt::print("nodes {} time_ms {} nps {}\n", nodes, uint64_t(seconds * 1000.0), nps);
}

}  // namespace

void AddPerftCommand(CLI::App& app) {
  auto options = std::make_shared<PerftOptions>();
  CLI::App* command =
      app.add_subcommand("perft", "Count the legal move sequences of a given length (perft)");
  command->add_option("--variant", options->variant, "Game name (see `vzero version`)")->required();
  command->add_option("--fen", options->fen, "Position string (default: the start position)");
  command->add_option("--depth", options->depth, "Depth in plies")
      ->required()
      ->check(CLI::Range(0, 64));
  command->add_flag("--divide", options->divide, "One line per legal move: <move> <count>");
  command->callback([options] { RunPerft(*options); });
}

}  // namespace vz::app
