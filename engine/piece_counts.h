#pragma once

// Piece counts by piece type: the auxiliary training target of a net with a material head
// (nets/net_architecture.h NetArchitecture::material_outputs; KataGo's auxiliary targets, Wu
// 2019 section 3.4, made for games of capture: a target that needs no human knowledge, only the
// rules' own pieces). The target of a training position is PieceCounts<G>::Difference of the
// game's final position from that position's side to move (selfplay/replay_window.h).
//
// PieceCounts<G> provides, per registered game:
//   kTypes                     the piece types counted (the kings of the chess-likes are not:
//                              there is always one of each)
//   kNames[kTypes]             their names, as the rules pages call them
//   Difference(p, side, out)   out[k] = side's pieces of type k minus the opponent's, in p,
//                              k in [0, kTypes); never throws
// Host-only by intent (no VZ_HD), allocation-free.

#include "engine/chaco_rex/game.h"
#include "engine/chad/game.h"
#include "engine/core/bits.h"
#include "engine/cuarenta/game.h"
#include "engine/draughts/game.h"

namespace vz {

template <class G>
struct PieceCounts;

// Portuguese draughts: men and kings.
template <>
struct PieceCounts<draughts::DraughtsGame> {
  static constexpr int kTypes = 2;
  static constexpr const char* kNames[kTypes] = {"man", "king"};
  static void Difference(const draughts::Position& p, Color side, int* out) {
    const uint32_t own = side == Color::kWhite ? p.white : p.black;
    const uint32_t other = side == Color::kWhite ? p.black : p.white;
    out[0] = PopCount(own & ~p.kings) - PopCount(other & ~p.kings);
    out[1] = PopCount(own & p.kings) - PopCount(other & p.kings);
  }
};

// Chaco Rex: pawn, knight, bishop, rook, queen.
template <>
struct PieceCounts<chaco_rex::ChacoRexGame> {
  static constexpr int kTypes = 5;
  static constexpr const char* kNames[kTypes] = {"pawn", "knight", "bishop", "rook", "queen"};
  static void Difference(const chaco_rex::Position& p, Color side, int* out) {
    const int us = int(side), them = 1 - us;
    for (int type = chaco_rex::kPawn; type <= chaco_rex::kQueen; ++type) {
      out[type - chaco_rex::kPawn] =
          PopCount(p.by_type[type] & p.by_color[us]) - PopCount(p.by_type[type] & p.by_color[them]);
    }
  }
};

// Chad: rooks and queens (a queen is a rook that entered the enemy castle).
template <>
struct PieceCounts<chad::ChadGame> {
  static constexpr int kTypes = 2;
  static constexpr const char* kNames[kTypes] = {"rook", "queen"};
  static void Difference(const chad::Position& p, Color side, int* out) {
    int rooks[2], queens[2];
    for (int color = 0; color < 2; ++color) {
      queens[color] = (p.pieces[color] & p.queens).Count();
      rooks[color] = p.pieces[color].Count() - 1 - queens[color];  // less the king
    }
    const int us = int(side), them = 1 - us;
    out[0] = rooks[us] - rooks[them];
    out[1] = queens[us] - queens[them];
  }
};

// Cuarenta: bishop, vao, guard, camel, frog, pawn.
template <>
struct PieceCounts<cuarenta::CuarentaGame> {
  static constexpr int kTypes = 6;
  static constexpr const char* kNames[kTypes] = {"bishop", "vao", "guard", "camel", "frog", "pawn"};
  static void Difference(const cuarenta::Position& p, Color side, int* out) {
    const int us = int(side), them = 1 - us;
    for (int type = cuarenta::kBishop; type <= cuarenta::kPawn; ++type) {
      out[type - cuarenta::kBishop] =
          PopCount(p.by_type[type] & p.by_color[us]) - PopCount(p.by_type[type] & p.by_color[them]);
    }
  }
};

}  // namespace vz
