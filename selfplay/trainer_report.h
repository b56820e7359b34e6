#pragma once

// What rank 0 of a trainer (selfplay/cluster.h, `vzero trainer`) reports of its progress: the
// "ingest" and "train" lines of RUN/metrics.jsonl (docs/training.md has their fields), its log
// lines, the live status line and the session's rates line. Not thread-safe.

#include <cstdint>
#include <string>

#include "nets/trainer.h"
#include "selfplay/run_dir.h"
#include "selfplay/trainer_ingest.h"

namespace vz {

// The trainer's figures at one moment, as its parts hold them.
struct TrainerProgress {
  int64_t step = 0;              // optimizer steps taken (the checkpoint's)
  int64_t games = 0;             // the run's games, agreed over the ranks (the largest count)
  int64_t positions = 0;         // ... and their positions with a training target
  IngestCounts read;             // what this rank read
  int64_t window_games = 0;      // this rank's replay window
  int64_t window_positions = 0;  // ...
  int world_size = 1;
  int local_batch = 0;             // samples per rank and step
  int64_t samples_trained = 0;     // this session's (global batches)
  double train_seconds = 0;        // this session's, in steps
  double sample_wait_seconds = 0;  // the sampling the steps did not hide (BatchPrefetcher)
  double seconds = 0;              // since the trainer started (after its setup)
};

class TrainerReport {
 public:
  // For the run of game `variant`, writing to `metrics` and `log` (neither owned).
  TrainerReport(std::string variant, MetricsFile& metrics, RunLog& log);

  // After reading `new_games` (> 0) new games: the "ingest" line and a log line. The positions
  // per second are those that arrived after the first read (a restart's backlog) per second.
  void Ingested(const TrainerProgress& progress, int64_t new_games);

  // Adds one step's metrics to the mean of the next "train" line; every 20 steps writes it
  // (Flush). `progress` is that after the step.
  void Trained(const nets::TrainMetrics& metrics, const TrainerProgress& progress);
  // Writes the "train" line of the steps added since the last one (none: nothing).
  void Flush(const TrainerProgress& progress);

  // "chaco-rex | games G | positions P | step S | loss L (p Lp v Lv)": the last "train" line's
  // mean losses.
  std::string StatusLine(const TrainerProgress& progress) const;
  // The session's line of rates: samples per second in steps, games and positions read.
  static std::string RatesLine(const TrainerProgress& progress);

 private:
  std::string variant_;
  MetricsFile& metrics_;
  RunLog& log_;
  int64_t positions_at_start_ = 0;  // the backlog of a restart
  double sums_[8] = {};  // loss, policy, value, accuracies, learning rate, material, ownership
  int summed_ = 0;
  double last_loss_ = 0, last_policy_loss_ = 0, last_value_loss_ = 0;
};

}  // namespace vz
