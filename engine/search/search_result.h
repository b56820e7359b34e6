#pragma once

// What one search reports about its root (game-independent: moves stay opaque vz::Move values;
// the caller formats them with its game).

#include <cstdint>
#include <vector>

#include "engine/core/types.h"
#include "engine/search/evaluator.h"

namespace vz {

struct RootMoveStats {
  Move move{};
  int action = 0;              // the game's ActionIndex of the move at the root
  int32_t visits = 0;          // total visits (tree reuse included)
  float prior = 0.0f;          // search prior (root noise included), sum 1 over the root moves
  float q = 0.0f;              // mean value in [-1, 1], root side to move's view; 0 if unvisited
  Wdl wdl;                     // mean WDL, root side to move's view
  float policy_target = 0.0f;  // visit share (PUCT) or Gumbel's improved policy; sum 1;
                               // all on best_move when the root is a proven win
  Status proven = Status::kOngoing;  // game result after this move under best play, if proven
  int proven_plies = 0;  // plies from the root to the proven end (1 = this move ends it)
};

struct SearchResult {
  Outcome root_outcome;              // terminal root: no moves, no best move
  std::vector<RootMoveStats> moves;  // [root move] in generation order; empty if unexpanded
  Move best_move = kNullMove;        // the move the search plays at temperature 0
  std::vector<Move> pv;              // principal variation from the root, best_move first
  int32_t root_visits = 0;
  float root_q = 0.0f;  // root side to move's view
  Wdl root_wdl;
  Status proven = Status::kOngoing;  // root result under best play, if proven; a finished game
                                     // at the root: its result, in 0 plies (root_wdl exact too)
  int proven_plies = 0;
  int64_t simulations = 0;        // simulations of the last search (root evaluation excluded)
  int64_t nodes = 0;              // nodes in the tree
  bool node_cap_reached = false;  // the last search hit SearchParams::max_nodes
  bool tree_full = false;  // the last search ended early: a leaf already evaluated could not be
                           // expanded at the node cap (engine/search/mcts.h)
};

}  // namespace vz
