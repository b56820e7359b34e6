#pragma once

// The piece types of each game, written once: their names and letters, the type that promotes,
// and the count of each in a position. Read by the alpha-beta evaluation's material
// (engine/alphabeta/evaluation.h: its piece values, in this order), the material head's target
// (nets/net_architecture.h NetArchitecture::material_outputs, selfplay/replay_window.h; KataGo's
// auxiliary targets, Wu 2019 section 4.1, made for games of capture: a target that needs no human
// knowledge, only the rules' own pieces) and the strategy studies (research/pieces.h).
//
// PieceTypes<G> provides, per registered game (the kings of the chess-likes are not counted:
// there is always one of each):
//   kNumTypes                  the number of piece types counted (at most kMaxPieceTypes)
//   kNames[kNumTypes]          their names, as the rules pages call them, in ascending order of
//                              the alpha-beta baseline's values (engine/alphabeta/evaluation.h),
//                              so type 0 is the weakest by that measure
//   kLetters[kNumTypes]        White's letter of each type in position strings (FEN; Black's is
//                              lower case). Chess-likes only: draughts numbers its squares (PDN)
//   kEngineTypes[kNumTypes]    the engine's own piece-type code of each (chaco_rex::kPawn, ...;
//                              Chaco Rex and Cuarenta, whose positions keep a bitboard per code)
//   kPromotedFrom              the type that promotes (pawn, man, or Chad's rook, which becomes a
//                              queen inside the enemy castle)
//   Count(p, color, out)       out[k] = color's pieces of type k in p; out holds kNumTypes ints
// PieceCountDifference<G>(p, side, out): out[k] = side's pieces of type k minus the opponent's;
// out holds kNumTypes ints.
// Never throw; stateless, so safe from any thread; host-only by intent (no VZ_HD), allocation-free.

#include "engine/chaco_rex/game.h"
#include "engine/chad/game.h"
#include "engine/core/bits.h"
#include "engine/cuarenta/game.h"
#include "engine/draughts/game.h"

namespace vz {

inline constexpr int kMaxPieceTypes = 6;

template <class G>
struct PieceTypes;

// Portuguese draughts: men and kings (a man crowned on the far row becomes a king).
template <>
struct PieceTypes<draughts::DraughtsGame> {
  static constexpr int kNumTypes = 2;
  static constexpr const char* kNames[kNumTypes] = {"man", "king"};
  static constexpr int kPromotedFrom = 0;
  static void Count(const draughts::Position& p, Color color, int* out) {
    const uint32_t own = color == Color::kWhite ? p.white : p.black;
    out[0] = PopCount(own & ~p.kings);
    out[1] = PopCount(own & p.kings);
  }
};

// Chaco Rex: pawn, knight, bishop, rook, queen.
template <>
struct PieceTypes<chaco_rex::ChacoRexGame> {
  static constexpr int kNumTypes = 5;
  static constexpr const char* kNames[kNumTypes] = {"pawn", "knight", "bishop", "rook", "queen"};
  static constexpr char kLetters[kNumTypes] = {'P', 'N', 'B', 'R', 'Q'};
  static constexpr int kPromotedFrom = 0;
  static constexpr int kEngineTypes[kNumTypes] = {chaco_rex::kPawn, chaco_rex::kKnight,
                                                  chaco_rex::kBishop, chaco_rex::kRook,
                                                  chaco_rex::kQueen};
  static void Count(const chaco_rex::Position& p, Color color, int* out) {
    for (int k = 0; k < kNumTypes; ++k) {
      out[k] = PopCount(p.by_type[kEngineTypes[k]] & p.by_color[int(color)]);
    }
  }
};

// Chad: rooks and queens (a queen is a rook that entered the enemy castle).
template <>
struct PieceTypes<chad::ChadGame> {
  static constexpr int kNumTypes = 2;
  static constexpr const char* kNames[kNumTypes] = {"rook", "queen"};
  static constexpr char kLetters[kNumTypes] = {'R', 'Q'};
  static constexpr int kPromotedFrom = 0;
  static void Count(const chad::Position& p, Color color, int* out) {
    const int queens = (p.pieces[int(color)] & p.queens).Count();
    out[0] = p.pieces[int(color)].Count() - 1 - queens;  // less the king, never captured
    out[1] = queens;
  }
};

// Cuarenta: pawn, guard, frog, camel, vao, bishop (a pawn promotes to a camel in the promotion
// zone, or on the last rank to a camel, frog, guard, vao or bishop).
template <>
struct PieceTypes<cuarenta::CuarentaGame> {
  static constexpr int kNumTypes = 6;
  static constexpr const char* kNames[kNumTypes] = {"pawn",  "guard", "frog",
                                                    "camel", "vao",   "bishop"};
  static constexpr char kLetters[kNumTypes] = {'P', 'G', 'F', 'C', 'V', 'B'};
  static constexpr int kPromotedFrom = 0;
  static constexpr int kEngineTypes[kNumTypes] = {cuarenta::kPawn, cuarenta::kGuard,
                                                  cuarenta::kFrog, cuarenta::kCamel,
                                                  cuarenta::kVao,  cuarenta::kBishop};
  static void Count(const cuarenta::Position& p, Color color, int* out) {
    for (int k = 0; k < kNumTypes; ++k) {
      out[k] = PopCount(p.by_type[kEngineTypes[k]] & p.by_color[int(color)]);
    }
  }
};

template <class G>
void PieceCountDifference(const typename G::Position& p, Color side, int* out) {
  static_assert(PieceTypes<G>::kNumTypes <= kMaxPieceTypes);
  int other[PieceTypes<G>::kNumTypes];
  PieceTypes<G>::Count(p, side, out);
  PieceTypes<G>::Count(p, Opponent(side), other);
  for (int k = 0; k < PieceTypes<G>::kNumTypes; ++k) out[k] -= other[k];
}

}  // namespace vz
