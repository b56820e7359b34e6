#include "selfplay/trainer_report.h"

#if VZ_HAVE_TORCH

#include <fmt/core.h>

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>
#include <utility>

#include "nets/net_file.h"

namespace vz {

TrainerReport::TrainerReport(std::string variant, MetricsFile& metrics, RunLog& log)
    : variant_(std::move(variant)), metrics_(metrics), log_(log) {}

void TrainerReport::Ingested(const TrainerProgress& progress, int64_t new_games) {
  const IngestCounts& read = progress.read;
  metrics_.Write(
      {{"type", "ingest"},
       {"time", nets::UtcNow()},
       {"step", progress.step},
       {"games", read.games},
       {"positions", read.positions},
       {"chunks", read.chunks},
       {"duplicates", read.duplicates},
       // This rank's window (a growing window widens with the positions).
       {"window_games", progress.window_games},
       {"window_positions", progress.window_positions},
       {"mean_plies", read.games > 0 ? double(read.plies) / double(read.games) : 0.0},
       // The rate at which the workers' positions arrive, since this trainer started.
       {"positions_per_second",
        progress.seconds > 1.0 ? double(read.positions - positions_at_start_) / progress.seconds
                               : 0.0}});
  if (read.games == new_games) positions_at_start_ = read.positions;  // the backlog of a restart
  log_.Info(
      fmt::format("read {} new games: {} games, {} positions in {} chunks{}", new_games, read.games,
                  read.positions, read.chunks,
                  read.duplicates > 0 ? fmt::format(", {} duplicates", read.duplicates) : ""));
}

void TrainerReport::Trained(const nets::TrainMetrics& metrics, const TrainerProgress& progress) {
  sums_[0] += metrics.loss;
  sums_[1] += metrics.policy_loss;
  sums_[2] += metrics.value_loss;
  sums_[3] += metrics.policy_accuracy;
  sums_[4] += metrics.value_accuracy;
  sums_[5] += metrics.learning_rate;
  sums_[6] += metrics.material_loss;
  sums_[7] += metrics.ownership_loss;
  ++summed_;
  if (summed_ >= 20) Flush(progress);
}

void TrainerReport::Flush(const TrainerProgress& progress) {
  if (summed_ == 0) return;
  const double n = double(summed_);
  last_loss_ = sums_[0] / n;
  last_policy_loss_ = sums_[1] / n;
  last_value_loss_ = sums_[2] / n;
  metrics_.Write(
      {{"type", "train"},
       {"time", nets::UtcNow()},
       {"step", progress.step},
       {"games", progress.games},
       {"positions", progress.positions},
       {"loss", last_loss_},
       {"policy_loss", last_policy_loss_},
       {"value_loss", last_value_loss_},
       {"material_loss", sums_[6] / n},
       {"ownership_loss", sums_[7] / n},
       {"policy_accuracy", sums_[3] / n},
       {"value_accuracy", sums_[4] / n},
       {"learning_rate", sums_[5] / n},
       {"world_size", progress.world_size},
       {"samples_per_second", progress.train_seconds > 0
                                  ? double(progress.samples_trained) / progress.train_seconds
                                  : 0.0},
       // Sampling not hidden behind the steps (this session's).
       {"sample_wait_seconds", progress.sample_wait_seconds}});
  std::fill(std::begin(sums_), std::end(sums_), 0.0);
  summed_ = 0;
}

std::string TrainerReport::StatusLine(const TrainerProgress& progress) const {
  return fmt::format("{} | games {} | positions {} | step {} | loss {:.3f} (p {:.3f} v {:.3f})",
                     variant_, progress.games, progress.positions, progress.step, last_loss_,
                     last_policy_loss_, last_value_loss_);
}

std::string TrainerReport::RatesLine(const TrainerProgress& progress) {
  return fmt::format(
      "this session: {} training samples in {:.1f} s of steps ({:.1f} samples/s, {} rank(s), "
      "{} per rank and step); {} games, {} positions read from {} chunks",
      progress.samples_trained, progress.train_seconds,
      progress.train_seconds > 0 ? double(progress.samples_trained) / progress.train_seconds : 0.0,
      progress.world_size, progress.local_batch, progress.read.games, progress.read.positions,
      progress.read.chunks);
}

}  // namespace vz

#endif  // VZ_HAVE_TORCH
