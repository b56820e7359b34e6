#pragma once

// The MCTS-solver (Winands, Björnsson and Saito, "Monte-Carlo Tree Search Solver", CG 2008) on the
// flat tree: a node is proven (SearchTree::proven, a Status under best play, with the plies to the
// end in proven_plies) when the rules end the game there, when one child wins for the side to
// move, or when every child is proven (a draw if any is drawn, else a loss). Proofs propagate up
// the path after each terminal leaf; a proven root ends the search, and the move played from a
// proven node is the shortest win, the longest loss or the most visited draw.
//
// Game-ending root children are checked before the first simulation
// (MarkRootChildrenThatEndTheGame) whether the solver is on or not, so that a move that wins at
// once is always played and one that loses at once never is, however many root moves the priors
// spread over. Functions of the tree (engine/search/tree.h); thread-compatible.

#include <algorithm>
#include <cstdint>
#include <limits>

#include "engine/core/game.h"
#include "engine/search/search_root.h"
#include "engine/search/tree.h"
#include "engine/search/wdl.h"

namespace vz {

// The exact WDL of a game result `status` for `side`.
inline Wdl ExactWdl(Status status, Color side) {
  if (status == Status::kDraw) return Wdl{0.0f, 1.0f, 0.0f};
  return status == WinFor(side) ? Wdl{1.0f, 0.0f, 0.0f} : Wdl{0.0f, 0.0f, 1.0f};
}

// A move into `node` loses for `side`: proven by the solver (when `solver`), or (solver or not)
// the rules end the game there at once.
inline bool IsLossFor(const SearchTree& tree, int32_t node, Color side, bool solver) {
  return tree.proven[node] == uint8_t(WinFor(Opponent(side))) &&
         (solver || tree.proven_plies[node] == 0);
}

// Proves `node` and its ancestors while their children allow it: a child won for the side to
// move proves a win; all children proven prove a draw (if any draw) or a loss. Stops at the first
// node already proven or not provable.
inline void PropagateProof(SearchTree& tree, int32_t node) {
  for (int32_t n = node; n != SearchTree::kNone; n = tree.parent[n]) {
    if (tree.proven[n] != uint8_t(Status::kOngoing)) return;
    const int32_t first = tree.first_child[n];
    if (first == SearchTree::kNone) return;
    const Color side = Color(tree.side[n]);
    const uint8_t win = uint8_t(WinFor(side));
    const uint8_t draw = uint8_t(Status::kDraw);
    int win_plies = std::numeric_limits<int>::max();
    int draw_plies = std::numeric_limits<int>::max();
    int loss_plies = 0;
    bool all_proven = true;
    for (int i = 0; i < tree.num_children[n]; ++i) {
      const uint8_t proven = tree.proven[first + i];
      const int plies = tree.proven_plies[first + i];
      if (proven == uint8_t(Status::kOngoing)) {
        all_proven = false;
      } else if (proven == win) {
        win_plies = std::min(win_plies, plies);
      } else if (proven == draw) {
        draw_plies = std::min(draw_plies, plies);
      } else {
        loss_plies = std::max(loss_plies, plies);
      }
    }
    Status result;
    int plies;
    if (win_plies != std::numeric_limits<int>::max()) {
      result = WinFor(side);
      plies = win_plies;
    } else if (!all_proven) {
      return;
    } else if (draw_plies != std::numeric_limits<int>::max()) {
      result = Status::kDraw;
      plies = draw_plies;
    } else {
      result = WinFor(Opponent(side));
      plies = loss_plies;
    }
    tree.proven[n] = uint8_t(result);
    tree.proven_plies[n] = uint16_t(std::min(plies + 1, 65535));
  }
}

// The child of proven `node` that carries its proof: a win the shortest, a loss the longest, a
// draw the most visited (ties: generation order). kNone if no child has the node's result.
inline int32_t ProvenChild(const SearchTree& tree, int32_t node) {
  const int32_t first = tree.first_child[node];
  if (first == SearchTree::kNone) return SearchTree::kNone;
  const uint8_t target = tree.proven[node];
  const uint8_t win = uint8_t(WinFor(Color(tree.side[node])));
  int32_t best = SearchTree::kNone;
  for (int i = 0; i < tree.num_children[node]; ++i) {
    const int32_t child = first + i;
    if (tree.proven[child] != target) continue;
    if (best == SearchTree::kNone) {
      best = child;
      continue;
    }
    const int plies = tree.proven_plies[child], best_plies = tree.proven_plies[best];
    if (target == win                      ? plies < best_plies
        : target == uint8_t(Status::kDraw) ? tree.visits[child] > tree.visits[best]
                                           : plies > best_plies) {
      best = child;
    }
  }
  return best;
}

// Applies every root move once (the root's children must exist) and marks the children whose
// position ends the game (rules, and repetition with `root`'s game history) as proven in 0 plies;
// then proves the root as the solver would (`solver`), or, without the solver, only by a move that
// wins at once. Returns whether a root move wins at once. `replies` is scratch.
template <Game G>
bool MarkRootChildrenThatEndTheGame(SearchTree& tree, const SearchRoot<G>& root, bool solver,
                                    typename G::MoveList& replies) {
  constexpr int32_t kRoot = SearchTree::kRoot;
  const int32_t first = tree.first_child[kRoot];
  const int n = tree.num_children[kRoot];
  const Color side = G::SideToMove(root.position());
  bool wins = false;
  for (int i = 0; i < n; ++i) {
    const int32_t child = first + i;
    if (tree.proven[child] != uint8_t(Status::kOngoing)) {
      wins = wins || (tree.proven[child] == uint8_t(WinFor(side)) && tree.proven_plies[child] == 0);
      continue;
    }
    typename G::Position next = root.position();
    G::ApplyMove(next, tree.move[child]);
    replies.Clear();
    G::GenerateMoves(next, replies);
    Outcome outcome = G::LocalOutcome(next, replies.size);
    if constexpr (G::kHasRepetitionDraw) {
      if (!outcome.IsTerminal() && root.HistoryCount(G::RepetitionKey(next)) + 1 >= 3) {
        outcome = {Status::kDraw, Reason::kRepetition};
      }
    }
    if (!outcome.IsTerminal() && replies.size > 0) continue;
    const Status status = outcome.IsTerminal() ? outcome.status : Status::kDraw;
    tree.side[child] = uint8_t(G::SideToMove(next));
    tree.proven[child] = uint8_t(status);
    tree.proven_plies[child] = 0;
    wins = wins || status == WinFor(side);
  }
  if (solver) {
    PropagateProof(tree, kRoot);
  } else if (wins && tree.proven[kRoot] == uint8_t(Status::kOngoing)) {
    tree.proven[kRoot] = uint8_t(WinFor(side));
    tree.proven_plies[kRoot] = 1;
  }
  return wins;
}

}  // namespace vz
