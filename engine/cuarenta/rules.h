#pragma once

// The Cuarenta rule core (VZ_HD: host and CUDA device; no heap, no exceptions) over the Position
// of engine/cuarenta/position.h: legal move generation, apply, check, position-local outcome and
// the action (policy) index. The rules themselves are summarised in engine/cuarenta/game.h; the
// board and its index mapping in engine/cuarenta/tables.h.
//
// Move bit layout (vz::Move::raw):
//   bits  0..5   from square (0..39)
//   bits  6..11  to square (0..39); equal to from for a promotion in place
//   bits 12..14  promotion piece type (kCamel, kFrog, kGuard, kVao, kBishop), 0 = none
//   bit  15      castling (king's start square -> camel's start square)
//   other bits   zero
//
// Action index (policy index), in [0, kNumActions = 40 * 72): from * 72 + plane, where the from
// square and the step (dx, dy) are first turned half a turn when Black moves (square i -> 39 - i,
// (dx, dy) -> (-dx, -dy)), so that the side to move always plays up the board. Planes:
//    0..27  diagonal moves: direction (+1,+1) (-1,+1) (+1,-1) (-1,-1) * 7 + distance - 1 (1..7)
//   28..43  orthogonal moves: direction (0,+2) (+2,0) (0,-2) (-2,0) * 4 + steps - 1 (1..4)
//   44..51  camel leaps (+1,+3) (+1,-3) (-1,+3) (-1,-3) (+3,+1) (+3,-1) (-3,+1) (-3,-1); castling
//           uses the leap from the king's to the camel's start square (e2-h1 is (+3,-1))
//   52..66  pawn move with promotion: forward direction (-1,+1) (0,+2) (+1,+1) * 5 + piece index
//   67..71  promotion in place: piece index
// with piece index camel 0, frog 1, guard 2, vao 3, bishop 4. A pawn move that declines promotion
// uses the plain diagonal / orthogonal plane. Every legal move of a position gets its own index.

#include <cstdint>

#include "engine/core/types.h"
#include "engine/cuarenta/position.h"
#include "engine/cuarenta/tables.h"

namespace vz::cuarenta {

// Proven bound: at most 12 non-king pieces per side (the parser rejects more than 13 pieces), each
// with at most 19 legal moves (a pawn on its 8th rank: 3 targets x 6 promotion choices + camel in
// place; a slider has at most 14, frog 12, guard and camel 8), plus the king's 6 and castling.
inline constexpr int kMaxMoves = 256;
inline constexpr int kNumPlanes = 72;
inline constexpr int kNumActions = kNumSquares * kNumPlanes;
inline constexpr int kFortyMovePlies = 80;

// Castling squares of each colour (functions, not arrays: device code cannot index host arrays).
VZ_HD constexpr int KingStart(int color) { return color == 0 ? 6 : 33; }   // e2, e8
VZ_HD constexpr int CamelStart(int color) { return color == 0 ? 3 : 36; }  // h1, b9
VZ_HD constexpr uint64_t CastleSquares(int color) {
  return Bit(KingStart(color)) | Bit(CamelStart(color));
}

// Fields of a Move (layout above) and its construction; `promotion` is a PieceType or 0.
VZ_HD constexpr int MoveFrom(Move move) { return int(move.raw & 63); }
VZ_HD constexpr int MoveTo(Move move) { return int((move.raw >> 6) & 63); }
VZ_HD constexpr int MovePromotion(Move move) { return int((move.raw >> 12) & 7); }
VZ_HD constexpr bool MoveIsCastling(Move move) { return (move.raw >> 15) & 1; }
VZ_HD constexpr Move MakeMove(int from, int to, int promotion = 0, bool castling = false) {
  return Move{uint64_t(from) | uint64_t(to) << 6 | uint64_t(promotion) << 12 |
              uint64_t(castling) << 15};
}

// The Zobrist hash of p from scratch (pieces, side to move, castling rights).
VZ_HD inline uint64_t ComputeHash(const Position& p) {
  uint64_t hash = 0;
  for (int square = 0; square < kNumSquares; ++square) {
    if (p.board[square]) {
      hash ^= PieceKey(PieceColor(p.board[square]), PieceTypeOf(p.board[square]), square);
    }
  }
  if (p.side_to_move) hash ^= CuarentaZobrist().key[kZobristSideKey];
  for (int color = 0; color < 2; ++color) {
    if (p.castling & (1 << color)) hash ^= CuarentaZobrist().key[kZobristCastleKey + color];
  }
  return hash;
}

// The start: cffb/vgkgv/pppp/5/4/5/PPPP/VGKGV/BFFC w wb 0 1.
VZ_HD inline Position InitialPosition() {
  Position p = EmptyPosition();
  // White's setup; Black's is the same turned half a turn (square i -> 39 - i).
  const int squares[13] = {6, 0, 4, 8, 3, 1, 2, 5, 7, 9, 10, 11, 12};
  const int types[13] = {kKing,  kBishop, kVao,  kVao,  kCamel, kFrog, kFrog,
                         kGuard, kGuard,  kPawn, kPawn, kPawn,  kPawn};
  for (int k = 0; k < 13; ++k) {
    PutPiece(p, 0, types[k], squares[k]);
    PutPiece(p, 1, types[k], Rotate(squares[k]));
  }
  p.castling = 3;
  p.hash = ComputeHash(p);
  return p;
}

// ---- attacks ----

// Whether a bishop (the first piece on the diagonal) or a vao (the piece beyond the first, its
// screen) of `bishops` / `vaos` attacks `square` along diagonal direction d (0..3), with
// `occupied` as the occupancy; `bishops` and `vaos` must be subsets of `occupied`. A diagonal with
// neither returns at once.
VZ_HD VZ_FORCE_INLINE bool DiagonalAttacked(int square, int d, uint64_t occupied, uint64_t bishops,
                                            uint64_t vaos) {
  const BoardTables& t = Tables();
  const uint64_t ray = t.ray[d][square];
  if (!(ray & (bishops | vaos))) return false;
  const uint64_t blockers = ray & occupied;
  const int first = FirstOnRay(d, blockers);
  if (Bit(first) & bishops) return true;
  const uint64_t beyond = t.ray[d][first] & occupied;
  return beyond && (Bit(FirstOnRay(d, beyond)) & vaos);
}

// Whether a piece of the opponent of `us_color` (its pieces: `them` & p.by_type) could capture on
// `square`, with occupancy `occupied`. The caller passes occupancy and enemy set after a tentative
// move, so that legality needs no copy of the position; p.by_type is only ever masked with `them`.
VZ_HD VZ_FORCE_INLINE bool SquareAttacked(const Position& p, int square, int us_color,
                                          uint64_t occupied, uint64_t them) {
  const BoardTables& t = Tables();
  if (t.diagonal_step[square] & p.by_type[kKing] & them) return true;
  // An enemy pawn attacks `square` from where our own pawn would step forward to.
  if (t.pawn[us_color][square] & p.by_type[kPawn] & them) return true;
  if (t.guard[square] & p.by_type[kGuard] & them) return true;
  if (t.camel[square] & p.by_type[kCamel] & them) return true;
  const uint64_t frogs = p.by_type[kFrog] & them;
  if (t.orthogonal_step[square] & frogs) return true;
  const uint64_t bishops = p.by_type[kBishop] & them;
  const uint64_t vaos = p.by_type[kVao] & them;
  // A square often has no enemy bishop or vao on its diagonals: one test then skips the four.
  if (t.diagonals[square] & (bishops | vaos)) {
    for (int d = 0; d < 4; ++d) {
      if (DiagonalAttacked(square, d, occupied, bishops, vaos)) return true;
    }
  }
  // A frog captures by jumping an unbroken row of its own pieces: seen from `square`, an enemy
  // frog at distance >= 2 on one of its 8 lines with only enemy pieces between.
  for (uint64_t jumpers = t.frog_jump_reach[square] & frogs; jumpers; jumpers &= jumpers - 1) {
    const int frog = LowestBit(jumpers);
    const int d = t.direction[square][frog];
    const uint64_t between = t.ray[d][square] & ~t.ray[d][frog] & ~Bit(frog);
    if (!(between & ~them)) return true;
  }
  return false;
}

// Whether the side to move's king is attacked.
VZ_HD inline bool InCheck(const Position& p) {
  const int us = p.side_to_move;
  return SquareAttacked(p, p.king[us], us, p.by_color[0] | p.by_color[1], p.by_color[us ^ 1]);
}

// ---- move generation ----

namespace internal {

struct GenContext {
  uint64_t own, enemy, occupied, sensitive;
  int us, king;
  bool in_check;
};

// Legality of a move of a non-king piece from `from` to `to` (not castling, not in place). In
// check, the king is tested again against every attack (`sensitive` is every square). Out of
// check, only a bishop's or a vao's attack along the king's diagonal through `from` or `to` can
// appear: leapers do not care about occupancy, captures only remove attackers, and a frog's jump
// needs an unbroken row of its own pieces next to the king, which a move can only break. So a move
// that touches none of the king's four diagonals (`sensitive`) is legal, and otherwise only those
// (at most two) diagonals are tested again.
VZ_HD VZ_FORCE_INLINE bool PieceMoveLegal(const Position& p, const GenContext& c, int from,
                                          int to) {
  if (!((Bit(from) | Bit(to)) & c.sensitive)) return true;
  const uint64_t occupied = (c.occupied & ~Bit(from)) | Bit(to);
  const uint64_t them = c.enemy & ~Bit(to);
  if (c.in_check) return !SquareAttacked(p, c.king, c.us, occupied, them);
  const BoardTables& t = Tables();
  const uint64_t bishops = p.by_type[kBishop] & them, vaos = p.by_type[kVao] & them;
  const int from_line = t.direction[c.king][from], to_line = t.direction[c.king][to];
  if (from_line >= 0 && from_line < 4 &&
      DiagonalAttacked(c.king, from_line, occupied, bishops, vaos)) {
    return false;
  }
  return to_line < 0 || to_line >= 4 || to_line == from_line ||
         !DiagonalAttacked(c.king, to_line, occupied, bishops, vaos);
}

// Pushes the moves from `from` to each of `targets` that PieceMoveLegal allows, in square order.
// Only the moves that touch a sensitive square are tested.
template <class List>
VZ_HD VZ_FORCE_INLINE void PushTargets(const Position& p, const GenContext& c, List& list, int from,
                                       uint64_t targets) {
  uint64_t tested = Bit(from) & c.sensitive ? targets : targets & c.sensitive;
  uint64_t legal = targets & ~tested;
  for (; tested; tested &= tested - 1) {
    const int to = LowestBit(tested);
    if (PieceMoveLegal(p, c, from, to)) legal |= Bit(to);
  }
  if constexpr (kIsMoveCounter<List>) {
    list.AddCount(PopCount(legal));
  } else {
    for (; legal; legal &= legal - 1) list.Push(MakeMove(from, LowestBit(legal)));
  }
}

// Pushes the legal moves of every own piece of `type`, to targets_of(from) from each.
template <class List, class TargetsOf>
VZ_HD VZ_FORCE_INLINE void PushPieceMoves(const Position& p, const GenContext& c, List& list,
                                          int type, TargetsOf targets_of) {
  for (uint64_t bits = p.by_type[type] & c.own; bits; bits &= bits - 1) {
    const int from = LowestBit(bits);
    PushTargets(p, c, list, from, targets_of(from));
  }
}

}  // namespace internal

// Fills `list` (cleared first) with every legal move of p (draw rules ignored): per piece type,
// pawn moves followed by their promotion choices (camel, frog, guard, vao, bishop), promotions in
// place, then castling.
template <class List>
VZ_HD inline void GenerateMoves(const Position& p, List& list) {
  using internal::GenContext;
  using internal::PieceMoveLegal;
  using internal::PushTargets;
  const BoardTables& t = Tables();
  list.Clear();
  GenContext c;
  c.us = p.side_to_move;
  c.own = p.by_color[c.us];
  c.enemy = p.by_color[c.us ^ 1];
  c.occupied = c.own | c.enemy;
  c.king = p.king[c.us];
  const bool in_check = SquareAttacked(p, c.king, c.us, c.occupied, c.enemy);
  c.in_check = in_check;
  // Out of check, a move can only expose the king along a diagonal that holds an enemy bishop or
  // vao (captures and own pieces never add attackers), so only those diagonals are sensitive.
  if (in_check) {
    c.sensitive = kAllSquares;
  } else {
    const uint64_t sliders = (p.by_type[kBishop] | p.by_type[kVao]) & c.enemy;
    c.sensitive = 0;
    for (int d = 0; d < 4; ++d) {
      const uint64_t ray = t.ray[d][c.king];
      if (ray & sliders) c.sensitive |= ray;
    }
  }
  const uint64_t own = c.own, occupied = c.occupied;

  // Pawns. A pawn that reaches its promotion zone may become a camel, on the last rank also a
  // frog, guard, vao or bishop (or stay a pawn: the plain move comes first).
  const auto push_promotions = [&](int from, int to) {
    if (!(Bit(to) & t.zone[c.us])) return;
    list.Push(MakeMove(from, to, kCamel));
    if (!(Bit(to) & t.last_rank[c.us])) return;
    list.Push(MakeMove(from, to, kFrog));
    list.Push(MakeMove(from, to, kGuard));
    list.Push(MakeMove(from, to, kVao));
    list.Push(MakeMove(from, to, kBishop));
  };
  const uint64_t pawns = p.by_type[kPawn] & own;
  const uint64_t not_pawn_targets = own | (p.by_type[kPawn] & c.enemy);
  for (uint64_t bits = pawns; bits; bits &= bits - 1) {
    const int from = LowestBit(bits);
    const uint64_t targets = t.pawn[c.us][from] & ~not_pawn_targets;
    // Outside the promotion zone a pawn's moves are pushed as any piece's; inside it each move is
    // followed by its promotion choices.
    if (!(targets & t.zone[c.us])) {
      PushTargets(p, c, list, from, targets);
      continue;
    }
    for (uint64_t rest = targets; rest; rest &= rest - 1) {
      const int to = LowestBit(rest);
      if (!PieceMoveLegal(p, c, from, to)) continue;
      list.Push(MakeMove(from, to));
      push_promotions(from, to);
    }
  }
  // Promotion in place changes no occupancy, so it is legal exactly when not in check.
  if (!in_check) {
    for (uint64_t bits = pawns & t.zone[c.us]; bits; bits &= bits - 1) {
      const int square = LowestBit(bits);
      push_promotions(square, square);
    }
  }
  internal::PushPieceMoves(p, c, list, kGuard, [&](int from) { return t.guard[from] & ~own; });
  internal::PushPieceMoves(p, c, list, kCamel, [&](int from) { return t.camel[from] & ~own; });
  // Bishops: diagonal slides up to the first piece, capturing it if it is an enemy.
  internal::PushPieceMoves(p, c, list, kBishop, [&](int from) {
    uint64_t targets = 0;
    for (int d = 0; d < 4; ++d) {
      const uint64_t ray = t.ray[d][from];
      const uint64_t blockers = ray & occupied;
      targets |= blockers ? ray & ~t.ray[d][FirstOnRay(d, blockers)] : ray;
    }
    return targets & ~own;
  });
  // Vaos: diagonal moves to empty squares, captures only over one screen.
  internal::PushPieceMoves(p, c, list, kVao, [&](int from) {
    uint64_t targets = 0;
    for (int d = 0; d < 4; ++d) {
      const uint64_t ray = t.ray[d][from];
      const uint64_t blockers = ray & occupied;
      if (!blockers) {
        targets |= ray;
        continue;
      }
      const int screen = FirstOnRay(d, blockers);
      targets |= ray & ~t.ray[d][screen] & ~Bit(screen);
      const uint64_t beyond = t.ray[d][screen] & occupied;
      if (beyond) targets |= Bit(FirstOnRay(d, beyond)) & c.enemy;
    }
    return targets;
  });
  // Frogs: orthogonal steps, and jumps over a row of own pieces that does not reach the edge.
  internal::PushPieceMoves(p, c, list, kFrog, [&](int from) {
    uint64_t targets = t.orthogonal_step[from] & ~own;
    // Only the directions with an own piece next to the frog have a jump.
    for (uint64_t rows = t.neighbours[from] & own; rows; rows &= rows - 1) {
      const int d = t.direction[from][LowestBit(rows)];
      const uint64_t landing = t.ray[d][from] & ~own;
      if (landing) targets |= Bit(FirstOnRay(d, landing));
    }
    return targets;
  });
  // King: diagonal steps (move or capture), vertical steps onto empty squares, castling.
  {
    const int from = c.king;
    const uint64_t occupied_without_king = occupied & ~Bit(from);
    uint64_t targets = (t.diagonal_step[from] & ~own) | (t.vertical_step[from] & ~occupied);
    while (targets) {
      const int to = LowestBit(targets);
      targets &= targets - 1;
      if (!SquareAttacked(p, to, c.us, occupied_without_king | Bit(to), c.enemy & ~Bit(to))) {
        list.Push(MakeMove(from, to));
      }
    }
    // The exchange keeps the occupancy, so only the camel's square has to be safe. White may castle
    // only once Black has lost the right.
    const bool may_castle = (p.castling >> c.us) & 1 && (c.us == 1 || !(p.castling & 2));
    if (may_castle && !in_check && !SquareAttacked(p, CamelStart(c.us), c.us, occupied, c.enemy)) {
      list.Push(MakeMove(KingStart(c.us), CamelStart(c.us), 0, true));
    }
  }
}

// The number of legal moves of `p`: the size of GenerateMoves' list, counted without writing the
// moves (a piece's legal targets by population count).
VZ_HD inline int CountMoves(const Position& p) {
  MoveCounter counter;
  GenerateMoves(p, counter);
  return counter.size;
}

// ---- apply ----

// Plays legal move `move` on p: pieces, hash, castling rights, forty-move count, side to move and
// move number.
VZ_HD inline void ApplyMove(Position& p, Move move) {
  const int us = p.side_to_move;
  const int from = MoveFrom(move), to = MoveTo(move), promotion = MovePromotion(move);
  if (MoveIsCastling(move)) {
    RemovePiece(p, from);
    RemovePiece(p, to);
    PutPiece(p, us, kKing, to);
    PutPiece(p, us, kCamel, from);
    if (p.forty_count < 0xFFFF) ++p.forty_count;
  } else if (from == to) {
    RemovePiece(p, from);
    PutPiece(p, us, promotion, to);
    p.forty_count = 0;
  } else {
    const bool capture = p.board[to] != 0;
    if (capture) RemovePiece(p, to);
    const int type = PieceTypeOf(p.board[from]);
    RemovePiece(p, from);
    PutPiece(p, us, promotion ? promotion : type, to);
    if (capture || promotion) {
      p.forty_count = 0;
    } else if (p.forty_count < 0xFFFF) {
      ++p.forty_count;
    }
  }
  const uint64_t touched = Bit(from) | Bit(to);
  for (int color = 0; color < 2; ++color) {
    if ((p.castling >> color & 1) && (touched & CastleSquares(color))) {
      p.castling &= uint8_t(~(1 << color));
      p.hash ^= CuarentaZobrist().key[kZobristCastleKey + color];
    }
  }
  p.side_to_move = uint8_t(us ^ 1);
  p.hash ^= CuarentaZobrist().key[kZobristSideKey];
  if (us == 1 && p.move_number < 0xFFFF) ++p.move_number;  // saturates: no wrap to 0
}

// ---- outcome and action index ----

// Outcome decided by p alone, given its number of legal moves: checkmate (the side to move loses)
// and stalemate (draw) first, then bare kings, then the forty-move rule (count >= 80 plies).
VZ_HD inline Outcome LocalOutcome(const Position& p, int num_legal_moves) {
  if (num_legal_moves == 0) {
    if (InCheck(p)) return {WinFor(Color(p.side_to_move ^ 1)), Reason::kCheckmate};
    return {Status::kDraw, Reason::kStalemate};
  }
  if ((p.by_color[0] | p.by_color[1]) == p.by_type[kKing]) {
    return {Status::kDraw, Reason::kBareKings};
  }
  if (p.forty_count >= kFortyMovePlies) return {Status::kDraw, Reason::kFortyMoveRule};
  return {};
}

// Index 0..4 of a promotion piece in the action planes (camel, frog, guard, vao, bishop).
VZ_HD constexpr int PromotionIndex(int type) {
  return type == kCamel ? 0 : type == kFrog ? 1 : type == kGuard ? 2 : type == kVao ? 3 : 4;
}

// Dense policy index of legal move `move` of p, in [0, kNumActions); layout above.
VZ_HD inline int ActionIndex(const Position& p, Move move) {
  int from = MoveFrom(move), to = MoveTo(move);
  if (p.side_to_move == 1) {
    from = Rotate(from);
    to = Rotate(to);
  }
  const int promotion = MovePromotion(move);
  if (promotion && from == to) return from * kNumPlanes + 67 + PromotionIndex(promotion);
  const int dx = FileOf(to) - FileOf(from), dy = RankOf(to) - RankOf(from);
  int plane;
  if (promotion) {
    plane = 52 + (dx + 1) * 5 + PromotionIndex(promotion);
  } else if (dx == dy || dx == -dy) {
    const int direction = dy > 0 ? (dx > 0 ? 0 : 1) : (dx > 0 ? 2 : 3);
    plane = direction * 7 + (dx > 0 ? dx : -dx) - 1;
  } else if (dx == 0 || dy == 0) {
    const int direction = dy > 0 ? 0 : dx > 0 ? 1 : dy < 0 ? 2 : 3;
    plane = 28 + direction * 4 + ((dx + dy) > 0 ? dx + dy : -(dx + dy)) / 2 - 1;
  } else {
    const bool long_file_step = dx == 3 || dx == -3;
    plane = 44 + (long_file_step ? 4 : 0) + (dx > 0 ? 0 : 2) + (dy > 0 ? 0 : 1);
  }
  return from * kNumPlanes + plane;
}

}  // namespace vz::cuarenta
