#pragma once

// Three diagnostics of what a net knows about material and tactics (`vzero net diagnose`; issue
// 28), on positions of games the net plays itself:
//   1. piece removal: how much the net's value (W - L of the side to move, in [-1, 1]) drops when
//      one of the side to move's pieces of each kind is taken off the board (the piece chosen at
//      random among its kind). A net that counts material ranks the kinds and gives a queen a
//      clear share of the value range.
//   2. agreement with search: the Pearson and Spearman correlations of the net's value with the
//      alpha-beta baseline's score (engine/alphabeta/), turned into an expected score in [-1, 1]
//      by the logistic curve of chess ratings, 2 / (1 + 10^(-cp / 400)) - 1.
//   3. material-losing moves: the share of the net's first-choice moves (the highest prior) that
//      alphabeta:`judge_depth` judges at least `blunder_margin` centipawns worse than its own best
//      move, each move scored by a judge_depth - 1 ply search (and quiescence) of the position
//      after it; the best of those scores is alpha-beta's score of the position (2.).
// The positions: games of the net's policy against itself, each opened by `opening_plies` uniformly
// random plies, then the highest prior every ply; a position every `sample_every` plies after the
// opening until the game ends or `max_plies` (a position with a single legal move is skipped).
// Deterministic for a net, a config and the CPU.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/alphabeta/alphabeta.h"
#include "engine/core/game_state.h"
#include "engine/search/evaluator.h"
#include "research/statistics.h"

namespace vz::research {

struct NetDiagnosticsConfig {
  int positions = 300;       // positions analysed (>= 2)
  int opening_plies = 6;     // uniformly random plies opening each game
  int sample_every = 3;      // a position every this many plies after the opening (>= 1)
  int max_plies = 200;       // a game is left after this many plies
  int judge_depth = 2;       // the judge is alphabeta:judge_depth (2..5)
  int blunder_margin = 100;  // centipawns below alpha-beta's best that make a move material-losing
  uint64_t seed = 1;
};

// The value drop of removing one piece of a kind.
struct PieceRemoval {
  std::string piece;      // the game's name of the kind (research/pieces.h)
  int baseline_cp = 0;    // the alpha-beta baseline's value of the kind
  int64_t positions = 0;  // positions where the side to move had such a piece
  Interval drop;          // mean value(before) - value(after), W - L units, 95% interval
};

struct NetDiagnostics {
  std::string game;
  int64_t positions = 0;
  std::vector<PieceRemoval> removal;  // one per piece kind of research/pieces.h, in its order
  Interval pearson;                   // net value against alpha-beta's expected score (Fisher z)
  double spearman = 0.0;
  int64_t judged_moves = 0;  // = positions
  int64_t losing_moves = 0;  // first-choice moves at least blunder_margin below alpha-beta's best
  Interval losing_share;     // losing_moves / judged_moves, Wilson 95% interval
};

// The diagnostics of the net behind `evaluator` (any Evaluator<G>: the net's, or a stand-in in
// tests) for game G. Throws vz::Error naming the field when a config value is out of range
// (positions < 2, sample_every < 1, judge_depth outside 2..5, opening_plies < 0, max_plies < 1,
// blunder_margin < 0), and the evaluator's errors.
template <Game G>
NetDiagnostics DiagnoseNet(Evaluator<G>& evaluator, const NetDiagnosticsConfig& config);

// DiagnoseNet for the game of net file `net_file`, its net on the CPU in fp32. Throws vz::Error
// naming the file when it cannot be read or fits no game of this build, and DiagnoseNet's errors.
NetDiagnostics DiagnoseNetFile(const std::string& net_file, const NetDiagnosticsConfig& config);

// The diagnostics as Markdown: a table of the piece removals, then the correlations and the share
// of material-losing moves with their intervals, preceded by `title`.
std::string FormatNetDiagnostics(const NetDiagnostics& diagnostics, const std::string& title,
                                 const NetDiagnosticsConfig& config);

// The position string of `fen` without one piece: the `index`-th (0-based, in the string's order)
// of `color`'s (0 White, 1 Black) pieces of kind `kind` of research/pieces.h, written in the
// board field of the chess-like games' strings (letters, digits counting empty cells, '/' between
// rows) or in the piece lists of draughts' (W:W...:B..., 'K' before a king's square). Returns ""
// when there is no such piece. The result is not checked: the caller parses it.
template <Game G>
std::string WithoutPiece(const std::string& fen, int color, int kind, int index);

// Alpha-beta's score of `move` in `p`, in centipawns from the mover's view: minus a `depth`-ply
// search (with quiescence) of the position after it, or the result of a game the move ends
// (+-kMateScore, 0 for a draw). `search` keeps its transposition table between calls.
template <Game G>
int JudgeMove(AlphaBeta<G>& search, const typename G::Position& p, Move move, int depth) {
  typename G::Position child = p;
  G::ApplyMove(child, move);
  const GameState<G> state(child);
  const Outcome outcome = state.outcome();
  if (outcome.IsTerminal()) {
    if (outcome.status == Status::kDraw) return 0;
    return outcome.status == WinFor(G::SideToMove(p)) ? kMateScore : -kMateScore;
  }
  return -search.Search(state, depth).score;
}

}  // namespace vz::research
