#pragma once

// Portuguese draughts rule core over the Position of engine/draughts/position.h: move encoding,
// legal move generation, apply, outcome. Host and device (VZ_HD); no heap, exceptions, virtual
// calls or std containers. The rules are summarised in engine/draughts/game.h; square numbering
// and bit layout in engine/draughts/tables.h.
//
// Move bit layout (vz::Move::raw, 64 bits):
//   bits  0- 4  from      bit index of the start square (square number - 1)
//   bits  5- 9  to        bit index of the final square (may equal `from` for a king capture)
//   bits 10-41  captured  mask of the captured pieces (0 for a plain move)
//   bit  42     promotion the moving man ends on its far rank and becomes a king
//   bits 43-63  zero
// The landing squares of a capture are not stored: a move is the triple (from, to, captured) and
// two capture sequences with the same triple are the same move. Notation recomputes a landing path
// when it needs the long form (engine/draughts/notation.h).

#include <cstdint>

#include "engine/core/macros.h"
#include "engine/core/types.h"
#include "engine/draughts/position.h"
#include "engine/draughts/tables.h"

namespace vz::draughts {

// Plies of the twenty-move rule (20 moves by each player without a man move or capture).
inline constexpr int kTwentyMovePlies = 40;
// Moves of the stronger side allowed under the three-kings-against-one rule.
inline constexpr int kThreeKingsMoves = 12;
// Upper bound on legal moves. Plain moves: at most 12 kings x 13 squares = 156. Captures have no
// simple proof of a bound; the generator checks it (VZ_CHECK) rather than overflow.
inline constexpr int kMaxMoves = 256;

using DraughtsMoveList = MoveList<kMaxMoves>;

VZ_HD constexpr Move MakeMove(int from, int to, uint32_t captured, bool promotion) {
  return Move{uint64_t(from) | uint64_t(to) << 5 | uint64_t(captured) << 10 |
              uint64_t(promotion) << 42};
}
VZ_HD constexpr int MoveFrom(Move move) { return int(move.raw & 31); }
VZ_HD constexpr int MoveTo(Move move) { return int((move.raw >> 5) & 31); }
VZ_HD constexpr uint32_t MoveCaptured(Move move) { return uint32_t(move.raw >> 10); }
VZ_HD constexpr bool MovePromotes(Move move) { return (move.raw >> 42) & 1; }
VZ_HD constexpr bool IsCapture(Move move) { return MoveCaptured(move) != 0; }

// Zobrist hash of `p` from scratch (pieces and side to move).
VZ_HD inline uint64_t ComputeHash(const Position& p) {
  const auto& keys = DraughtsZobrist().key;
  uint64_t hash = 0;
  for (uint32_t b = p.white | p.black; b; b &= b - 1) {
    const int s = LowestBit(b);
    const int kind = ((p.black >> s) & 1) * 2 + ((p.kings >> s) & 1);
    hash ^= keys[kind * kNumSquares + s];
  }
  if (p.side_to_move == Color::kBlack) hash ^= keys[kZobristSideIndex];
  return hash;
}

// True when one side has exactly three kings and no men and the other exactly one king.
VZ_HD inline bool IsThreeKingsAgainstOne(const Position& p) {
  if ((p.white | p.black) & ~p.kings) return false;
  const int white = PopCount(p.white), black = PopCount(p.black);
  return (white == 3 && black == 1) || (white == 1 && black == 3);
}

// The start position: White's men on 1-12, Black's on 21-32, White to move.
VZ_HD inline Position InitialPosition() {
  Position p;
  p.white = 0x00000FFFu;
  p.black = 0xFFF00000u;
  p.hash = ComputeHash(p);
  return p;
}

namespace internal {

// Depth-first search over capture sequences (Turkish strike: jumped pieces stay on the board
// until the move ends, block, and cannot be jumped twice). Keeps in `list` the distinct moves of
// the best score = 16 * pieces taken + kings taken (quantity, then quality).
struct CaptureSearch {
  uint32_t them;        // enemy pieces
  uint32_t them_kings;  // enemy kings
  uint32_t occupied;    // every piece but the mover (its start square counts as empty)
  int from;
  int best_score;  // starts at 16: a sequence must take at least one piece
  DraughtsMoveList* list;
};

// kMayRepeat: whether this piece can reach the same (to, captured) along two sequences. A man
// cannot: it rises two ranks per jump, so its captured pieces lie on distinct ranks and fix the
// order of its jumps; a king can (different landing squares, or a loop taken either way).
template <bool kMayRepeat>
VZ_HD VZ_FORCE_INLINE void Record(CaptureSearch& s, int to, uint32_t captured, int score,
                                  bool promotion) {
  if (score < s.best_score) return;
  const Move move = MakeMove(s.from, to, captured, promotion);
  if (score > s.best_score) {
    s.best_score = score;
    s.list->size = 0;
  } else if (kMayRepeat) {
    for (int i = 0; i < s.list->size; ++i) {
      if (s.list->moves[i] == move) return;
    }
  }
  VZ_CHECK(s.list->size < kMaxMoves);
  s.list->Push(move);
}

// A man rises two ranks per jump, so it makes at most three jumps in one capture (from rank 1 or
// 2 to rank 7 or 8).
inline constexpr int kMaxManJumps = 3;

// The most jumps a man of `colour` (0 White, 1 Black) can chain from `square` on an empty board
// with enemies everywhere: an upper bound on any capture of a man, which ManCaptures' unrolling
// must reach.
constexpr int LongestManJumpChain(const Geometry& g, int colour, int square) {
  int longest = 0;
  for (int i = 0; i < 2; ++i) {
    const int land = g.jump[square][colour == 0 ? i : 2 + i];  // men capture forwards only
    if (land < 0) continue;
    const int chain = 1 + LongestManJumpChain(g, colour, land);
    if (chain > longest) longest = chain;
  }
  return longest;
}

constexpr bool ManJumpChainsFit(int max_jumps) {
  const Geometry g = MakeGeometry();
  for (int colour = 0; colour < 2; ++colour) {
    for (int s = 0; s < kNumSquares; ++s) {
      if (LongestManJumpChain(g, colour, s) > max_jumps) return false;
    }
  }
  return true;
}
static_assert(ManJumpChainsFit(kMaxManJumps), "a man's capture can chain more than kMaxManJumps");

// The squares where a man of the side to move (kWhite) can land jumping forwards to the right
// ([0]) and to the left ([1]): empty, with an enemy piece one step back. A man never meets a
// piece it has jumped again (it rises two ranks per jump), so these hold through its whole
// capture, and a jump from a square is TwoSteps of its bit masked by them.
struct ManLandings {
  uint32_t right;
  uint32_t left;
};

template <bool kWhite>
VZ_HD VZ_FORCE_INLINE ManLandings ManLandingsOf(uint32_t them, uint32_t empty) {
  constexpr int kRight = kWhite ? kUpRight : kDownRight;
  constexpr int kLeft = kWhite ? kUpLeft : kDownLeft;
  return {Shift<kRight>(them) & empty, Shift<kLeft>(them) & empty};
}

// The capture sequences of a man standing on `square` after `kJumps` jumps; unrolled by kJumps
// (no recursion: at most kMaxManJumps jumps). Right before left, as the generation order.
template <bool kWhite, int kJumps>
VZ_HD VZ_FORCE_INLINE void ManCaptures(CaptureSearch& s, const ManLandings& landings, int square,
                                       uint32_t captured, int score) {
  constexpr int kRight = kWhite ? kUpRight : kDownRight;
  constexpr int kLeft = kWhite ? kUpLeft : kDownLeft;
  if constexpr (kJumps < kMaxManJumps) {
    const uint32_t right = TwoSteps<kRight>(Bit(square)) & landings.right;
    const uint32_t left = TwoSteps<kLeft>(Bit(square)) & landings.left;
    if (right | left) {
      if (right) {
        const uint32_t over = Shift<kRight>(Bit(square));
        ManCaptures<kWhite, kJumps + 1>(s, landings, LowestBit(right), captured | over,
                                        score + 16 + ((s.them_kings & over) ? 1 : 0));
      }
      if (left) {
        const uint32_t over = Shift<kLeft>(Bit(square));
        ManCaptures<kWhite, kJumps + 1>(s, landings, LowestBit(left), captured | over,
                                        score + 16 + ((s.them_kings & over) ? 1 : 0));
      }
      return;
    }
  }
  // A man never continues past its far rank (it has no forward square), so it crowns here.
  Record<false>(s, square, captured, score, kWhite ? square >= 28 : square < 4);
}

VZ_HD inline void KingCaptures(CaptureSearch& s, int square, uint32_t captured, int score) {
  const Geometry& g = GeometryTable();
  bool extended = false;
  for (int d = 0; d < kNumDirections; ++d) {
    const uint32_t blockers = g.ray[square][d] & s.occupied;
    if (!blockers) continue;
    const int target = FirstOnRay(blockers, d);
    const uint32_t target_bit = Bit(target);
    if (!(s.them & target_bit) || (captured & target_bit)) continue;
    uint32_t landings = g.ray[target][d];
    if (const uint32_t beyond = landings & s.occupied) {
      const int stop = FirstOnRay(beyond, d);
      landings &= ~(g.ray[stop][d] | Bit(stop));
    }
    const int next_score = score + 16 + ((s.them_kings & target_bit) ? 1 : 0);
    for (; landings; landings &= landings - 1) {
      extended = true;
      KingCaptures(s, LowestBit(landings), captured | target_bit, next_score);
    }
  }
  if (!extended) Record<true>(s, square, captured, score, false);
}

template <class List>
VZ_HD VZ_FORCE_INLINE void PushShifted(List& list, uint32_t targets, int delta,
                                       uint32_t promotion_rank) {
  if constexpr (kIsMoveCounter<List>) {
    list.AddCount(PopCount(targets));
  } else {
    for (; targets; targets &= targets - 1) {
      const int to = LowestBit(targets);
      list.Push(MakeMove(to - delta, to, 0, (promotion_rank >> to) & 1));
    }
  }
}

// The number of legal captures of the side to move (kWhite) whose men are `men`, in a position
// with no king on the board (p.kings == 0: then no king can capture, nor be taken, and every
// capture's score is its number of pieces), 0 when it has none. `landings`: ManLandingsOf the
// position. Every man's jump chains are followed at once over whole boards: a bit of a level-k
// board is one chain of k jumps, a distinct move (its landing square and the chain's directions
// fix its start and the pieces it took; ManLandings says why a chain needs no other state), and
// the legal captures are the chains of the deepest non-empty level (quantity rule).
template <bool kWhite>
VZ_HD VZ_FORCE_INLINE int CountManCaptures(uint32_t men, const ManLandings& landings) {
  constexpr int kRight = kWhite ? kUpRight : kDownRight;
  constexpr int kLeft = kWhite ? kUpLeft : kDownLeft;
  // The landing squares of one more jump to the right (left) from the squares `b`.
  const auto jump_right = [&](uint32_t b)
                              VZ_INLINE_LAMBDA { return TwoSteps<kRight>(b) & landings.right; };
  const auto jump_left = [&](uint32_t b)
                             VZ_INLINE_LAMBDA { return TwoSteps<kLeft>(b) & landings.left; };
  static_assert(kMaxManJumps == 3, "CountManCaptures follows three jumps");
  const uint32_t right = jump_right(men), left = jump_left(men);
  if (!(right | left)) return 0;
  const uint32_t right_right = jump_right(right), right_left = jump_left(right);
  const uint32_t left_right = jump_right(left), left_left = jump_left(left);
  if (!(right_right | right_left | left_right | left_left)) {
    return PopCount(right) + PopCount(left);
  }
  const uint32_t third[8] = {jump_right(right_right), jump_left(right_right),
                             jump_right(right_left),  jump_left(right_left),
                             jump_right(left_right),  jump_left(left_right),
                             jump_right(left_left),   jump_left(left_left)};
  int three = 0;
  for (const uint32_t b : third) three += PopCount(b);
  if (three) return three;
  return PopCount(right_right) + PopCount(right_left) + PopCount(left_right) + PopCount(left_left);
}

// Appends to `list` the capture sequences of the best score of the men `jumpers` (those with a
// jump) and the kings `kings` of the side to move (kWhite): none when no piece can capture.
template <bool kWhite>
VZ_HD VZ_FORCE_INLINE void FindCaptures(const Position& p, const ManLandings& landings,
                                        uint32_t jumpers, uint32_t kings, DraughtsMoveList& list) {
  const uint32_t them = kWhite ? p.black : p.white;
  const uint32_t occupied = p.white | p.black;
  CaptureSearch search{them, them & p.kings, 0, 0, 16, &list};
  for (uint32_t b = jumpers; b; b &= b - 1) {
    search.from = LowestBit(b);
    search.occupied = occupied & ~Bit(search.from);
    ManCaptures<kWhite, 0>(search, landings, search.from, 0, 0);
  }
  for (uint32_t b = kings; b; b &= b - 1) {
    search.from = LowestBit(b);
    search.occupied = occupied & ~Bit(search.from);
    KingCaptures(search, search.from, 0, 0);
  }
}

// `list`: a DraughtsMoveList, or a MoveCounter (the captures, which the search keeps in a list to
// drop repeated sequences, are then found in a local list and counted).
template <bool kWhite, class List>
VZ_HD void GenerateMovesFor(const Position& p, List& list) {
  const uint32_t us = kWhite ? p.white : p.black;
  const uint32_t them = kWhite ? p.black : p.white;
  const uint32_t occupied = p.white | p.black;
  const uint32_t empty = ~occupied;
  const uint32_t men = us & ~p.kings;
  const uint32_t kings = us & p.kings;

  const ManLandings landings = ManLandingsOf<kWhite>(them, empty);
  // Men with a jump: two steps back from a landing square (back from a jump to the right is
  // down-left for White).
  constexpr int kBackFromRight = kWhite ? kDownLeft : kUpLeft;
  constexpr int kBackFromLeft = kWhite ? kDownRight : kUpRight;
  const uint32_t jumpers =
      men & (TwoSteps<kBackFromRight>(landings.right) | TwoSteps<kBackFromLeft>(landings.left));
  if (jumpers | kings) {
    if constexpr (kIsMoveCounter<List>) {
      DraughtsMoveList captures;
      FindCaptures<kWhite>(p, landings, jumpers, kings, captures);
      if (captures.size) {
        list.AddCount(captures.size);
        return;
      }
    } else {
      FindCaptures<kWhite>(p, landings, jumpers, kings, list);
      if (list.size) return;
    }
  }

  if (kWhite) {
    PushShifted(list, ((men & kEvenRows & ~kColumnK0) << 3) & empty, 3, kRow7);
    PushShifted(list, ((men & kOddRows & ~kRow7) << 4) & empty, 4, kRow7);
    PushShifted(list, ((men & kEvenRows) << 4) & empty, 4, kRow7);
    PushShifted(list, ((men & kOddRows & ~kColumnK3 & ~kRow7) << 5) & empty, 5, kRow7);
  } else {
    PushShifted(list, ((men & kEvenRows & ~kColumnK0 & ~kRow0) >> 5) & empty, -5, kRow0);
    PushShifted(list, ((men & kOddRows) >> 4) & empty, -4, kRow0);
    PushShifted(list, ((men & kEvenRows & ~kRow0) >> 4) & empty, -4, kRow0);
    PushShifted(list, ((men & kOddRows & ~kColumnK3) >> 3) & empty, -3, kRow0);
  }

  const Geometry& g = GeometryTable();
  for (uint32_t b = kings; b; b &= b - 1) {
    const int from = LowestBit(b);
    for (int d = 0; d < kNumDirections; ++d) {
      uint32_t targets = g.ray[from][d];
      if (const uint32_t blockers = targets & occupied) {
        const int stop = FirstOnRay(blockers, d);
        targets &= ~(g.ray[stop][d] | Bit(stop));
      }
      if constexpr (kIsMoveCounter<List>) {
        list.AddCount(PopCount(targets));
      } else {
        for (; targets; targets &= targets - 1)
          list.Push(MakeMove(from, LowestBit(targets), 0, false));
      }
    }
  }
}

}  // namespace internal

// Fills `list` (cleared first) with every legal move of `p`: the captures of the best
// (quantity, quality) score if any capture exists, else every plain move. Draw rules are ignored
// (see LocalOutcome).
VZ_HD inline void GenerateMoves(const Position& p, DraughtsMoveList& list) {
  list.size = 0;
  if (p.side_to_move == Color::kWhite) {
    internal::GenerateMovesFor<true>(p, list);
  } else {
    internal::GenerateMovesFor<false>(p, list);
  }
}

namespace internal {

// CountMoves for the side to move kWhite. Men against men (no king on the board, the usual case)
// is counted here over whole boards; positions with kings go through the generator's count-only
// pass.
template <bool kWhite>
VZ_HD VZ_FORCE_INLINE int CountMovesFor(const Position& p) {
  if (p.kings) {
    MoveCounter counter;
    GenerateMovesFor<kWhite>(p, counter);
    return counter.size;
  }
  constexpr int kRight = kWhite ? kUpRight : kDownRight;
  constexpr int kLeft = kWhite ? kUpLeft : kDownLeft;
  const uint32_t men = kWhite ? p.white : p.black;
  const uint32_t empty = ~(p.white | p.black);
  const ManLandings landings = ManLandingsOf<kWhite>(kWhite ? p.black : p.white, empty);
  if (const int captures = CountManCaptures<kWhite>(men, landings)) return captures;
  return PopCount(Shift<kRight>(men) & empty) + PopCount(Shift<kLeft>(men) & empty);
}

}  // namespace internal

// The number of legal moves of `p`: the size of GenerateMoves' list, without writing it (the
// plain moves and the men's captures counted by population count).
VZ_HD VZ_FORCE_INLINE int CountMoves(const Position& p) {
  return p.side_to_move == Color::kWhite ? internal::CountMovesFor<true>(p)
                                         : internal::CountMovesFor<false>(p);
}

// Plays `move`, which must be legal in `p`: moves the piece, removes the captured pieces, crowns,
// updates both counters and the hash, and passes the turn.
VZ_HD VZ_FORCE_INLINE void ApplyMove(Position& p, Move move) {
  const auto& keys = DraughtsZobrist().key;
  const bool white = p.side_to_move == Color::kWhite;
  const int from = MoveFrom(move), to = MoveTo(move);
  const uint32_t captured = MoveCaptured(move);
  const uint32_t from_bit = Bit(from), to_bit = Bit(to);
  const bool king = (p.kings & from_bit) != 0;
  const int our_kind = white ? 0 : 2;
  const int their_kind = white ? 2 : 0;

  uint32_t& us = white ? p.white : p.black;
  uint32_t& them = white ? p.black : p.white;
  us = (us & ~from_bit) | to_bit;  // also right when from == to
  const bool promotion = MovePromotes(move);
  if (king) {
    p.kings = (p.kings & ~from_bit) | to_bit;
  } else if (promotion) {
    p.kings |= to_bit;
  }
  p.hash ^= keys[(our_kind + king) * kNumSquares + from] ^
            keys[(our_kind + (king || promotion)) * kNumSquares + to];

  if (captured) {
    for (uint32_t b = captured; b; b &= b - 1) {
      const int s = LowestBit(b);
      p.hash ^= keys[(their_kind + ((p.kings >> s) & 1)) * kNumSquares + s];
    }
    them &= ~captured;
    p.kings &= ~captured;
  }

  if (captured || !king) {
    // A man move or a capture: the twenty-move count restarts, and the material changed (or men
    // remain), so a three-kings count, if any, restarts from this first position.
    p.twenty_move_plies = 0;
    p.three_kings_moves = 0;
  } else {
    if (p.twenty_move_plies < kMaxCounter) ++p.twenty_move_plies;
    if (!IsThreeKingsAgainstOne(p)) {
      p.three_kings_moves = 0;
    } else if (PopCount(us) == 3 && p.three_kings_moves < kMaxCounter) {
      ++p.three_kings_moves;
    }
  }

  p.side_to_move = Opponent(p.side_to_move);
  p.hash ^= keys[kZobristSideIndex];
}

// Outcome decided by `p` alone, given its number of legal moves: no legal move loses (decided
// before any draw), then the twenty-move rule, then three kings against one.
VZ_HD inline Outcome LocalOutcome(const Position& p, int num_legal_moves) {
  if (num_legal_moves == 0) return {WinFor(Opponent(p.side_to_move)), Reason::kNoLegalMove};
  if (p.twenty_move_plies >= kTwentyMovePlies) return {Status::kDraw, Reason::kTwentyMoveRule};
  if (p.three_kings_moves >= kThreeKingsMoves && IsThreeKingsAgainstOne(p)) {
    return {Status::kDraw, Reason::kThreeKingsRule};
  }
  return {};
}

// Policy index in the side to move's frame (the board turned half a turn for Black, square s ->
// 31 - s, as the network's input planes are): from * 32 + to for White, 1023 - (from * 32 + to)
// for Black, in [0, 1024). Captures with equal start and end squares that take different pieces
// share an index.
VZ_HD constexpr int ActionIndex(const Position& p, Move move) {
  const int index = MoveFrom(move) * kNumSquares + MoveTo(move);
  return p.side_to_move == Color::kBlack ? kNumSquares * kNumSquares - 1 - index : index;
}

}  // namespace vz::draughts
