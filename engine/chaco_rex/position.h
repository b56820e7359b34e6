#pragma once

// The Chaco Rex position: bitboards per colour and per piece type, a mailbox for the piece on each
// cell, side to move, en-passant cell, counters and the incremental Zobrist hash. Fixed size and
// trivially copyable (host and device). Cell indices, piece codes and
// Zobrist keys: see engine/chaco_rex/tables.h.

#include <cstdint>

#include "engine/chaco_rex/tables.h"
#include "engine/core/types.h"

namespace vz::chaco_rex {

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

}  // namespace vz::chaco_rex
