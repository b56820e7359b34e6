// `vzero play`: a person plays the engine in the terminal (serve/play_session.h) over stdin and
// stdout.

#include <iostream>
#include <memory>

#include "app/commands.h"
#include "engine/search/search_params.h"
#include "serve/play_session.h"

namespace vz::app {

void AddPlayCommand(CLI::App& app) {
  auto options = std::make_shared<PlayOptions>();
  CLI::App* command = app.add_subcommand("play", "Play a game against the engine in the terminal");
  command->add_option("--variant", options->variant, "Game name (see `vzero version`)")->required();
  command->add_option("--net", options->net,
                      "Net file of the engine (default: the shipped net of the game, models/; "
                      "none: random rollouts, weak)");
  command->add_flag("!--no-leaf-quiescence", options->leaf_quiescence,
                    "Search the net without leaf quiescence (engine/search/quiescence_evaluator.h)");
  command->add_option("--device", options->device, "cpu, cuda or cuda:N (the net)");
  command
      ->add_option("--simulations", options->simulations,
                   "Engine simulations a move, also for hints (default 200)")
      ->check(CLI::Range(int64_t{1}, kMaxSimulations));
  command->add_option("--color", options->color, "Your colour: white (default) or black")
      ->check(CLI::IsMember({"white", "black"}));
  command->add_option("--save", options->save,
                      "Record file written at the end (default vzero-<variant>-<time>.pgn/.pdn)");
  command->add_option("--fen", options->fen, "Start position (default: the initial position)");
  command->add_option("--seed", options->seed, "Seed of the engine's search and rollouts");
  command->callback([options] { PlaySession(*options, std::cin, std::cout, std::cerr).Run(); });
}

}  // namespace vz::app
