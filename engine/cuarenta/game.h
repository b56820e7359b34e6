#pragma once

// Cuarenta (J. Mark Thompson, 2000) for vzero.
//
// Rules (as implemented; "engine choice" marks readings where the sources are silent):
// - Board: the 40 light squares of a 9x9 board (files a-i, ranks 1-9; a square exists when
//   file + rank is odd, a=1). Orthogonally adjacent = two real squares apart on a file or rank
//   ((0,+-2), (+-2,0)); diagonally adjacent = touching corners ((+-1,+-1)). Forward is towards
//   rank 9 for White. Index mapping and tables: engine/cuarenta/tables.h.
// - Start: White K e2, B b1, V a2 i2, C h1, F d1 f1, G c2 g2, P b3 d3 f3 h3; Black the same turned
//   half a turn (K e8, B h9, V a8 i8, C b9, F d9 f9, G c8 g8, P b7 d7 f7 h7). White moves first.
// - Every piece captures by moving onto an enemy piece unless said otherwise.
//   King: one diagonal step (move or capture); one straight step (0,+-2) forward or backward onto
//   an empty square, never capturing, never sideways. Bishop: diagonal slider. Vao: moves like a
//   bishop onto empty squares only; captures by jumping exactly one screen (any piece, either
//   colour) on a diagonal at any distance, taking the first piece beyond it if that is an enemy.
//   Guard: first or second diagonal square, leaping the first. Camel: leaps (+-1,+-3), (+-3,+-1).
//   Frog: one orthogonal step (move or capture); or, in any of the 8 directions, when the adjacent
//   square holds a friendly piece, jumps the whole unbroken row of friendly pieces and lands on the
//   first square after it if empty or enemy (capturing); no jump if the row reaches the edge; never
//   over enemy pieces. Pawn: one step (-1,+1), (0,+2) or (+1,+1) forward, move or capture, but
//   never captures a pawn; no double step, no en passant.
// - Castling: king and its starting camel exchange squares (e2<->h1 White, e8<->b9 Black) if
//   neither has moved (any move from or to either start square removes the right forever), for
//   White only once Black can no longer castle, and (engine choice) not while in check nor into
//   check.
// - Promotion, optional and deferrable: zone = last three ranks. A pawn in the zone may become a
//   camel; on the last rank a camel, frog, guard, vao or bishop. (a) with a pawn move ending in the
//   zone (the non-promoting move is a separate move), or (b) (engine choice) in place as a whole
//   turn for a pawn already in the zone.
// - Check as in chess (a vao through a screen, a frog by a jump, a pawn straight ahead all give
//   check); no move may leave the own king in check. Checkmate wins; stalemate draws (engine
//   choice). Decided first, then: bare kings draw (engine choice); forty-move rule: draw when 80
//   plies in a row without capture or promotion (pawn moves do not reset it, promotion in place
//   does) are reached at the start of a turn. No repetition rule.
//
// Move bit layout and action (policy) encoding: engine/cuarenta/rules.h (from * 72 + plane,
// kNumActions = 2880, side-to-move frame). Text forms: engine/cuarenta/notation.h.

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/core/game.h"
#include "engine/core/types.h"
#include "engine/cuarenta/notation.h"
#include "engine/cuarenta/rules.h"

namespace vz::cuarenta {

// The vz::Game interface for Cuarenta; every function forwards to the rule core (rules.h) or the
// text I/O (notation.h), whose comments give the contracts.
struct CuarentaGame {
  using Position = cuarenta::Position;
  static constexpr int kMaxMoves = cuarenta::kMaxMoves;
  using MoveList = vz::MoveList<kMaxMoves>;

  static constexpr std::string_view kName = "cuarenta";
  static constexpr int kNumActions = cuarenta::kNumActions;
  static constexpr bool kHasCheck = true;
  static constexpr bool kHasRepetitionDraw = false;
  static constexpr bool kActionsMayCollide = false;

  VZ_HD static Position InitialPosition() { return cuarenta::InitialPosition(); }
  VZ_HD static void GenerateMoves(const Position& p, MoveList& moves) {
    cuarenta::GenerateMoves(p, moves);
  }
  // The number of legal moves of `p` (GenerateMoves' list size), without writing them.
  VZ_HD static int CountMoves(const Position& p) { return cuarenta::CountMoves(p); }
  VZ_HD static void ApplyMove(Position& p, Move move) { cuarenta::ApplyMove(p, move); }
  VZ_HD static Outcome LocalOutcome(const Position& p, int num_legal_moves) {
    return cuarenta::LocalOutcome(p, num_legal_moves);
  }
  VZ_HD static uint64_t Hash(const Position& p) { return p.hash; }
  VZ_HD static uint64_t ComputeHash(const Position& p) { return cuarenta::ComputeHash(p); }
  // No repetition rule; the key is still the position hash (pieces, side, castling rights).
  VZ_HD static uint64_t RepetitionKey(const Position& p) { return p.hash; }
  VZ_HD static int ActionIndex(const Position& p, Move move) {
    return cuarenta::ActionIndex(p, move);
  }
  VZ_HD static Color SideToMove(const Position& p) { return Color(p.side_to_move); }
  VZ_HD static bool InCheck(const Position& p) { return cuarenta::InCheck(p); }

  static Position ParsePosition(std::string_view text) { return cuarenta::ParsePosition(text); }
  static std::string FormatPosition(const Position& p) { return cuarenta::FormatPosition(p); }
  static Move ParseMove(const Position& p, std::string_view text) {
    return cuarenta::ParseMove(p, text);
  }
  static std::string FormatMove(const Position& p, Move move) {
    return cuarenta::FormatMove(p, move);
  }
  static std::string FormatDisplayMove(const Position& p, Move move) {
    return cuarenta::FormatDisplayMove(p, move);
  }
  static std::string BoardPicture(const Position& p) { return cuarenta::BoardPicture(p); }
  // The position string's move number (optional member, engine/core/game.h).
  static int MoveNumber(const Position& p) { return int(p.move_number); }
};

static_assert(Game<CuarentaGame>);

}  // namespace vz::cuarenta
