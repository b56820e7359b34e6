#pragma once

// Between a policy over actions (what a network's policy head outputs and what it is trained on)
// and the search's priors and targets over legal moves. When moves share an action index
// (G::kActionsMayCollide: draughts captures with equal start and end squares taking different
// pieces) they stay separate children that SHARE that action's probability equally; their policy
// targets add up into the one action.

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "engine/core/game.h"
#include "engine/search/search_result.h"

namespace vz {

// Softmax over the distinct actions of the legal `moves` of `position`, each move receiving its
// action's probability divided by the number of legal moves with that action.
//   logits  [kNumActions] policy-head output for `position` (side-to-move frame of the game)
//   priors  [moves] output, sums to 1
template <Game G>
void PriorsFromActionLogits(const typename G::Position& position, std::span<const Move> moves,
                            std::span<const float> logits, std::span<float> priors) {
  const size_t n = moves.size();
  if (n == 0) return;
  float high = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < n; ++i) {
    priors[i] = logits[size_t(G::ActionIndex(position, moves[i]))];
    high = std::max(high, priors[i]);
  }
  for (size_t i = 0; i < n; ++i) priors[i] = std::exp(priors[i] - high);
  if constexpr (G::kActionsMayCollide) {
    // Each distinct action counts once in the normaliser; its mass is split among its moves.
    double total = 0.0;
    std::vector<int> shares(n, 0);
    for (size_t i = 0; i < n; ++i) {
      const int action = G::ActionIndex(position, moves[i]);
      for (size_t j = 0; j < n; ++j) shares[i] += G::ActionIndex(position, moves[j]) == action;
      total += priors[i] / float(shares[i]);
    }
    for (size_t i = 0; i < n; ++i) priors[i] = float(priors[i] / total / shares[i]);
  } else {
    double total = 0.0;
    for (size_t i = 0; i < n; ++i) total += priors[i];
    for (size_t i = 0; i < n; ++i) priors[i] = float(priors[i] / total);
  }
}

// The policy target of a search result per action: (action, probability) sorted by action,
// probabilities of moves sharing an action added. Sums to 1 when the result has moves.
inline std::vector<std::pair<int, float>> PolicyTargetByAction(const SearchResult& result) {
  std::vector<std::pair<int, float>> target;
  for (const RootMoveStats& stats : result.moves)
    target.emplace_back(stats.action, stats.policy_target);
  std::sort(target.begin(), target.end());
  std::vector<std::pair<int, float>> merged;
  for (const auto& [action, probability] : target) {
    if (!merged.empty() && merged.back().first == action) {
      merged.back().second += probability;
    } else {
      merged.emplace_back(action, probability);
    }
  }
  return merged;
}

}  // namespace vz
