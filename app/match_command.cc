#include <fmt/core.h>

#include <memory>
#include <string>

#include "app/commands.h"
#include "arena/match.h"

namespace vz::app {
namespace {

struct MatchOptions {
  std::string variant;
  MatchConfig config;
  std::string sprt;
  std::string adjudication = "material";
};

void RunMatchCommand(MatchOptions& options) {
  if (!options.sprt.empty()) options.config.sprt = SprtParams::Parse(options.sprt);
  options.config.adjudication = ParseAdjudication(options.adjudication);
  options.config.live = true;
  const MatchSummary summary = RunMatch(options.variant, options.config);
  fmt::print("{}", summary.Report(options.config));
}

}  // namespace

void AddMatchCommand(CLI::App& app) {
  auto options = std::make_shared<MatchOptions>();
  CLI::App* command = app.add_subcommand(
      "match", "Play a paired match between two players; W/D/L, Elo with 95% interval, SPRT");
  command->add_option("--variant", options->variant, "Game name (see `vzero version`)")->required();
  command
      ->add_option("--player1", options->config.player1,
                   "random | rollout:SIMS[:qs] | alphabeta:DEPTH | net:FILE:SIMS[:qs][:fp32|:bf16]")
      ->required();
  command->add_option("--player2", options->config.player2, "Same forms as --player1")->required();
  command->add_option("--games", options->config.games, "Games (rounded up to whole pairs)")
      ->required()
      ->check(CLI::Range(1, 1000000));
  command->add_option("--openings", options->config.openings,
                      "FILE (one position string per line) or random:PLIES");
  command->add_option("--sprt", options->sprt, "elo0,elo1,alpha,beta: stop at an SPRT bound");
  command
      ->add_option("--concurrency", options->config.concurrency,
                   "Games in flight (MCTS players: one evaluator batch per player per round)")
      ->check(CLI::Range(1, 256));
  command->add_option("--out", options->config.out_dir,
                      "Directory for games.pgn / games.pdn and games.csv");
  command
      ->add_option("--max-plies", options->config.max_plies,
                   "Adjudicate a game still running after this many plies")
      ->check(CLI::Range(1, 100000));
  command->add_option("--adjudication", options->adjudication, "draw | material");
  command
      ->add_option("--material-margin", options->config.material_margin,
                   "Centipawns of material that win a material adjudication (1 to 100000)")
      ->check(CLI::Range(1, 100000));
  command->add_option("--seed", options->config.seed, "Seed of openings and players");
  command->callback([options] { RunMatchCommand(*options); });
}

}  // namespace vz::app
