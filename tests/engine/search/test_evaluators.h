#pragma once

// Evaluators for search tests: deterministic but non-uniform (HashEvaluator), and one that
// records what it was asked (RecordingEvaluator).

#include <cstdint>
#include <vector>

#include "engine/core/zobrist.h"
#include "engine/search/evaluator.h"

namespace vz::search_testing {

// Priors and values that are pseudo-random functions of the position hash: a varied tree, yet
// the same answer for the same position whatever the batch.
template <Game G>
class HashEvaluator final : public Evaluator<G> {
 public:
  void Evaluate(EvalBatch<G>& batch) override {
    for (int i = 0; i < batch.size(); ++i) {
      const uint64_t hash = G::Hash(batch.position(i));
      std::span<float> priors = batch.priors(i);
      for (size_t k = 0; k < priors.size(); ++k) {
        priors[k] = 0.05f + float(SplitMix64(hash + k) % 1000) / 1000.0f;
      }
      const float win = float(SplitMix64(hash ^ 0xabcdef) % 1000) / 2000.0f;
      const float draw = float(SplitMix64(hash ^ 0x123456) % 1000) / 2000.0f;
      batch.value(i) = Wdl{win, draw, 1.0f - win - draw};
    }
  }
};

// Uniform priors and a draw value; remembers every position and repetition count it saw.
template <Game G>
class RecordingEvaluator final : public Evaluator<G> {
 public:
  void Evaluate(EvalBatch<G>& batch) override {
    ++calls;
    for (int i = 0; i < batch.size(); ++i) {
      positions.push_back(batch.position(i));
      repetition_counts.push_back(batch.repetition_count(i));
      for (float& p : batch.priors(i)) p = 1.0f / float(batch.num_moves(i));
      batch.value(i) = Wdl{0.0f, 1.0f, 0.0f};
      if (mark_uncacheable) batch.set_cacheable(i, false);
    }
  }
  std::vector<typename G::Position> positions;
  std::vector<int> repetition_counts;
  int calls = 0;
  bool mark_uncacheable = false;
};

}  // namespace vz::search_testing
