#pragma once

// Gumbel root search on the flat tree (Danihelka, Guez, Schrittwieser, Silver, "Policy improvement
// by planning with Gumbel", ICLR 2022; DeepMind's mctx): when the root is expanded, each root move
// a gets a Gumbel(0, 1) sample g(a); sequential halving over the m moves with the highest
// g(a) + logit(a) (Gumbel-top-k) spreads the search's budget, the move played is the survivor with
// the highest g + logit + sigma(completed Q), and the improved policy softmax(logit + sigma) is the
// training target. Below the root the selection is deterministic (argmax of improved policy minus
// visit share). The arithmetic (sequential-halving schedule, sigma, improved policy) is in
// engine/search/gumbel.h; this class holds the per-search root state. Part of Mcts<G>
// (engine/search/mcts.h). Not thread-safe.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "engine/core/types.h"
#include "engine/search/gumbel.h"
#include "engine/search/search_params.h"
#include "engine/search/solver.h"
#include "engine/search/tree.h"

namespace vz {

class GumbelRoot {
 public:
  static constexpr int32_t kRoot = SearchTree::kRoot;

  // `max_children`: the most children a node can have (the game's kMaxMoves).
  explicit GumbelRoot(int max_children)
      : scratch_q_(size_t(max_children)),
        scratch_visits_(size_t(max_children)),
        scratch_priors_(size_t(max_children)),
        scratch_sigma_(size_t(max_children)) {}

  // Forgets the sample (a new search begins).
  void Reset() { ready_ = false; }
  // The root's Gumbel sample is drawn (Begin was called for this search).
  bool ready() const { return ready_; }

  // Draws g(a) for every root child (the root must be expanded) from `rng` (g = 0 without
  // `noise`: the considered moves are those of highest prior, the choice deterministic), takes the
  // children's visits so far as the base of this search (tree reuse), and sets
  // m = gumbel_max_considered (at most the number of children) and the sequential-halving budget
  // `budget` >= 1.
  void Begin(const SearchTree& tree, const SearchParams& params, int64_t budget, bool noise,
             std::mt19937_64& rng) {
    const int32_t first = tree.first_child[kRoot];
    const int n = tree.num_children[kRoot];
    ready_ = true;
    noise_.resize(size_t(n));
    base_visits_.resize(size_t(n));
    std::uniform_real_distribution<double> uniform(1e-12, 1.0);
    for (int i = 0; i < n; ++i) {
      noise_[size_t(i)] = noise ? float(-std::log(-std::log(uniform(rng)))) : 0.0f;
      base_visits_[size_t(i)] = tree.visits[first + i];
    }
    considered_ = std::min(std::max(1, params.gumbel_max_considered), n);
    budget_ = budget;
    simulation_ = 0;
  }

  // The root child of the next simulation (mctx's gumbel_muzero_root_action_selection): the move
  // whose visits this search equal the considered visit count of the simulation, with the highest
  // g + logit + sigma(completed Q); without an exact match (leaves in flight), the least visited of
  // the best-scoring moves. Counts the simulation (Unselect hands it back). Needs ready().
  int32_t SelectRoot(const SearchTree& tree, const SearchParams& params) {
    const int32_t first = tree.first_child[kRoot];
    const int n = tree.num_children[kRoot];
    RootSigma(tree, params);
    const int32_t considered =
        ConsideredVisits(considered_, budget_, std::min(simulation_, budget_ - 1));
    ++simulation_;
    int best = -1;
    int fallback = 0;
    float best_score = -std::numeric_limits<float>::infinity();
    float fallback_score = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < n; ++i) {
      const int32_t child = first + i;
      const float score =
          noise_[size_t(i)] + PriorLogit(tree.prior[child]) + scratch_sigma_[size_t(i)];
      const int32_t count = tree.visits[child] + tree.in_flight[child] - base_visits_[size_t(i)];
      const float fallback_value = score - 1e4f * float(count);
      if (fallback_value > fallback_score) {
        fallback_score = fallback_value;
        fallback = i;
      }
      if (count == considered && score > best_score) {
        best_score = score;
        best = i;
      }
    }
    return first + (best >= 0 ? best : fallback);
  }

  // The last SelectRoot's simulation was not used (its descent ended without a leaf): hand it out
  // again.
  void Unselect() { --simulation_; }

  // Deterministic selection below the root (mctx's gumbel_muzero_interior_action_selection) among
  // the children of expanded `node`, whose side to move is White when `white`: argmax of
  // improved_policy(a) - n(a) / (1 + sum n), leaves in flight counted; with the solver, a child
  // proven won at once.
  int32_t SelectInterior(const SearchTree& tree, int32_t node, bool white,
                         const SearchParams& params) const {
    const int32_t first = tree.first_child[node];
    const int n = tree.num_children[node];
    const float sign = white ? 1.0f : -1.0f;
    const uint8_t win = uint8_t(white ? Status::kWhiteWins : Status::kBlackWins);
    ChildrenSigma(tree, node, sign, params);
    std::span<float> policy(scratch_q_.data(), size_t(n));
    ImprovedPolicy(std::span<const float>(scratch_priors_.data(), size_t(n)),
                   std::span<const float>(scratch_sigma_.data(), size_t(n)), policy);
    float total = 0.0f;
    for (int i = 0; i < n; ++i) total += float(tree.visits[first + i] + tree.in_flight[first + i]);
    int best = 0;
    float best_score = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < n; ++i) {
      const int32_t child = first + i;
      if (params.solver && tree.proven[child] == win) return child;
      const float count = float(tree.visits[child] + tree.in_flight[child]);
      const float score = policy[size_t(i)] - count / (1.0f + total);
      if (score > best_score) {
        best_score = score;
        best = i;
      }
    }
    return first + best;
  }

  // The move sequential halving chose: among the root children not lost (IsLossFor) with the most
  // visits this search, the highest g + logit + sigma. kNone when this search drew no sample for
  // the current root children.
  int32_t FinalChild(const SearchTree& tree, const SearchParams& params) const {
    const int32_t first = tree.first_child[kRoot];
    const int n = tree.num_children[kRoot];
    if (!ready_ || noise_.size() != size_t(n)) return SearchTree::kNone;
    const Color side = Color(tree.side[kRoot]);
    RootSigma(tree, params);
    int32_t max_count = 0;
    for (int i = 0; i < n; ++i) {
      if (IsLossFor(tree, first + i, side, params.solver)) continue;
      max_count = std::max(max_count, tree.visits[first + i] - base_visits_[size_t(i)]);
    }
    int best = -1;
    float best_score = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < n; ++i) {
      const int32_t child = first + i;
      if (IsLossFor(tree, child, side, params.solver)) continue;
      if (tree.visits[child] - base_visits_[size_t(i)] != max_count) continue;
      const float score =
          noise_[size_t(i)] + PriorLogit(tree.prior[child]) + scratch_sigma_[size_t(i)];
      if (score > best_score) {
        best_score = score;
        best = i;
      }
    }
    return best >= 0 ? first + best : SearchTree::kNone;
  }

  // The improved policy softmax(logit + sigma(completed Q)) over the root children (expanded
  // root) into `policy` ([root child], sums to 1).
  void RootImprovedPolicy(const SearchTree& tree, const SearchParams& params,
                          std::span<float> policy) const {
    const size_t n = size_t(tree.num_children[kRoot]);
    RootSigma(tree, params);
    ImprovedPolicy(std::span<const float>(scratch_priors_.data(), n),
                   std::span<const float>(scratch_sigma_.data(), n), policy.first(n));
  }

 private:
  // Fills scratch_{q,visits,priors}_ for the children of `node` (Q for the side `sign` to move,
  // exact for proven children) and scratch_sigma_ with sigma(completed Q).
  void ChildrenSigma(const SearchTree& tree, int32_t node, float sign,
                     const SearchParams& params) const {
    const int32_t first = tree.first_child[node];
    const int n = tree.num_children[node];
    for (int i = 0; i < n; ++i) {
      const int32_t child = first + i;
      const uint8_t proven = tree.proven[child];
      scratch_visits_[size_t(i)] = tree.visits[child];
      scratch_priors_[size_t(i)] = tree.prior[child];
      if (params.solver && proven != uint8_t(Status::kOngoing)) {
        scratch_q_[size_t(i)] = proven == uint8_t(Status::kDraw)                        ? 0.0f
                                : (proven == uint8_t(Status::kWhiteWins)) == (sign > 0) ? 1.0f
                                                                                        : -1.0f;
        scratch_visits_[size_t(i)] = std::max(scratch_visits_[size_t(i)], 1);
      } else if (tree.visits[child] > 0) {
        scratch_q_[size_t(i)] = sign * tree.value_sum[child] / float(tree.visits[child]);
      } else {
        scratch_q_[size_t(i)] = 0.0f;
      }
    }
    CompletedQSigma(std::span<const float>(scratch_q_.data(), size_t(n)),
                    std::span<const int32_t>(scratch_visits_.data(), size_t(n)),
                    std::span<const float>(scratch_priors_.data(), size_t(n)),
                    sign * tree.raw_value[node], params.gumbel_c_visit, params.gumbel_c_scale,
                    std::span<float>(scratch_sigma_.data(), size_t(n)));
  }

  void RootSigma(const SearchTree& tree, const SearchParams& params) const {
    ChildrenSigma(tree, kRoot, Color(tree.side[kRoot]) == Color::kWhite ? 1.0f : -1.0f, params);
  }

  bool ready_ = false;
  std::vector<float> noise_;          // [root child] Gumbel(0, 1) sample g(a)
  std::vector<int32_t> base_visits_;  // [root child] visits before this search
  int considered_ = 1;                // m: root moves sampled by Gumbel-top-k
  int64_t budget_ = 1;                // simulations of sequential halving
  int64_t simulation_ = 0;            // root selections handed out so far

  // Per-node scratch of the arithmetic: [child].
  mutable std::vector<float> scratch_q_;
  mutable std::vector<int32_t> scratch_visits_;
  mutable std::vector<float> scratch_priors_;
  mutable std::vector<float> scratch_sigma_;
};

}  // namespace vz
