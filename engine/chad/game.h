#pragma once

// Chad (Christian Freeling, 1979) for vzero.
//
// Rules as implemented (complete; the engine does not depend on any other text):
// - Board 12x12, files a..l, ranks 1..12, White at rank 1. White's castle is the 3x3 square
//   c3-e5, its wall the 12 squares edge-adjacent to it (c2 d2 e2, b3 b4 b5, f3 f4 f5, c6 d6 e6).
//   Black's castle is h8-j10, its wall h7 i7 j7, g8 g9 g10, k8 k9 k10, h11 i11 j11 (the half-turn
//   image of White's). Castles and walls never block movement or lines.
// - Start: each side fills its castle, king in the centre (d4, i9), a rook on the other eight
//   squares. White moves first.
// - King: one step in any of the 8 directions or a knight leap, only to squares of its own castle
//   (it never leaves it). It captures any enemy piece on a castle square it can move to; it can
//   never capture on a wall.
// - Rook: like a chess rook; queen: like a chess queen; both blocked by pieces of either colour.
//   A rook whose move ends on a square of the enemy castle becomes a queen at once, capture or
//   not; no choice.
// - Captures by a rook or queen X of an enemy rook or queen Y that X sees along a clear line of
//   its own movement, only when (a) X stands on the enemy's wall and Y inside the enemy's castle,
//   or (b) X stands inside its own castle and Y on its own wall. Otherwise pieces just block each
//   other (so an enemy queen inside your castle can only be taken by your king). Kings are never
//   captured.
// - Check: an enemy rook or queen has a clear line to the king along its own lines of movement,
//   whether or not it could capture there; walls do not block, pieces do. No move may leave the
//   mover's king in check. In check with no legal move: checkmate, the mover loses.
// - Draws (engine choice): stalemate; the third occurrence of a position with the same side to
//   move (host side, vz::GameState); only the two kings left. Mate and stalemate come first.
//   No move-count rule.
//
// Notation: squares `d4`, `l12`; protocol moves `c5c11` (optional trailing `q` only on a
// promoting move; printed without it); display moves `Rc5-c11`, `Rg9xh9=Q`, `Kd4xc5`,
// `Qh10-h12#`; position strings like the start
// `12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w 0 1` (ranks 12..1, digits count empty
// squares, then side, half-moves since the last capture or promotion, move number).
//
// Move bit layout and the action (policy index) encoding: engine/chad/rules.h, top of file
// (from * 96 + slide/leap kind, in the side-to-move frame; kNumActions = 13824).
// Board layout (192-bit bitboards, square = 12 * rank + file): engine/chad/tables.h.

#include <string>
#include <string_view>

#include "engine/chad/notation.h"
#include "engine/chad/rules.h"
#include "engine/core/game.h"
#include "engine/core/types.h"

namespace vz::chad {

// The vz::Game interface of Chad (see engine/core/game.h for the contract of each member).
struct ChadGame {
  using Position = chad::Position;
  static constexpr int kMaxMoves = chad::kMaxMoves;
  using MoveList = vz::MoveList<kMaxMoves>;
  static constexpr std::string_view kName = "chad";
  static constexpr int kNumActions = chad::kNumActions;
  static constexpr bool kHasCheck = true;
  static constexpr bool kHasRepetitionDraw = true;
  static constexpr bool kActionsMayCollide = false;

  // Rule core (host and device).
  VZ_HD static Position InitialPosition() { return chad::InitialPosition(); }
  // Every legal move of `p` into `list` (cleared first).
  VZ_HD static void GenerateMoves(const Position& p, MoveList& list) {
    list.Clear();
    chad::GenerateMoves(p, list);
  }
  // The number of legal moves of `p` (GenerateMoves' list size), without writing them.
  VZ_HD static int CountMoves(const Position& p) { return chad::CountMoves(p); }
  // Plays legal move `m` (a move GenerateMoves produced for `p`).
  VZ_HD static void ApplyMove(Position& p, Move m) { chad::ApplyMove(p, m); }
  VZ_HD static Outcome LocalOutcome(const Position& p, int num_legal_moves) {
    return chad::LocalOutcome(p, num_legal_moves);
  }
  VZ_HD static uint64_t Hash(const Position& p) { return p.hash; }
  VZ_HD static uint64_t ComputeHash(const Position& p) { return chad::ComputeHash(p); }
  // Pieces and side to move; the counters do not take part in repetition.
  VZ_HD static uint64_t RepetitionKey(const Position& p) { return p.hash; }
  VZ_HD static int ActionIndex(const Position& p, Move m) { return chad::ActionIndex(p, m); }
  VZ_HD static Color SideToMove(const Position& p) { return p.side; }
  VZ_HD static bool InCheck(const Position& p) { return chad::InCheck(p); }

  // Host-only text I/O (engine/chad/notation.h); all throw vz::Error on bad text.
  static Position ParsePosition(std::string_view text) { return chad::ParsePosition(text); }
  static std::string FormatPosition(const Position& p) { return chad::FormatPosition(p); }
  static Move ParseMove(const Position& p, std::string_view text) {
    return chad::ParseMove(p, text);
  }
  static std::string FormatMove(const Position& p, Move m) { return chad::FormatMove(p, m); }
  static std::string FormatDisplayMove(const Position& p, Move m) {
    return chad::FormatDisplayMove(p, m);
  }
  static std::string BoardPicture(const Position& p) { return chad::BoardPicture(p); }
  // The position string's move number (optional member, engine/core/game.h).
  static int MoveNumber(const Position& p) { return int(p.move_number); }
};

static_assert(Game<ChadGame>);

}  // namespace vz::chad
