#pragma once

// Small value types shared by every game: colours, moves, move lists and outcomes.

#include <cstdint>

#include "engine/core/macros.h"

namespace vz {

enum class Color : uint8_t { kWhite = 0, kBlack = 1 };

VZ_HD constexpr Color Opponent(Color color) {
  return color == Color::kWhite ? Color::kBlack : Color::kWhite;
}

// A move of any game, in 8 bytes. Each game documents its own bit layout above its move helpers
// (engine/<game>/rules.h); the search and the registry treat a move as an opaque value that is
// compared for equality and handed back to the game's rules.
// Trivially default-constructible on purpose: a MoveList of hundreds of moves is then not zeroed
// on every construction (6 KB per list for Chaco Rex, also per-thread local memory on a GPU).
// `Move{}` is still the zero move.
struct Move {
  uint64_t raw;

  VZ_HD constexpr bool operator==(const Move& other) const { return raw == other.raw; }
  VZ_HD constexpr bool operator!=(const Move& other) const { return raw != other.raw; }
};
static_assert(sizeof(Move) == 8);

// No move; never produced by a move generator.
inline constexpr Move kNullMove{~uint64_t{0}};

// Legal moves of one position in a fixed array on the stack (Stockfish's MoveList). kCapacity is
// the game's kMaxMoves, a proven upper bound on the legal moves of any valid position.
template <int kCapacity>
struct MoveList {
  Move moves[kCapacity];
  int size = 0;

  VZ_HD void Clear() { size = 0; }
  VZ_HD void Push(Move move) {
    VZ_DCHECK(size < kCapacity);
    moves[size++] = move;
  }
  VZ_HD const Move* begin() const { return moves; }
  VZ_HD const Move* end() const { return moves + size; }
  VZ_HD Move* begin() { return moves; }
  VZ_HD Move* end() { return moves + size; }
  VZ_HD const Move& operator[](int i) const {
    VZ_DCHECK(i >= 0 && i < size);
    return moves[i];
  }
  VZ_HD bool Contains(Move move) const {
    for (int i = 0; i < size; ++i) {
      if (moves[i] == move) return true;
    }
    return false;
  }
};

// The stand-in for a MoveList in a move generator's count-only pass (G::CountMoves: the mobility
// of engine/alphabeta's evaluation): Push counts a move without storing it, and a generator that
// holds a whole set of target squares adds the set's size at once (AddCount) instead of writing
// one move per square. `size` is the number of moves since Clear.
struct MoveCounter {
  static constexpr bool kCountsOnly = true;
  int size = 0;

  VZ_HD void Clear() { size = 0; }
  VZ_HD void Push(Move) { ++size; }
  VZ_HD void AddCount(int count) { size += count; }
};

// Whether a generator's list type only counts (a MoveCounter: List::kCountsOnly): its AddCount
// then replaces the loop that pushes one move per target.
template <class List>
inline constexpr bool kIsMoveCounter = requires {
  requires List::kCountsOnly;
};

// Result of a game (or of a position) from White's and Black's point of view.
enum class Status : uint8_t { kOngoing = 0, kWhiteWins, kBlackWins, kDraw };

// Why a game ended. Each game uses the subset its rules name.
enum class Reason : uint8_t {
  kNone = 0,
  kCheckmate,             // chess-like games: in check, no legal move
  kNoLegalMove,           // draughts: the side to move has no legal move (loses)
  kStalemate,             // not in check, no legal move (draw)
  kRepetition,            // threefold repetition (host-side, needs history)
  kTwentyMoveRule,        // draughts: 40 plies without man move or capture
  kThreeKingsRule,        // draughts: three kings vs one not won within 12 moves
  kFortyMoveRule,         // Cuarenta: 80 plies without capture or promotion
  kInsufficientMaterial,  // Chaco Rex
  kBareKings,             // Chad, Cuarenta: only the two kings left
  kAdjudication,          // engine adjudication of an over-long game (not a rule of the game)
};

struct Outcome {
  Status status = Status::kOngoing;
  Reason reason = Reason::kNone;

  VZ_HD constexpr bool IsTerminal() const { return status != Status::kOngoing; }
  VZ_HD constexpr bool operator==(const Outcome& other) const {
    return status == other.status && reason == other.reason;
  }
};

// The Status "`winner` wins".
VZ_HD constexpr Status WinFor(Color winner) {
  return winner == Color::kWhite ? Status::kWhiteWins : Status::kBlackWins;
}

// Lower-case names used in text and JSON output ("ongoing", "checkmate", ...).
const char* StatusName(Status status);
const char* ReasonName(Reason reason);
const char* ColorName(Color color);

}  // namespace vz
