#pragma once

// Advances many independent searches (many games) in lockstep: each round gathers the leaves of
// every unfinished search into ONE evaluator batch, evaluates it with one call and hands each
// search its results. This is how self-play fills large GPU batches. Each search behaves exactly
// as it would alone (its descents depend only on its own tree and generator), provided the
// evaluator's result for a position does not depend on the rest of the batch.

#include <cstdint>
#include <span>

#include "engine/search/evaluator.h"
#include "engine/search/mcts.h"

namespace vz {

template <Game G>
class LockstepRunner {
 public:
  // `evaluator` must outlive the runner.
  explicit LockstepRunner(Evaluator<G>& evaluator) : evaluator_(evaluator) {}

  // One round over `searches` (each already started with Mcts::StartSearch). Returns the number
  // of positions evaluated (0 when the round only met terminal or proven nodes, or all are done).
  int RunRound(std::span<Mcts<G>* const> searches) {
    batch_.Clear();
    bool any_active = false;
    for (Mcts<G>* search : searches) {
      if (search->Done()) continue;
      any_active = true;
      search->GatherLeaves(batch_);
    }
    if (!any_active) return 0;
    try {
      if (batch_.size() > 0) evaluator_.Evaluate(batch_);
      for (Mcts<G>* search : searches) search->ApplyEvaluations(batch_);
    } catch (...) {
      // An evaluator failure or a non-finite evaluation: every search drops its leaves in
      // flight (those already applied have none), so that all of them stay usable.
      for (Mcts<G>* search : searches) search->CancelPending();
      throw;
    }
    ++rounds_;
    evaluated_ += batch_.size();
    max_batch_ = batch_.size() > max_batch_ ? batch_.size() : max_batch_;
    return batch_.size();
  }

  // Rounds until every search is done.
  void Run(std::span<Mcts<G>* const> searches) {
    for (;;) {
      bool all_done = true;
      for (const Mcts<G>* search : searches) all_done = all_done && search->Done();
      if (all_done) return;
      RunRound(searches);
    }
  }

  int64_t rounds() const { return rounds_; }
  int64_t evaluated() const { return evaluated_; }
  int max_batch() const { return max_batch_; }

 private:
  Evaluator<G>& evaluator_;
  EvalBatch<G> batch_;
  int64_t rounds_ = 0;
  int64_t evaluated_ = 0;
  int max_batch_ = 0;
};

}  // namespace vz
