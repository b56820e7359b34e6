// `vzero train`: the self-play training loop (selfplay/train_loop.h) with its config resolved from
// a compiled-in preset or a file, `--set` overrides, and the run directory's saved config.

#include <fmt/core.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "engine/core/error.h"
#include "selfplay/train_config.h"
#include "selfplay/train_loop.h"

namespace vz::app {
namespace {

struct TrainOptions {
  std::string variant;
  std::string preset;
  std::string config_file;
  std::vector<std::string> overrides;
  std::string run_dir;
  std::string init_net;
  bool no_status = false;
};

void RunTrainCommand(const TrainOptions& options) {
  namespace fs = std::filesystem;
  if (!options.config_file.empty() && !options.preset.empty()) {
    throw Error("train: give --preset or --config, not both");
  }
  const bool chosen = !options.variant.empty() || !options.preset.empty() ||
                      !options.config_file.empty();
  proto::TrainConfig config;
  if (!chosen && !options.run_dir.empty() &&
      fs::exists(fs::path(options.run_dir) / "config.txtpb")) {
    // `vzero train --run-dir D` resumes D with its own config.
    config = ReadTrainConfigFile((fs::path(options.run_dir) / "config.txtpb").string());
  } else if (!options.config_file.empty()) {
    config = ReadTrainConfigFile(options.config_file);
    if (!options.variant.empty() && config.variant() != options.variant) {
      throw Error(fmt::format("train: --variant {} but {} is for {}", options.variant,
                              options.config_file, config.variant()));
    }
  } else {
    config = PresetTrainConfig(options.variant.empty() ? "chaco-rex" : options.variant,
                               options.preset.empty() ? "demo" : options.preset);
  }
  for (const std::string& assignment : options.overrides) ApplyConfigOverride(config, assignment);
  ValidateTrainConfig(config);

  TrainRequest request;
  request.config = config;
  request.run_dir = options.run_dir.empty()
                        ? fmt::format("runs/{}-{}", config.variant(),
                                      config.preset().empty() ? "custom" : config.preset())
                        : options.run_dir;
  request.init_net = options.init_net;
  request.live = !options.no_status && isatty(STDERR_FILENO);
  InstallTrainingSignalHandlers();
  const TrainOutcome outcome = RunTraining(request);
  fmt::print("run directory: {}\n", outcome.run_dir);
  fmt::print("exported net: {} (generation {}, step {}, {} games, {} positions)\n",
             outcome.best_net, outcome.generation, outcome.steps, outcome.games,
             outcome.positions);
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
      "Self-play training loop: actors, replay window, trainer, gating, export (no arguments: "
      "the Chaco Rex demo preset)");
  command->add_option("--variant", options->variant,
                      "Game name (default chaco-rex; see `vzero version`)");
  command->add_option("--preset", options->preset,
                      "Compiled-in config preset: demo (CPU, about 15 minutes) or gpu");
  command->add_option("--config", options->config_file, "Config file in protobuf text format");
  command->add_option("--set", options->overrides,
                      "Override a config key, e.g. --set selfplay.simulations=64 (repeatable)");
  command->add_option("--run-dir", options->run_dir,
                      "Run directory (default runs/VARIANT-PRESET); an existing run resumes");
  command->add_option("--init-net", options->init_net,
                      "Start a new run from this net file instead of random weights");
  command->add_flag("--no-status", options->no_status,
                    "Plain log lines instead of a live status line on a terminal");
  command->callback([options] { RunTrainCommand(*options); });
}

}  // namespace vz::app
