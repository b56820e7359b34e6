#pragma once

// The Chad rule core over the Position of engine/chad/position.h: move generation, apply, check,
// outcome, hashing and the policy index. Everything here is VZ_HD (host and CUDA device): no heap,
// no exceptions, no std containers. The rules themselves are summarised at the top of
// engine/chad/game.h.
//
// Move bit layout (vz::Move::raw; all other bits zero):
//   bits  0..7   from square (0..143, see engine/chad/tables.h for the square numbering)
//   bits  8..15  to square
//   bits 16..17  moving piece: 0 rook, 1 queen, 2 king (PieceKind)
//   bit  18      capture (an enemy rook or queen stands on the to square)
//   bit  19      promotion (a rook whose move ends inside the enemy castle becomes a queen)
// A legal move is therefore fully determined by its from and to squares in a given position;
// the flag bits only save work in ApplyMove and the notation.
//
// Action index (policy index, in [0, kNumActions) = [0, 144 * 96)), in the frame of the side to
// move: for Black both squares are turned by a half-turn of the board (s -> 143 - s), so that
// every player "plays up the board" from the castle at d4. Then
//   action = from * 96 + offset, where, with (dx, dy) = (file, rank) of to minus that of from,
//   offset  0..43  orthogonal slide: (direction N, E, S, W = 0..3) * 11 + (distance - 1)
//   offset 44..87  diagonal slide:   44 + (direction NE, SE, SW, NW = 0..3) * 11 + (distance - 1)
//   offset 88..95  knight leap (king only): 88 + index of (dx, dy) in
//                (1,2) (2,1) (2,-1) (1,-2) (-1,-2) (-2,-1) (-2,1) (-1,2)
// King steps use the distance-1 slide entries. Two legal moves of one position never share an
// index: they differ in from square or in (dx, dy).

#include <cstdint>
#include <type_traits>

#include "engine/chad/position.h"
#include "engine/chad/tables.h"
#include "engine/core/macros.h"
#include "engine/core/types.h"

namespace vz::chad {

// Upper bound on legal moves: at most 8 rooks or queens a side (promotion only turns rooks into
// queens), a queen has at most 43 moves on a 12x12 board (22 orthogonal + 21 diagonal, from a
// central square), the king at most 8 inside its castle: 8 * 43 + 8.
inline constexpr int kMaxMoves = 352;
inline constexpr int kActionsPerSquare = 96;
inline constexpr int kNumActions = kNumSquares * kActionsPerSquare;
inline constexpr int kMaxRooksPerSide = 8;

// --- moves ---------------------------------------------------------------------------------

// Packing and unpacking of the move fields (layout at the top of this file). `kind` is a
// PieceKind; squares are 0..143.
VZ_HD constexpr Move MakeMove(int from, int to, int kind, bool capture, bool promotion) {
  return Move{uint64_t(from) | uint64_t(to) << 8 | uint64_t(kind) << 16 | uint64_t(capture) << 18 |
              uint64_t(promotion) << 19};
}
VZ_HD constexpr int MoveFrom(Move m) { return int(m.raw & 0xFF); }
VZ_HD constexpr int MoveTo(Move m) { return int((m.raw >> 8) & 0xFF); }
VZ_HD constexpr int MoveKind(Move m) { return int((m.raw >> 16) & 3); }
VZ_HD constexpr bool IsCapture(Move m) { return (m.raw >> 18) & 1; }
VZ_HD constexpr bool IsPromotion(Move m) { return (m.raw >> 19) & 1; }

// --- queries -------------------------------------------------------------------------------

// Kind of the piece of `color` on `square`; the square must hold a piece of that colour.
VZ_HD inline int KindAt(const Position& p, int color, int square) {
  if (p.king[color] == square) return kKing;
  return p.queens.Test(square) ? kQueen : kRook;
}

// True if a rook or queen of `attacker` has a clear line to `square` along its own lines of
// movement, with `occupied` as the blocking pieces. Captures rules play no part here: this is
// the "check" relation of the rules.
VZ_HD inline bool SquareAttacked(const Position& p, int square, const Bitboard& occupied,
                                 int attacker) {
  const ChadTableSet& t = ChadTables();
  Bitboard orthogonal = p.pieces[attacker];
  orthogonal.Clear(p.king[attacker]);
  for (int d = 0; d < 4; ++d) {
    const Bitboard blockers = t.ray[d][square] & occupied;
    if (blockers.None()) continue;
    if (orthogonal.Test(IsIncreasing(d) ? blockers.Lowest() : blockers.Highest())) return true;
  }
  const Bitboard diagonal = p.pieces[attacker] & p.queens;
  if (diagonal.None()) return false;
  for (int d = 4; d < 8; ++d) {
    const Bitboard blockers = t.ray[d][square] & occupied;
    if (blockers.None()) continue;
    if (diagonal.Test(IsIncreasing(d) ? blockers.Lowest() : blockers.Highest())) return true;
  }
  return false;
}

// True if the side to move is in check.
VZ_HD inline bool InCheck(const Position& p) {
  const int us = int(p.side);
  return SquareAttacked(p, p.king[us], p.pieces[0] | p.pieces[1], 1 - us);
}

// Zobrist hash of `p` computed from scratch (the incremental one is p.hash).
VZ_HD inline uint64_t ComputeHash(const Position& p) {
  uint64_t hash = p.side == Color::kBlack ? ChadZobrist().key[kZobristSideKey] : 0;
  for (int color = 0; color < 2; ++color) {
    ForEachSquare(p.pieces[color], [&](int s) { hash ^= PieceKey(color, KindAt(p, color, s), s); });
  }
  return hash;
}

// The start: each castle full, king in the centre (d4, i9), White to move.
VZ_HD inline Position InitialPosition() {
  const ChadTableSet& t = ChadTables();
  Position p;
  for (int color = 0; color < 2; ++color) {
    p.pieces[color] = t.castle[color];
    p.king[color] = uint8_t(SquareOf(kCastleCentreFile[color], kCastleCentreRank[color]));
  }
  p.hash = ComputeHash(p);
  return p;
}

// --- move generation -----------------------------------------------------------------------

// Appends every legal move of `p` to `list` (a vz::MoveList with room for kMaxMoves, or a
// vz::MoveCounter; it is not cleared first). Draw rules are ignored; a mated or stalemated side
// gets no moves. Method: checkers and pinned pieces are found from the king outwards once; king
// moves are tested square by square with the king lifted off the board; every other move only has
// to respect the pin line of its piece and, in single check, the line to the checker.
template <class List>
VZ_HD inline void GenerateMoves(const Position& p, List& list) {
  const ChadTableSet& t = ChadTables();
  const int us = int(p.side), them = 1 - us;
  const int king = p.king[us];
  const Bitboard own = p.pieces[us], enemy = p.pieces[them];
  const Bitboard occupied = own | enemy;
  Bitboard enemy_sliders = enemy;
  enemy_sliders.Clear(p.king[them]);
  const Bitboard enemy_queens = enemy & p.queens;

  // Checkers and pins along the eight lines through the king.
  Bitboard check_mask = Bitboard{}.Not();
  int num_checkers = 0;
  Bitboard pinned;
  int pinned_square[8];
  Bitboard pin_line[8];
  int num_pinned = 0;
  for (int d = 0; d < kNumDirections; ++d) {
    const Bitboard& attackers = d < 4 ? enemy_sliders : enemy_queens;
    if (attackers.None()) continue;
    const Bitboard& ray = t.ray[d][king];
    const Bitboard blockers = ray & occupied;
    if (blockers.None()) continue;
    const bool increasing = IsIncreasing(d);
    const int first = increasing ? blockers.Lowest() : blockers.Highest();
    if (enemy.Test(first)) {
      if (attackers.Test(first)) {
        ++num_checkers;
        check_mask = ray ^ t.ray[d][first];
      }
      continue;
    }
    const Bitboard beyond = t.ray[d][first] & occupied;
    if (beyond.None()) continue;
    const int second = increasing ? beyond.Lowest() : beyond.Highest();
    if (attackers.Test(second)) {
      pinned.Set(first);
      pinned_square[num_pinned] = first;
      pin_line[num_pinned] = ray ^ t.ray[d][second];
      ++num_pinned;
    }
  }

  // King: king steps and knight leaps inside its castle, capturing any enemy piece there.
  Bitboard without_king = occupied;
  without_king.Clear(king);
  ForEachSquare(t.king_targets[king].AndNot(own), [&](int to) {
    if (!SquareAttacked(p, to, without_king, them)) {
      list.Push(MakeMove(king, to, kKing, enemy.Test(to), false));
    }
  });
  if (num_checkers >= 2) return;

  // Rooks and queens.
  const Bitboard& promotion_zone = t.castle[them];
  Bitboard movers = own;
  movers.Clear(king);
  ForEachSquare(movers, [&](int from) {
    Bitboard mask = check_mask;
    if (pinned.Test(from)) {
      for (int i = 0; i < num_pinned; ++i) {
        if (pinned_square[i] == from) mask &= pin_line[i];
      }
    }
    const bool is_queen = p.queens.Test(from);
    const int kind = is_queen ? kQueen : kRook;
    const int num_directions = is_queen ? 8 : 4;
    const Bitboard capturable = t.capture_zone[us][from] & enemy_sliders & mask;
    for (int d = 0; d < num_directions; ++d) {
      const Bitboard& ray = t.ray[d][from];
      const Bitboard blockers = ray & occupied;
      Bitboard quiet = ray;
      if (blockers.Any()) {
        const int first = IsIncreasing(d) ? blockers.Lowest() : blockers.Highest();
        quiet = ray.AndNot(t.ray[d][first]);
        quiet.Clear(first);
        if (capturable.Test(first)) {
          list.Push(MakeMove(from, first, kind, true, !is_queen && promotion_zone.Test(first)));
        }
      }
      quiet &= mask;
      if constexpr (kIsMoveCounter<List>) {
        list.AddCount(quiet.Count());
      } else {
        ForEachSquare(quiet, [&](int to) VZ_INLINE_LAMBDA {
          list.Push(MakeMove(from, to, kind, false, !is_queen && promotion_zone.Test(to)));
        });
      }
    }
  });
}

// The number of legal moves of `p`: the size of GenerateMoves' list, counted without writing the
// moves (a slider's quiet targets by population count).
VZ_HD inline int CountMoves(const Position& p) {
  MoveCounter counter;
  GenerateMoves(p, counter);
  return counter.size;
}

// --- apply ---------------------------------------------------------------------------------

// Plays legal move `m` on `p`; the hash is updated incrementally.
VZ_HD inline void ApplyMove(Position& p, Move m) {
  const int us = int(p.side), them = 1 - us;
  const int from = MoveFrom(m), to = MoveTo(m), kind = MoveKind(m);
  if (IsCapture(m)) {
    const bool queen = p.queens.Test(to);
    p.hash ^= PieceKey(them, queen ? kQueen : kRook, to);
    p.pieces[them].Clear(to);
    p.queens.Clear(to);
  }
  p.pieces[us].Clear(from);
  p.pieces[us].Set(to);
  p.hash ^= PieceKey(us, kind, from);
  if (kind == kKing) {
    p.king[us] = uint8_t(to);
    p.hash ^= PieceKey(us, kKing, to);
  } else if (kind == kQueen || IsPromotion(m)) {
    p.queens.Clear(from);
    p.queens.Set(to);
    p.hash ^= PieceKey(us, kQueen, to);
  } else {
    p.hash ^= PieceKey(us, kRook, to);
  }
  // Counters saturate at kMaxCounter so that every reachable position still has a valid string.
  p.halfmove_clock = (IsCapture(m) || IsPromotion(m)) ? 0
                     : p.halfmove_clock < kMaxCounter ? p.halfmove_clock + 1
                                                      : kMaxCounter;
  if (p.side == Color::kBlack && p.move_number < kMaxCounter) ++p.move_number;
  p.side = Opponent(p.side);
  p.hash ^= ChadZobrist().key[kZobristSideKey];
}

// --- outcome and policy index --------------------------------------------------------------

// Outcome decided by `p` alone, given its number of legal moves: checkmate (loss of the side to
// move), stalemate (draw), then only the two kings left (draw). Repetition is the host's job.
VZ_HD inline Outcome LocalOutcome(const Position& p, int num_legal_moves) {
  if (num_legal_moves == 0) {
    if (InCheck(p)) return {WinFor(Opponent(p.side)), Reason::kCheckmate};
    return {Status::kDraw, Reason::kStalemate};
  }
  if ((p.pieces[0] | p.pieces[1]).Count() == 2) return {Status::kDraw, Reason::kBareKings};
  return {};
}

// Policy index of legal move `m` of `p` (layout at the top of this file).
VZ_HD inline int ActionIndex(const Position& p, Move m) {
  int from = MoveFrom(m), to = MoveTo(m);
  if (p.side == Color::kBlack) {
    from = kNumSquares - 1 - from;
    to = kNumSquares - 1 - to;
  }
  const int dx = FileOf(to) - FileOf(from), dy = RankOf(to) - RankOf(from);
  const int adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
  int offset;
  if (dx == 0 || dy == 0) {
    const int direction = dy > 0 ? 0 : dx > 0 ? 1 : dy < 0 ? 2 : 3;
    offset = direction * 11 + (adx + ady - 1);
  } else if (adx == ady) {
    const int direction = dx > 0 ? (dy > 0 ? 0 : 1) : (dy < 0 ? 2 : 3);
    offset = 44 + direction * 11 + (adx - 1);
  } else {
    constexpr int kLeapFile[8] = {1, 2, 2, 1, -1, -2, -2, -1};
    constexpr int kLeapRank[8] = {2, 1, -1, -2, -2, -1, 1, 2};
    int leap = 0;
    while (leap < 7 && (kLeapFile[leap] != dx || kLeapRank[leap] != dy)) ++leap;
    offset = 88 + leap;
  }
  return from * kActionsPerSquare + offset;
}

}  // namespace vz::chad
