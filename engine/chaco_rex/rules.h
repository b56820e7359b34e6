#pragma once

// The Chaco Rex rule core (VZ_HD: host and CUDA device; no heap, no exceptions): legal move
// generation, applying a move, check, the position-local outcome and the action index.
// The rules themselves are summarised at the top of engine/chaco_rex/game.h.
//
// Move bit layout (vz::Move::raw):
//   bits  0..6   from cell (0..84, see engine/chaco_rex/tables.h)
//   bits  7..13  to cell
//   bits 14..16  promotion piece type (kKnight, kBishop, kRook, kQueen), 0 if none
//   bit  17      en-passant capture (the captured pawn stands beside `from`, across `to`)
//   bit  18      double step of a pawn (sets the en-passant cell to the cell passed over)
//   bits 19..63  zero
//
// Action index (policy index), in [0, kNumActions): cells are first seen from the side to move
// (for Black mirrored (x, y) -> (x, 10 - y), the network's frame). Then
//   from * 85 + to                          every move except an under-promotion
//   7225 + (slot * 2 + right) * 3 + k       an under-promotion: slot = 0..9 the from cell's
//                                           position on (seen) rank 8, right = 1 if the pawn goes
//                                           to the (+1, +1) cell, k = 0 knight, 1 bishop, 2 rook.
// Distinct legal moves of one position therefore always get distinct indices.

#include <cstdint>

#include "engine/chaco_rex/position.h"
#include "engine/chaco_rex/tables.h"
#include "engine/core/types.h"

namespace vz::chaco_rex {

// Upper bound on the legal moves of a valid position. Valid positions have at most 15 pawns per
// side and no more promoted pieces than missing pawns, so a side has at most 16 queens, 2 rooks,
// 3 bishops, 2 knights and a king. With the maxima over all cells (queen 40, rook 24, bishop 16,
// knight 12, king 6; a pawn's at most 8 moves are fewer than a queen's) that is
// 16 * 40 + 2 * 24 + 3 * 16 + 2 * 12 + 6 = 766 (checked against the tables by a test).
inline constexpr int kMaxMoves = 768;
inline constexpr int kNumActions = kNumCells * kNumCells + 10 * 2 * 3;

inline constexpr uint64_t kEnPassantFlag = uint64_t(1) << 17;
inline constexpr uint64_t kDoubleStepFlag = uint64_t(1) << 18;

// Builds and reads moves in the layout above (cells 0..84, promotion a PieceType or 0).
VZ_HD constexpr Move MakeMove(int from, int to, int promotion = 0, uint64_t flags = 0) {
  return Move{uint64_t(from) | uint64_t(to) << 7 | uint64_t(promotion) << 14 | flags};
}
VZ_HD constexpr int MoveFrom(Move m) { return int(m.raw & 127); }
VZ_HD constexpr int MoveTo(Move m) { return int((m.raw >> 7) & 127); }
VZ_HD constexpr int MovePromotion(Move m) { return int((m.raw >> 14) & 7); }
VZ_HD constexpr bool IsEnPassant(Move m) { return (m.raw & kEnPassantFlag) != 0; }
VZ_HD constexpr bool IsDoubleStep(Move m) { return (m.raw & kDoubleStepFlag) != 0; }

// The hash of `p` computed from its pieces, side and en-passant cell (ignores p.hash).
VZ_HD inline uint64_t ComputeHash(const Position& p) {
  uint64_t hash = 0;
  for (int cell = 0; cell < kNumCells; ++cell) {
    if (p.board[cell]) hash ^= PieceKey(p.board[cell], cell);
  }
  if (p.side_to_move) hash ^= SideKey();
  if (p.en_passant_cell >= 0) hash ^= EnPassantKey(p.en_passant_cell);
  return hash;
}

// The starting position of the rules page.
VZ_HD inline Position InitialPosition() {
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
  p.hash = ComputeHash(p);
  return p;
}

// The cell of the pawn an en-passant move from `from` to `to` removes: on the mover's rank, on
// the other side of `to` (two file letters = one index step along the rank).
VZ_HD VZ_FORCE_INLINE int EnPassantVictim(int from, int to) {
  const Geometry& g = CellGeometry();
  return from + (g.x[to] - g.x[from]);
}

// True if any piece of `attackers` (a subset of one colour's pieces) attacks `cell` when the
// occupied cells are `occupied`. Pawns attack their forward cells.
VZ_HD VZ_FORCE_INLINE bool IsAttacked(const Position& p, int cell, int attacker_color,
                                      Bitboard attackers, Bitboard occupied) {
  const StepTables& t = Steps();
  if (t.knight[cell] & attackers & p.by_type[kKnight]) return true;
  if (t.pawn_forward[attacker_color ^ 1][cell] & attackers & p.by_type[kPawn]) return true;
  if (t.king[cell] & attackers & p.by_type[kKing]) return true;
  const Bitboard orthogonal = attackers & (p.by_type[kRook] | p.by_type[kQueen]);
  if (t.orthogonal_lines[cell] & orthogonal) {
    for (int d = 0; d < 6; ++d) {
      const Bitboard ray = t.ray[cell][d];
      if (!(ray & orthogonal)) continue;
      if (CellBit(NearestOnRay(ray & occupied, d)) & orthogonal) return true;
    }
  }
  const Bitboard diagonal = attackers & (p.by_type[kBishop] | p.by_type[kQueen]);
  if (t.diagonal_lines[cell] & diagonal) {
    for (int d = 6; d < 12; ++d) {
      const Bitboard ray = t.ray[cell][d];
      if (!(ray & diagonal)) continue;
      if (CellBit(NearestOnRay(ray & occupied, d)) & diagonal) return true;
    }
  }
  return false;
}

// True if the king of `color` is attacked.
VZ_HD inline bool KingAttacked(const Position& p, int color) {
  return IsAttacked(p, p.king_cell[color], color ^ 1, p.by_color[color ^ 1],
                    p.by_color[0] | p.by_color[1]);
}

// True if the side to move is in check.
VZ_HD inline bool InCheck(const Position& p) { return KingAttacked(p, p.side_to_move); }

// Writes the legal en-passant captures of `p` into out[0..] and returns their number (0..2).
VZ_HD inline int LegalEnPassantMoves(const Position& p, Move out[2]) {
  if (p.en_passant_cell < 0) return 0;
  const int us = p.side_to_move, them = us ^ 1;
  const int target = p.en_passant_cell;
  const int king = p.king_cell[us];
  const Bitboard occupied = p.by_color[0] | p.by_color[1];
  const Bitboard capturers = Steps().pawn_forward[them][target] & p.by_color[us] & p.by_type[kPawn];
  int count = 0;
  ForEachCell(capturers, [&](int from) {
    const int victim = EnPassantVictim(from, target);
    const Bitboard victim_bit = CellBit(victim);
    if (!(victim_bit & p.by_color[them] & p.by_type[kPawn]) || (CellBit(target) & occupied)) {
      return;
    }
    const Bitboard after = (occupied ^ CellBit(from) ^ victim_bit) | CellBit(target);
    if (!IsAttacked(p, king, them, p.by_color[them] ^ victim_bit, after)) {
      out[count++] = MakeMove(from, target, 0, kEnPassantFlag);
    }
  });
  return count;
}

namespace internal {

template <class List>
VZ_HD VZ_FORCE_INLINE void PushAll(List& list, int from, Bitboard targets) {
  if constexpr (kIsMoveCounter<List>) {
    list.AddCount(PopCount(targets));
  } else {
    ForEachCell(targets, [&](int to) VZ_INLINE_LAMBDA { list.Push(MakeMove(from, to)); });
  }
}

// A count-only list's pawn moves: one move per target of a step or capture (`right`, `left`),
// four on the last ranks (the promotion choices), one per double step (`right2`, `left2`).
template <class List>
VZ_HD VZ_FORCE_INLINE void CountPawnMoves(List& list, Bitboard right, Bitboard left,
                                          Bitboard right2, Bitboard left2) {
  const StepTables& t = Steps();
  const Bitboard last_ranks = t.rank[1] | t.rank[kNumRanks];
  list.AddCount(PopCount(right) + PopCount(left) +
                3 * (PopCount(right & last_ranks) + PopCount(left & last_ranks)) +
                PopCount(right2) + PopCount(left2));
}

template <class List>
VZ_HD VZ_FORCE_INLINE void PushPawnMove(List& list, int from, int to) {
  if (to >= kFirstCellOfRank9 ||
      to < kFirstCellOfRank2) {  // last rank of the mover (pawns never go back)
    list.Push(MakeMove(from, to, kQueen));
    list.Push(MakeMove(from, to, kRook));
    list.Push(MakeMove(from, to, kBishop));
    list.Push(MakeMove(from, to, kKnight));
  } else {
    list.Push(MakeMove(from, to));
  }
}

// Pawn moves (not en passant) of the pawns `pawns` of the side to move, to cells of `targets`.
template <class List>
VZ_HD VZ_FORCE_INLINE void GeneratePawnMoves(const Position& p, List& list, Bitboard pawns,
                                             Bitboard targets, Bitboard empty) {
  const StepTables& t = Steps();
  if (p.side_to_move == 0) {
    // (+1, +1) is index + 10, (-1, +1) is + 9.
    const Bitboard right = ((pawns & ~t.file_t) << 10) & targets;
    const Bitboard left = ((pawns & ~t.file_a) << 9) & targets;
    const Bitboard start = pawns & t.rank[2];
    const Bitboard right2 = ((((start & ~t.file_t) << 10) & empty) << 10) & empty & targets;
    const Bitboard left2 = ((((start & ~t.file_a) << 9) & empty) << 9) & empty & targets;
    if constexpr (kIsMoveCounter<List>) {
      CountPawnMoves(list, right, left, right2, left2);
    } else {
      ForEachCell(right, [&](int to) VZ_INLINE_LAMBDA { PushPawnMove(list, to - 10, to); });
      ForEachCell(left, [&](int to) VZ_INLINE_LAMBDA { PushPawnMove(list, to - 9, to); });
      ForEachCell(right2, [&](int to) VZ_INLINE_LAMBDA {
        list.Push(MakeMove(to - 20, to, 0, kDoubleStepFlag));
      });
      ForEachCell(left2, [&](int to) VZ_INLINE_LAMBDA {
        list.Push(MakeMove(to - 18, to, 0, kDoubleStepFlag));
      });
    }
  } else {
    // (+1, -1) is index - 9, (-1, -1) is - 10.
    const Bitboard right = ((pawns & ~t.file_t) >> 9) & targets;
    const Bitboard left = ((pawns & ~t.file_a) >> 10) & targets;
    const Bitboard start = pawns & t.rank[8];
    const Bitboard right2 = ((((start & ~t.file_t) >> 9) & empty) >> 9) & empty & targets;
    const Bitboard left2 = ((((start & ~t.file_a) >> 10) & empty) >> 10) & empty & targets;
    if constexpr (kIsMoveCounter<List>) {
      CountPawnMoves(list, right, left, right2, left2);
    } else {
      ForEachCell(right, [&](int to) VZ_INLINE_LAMBDA { PushPawnMove(list, to + 9, to); });
      ForEachCell(left, [&](int to) VZ_INLINE_LAMBDA { PushPawnMove(list, to + 10, to); });
      ForEachCell(right2, [&](int to) VZ_INLINE_LAMBDA {
        list.Push(MakeMove(to + 18, to, 0, kDoubleStepFlag));
      });
      ForEachCell(left2, [&](int to) VZ_INLINE_LAMBDA {
        list.Push(MakeMove(to + 20, to, 0, kDoubleStepFlag));
      });
    }
  }
}

}  // namespace internal

// Fills `list` (cleared first) with every legal move of `p`. Checks and pins are found once from
// the king's lines, so only king moves and en-passant captures are tested by playing them out.
template <class List>
VZ_HD void GenerateMoves(const Position& p, List& list) {
  list.Clear();
  const StepTables& t = Steps();
  const int us = p.side_to_move, them = us ^ 1;
  const Bitboard own = p.by_color[us], opp = p.by_color[them];
  const Bitboard occupied = own | opp;
  const int king = p.king_cell[us];
  const Bitboard opp_orthogonal = opp & (p.by_type[kRook] | p.by_type[kQueen]);
  const Bitboard opp_diagonal = opp & (p.by_type[kBishop] | p.by_type[kQueen]);

  Bitboard checkers =
      opp & ((t.knight[king] & p.by_type[kKnight]) | (t.pawn_forward[us][king] & p.by_type[kPawn]));
  Bitboard evasions = checkers;  // cells a non-king move must go to when in single check
  Bitboard pinned = 0;
  int num_pins = 0;
  int pin_cell[kNumDirections];
  Bitboard pin_line[kNumDirections];
  for (int d = 0; d < kNumDirections; ++d) {
    const Bitboard sliders = d < 6 ? opp_orthogonal : opp_diagonal;
    const Bitboard ray = t.ray[king][d];
    if (!(ray & sliders)) continue;
    const Bitboard blockers = ray & occupied;
    const int first = NearestOnRay(blockers, d);
    const Bitboard first_bit = CellBit(first);
    if (first_bit & opp) {
      if (first_bit & sliders) {
        checkers |= first_bit;
        evasions |= ray & ~t.ray[first][d];
      }
      continue;
    }
    const Bitboard beyond = blockers & t.ray[first][d];
    if (!beyond) continue;
    const int second = NearestOnRay(beyond, d);
    if (CellBit(second) & sliders) {
      pinned |= first_bit;
      pin_cell[num_pins] = first;
      pin_line[num_pins++] = ray & ~t.ray[second][d];
    }
  }

  // King steps, each tested with the king lifted off the board (so that it cannot hide behind
  // itself on a slider's line).
  {
    const Bitboard without_king = occupied ^ CellBit(king);
    const Bitboard steps = t.king[king] & ~own;
    ForEachCell(steps, [&](int to) VZ_INLINE_LAMBDA {
      if (!IsAttacked(p, to, them, opp, without_king)) list.Push(MakeMove(king, to));
    });
  }

  if (p.en_passant_cell >= 0) {
    Move en_passant[2];
    const int count = LegalEnPassantMoves(p, en_passant);
    for (int i = 0; i < count; ++i) list.Push(en_passant[i]);
  }

  if (checkers & (checkers - 1)) return;  // double check: only the king moves
  const Bitboard targets = checkers ? evasions : (kAllCells & ~own);
  const Bitboard empty = kAllCells & ~occupied;

  Bitboard pieces = own & p.by_type[kKnight] & ~pinned;  // a pinned knight never stays on its line
  ForEachCell(pieces, [&](int from) VZ_INLINE_LAMBDA {
    internal::PushAll(list, from, t.knight[from] & targets);
  });
  // A pawn stepping onto the en-passant cell always captures: that move was generated above.
  const Bitboard pawn_targets =
      p.en_passant_cell >= 0 ? targets & ~CellBit(p.en_passant_cell) : targets;
  internal::GeneratePawnMoves(p, list, own & p.by_type[kPawn] & ~pinned, pawn_targets, empty);

  pieces = own & (p.by_type[kBishop] | p.by_type[kQueen]) & ~pinned;
  ForEachCell(pieces, [&](int from) VZ_INLINE_LAMBDA {
    internal::PushAll(list, from, DiagonalAttacks(from, occupied) & targets);
  });
  pieces = own & (p.by_type[kRook] | p.by_type[kQueen]) & ~pinned;
  ForEachCell(pieces, [&](int from) VZ_INLINE_LAMBDA {
    internal::PushAll(list, from, OrthogonalAttacks(from, occupied) & targets);
  });

  for (int i = 0; i < num_pins; ++i) {
    const int from = pin_cell[i];
    const Bitboard allowed = targets & pin_line[i];
    switch (PieceTypeOf(p.board[from])) {
      case kPawn:
        internal::GeneratePawnMoves(p, list, CellBit(from), allowed & pawn_targets, empty);
        break;
      case kBishop: internal::PushAll(list, from, DiagonalAttacks(from, occupied) & allowed); break;
      case kRook: internal::PushAll(list, from, OrthogonalAttacks(from, occupied) & allowed); break;
      case kQueen:
        internal::PushAll(
            list, from,
            (DiagonalAttacks(from, occupied) | OrthogonalAttacks(from, occupied)) & allowed);
        break;
      default: break;
    }
  }
}

// The number of legal moves of `p`: the size of GenerateMoves' list, counted without writing the
// moves (a piece's targets by population count).
VZ_HD inline int CountMoves(const Position& p) {
  MoveCounter counter;
  GenerateMoves(p, counter);
  return counter.size;
}

// Plays the legal move `m` on `p`: pieces, mailbox, en-passant cell, counters, side and the hash
// (updated incrementally).
VZ_HD inline void ApplyMove(Position& p, Move m) {
  const int from = MoveFrom(m), to = MoveTo(m);
  const int us = p.side_to_move;
  const uint8_t piece = p.board[from];
  const int type = PieceTypeOf(piece);
  uint64_t hash = p.hash ^ SideKey();
  if (p.en_passant_cell >= 0) hash ^= EnPassantKey(p.en_passant_cell);
  p.en_passant_cell = -1;
  // Counters saturate at kMaxCounter so that every reachable position still has a valid string.
  if (p.halfmove_clock < kMaxCounter) ++p.halfmove_clock;

  int captured_cell = to;
  if (IsEnPassant(m)) captured_cell = EnPassantVictim(from, to);
  const uint8_t captured = p.board[captured_cell];
  if (captured) {
    const Bitboard bit = CellBit(captured_cell);
    p.by_color[us ^ 1] ^= bit;
    p.by_type[PieceTypeOf(captured)] ^= bit;
    p.board[captured_cell] = 0;
    hash ^= PieceKey(captured, captured_cell);
    p.halfmove_clock = 0;
  }

  const Bitboard from_to = CellBit(from) | CellBit(to);
  p.by_color[us] ^= from_to;
  p.board[from] = 0;
  hash ^= PieceKey(piece, from);
  const int promotion = MovePromotion(m);
  if (promotion) {
    const uint8_t promoted = MakePiece(us, promotion);
    p.by_type[kPawn] ^= CellBit(from);
    p.by_type[promotion] ^= CellBit(to);
    p.board[to] = promoted;
    hash ^= PieceKey(promoted, to);
  } else {
    p.by_type[type] ^= from_to;
    p.board[to] = piece;
    hash ^= PieceKey(piece, to);
  }
  if (type == kPawn) {
    p.halfmove_clock = 0;
    if (IsDoubleStep(m)) {
      p.en_passant_cell = int8_t((from + to) / 2);
      hash ^= EnPassantKey(p.en_passant_cell);
    }
  } else if (type == kKing) {
    p.king_cell[us] = uint8_t(to);
  }
  if (us == 1 && p.fullmove_number < kMaxCounter) ++p.fullmove_number;
  p.side_to_move = uint8_t(us ^ 1);
  p.hash = hash;
}

// No pawns, rooks or queens, and at most one knight or bishop on the whole board.
VZ_HD inline bool InsufficientMaterial(const Position& p) {
  if (p.by_type[kPawn] | p.by_type[kRook] | p.by_type[kQueen]) return false;
  return PopCount(p.by_type[kKnight] | p.by_type[kBishop]) <= 1;
}

// Checkmate and stalemate first (from `num_legal_moves`, the number of legal moves of `p`), then
// insufficient material. Repetition needs history and is left to the host (vz::GameState).
VZ_HD inline Outcome LocalOutcome(const Position& p, int num_legal_moves) {
  if (num_legal_moves == 0) {
    if (InCheck(p)) return {WinFor(Color(p.side_to_move ^ 1)), Reason::kCheckmate};
    return {Status::kDraw, Reason::kStalemate};
  }
  if (InsufficientMaterial(p)) return {Status::kDraw, Reason::kInsufficientMaterial};
  return {};
}

// The repetition key: the hash without the en-passant cell unless an en-passant capture is
// legal (FIDE: positions differ only if the capture is really possible).
VZ_HD inline uint64_t RepetitionKey(const Position& p) {
  if (p.en_passant_cell < 0) return p.hash;
  Move unused[2];
  if (LegalEnPassantMoves(p, unused) > 0) return p.hash;
  return p.hash ^ EnPassantKey(p.en_passant_cell);
}

// Action index of legal move `m` of `p` (layout above).
VZ_HD inline int ActionIndex(const Position& p, Move m) {
  const Geometry& g = CellGeometry();
  int from = MoveFrom(m), to = MoveTo(m);
  if (p.side_to_move == 1) {
    from = g.mirror[from];
    to = g.mirror[to];
  }
  const int promotion = MovePromotion(m);
  if (promotion == 0 || promotion == kQueen) return from * kNumCells + to;
  const int slot = from - kFirstCellOfRank8;
  const int right = g.x[to] > g.x[from] ? 1 : 0;
  return kNumCells * kNumCells + (slot * 2 + right) * 3 + (promotion - kKnight);
}

}  // namespace vz::chaco_rex
