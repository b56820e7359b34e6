#pragma once

// The Chaco Rex position: bitboards per colour and per piece type, a mailbox for the piece on each
// cell, side to move, en-passant cell, counters and the incremental Zobrist hash. Fixed size and
// trivially copyable (host and device). Cell indices: see engine/chaco_rex/board.h.

#include <cstdint>

#include "engine/chaco_rex/board.h"
#include "engine/core/types.h"
#include "engine/core/zobrist.h"

namespace vz::chaco_rex {

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

// Largest half-move count and move number a position string may hold; ApplyMove saturates there.
inline constexpr uint32_t kMaxCounter = 999999999;

struct Position {
  Bitboard by_color[2];              // [color] cells holding that colour's pieces
  Bitboard by_type[kNumPieceTypes];  // [type] cells holding that type, both colours ([0] unused)
  uint64_t hash;                     // Zobrist: pieces, side, en-passant cell (always, if set)
  uint32_t halfmove_clock;           // plies since the last capture or pawn move
  uint32_t fullmove_number;          // starts at 1, +1 after each Black move
  uint8_t board[kNumCells];          // piece code per cell, 0 = empty
  uint8_t side_to_move;              // 0 White, 1 Black
  int8_t en_passant_cell;            // cell passed over by the last move's double step, or -1
  uint8_t king_cell[2];              // [color]
};

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

// The hash of `p` computed from its pieces, side and en-passant cell (ignores p.hash).
VZ_HD inline uint64_t ComputePositionHash(const Position& p) {
  uint64_t hash = 0;
  for (int cell = 0; cell < kNumCells; ++cell) {
    if (p.board[cell]) hash ^= PieceKey(p.board[cell], cell);
  }
  if (p.side_to_move) hash ^= SideKey();
  if (p.en_passant_cell >= 0) hash ^= EnPassantKey(p.en_passant_cell);
  return hash;
}

// Places `piece` on the empty `cell` (bitboards, mailbox, king cell; the hash is left alone).
VZ_HD inline void PutPiece(Position& p, uint8_t piece, int cell) {
  p.board[cell] = piece;
  p.by_color[PieceColorOf(piece)] |= CellBit(cell);
  p.by_type[PieceTypeOf(piece)] |= CellBit(cell);
  if (PieceTypeOf(piece) == kKing) p.king_cell[PieceColorOf(piece)] = uint8_t(cell);
}

// A position with no pieces, White to move, move 1 (not valid until the kings are placed).
VZ_HD inline Position EmptyPosition() {
  Position p{};
  p.fullmove_number = 1;
  p.en_passant_cell = -1;
  return p;
}

// The starting position of the rules page.
VZ_HD inline Position StartPosition() {
  Position p = EmptyPosition();
  constexpr uint8_t kBackRank[9] = {kRook, kKnight, kBishop, kQueen, kBishop,
                                    kKing, kBishop, kKnight, kRook};
  for (int i = 0; i < 9; ++i) {
    PutPiece(p, MakePiece(0, kBackRank[i]), CellIndex(2 * i + 1, 1));
    PutPiece(p, MakePiece(1, kBackRank[i]), CellIndex(2 * i + 1, 9));
  }
  for (int i = 0; i < 10; ++i) {
    PutPiece(p, MakePiece(0, kPawn), CellIndex(2 * i, 2));
    PutPiece(p, MakePiece(1, kPawn), CellIndex(2 * i, 8));
  }
  for (int x = 5; x <= 13; x += 2) {  // f h j m o
    PutPiece(p, MakePiece(0, kPawn), CellIndex(x, 3));
    PutPiece(p, MakePiece(1, kPawn), CellIndex(x, 7));
  }
  p.hash = ComputePositionHash(p);
  return p;
}

}  // namespace vz::chaco_rex
