#pragma once

// The Chad position: both sides' pieces as bit sets (engine/chad/tables.h), the kings, the side
// to move, the counters and the incremental Zobrist hash. Fixed size and trivially copyable, so
// that it lives in arrays on host and device.

#include <cstdint>
#include <type_traits>

#include "engine/chad/tables.h"
#include "engine/core/types.h"

namespace vz::chad {

// Largest half-move count and move number a position string may hold; ApplyMove saturates there.
inline constexpr uint32_t kMaxCounter = 1000000;

// A position. Trivially copyable; 96 bytes.
struct Position {
  Bitboard pieces[2];           // [color] every piece of that colour, king included
  Bitboard queens;              // queens of both colours
  uint64_t hash = 0;            // Zobrist hash of pieces and side to move (counters excluded)
  uint32_t halfmove_clock = 0;  // plies since the last capture or promotion
  uint32_t move_number = 1;     // full-move number, starts at 1, grows after Black's move
  uint8_t king[2] = {0, 0};     // [color] king square
  Color side = Color::kWhite;   // side to move
};
static_assert(sizeof(Position) == 96);
static_assert(std::is_trivially_copyable_v<Position>);

}  // namespace vz::chad
