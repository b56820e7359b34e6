#pragma once

// Chaco Rex geometry and tables: the 85 hexagons, their indices, 128-bit cell sets (bitboards), the
// precomputed step, leap and ray tables (host and device copies, see VZ_DEFINE_TABLE), the piece
// codes and the Zobrist keys.
//
// Coordinates (as on the rules page): file index x = 0..18 for the letters
// `a b c d e f g h i j l m n o p q r s t` (no `k`), rank y = 1..9; a cell exists exactly when
// x + y is even (odd ranks: files b d f h j m o q s, 9 cells; even ranks: a c e g i l n p r t,
// 10 cells).
//
// Cell index, rank-major from White's side, left to right within a rank:
//
//   rank 9:  76 .. 84   (b9 = 76, s9 = 84)
//   rank 8:  66 .. 75   (a8 = 66, t8 = 75)
//   rank 7:  57 .. 65
//   rank 6:  47 .. 56
//   rank 5:  38 .. 46   (j5 = 42, the centre)
//   rank 4:  28 .. 37
//   rank 3:  19 .. 27
//   rank 2:   9 .. 18   (a2 = 9, t2 = 18)
//   rank 1:   0 ..  8   (b1 = 0, m1 = 5, s1 = 8)
//
// With this order every direction is one constant index offset wherever both cells exist:
// (+2,0) +1, (+1,+1) +10, (-1,+1) +9, (0,+2) +19, (+3,+1) +11, (-3,+1) +8 (and the negatives).
// That makes pawn moves plain shifts of a bitboard (masked at the board edge), and it makes the
// index strictly monotone along every ray, so the blocker nearest to a slider is the lowest set
// bit of (ray & occupied) for the six increasing directions and the highest for the others.

#include <cstdint>

#include "engine/core/bits.h"
#include "engine/core/macros.h"
#include "engine/core/zobrist.h"

namespace vz::chaco_rex {

inline constexpr int kNumCells = 85;
inline constexpr int kNumFiles = 19;
inline constexpr int kNumRanks = 9;
inline constexpr char kFileLetters[] = "abcdefghijlmnopqrst";

// Bit i is cell i. Bits 85..127 are always zero. (nvcc accepts unsigned __int128 in device code
// for sm_90; g++ and clang on x86-64 compile its shifts and masks to pairs of 64-bit operations.)
using Bitboard = unsigned __int128;

// The bit of `cell` (0..127). Built from a 64-bit shift and a constant 128-bit one: nvcc 13.0
// (sm_90, -O3) lowers the plain `~(Bitboard(1) << cell)` to a 64-bit rotate of ~1 that is only
// right for cell < 64, so `targets & ~CellBit(cell)` lost cells 0..63 on the device (the GPU move
// generator missed every pawn move when the en-passant cell was 64 or above, caught by
// BatchedKernelsGpuTest on the first GPU machine, 2026-12-04).
VZ_HD constexpr Bitboard CellBit(int cell) {
  const uint64_t bit = uint64_t(1) << (cell & 63);
  return cell < 64 ? Bitboard(bit) : Bitboard(bit) << 64;
}
static_assert([] {
  for (int cell = 0; cell < 128; ++cell) {
    if (CellBit(cell) != Bitboard(1) << cell) return false;
  }
  return true;
}());
inline constexpr Bitboard kAllCells = (Bitboard(1) << kNumCells) - 1;

// Calls f(cell) for every cell of `b`, lowest first. The two 64-bit halves are visited one after
// the other, whereas popping the lowest cell of the 128-bit board pays a borrow across both halves
// and a branch in LowestBit on every cell (about 10% more Chaco Rex perft leaves a second in a
// stand-alone perft harness).
template <class F>
VZ_HD VZ_FORCE_INLINE void ForEachCell(Bitboard b, F&& f) {
  for (uint64_t low = uint64_t(b); low; low &= low - 1) f(LowestBit(low));
  for (uint64_t high = uint64_t(b >> 64); high; high &= high - 1) f(64 + LowestBit(high));
}

// The 12 line directions. 0..5 are orthogonal (rook, king, pawn steps), 6..11 diagonal (bishop).
// Within each group the first three increase the cell index, the last three are their opposites
// (direction d + 3).
inline constexpr int kNumDirections = 12;
inline constexpr int kDirectionDx[kNumDirections] = {2, 1, -1, -2, -1, 1, 0, 3, -3, 0, -3, 3};
inline constexpr int kDirectionDy[kNumDirections] = {0, 1, 1, 0, -1, -1, 2, 1, 1, -2, -1, -1};
VZ_HD constexpr bool IsIncreasing(int direction) { return direction % 6 < 3; }

// The 12 knight leaps.
inline constexpr int kKnightDx[12] = {1, -1, 1, -1, 4, -4, 4, -4, 5, -5, 5, -5};
inline constexpr int kKnightDy[12] = {3, 3, -3, -3, 2, 2, -2, -2, 1, 1, -1, -1};

// Index of the first (leftmost) cell of rank y = 1..10 (10: one past the last cell). A function
// rather than an array so that device code may use it.
VZ_HD constexpr int RankStart(int y) { return (y - 1) / 2 * 19 + (y - 1) % 2 * 9; }
inline constexpr int kFirstCellOfRank2 = RankStart(2);
inline constexpr int kFirstCellOfRank8 = RankStart(8);
inline constexpr int kFirstCellOfRank9 = RankStart(9);

// True if (x, y) is one of the 85 cells.
VZ_HD constexpr bool CellExists(int x, int y) {
  return x >= 0 && x < kNumFiles && y >= 1 && y <= kNumRanks && (x + y) % 2 == 0;
}
// Index of the existing cell (x, y).
VZ_HD constexpr int CellIndex(int x, int y) {
  return RankStart(y) + (y % 2 == 1 ? (x - 1) / 2 : x / 2);
}
// 9 on odd ranks, 10 on even ranks.
VZ_HD constexpr int CellsInRank(int y) { return y % 2 == 1 ? 9 : 10; }

// Per-cell coordinates ([cell] -> file index x, rank y) and the mirror image across rank 5.
struct Geometry {
  int8_t x[kNumCells];
  int8_t y[kNumCells];
  uint8_t mirror[kNumCells];  // (x, y) -> (x, 10 - y): the board seen from Black
};

constexpr Geometry MakeGeometry() {
  Geometry g{};
  for (int y = 1; y <= kNumRanks; ++y) {
    for (int x = 0; x < kNumFiles; ++x) {
      if (!CellExists(x, y)) continue;
      const int cell = CellIndex(x, y);
      g.x[cell] = int8_t(x);
      g.y[cell] = int8_t(y);
      g.mirror[cell] = uint8_t(CellIndex(x, 10 - y));
    }
  }
  return g;
}
VZ_DEFINE_TABLE(Geometry, CellGeometry, MakeGeometry())

// Step, leap and ray cell sets per cell, built once at compile time.
struct StepTables {
  Bitboard king[kNumCells];                 // the 6 orthogonal neighbours
  Bitboard knight[kNumCells];               // the 12 leaps
  Bitboard pawn_forward[2][kNumCells];      // [color][cell] the two forward cells
  Bitboard ray[kNumCells][kNumDirections];  // cells along a direction, the start excluded
  Bitboard orthogonal_lines[kNumCells];     // union of rays 0..5
  Bitboard diagonal_lines[kNumCells];       // union of rays 6..11
  Bitboard rank[kNumRanks + 1];             // [y] cells of rank y
  Bitboard file_a;                          // x == 0
  Bitboard file_t;                          // x == 18
};

constexpr StepTables MakeStepTables() {
  StepTables t{};
  for (int y = 1; y <= kNumRanks; ++y) {
    for (int x = 0; x < kNumFiles; ++x) {
      if (!CellExists(x, y)) continue;
      const int cell = CellIndex(x, y);
      t.rank[y] |= CellBit(cell);
      if (x == 0) t.file_a |= CellBit(cell);
      if (x == kNumFiles - 1) t.file_t |= CellBit(cell);
      for (int d = 0; d < kNumDirections; ++d) {
        int tx = x + kDirectionDx[d], ty = y + kDirectionDy[d];
        if (d < 6 && CellExists(tx, ty)) t.king[cell] |= CellBit(CellIndex(tx, ty));
        while (CellExists(tx, ty)) {
          t.ray[cell][d] |= CellBit(CellIndex(tx, ty));
          tx += kDirectionDx[d];
          ty += kDirectionDy[d];
        }
        (d < 6 ? t.orthogonal_lines : t.diagonal_lines)[cell] |= t.ray[cell][d];
      }
      for (int i = 0; i < 12; ++i) {
        if (CellExists(x + kKnightDx[i], y + kKnightDy[i])) {
          t.knight[cell] |= CellBit(CellIndex(x + kKnightDx[i], y + kKnightDy[i]));
        }
      }
      for (int dx = -1; dx <= 1; dx += 2) {
        if (CellExists(x + dx, y + 1)) t.pawn_forward[0][cell] |= CellBit(CellIndex(x + dx, y + 1));
        if (CellExists(x + dx, y - 1)) t.pawn_forward[1][cell] |= CellBit(CellIndex(x + dx, y - 1));
      }
    }
  }
  return t;
}
VZ_DEFINE_TABLE(StepTables, Steps, MakeStepTables())

// The occupied cell of `blockers` (a subset of one ray from some cell) nearest to that cell.
VZ_HD VZ_FORCE_INLINE int NearestOnRay(Bitboard blockers, int direction) {
  return IsIncreasing(direction) ? LowestBit(blockers) : HighestBit(blockers);
}

// Cells reached from `cell` along the six rays first_direction .. first_direction + 5 (three
// increasing-index rays, then their three decreasing-index opposites), the first occupied cell of
// each ray included; the caller removes its own pieces.
VZ_HD VZ_FORCE_INLINE Bitboard SliderAttacks(int cell, Bitboard occupied, int first_direction) {
  const StepTables& t = Steps();
  Bitboard result = 0;
  for (int d = first_direction; d < first_direction + 3; ++d) {
    Bitboard ray = t.ray[cell][d];
    Bitboard blockers = ray & occupied;
    if (blockers) ray ^= t.ray[LowestBit(blockers)][d];
    result |= ray;
    ray = t.ray[cell][d + 3];
    blockers = ray & occupied;
    if (blockers) ray ^= t.ray[HighestBit(blockers)][d + 3];
    result |= ray;
  }
  return result;
}

// Cells a rook on `cell` reaches (the orthogonal rays 0-5).
VZ_HD VZ_FORCE_INLINE Bitboard OrthogonalAttacks(int cell, Bitboard occupied) {
  return SliderAttacks(cell, occupied, 0);
}

// Cells a bishop on `cell` reaches (the diagonal rays 6-11): only the cells it lands on block,
// never the two cells beside a diagonal step, because the rays hold landing cells only.
VZ_HD VZ_FORCE_INLINE Bitboard DiagonalAttacks(int cell, Bitboard occupied) {
  return SliderAttacks(cell, occupied, 6);
}

// --- pieces and Zobrist keys ----------------------------------------------------------------

// Piece types; a piece code on the mailbox is `type | color << 3` (0 = empty cell).
enum PieceType : uint8_t {
  kNoPiece = 0,
  kPawn = 1,
  kKnight = 2,
  kBishop = 3,
  kRook = 4,
  kQueen = 5,
  kKing = 6,
};
inline constexpr int kNumPieceTypes = 7;  // index 0 unused

VZ_HD constexpr uint8_t MakePiece(int color, int type) { return uint8_t(type | color << 3); }
VZ_HD constexpr int PieceTypeOf(uint8_t piece) { return piece & 7; }
VZ_HD constexpr int PieceColorOf(uint8_t piece) { return piece >> 3; }

// Zobrist keys: [color * 7 + type] * 85 + cell for pieces, then the side key (Black to move),
// then one key per en-passant cell.
inline constexpr int kZobristPieceKeys = 2 * kNumPieceTypes * kNumCells;
inline constexpr int kZobristSideKey = kZobristPieceKeys;
inline constexpr int kZobristEnPassantKeys = kZobristSideKey + 1;
inline constexpr int kNumZobristKeys = kZobristEnPassantKeys + kNumCells;
VZ_DEFINE_TABLE(ZobristKeys<kNumZobristKeys>, ChacoRexZobrist,
                MakeZobristKeys<kNumZobristKeys>(0xC4AC0CE7ull))

VZ_HD VZ_FORCE_INLINE uint64_t PieceKey(uint8_t piece, int cell) {
  return ChacoRexZobrist().key[((piece >> 3) * kNumPieceTypes + (piece & 7)) * kNumCells + cell];
}
VZ_HD VZ_FORCE_INLINE uint64_t SideKey() { return ChacoRexZobrist().key[kZobristSideKey]; }
VZ_HD VZ_FORCE_INLINE uint64_t EnPassantKey(int cell) {
  return ChacoRexZobrist().key[kZobristEnPassantKeys + cell];
}

}  // namespace vz::chaco_rex
