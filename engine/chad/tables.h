#pragma once

// Constant lookup tables of the Chad rule core, built at compile time and shared by host and
// device (VZ_DEFINE_TABLE): castle and wall masks, the eight rays from every square, the king's
// targets inside each castle, the capture zones, and the Zobrist keys.

#include <cstdint>

#include "engine/chad/bitboard.h"
#include "engine/core/macros.h"
#include "engine/core/zobrist.h"

namespace vz::chad {

// Directions, numbered so that the four orthogonal ones come first (a rook uses 0..3, a queen
// 0..7). kDirDelta is the square-index step; "increasing" directions (index grows along the ray)
// find their nearest blocker with Bitboard::Lowest, the others with Bitboard::Highest.
enum Direction : int {
  kNorth,
  kEast,
  kSouth,
  kWest,
  kNorthEast,
  kSouthEast,
  kSouthWest,
  kNorthWest
};
inline constexpr int kNumDirections = 8;
inline constexpr int kDirFile[kNumDirections] = {0, 1, 0, -1, 1, 1, -1, -1};
inline constexpr int kDirRank[kNumDirections] = {1, 0, -1, 0, 1, -1, -1, 1};
VZ_HD constexpr bool IsIncreasing(int direction) {
  return direction == kNorth || direction == kEast || direction == kNorthEast ||
         direction == kNorthWest;
}

// Castle centres: White d4, Black i9 (a half-turn of the board maps one onto the other).
inline constexpr int kCastleCentreFile[2] = {3, 8};
inline constexpr int kCastleCentreRank[2] = {3, 8};

struct ChadTableSet {
  Bitboard castle[2];  // [color] the 3x3 castle
  Bitboard wall[2];    // [color] the 12 squares edge-adjacent to the castle
  // [direction][square] squares from `square` (exclusive) to the board edge along `direction`.
  Bitboard ray[kNumDirections][kNumSquares];
  // [square] king-step and knight-leap targets of a king on `square` that stay inside the castle
  // containing `square` (empty for squares outside both castles).
  Bitboard king_targets[kNumSquares];
  // [mover color][square] enemy squares a rook or queen of `mover` standing on `square` may
  // capture on: the enemy castle if `square` is on the enemy wall, the own wall if `square` is
  // inside the own castle, otherwise nothing.
  Bitboard capture_zone[2][kNumSquares];
};

constexpr int Abs(int x) { return x < 0 ? -x : x; }

constexpr ChadTableSet MakeChadTables() {
  ChadTableSet t{};
  for (int color = 0; color < 2; ++color) {
    for (int s = 0; s < kNumSquares; ++s) {
      const int dx = Abs(FileOf(s) - kCastleCentreFile[color]);
      const int dy = Abs(RankOf(s) - kCastleCentreRank[color]);
      if (dx <= 1 && dy <= 1) t.castle[color].Set(s);
      if ((dx == 2 && dy <= 1) || (dy == 2 && dx <= 1)) t.wall[color].Set(s);
    }
  }
  for (int d = 0; d < kNumDirections; ++d) {
    for (int s = 0; s < kNumSquares; ++s) {
      int file = FileOf(s) + kDirFile[d], rank = RankOf(s) + kDirRank[d];
      while (file >= 0 && file < kBoardSize && rank >= 0 && rank < kBoardSize) {
        t.ray[d][s].Set(SquareOf(file, rank));
        file += kDirFile[d];
        rank += kDirRank[d];
      }
    }
  }
  constexpr int kSteps[16][2] = {{1, 0},   {1, 1},   {0, 1},  {-1, 1}, {-1, 0}, {-1, -1},
                                 {0, -1},  {1, -1},  {1, 2},  {2, 1},  {2, -1}, {1, -2},
                                 {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
  for (int color = 0; color < 2; ++color) {
    for (int s = 0; s < kNumSquares; ++s) {
      if (!t.castle[color].Test(s)) continue;
      for (const auto& step : kSteps) {
        const int file = FileOf(s) + step[0], rank = RankOf(s) + step[1];
        if (file < 0 || file >= kBoardSize || rank < 0 || rank >= kBoardSize) continue;
        if (t.castle[color].Test(SquareOf(file, rank))) t.king_targets[s].Set(SquareOf(file, rank));
      }
    }
  }
  for (int color = 0; color < 2; ++color) {
    for (int s = 0; s < kNumSquares; ++s) {
      if (t.wall[1 - color].Test(s)) t.capture_zone[color][s] = t.castle[1 - color];
      if (t.castle[color].Test(s)) t.capture_zone[color][s] = t.wall[color];
    }
  }
  return t;
}

VZ_DEFINE_TABLE(ChadTableSet, ChadTables, MakeChadTables())

// Piece kinds as stored in a move and used for Zobrist keys.
enum PieceKind : int { kRook = 0, kQueen = 1, kKing = 2 };

// Zobrist keys: [(color * 3 + kind) * 144 + square], then one key for "Black to move".
inline constexpr int kZobristSideKey = 2 * 3 * kNumSquares;
VZ_DEFINE_TABLE(ZobristKeys<kZobristSideKey + 1>, ChadZobrist,
                MakeZobristKeys<kZobristSideKey + 1>(0xC4AD1979ull))

VZ_HD VZ_FORCE_INLINE uint64_t PieceKey(int color, int kind, int square) {
  return ChadZobrist().key[(color * 3 + kind) * kNumSquares + square];
}

}  // namespace vz::chad
