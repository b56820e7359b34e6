// `vzero research`: a report on the game itself from a trained net (research/research.h).

#include <fmt/core.h>

#include <memory>
#include <string>

#include "app/commands.h"
#include "research/research.h"

namespace vz::app {

void AddResearchCommand(CLI::App& app) {
  auto config = std::make_shared<research::ResearchConfig>();
  CLI::App* command = app.add_subcommand(
      "research",
      "Study a game with a trained net and an independent player: balance, the field's game "
      "metrics, piece values by regression and imbalance matches, openings, game shape, example "
      "games (HTML report with plots, CSV, JSON, PGN/PDN)");
  command->add_option("--variant", config->variant, "Game name (default: the net's game)");
  command->add_option("--net", config->net_file,
                      "Net file (default: with --run, RUN/nets/best.vznet; else the shipped net of "
                      "--variant, models/)");
  command->add_option("--run", config->run_dir,
                      "Run directory: its best net, config and self-play records");
  command->add_option("--games", config->games, "Fresh self-play games per search budget")
      ->check(CLI::Range(1, 10000000));
  command
      ->add_option("--simulations", config->simulations,
                   "Search budgets, simulations a move (several values)")
      ->expected(1, 32);
  command->add_flag("--leaf-quiescence", config->leaf_quiescence,
                    "The net searches with leaf quiescence, as the shipped nets play (not "
                    "zero-knowledge)");
  command->add_option("--out", config->out_dir, "Report directory (default research-VARIANT)");
  command->add_option("--seed", config->seed, "Seed of every game and search");
  command
      ->add_option("--concurrency", config->concurrency,
                   "Games in flight (their leaves share one net call per round)")
      ->check(CLI::Range(1, 100000));
  command
      ->add_option("--max-plies", config->max_plies,
                   "Adjudicate games still running after this many plies (default: the "
                   "run's, else 300)")
      ->check(CLI::Range(1, 100000));
  command->add_option("--adjudication", config->adjudication,
                      "draw | material (default: the run's, else material)");
  command
      ->add_option("--material-margin", config->material_margin,
                   "Centipawns that win a material adjudication (default: the run's, else 200)")
      ->check(CLI::Range(1, 100000));
  command
      ->add_option("--sample-plies", config->sample_plies,
                   "First plies of each game sampled from the visit counts")
      ->check(CLI::Range(0, 1000));
  command->add_option("--temperature", config->temperature, "Temperature of those samples")
      ->check(CLI::Range(0.0, 100.0));
  command
      ->add_option("--opening-plies", config->opening_depth,
                   "Depth of the opening tree, lines and entropy")
      ->check(CLI::Range(1, 40));
  command
      ->add_option("--root-simulations", config->root_simulations,
                   "Simulations of the dedicated search of the start position")
      ->check(CLI::Range(1, 100000000));
  command
      ->add_option("--first-moves", config->first_moves,
                   "Preferred first moves followed by games of their own")
      ->check(CLI::Range(0, 1000));
  command
      ->add_option("--first-move-games", config->first_move_games,
                   "Games after each of those first moves")
      ->check(CLI::Range(0, 1000000));
  command
      ->add_option("--records", config->record_games,
                   "Newest games of the run's records to include")
      ->check(CLI::Range(0, 100000000));
  command->add_option("--examples", config->examples, "Example games shown")
      ->check(CLI::Range(0, 100));
  command
      ->add_option("--players", config->players,
                   "Independent players studied beside the net, player specs (default "
                   "alphabeta:2; 'none' for no other player)")
      ->expected(1, 8);
  command
      ->add_option("--player-opening-plies", config->player_opening_plies,
                   "Random plies opening each game of the independent players")
      ->check(CLI::Range(0, 200));
  command
      ->add_option("--imbalance-games", config->imbalance_games,
                   "Imbalance-match games per imbalance and player (0: none)")
      ->check(CLI::Range(0, 1000000));
  command
      ->add_option("--imbalance-plies", config->imbalance_plies,
                   "Random plies without a capture after the pieces are taken off")
      ->check(CLI::Range(0, 200));
  command
      ->add_option("--strength-games", config->strength_games,
                   "Games of the net against alphabeta:1 and against alphabeta:2 (0: none)")
      ->check(CLI::Range(0, 1000000));
  command
      ->add_option("--decision-every", config->decision_every,
                   "Judge a position every this many plies for the decision-moves metric (0: "
                   "not measured)")
      ->check(CLI::Range(0, 100000));
  command->callback([config, command] {
    if (config->players.size() == 1 && config->players[0] == "none") config->players.clear();
    config->command = "vzero research";
    for (const CLI::Option* option : command->get_options()) {
      if (option->count() == 0 || option->get_name() == "--help") continue;
      config->command += " " + option->get_name();
      for (const std::string& value : option->results()) config->command += " " + value;
    }
    const research::ResearchSummary summary = research::RunResearch(*config);
    fmt::print("research {}: {} study games, {} run-record games -> {}\n", summary.variant,
               summary.games_played, summary.record_games, summary.html);
    fmt::print("matches: {} games played now, {} read back from the parts of an earlier run\n",
               summary.games_searched, summary.games_resumed);
  });
}

}  // namespace vz::app
