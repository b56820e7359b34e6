#pragma once

// The piece kinds a strategy study counts in each game (research/study.h): their names, the
// alpha-beta baseline's values of them (engine/alphabeta/evaluation.h, read from there), and the
// count of each kind per colour in a position. Kings of the chess-like games are left out (never
// captured); draughts counts men and kings. Kind 0 is always the game's weakest piece (the unit
// piece values are scaled to), and `kPromotedFrom` the kind that promotes (pawn, man, or Chad's
// rook, which becomes a queen inside the enemy castle).
//
// PieceTraits<G> members:
//   kKinds                 number of kinds (<= kMaxPieceKinds)
//   kNames[kind]           English name ("pawn", "king" for a draughts king)
//   kLetters[kind]         White's letter of the kind in position strings (Black's: lower case;
//                          draughts, which numbers its squares, has none)
//   kPromotedFrom          the kind that promotes
//   Baseline(kind)         the baseline's value in centipawns (a pawn or man = 100)
//   Count(position)        PieceCounts of the position
// Host only; no state.

#include <algorithm>
#include <array>

#include "engine/alphabeta/evaluation.h"
#include "engine/core/bits.h"

namespace vz::research {

inline constexpr int kMaxPieceKinds = 6;

// [colour][kind] pieces on the board.
struct PieceCounts {
  std::array<std::array<int, kMaxPieceKinds>, 2> count{};

  bool operator==(const PieceCounts& other) const = default;
};

template <class G>
struct PieceTraits;

template <>
struct PieceTraits<chaco_rex::ChacoRexGame> {
  static constexpr int kKinds = 5;
  static constexpr const char* kNames[kKinds] = {"pawn", "knight", "bishop", "rook", "queen"};
  static constexpr char kLetters[kKinds] = {'P', 'N', 'B', 'R', 'Q'};
  static constexpr int kPromotedFrom = 0;
  static constexpr int kTypes[kKinds] = {chaco_rex::kPawn, chaco_rex::kKnight, chaco_rex::kBishop,
                                         chaco_rex::kRook, chaco_rex::kQueen};
  static int Baseline(int kind) {
    return EvalTraits<chaco_rex::ChacoRexGame>::kValues[kTypes[kind]];
  }
  static PieceCounts Count(const chaco_rex::Position& p) {
    PieceCounts counts;
    for (int color = 0; color < 2; ++color) {
      for (int kind = 0; kind < kKinds; ++kind) {
        counts.count[color][kind] = PopCount(p.by_type[kTypes[kind]] & p.by_color[color]);
      }
    }
    return counts;
  }
};

template <>
struct PieceTraits<chad::ChadGame> {
  static constexpr int kKinds = 2;
  static constexpr const char* kNames[kKinds] = {"rook", "queen"};
  static constexpr char kLetters[kKinds] = {'R', 'Q'};
  static constexpr int kPromotedFrom = 0;
  static int Baseline(int kind) {
    return kind == 0 ? EvalTraits<chad::ChadGame>::kRook : EvalTraits<chad::ChadGame>::kQueen;
  }
  static PieceCounts Count(const chad::Position& p) {
    PieceCounts counts;
    for (int color = 0; color < 2; ++color) {
      const int queens = (p.pieces[color] & p.queens).Count();
      counts.count[color][0] = p.pieces[color].Count() - 1 - queens;  // the king never leaves
      counts.count[color][1] = queens;
    }
    return counts;
  }
};

template <>
struct PieceTraits<cuarenta::CuarentaGame> {
  static constexpr int kKinds = 6;
  static constexpr const char* kNames[kKinds] = {"pawn", "guard", "frog", "camel", "vao", "bishop"};
  static constexpr char kLetters[kKinds] = {'P', 'G', 'F', 'C', 'V', 'B'};
  static constexpr int kPromotedFrom = 0;
  static constexpr int kTypes[kKinds] = {cuarenta::kPawn,  cuarenta::kGuard, cuarenta::kFrog,
                                         cuarenta::kCamel, cuarenta::kVao,   cuarenta::kBishop};
  static int Baseline(int kind) {
    return EvalTraits<cuarenta::CuarentaGame>::kValues[kTypes[kind]];
  }
  static PieceCounts Count(const cuarenta::Position& p) {
    PieceCounts counts;
    for (int color = 0; color < 2; ++color) {
      for (int kind = 0; kind < kKinds; ++kind) {
        counts.count[color][kind] =
            __builtin_popcountll(p.by_type[kTypes[kind]] & p.by_color[color]);
      }
    }
    return counts;
  }
};

template <>
struct PieceTraits<draughts::DraughtsGame> {
  static constexpr int kKinds = 2;
  static constexpr const char* kNames[kKinds] = {"man", "king"};
  static constexpr int kPromotedFrom = 0;
  static int Baseline(int kind) {
    return kind == 0 ? EvalTraits<draughts::DraughtsGame>::kMan
                     : EvalTraits<draughts::DraughtsGame>::kKing;
  }
  static PieceCounts Count(const draughts::Position& p) {
    PieceCounts counts;
    for (int color = 0; color < 2; ++color) {
      const uint32_t own = color == 0 ? p.white : p.black;
      counts.count[color][0] = __builtin_popcount(own & ~p.kings);
      counts.count[color][1] = __builtin_popcount(own & p.kings);
    }
    return counts;
  }
};

// What one ply did to the material, from the piece counts before and after it: the mover's
// promotions (its promoting kind lost, another kind gained) and the opponent's pieces captured.
struct PlyMaterial {
  std::array<int, kMaxPieceKinds> captured{};  // [kind] opponent pieces removed
  std::array<int, kMaxPieceKinds> promoted{};  // [kind] mover's pieces that appeared by promotion
};

// `mover` is the colour that played the ply (0 White, 1 Black).
template <class G>
PlyMaterial MaterialChange(const PieceCounts& before, const PieceCounts& after, int mover) {
  PlyMaterial change;
  for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) {
    change.captured[size_t(kind)] =
        std::max(0, before.count[1 - mover][kind] - after.count[1 - mover][kind]);
    if (kind != PieceTraits<G>::kPromotedFrom) {
      change.promoted[size_t(kind)] =
          std::max(0, after.count[mover][kind] - before.count[mover][kind]);
    }
  }
  return change;
}

}  // namespace vz::research
