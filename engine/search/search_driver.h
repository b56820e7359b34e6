#pragma once

// The one round driver of the search: every client that runs Mcts searches (a lone search, the
// self-play actors, lockstep matches, the analysis engine, the UCI engine, bench) advances them
// through SearchDriver::RunRound. A round gathers the leaves of every unfinished search into ONE
// evaluator batch (each under virtual loss, Mcts::GatherLeaves), evaluates the batch with one
// call and hands each search its results (Mcts::ApplyEvaluations). This is how self-play fills
// large GPU batches (AlphaZero's batched MCTS; Lc0's multi-gather). Each search behaves exactly as
// it would alone (its descents depend only on its own tree and generator), provided the
// evaluator's result for a position does not depend on the rest of the batch.
//
// Failures: when the evaluator throws (in Evaluate, or in CompletePriors while a search gathers
// or applies), or a search rejects an evaluation (a non-finite value or prior: vz::Error from
// GatherLeaves or ApplyEvaluations), every search of the round drops its leaves in flight
// (CancelPending) before the exception propagates, so that all of them stay usable.
//
// Timing: the driver adds up the wall time of the three phases of its rounds (when built with
// timing on), for the self-play metrics; an evaluator's deferred priors (Evaluator::CompletePriors)
// count in the gather and apply phases, where the searches ask for them. Not thread-safe: one
// driver belongs to one thread.

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>

#include "engine/search/evaluator.h"

namespace vz {

// What the driver needs of a search (Mcts<G>, or a player that wraps one, arena/player.h):
// Done() once its budget is spent; GatherLeaves(batch, evaluator) appends its leaves to a shared
// batch and returns how many; ApplyEvaluations(batch, evaluator) backs up its entries of the
// evaluated batch and may throw vz::Error on a non-finite evaluation (its leaves then cancelled);
// CancelPending() forgets its leaves in flight. Both get the round's evaluator for its deferred
// priors (Evaluator::CompletePriors; the driver's batches defer them when the evaluator
// DefersPriors).
template <class S, class G>
concept DrivenSearch = requires(S& search, EvalBatch<G>& batch, Evaluator<G>& evaluator) {
  { std::as_const(search).Done() } -> std::convertible_to<bool>;
  { search.GatherLeaves(batch, evaluator) } -> std::convertible_to<int>;
  search.ApplyEvaluations(std::as_const(batch), evaluator);
  search.CancelPending();
};

// Counts and times of a driver's rounds, monotone. Seconds are wall time (steady clock), zero when
// the driver was built without timing.
struct SearchDriverStats {
  int64_t rounds = 0;             // RunRound calls that found an unfinished search
  int64_t evaluator_calls = 0;    // rounds with a non-empty batch (one evaluator call each)
  int64_t evaluated = 0;          // positions evaluated, summed over the calls
  int max_batch = 0;              // the largest batch
  double gather_seconds = 0.0;    // descents and leaf gathering (GatherLeaves)
  double evaluate_seconds = 0.0;  // evaluator calls
  double apply_seconds = 0.0;     // expansion and backup (ApplyEvaluations)

  // Mean positions per evaluator call; 0 before the first call.
  double mean_batch() const {
    return evaluator_calls > 0 ? double(evaluated) / double(evaluator_calls) : 0.0;
  }
};

template <Game G>
class Mcts;

// Drives searches of type S (Mcts<G> by default; any DrivenSearch).
template <Game G, class S = Mcts<G>>
class SearchDriver {
 public:
  static constexpr int kNoBatchLimit = std::numeric_limits<int>::max();

  // `timed`: measure the phases of each round (four clock reads a round; off for lone searches of
  // cheap evaluators, where a round is a single descent).
  explicit SearchDriver(bool timed = true) : timed_(timed) {}

  // One round over `searches` (each already started with StartSearch; finished ones are skipped).
  // Searches are gathered in order until the batch holds at least `max_batch` entries; the rest
  // wait for a later round (last_scanned() tells how many were offered). Returns the number of
  // positions evaluated (0 when the round only met terminal or proven nodes, or all are done).
  // Throws what the evaluator throws, or vz::Error on a non-finite evaluation, with the leaves of
  // every search in `searches` cancelled.
  int RunRound(Evaluator<G>& evaluator, std::span<S* const> searches,
               int max_batch = kNoBatchLimit) {
    static_assert(DrivenSearch<S, G>);
    const auto start = Now();
    batch_.Clear();
    // Deferred priors only where the evaluator says it completes them: a decorator that does not
    // forward CompletePriors gets, and passes on, a batch that wants whole priors.
    batch_.set_defer_priors(evaluator.DefersPriors());
    bool any_active = false;
    scanned_ = 0;
    auto gathered = start, evaluated = start;
    try {
      // Inside the try: a search that throws while gathering (out of memory) leaves the leaves
      // the earlier searches gathered in flight, and they are cancelled too.
      for (S* search : searches) {
        if (batch_.size() >= max_batch) break;
        ++scanned_;
        if (search->Done()) continue;
        any_active = true;
        search->GatherLeaves(batch_, evaluator);
      }
      if (!any_active) return 0;
      gathered = Now();
      evaluated = gathered;
      if (batch_.size() > 0) evaluator.Evaluate(batch_);
      evaluated = Now();
      for (S* search : searches.first(scanned_)) search->ApplyEvaluations(batch_, evaluator);
    } catch (...) {
      for (S* search : searches) search->CancelPending();
      throw;
    }
    const auto applied = Now();
    ++stats_.rounds;
    if (batch_.size() > 0) {
      ++stats_.evaluator_calls;
      stats_.evaluated += batch_.size();
      stats_.max_batch = std::max(stats_.max_batch, batch_.size());
    }
    if (timed_) {
      stats_.gather_seconds += Seconds(gathered - start);
      stats_.evaluate_seconds += Seconds(evaluated - gathered);
      stats_.apply_seconds += Seconds(applied - evaluated);
    }
    return batch_.size();
  }

  // Rounds until every search of `searches` is done. Throws as RunRound.
  void Run(Evaluator<G>& evaluator, std::span<S* const> searches) {
    for (;;) {
      bool all_done = true;
      for (const S* search : searches) all_done = all_done && search->Done();
      if (all_done) return;
      RunRound(evaluator, searches);
    }
  }

  // The number of leading searches the last RunRound offered to its batch (the rest waited for
  // the batch limit); valid after a throw too.
  size_t last_scanned() const { return scanned_; }
  const SearchDriverStats& stats() const { return stats_; }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point Now() const { return timed_ ? Clock::now() : Clock::time_point(); }
  static double Seconds(Clock::duration duration) {
    return std::chrono::duration<double>(duration).count();
  }

  bool timed_;
  EvalBatch<G> batch_;
  size_t scanned_ = 0;
  SearchDriverStats stats_;
};

}  // namespace vz
