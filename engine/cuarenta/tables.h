#pragma once

// Cuarenta geometry and tables: the 40 light squares of a 9x9 grid, their index mapping, the
// piece types, the precomputed step, ray and leap tables the rule core uses (host and device
// copies via VZ_DEFINE_TABLE) and the Zobrist keys.
//
// Grid coordinates: file f = 0..8 (a..i), rank r = 0..8 (ranks 1..9). A square exists exactly when
// f + r is odd (a1 = (0,0) is dark). Square index = (9 * r + f) / 2, so the squares are numbered
// rank by rank from rank 1, left to right, using only existing squares:
//
//   rank 9:     . 36  . 37  . 38  . 39  .       (b9 d9 f9 h9)
//   rank 8:    31  . 32  . 33  . 34  . 35       (a8 c8 e8 g8 i8)
//   rank 7:     . 27  . 28  . 29  . 30  .
//   rank 6:    22  . 23  . 24  . 25  . 26
//   rank 5:     . 18  . 19  . 20  . 21  .
//   rank 4:    13  . 14  . 15  . 16  . 17
//   rank 3:     .  9  . 10  . 11  . 12  .
//   rank 2:     4  .  5  .  6  .  7  .  8       (a2 c2 e2 g2 i2)
//   rank 1:     .  0  .  1  .  2  .  3  .       (b1 d1 f1 h1)
//               a  b  c  d  e  f  g  h  i
//
// Bit i of a uint64_t bitboard is square i (bits 40..63 are always zero). Every step is a constant
// index delta: (+1,+1) +5, (-1,+1) +4, (+1,-1) -4, (-1,-1) -5, (0,+2) +9, (+2,0) +1, (0,-2) -9,
// (-2,0) -1; indices grow strictly along the four "positive" directions, which lets a slider find
// its first blocker with a bit scan. The half-turn of the board maps square i to 39 - i.

#include <cstdint>

#include "engine/core/bits.h"
#include "engine/core/macros.h"
#include "engine/core/zobrist.h"

namespace vz::cuarenta {

// The bit scans of engine/core/bits.h, also reachable as cuarenta::LowestBit etc.
using vz::HighestBit;
using vz::LowestBit;
using vz::PopCount;

inline constexpr int kNumSquares = 40;
inline constexpr int kNoSquare = -1;

// Piece types; the value is also the promotion code of a Move (0 = no promotion).
enum PieceType : uint8_t {
  kNoPiece = 0,
  kKing = 1,
  kBishop = 2,
  kVao = 3,
  kGuard = 4,
  kCamel = 5,
  kFrog = 6,
  kPawn = 7,
};
inline constexpr int kNumPieceTypes = 8;  // index 0 unused

// Directions: 0..3 diagonal steps, 4..7 orthogonal steps (two real squares apart), as (dx, dy).
inline constexpr int kNumDirections = 8;
inline constexpr int kDirDx[kNumDirections] = {+1, -1, +1, -1, 0, +2, 0, -2};
inline constexpr int kDirDy[kNumDirections] = {+1, +1, -1, -1, +2, 0, -2, 0};
// Whether square indices grow along `direction` (so its first blocker is the lowest bit).
VZ_HD constexpr bool IsPositiveDirection(int direction) {
  return direction == 0 || direction == 1 || direction == 4 || direction == 5;
}

// Grid coordinates of square 0..39 (file 0..8 = a..i, rank 0..8 = 1..9).
VZ_HD constexpr int FileOf(int square) { return (2 * square + 1) % 9; }
VZ_HD constexpr int RankOf(int square) { return (2 * square + 1) / 9; }
// kNoSquare for a dark square or one off the grid.
VZ_HD constexpr int SquareAt(int file, int rank) {
  if (file < 0 || file > 8 || rank < 0 || rank > 8 || ((file + rank) & 1) == 0) return kNoSquare;
  return (9 * rank + file) / 2;
}
// The bitboard of one square; the square seen after a half-turn of the board.
VZ_HD constexpr uint64_t Bit(int square) { return uint64_t{1} << square; }
VZ_HD constexpr int Rotate(int square) { return kNumSquares - 1 - square; }

inline constexpr uint64_t kAllSquares = (uint64_t{1} << kNumSquares) - 1;

// Precomputed per-square tables.
struct BoardTables {
  uint64_t ray[kNumDirections][kNumSquares];       // squares beyond the square in that direction
  int8_t step[kNumDirections][kNumSquares];        // the adjacent square, or kNoSquare
  uint64_t adjacent[kNumDirections][kNumSquares];  // Bit(step) or 0
  int8_t direction[kNumSquares][kNumSquares];      // [from][to]: d with to in ray[d][from], or -1
  uint64_t diagonal_step[kNumSquares];             // king moves and captures
  uint64_t diagonals[kNumSquares];                 // the four diagonal rays together
  uint64_t vertical_step[kNumSquares];             // king's non-capturing (0, +-2) steps
  uint64_t orthogonal_step[kNumSquares];           // frog steps
  uint64_t neighbours[kNumSquares];                // adjacent squares in all 8 directions
  uint64_t frog_jump_reach[kNumSquares];           // squares 2 or more steps away on the 8 lines
  uint64_t guard[kNumSquares];                     // first and second diagonal squares
  uint64_t camel[kNumSquares];                     // (+-1, +-3) and (+-3, +-1) leaps
  uint64_t pawn[2][kNumSquares];                   // [colour] the three forward steps
  uint64_t zone[2];                                // [colour] promotion zone (last three ranks)
  uint64_t last_rank[2];                           // [colour]
};

constexpr BoardTables MakeBoardTables() {
  BoardTables t{};
  for (int from = 0; from < kNumSquares; ++from) {
    for (int to = 0; to < kNumSquares; ++to) t.direction[from][to] = -1;
  }
  for (int square = 0; square < kNumSquares; ++square) {
    const int file = FileOf(square), rank = RankOf(square);
    for (int d = 0; d < kNumDirections; ++d) {
      t.step[d][square] = int8_t(SquareAt(file + kDirDx[d], rank + kDirDy[d]));
      t.adjacent[d][square] = t.step[d][square] >= 0 ? Bit(t.step[d][square]) : 0;
      t.neighbours[square] |= t.adjacent[d][square];
      uint64_t ray = 0;
      for (int k = 1;; ++k) {
        const int s = SquareAt(file + k * kDirDx[d], rank + k * kDirDy[d]);
        if (s == kNoSquare) break;
        ray |= Bit(s);
        t.direction[square][s] = int8_t(d);
      }
      t.ray[d][square] = ray;
      t.frog_jump_reach[square] |= ray & ~t.adjacent[d][square];
      if (d < 4) {
        t.diagonals[square] |= ray;
        t.diagonal_step[square] |= t.adjacent[d][square];
        t.guard[square] |= t.adjacent[d][square];
        const int s2 = SquareAt(file + 2 * kDirDx[d], rank + 2 * kDirDy[d]);
        if (s2 != kNoSquare) t.guard[square] |= Bit(s2);
      } else {
        t.orthogonal_step[square] |= t.adjacent[d][square];
        if (kDirDx[d] == 0) t.vertical_step[square] |= t.adjacent[d][square];
      }
    }
    const int camel_dx[8] = {1, 1, -1, -1, 3, 3, -3, -3};
    const int camel_dy[8] = {3, -3, 3, -3, 1, -1, 1, -1};
    for (int k = 0; k < 8; ++k) {
      const int s = SquareAt(file + camel_dx[k], rank + camel_dy[k]);
      if (s != kNoSquare) t.camel[square] |= Bit(s);
    }
    for (int color = 0; color < 2; ++color) {
      const int forward = color == 0 ? 1 : -1;
      const int pawn_dx[3] = {-1, 0, 1};
      const int pawn_dy[3] = {forward, 2 * forward, forward};
      for (int k = 0; k < 3; ++k) {
        const int s = SquareAt(file + pawn_dx[k], rank + pawn_dy[k]);
        if (s != kNoSquare) t.pawn[color][square] |= Bit(s);
      }
      const bool in_zone = color == 0 ? rank >= 6 : rank <= 2;
      if (in_zone) t.zone[color] |= Bit(square);
      if (rank == (color == 0 ? 8 : 0)) t.last_rank[color] |= Bit(square);
    }
  }
  return t;
}

VZ_DEFINE_TABLE(BoardTables, Tables, MakeBoardTables())

// Zobrist keys: [colour * 8 + piece type] * 40 + square, then side to move, then the two
// castling rights.
inline constexpr int kZobristPieceKeys = 2 * kNumPieceTypes * kNumSquares;
inline constexpr int kZobristSideKey = kZobristPieceKeys;
inline constexpr int kZobristCastleKey = kZobristPieceKeys + 1;  // + colour
inline constexpr int kNumZobristKeys = kZobristPieceKeys + 3;
VZ_DEFINE_TABLE(ZobristKeys<kNumZobristKeys>, CuarentaZobrist,
                MakeZobristKeys<kNumZobristKeys>(0xC0A7E47Aull))

// Zobrist key of a piece (colour 0/1, PieceType) on a square.
VZ_HD VZ_FORCE_INLINE uint64_t PieceKey(int color, int type, int square) {
  return CuarentaZobrist().key[(color * kNumPieceTypes + type) * kNumSquares + square];
}

// The first square of `bits` (non-zero, a subset of a ray) seen from the ray's origin.
VZ_HD VZ_FORCE_INLINE int FirstOnRay(int direction, uint64_t bits) {
  return IsPositiveDirection(direction) ? LowestBit(bits) : HighestBit(bits);
}

}  // namespace vz::cuarenta
