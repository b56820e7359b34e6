#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "arena/ladder.h"

namespace vz::app {
namespace {

struct LadderOptions {
  std::string variant;
  LadderConfig config;
  std::string adjudication = "material";
};

void RunLadderCommand(LadderOptions& options) {
  options.config.match.adjudication = ParseAdjudication(options.adjudication);
  const LadderResult result =
      RunLadder(options.variant, options.config,
                [](const std::string& line) { fmt::print(stderr, "{}\n", line); });
  fmt::print("{}", result.Table());
  if (!options.config.csv_path.empty()) fmt::print("csv: {}\n", options.config.csv_path);
}

}  // namespace

void AddLadderCommand(CLI::App& app) {
  auto options = std::make_shared<LadderOptions>();
  CLI::App* command = app.add_subcommand(
      "ladder", "Round robin of several players; maximum-likelihood Elo anchored at random = 0");
  command->add_option("--variant", options->variant, "Game name (see `vzero version`)")->required();
  command
      ->add_option("--players", options->config.players,
                   "Player specs: random rollout:SIMS alphabeta:DEPTH ...")
      ->required()
      ->expected(2, 64);
  command->add_option("--games-per-pair", options->config.games_per_pair, "Games per pairing")
      ->required()
      ->check(CLI::Range(1, 100000));
  command->add_option("--openings", options->config.match.openings,
                      "FILE (one position string per line) or random:PLIES");
  command->add_option("--concurrency", options->config.match.concurrency, "Games played at once")
      ->check(CLI::Range(1, 256));
  command
      ->add_option("--max-plies", options->config.match.max_plies,
                   "Adjudicate a game still running after this many plies")
      ->check(CLI::Range(1, 100000));
  command->add_option("--adjudication", options->adjudication, "draw | material");
  command
      ->add_option("--material-margin", options->config.match.material_margin,
                   "Centipawns of material that win a material adjudication (1 to 100000)")
      ->check(CLI::Range(1, 100000));
  command->add_option("--csv", options->config.csv_path, "Write the ratings as CSV here");
  command->add_option("--out", options->config.match.out_dir,
                      "Directory for the records of every pairing");
  command->add_option("--seed", options->config.match.seed, "Seed of openings and players");
  command->callback([options] { RunLadderCommand(*options); });
}

}  // namespace vz::app
