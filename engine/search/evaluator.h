#pragma once

// The evaluator interface of the search (Lc0's backend idea): a batch of positions in, for each a
// prior per legal move and a win/draw/loss value out. One virtual call per batch, never per node.
// Implementations: UniformEvaluator and RolloutEvaluator (engine/search/), CachingEvaluator (a
// decorator), and the LibTorch evaluator in nets/.
//
// A batch is flat arrays, so that a GPU evaluator can copy it in one go:
//   positions_          [batch]          the positions to evaluate (never terminal)
//   repetition_counts_  [batch]          occurrences of the position in game history + tree path
//                                        (1 = first time); an explicit network input
//   move_offsets_       [batch + 1]      entry i's legal moves are moves_[offset[i], offset[i+1])
//   moves_              [total moves]    legal moves in generation order (at a root restricted by
//                                        UCI's `go searchmoves`, the allowed ones)
//   restricted_         [batch]          1 when entry i's moves are a restriction of its legal
//                                        moves: its priors are over them, its value is still the
//                                        position's (an evaluator whose value looks at the moves
//                                        generates the full list)
//   priors_             [total moves]    output: prior of each legal move, >= 0, summing to 1
//   values_             [batch]          output: WDL from the side to move's point of view
//   cacheable_          [batch]          output: 0 when the value depends on more than the
//                                        position and its repetition count (e.g. history planes)
//   defer_priors_       (one flag)       input: the caller completes the priors of the entries it
//                                        uses (Evaluator::CompletePriors), so an evaluator whose
//                                        priors have an expensive second stage may leave it out

#include <cstdint>
#include <span>
#include <vector>

#include "engine/core/game.h"
#include "engine/core/macros.h"
#include "engine/search/wdl.h"

namespace vz {

template <Game G>
class EvalBatch {
 public:
  using Position = typename G::Position;

  // Empties the batch, keeping its memory (and the defer_priors flag).
  void Clear() {
    positions_.clear();
    repetition_counts_.clear();
    move_offsets_.assign(1, 0);
    moves_.clear();
    priors_.clear();
    values_.clear();
    cacheable_.clear();
    restricted_.clear();
  }

  // Appends a position with its `num_moves` >= 1 legal moves (`restricted`: `moves` are the
  // allowed ones of a root restricted by `searchmoves`); returns its index in the batch.
  int Add(const Position& position, const Move* moves, int num_moves, int repetition_count,
          bool restricted = false) {
    VZ_DCHECK(num_moves >= 1);
    if (move_offsets_.empty()) move_offsets_.push_back(0);
    positions_.push_back(position);
    repetition_counts_.push_back(repetition_count);
    moves_.insert(moves_.end(), moves, moves + num_moves);
    priors_.resize(moves_.size(), 0.0f);
    move_offsets_.push_back(int32_t(moves_.size()));
    values_.emplace_back();
    cacheable_.push_back(1);
    restricted_.push_back(restricted);
    return int(positions_.size()) - 1;
  }

  int size() const { return int(positions_.size()); }
  const Position& position(int i) const { return positions_[i]; }
  int repetition_count(int i) const { return repetition_counts_[i]; }
  int num_moves(int i) const { return move_offsets_[i + 1] - move_offsets_[i]; }
  std::span<const Move> moves(int i) const {
    return {moves_.data() + move_offsets_[i], size_t(num_moves(i))};
  }
  std::span<float> priors(int i) {
    return {priors_.data() + move_offsets_[i], size_t(num_moves(i))};
  }
  std::span<const float> priors(int i) const {
    return {priors_.data() + move_offsets_[i], size_t(num_moves(i))};
  }
  Wdl& value(int i) { return values_[i]; }
  const Wdl& value(int i) const { return values_[i]; }
  bool cacheable(int i) const { return cacheable_[i] != 0; }
  void set_cacheable(int i, bool cacheable) { cacheable_[i] = cacheable; }
  // Whether moves(i) are a restriction of the position's legal moves (file comment).
  bool restricted(int i) const { return restricted_[i] != 0; }
  // Whether the caller completes the priors itself (file comment); false unless set, so that a
  // caller that reads the priors straight from Evaluate gets them whole.
  bool defer_priors() const { return defer_priors_; }
  void set_defer_priors(bool defer) { defer_priors_ = defer; }

  // The flat arrays (shapes in the file comment), for evaluators that copy them to a device.
  const std::vector<Position>& positions() const { return positions_; }
  const std::vector<int32_t>& move_offsets() const { return move_offsets_; }
  const std::vector<Move>& all_moves() const { return moves_; }
  const std::vector<int32_t>& repetition_counts() const { return repetition_counts_; }
  std::span<float> all_priors() { return priors_; }
  std::span<Wdl> all_values() { return values_; }

 private:
  std::vector<Position> positions_;
  std::vector<int32_t> repetition_counts_;
  std::vector<int32_t> move_offsets_ = {0};
  std::vector<Move> moves_;
  std::vector<float> priors_;
  std::vector<Wdl> values_;
  std::vector<uint8_t> cacheable_;
  std::vector<uint8_t> restricted_;
  bool defer_priors_ = false;
};

template <Game G>
class Evaluator {
 public:
  virtual ~Evaluator() = default;

  // Fills priors(i) and value(i) of every entry of `batch` (outputs only; inputs are left as
  // they are) and may clear cacheable(i). Priors need not be normalised exactly: the search
  // normalises them. Not required to be thread-safe. Throws vz::Error on a failure of the
  // environment (e.g. a device error).
  virtual void Evaluate(EvalBatch<G>& batch) = 0;

  // Priors in two stages (optional). An evaluator whose priors have an expensive part that only
  // matters where the search looks again (the tactical priors of QuiescenceEvaluator) returns
  // true from DefersPriors, leaves that part out of Evaluate when batch.defer_priors() is set, and
  // adds it in CompletePriors. Mcts calls CompletePriors for a node just before it first selects
  // among the node's children, and for the root once it is expanded (when its evaluation arrives,
  // or at StartSearch for a root kept by tree reuse), before its noise and Gumbel sample: the many
  // leaves that are evaluated once and never descended from never pay for it, and every selection
  // sees the same priors as without the deferral. A decorator forwards both functions to its inner
  // evaluator (running its own stage after the inner one, if it has one), or neither (the driver
  // then asks it for whole priors: SearchDriver sets defer_priors only when DefersPriors()).
  // `priors` are the Evaluate priors of `position`'s legal moves `moves` (at a restricted root,
  // the allowed ones: a completion depends on `moves` alone) as Evaluate gave them
  // (not normalised; in the same order) and are completed in place, so that completing them gives
  // the very floats a batch that does not defer gets. Throws what the evaluator's environment
  // throws (as Evaluate); the search then leaves the node's priors deferred. Default: nothing
  // deferred.
  virtual bool DefersPriors() const { return false; }
  virtual void CompletePriors(const typename G::Position& position, std::span<const Move> moves,
                              std::span<float> priors) {
    (void)position, (void)moves, (void)priors;
  }
};

}  // namespace vz
