#pragma once

// The trainer's optimizer steps (selfplay/cluster.h, `vzero trainer`): how many the run allows
// now (the positions in the windows, the sample cap, the step limit, the next checkpoint), and
// the loop that takes them, each batch sampled from the replay window beside the step before it
// (selfplay/batch_prefetch.h). One batch path on every device: the batches travel compact
// (positions and sparse targets) and the trainer expands them on its device with the game's
// sample codec (nets/sample_codec.h: the rule kernels on a GPU, their CPU twin on the CPU);
// docs/training.md has the measurement behind it. Not thread-safe.

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "engine/core/clock.h"
#include "engine/core/error.h"
#include "engine/core/game.h"
#include "engine/core/zobrist.h"
#include "nets/sample_codec.h"
#include "nets/trainer.h"
#include "proto/train.pb.h"
#include "selfplay/batch_prefetch.h"
#include "selfplay/replay_window.h"
#include "selfplay/run_dir.h"

namespace vz {

// Each rank's share of optimizer.batch_size among `world_size` ranks. Throws vz::Error naming the
// key when the batch is not a multiple of the ranks.
inline int LocalBatchSize(const proto::TrainConfig& config, int world_size) {
  const uint32_t batch = config.optimizer().batch_size();
  if (batch % uint32_t(world_size) != 0) {
    throw Error(
        fmt::format("config key optimizer.batch_size: {} is not a multiple of the {} "
                    "ranks (each rank trains on an equal share)",
                    batch, world_size));
  }
  return int(batch) / world_size;
}

// The most steps one call of TrainingSteps::Take is given: the trainer reads new chunks (and
// checks for a stop) at least this often.
inline constexpr int64_t kMaxStepsPerTake = 25;

template <Game G>
class TrainingSteps {
 public:
  using Clock = std::chrono::steady_clock;

  // Steps of `trainer` (not owned; its device decides the codec, set here) on batches of
  // `local_batch` samples of `window` (not owned; changed only between Take calls) for the rank
  // `rank` of the config's run. Throws vz::Error when the trainer refuses the codec.
  TrainingSteps(nets::Trainer& trainer, const std::string& device, const ReplayWindow<G>& window,
                const proto::TrainConfig& config, int rank, int local_batch)
      : trainer_(trainer),
        window_(window),
        config_(config),
        salt_(0x9E3779B97F4A7C15ull * uint64_t(rank + 1)),
        local_batch_(local_batch) {
    trainer_.set_sample_codec(nets::MakeTrainerSampleCodec<G>(device));
  }

  // The steps to take now, the same on every rank given the same figures (agreed over the ranks):
  // 0 until the windows hold replay.min_positions positions together (`window_positions`) and
  // none of them is empty (`smallest_window`); else what the sample cap leaves
  // (replay.max_samples_per_new_sample training samples per position the run has produced,
  // `produced`; 0 = no cap), at most kMaxStepsPerTake, never past stop.train_steps nor past the
  // next multiple of optimizer.checkpoint_every_steps.
  int64_t Allowed(int64_t window_positions, int64_t smallest_window, int64_t produced) const {
    const proto::ReplayConfig& replay = config_.replay();
    if (window_positions < int64_t(replay.min_positions()) || smallest_window == 0) return 0;
    const double batch = double(config_.optimizer().batch_size());
    int64_t steps = kMaxStepsPerTake;
    if (replay.max_samples_per_new_sample() > 0) {
      const double allowed_samples =
          double(replay.max_samples_per_new_sample()) * double(produced) -
          double(trainer_.step()) * batch;
      steps = allowed_samples >= batch ? int64_t(allowed_samples / batch) : 0;
    }
    const uint64_t max_steps = config_.stop().train_steps();
    if (max_steps > 0) steps = std::min(steps, int64_t(max_steps) - trainer_.step());
    const int64_t every = CheckpointEvery();
    steps = std::min(steps, every - trainer_.step() % every);
    return std::clamp<int64_t>(steps, 0, kMaxStepsPerTake);
  }

  // Takes `count` steps, calling `after_step` with each step's metrics (on the calling thread,
  // after the step). The prefetch draws from the trainer's generator one batch ahead, and a
  // checkpoint saves that generator: a prefetcher Run ends at every checkpoint step, so that a
  // resumed run draws the same batches (Allowed never passes one anyway). Throws what the
  // trainer's Step and the sampling throw (BatchPrefetcher::Run).
  void Take(int64_t count, const std::function<void(const nets::TrainMetrics&)>& after_step) {
    const int64_t every = CheckpointEvery();
    const bool augment = config_.optimizer().augment();
    const std::function<uint64_t()> random = [&] {
      return SplitMix64(trainer_.NextRandom() ^ salt_);
    };
    const BatchPrefetcher<nets::CompactBatch>::Fill fill = [&](std::span<const uint64_t> draws,
                                                               nets::CompactBatch& batch) {
      SampleTrainingBatch<G>(window_, local_batch_, augment, draws, batch);
    };
    const BatchPrefetcher<nets::CompactBatch>::Train train = [&](const nets::CompactBatch& batch) {
      const Clock::time_point start = Clock::now();
      const nets::TrainMetrics metrics = trainer_.Step(batch);
      train_seconds_ += SecondsSince(start);
      samples_trained_ += int64_t(config_.optimizer().batch_size());
      after_step(metrics);
    };
    while (count > 0) {
      const int64_t run = std::min(count, every - trainer_.step() % every);
      prefetcher_.Run(run, DrawsPerTrainingBatch<G>(local_batch_, augment), random, fill, train);
      count -= run;
    }
  }

  int local_batch() const { return local_batch_; }
  // This session's training samples (global batches) and seconds in steps.
  int64_t samples_trained() const { return samples_trained_; }
  double train_seconds() const { return train_seconds_; }
  // The sampling the steps did not hide (BatchPrefetcher::wait_seconds).
  double sample_wait_seconds() const { return prefetcher_.wait_seconds(); }

 private:
  int64_t CheckpointEvery() const { return int64_t(config_.optimizer().checkpoint_every_steps()); }

  nets::Trainer& trainer_;
  const ReplayWindow<G>& window_;
  const proto::TrainConfig& config_;
  uint64_t salt_;  // this rank's: the ranks draw different samples from the same generator
  int local_batch_;
  // Its thread samples the next batch during a step.
  BatchPrefetcher<nets::CompactBatch> prefetcher_;
  int64_t samples_trained_ = 0;
  double train_seconds_ = 0;
};

}  // namespace vz
