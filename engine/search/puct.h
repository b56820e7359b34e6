#pragma once

// PUCT selection with virtual loss, the descent rule of AlphaZero (Silver et al., Science 2018):
// the child a maximising
//   Q(a) + c(N) * P(a) * sqrt(N) / (1 + n(a)),   c(N) = c_puct_init + log((N + c_puct_base + 1) /
//                                                                           c_puct_base),
// with N the parent's visits and n(a) the child's, both counting the leaves in flight. Q is the
// mean value of the child for the side to move at the parent, in [-1, 1]; an unvisited child gets
// the first-play urgency Q_parent - fpu_reduction * sqrt(sum of the priors of the visited
// children) (Lc0's reduction form). Virtual loss: each leaf in flight below a child counts as
// `virtual_loss` lost visits in its Q, so that one search hands out different leaves in a round
// (SearchParams::leaves_per_round). With the solver, a child proven won is taken at once and one
// proven lost only when nothing else is left. Parameters: engine/search/search_params.h.
// Pure functions of the tree (engine/search/tree.h); thread-compatible.

#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/core/types.h"
#include "engine/search/search_params.h"
#include "engine/search/tree.h"

namespace vz {

// The PUCT choice among the children of `node` (expanded), whose side to move is White when
// `white`. Returns a child id. One pass over the children: unvisited children all share the
// first-play urgency value, so only the best prior among them matters, and FPU is applied once
// the visited policy is known.
inline int32_t SelectPuct(const SearchTree& tree, int32_t node, bool white,
                          const SearchParams& params) {
  const int32_t first = tree.first_child[node];
  const int n = tree.num_children[node];
  const float sign = white ? 1.0f : -1.0f;
  const uint8_t win = uint8_t(white ? Status::kWhiteWins : Status::kBlackWins);
  const uint8_t loss = uint8_t(white ? Status::kBlackWins : Status::kWhiteWins);
  const float parent_visits = float(tree.visits[node] + tree.in_flight[node]);
  const float c_puct = params.c_puct_init +
                       std::log((parent_visits + params.c_puct_base + 1.0f) / params.c_puct_base);
  const float factor = c_puct * std::sqrt(parent_visits);
  const int32_t* visits = tree.visits.data() + first;
  const int32_t* in_flight = tree.in_flight.data() + first;
  const float* value_sum = tree.value_sum.data() + first;
  const float* prior = tree.prior.data() + first;
  const uint8_t* proven = tree.proven.data() + first;
  const float virtual_loss = params.virtual_loss;
  float visited_policy = 0.0f;
  int best = -1;
  float best_score = -std::numeric_limits<float>::infinity();
  int best_unvisited = -1;
  float best_unvisited_prior = -1.0f;
  for (int i = 0; i < n; ++i) {
    const int32_t count = visits[i] + in_flight[i];
    if (params.solver && proven[i] != uint8_t(Status::kOngoing)) {
      if (proven[i] == win) return first + i;
      if (count > 0) visited_policy += prior[i];
      const float score =
          proven[i] == loss ? -1e6f + prior[i] : factor * prior[i] / float(1 + count);
      if (score > best_score) {
        best_score = score;
        best = i;
      }
      continue;
    }
    const float effective = float(visits[i]) + virtual_loss * float(in_flight[i]);
    if (count == 0 || effective <= 0.0f) {
      if (prior[i] > best_unvisited_prior) {
        best_unvisited_prior = prior[i];
        best_unvisited = i;
      }
      continue;
    }
    visited_policy += prior[i];
    const float q = (sign * value_sum[i] - virtual_loss * float(in_flight[i])) / effective;
    const float score = q + factor * prior[i] / float(1 + count);
    if (score > best_score) {
      best_score = score;
      best = i;
    }
  }
  if (best_unvisited >= 0) {
    const float parent_q = sign * tree.value_sum[node] / float(tree.visits[node]);
    const float reduction =
        node == SearchTree::kRoot ? params.fpu_reduction_root : params.fpu_reduction;
    const float fpu = parent_q - reduction * std::sqrt(visited_policy);
    const float score = fpu + factor * best_unvisited_prior;
    if (best < 0 || score > best_score || (score == best_score && best_unvisited < best)) {
      best = best_unvisited;
    }
  }
  return first + best;
}

// Removes the virtual loss of one descent that ended at `node` without a backup (a collision, a
// full tree, a cancelled leaf): one in-flight count from each node of its path.
inline void UndoVirtualLoss(SearchTree& tree, int32_t node) {
  for (int32_t n = node; n != SearchTree::kNone; n = tree.parent[n]) --tree.in_flight[n];
}

}  // namespace vz
