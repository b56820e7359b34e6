// Chaco Rex rules: geometry, pawns, en passant, promotion, check, pins, outcomes, repetition and
// the action index, on positions built from position strings.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "engine/chaco_rex/game.h"
#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/core/perft.h"
#include "tests/engine/game_test_util.h"

namespace vz::chaco_rex {
namespace {

using G = ChacoRexGame;

G::Position Parse(const std::string& fen) { return G::ParsePosition(fen); }

std::vector<std::string> Moves(const G::Position& p) { return testing::SortedMoveTexts<G>(p); }

// Protocol moves of the piece on `from`, sorted.
std::vector<std::string> MovesFrom(const G::Position& p, const std::string& from) {
  std::vector<std::string> result;
  for (const std::string& m : Moves(p)) {
    if (m.substr(0, 2) == from) result.push_back(m);
  }
  return result;
}

Move Find(const G::Position& p, const std::string& text) { return G::ParseMove(p, text); }

G::Position After(G::Position p, const std::string& text) {
  G::ApplyMove(p, Find(p, text));
  return p;
}

std::string Name(int x, int y) { return CellName(CellIndex(x, y)); }

// A position string with the given pieces (cell name -> FEN letter) and side to move.
std::string MakeFen(const std::vector<std::pair<std::string, char>>& pieces, char side,
                    const std::string& en_passant = "-") {
  Position p = EmptyPosition();
  for (const auto& [cell, letter] : pieces) {
    const int color = std::isupper(static_cast<unsigned char>(letter)) ? 0 : 1;
    const std::string types = " pnbrqk";
    PutPiece(p, MakePiece(color, int(types.find(char(std::tolower(letter))))), ParseCell(cell));
  }
  std::string fen = FormatPosition(p);
  fen[fen.find(" w ") + 1] = side;
  if (en_passant != "-") fen.replace(fen.find(" - "), 3, " " + en_passant + " ");
  return fen;
}

// ---------------------------------------------------------------------------------------------
// Board and piece geometry.

TEST(ChacoRexRulesTest, BoardHas85CellsWithTheRulesPageFiles) {
  int count = 0;
  for (int y = 1; y <= 9; ++y) {
    for (int x = 0; x < 19; ++x) count += CellExists(x, y);
  }
  EXPECT_EQ(count, 85);
  EXPECT_EQ(CellName(0), "b1");
  EXPECT_EQ(CellName(9), "a2");
  EXPECT_EQ(CellName(42), "j5");
  EXPECT_EQ(CellName(84), "s9");
  EXPECT_EQ(CellName(CellIndex(10, 2)), "l2");  // the letter after j is l: no file k
}

// From h5 on an otherwise empty board (the kings stand off every line through h5).
TEST(ChacoRexRulesTest, MoveCountsFromH5OnEmptyBoard) {
  const std::vector<std::pair<char, size_t>> expected = {
      {'K', 6}, {'R', 24}, {'B', 14}, {'Q', 38}, {'N', 12}};
  for (const auto& [letter, count] : expected) {
    if (letter == 'K') {
      const G::Position p = Parse(MakeFen({{"h5", 'K'}, {"t8", 'k'}}, 'w'));
      EXPECT_EQ(MovesFrom(p, "h5").size(), count) << letter;
    } else {
      const G::Position p = Parse(MakeFen({{"h5", letter}, {"t8", 'K'}, {"a2", 'k'}}, 'w'));
      EXPECT_EQ(MovesFrom(p, "h5").size(), count) << letter;
    }
  }
}

TEST(ChacoRexRulesTest, KingStepsAreTheSixOrthogonalNeighbours) {
  const G::Position p = Parse(MakeFen({{"h5", 'K'}, {"t8", 'k'}}, 'w'));
  EXPECT_EQ(MovesFrom(p, "h5"),
            (std::vector<std::string>{"h5f5", "h5g4", "h5g6", "h5i4", "h5i6", "h5j5"}));
}

TEST(ChacoRexRulesTest, KnightLeapsAreTheTwelveOfTheRulesPage) {
  const G::Position p = Parse(MakeFen({{"h5", 'N'}, {"t8", 'K'}, {"a2", 'k'}}, 'w'));
  // (+-1, +-3) g8 i8 g2 i2; (+-4, +-2) m7 d7 m3 d3; (+-5, +-1) n6 c6 n4 c4.
  EXPECT_EQ(MovesFrom(p, "h5"),
            (std::vector<std::string>{"h5c4", "h5c6", "h5d3", "h5d7", "h5g2", "h5g8", "h5i2",
                                      "h5i8", "h5m3", "h5m7", "h5n4", "h5n6"}));
}

TEST(ChacoRexRulesTest, BishopIsNotBlockedByTheTwoCellsBesideItsLine) {
  // From h5 the bishop steps (0, +2) to h7 between g6 and i6, (+3, +1) to l6 between i6 and j5,
  // (0, -2) to h3 between g4 and i4: none of those five pieces blocks it.
  const std::string crowd = MakeFen({{"h5", 'B'},
                                     {"g6", 'P'},
                                     {"i6", 'P'},
                                     {"j5", 'P'},
                                     {"g4", 'p'},
                                     {"i4", 'p'},
                                     {"t8", 'K'},
                                     {"a2", 'k'}},
                                    'w');
  const G::Position p = Parse(crowd);
  const std::vector<std::string> moves = MovesFrom(p, "h5");
  EXPECT_TRUE(std::count(moves.begin(), moves.end(), "h5h7"));  // between g6 and i6
  EXPECT_TRUE(std::count(moves.begin(), moves.end(), "h5h9"));
  EXPECT_TRUE(std::count(moves.begin(), moves.end(), "h5l6"));  // between i6 and j5
  EXPECT_TRUE(std::count(moves.begin(), moves.end(), "h5h3"));  // between g4 and i4 (enemy)
  EXPECT_EQ(moves.size(), 14u);
}

TEST(ChacoRexRulesTest, SlidersStopAtTheFirstPieceAndCaptureOnlyEnemies) {
  // Rook on h5: the own pawn on m5 stops it after j5; the enemy pawn on d5 is captured, f5 passed.
  const G::Position p =
      Parse(MakeFen({{"h5", 'R'}, {"m5", 'P'}, {"d5", 'p'}, {"t8", 'K'}, {"a2", 'k'}}, 'w'));
  std::vector<std::string> rank_moves;
  for (const std::string& m : MovesFrom(p, "h5")) {
    if (m[3] == '5') rank_moves.push_back(m);
  }
  EXPECT_EQ(rank_moves, (std::vector<std::string>{"h5d5", "h5f5", "h5j5"}));
}

// ---------------------------------------------------------------------------------------------
// Pawns.

TEST(ChacoRexRulesTest, WhitePawnMovesAndCapturesToBothForwardCells) {
  // h3 (rank 3, no double step): forward cells g4 and i4, the knight on i4 is captured.
  G::Position p = Parse(MakeFen({{"h3", 'P'}, {"i4", 'n'}, {"b1", 'K'}, {"s9", 'k'}}, 'w'));
  EXPECT_EQ(MovesFrom(p, "h3"), (std::vector<std::string>{"h3g4", "h3i4"}));
  EXPECT_EQ(G::FormatDisplayMove(p, Find(p, "h3i4")), "h3xi4");
  // Own piece ahead blocks; a pawn never moves straight ahead (h5) nor sideways.
  p = Parse(MakeFen({{"h3", 'P'}, {"g4", 'N'}, {"b1", 'K'}, {"s9", 'k'}}, 'w'));
  EXPECT_EQ(MovesFrom(p, "h3"), (std::vector<std::string>{"h3i4"}));
}

TEST(ChacoRexRulesTest, BlackPawnMovesDownTheBoard) {
  const G::Position p =
      Parse(MakeFen({{"h7", 'p'}, {"g6", 'N'}, {"i6", 'n'}, {"b1", 'K'}, {"s9", 'k'}}, 'b'));
  EXPECT_EQ(MovesFrom(p, "h7"), (std::vector<std::string>{"h7g6"}));
}

TEST(ChacoRexRulesTest, EdgeFilePawnsOnA2AndT2) {
  const G::Position p = Parse(MakeFen({{"a2", 'P'}, {"t2", 'P'}, {"m1", 'K'}, {"m9", 'k'}}, 'w'));
  EXPECT_EQ(MovesFrom(p, "a2"), (std::vector<std::string>{"a2b3", "a2c4"}));
  EXPECT_EQ(MovesFrom(p, "t2"), (std::vector<std::string>{"t2r4", "t2s3"}));
  const G::Position black =
      Parse(MakeFen({{"a8", 'p'}, {"t8", 'p'}, {"m1", 'K'}, {"m9", 'k'}}, 'b'));
  EXPECT_EQ(MovesFrom(black, "a8"), (std::vector<std::string>{"a8b7", "a8c6"}));
  EXPECT_EQ(MovesFrom(black, "t8"), (std::vector<std::string>{"t8r6", "t8s7"}));
}

TEST(ChacoRexRulesTest, DoubleStepNeedsEmptyPassedAndDestinationCellsAndNeverCaptures) {
  // g2: passed cells f3 / h3, destinations e4 / i4.
  G::Position p = Parse(MakeFen({{"g2", 'P'}, {"m1", 'K'}, {"m9", 'k'}}, 'w'));
  EXPECT_EQ(MovesFrom(p, "g2"), (std::vector<std::string>{"g2e4", "g2f3", "g2h3", "g2i4"}));
  p = Parse(MakeFen({{"g2", 'P'}, {"h3", 'N'}, {"e4", 'n'}, {"m1", 'K'}, {"m9", 'k'}}, 'w'));
  EXPECT_EQ(MovesFrom(p, "g2"), (std::vector<std::string>{"g2f3"}));
  const Move double_step =
      Find(Parse(MakeFen({{"g2", 'P'}, {"m1", 'K'}, {"m9", 'k'}}, 'w')), "g2i4");
  EXPECT_TRUE(IsDoubleStep(double_step));
}

TEST(ChacoRexRulesTest, PawnOnRank3HasNoDoubleStep) {
  const G::Position start = G::InitialPosition();
  EXPECT_EQ(MovesFrom(start, "h3"), (std::vector<std::string>{"h3g4", "h3i4"}));
  const G::Position p = Parse(MakeFen({{"h3", 'P'}, {"m1", 'K'}, {"m9", 'k'}}, 'w'));
  EXPECT_EQ(MovesFrom(p, "h3"), (std::vector<std::string>{"h3g4", "h3i4"}));
  const G::Position black = Parse(MakeFen({{"h7", 'p'}, {"m1", 'K'}, {"m9", 'k'}}, 'b'));
  EXPECT_EQ(MovesFrom(black, "h7"), (std::vector<std::string>{"h7g6", "h7i6"}));
}

TEST(ChacoRexRulesTest, StartPositionMoves) {
  const std::vector<std::string> moves = Moves(G::InitialPosition());
  EXPECT_EQ(moves.size(), 30u);
  // Rank 2 pawns behind the rank 3 pawns are blocked except toward free cells.
  EXPECT_EQ(MovesFrom(G::InitialPosition(), "a2"), (std::vector<std::string>{"a2b3", "a2c4"}));
  EXPECT_EQ(MovesFrom(G::InitialPosition(), "e2"), (std::vector<std::string>{"e2c4", "e2d3"}));
  EXPECT_EQ(MovesFrom(G::InitialPosition(), "g2"), (std::vector<std::string>{}));
}

// The rules page example: White g2-i4 passes h3; the Black pawn on g4 answers g4xh3 and the
// pawn on i4 leaves the board.
TEST(ChacoRexRulesTest, EnPassantExampleOfTheRulesPage) {
  const G::Position before =
      Parse(MakeFen({{"g2", 'P'}, {"g4", 'p'}, {"m1", 'K'}, {"m9", 'k'}}, 'w'));
  const G::Position after_step = After(before, "g2i4");
  EXPECT_EQ(G::FormatPosition(after_step), "5k3/10/9/10/9/3pP5/9/10/5K3 b h3 0 1");
  const Move capture = Find(after_step, "g4h3");
  EXPECT_TRUE(IsEnPassant(capture));
  EXPECT_EQ(G::FormatDisplayMove(after_step, capture), "g4xh3");
  EXPECT_EQ(G::ParseMove(after_step, "g4xh3"), capture);
  G::Position taken = after_step;
  G::ApplyMove(taken, capture);
  EXPECT_EQ(G::FormatPosition(taken), "5k3/10/9/10/9/10/3p5/10/5K3 w - 0 2");
  // Only one move onto h3 exists: the capture (no separate quiet move).
  EXPECT_EQ(MovesFrom(after_step, "g4"), (std::vector<std::string>{"g4f3", "g4h3"}));
}

TEST(ChacoRexRulesTest, EnPassantRightExpiresAfterOneMove) {
  G::Position p = Parse(MakeFen({{"g2", 'P'}, {"g4", 'p'}, {"m1", 'K'}, {"m9", 'k'}}, 'w'));
  p = After(p, "g2i4");
  p = After(p, "m9o9");
  p = After(p, "m1o1");
  EXPECT_EQ(G::FormatPosition(p), "6k2/10/9/10/9/3pP5/9/10/6K2 b - 2 2");
  const Move step = Find(p, "g4h3");
  EXPECT_FALSE(IsEnPassant(step));
  G::ApplyMove(p, step);
  EXPECT_EQ(G::FormatPosition(p), "6k2/10/9/10/9/4P5/3p5/10/6K2 w - 0 3");  // i4 stays
}

TEST(ChacoRexRulesTest, EnPassantForWhiteAndBothCapturersOfOneCell) {
  // Black l8-n6 passes m7; the White pawn on l6 (forward cells j7 and m7) takes on m7 and
  // removes n6, across m7 on its own rank.
  G::Position p = Parse(MakeFen({{"l8", 'p'}, {"l6", 'P'}, {"b1", 'K'}, {"s9", 'k'}}, 'b'));
  p = After(p, "l8n6");
  EXPECT_EQ(G::FormatPosition(p).substr(G::FormatPosition(p).find(' ')), " w m7 0 2");
  const Move capture = Find(p, "l6m7");
  EXPECT_TRUE(IsEnPassant(capture));
  G::ApplyMove(p, capture);
  EXPECT_EQ(p.board[ParseCell("n6")], 0);
  EXPECT_EQ(p.board[ParseCell("m7")], MakePiece(0, kPawn));
}

TEST(ChacoRexRulesTest, EnPassantThatExposesTheOwnKingIsIllegal) {
  // After the capture l6xm7 both l6 and n6 are empty: the rook on t6 would see the king on a6.
  const G::Position p = Parse("5k3/10/9/K4Pp2r/9/10/9/10/9 w m7 0 1");
  EXPECT_EQ(MovesFrom(p, "l6"), (std::vector<std::string>{"l6j7"}));
  // The same with the rook gone: legal.
  const G::Position free = Parse("5k3/10/9/K4Pp3/9/10/9/10/9 w m7 0 1");
  EXPECT_EQ(MovesFrom(free, "l6"), (std::vector<std::string>{"l6j7", "l6m7"}));
}

TEST(ChacoRexRulesTest, EnPassantCanCaptureTheCheckingPawn) {
  const G::Position p = Parse("5k3/10/9/5Pp3/5K3/10/9/10/9 w m7 0 1");
  EXPECT_TRUE(G::InCheck(p));
  EXPECT_EQ(MovesFrom(p, "l6"), (std::vector<std::string>{"l6m7"}));
}

TEST(ChacoRexRulesTest, PromotionToEachPiece) {
  const G::Position p = Parse(MakeFen({{"c8", 'P'}, {"d9", 'r'}, {"s1", 'K'}, {"t8", 'k'}}, 'w'));
  EXPECT_EQ(MovesFrom(p, "c8"), (std::vector<std::string>{"c8b9b", "c8b9n", "c8b9q", "c8b9r",
                                                          "c8d9b", "c8d9n", "c8d9q", "c8d9r"}));
  const char* const letters = "qrbn";
  const int types[] = {kQueen, kRook, kBishop, kKnight};
  for (int i = 0; i < 4; ++i) {
    const G::Position child = After(p, std::string("c8d9") + letters[i]);
    EXPECT_EQ(child.board[ParseCell("d9")], MakePiece(0, types[i]));
    EXPECT_EQ(child.board[ParseCell("c8")], 0);
    EXPECT_EQ(PopCount(child.by_type[kPawn]), 0);
    EXPECT_EQ(G::Hash(child), G::ComputeHash(child));
  }
  EXPECT_EQ(G::FormatDisplayMove(p, Find(p, "c8d9q")), "c8xd9=D");
  EXPECT_EQ(G::FormatDisplayMove(p, Find(p, "c8b9n")), "c8-b9=C");
  // Black promotes on rank 1.
  const G::Position black = Parse(MakeFen({{"e2", 'p'}, {"m1", 'K'}, {"s9", 'k'}}, 'b'));
  EXPECT_EQ(MovesFrom(black, "e2"), (std::vector<std::string>{"e2d1b", "e2d1n", "e2d1q", "e2d1r",
                                                              "e2f1b", "e2f1n", "e2f1q", "e2f1r"}));
}

// ---------------------------------------------------------------------------------------------
// Check, pins, kings.

// The 12 directions as (dx, dy) steps.
const int kSteps[12][2] = {{2, 0}, {1, 1}, {-1, 1}, {-2, 0}, {-1, -1}, {1, -1},
                           {0, 2}, {3, 1}, {-3, 1}, {0, -2}, {-3, -1}, {3, -1}};

// A position string with White king on j5, `pinned` one step along direction d, Black `pinner`
// n steps along d, and the Black king on the first cell that makes the position valid.
std::string PinFen(int d, char pinned, char pinner, int& n) {
  n = 0;
  while (n < 3 && CellExists(9 + (n + 1) * kSteps[d][0], 5 + (n + 1) * kSteps[d][1])) ++n;
  for (const char* king : {"b9", "s9", "b1", "s1", "a8", "t8", "a2", "t2", "d9", "q1"}) {
    const std::string piece_cell = Name(9 + kSteps[d][0], 5 + kSteps[d][1]);
    const std::string pinner_cell = Name(9 + n * kSteps[d][0], 5 + n * kSteps[d][1]);
    if (king == piece_cell || king == pinner_cell) continue;
    const std::string fen =
        MakeFen({{"j5", 'K'}, {piece_cell, pinned}, {pinner_cell, pinner}, {king, 'k'}}, 'w');
    try {
      G::ParsePosition(fen);
      return fen;
    } catch (const Error&) {
    }
  }
  return "";
}

TEST(ChacoRexRulesTest, PinsAlongAllThreeAxesAndAllDiagonals) {
  for (int d = 0; d < 12; ++d) {
    SCOPED_TRACE("direction " + std::to_string(d));
    int n = 0;
    const char line_slider = d < 6 ? 'r' : 'b';
    // A pinned queen may only move along the line, up to and including the pinner.
    std::string fen = PinFen(d, 'Q', line_slider, n);
    ASSERT_FALSE(fen.empty());
    ASSERT_GE(n, 2);
    const std::string queen_cell = Name(9 + kSteps[d][0], 5 + kSteps[d][1]);
    std::vector<std::string> expected;
    for (int i = 2; i <= n; ++i) {
      expected.push_back(queen_cell + Name(9 + i * kSteps[d][0], 5 + i * kSteps[d][1]));
    }
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(MovesFrom(Parse(fen), queen_cell), expected) << fen;
    // A pinned knight never moves; nor does a piece that cannot move along the line.
    fen = PinFen(d, 'N', line_slider, n);
    EXPECT_TRUE(MovesFrom(Parse(fen), queen_cell).empty()) << fen;
    fen = PinFen(d, d < 6 ? 'B' : 'R', line_slider, n);
    EXPECT_TRUE(MovesFrom(Parse(fen), queen_cell).empty()) << fen;
    // The queen as pinner pins too.
    fen = PinFen(d, 'N', 'q', n);
    EXPECT_TRUE(MovesFrom(Parse(fen), queen_cell).empty()) << fen;
    // The wrong slider type does not pin: the knight moves freely.
    fen = PinFen(d, 'N', d < 6 ? 'b' : 'r', n);
    EXPECT_FALSE(MovesFrom(Parse(fen), queen_cell).empty()) << fen;
  }
}

TEST(ChacoRexRulesTest, PinnedPawnMovesOnlyAlongItsLine) {
  // King j5, pawn l6 on the (+1, +1) line, Black queen on n8: only l6-m7 stays on the line.
  const G::Position p = Parse(MakeFen({{"j5", 'K'}, {"l6", 'P'}, {"n8", 'q'}, {"s1", 'k'}}, 'w'));
  EXPECT_EQ(MovesFrom(p, "l6"), (std::vector<std::string>{"l6m7"}));
  // Pinned along the rank (rook on q5): no move at all.
  const G::Position rank =
      Parse(MakeFen({{"j5", 'K'}, {"m5", 'P'}, {"q5", 'r'}, {"s1", 'k'}}, 'w'));
  EXPECT_TRUE(MovesFrom(rank, "m5").empty());
}

TEST(ChacoRexRulesTest, DiscoveredChecksAlongAllThreeAxesAndAllDiagonals) {
  for (int d = 0; d < 12; ++d) {
    SCOPED_TRACE("direction " + std::to_string(d));
    // Black king on j5, White knight one step along d, White slider behind it.
    int n = 0;
    while (n < 3 && CellExists(9 + (n + 1) * kSteps[d][0], 5 + (n + 1) * kSteps[d][1])) ++n;
    const std::string knight = Name(9 + kSteps[d][0], 5 + kSteps[d][1]);
    const std::string slider = Name(9 + n * kSteps[d][0], 5 + n * kSteps[d][1]);
    std::string fen;
    for (const char* king : {"b1", "s1", "a2", "t2", "b9", "s9", "d1", "q1"}) {
      if (king == knight || king == slider) continue;
      const std::string candidate =
          MakeFen({{"j5", 'k'}, {knight, 'N'}, {slider, d < 6 ? 'R' : 'B'}, {king, 'K'}}, 'w');
      try {
        G::ParsePosition(candidate);
        fen = candidate;
        break;
      } catch (const Error&) {
      }
    }
    ASSERT_FALSE(fen.empty());
    const G::Position p = Parse(fen);
    int knight_moves = 0;
    G::MoveList moves;
    G::GenerateMoves(p, moves);
    for (Move m : moves) {
      if (CellName(MoveFrom(m)) != knight) continue;
      ++knight_moves;
      G::Position child = p;
      G::ApplyMove(child, m);
      EXPECT_TRUE(G::InCheck(child)) << G::FormatMove(p, m);
      const std::string display = G::FormatDisplayMove(p, m);
      EXPECT_EQ(display.back(), '+') << display;
    }
    EXPECT_GT(knight_moves, 0);
  }
}

TEST(ChacoRexRulesTest, KingMayNotStepNextToTheEnemyKing) {
  // White king j5, Black king o5: m5 touches both kings.
  const G::Position p = Parse(MakeFen({{"j5", 'K'}, {"o5", 'k'}}, 'w'));
  EXPECT_EQ(MovesFrom(p, "j5"), (std::vector<std::string>{"j5h5", "j5i4", "j5i6", "j5l4", "j5l6"}));
  // Kings a diagonal step apart do not touch: legal.
  EXPECT_NO_THROW(Parse(MakeFen({{"j5", 'K'}, {"j7", 'k'}}, 'w')));
  EXPECT_NO_THROW(Parse(MakeFen({{"j5", 'K'}, {"n6", 'k'}}, 'b')));
}

TEST(ChacoRexRulesTest, KingMayNotStayOnTheCheckingLine) {
  // The rook on b5 checks the king on j5 along the rank: h5 (towards the rook) and m5 (beyond the
  // king, shielded only by the king itself) are both attacked.
  const G::Position p = Parse(MakeFen({{"j5", 'K'}, {"b5", 'r'}, {"s9", 'k'}}, 'w'));
  EXPECT_TRUE(G::InCheck(p));
  EXPECT_EQ(MovesFrom(p, "j5"), (std::vector<std::string>{"j5i4", "j5i6", "j5l4", "j5l6"}));
}

TEST(ChacoRexRulesTest, CheckMustBeAnsweredByCaptureBlockOrKingMove) {
  // The rook on b5 checks the king on j5; the White rook on j9 can only block on f5.
  const G::Position p = Parse(MakeFen({{"j5", 'K'}, {"b5", 'r'}, {"j9", 'R'}, {"t8", 'k'}}, 'w'));
  std::vector<std::string> expected = {"j5i4", "j5i6", "j5l4", "j5l6", "j9f5"};
  EXPECT_EQ(Moves(p), expected);
}

TEST(ChacoRexRulesTest, DoubleCheckAllowsOnlyKingMoves) {
  // The rook on b5 and the knight on e6 (leap (+5, -1) to j5) both check; the rook on j9 could
  // block the rook's line on f5 but that does not help.
  const G::Position p =
      Parse(MakeFen({{"j5", 'K'}, {"b5", 'r'}, {"e6", 'n'}, {"j9", 'R'}, {"t8", 'k'}}, 'w'));
  const std::vector<std::string> moves = Moves(p);
  ASSERT_FALSE(moves.empty());
  for (const std::string& m : moves) EXPECT_EQ(m.substr(0, 2), "j5") << m;
}

// ---------------------------------------------------------------------------------------------
// Outcomes.

TEST(ChacoRexRulesTest, CheckmateWins) {
  const G::Position p = Parse("9/10/9/10/9/10/9/2Q7/k1K6 b - 0 1");
  EXPECT_TRUE(G::InCheck(p));
  EXPECT_TRUE(Moves(p).empty());
  EXPECT_EQ(G::LocalOutcome(p, 0), (Outcome{Status::kWhiteWins, Reason::kCheckmate}));
}

TEST(ChacoRexRulesTest, StalemateDraws) {
  const G::Position p = Parse("9/10/9/10/9/10/9/3Q6/k1K6 b - 0 1");
  EXPECT_FALSE(G::InCheck(p));
  EXPECT_TRUE(Moves(p).empty());
  EXPECT_EQ(G::LocalOutcome(p, 0), (Outcome{Status::kDraw, Reason::kStalemate}));
}

TEST(ChacoRexRulesTest, MateIsDecidedBeforeInsufficientMaterial) {
  // King and knight against king: insufficient material, but this is mate.
  const G::Position p = Parse("9/10/9/10/9/10/2N6/2K7/k8 b - 0 1");
  EXPECT_TRUE(Moves(p).empty());
  EXPECT_EQ(G::LocalOutcome(p, 0), (Outcome{Status::kWhiteWins, Reason::kCheckmate}));
  // Played into through GameState: the mating capture leaves king and knight against king, and
  // the outcome is the mate.
  GameState<G> game(Parse("9/10/9/10/9/10/2r6/2K7/k3N4 w - 0 1"));
  EXPECT_FALSE(game.outcome().IsTerminal());
  game.Play("Cj1xf3++");
  EXPECT_EQ(game.outcome(), (Outcome{Status::kWhiteWins, Reason::kCheckmate}));
}

TEST(ChacoRexRulesTest, InsufficientMaterialDraws) {
  const Outcome draw{Status::kDraw, Reason::kInsufficientMaterial};
  const std::vector<std::pair<std::string, bool>> cases = {
      {MakeFen({{"j5", 'K'}, {"b9", 'k'}}, 'w'), true},
      {MakeFen({{"j5", 'K'}, {"b9", 'k'}, {"d1", 'N'}}, 'w'), true},
      {MakeFen({{"j5", 'K'}, {"b9", 'k'}, {"d1", 'b'}}, 'w'), true},
      {MakeFen({{"j5", 'K'}, {"b9", 'k'}, {"d1", 'B'}, {"s1", 'n'}}, 'w'), false},
      {MakeFen({{"j5", 'K'}, {"b9", 'k'}, {"d1", 'N'}, {"s1", 'N'}}, 'w'), false},
      {MakeFen({{"j5", 'K'}, {"b9", 'k'}, {"d3", 'P'}}, 'w'), false},
      {MakeFen({{"j5", 'K'}, {"b9", 'k'}, {"d1", 'R'}}, 'w'), false},
      {MakeFen({{"j5", 'K'}, {"b9", 'k'}, {"q1", 'q'}}, 'w'), false},
  };
  for (const auto& [fen, insufficient] : cases) {
    const G::Position p = Parse(fen);
    G::MoveList moves;
    G::GenerateMoves(p, moves);
    ASSERT_GT(moves.size, 0);
    EXPECT_EQ(G::LocalOutcome(p, moves.size) == draw, insufficient) << fen;
  }
}

TEST(ChacoRexRulesTest, ThreefoldRepetitionDraws) {
  GameState<G> game;
  const std::vector<std::string> shuffle = {"Cd1-e4", "Cd9-e6", "Ce4-d1", "Ce6-d9"};
  for (int round = 0; round < 2; ++round) {
    for (const std::string& move : shuffle) {
      EXPECT_FALSE(game.outcome().IsTerminal());
      game.Play(move);
    }
  }
  EXPECT_EQ(game.RepetitionCount(), 3);
  EXPECT_EQ(game.outcome(), (Outcome{Status::kDraw, Reason::kRepetition}));
}

TEST(ChacoRexRulesTest, EnPassantCellCountsForRepetitionOnlyWhenTheCaptureIsLegal) {
  // After g2-i4 with no Black pawn able to take: same key as the position without the cell.
  const G::Position stepped =
      After(Parse(MakeFen({{"g2", 'P'}, {"m1", 'K'}, {"m9", 'k'}}, 'w')), "g2i4");
  EXPECT_EQ(stepped.en_passant_cell, ParseCell("h3"));
  const G::Position plain = Parse(MakeFen({{"i4", 'P'}, {"m1", 'K'}, {"m9", 'k'}}, 'b'));
  EXPECT_NE(G::Hash(stepped), G::Hash(plain));
  EXPECT_EQ(G::RepetitionKey(stepped), G::RepetitionKey(plain));
  // With a Black pawn on g4 the capture is legal: the keys differ.
  const G::Position capturable = Parse("5k3/10/9/10/9/3pP5/9/10/5K3 b h3 0 1");
  const G::Position no_right = Parse("5k3/10/9/10/9/3pP5/9/10/5K3 b - 0 1");
  EXPECT_NE(G::RepetitionKey(capturable), G::RepetitionKey(no_right));
  // A capturer exists but the capture would expose its king: the cell does not count.
  const G::Position pinned = Parse("5k3/10/9/K4Pp2r/9/10/9/10/9 w m7 0 1");
  const G::Position pinned_plain = Parse("5k3/10/9/K4Pp2r/9/10/9/10/9 w - 0 1");
  EXPECT_EQ(G::RepetitionKey(pinned), G::RepetitionKey(pinned_plain));
}

TEST(ChacoRexRulesTest, CountersAndHashAfterMoves) {
  G::Position p = G::InitialPosition();
  p = After(p, "Cd1-e4");
  EXPECT_EQ(G::FormatPosition(p),
            "rnbqbkbnr/pppppppppp/2ppppp2/10/9/2N7/2PPPPP2/PPPPPPPPPP/R1BQBKBNR b - 1 1");
  EXPECT_EQ(p.halfmove_clock, 1u);
  EXPECT_EQ(p.fullmove_number, 1u);
  p = After(p, "c8b7");
  EXPECT_EQ(p.halfmove_clock, 0u);
  EXPECT_EQ(p.fullmove_number, 2u);
  EXPECT_EQ(G::Hash(p), G::ComputeHash(p));
}

// ---------------------------------------------------------------------------------------------
// Action index and bounds.

TEST(ChacoRexRulesTest, ActionIndicesAreDistinctAndMirroredForBlack) {
  const G::Position start = G::InitialPosition();
  G::MoveList moves;
  G::GenerateMoves(start, moves);
  // Black's first moves mirror White's: the same action indices.
  std::set<int> white_indices, black_indices;
  for (Move m : moves) white_indices.insert(G::ActionIndex(start, m));
  G::MoveList black_moves;
  G::GenerateMoves(After(start, "h3i4"), black_moves);
  const G::Position after = After(start, "h3i4");
  for (Move m : black_moves) black_indices.insert(G::ActionIndex(after, m));
  EXPECT_EQ(int(white_indices.size()), moves.size);
  // After 1.h3i4 Black has exactly the mirror images of White's 30 first moves.
  EXPECT_EQ(white_indices, black_indices);
  // Promotions: four distinct indices per target, under-promotions beyond from * 85 + to.
  const G::Position promo = Parse(MakeFen({{"c8", 'P'}, {"m1", 'K'}, {"s9", 'k'}}, 'w'));
  std::set<int> promo_indices;
  G::MoveList promo_moves;
  G::GenerateMoves(promo, promo_moves);
  for (Move m : promo_moves) {
    const int index = G::ActionIndex(promo, m);
    EXPECT_GE(index, 0);
    EXPECT_LT(index, G::kNumActions);
    promo_indices.insert(index);
  }
  EXPECT_EQ(int(promo_indices.size()), promo_moves.size);
}

TEST(ChacoRexRulesTest, MaxMovesBoundsEveryValidPosition) {
  const StepTables& t = Steps();
  int queen = 0, rook = 0, bishop = 0, knight = 0, king = 0;
  for (int cell = 0; cell < kNumCells; ++cell) {
    rook = std::max(rook, PopCount(OrthogonalAttacks(cell, 0)));
    bishop = std::max(bishop, PopCount(DiagonalAttacks(cell, 0)));
    queen = std::max(queen, PopCount(OrthogonalAttacks(cell, 0) | DiagonalAttacks(cell, 0)));
    knight = std::max(knight, PopCount(t.knight[cell]));
    king = std::max(king, PopCount(t.king[cell]));
  }
  EXPECT_EQ(queen, 40);
  EXPECT_LE(16 * queen + 2 * rook + 3 * bishop + 2 * knight + king, G::kMaxMoves);
  // A pawn has at most 8 moves (two promotion cells, four pieces), fewer than a queen.
  EXPECT_LE(8, queen);
}

}  // namespace
}  // namespace vz::chaco_rex
