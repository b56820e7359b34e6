#pragma once

// Plots, a summary and the strength-curve table of a training run (`vzero train` draws the plots
// at its end, `vzero report RUN_DIR` redraws them, `vzero report --table RUN_DIR` prints the
// table): read from the run's metrics.jsonl (selfplay/train_loop.h,
// selfplay/cluster.h), drawn with gnuplot (an external, packaged tool: `gnuplot` must be on the
// PATH) as SVG files in RUN_DIR/plots:
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

// Counts and last values read from RUN_DIR/metrics.jsonl.
struct RunMetricsSummary {
  int lines = 0;      // JSON objects read
  int bad_lines = 0;  // lines that are not JSON objects (e.g. cut by a kill), skipped
  int train_points = 0, selfplay_points = 0, gating_points = 0, evaluation_points = 0;
  int strength_points = 0;  // "strength" lines (one per opponent and check)
  std::string text;  // a few lines for people: last losses, gating, strength checks, evaluation
};

// Reads RUN_DIR/metrics.jsonl. Throws vz::Error naming the file if it cannot be read.
RunMetricsSummary SummarizeRunMetrics(const std::string& run_dir);

// Writes the data files and the gnuplot script into RUN_DIR/plots and runs gnuplot on it. Returns
// the paths of the plots drawn (a plot with no data is skipped). Throws vz::Error naming the file
// when metrics.jsonl cannot be read, and naming gnuplot when it is missing or fails.
std::vector<std::string> DrawRunPlots(const std::string& run_dir);

// The strength curve of RUN_DIR/metrics.jsonl as a Markdown table (`vzero report --table`, the
// tables of docs/strength.md): rows in the order of metrics.jsonl, one per strength check of the
// net self-play uses (its net id, training step, self-play positions and minutes since the run
// began) and one per end-of-run evaluation ("evaluation", its step), with a column per fixed
// opponent (of the checks or of the evaluation's `fixed_opponent` lines) holding "score (W-D-L)"
// of the net against it, "" where a row has no match against that opponent; a '|' of a name is
// escaped. "" when the run has no such lines. Lines that are not JSON objects are skipped and
// counted in `*bad_lines` when it is given. Throws vz::Error naming the file if metrics.jsonl
// cannot be read or holds a field of the wrong type.
std::string StrengthCurveTable(const std::string& run_dir, int* bad_lines = nullptr);

}  // namespace vz
