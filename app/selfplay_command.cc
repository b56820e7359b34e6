// `vzero selfplay --run-dir D`: one self-play worker of a cluster run (selfplay/cluster.h): plays
// with the run's newest promoted net and writes its finished games as record chunks into D.

#include <fmt/core.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "selfplay/cluster.h"

namespace vz::app {
namespace {

struct SelfPlayOptions {
  SelfPlayWorkerRequest request;
  bool no_status = false;
};

void RunSelfPlayCommand(SelfPlayOptions& options) {
  options.request.live = !options.no_status && isatty(STDERR_FILENO);
  InstallRoleSignalHandlers();
  const SelfPlayWorkerOutcome outcome = RunSelfPlayWorker(options.request);
  const auto per = [](double count, double seconds) { return seconds > 0 ? count / seconds : 0.0; };
  fmt::print(
      "worker {}: {} games, {} positions in {} chunks ({:.2f} positions/s over {:.1f} s "
      "of self-play, {:.2f} over {:.1f} s of wall clock), last net {}\n",
      outcome.worker_id, outcome.games, outcome.positions, outcome.chunks,
      per(double(outcome.finished_positions), outcome.selfplay_seconds), outcome.selfplay_seconds,
      per(double(outcome.finished_positions), outcome.wall_seconds), outcome.wall_seconds,
      outcome.net_id.empty() ? "none" : outcome.net_id);
  if (outcome.interrupted) fmt::print("stopped by a signal\n");
}

}  // namespace

void AddSelfPlayCommand(CLI::App& app) {
  auto options = std::make_shared<SelfPlayOptions>();
  SelfPlayWorkerRequest& r = options->request;
  CLI::App* command = app.add_subcommand(
      "selfplay",
      "Self-play worker of a cluster run: plays with the run's newest net and writes record "
      "chunks into the run directory (docs/cluster.md)");
  command->add_option("--run-dir", r.run_dir, "Run directory shared with the trainer")->required();
  command->add_option("--worker-id", r.worker_id,
                      "Worker id in chunk names and records (default HOSTNAME-PID; give a "
                      "stable one, e.g. $SLURM_PROCID-based, so that a restart continues it)");
  command->add_option("--variant", r.config.variant, "Game name (a new run)");
  command->add_option("--preset", r.config.preset, "Compiled-in config preset (a new run)");
  command->add_option("--config", r.config.config_file, "Config file (a new run)");
  command->add_option("--set", r.config.overrides,
                      "Override a config key (repeatable; on an existing run only stop.*)");
  command->add_option("--games", r.games, "Stop after this many games (default: no limit)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--minutes", r.minutes, "Stop after this many minutes (default: no limit)")
      ->check(CLI::NonNegativeNumber);
  command
      ->add_option("--poll-seconds", r.poll_seconds,
                   "Seconds between looks for the config and the first net (default 1)")
      ->check(CLI::PositiveNumber);
  command->add_flag("--no-status", options->no_status,
                    "Plain log lines instead of a live status line on a terminal");
  command->callback([options] { RunSelfPlayCommand(*options); });
}

}  // namespace vz::app
