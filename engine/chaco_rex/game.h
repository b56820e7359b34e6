#pragma once

// Chaco Rex (Arnaldo Rodrigues d'Almeida), hexagonal chess for two players on 85 hexagons.
//
// Rules as implemented (complete; ../shared/rules/chaco-rex.md is the same text in long form):
// - Board: ranks y = 1..9, files x = 0..18 lettered `abcdefghijlmnopqrst` (no `k`); cell (x, y)
//   exists iff x + y is even (odd ranks b d f h j m o q s, even ranks a c e g i l n p r t).
//   Orthogonal steps (+-2, 0) (+-1, +-1); diagonal steps (0, +-2) (+-3, +-1).
// - King: one orthogonal step (6, no diagonal steps). Rook: slides along orthogonal steps.
//   Bishop: slides along diagonal steps, blocked only by pieces on the cells it lands on, never by
//   the two cells beside its line. Queen: rook or bishop. Knight: leaps (+-1, +-3) (+-4, +-2)
//   (+-5, +-1), never blocked. From h5 on an empty board: king 6, rook 24, bishop 14, queen 38,
//   knight 12 cells.
// - Pawn (White; Black mirrored, dy = -1): moves AND captures to its two forward cells (+-1, +1):
//   onto an empty cell, or capturing an enemy piece there. From its first rank (rank 2 White,
//   rank 8 Black) it may instead step (+-2, +2) when the passed cell and the destination are empty
//   (never capturing). Pawns starting on rank 3 / 7 have no double step. En passant: on the very
//   next move only, an enemy pawn whose forward cell is the passed cell may move there and removes
//   the double-stepped pawn (standing on the capturer's rank across the passed cell); moving onto
//   the passed cell always makes this capture. Promotion on the last rank (9 White, 1 Black) to
//   queen, rook, bishop or knight. No castling.
// - No move may leave the mover's king attacked. No legal move: checkmate (loss) if in check,
//   else stalemate (draw); decided before any draw. Draws: stalemate; insufficient material (no
//   pawns, rooks or queens and at most one knight or bishop in all); threefold repetition (same
//   pieces, side and en-passant possibility: the en-passant cell counts only when the capture is
//   legal). No fifty-move rule; the half-move clock is only recorded.
// - Start: `rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR w - 0 1`
//   (White K m1, Q h1, R b1 s1, N d1 q1, B f1 j1 o1; pawns on rank 2 and f3 h3 j3 m3 o3).
//
// Encodings: cell indices in engine/chaco_rex/tables.h; the Move bit layout and the action (policy)
// index in engine/chaco_rex/rules.h; text forms in engine/chaco_rex/notation.h (position string of
// the rules page, protocol moves `h3i4` `a8b9q`, display moves `Cq1-p4` `m5xn6` `a8-b9=D`
// `Dh1-h9++` with R king, D queen, T rook, B bishop, C knight).

#include <string>
#include <string_view>

#include "engine/chaco_rex/notation.h"
#include "engine/chaco_rex/position.h"
#include "engine/chaco_rex/rules.h"
#include "engine/core/game.h"
#include "engine/core/types.h"

namespace vz::chaco_rex {

// The vz::Game interface (engine/core/game.h) for Chaco Rex: static forwarders to the rule core
// (host and device) and to the host-only notation.
struct ChacoRexGame {
  static constexpr const char* kName = "chaco-rex";
  static constexpr int kMaxMoves = chaco_rex::kMaxMoves;

  using Position = chaco_rex::Position;
  using MoveList = vz::MoveList<kMaxMoves>;
  static constexpr int kNumActions = chaco_rex::kNumActions;
  static constexpr bool kHasCheck = true;
  static constexpr bool kHasRepetitionDraw = true;
  static constexpr bool kActionsMayCollide = false;

  // The starting position of the rules page.
  VZ_HD static Position InitialPosition() { return chaco_rex::InitialPosition(); }
  // Every legal move of `p` into `moves` (cleared first), draw rules ignored.
  VZ_HD static void GenerateMoves(const Position& p, MoveList& moves) {
    chaco_rex::GenerateMoves(p, moves);
  }
  // The number of legal moves of `p` (GenerateMoves' list size), without writing them.
  VZ_HD static int CountMoves(const Position& p) { return chaco_rex::CountMoves(p); }
  // Plays legal move `m` (from GenerateMoves of this `p`) on `p`.
  VZ_HD static void ApplyMove(Position& p, Move m) { chaco_rex::ApplyMove(p, m); }
  // Mate/stalemate from the legal-move count, then insufficient material.
  VZ_HD static Outcome LocalOutcome(const Position& p, int num_legal_moves) {
    return chaco_rex::LocalOutcome(p, num_legal_moves);
  }
  VZ_HD static uint64_t Hash(const Position& p) { return p.hash; }
  VZ_HD static uint64_t ComputeHash(const Position& p) { return chaco_rex::ComputeHash(p); }
  VZ_HD static uint64_t RepetitionKey(const Position& p) { return chaco_rex::RepetitionKey(p); }
  // Policy index in [0, kNumActions) of legal move `m` (layout in rules.h).
  VZ_HD static int ActionIndex(const Position& p, Move m) { return chaco_rex::ActionIndex(p, m); }
  VZ_HD static Color SideToMove(const Position& p) { return Color(p.side_to_move); }
  VZ_HD static bool InCheck(const Position& p) { return chaco_rex::InCheck(p); }

  // Text I/O (host only; throws vz::Error on bad text, see notation.h).
  static Position ParsePosition(std::string_view text) { return chaco_rex::ParsePosition(text); }
  static std::string FormatPosition(const Position& p) { return chaco_rex::FormatPosition(p); }
  static Move ParseMove(const Position& p, std::string_view text) {
    return chaco_rex::ParseMove(p, text);
  }
  static std::string FormatMove(const Position& p, Move m) { return chaco_rex::FormatMove(p, m); }
  static std::string FormatDisplayMove(const Position& p, Move m) {
    return chaco_rex::FormatDisplayMove(p, m);
  }
  static std::string BoardPicture(const Position& p) { return chaco_rex::BoardPicture(p); }
  // The position string's move number (optional member, engine/core/game.h).
  static int MoveNumber(const Position& p) { return int(p.fullmove_number); }
};

static_assert(Game<ChacoRexGame>);

}  // namespace vz::chaco_rex
