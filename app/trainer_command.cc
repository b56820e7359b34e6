// `vzero trainer --run-dir D`: the trainer of a cluster run (selfplay/cluster.h), one process or
// one rank of a data-parallel group set up from torchrun, Slurm or Open MPI variables
// (nets/distributed.h).

#include <fmt/core.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "selfplay/cluster.h"

namespace vz::app {
namespace {

struct TrainerCommandOptions {
  TrainerRoleRequest request;
  bool no_status = false;
};

void RunTrainerCommand(TrainerCommandOptions& options) {
  options.request.live = !options.no_status && isatty(STDERR_FILENO);
  InstallRoleSignalHandlers();
  const TrainerRoleOutcome outcome = RunTrainerRole(options.request);
  if (outcome.rank != 0) return;  // rank 0 speaks for the group
  fmt::print(
      "trainer: step {}, {} games and {} positions read from {} chunks ({} duplicates), "
      "generation {}; {} training samples in {:.1f} s ({:.1f} samples/s, {} rank(s), "
      "backend {})\n",
      outcome.steps, outcome.games, outcome.positions, outcome.chunks, outcome.duplicates,
      outcome.generation, outcome.samples_trained, outcome.train_seconds,
      outcome.train_seconds > 0 ? double(outcome.samples_trained) / outcome.train_seconds : 0.0,
      outcome.world_size, outcome.backend);
  if (outcome.interrupted) fmt::print("stopped by a signal; run the same command to resume\n");
}

}  // namespace

void AddTrainerCommand(CLI::App& app) {
  auto options = std::make_shared<TrainerCommandOptions>();
  TrainerRoleRequest& r = options->request;
  CLI::App* command = app.add_subcommand(
      "trainer",
      "Trainer of a cluster run: reads the workers' record chunks, trains (data-parallel under "
      "torchrun, srun or mpirun), checkpoints and exports nets (docs/cluster.md)");
  command->add_option("--run-dir", r.run_dir, "Run directory shared with the workers")->required();
  command->add_option("--variant", r.config.variant, "Game name (a new run)");
  command->add_option("--preset", r.config.preset, "Compiled-in config preset (a new run)");
  command->add_option("--config", r.config.config_file, "Config file (a new run)");
  command->add_option("--set", r.config.overrides,
                      "Override a config key (repeatable; on an existing run only stop.*)");
  command->add_option("--init-net", r.init_net,
                      "Start a new run from this net file instead of random weights");
  command
      ->add_option("--poll-seconds", r.poll_seconds,
                   "Seconds between looks for new chunks while the sample cap holds "
                   "training (default 1)")
      ->check(CLI::PositiveNumber);
  command->add_flag("--no-status", options->no_status,
                    "Plain log lines instead of a live status line on a terminal");
  command->callback([options] { RunTrainerCommand(*options); });
}

}  // namespace vz::app
