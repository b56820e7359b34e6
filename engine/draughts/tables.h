#pragma once

// Portuguese draughts geometry and tables: the 32 dark squares as bits of a uint32_t, their
// diagonal neighbours and rays (host and device lookup tables), bit helpers and Zobrist keys.
//
// Square numbering (PDN, as players write it) runs 1..32 from White's lower-right corner, right
// to left, rank by rank; bit index = number - 1. Seen from White (a1 is a light square):
//
//          a    b    c    d    e    f    g    h
//     8    32   .    31   .    30   .    29   .        row 7 (odd)
//     7    .    28   .    27   .    26   .    25       row 6 (even)
//     6    24   .    23   .    22   .    21   .        row 5
//     5    .    20   .    19   .    18   .    17       row 4
//     4    16   .    15   .    14   .    13   .        row 3
//     3    .    12   .    11   .    10   .    9        row 2
//     2    8    .    7    .    6    .    5    .        row 1
//     1    .    4    .    3    .    2    .    1        row 0 (even)
//
// Bit s lies on row s / 4 (rank row + 1) and, with k = s % 4, on file column 7 - 2k (h, f, d, b)
// on even rows and 6 - 2k (g, e, c, a) on odd rows. Moving "up" (towards rank 8, White's forward
// direction) always increases the bit index, moving down always decreases it; the step is +3/+4/+5
// (or -3/-4/-5) depending on the row parity, which is what the Shift* helpers encode.

#include <cstdint>

#include "engine/core/bits.h"
#include "engine/core/macros.h"
#include "engine/core/zobrist.h"

namespace vz::draughts {

// The bit scans of engine/core/bits.h, also reachable as draughts::LowestBit etc.
using vz::HighestBit;
using vz::LowestBit;
using vz::PopCount;

inline constexpr int kNumSquares = 32;

// Diagonal directions, named from White's side. Up = towards rank 8.
enum Direction : int { kUpRight = 0, kUpLeft = 1, kDownRight = 2, kDownLeft = 3 };
inline constexpr int kNumDirections = 4;

inline constexpr uint32_t kEvenRows = 0x0F0F0F0Fu;
inline constexpr uint32_t kOddRows = 0xF0F0F0F0u;
inline constexpr uint32_t kColumnK0 = 0x11111111u;  // k == 0: file h (even rows), g (odd rows)
inline constexpr uint32_t kColumnK3 = 0x88888888u;  // k == 3: file b (even rows), a (odd rows)
inline constexpr uint32_t kRow0 = 0x0000000Fu;      // rank 1: Black crowns here (squares 1-4)
inline constexpr uint32_t kRow7 = 0xF0000000u;      // rank 8: White crowns here (squares 29-32)

VZ_HD constexpr int RowOf(int square) { return square / 4; }
VZ_HD constexpr int ColumnOf(int square) {
  return (square / 4) % 2 == 0 ? 7 - 2 * (square % 4) : 6 - 2 * (square % 4);
}
// Bit index of the dark square at (row, column), or -1 for a light or off-board square.
VZ_HD constexpr int SquareAt(int row, int column) {
  if (row < 0 || row > 7 || column < 0 || column > 7) return -1;
  if ((row + column) % 2 == 0) return -1;  // a1 = (0, 0) is light
  return row * 4 + (row % 2 == 0 ? (7 - column) / 2 : (6 - column) / 2);
}

// Per square and direction: the adjacent square, the square two steps away (-1 when off the
// board), and the ray of every square from the neighbour to the edge.
struct Geometry {
  int8_t neighbour[kNumSquares][kNumDirections];
  int8_t jump[kNumSquares][kNumDirections];
  uint32_t ray[kNumSquares][kNumDirections];
};

constexpr Geometry MakeGeometry() {
  Geometry g{};
  constexpr int kRowStep[kNumDirections] = {1, 1, -1, -1};
  constexpr int kColumnStep[kNumDirections] = {1, -1, 1, -1};
  for (int s = 0; s < kNumSquares; ++s) {
    for (int d = 0; d < kNumDirections; ++d) {
      const int row = RowOf(s), column = ColumnOf(s);
      g.neighbour[s][d] = int8_t(SquareAt(row + kRowStep[d], column + kColumnStep[d]));
      g.jump[s][d] = int8_t(SquareAt(row + 2 * kRowStep[d], column + 2 * kColumnStep[d]));
      uint32_t ray = 0;
      for (int step = 1;; ++step) {
        const int t = SquareAt(row + step * kRowStep[d], column + step * kColumnStep[d]);
        if (t < 0) break;
        ray |= uint32_t{1} << t;
      }
      g.ray[s][d] = ray;
    }
  }
  return g;
}

VZ_DEFINE_TABLE(Geometry, GeometryTable, MakeGeometry())

// Zobrist keys: [kind * 32 + square] for kind 0 white man, 1 white king, 2 black man,
// 3 black king; [128] is xored in when Black is to move.
inline constexpr int kZobristSideIndex = 4 * kNumSquares;
VZ_DEFINE_TABLE(ZobristKeys<4 * kNumSquares + 1>, DraughtsZobrist,
                MakeZobristKeys<4 * kNumSquares + 1>(0xD7A9'6175ull))

VZ_HD VZ_FORCE_INLINE uint32_t Bit(int square) { return uint32_t{1} << square; }

// Whole-board one-step shifts: every set bit moves to its neighbour in the direction; bits that
// would leave the board vanish. Up directions shift left, down directions shift right.
VZ_HD VZ_FORCE_INLINE uint32_t ShiftUpRight(uint32_t b) {
  return ((b & kEvenRows & ~kColumnK0) << 3) | ((b & kOddRows & ~kRow7) << 4);
}
VZ_HD VZ_FORCE_INLINE uint32_t ShiftUpLeft(uint32_t b) {
  return ((b & kEvenRows) << 4) | ((b & kOddRows & ~kColumnK3 & ~kRow7) << 5);
}
VZ_HD VZ_FORCE_INLINE uint32_t ShiftDownRight(uint32_t b) {
  return ((b & kEvenRows & ~kColumnK0 & ~kRow0) >> 5) | ((b & kOddRows) >> 4);
}
VZ_HD VZ_FORCE_INLINE uint32_t ShiftDownLeft(uint32_t b) {
  return ((b & kEvenRows & ~kRow0) >> 4) | ((b & kOddRows & ~kColumnK3) >> 3);
}

// Two steps along one diagonal move a square by the same number of bits on every row: +7
// up-right, +9 up-left, -9 down-right, -7 down-left (one step is +3 or +4, +4 or +5 by the row's
// parity, and two steps cross both parities). kJumpOriginsUpRight etc.: the squares whose square
// two steps away in that direction is on the board (JumpOrigins checks the distances against the
// geometry table at compile time).
inline constexpr int kTwoStepDelta[kNumDirections] = {7, 9, -9, -7};

constexpr uint32_t JumpOrigins(int direction) {
  const Geometry g = MakeGeometry();
  uint32_t origins = 0;
  for (int s = 0; s < kNumSquares; ++s) {
    if (g.jump[s][direction] < 0) continue;
    if (g.jump[s][direction] != s + kTwoStepDelta[direction]) return 0;  // fails the assert below
    origins |= uint32_t{1} << s;
  }
  return origins;
}
inline constexpr uint32_t kJumpOriginsUpRight = JumpOrigins(kUpRight);
inline constexpr uint32_t kJumpOriginsUpLeft = JumpOrigins(kUpLeft);
inline constexpr uint32_t kJumpOriginsDownRight = JumpOrigins(kDownRight);
inline constexpr uint32_t kJumpOriginsDownLeft = JumpOrigins(kDownLeft);
static_assert(kJumpOriginsUpRight && kJumpOriginsUpLeft && kJumpOriginsDownRight &&
                  kJumpOriginsDownLeft,
              "two diagonal steps are not a constant bit distance");

// Whole-board shifts by one step (Shift) and by two steps (TwoSteps) in direction kDirection,
// bits leaving the board vanish.
template <int kDirection>
VZ_HD VZ_FORCE_INLINE uint32_t Shift(uint32_t b) {
  static_assert(kDirection >= 0 && kDirection < kNumDirections);
  if constexpr (kDirection == kUpRight) {
    return ShiftUpRight(b);
  } else if constexpr (kDirection == kUpLeft) {
    return ShiftUpLeft(b);
  } else if constexpr (kDirection == kDownRight) {
    return ShiftDownRight(b);
  } else {
    return ShiftDownLeft(b);
  }
}
template <int kDirection>
VZ_HD VZ_FORCE_INLINE uint32_t TwoSteps(uint32_t b) {
  static_assert(kDirection >= 0 && kDirection < kNumDirections);
  if constexpr (kDirection == kUpRight) {
    return (b & kJumpOriginsUpRight) << 7;
  } else if constexpr (kDirection == kUpLeft) {
    return (b & kJumpOriginsUpLeft) << 9;
  } else if constexpr (kDirection == kDownRight) {
    return (b & kJumpOriginsDownRight) >> 9;
  } else {
    return (b & kJumpOriginsDownLeft) >> 7;
  }
}

// The first occupied square of `blockers` (a subset of a ray from some square in direction d),
// i.e. the one nearest to the ray's origin. blockers != 0.
VZ_HD VZ_FORCE_INLINE int FirstOnRay(uint32_t blockers, int direction) {
  return direction <= kUpLeft ? LowestBit(blockers) : HighestBit(blockers);
}

}  // namespace vz::draughts
