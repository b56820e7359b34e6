#pragma once

// A decorator that remembers evaluator results (Lc0's NN cache), keyed by position hash AND
// repetition count (the count is an input of the evaluation). Entries whose result the inner
// evaluator marked as not cacheable (cacheable(i) == false: the value depends on the path that led
// to the position, e.g. history planes) are never stored. Values that the search itself derives
// from the path (repetition draws inside the tree, solver proofs) never pass through an evaluator.
//
// Fixed number of slots, direct-mapped: a new entry replaces the slot's old one. A hit also
// checks the number of legal moves to guard against hash collisions. A batch that defers its
// priors (EvalBatch::defer_priors) is passed on as such, the inner evaluator's deferred stage is
// forwarded (CompletePriors), and an entry stored from a deferring batch serves only deferring
// batches (and the reverse), so that no priors are completed twice or never. A restricted root's
// entry (EvalBatch::restricted: priors over the allowed moves only) is neither served nor stored.
// Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/zobrist.h"
#include "engine/search/evaluator.h"

namespace vz {

template <Game G>
class CachingEvaluator final : public Evaluator<G> {
 public:
  // `inner` must outlive this object; capacity >= 1 slots.
  CachingEvaluator(Evaluator<G>& inner, size_t capacity)
      : inner_(inner), slots_(capacity < 1 ? 1 : capacity) {}

  void Evaluate(EvalBatch<G>& batch) override {
    misses_batch_.Clear();
    misses_batch_.set_defer_priors(batch.defer_priors());
    miss_index_.clear();
    for (int i = 0; i < batch.size(); ++i) {
      const uint64_t hash = G::Hash(batch.position(i));
      const int repetition = batch.repetition_count(i);
      const Slot& slot = slots_[SlotIndex(hash, repetition)];
      // A restricted root's priors are over its allowed moves only: neither looked up nor stored.
      if (!batch.restricted(i) && slot.used && slot.hash == hash &&
          slot.repetition_count == repetition && slot.deferred == batch.defer_priors() &&
          int(slot.priors.size()) == batch.num_moves(i)) {
        std::span<float> priors = batch.priors(i);
        for (size_t k = 0; k < priors.size(); ++k) priors[k] = slot.priors[k];
        batch.value(i) = slot.value;
        ++hits_;
        continue;
      }
      ++misses_;
      const std::span<const Move> moves = batch.moves(i);
      misses_batch_.Add(batch.position(i), moves.data(), int(moves.size()), repetition,
                        batch.restricted(i));
      miss_index_.push_back(i);
    }
    if (misses_batch_.size() == 0) return;
    inner_.Evaluate(misses_batch_);
    for (int j = 0; j < misses_batch_.size(); ++j) {
      const int i = miss_index_[j];
      const std::span<const float> priors = misses_batch_.priors(j);
      std::span<float> out = batch.priors(i);
      for (size_t k = 0; k < out.size(); ++k) out[k] = priors[k];
      batch.value(i) = misses_batch_.value(j);
      batch.set_cacheable(i, misses_batch_.cacheable(j));
      if (!misses_batch_.cacheable(j) || batch.restricted(i)) continue;
      Slot& slot = slots_[SlotIndex(G::Hash(batch.position(i)), batch.repetition_count(i))];
      slot.used = true;
      slot.hash = G::Hash(batch.position(i));
      slot.repetition_count = batch.repetition_count(i);
      slot.deferred = batch.defer_priors();
      slot.value = misses_batch_.value(j);
      slot.priors.assign(priors.begin(), priors.end());
    }
  }

  bool DefersPriors() const override { return inner_.DefersPriors(); }
  void CompletePriors(const typename G::Position& position, std::span<const Move> moves,
                      std::span<float> priors) override {
    inner_.CompletePriors(position, moves, priors);
  }

  int64_t hits() const { return hits_; }
  int64_t misses() const { return misses_; }

 private:
  struct Slot {
    bool used = false;
    uint64_t hash = 0;
    int repetition_count = 0;
    bool deferred = false;  // stored from a batch that deferred its priors
    Wdl value;
    std::vector<float> priors;  // [legal moves] in generation order
  };

  size_t SlotIndex(uint64_t hash, int repetition_count) const {
    return size_t(SplitMix64(hash ^ (uint64_t(repetition_count) * 0x9E3779B97F4A7C15ull)) %
                  slots_.size());
  }

  Evaluator<G>& inner_;
  std::vector<Slot> slots_;  // [slot]
  EvalBatch<G> misses_batch_;
  std::vector<int> miss_index_;  // [miss] index of the miss in the caller's batch
  int64_t hits_ = 0;
  int64_t misses_ = 0;
};

}  // namespace vz
