#pragma once

// Random playouts as a value estimate (classic Monte Carlo tree search): from each position play
// uniformly random legal moves to the end of the game or to `max_plies`, which counts as a draw.
// Priors are uniform. Playouts see only the position itself (its counters included) and not the
// game history, so threefold repetition is not applied inside a playout; a playout that cycles
// ends at the ply cap as a draw anyway.
//
// The generator of each playout is seeded from (seed, position hash, playout index), so the value
// of a position does not depend on which other positions share its batch: the search driver and a
// lone search agree, and results are cacheable. This is also what lets the one evaluator split a
// batch freely:
// - across threads (set_threads): contiguous slices of the batch are played out on their own
//   threads, each writing its own entries in place; the results equal a one-thread evaluation;
// - across games (SeedEntries): entries gathered by different games of a match carry each game's
//   seed, so a game keeps its own playouts whichever games share its batch.

#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

#include "engine/core/zobrist.h"
#include "engine/search/evaluator.h"

namespace vz {

template <Game G>
class RolloutEvaluator final : public Evaluator<G> {
 public:
  // `seed`: the playouts' seed for untagged entries. num_playouts >= 1 per position (smaller is
  // raised to 1); max_plies >= 0 per playout; threads >= 1 playout threads per batch.
  explicit RolloutEvaluator(uint64_t seed, int num_playouts = 1, int max_plies = 400,
                            int threads = 1)
      : seed_(seed),
        num_playouts_(std::max(1, num_playouts)),
        max_plies_(std::max(0, max_plies)),
        threads_(std::max(1, threads)) {}

  // Threads that share the playouts of one batch (>= 1; smaller is raised to 1).
  void set_threads(int threads) { threads_ = std::max(1, threads); }

  // Entries [begin, end) of the next batch are played out with `seed` instead of the evaluator's
  // own (the seed of the game that gathered them). Tags are dropped after each Evaluate.
  void SeedEntries(int begin, int end, uint64_t seed) {
    if (int(seeds_.size()) < end) seeds_.resize(size_t(end), seed_);
    std::fill(seeds_.begin() + begin, seeds_.begin() + end, seed);
  }

  // Fills uniform priors and the playouts' WDL for every entry, on up to set_threads threads.
  // Rethrows (after joining every thread) the first failure of a thread.
  void Evaluate(EvalBatch<G>& batch) override {
    const int n = batch.size();
    seeds_.resize(size_t(n), seed_);
    const int workers = std::min(threads_, n);
    const int parts = std::max(1, workers);
    std::vector<std::exception_ptr> failures(static_cast<size_t>(parts));
    auto slice = [&](int w) {
      try {
        EvaluateEntries(batch, int(int64_t(n) * w / parts), int(int64_t(n) * (w + 1) / parts));
      } catch (...) {
        failures[size_t(w)] = std::current_exception();
      }
    };
    {
      // jthreads: a failed thread start (std::system_error) still joins the ones started.
      std::vector<std::jthread> pool;
      for (int w = 1; w < parts; ++w) pool.emplace_back(slice, w);
      slice(0);
    }
    seeds_.clear();
    for (const std::exception_ptr& failure : failures) {
      if (failure) std::rethrow_exception(failure);
    }
  }

  // The result of one random playout from `position` with generator state `state`; kDraw when
  // the ply cap is reached.
  Status Playout(typename G::Position position, uint64_t& state) const {
    typename G::MoveList moves;
    for (int ply = 0;; ++ply) {
      moves.Clear();
      G::GenerateMoves(position, moves);
      const Outcome outcome = G::LocalOutcome(position, moves.size);
      if (outcome.IsTerminal()) return outcome.status;
      if (ply >= max_plies_ || moves.size == 0) return Status::kDraw;
      state = SplitMix64(state);
      const int pick = int((state >> 32) * uint64_t(moves.size) >> 32);
      G::ApplyMove(position, moves[pick]);
    }
  }

 private:
  // Entries [begin, end) of `batch`, each with its seed; writes only those entries' outputs.
  void EvaluateEntries(EvalBatch<G>& batch, int begin, int end) const {
    for (int i = begin; i < end; ++i) {
      const float prior = 1.0f / float(batch.num_moves(i));
      for (float& p : batch.priors(i)) p = prior;
      const typename G::Position& position = batch.position(i);
      const Color side = G::SideToMove(position);
      const uint64_t seed = seeds_[size_t(i)];
      int wins = 0, draws = 0, losses = 0;
      for (int k = 0; k < num_playouts_; ++k) {
        uint64_t state = SplitMix64(seed ^ SplitMix64(G::Hash(position) + uint64_t(k)));
        const Status status = Playout(position, state);
        if (status == WinFor(side)) {
          ++wins;
        } else if (status == WinFor(Opponent(side))) {
          ++losses;
        } else {
          ++draws;
        }
      }
      const float scale = 1.0f / float(num_playouts_);
      batch.value(i) = Wdl{float(wins) * scale, float(draws) * scale, float(losses) * scale};
    }
  }

  uint64_t seed_;
  int num_playouts_;
  int max_plies_;
  int threads_;
  std::vector<uint64_t> seeds_;  // [batch] playout seed of each entry (SeedEntries, else seed_)
};

}  // namespace vz
