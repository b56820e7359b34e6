#pragma once

// Training batches made one step ahead of the trainer (double buffering): while the calling thread
// trains on batch k, a second thread samples batch k+1 from the replay window into the other of
// two buffers, so that the CPU work of a batch (input planes, dense policy targets, move
// generation for the legal masks, augmentation) hides behind the step instead of adding to it.
//
// The batches are those of the synchronous loop, bit for bit and in the same order:
//   for each step: ReplayWindow<G>::Sample(size, random, batch);
//                  nets::AugmentBatch<G>(batch, random) (when augmenting);  train(batch)
// The random numbers come from the caller's generator (the trainer's checkpointed one, so that a
// resumed run reproduces its batches), always on the calling thread and in that loop's order:
// batch k+1's draws are taken before train(batch k) runs, into a buffer the sampling thread reads.
// Torch-free.

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/core/clock.h"
#include "engine/core/error.h"
#include "engine/core/game.h"
#include "engine/core/macros.h"
#include "engine/core/task_team.h"
#include "nets/augment.h"
#include "nets/trainer.h"
#include "selfplay/replay_window.h"

namespace vz {

// The random draws of one batch of `size` samples: ReplayWindow<G>::Sample takes one per sample,
// nets::AugmentBatch<G> (when `augment`) nets::AugmentDraws<G>(size) more, after those.
template <Game G>
int64_t DrawsPerTrainingBatch(int size, bool augment) {
  return int64_t(size) + (augment ? nets::AugmentDraws<G>(size) : 0);
}

// Fills `batch` as ReplayWindow<G>::Sample(size, random, batch) and then, when `augment`,
// nets::AugmentBatch<G>(batch, random) would, with random() returning draws[0], draws[1], ... in
// turn; for a compact batch (nets::CompactBatch) as ReplayWindow<G>::SampleCompact and
// nets::AugmentCompact<G> would (the same draws, the same samples, the symmetries recorded for
// the trainer to apply on its device). `draws` must hold exactly DrawsPerTrainingBatch<G>(size,
// augment) values (a bug otherwise: VZ_CHECK). Throws what Sample throws (vz::Error for an empty
// window or size < 1). Reads `window` only: may run on another thread than the one that changes
// it, never at the same time.
template <Game G, class Batch>
void SampleTrainingBatch(const ReplayWindow<G>& window, int size, bool augment,
                         std::span<const uint64_t> draws, Batch& batch) {
  VZ_CHECK(int64_t(draws.size()) == DrawsPerTrainingBatch<G>(size, augment));
  size_t next = 0;
  const auto random = [&] {
    VZ_CHECK(next < draws.size());
    return draws[next++];
  };
  if constexpr (std::is_same_v<Batch, nets::CompactBatch>) {
    window.SampleCompact(size, random, batch);
    if (augment) nets::AugmentCompact<G>(batch, random);
  } else {
    window.Sample(size, random, batch);
    if (augment) nets::AugmentBatch<G>(batch, random);
  }
  VZ_CHECK(next == draws.size());
}

// Rethrows a sampling thread's exception: a vz::Error as it is, anything else as a vz::Error
// "sampling a training batch: WHAT".
[[noreturn]] void RethrowSamplingError(std::exception_ptr error);

// The double buffer and its sampling thread (a TaskTeam of two: the caller and one persistent
// thread, started by the constructor and joined by the destructor; none outlives the object), for
// dense batches (nets::TrainingBatch, sampled and encoded on the CPU) or compact ones
// (nets::CompactBatch, expanded by the trainer on its device). Not thread-safe: one Run at a
// time, always from the same thread.
template <class Batch>
class BatchPrefetcher {
 public:
  // Fills `batch` (a buffer of the prefetcher's, reused: its vectors keep their capacity) from
  // `draws` (draws_per_batch values). SampleTrainingBatch, bound to a window and a batch size.
  using Fill = std::function<void(std::span<const uint64_t> draws, Batch& batch)>;
  // Trains on one batch (read-only; valid during the call only).
  using Train = std::function<void(const Batch& batch)>;

  // Throws std::system_error when the sampling thread cannot start.
  BatchPrefetcher() = default;
  BatchPrefetcher(const BatchPrefetcher&) = delete;
  BatchPrefetcher& operator=(const BatchPrefetcher&) = delete;

  // Runs train() on `count` (>= 0) batches in order: batch k is fill(draws of batch k), where the
  // draws of batch k are the k-th run of `draws_per_batch` (>= 0) calls of random(). Batch 0 is
  // filled on the calling thread; batch k+1 on the sampling thread while train(batch k) runs on
  // the calling thread. random() and train() run on the calling thread only, random() for batch
  // k+1 before train(batch k): whatever train() saves of random's state (a checkpoint of the
  // trainer's generator) is that of the synchronous loop only at the last batch of a Run, so end
  // a Run where such a save happens. Whatever fill() reads must not change during the Run.
  // Errors: an exception of fill() or train() ends the Run once both threads have finished the
  // step in flight (no thread is left running; no later batch is trained). train()'s exception
  // is rethrown as it is, also when fill() threw in the same step; fill()'s as it is when it is a
  // vz::Error or came from batch 0 (the calling thread), else as a vz::Error "sampling a
  // training batch: WHAT". The prefetcher can Run again afterwards. Nothing interrupts a Run: a
  // stop request is the caller's to check between Runs.
  void Run(int64_t count, int64_t draws_per_batch, const std::function<uint64_t()>& random,
           const Fill& fill, const Train& train) {
    using Clock = std::chrono::steady_clock;
    VZ_CHECK(count >= 0 && draws_per_batch >= 0);
    if (count == 0) return;
    const auto draw = [&](std::vector<uint64_t>& draws) {
      draws.resize(size_t(draws_per_batch));
      for (uint64_t& value : draws) value = random();
    };
    const Clock::time_point first = Clock::now();
    draw(draws_[0]);
    fill(draws_[0], batches_[0]);
    wait_seconds_ += SecondsSince(first);
    for (int64_t k = 0; k < count; ++k) {
      const int current = int(k % 2), next = 1 - current;
      if (k + 1 == count) {
        train(batches_[current]);
        break;
      }
      draw(draws_[next]);
      // Each member catches its own exception: the team's Run then always returns after both
      // finished, and train()'s exception can take precedence over fill()'s.
      std::exception_ptr train_error, fill_error;
      Clock::time_point trained;
      team_.Run([&](int member) {
        if (member == 0) {
          try {
            train(batches_[current]);
          } catch (...) {
            train_error = std::current_exception();
          }
          trained = Clock::now();
        } else {
          try {
            fill(draws_[next], batches_[next]);
          } catch (...) {
            fill_error = std::current_exception();
          }
        }
      });
      wait_seconds_ += SecondsSince(trained);
      if (train_error) std::rethrow_exception(train_error);
      if (fill_error) RethrowSamplingError(fill_error);
    }
  }

  // Seconds the calling thread spent, over every Run, filling batch 0 and waiting for the
  // sampling thread after train() returned: the sampling not hidden behind the steps.
  double wait_seconds() const { return wait_seconds_; }

 private:
  TaskTeam team_{2};
  Batch batches_[2];                // [k % 2] batch k of a Run
  std::vector<uint64_t> draws_[2];  // [k % 2] the draws of batch k
  double wait_seconds_ = 0;
};

}  // namespace vz
