// `vzero gate --run-dir D`: the optional gate of a cluster run (selfplay/cluster.h): plays the
// trainer's newest candidate against the best net and promotes it by gating.mode, and runs the
// strength checks against the fixed opponents.

#include <fmt/core.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "selfplay/cluster.h"

namespace vz::app {
namespace {

struct GateCommandOptions {
  GateRoleRequest request;
  bool no_status = false;
};

void RunGateCommand(GateCommandOptions& options) {
  options.request.live = !options.no_status && isatty(STDERR_FILENO);
  InstallRoleSignalHandlers();
  const GateRoleOutcome outcome = RunGateRole(options.request);
  fmt::print(
      "gate: {} candidates played, {} promoted, {} strength checks; best net generation {}\n",
      outcome.gated, outcome.promoted, outcome.strength_checks, outcome.generation);
  if (outcome.interrupted) fmt::print("stopped by a signal\n");
}

}  // namespace

void AddGateCommand(CLI::App& app) {
  auto options = std::make_shared<GateCommandOptions>();
  GateRoleRequest& r = options->request;
  CLI::App* command = app.add_subcommand(
      "gate",
      "Gate of a cluster run: plays the trainer's newest candidate against the best net and "
      "promotes it by gating.mode (a score threshold or an SPRT), and measures the net self-play "
      "uses against the fixed opponents of the strength section (docs/cluster.md)");
  command->add_option("--run-dir", r.run_dir, "Run directory shared with the trainer")->required();
  command->add_option("--variant", r.config.variant, "Game name (a new run)");
  command->add_option("--preset", r.config.preset, "Compiled-in config preset (a new run)");
  command->add_option("--config", r.config.config_file, "Config file (a new run)");
  command->add_option("--set", r.config.overrides,
                      "Override a config key (repeatable; on an existing run only stop.*)");
  command
      ->add_option("--poll-seconds", r.poll_seconds,
                   "Seconds between looks for new candidates (default 2)")
      ->check(CLI::PositiveNumber);
  command->add_flag("--once", r.once,
                    "Gate the waiting candidates and run a due strength check, then exit");
  command->add_flag("--no-status", options->no_status,
                    "Plain log lines instead of a live status line on a terminal");
  command->callback([options] { RunGateCommand(*options); });
}

}  // namespace vz::app
