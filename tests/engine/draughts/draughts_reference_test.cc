// An independent, slow Portuguese draughts move generator written only for tests: an 8x8 mailbox
// with (rank, file) coordinates, square numbers derived by walking the board as the rules page
// describes, capture sequences explored square by square with jumped pieces marked on a copy of
// the board. It shares nothing with the engine's bitboards, shift masks or ray tables. The engine
// must agree with it on random positions (move sets and resulting positions) and on perft; the
// perft values of the king positions in tests/data/perft/portuguese-draughts.txt were established
// by both.

#include <gtest/gtest.h>

#include <array>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine/draughts/game.h"
#include "tests/engine/game_test_util.h"

namespace vz::draughts {
namespace {

// Square numbers: rank by rank from rank 1, within a rank from file h to file a, dark squares
// only (a1 light, so (rank + file) odd is dark with file 0 = a).
struct Numbering {
  int number[8][8];  // [rank][file] -> 1..32 or 0
  int rank_of[33];
  int file_of[33];
};

Numbering MakeNumbering() {
  Numbering n{};
  int next = 1;
  for (int rank = 0; rank < 8; ++rank) {
    for (int file = 7; file >= 0; --file) {
      if ((rank + file) % 2 == 1) {
        n.number[rank][file] = next;
        n.rank_of[next] = rank;
        n.file_of[next] = file;
        ++next;
      }
    }
  }
  return n;
}

const Numbering kNumbering = MakeNumbering();

enum Cell : char {
  kEmpty = '.',
  kWhiteMan = 'w',
  kWhiteKing = 'W',
  kBlackMan = 'b',
  kBlackKing = 'B'
};

struct Board {
  std::array<std::array<char, 8>, 8> cell;  // [rank][file]
  bool white_to_move = true;
};

bool IsWhite(char c) { return c == kWhiteMan || c == kWhiteKing; }
bool IsBlack(char c) { return c == kBlackMan || c == kBlackKing; }
bool IsKing(char c) { return c == kWhiteKing || c == kBlackKing; }

Board FromPosition(const Position& p) {
  Board board;
  for (auto& row : board.cell) row.fill(kEmpty);
  for (int number = 1; number <= 32; ++number) {
    const uint32_t bit = uint32_t{1} << (number - 1);
    char c = kEmpty;
    if (p.white & bit) c = (p.kings & bit) ? kWhiteKing : kWhiteMan;
    if (p.black & bit) c = (p.kings & bit) ? kBlackKing : kBlackMan;
    board.cell[kNumbering.rank_of[number]][kNumbering.file_of[number]] = c;
  }
  board.white_to_move = p.side_to_move == Color::kWhite;
  return board;
}

// A move as the reference sees it: start number, end number, captured numbers as a bit set
// (bit number - 1).
using RefMove = std::tuple<int, int, uint32_t>;

struct Search {
  Board board;  // with the mover lifted off its start square and jumped pieces marked 'x'
  bool white = true;
  bool king = false;
  int from = 0;
  int best_count = 0, best_kings = 0;
  std::set<RefMove> moves;
};

bool Inside(int rank, int file) { return rank >= 0 && rank < 8 && file >= 0 && file < 8; }

void Explore(Search& s, int rank, int file, uint32_t captured, int count, int kings) {
  bool extended = false;
  const int kDirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  for (const auto& dir : kDirs) {
    if (!s.king && dir[0] != (s.white ? 1 : -1)) continue;
    int r = rank + dir[0], f = file + dir[1];
    if (s.king) {
      while (Inside(r, f) && s.board.cell[r][f] == kEmpty) r += dir[0], f += dir[1];
    }
    if (!Inside(r, f)) continue;
    const char target = s.board.cell[r][f];
    if (!(s.white ? IsBlack(target) : IsWhite(target))) continue;  // own piece or jumped ('x')
    const int target_number = kNumbering.number[r][f];
    int lr = r + dir[0], lf = f + dir[1];
    while (Inside(lr, lf) && s.board.cell[lr][lf] == kEmpty) {
      extended = true;
      s.board.cell[r][f] = 'x';
      Explore(s, lr, lf, captured | uint32_t{1} << (target_number - 1), count + 1,
              kings + IsKing(target));
      s.board.cell[r][f] = target;
      if (!s.king) break;
      lr += dir[0], lf += dir[1];
    }
  }
  if (extended || count == 0) return;
  if (count > s.best_count || (count == s.best_count && kings > s.best_kings)) {
    s.best_count = count;
    s.best_kings = kings;
    s.moves.clear();
  }
  if (count == s.best_count && kings == s.best_kings) {
    s.moves.insert({s.from, kNumbering.number[rank][file], captured});
  }
}

std::set<RefMove> ReferenceMoves(const Board& board) {
  Search s;
  s.board = board;
  s.white = board.white_to_move;
  for (int rank = 0; rank < 8; ++rank) {
    for (int file = 0; file < 8; ++file) {
      const char c = board.cell[rank][file];
      if (c == kEmpty || IsWhite(c) != board.white_to_move) continue;
      s.king = IsKing(c);
      s.from = kNumbering.number[rank][file];
      s.board.cell[rank][file] = kEmpty;  // the start square counts as empty
      Explore(s, rank, file, 0, 0, 0);
      s.board.cell[rank][file] = c;
    }
  }
  if (!s.moves.empty()) return s.moves;
  std::set<RefMove> plain;
  for (int rank = 0; rank < 8; ++rank) {
    for (int file = 0; file < 8; ++file) {
      const char c = board.cell[rank][file];
      if (c == kEmpty || IsWhite(c) != board.white_to_move) continue;
      const int dirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
      for (const auto& dir : dirs) {
        if (!IsKing(c) && dir[0] != (board.white_to_move ? 1 : -1)) continue;
        for (int r = rank + dir[0], f = file + dir[1]; Inside(r, f) && board.cell[r][f] == kEmpty;
             r += dir[0], f += dir[1]) {
          plain.insert({kNumbering.number[rank][file], kNumbering.number[r][f], 0});
          if (!IsKing(c)) break;
        }
      }
    }
  }
  return plain;
}

Board ReferenceApply(Board board, const RefMove& move) {
  const auto [from, to, captured] = move;
  char piece = board.cell[kNumbering.rank_of[from]][kNumbering.file_of[from]];
  board.cell[kNumbering.rank_of[from]][kNumbering.file_of[from]] = kEmpty;
  for (int number = 1; number <= 32; ++number) {
    if (captured >> (number - 1) & 1) {
      board.cell[kNumbering.rank_of[number]][kNumbering.file_of[number]] = kEmpty;
    }
  }
  const int to_rank = kNumbering.rank_of[to];
  if (piece == kWhiteMan && to_rank == 7) piece = kWhiteKing;
  if (piece == kBlackMan && to_rank == 0) piece = kBlackKing;
  board.cell[to_rank][kNumbering.file_of[to]] = piece;
  board.white_to_move = !board.white_to_move;
  return board;
}

uint64_t ReferencePerft(const Board& board, int depth) {
  return testing::ReferencePerft(
      board, depth, [](const Board& b) { return ReferenceMoves(b); },
      [](const Board& b, const RefMove& move) { return ReferenceApply(b, move); });
}

std::set<RefMove> EngineMoves(const Position& p) {
  DraughtsMoveList moves;
  GenerateMoves(p, moves);
  std::set<RefMove> result;
  for (Move move : moves) result.insert({MoveFrom(move) + 1, MoveTo(move) + 1, MoveCaptured(move)});
  EXPECT_EQ(int(result.size()), moves.size) << "duplicate moves in " << FormatPosition(p);
  return result;
}

// Random valid position: up to 12 pieces a side, men never on their crowning rank.
Position RandomPosition(std::mt19937_64& rng) {
  Position p;
  std::uniform_int_distribution<int> count(0, 9), kind(0, 99);
  const int pieces[2] = {1 + count(rng), 1 + count(rng)};
  const int king_percent = kind(rng);
  for (int colour = 0; colour < 2; ++colour) {
    for (int i = 0; i < pieces[colour]; ++i) {
      const int s = int(rng() % 32);
      const uint32_t bit = uint32_t{1} << s;
      if ((p.white | p.black) & bit) continue;
      bool king = kind(rng) < king_percent;
      if (colour == 0 && s >= 28) king = true;
      if (colour == 1 && s < 4) king = true;
      (colour == 0 ? p.white : p.black) |= bit;
      if (king) p.kings |= bit;
    }
  }
  p.side_to_move = rng() % 2 ? Color::kWhite : Color::kBlack;
  p.hash = ComputeHash(p);
  return p;
}

void ExpectSameMovesAndChildren(const Position& p) {
  const Board board = FromPosition(p);
  const std::set<RefMove> expected = ReferenceMoves(board);
  const std::set<RefMove> actual = EngineMoves(p);
  ASSERT_EQ(actual, expected) << FormatPosition(p);
  ASSERT_EQ(CountMoves(p), int(expected.size())) << FormatPosition(p);
  DraughtsMoveList moves;
  GenerateMoves(p, moves);
  for (Move move : moves) {
    Position child = p;
    ApplyMove(child, move);
    const Board reference_child =
        ReferenceApply(board, {MoveFrom(move) + 1, MoveTo(move) + 1, MoveCaptured(move)});
    const Board engine_child = FromPosition(child);
    ASSERT_EQ(engine_child.cell, reference_child.cell)
        << FormatMove(p, move) << " from " << FormatPosition(p);
    ASSERT_EQ(engine_child.white_to_move, reference_child.white_to_move);
    ASSERT_EQ(child.hash, ComputeHash(child));
  }
}

TEST(DraughtsReferenceTest, NumberingMatchesTheRulesPage) {
  // a8 = 32, g8 = 29, h7 = 25, h1 = 1, b1 = 4 (file 0 = a).
  EXPECT_EQ(kNumbering.number[7][0], 32);
  EXPECT_EQ(kNumbering.number[7][6], 29);
  EXPECT_EQ(kNumbering.number[6][7], 25);
  EXPECT_EQ(kNumbering.number[0][7], 1);
  EXPECT_EQ(kNumbering.number[0][1], 4);
  for (int number = 1; number <= 32; ++number) {
    EXPECT_EQ(SquareAt(kNumbering.rank_of[number], kNumbering.file_of[number]), number - 1);
  }
}

TEST(DraughtsReferenceTest, RandomPositionsAgree) {
  std::mt19937_64 rng(20261129);
  for (int i = 0; i < 20000; ++i) {
    ExpectSameMovesAndChildren(RandomPosition(rng));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(DraughtsReferenceTest, RandomGamesAgree) {
  std::mt19937_64 rng(5);
  for (int game = 0; game < 200; ++game) {
    Position p = InitialPosition();
    for (int ply = 0; ply < 300; ++ply) {
      ExpectSameMovesAndChildren(p);
      if (::testing::Test::HasFatalFailure()) return;
      DraughtsMoveList moves;
      GenerateMoves(p, moves);
      if (moves.size == 0) break;
      ApplyMove(p, moves[int(rng() % uint64_t(moves.size))]);
    }
  }
}

TEST(DraughtsReferenceTest, PerftAgreesFromTheStart) {
  const Board start = FromPosition(InitialPosition());
  const uint64_t expected[] = {1, 7, 49, 302, 1469, 7361, 36473};
  for (int depth = 0; depth <= 6; ++depth) {
    EXPECT_EQ(ReferencePerft(start, depth), expected[depth]) << depth;
  }
}

// Every entry of tests/data/perft/portuguese-draughts.txt other than the start position (whose
// values are published) has been established by both generators: the reference must match it.
TEST(DraughtsReferenceTest, PerftAgreesWithTheTable) {
  int checked = 0;
  for (const testing::PerftEntry& entry : testing::ReadPerftTable(DraughtsGame::kName)) {
    if (entry.fen == "startpos" || entry.nodes > 3000000) continue;
    EXPECT_EQ(ReferencePerft(FromPosition(ParsePosition(entry.fen)), entry.depth), entry.nodes)
        << entry.depth << " " << entry.fen;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace vz::draughts
