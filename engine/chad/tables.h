#pragma once

// Chad geometry and tables: the board, its square numbering and bit set, and the constant lookup
// tables of the rule core.
//
// The board: a 144-square Chad board as a 192-bit set (three 64-bit words), usable on host and
// device.
//
// Square index s = 12 * rank + file, with file a..l = 0..11 and rank 1..12 = 0..11 (a1 = 0,
// l1 = 11, a2 = 12, ..., l12 = 143). Square s is bit (s % 64) of word w[s / 64]:
//
//   w[0]  bits 0..63   squares a1 .. d6    (s = 0..63)
//   w[1]  bits 0..63   squares e6 .. h11   (s = 64..127)
//   w[2]  bits 0..15   squares i11 .. l12  (s = 128..143); bits 16..63 are always zero.
//
// Every operation keeps the unused high bits of w[2] zero (Not() masks them), so Any() and
// Count() never see phantom squares.

// The tables, built at compile time and shared by host and device (VZ_DEFINE_TABLE): castle and
// wall masks, the eight rays from every square, the king's targets inside each castle, the
// capture zones, and the Zobrist keys.

#include <cstdint>

#include "engine/core/bits.h"
#include "engine/core/macros.h"
#include "engine/core/zobrist.h"

namespace vz::chad {

inline constexpr int kNumSquares = 144;
inline constexpr int kBoardSize = 12;

// Square index of (file 0..11, rank 0..11) and back; no range checks (callers pass board squares).
VZ_HD constexpr int SquareOf(int file, int rank) { return rank * kBoardSize + file; }
VZ_HD constexpr int FileOf(int square) { return square % kBoardSize; }
VZ_HD constexpr int RankOf(int square) { return square / kBoardSize; }

// A set of squares (layout above). Plain value type; every member is VZ_HD.
struct Bitboard {
  uint64_t w[3] = {0, 0, 0};

  VZ_HD static constexpr Bitboard FromSquare(int square) {
    Bitboard b;
    b.w[square >> 6] = uint64_t{1} << (square & 63);
    return b;
  }
  VZ_HD constexpr bool Test(int square) const { return (w[square >> 6] >> (square & 63)) & 1; }
  VZ_HD constexpr void Set(int square) { w[square >> 6] |= uint64_t{1} << (square & 63); }
  VZ_HD constexpr void Clear(int square) { w[square >> 6] &= ~(uint64_t{1} << (square & 63)); }
  VZ_HD constexpr void Toggle(int square) { w[square >> 6] ^= uint64_t{1} << (square & 63); }
  VZ_HD constexpr bool Any() const { return (w[0] | w[1] | w[2]) != 0; }
  VZ_HD constexpr bool None() const { return !Any(); }

  VZ_HD constexpr Bitboard operator|(const Bitboard& o) const {
    return Bitboard{{w[0] | o.w[0], w[1] | o.w[1], w[2] | o.w[2]}};
  }
  VZ_HD constexpr Bitboard operator&(const Bitboard& o) const {
    return Bitboard{{w[0] & o.w[0], w[1] & o.w[1], w[2] & o.w[2]}};
  }
  VZ_HD constexpr Bitboard operator^(const Bitboard& o) const {
    return Bitboard{{w[0] ^ o.w[0], w[1] ^ o.w[1], w[2] ^ o.w[2]}};
  }
  // Complement within the 144 squares.
  VZ_HD constexpr Bitboard Not() const { return Bitboard{{~w[0], ~w[1], ~w[2] & 0xFFFFull}}; }
  // this & ~o.
  VZ_HD constexpr Bitboard AndNot(const Bitboard& o) const {
    return Bitboard{{w[0] & ~o.w[0], w[1] & ~o.w[1], w[2] & ~o.w[2]}};
  }
  VZ_HD constexpr Bitboard& operator|=(const Bitboard& o) { return *this = *this | o; }
  VZ_HD constexpr Bitboard& operator&=(const Bitboard& o) { return *this = *this & o; }
  VZ_HD constexpr Bitboard& operator^=(const Bitboard& o) { return *this = *this ^ o; }
  VZ_HD constexpr bool operator==(const Bitboard& o) const {
    return w[0] == o.w[0] && w[1] == o.w[1] && w[2] == o.w[2];
  }

  // Lowest / highest occupied square; the set must not be empty.
  VZ_HD VZ_FORCE_INLINE int Lowest() const {
    if (w[0]) return LowestBit(w[0]);
    if (w[1]) return 64 + LowestBit(w[1]);
    return 128 + LowestBit(w[2]);
  }
  VZ_HD VZ_FORCE_INLINE int Highest() const {
    if (w[2]) return 128 + HighestBit(w[2]);
    if (w[1]) return 64 + HighestBit(w[1]);
    return HighestBit(w[0]);
  }
  VZ_HD VZ_FORCE_INLINE int Count() const {
    return PopCount(w[0]) + PopCount(w[1]) + PopCount(w[2]);
  }
};

// Calls f(square) for every square of `b`, lowest first.
template <class F>
VZ_HD VZ_FORCE_INLINE void ForEachSquare(const Bitboard& b, F&& f) {
  // The words are read first and visited in three unrolled loops: a loop over b.w[i] kept the set
  // in memory, where reading back the words just written (a slider's ray less its blocker)
  // stalled on store forwarding (that loop counted a quarter fewer perft leaves a second).
  const uint64_t words[3] = {b.w[0], b.w[1], b.w[2]};
  for (uint64_t word = words[0]; word; word &= word - 1) f(LowestBit(word));
  for (uint64_t word = words[1]; word; word &= word - 1) f(64 + LowestBit(word));
  for (uint64_t word = words[2]; word; word &= word - 1) f(128 + LowestBit(word));
}

// --- tables ----------------------------------------------------------------------------------

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
