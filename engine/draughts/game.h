#pragma once

// Portuguese draughts (Damas clássicas), registry name "portuguese-draughts".
//
// Rules as implemented:
// - 8x8 board, each player's lower-left corner light; only the 32 dark squares are used, numbered
//   1-32 from White's lower-right corner, right to left, rank by rank (engine/draughts/tables.h
//   draws the map). White's 12 men start on 1-12, Black's on 21-32; White moves first.
// - A man steps one square diagonally forwards onto an empty square. A king (flying) moves any
//   number of empty squares along a diagonal, forwards or backwards.
// - Capturing is compulsory. A man captures forwards only, jumping an adjacent enemy piece onto
//   the empty square behind. A king captures along a diagonal across empty squares, jumps one
//   enemy piece and lands on any empty square behind it before the next occupied square.
//   After a jump the same piece must keep capturing while it can; a king may change diagonal.
//   The capturing piece's start square counts as empty during its own capture.
// - Turkish strike: jumped pieces are removed only when the move ends; a piece is never jumped
//   twice, and a jumped piece blocks (cannot be jumped again or passed over). Empty squares may be
//   visited more than once.
// - Choice of capture: the most pieces (quantity), then among those the most kings (quality),
//   then free choice. A move is the triple (start, final square, set of captured pieces): capture
//   sequences with the same triple are one move.
// - A man that ends its move on the far rank (29-32 for White, 1-4 for Black) becomes a king.
//   Men capture only forwards, so a man reaching the far rank during a capture stops there.
// - The side to move with no legal move loses (decided before any draw). Draws: 40 plies in a row
//   without a man move or a capture (twenty-move rule); three kings (no men) against one king
//   not won within 12 moves of the stronger side, counted from the first position with that
//   material however it arose (engine choice), the 12th move may still win; threefold repetition
//   of pieces and side to move (host-side, vz::GameState). Perft ignores the draw rules.
//
// Move bit layout (vz::Move::raw; helpers in engine/draughts/rules.h), square = bit index 0-31
// (square number - 1): bits 0-4 from, bits 5-9 to (equal to from when a king's capture ends on its
// start square), bits 10-41 mask of captured pieces (0 for a plain move), bit 42 promotion, the
// rest zero. Landing squares are not stored: a move is (from, to, captured set).
//
// Action (policy) index: from * 32 + to with bit indices (square number - 1), kNumActions = 1024,
// in the side to move's frame: for Black the board is turned half a turn (bit s -> 31 - s), which
// gives 1023 - (from * 32 + to), so that both colours' moves share the network's policy outputs.
// Plain moves and captures never coexist in one position, and plain moves have distinct (from,
// to); only captures with the same start and final squares that take different pieces share an
// index (kActionsMayCollide): they stay separate moves and the search gives them the same prior.
//
// Notation: engine/draughts/notation.h. FormatDisplayMove returns the protocol form (the PDN
// notation `11-15`, `15x22`, `6x15x24` is already what players write).

#include <string>
#include <string_view>

#include "engine/core/game.h"
#include "engine/core/types.h"
#include "engine/draughts/notation.h"
#include "engine/draughts/rules.h"

namespace vz::draughts {

struct DraughtsGame {
  using Position = draughts::Position;
  using MoveList = DraughtsMoveList;

  static constexpr std::string_view kName = "portuguese-draughts";
  static constexpr int kMaxMoves = draughts::kMaxMoves;
  static constexpr int kNumActions = kNumSquares * kNumSquares;
  static constexpr bool kHasCheck = false;
  static constexpr bool kHasRepetitionDraw = true;
  static constexpr bool kActionsMayCollide = true;

  // The start position.
  VZ_HD static Position InitialPosition() { return draughts::InitialPosition(); }
  // Every legal move of `p` into `moves` (cleared first).
  VZ_HD static void GenerateMoves(const Position& p, MoveList& moves) {
    draughts::GenerateMoves(p, moves);
  }
  // The number of legal moves of `p` (GenerateMoves' list size), without writing them.
  VZ_HD VZ_FORCE_INLINE static int CountMoves(const Position& p) { return draughts::CountMoves(p); }
  // Plays legal move `move` on `p`.
  VZ_HD VZ_FORCE_INLINE static void ApplyMove(Position& p, Move move) {
    draughts::ApplyMove(p, move);
  }
  // Outcome decided by `p` alone given its number of legal moves (no repetition).
  VZ_HD static Outcome LocalOutcome(const Position& p, int num_legal_moves) {
    return draughts::LocalOutcome(p, num_legal_moves);
  }
  // Incremental Zobrist hash of pieces and side to move (counters excluded).
  VZ_HD static uint64_t Hash(const Position& p) { return p.hash; }
  // The same hash computed from scratch.
  VZ_HD static uint64_t ComputeHash(const Position& p) { return draughts::ComputeHash(p); }
  // Repetition compares pieces and side to move only: the hash.
  VZ_HD static uint64_t RepetitionKey(const Position& p) { return p.hash; }
  // from * 32 + to in the side to move's frame, in [0, 1024).
  VZ_HD static int ActionIndex(const Position& p, Move move) {
    return draughts::ActionIndex(p, move);
  }
  VZ_HD static Color SideToMove(const Position& p) { return p.side_to_move; }
  // Draughts has no check.
  VZ_HD static bool InCheck(const Position&) { return false; }

  static Position ParsePosition(std::string_view text) { return draughts::ParsePosition(text); }
  static std::string FormatPosition(const Position& p) { return draughts::FormatPosition(p); }
  static Move ParseMove(const Position& p, std::string_view text) {
    return draughts::ParseMove(p, text);
  }
  static std::string FormatMove(const Position& p, Move move) {
    return draughts::FormatMove(p, move);
  }
  static std::string FormatDisplayMove(const Position& p, Move move) {
    return draughts::FormatMove(p, move);
  }
  static std::string BoardPicture(const Position& p) { return draughts::BoardPicture(p); }
};

static_assert(Game<DraughtsGame>);

}  // namespace vz::draughts
