#pragma once

// What a search reports: the move chosen below the root, the principal variation, and the
// SearchResult of the root (engine/search/search_result.h) built from the tree. Part of Mcts<G>
// (engine/search/mcts.h), which makes the root's own choice (proof, Gumbel's sequential halving,
// or visits) and hands it in. Every client that shows a line of play (UCI `info ... pv`, the
// analysis engine's moveInfos, `vzero search`) takes it from PrincipalVariation, the one walk.
// Functions of the tree; thread-compatible.

#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "engine/core/game.h"
#include "engine/search/search_params.h"
#include "engine/search/search_result.h"
#include "engine/search/search_root.h"
#include "engine/search/solver.h"
#include "engine/search/tree.h"

namespace vz {

// The most visited child of expanded `node` that is not lost for its side to move (IsLossFor);
// ties: higher Q for that side, then higher prior, then generation order. Lost children are
// taken only when every child is lost.
inline int32_t MostVisitedChild(const SearchTree& tree, int32_t node, bool solver) {
  const int32_t first = tree.first_child[node];
  const Color side = Color(tree.side[node]);
  const float sign = side == Color::kWhite ? 1.0f : -1.0f;
  int32_t best = SearchTree::kNone;
  auto key = [&](int32_t child) {
    const bool lost = IsLossFor(tree, child, side, solver);
    const float q =
        tree.visits[child] > 0 ? sign * tree.value_sum[child] / float(tree.visits[child]) : -2.0f;
    return std::tuple<bool, int32_t, float, float>(!lost, tree.visits[child], q, tree.prior[child]);
  };
  for (int i = 0; i < tree.num_children[node]; ++i) {
    const int32_t child = first + i;
    if (best == SearchTree::kNone || key(child) > key(best)) best = child;
  }
  return best;
}

// The child played from `node` below the root: the child that carries a solver proof (when
// `solver` and the node is proven), else MostVisitedChild. kNone if `node` is unexpanded or
// unvisited.
inline int32_t BestChildBelowRoot(const SearchTree& tree, int32_t node, bool solver) {
  if (tree.first_child[node] == SearchTree::kNone || tree.visits[node] == 0) {
    return SearchTree::kNone;
  }
  if (solver && tree.proven[node] != uint8_t(Status::kOngoing)) {
    const int32_t proven = ProvenChild(tree, node);
    if (proven != SearchTree::kNone) return proven;
  }
  return MostVisitedChild(tree, node, solver);
}

// The principal variation through node `child` (not the root): its move, then BestChildBelowRoot
// at each node while that child was visited or is proven. Moves in playing order from the
// position before `child`.
inline std::vector<Move> PrincipalVariation(const SearchTree& tree, int32_t child, bool solver) {
  std::vector<Move> pv = {tree.move[child]};
  for (int32_t node = child;;) {
    const int32_t next = BestChildBelowRoot(tree, node, solver);
    if (next == SearchTree::kNone) break;
    if (tree.visits[next] == 0 && tree.proven[next] == uint8_t(Status::kOngoing)) break;
    pv.push_back(tree.move[next]);
    node = next;
  }
  return pv;
}

// How the last search ran (SearchResult's counters).
struct SearchProgress {
  int64_t simulations = 0;
  bool node_cap_reached = false;
  bool tree_full = false;
};

// The SearchResult of `tree` rooted at `root`. `root_proven`: the root's proof counts (Mcts's
// rule: by the solver, or by a move that wins at once); `best_child`: the root child the search
// plays (kNone if none); `improved_policy`: [root child] Gumbel's improved policy, the policy
// target (empty without Gumbel: the visit shares are). A finished game at the root (no legal move,
// or an outcome by the rules or repetition) reports its result as proven in 0 plies.
template <Game G>
SearchResult BuildResult(const SearchTree& tree, const SearchRoot<G>& root,
                         const SearchParams& params, bool root_proven, int32_t best_child,
                         std::span<const float> improved_policy, const SearchProgress& progress) {
  constexpr int32_t kRoot = SearchTree::kRoot;
  SearchResult result;
  result.root_outcome = root.outcome();
  result.simulations = progress.simulations;
  result.nodes = tree.size;
  result.node_cap_reached = progress.node_cap_reached;
  result.tree_full = progress.tree_full;
  result.root_visits = tree.visits[kRoot];
  const Color side = G::SideToMove(root.position());
  const float sign = side == Color::kWhite ? 1.0f : -1.0f;
  if (tree.visits[kRoot] > 0) {
    result.root_q = sign * tree.value_sum[kRoot] / float(tree.visits[kRoot]) + 0.0f;
    result.root_wdl =
        Wdl::FromValueAndDraw(result.root_q, tree.draw_sum[kRoot] / float(tree.visits[kRoot]));
  }
  if (root_proven) {
    result.proven = Status(tree.proven[kRoot]);
    result.proven_plies = tree.proven_plies[kRoot];
    result.root_wdl = ExactWdl(result.proven, side);
    result.root_q = result.root_wdl.Value();
  }
  if (root.outcome().IsTerminal() || root.legal_moves().size == 0) {
    // As the search scores a terminal node: no legal move without an outcome is a draw.
    result.proven = root.outcome().IsTerminal() ? root.outcome().status : Status::kDraw;
    result.proven_plies = 0;
    result.root_wdl = ExactWdl(result.proven, side);
    result.root_q = result.root_wdl.Value();
  }
  if (!tree.Expanded(kRoot)) return result;
  const int32_t first = tree.first_child[kRoot];
  const int n = tree.num_children[kRoot];
  int64_t total_visits = 0;
  for (int i = 0; i < n; ++i) total_visits += tree.visits[first + i];
  const Move best_move = best_child == SearchTree::kNone ? kNullMove : tree.move[best_child];
  for (int i = 0; i < n; ++i) {
    const int32_t child = first + i;
    RootMoveStats stats;
    stats.move = tree.move[child];
    stats.action = G::ActionIndex(root.position(), stats.move);
    stats.visits = tree.visits[child];
    stats.prior = tree.prior[child];
    if (stats.visits > 0) {
      stats.q = sign * tree.value_sum[child] / float(stats.visits) + 0.0f;  // no -0
      stats.wdl = Wdl::FromValueAndDraw(stats.q, tree.draw_sum[child] / float(stats.visits));
    }
    stats.proven = Status(tree.proven[child]);
    if (stats.proven != Status::kOngoing) {
      stats.proven_plies = 1 + tree.proven_plies[child];
      stats.wdl = ExactWdl(stats.proven, side);
      stats.q = stats.wdl.Value();
    }
    if (root_proven && result.proven == WinFor(side)) {
      // A proven win: the target is the shortest win, not the visits spent before the proof.
      stats.policy_target = stats.move == best_move ? 1.0f : 0.0f;
    } else if (!improved_policy.empty()) {
      stats.policy_target = improved_policy[size_t(i)];
    } else {
      stats.policy_target =
          total_visits > 0 ? float(double(stats.visits) / double(total_visits)) : stats.prior;
    }
    result.moves.push_back(stats);
  }
  result.best_move = best_move;
  if (best_child != SearchTree::kNone &&
      (tree.visits[best_child] > 0 || tree.proven[best_child] != uint8_t(Status::kOngoing))) {
    result.pv = PrincipalVariation(tree, best_child, params.solver);
  }
  return result;
}

}  // namespace vz
