#pragma once

// Random playouts as a value estimate (classic Monte Carlo tree search): from each position play
// uniformly random legal moves to the end of the game or to `max_plies`, which counts as a draw.
// Priors are uniform. Playouts see only the position itself (its counters included) and not the
// game history, so threefold repetition is not applied inside a playout; a playout that cycles
// ends at the ply cap as a draw anyway.
//
// The generator of each playout is seeded from (seed, position hash, playout index), so the value
// of a position does not depend on which other positions share its batch: the lockstep runner and
// a lone search agree, and results are cacheable.

#include <cstdint>

#include "engine/core/zobrist.h"
#include "engine/search/evaluator.h"

namespace vz {

template <Game G>
class RolloutEvaluator final : public Evaluator<G> {
 public:
  // num_playouts >= 1 per position; max_plies >= 0 per playout.
  explicit RolloutEvaluator(uint64_t seed, int num_playouts = 1, int max_plies = 400)
      : seed_(seed),
        num_playouts_(num_playouts < 1 ? 1 : num_playouts),
        max_plies_(max_plies < 0 ? 0 : max_plies) {}

  void Evaluate(EvalBatch<G>& batch) override {
    for (int i = 0; i < batch.size(); ++i) {
      const float prior = 1.0f / float(batch.num_moves(i));
      for (float& p : batch.priors(i)) p = prior;
      const typename G::Position& position = batch.position(i);
      const Color side = G::SideToMove(position);
      int wins = 0, draws = 0, losses = 0;
      for (int k = 0; k < num_playouts_; ++k) {
        uint64_t state = SplitMix64(seed_ ^ SplitMix64(G::Hash(position) + uint64_t(k)));
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
  uint64_t seed_;
  int num_playouts_;
  int max_plies_;
};

}  // namespace vz
