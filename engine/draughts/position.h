#pragma once

// The Portuguese draughts position: the pieces as bit sets over the 32 dark squares (numbering in
// engine/draughts/tables.h), side to move, the draw-rule counters and the incremental Zobrist
// hash. Trivially copyable (host and device).

#include <cstdint>

#include "engine/core/types.h"

namespace vz::draughts {

// Counters saturate here; position strings accept values up to it.
inline constexpr int kMaxCounter = 9999;

// A position; the counters are the fields of the PDN FEN (engine/draughts/notation.h).
struct Position {
  uint32_t white = 0;  // bit per square: White's pieces
  uint32_t black = 0;  // Black's pieces
  uint32_t kings = 0;  // kings of either colour (subset of white | black)
  // Plies since the last man move or capture (the PDN FEN field :H).
  uint16_t twenty_move_plies = 0;
  // Moves made by the stronger side since three kings against one king first appeared (field
  // :T); 0 whenever the material is anything else.
  uint16_t three_kings_moves = 0;
  Color side_to_move = Color::kWhite;
  uint64_t hash = 0;  // Zobrist hash of pieces and side to move (counters excluded)
};

}  // namespace vz::draughts
