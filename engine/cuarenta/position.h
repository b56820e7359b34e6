#pragma once

// The Cuarenta position: bitboards, a mailbox, side to move, castling rights, counters and the
// incremental Zobrist hash, and the editing helpers the rule core and the parser share. Squares,
// piece types and Zobrist keys: see engine/cuarenta/tables.h.

#include <cstdint>

#include "engine/core/macros.h"
#include "engine/cuarenta/tables.h"

namespace vz::cuarenta {

// A position: bitboards, a mailbox, side to move, counters and the incremental Zobrist hash
// (pieces, side to move, castling rights; not the counters). Trivially copyable, 136 bytes.
struct Position {
  uint64_t by_color[2];              // [colour] occupied squares
  uint64_t by_type[kNumPieceTypes];  // [piece type] both colours; [0] unused
  uint64_t hash;
  uint8_t board[kNumSquares];  // [square] 0 empty, else colour * 8 + piece type
  uint8_t king[2];             // [colour] king square
  uint8_t side_to_move;        // 0 White, 1 Black
  uint8_t castling;            // bit colour: that side may still castle
  uint16_t forty_count;        // plies since the last capture or promotion (saturates)
  uint16_t move_number;        // starts at 1, incremented after Black's move
};

// Colour (0 White, 1 Black) and PieceType of a non-empty mailbox entry.
VZ_HD constexpr int PieceColor(uint8_t piece) { return piece >> 3; }
VZ_HD constexpr int PieceTypeOf(uint8_t piece) { return piece & 7; }

// Places a piece on an empty square, updating bitboards, mailbox, king square and hash.
VZ_HD inline void PutPiece(Position& p, int color, int type, int square) {
  p.board[square] = uint8_t(color * 8 + type);
  p.by_color[color] |= Bit(square);
  p.by_type[type] |= Bit(square);
  p.hash ^= PieceKey(color, type, square);
  if (type == kKing) p.king[color] = uint8_t(square);
}

// Removes the piece on an occupied square, updating bitboards, mailbox and hash.
VZ_HD inline void RemovePiece(Position& p, int square) {
  const uint8_t piece = p.board[square];
  const int color = PieceColor(piece), type = PieceTypeOf(piece);
  p.board[square] = 0;
  p.by_color[color] &= ~Bit(square);
  p.by_type[type] &= ~Bit(square);
  p.hash ^= PieceKey(color, type, square);
}

// No pieces, White to move, no castling rights, counters at their start (hash of nothing).
VZ_HD inline Position EmptyPosition() {
  Position p{};
  p.move_number = 1;
  return p;
}

}  // namespace vz::cuarenta
