#pragma once

// The plots of a training run (`vzero train` draws them at its end, `vzero report RUN_DIR` redraws
// them): read from the run's metrics.jsonl (selfplay/train_loop.h, selfplay/cluster.h; the reader,
// the summary and the strength-curve table are records/metrics_reader.h), drawn with gnuplot (an
// external, packaged tool: `gnuplot` must be on the PATH) as SVG files in RUN_DIR/plots:
//   losses.svg    total, policy and value loss against the training step
//   strength.svg  the Elo of the net self-play uses against each fixed opponent (the "strength"
//                 lines, selfplay/strength.h; 95% interval), against self-play positions and
//                 against wall-clock minutes since the run began, one line per opponent
//   gating.svg    gating Elo of each candidate against the best (with its 95% interval) and the
//                 cumulative Elo of the promoted nets, against the step
//   selfplay.svg  self-play positions per second (while self-play ran, and over the wall clock)
//                 and mean game length, against games played (the workers' "selfplay" lines;
//                 a cluster run's metrics.jsonl has the trainer's "ingest" lines instead)

#include <string>
#include <vector>

namespace vz {

// Writes the data files and the gnuplot script into RUN_DIR/plots and runs gnuplot on it. Returns
// the paths of the plots drawn (a plot with no data is skipped). Throws vz::Error naming the file
// when metrics.jsonl cannot be read, and naming gnuplot when it is missing or fails.
std::vector<std::string> DrawRunPlots(const std::string& run_dir);

}  // namespace vz
