#pragma once

// The evaluator that knows nothing: uniform priors over the legal moves and a certain draw.
// Deterministic; the search then behaves like plain UCT with terminal values, which makes it the
// reference for golden outputs and the `vzero bench` signature.

#include "engine/search/evaluator.h"

namespace vz {

template <Game G>
class UniformEvaluator final : public Evaluator<G> {
 public:
  void Evaluate(EvalBatch<G>& batch) override {
    for (int i = 0; i < batch.size(); ++i) {
      const float prior = 1.0f / float(batch.num_moves(i));
      for (float& p : batch.priors(i)) p = prior;
      batch.value(i) = Wdl{0.0f, 1.0f, 0.0f};
    }
  }
};

}  // namespace vz
