#pragma once

// The arguments of the tiny `vzero train` run of the CLI tests: Portuguese draughts, the demo
// preset (a tiny net), 4 simulations, small chunks and batches, checkpoints every 6 steps, 2-game
// threshold gating, no strength checks during the run (2-game matches against the fixed
// opponents when they are switched on); stops after `steps` training steps. `settings`
// ("section.field=value") are added (a later setting of a key wins).

#include <cstdint>
#include <string>
#include <vector>

namespace vz::testing {

inline std::vector<std::string> TinyTrainRun(const std::string& run_dir, int64_t steps,
                                             const std::vector<std::string>& settings) {
  // clang-format off
  std::vector<std::string> arguments = {
      "train",
      "--variant", "portuguese-draughts",
      "--preset", "demo",
      "--run-dir", run_dir,
      "--no-status",
      "--set", "selfplay.concurrent_games=8",
      "--set", "selfplay.simulations=4",
      "--set", "selfplay.gumbel_max_considered=4",
      "--set", "selfplay.max_plies=60",
      "--set", "selfplay.games_per_chunk=4",
      "--set", "replay.window_growth=fixed",
      "--set", "replay.window_games=40",
      "--set", "replay.min_positions=64",
      "--set", "optimizer.batch_size=16",
      "--set", "optimizer.checkpoint_every_steps=6",
      "--set", "gating.mode=threshold",
      "--set", "gating.games=2",
      "--set", "gating.simulations=4",
      "--set", "strength.every_checkpoints=0",
      "--set", "strength.games=2",
      "--set", "strength.simulations=4",
      "--set", "stop.minutes=0",
      "--set", "stop.train_steps=" + std::to_string(steps)};
  // clang-format on
  for (const std::string& setting : settings) {
    arguments.push_back("--set");
    arguments.push_back(setting);
  }
  return arguments;
}

}  // namespace vz::testing
