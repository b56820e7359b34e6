#pragma once

// Helpers shared by the search tests: a move's text, search parameters with a node cap, one
// search run to its result, a root move's statistics, a root move evaluated at the node cap, a
// check of the tree's invariants, and a text summary of a search's result (the golden files'
// format).

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>

#include "engine/search/mcts.h"

namespace vz::search_testing {

template <Game G>
std::string MoveText(const typename G::Position& position, Move move) {
  return move == kNullMove ? "none" : G::FormatMove(position, move);
}

// Default parameters with the node cap `max_nodes`.
inline SearchParams NodeCapParams(int64_t max_nodes) {
  SearchParams params;
  params.max_nodes = max_nodes;
  return params;
}

// The result of a fresh search with `params` from `root` (no game history) after `simulations`
// simulations of `evaluator`.
template <Game G>
SearchResult RunSearch(const typename G::Position& root, Evaluator<G>& evaluator, int simulations,
                       const SearchParams& params = {}) {
  Mcts<G> search(params);
  search.SetRoot(root);
  search.Search(evaluator, simulations);
  return search.Result();
}

// The statistics of root move `move` in `result`; a test failure (and empty statistics) when it
// is not a root move.
inline RootMoveStats StatsOf(const SearchResult& result, Move move) {
  for (const RootMoveStats& stats : result.moves) {
    if (stats.move == move) return stats;
  }
  ADD_FAILURE() << "move " << move.raw << " is not a root move";
  return {};
}

// Runs `simulations` of `evaluator` on `search`, which must reach its node cap, then advances the
// search to a root move whose node was evaluated at the cap (visited, no children): the new root
// is a visited node without children. A fatal test failure when there is no such move.
template <Game G>
void AdvanceToALeafAtTheCap(Mcts<G>& search, Evaluator<G>& evaluator, int simulations) {
  search.Search(evaluator, simulations);
  ASSERT_TRUE(search.node_cap_reached());
  const SearchTree& tree = search.tree();
  Move capped = kNullMove;
  for (int i = 0; i < tree.num_children[SearchTree::kRoot] && capped == kNullMove; ++i) {
    const int32_t child = tree.first_child[SearchTree::kRoot] + i;
    if (tree.visits[child] > 0 && tree.first_child[child] == SearchTree::kNone) {
      capped = tree.move[child];
    }
  }
  ASSERT_NE(capped, kNullMove) << "no root move was evaluated at the cap";
  search.Advance(capped);
}

// Checks that every expanded node's visits are its own evaluations (>= 1) plus its children's,
// that its children's priors sum to 1, that in-flight counts are back to zero, and that parent
// links match.
template <Game G>
void ExpectConsistentTree(const Mcts<G>& search, bool exact) {
  const SearchTree& tree = search.tree();
  for (int32_t node = 0; node < tree.size; ++node) {
    EXPECT_EQ(tree.in_flight[node], 0) << "node " << node;
    if (tree.first_child[node] == SearchTree::kNone) continue;
    EXPECT_GT(tree.visits[node], 0) << "node " << node << " has children but no evaluation";
    int64_t children = 0;
    double priors = 0.0;
    for (int i = 0; i < tree.num_children[node]; ++i) {
      const int32_t child = tree.first_child[node] + i;
      EXPECT_EQ(tree.parent[child], node);
      children += tree.visits[child];
      priors += tree.prior[child];
    }
    // Deferred priors are kept as the evaluator gave them until completed (Mcts).
    if (!tree.priors_pending[node]) {
      EXPECT_NEAR(priors, 1.0, 1e-4) << "node " << node;
    }
    if (exact) {
      EXPECT_EQ(tree.visits[node], children + 1) << "node " << node;
    } else {
      EXPECT_GE(tree.visits[node], children + 1) << "node " << node;
    }
  }
}

template <Game G>
std::string Describe(const Mcts<G>& search) {
  const SearchResult result = search.Result();
  std::ostringstream out;
  const auto& position = search.root_position();
  out << G::FormatPosition(position) << " best " << MoveText<G>(position, result.best_move)
      << " sims " << result.simulations << " nodes " << result.nodes << " visits "
      << result.root_visits;
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), " q %.4f", result.root_q);
  out << buffer << " proven " << StatusName(result.proven) << "\n";
  for (const RootMoveStats& stats : result.moves) {
    std::snprintf(buffer, sizeof(buffer), "%.4f %.4f %.4f", stats.prior, stats.q,
                  stats.policy_target);
    out << "  " << G::FormatMove(position, stats.move) << " " << stats.visits << " " << buffer
        << " " << StatusName(stats.proven) << "\n";
  }
  return out.str();
}

}  // namespace vz::search_testing
