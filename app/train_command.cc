// `vzero train`: the self-play training loop (selfplay/train_loop.h: the self-play, trainer and
// gate roles as threads of one process) with its config resolved from a compiled-in preset or a
// file, `--set` overrides, and the run directory's saved config; `--print-config` prints that
// config and runs nothing.

#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.h"
#include "engine/core/error.h"
#include "selfplay/cluster.h"
#include "selfplay/run_dir.h"
#include "selfplay/train_config.h"
#include "selfplay/train_loop.h"

namespace vz::app {
namespace {

struct TrainOptions {
  RunConfigChoice config;  // --variant, --preset, --config, --set
  std::string run_dir;
  std::string init_net;
  bool no_status = false;
  bool print_config = false;
};

void RunTrainCommand(const TrainOptions& options) {
  // `vzero train --run-dir D` (nothing chosen) resumes D with its own config, as the roles do.
  const std::optional<proto::TrainConfig> saved = options.config.chosen() || options.run_dir.empty()
                                                      ? std::nullopt
                                                      : SavedConfig(options.run_dir);
  const proto::TrainConfig config =
      saved ? OverrideSavedConfig(*saved, options.config.overrides, options.run_dir)
            : ConfigFromChoice(options.config);
  const std::string run_dir =
      options.run_dir.empty() ? fmt::format("runs/{}-{}", config.variant(),
                                            config.preset().empty() ? "custom" : config.preset())
                              : options.run_dir;
  if (options.print_config) {  // what the run would refuse is refused; nothing created or locked
    CheckRunConfig(run_dir, config);
    fmt::print("{}", TrainConfigText(config));
    return;
  }

  TrainRequest request;
  request.config = config;
  request.run_dir = run_dir;
  request.init_net = options.init_net;
  request.live = !options.no_status && isatty(STDERR_FILENO);
  InstallRoleSignalHandlers();
  const TrainOutcome outcome = RunTraining(request);
  fmt::print("run directory: {}\n", outcome.run_dir);
  fmt::print("exported net: {} (generation {}, step {}, {} games, {} positions)\n",
             outcome.best_net, outcome.generation, outcome.steps, outcome.games, outcome.positions);
  if (!outcome.evaluation.empty()) {
    fmt::print("{}", outcome.evaluation);
    fmt::print("saved in {}/evaluation.txt\n", outcome.run_dir);
  }
  if (outcome.interrupted) {
    fmt::print("stopped by a signal; run the same command again to resume\n");
  }
}

}  // namespace

void AddTrainCommand(CLI::App& app) {
  auto options = std::make_shared<TrainOptions>();
  CLI::App* command = app.add_subcommand(
      "train",
      "Self-play training loop: the selfplay, trainer and gate roles as threads of one process "
      "(no arguments: the Chaco Rex demo preset)");
  command->add_option("--variant", options->config.variant,
                      "Game name (default chaco-rex; see `vzero version`)");
  command->add_option("--preset", options->config.preset,
                      "Compiled-in config preset: demo (CPU, about 15 minutes), long (CPU, about 2 "
                      "hours) or gpu");
  command->add_option("--config", options->config.config_file,
                      "Config file in protobuf text format");
  command->add_option("--set", options->config.overrides,
                      "Override a config key, e.g. --set selfplay.simulations=64 (repeatable)");
  command->add_option("--run-dir", options->run_dir,
                      "Run directory (default runs/VARIANT-PRESET); an existing run resumes");
  CLI::Option* init_net =
      command->add_option("--init-net", options->init_net,
                          "Start a new run from this net file instead of random weights");
  command->add_flag("--no-status", options->no_status,
                    "Plain log lines instead of a live status line on a terminal");
  command
      ->add_flag("--print-config", options->print_config,
                 "Print the config this command would run (the preset or file, or the --run-dir's "
                 "saved config, with the --set overrides), validated, in protobuf text format, "
                 "and exit; creates and locks nothing; a bad key or value, or another config than "
                 "the run directory's, is an error")
      ->excludes(init_net);
  command->callback([options] { RunTrainCommand(*options); });
}

}  // namespace vz::app
