#pragma once

// Hand-written evaluation of the four games for the alpha-beta baseline (engine/alphabeta/
// alphabeta.h): material plus mobility, in centipawns (a pawn or a draughts man = 100), and the
// move classes quiescence search needs. A measuring rod, not a strong engine: the piece values
// are round numbers from each game's character, stated here so that results can be reproduced.
//
// Piece values and terms per game (kPieceValues, in engine/piece_types.h's order of the game's
// piece types; Material is White minus Black; Evaluate adds mobility, the legal-move count of the
// side to move minus the opponent's, times kMobilityWeight):
// - Portuguese draughts: man 100, king 300 (a flying king controls whole diagonals); tempo: each
//   man gets 4 per row advanced from its own back rank (men must advance to crown). Mobility
//   weight 2. Captures are compulsory, so quiescence never stands pat while a capture exists.
// - Chaco Rex: pawn 100, knight 300, bishop 300, rook 500, queen 900 (Glinski-style hexagonal
//   chess values). Mobility weight 2. Noisy moves: captures (en passant included), promotions.
// - Chad: rook 500, queen 900; a queen is a rook that entered the enemy castle and is the
//   only piece that can threaten mate from inside it. Mobility weight 3 (few piece types, so
//   activity decides most positions). Noisy moves: captures, promotions.
// - Cuarenta: pawn 100, guard 250, frog 250, camel 300, vao 300, bishop 350 (the long-range
//   pieces are worth most on the 40-square board). Mobility weight 2. Noisy moves: captures,
//   promotions to bishop.
//
// Everything here is host and device free of allocation but host-only by intent (no VZ_HD).

#include <cstdint>

#include "engine/chaco_rex/game.h"
#include "engine/chad/game.h"
#include "engine/core/bits.h"
#include "engine/cuarenta/game.h"
#include "engine/draughts/game.h"
#include "engine/piece_types.h"

namespace vz {

// Per-game evaluation traits; specialised for each registered game below. Members:
//   kPieceValues[PieceTypes<G>::kNumTypes]  centipawns per piece of each type
//   kMobilityWeight            centipawns per legal move of difference
//   kCapturesForced            captures are compulsory (no stand-pat while one exists)
//   Material(p)                material and static terms, White minus Black, centipawns
//   IsNoisy(p, m)              m (legal in p) is searched by quiescence
//   WithSideToMove(p, color)   copy of p with `color` to move (for the opponent's mobility; the
//                              copy is only used for move counting, never played on)
template <class G>
struct EvalTraits;

// Sum over G's piece types of values[k] times White's pieces of type k less Black's.
template <class G>
int WeightedPieceCountDifference(const typename G::Position& p,
                                 const int (&values)[PieceTypes<G>::kNumTypes]) {
  int difference[PieceTypes<G>::kNumTypes];
  PieceCountDifference<G>(p, Color::kWhite, difference);
  int score = 0;
  for (int k = 0; k < PieceTypes<G>::kNumTypes; ++k) score += values[k] * difference[k];
  return score;
}

template <>
struct EvalTraits<draughts::DraughtsGame> {
  using Position = draughts::Position;
  static constexpr int kMobilityWeight = 2;
  static constexpr bool kCapturesForced = true;
  // man, king
  static constexpr int kPieceValues[2] = {100, 300};
  static constexpr int kTempoPerRow = 4;

  // The pieces' values plus the men's tempo.
  static int Material(const Position& p) {
    int score = WeightedPieceCountDifference<draughts::DraughtsGame>(p, kPieceValues);
    for (int color = 0; color < 2; ++color) {
      const uint32_t men = (color == 0 ? p.white : p.black) & ~p.kings;
      int tempo = 0;
      for (uint32_t m = men; m != 0; m &= m - 1) {
        const int row = draughts::RowOf(__builtin_ctz(m));
        tempo += kTempoPerRow * (color == 0 ? row : 7 - row);
      }
      score += color == 0 ? tempo : -tempo;
    }
    return score;
  }
  static bool IsNoisy(const Position&, Move m) { return draughts::IsCapture(m); }
  static Position WithSideToMove(Position p, Color color) {
    p.side_to_move = color;
    return p;
  }
};

template <>
struct EvalTraits<chaco_rex::ChacoRexGame> {
  using Position = chaco_rex::Position;
  static constexpr int kMobilityWeight = 2;
  static constexpr bool kCapturesForced = false;
  // pawn, knight, bishop, rook, queen
  static constexpr int kPieceValues[5] = {100, 300, 300, 500, 900};

  static int Material(const Position& p) {
    return WeightedPieceCountDifference<chaco_rex::ChacoRexGame>(p, kPieceValues);
  }
  static bool IsNoisy(const Position& p, Move m) {
    return p.board[chaco_rex::MoveTo(m)] != 0 || chaco_rex::IsEnPassant(m) ||
           chaco_rex::MovePromotion(m) == chaco_rex::kQueen;
  }
  static Position WithSideToMove(Position p, Color color) {
    p.side_to_move = uint8_t(color);
    p.en_passant_cell = -1;
    return p;
  }
};

template <>
struct EvalTraits<chad::ChadGame> {
  using Position = chad::Position;
  static constexpr int kMobilityWeight = 3;
  static constexpr bool kCapturesForced = false;
  // rook, queen
  static constexpr int kPieceValues[2] = {500, 900};

  static int Material(const Position& p) {
    return WeightedPieceCountDifference<chad::ChadGame>(p, kPieceValues);
  }
  static bool IsNoisy(const Position&, Move m) {
    return chad::IsCapture(m) || chad::IsPromotion(m);
  }
  static Position WithSideToMove(Position p, Color color) {
    p.side = color;
    return p;
  }
};

template <>
struct EvalTraits<cuarenta::CuarentaGame> {
  using Position = cuarenta::Position;
  static constexpr int kMobilityWeight = 2;
  static constexpr bool kCapturesForced = false;
  // pawn, guard, frog, camel, vao, bishop
  static constexpr int kPieceValues[6] = {100, 250, 250, 300, 300, 350};

  static int Material(const Position& p) {
    return WeightedPieceCountDifference<cuarenta::CuarentaGame>(p, kPieceValues);
  }
  static bool IsNoisy(const Position& p, Move m) {
    if (cuarenta::MoveIsCastling(m)) return false;
    return p.board[cuarenta::MoveTo(m)] != 0 || cuarenta::MovePromotion(m) == cuarenta::kBishop;
  }
  static Position WithSideToMove(Position p, Color color) {
    p.side_to_move = uint8_t(color);
    return p;
  }
};

// Material of `p` from White's view (centipawns): the adjudication measure of over-long games.
template <class G>
int MaterialBalance(const typename G::Position& p) {
  return EvalTraits<G>::Material(p);
}

// The material adjudication of an over-long game at `p`: a win for the side ahead by at least
// `margin` centipawns (MaterialBalance), a draw otherwise.
template <class G>
Status MaterialAdjudication(const typename G::Position& p, int margin) {
  const int material = MaterialBalance<G>(p);
  return material >= margin    ? Status::kWhiteWins
         : material <= -margin ? Status::kBlackWins
                               : Status::kDraw;
}

}  // namespace vz
