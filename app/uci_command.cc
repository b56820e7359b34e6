// `vzero uci`: the UCI engine of serve/uci_engine.h over stdin and stdout (docs/uci.md).

#include <iostream>
#include <memory>

#include "app/commands.h"
#include "serve/uci_engine.h"

namespace vz::app {

void AddUciCommand(CLI::App& app) {
  auto options = std::make_shared<UciOptions>();
  CLI::App* command = app.add_subcommand(
      "uci", "Speak UCI on stdin/stdout (variant chosen by UCI_Variant, as Fairy-Stockfish does)");
  command->add_option("--variant", options->variant, "Game at start (default chaco-rex)");
  command->add_option("--net", options->net_file,
                      "Net file (default: the shipped net of the game, models/; none: the "
                      "rollout evaluator)");
  command->add_option("--device", options->device, "Device of the net: cpu, cuda, cuda:N");
  CLI::Option* threads =
      command->add_option("--threads", options->threads, "Threads option at start")
          ->check(CLI::Range(1, kUciMaxThreads));
  command->add_option("--nodes", options->nodes, "Nodes option: simulations per move (default 800)")
      ->check(CLI::Range(int64_t{1}, kUciMaxNodes));
  command->add_option("--hash", options->hash_mib, "Hash option: tree memory in MiB (default 256)")
      ->check(CLI::Range(1, kUciMaxHashMib));
  command->add_flag("--gumbel", options->gumbel, "Gumbel option at start");
  command
      ->add_option("--move-overhead", options->move_overhead_ms,
                   "Move Overhead option in ms (default 50)")
      ->check(CLI::Range(int64_t{0}, kUciMaxMoveOverheadMs));
  command->callback([options, threads] {
    UciEngine engine(*options, std::cout, threads->count() > 0);
    engine.Run(std::cin);
  });
}

}  // namespace vz::app
