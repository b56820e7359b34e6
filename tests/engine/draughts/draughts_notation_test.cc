// Portuguese draughts text I/O: PDN FEN round-trips and every bad-input message, move strings in
// short and long form (ambiguity, illegal moves, landing paths), the board picture.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/draughts/game.h"
#include "tests/engine/draughts/draughts_test_util.h"

namespace vz::draughts {
namespace {

using testing::ErrorOf;
using testing::SortedMoves;
using V = std::vector<std::string>;

const char* const kStart = "W:W1,2,3,4,5,6,7,8,9,10,11,12:B21,22,23,24,25,26,27,28,29,30,31,32";

TEST(DraughtsNotationTest, PositionStringsRoundTrip) {
  for (const char* fen : {kStart, "B:WK1,5,K9:BK30", "W:WK1,K5,K9:BK30:H12:T3", "B:W:B5", "W:W18:B",
                          "W:W28:B5:H39", "B:WK29,K31:BK2,K4,13:H7"}) {
    const Position p = ParsePosition(fen);
    EXPECT_EQ(FormatPosition(p), fen);
    EXPECT_EQ(p.hash, ComputeHash(p));
  }
  const Position p = ParsePosition("B:WK1,5,K9:BK30:H4");
  EXPECT_EQ(p.white, Bit(0) | Bit(4) | Bit(8));
  EXPECT_EQ(p.black, Bit(29));
  EXPECT_EQ(p.kings, Bit(0) | Bit(8) | Bit(29));
  EXPECT_EQ(p.side_to_move, Color::kBlack);
  EXPECT_EQ(p.twenty_move_plies, 4);
  EXPECT_EQ(p.three_kings_moves, 0);
}

TEST(DraughtsNotationTest, PositionStringsAreNormalised) {
  // Any order, ranges, spaces, lower-case side and king marks, a trailing PDN '.', fields in any
  // order, zero counters dropped.
  EXPECT_EQ(FormatPosition(ParsePosition("W:W1-12:B21-32")), kStart);
  EXPECT_EQ(FormatPosition(ParsePosition("w:B32,31:W3,k1, 2")), "W:WK1,2,3:B31,32");
  EXPECT_EQ(FormatPosition(ParsePosition(" W:W1:B21:H0:T0. ")), "W:W1:B21");
  EXPECT_EQ(FormatPosition(ParsePosition("B:T2:H5:BK30:WK1,K2,K3")), "B:WK1,K2,K3:BK30:H5:T2");
  EXPECT_EQ(ParsePosition(kStart).hash, InitialPosition().hash);
}

TEST(DraughtsNotationTest, BadPositionStringsNameTheFault) {
  struct Case {
    const char* fen;
    const char* message;
  };
  const Case cases[] = {
      {"", "empty"},
      {"   ", "empty"},
      {"X:W1:B21", "side to move must be W or B, got 'X'"},
      {"W:W1", "missing Black pieces field"},
      {"W:B21", "missing White pieces field"},
      {"W", "missing White pieces field"},
      {"W:W1:B21:W2", "field W given twice"},
      {"W:W1:B21:B22", "field B given twice"},
      {"W:W1:B21:H1:H2", "field H given twice"},
      {"W:W1:B21:Q5", "unknown field 'Q5'"},
      {"W:W1::B21", "empty field 3"},
      {"W:W0:B21", "White square 0 is outside 1-32"},
      {"W:W1:B33", "Black square 33 is outside 1-32"},
      {"W:Wx:B21", "bad White piece 'x'"},
      {"W:W1,,2:B21", "bad White piece ''"},
      {"W:WK:B21", "bad White piece 'K'"},
      {"W:W1:BKK5", "bad Black piece 'KK5'"},
      {"W:W5-3:B21", "bad White piece '5-3'"},
      {"W:W1,1:B21", "square 1 is given twice"},
      {"W:W5:B5", "square 5 is given twice"},
      {"W:W1-13:B21", "White has 13 pieces (at most 12)"},
      {"W:W1:B20-32", "Black has 13 pieces (at most 12)"},
      {"W:W29:B21", "White man on square 29"},
      {"W:W32:B21", "White man on square 32"},
      {"W:W5:B4", "Black man on square 4"},
      {"W:W5:B1", "Black man on square 1"},
      {"W:W5:B21:H-1", "counter H must be a number 0-9999, got '-1'"},
      {"W:W5:B21:H", "counter H must be a number 0-9999, got ''"},
      {"W:W5:B21:H10000", "counter H must be a number 0-9999"},
      {"W:W5:B21:T1x", "counter T must be a number 0-9999, got '1x'"},
      {"W:WK1,K2,K3:BK30,K31:T2", "counter T given but the material is not three kings"},
      {"W:WK1,K2,3:BK30:T2", "counter T given but the material is not three kings"},
      {"W:W5:B21:T1", "counter T given but the material is not three kings"},
  };
  for (const Case& c : cases) {
    const std::string message = ErrorOf([&] { ParsePosition(c.fen); });
    EXPECT_NE(message.find(c.message), std::string::npos) << c.fen << " -> " << message;
    EXPECT_NE(message.find("position string '" + std::string(c.fen) + "'"), std::string::npos)
        << message;
  }
}

TEST(DraughtsNotationTest, PlainMovesAndShortCaptures) {
  const Position start = ParsePosition(kStart);
  const Move move = ParseMove(start, "11-15");
  EXPECT_EQ(MoveFrom(move), 10);
  EXPECT_EQ(MoveTo(move), 14);
  EXPECT_EQ(MoveCaptured(move), 0u);
  EXPECT_EQ(FormatMove(start, move), "11-15");
  EXPECT_EQ(ParseMove(start, " 11-15 "), move);
  const Position p = ParsePosition("W:W1,10:B14");
  EXPECT_EQ(FormatMove(p, ParseMove(p, "10x19")), "10x19");
  EXPECT_NE(ErrorOf([&] { ParseMove(p, "10x19x"); }).find("unknown square ''"), std::string::npos);
}

TEST(DraughtsNotationTest, BadMoveStringsNameTheFault) {
  const Position start = ParsePosition(kStart);
  struct Case {
    const char* move;
    std::string message;
  };
  const Case cases[] = {
      {"", "empty move string"},
      {"11", "expected <from>-<to>"},
      {"a1a1a1", "expected <from>-<to>"},
      {"11x15-19", "expected <from>-<to>"},
      {"11-15-19", "expected <from>-<to>"},
      {"x", "unknown square ''"},
      {"99-99", "unknown square '99'"},
      {"0-4", "unknown square '0'"},
      {"11-e4", "unknown square 'e4'"},
      {"11-16", "illegal move '11-16' in " + std::string(kStart) + " (no such plain move)"},
      {"11x18", "illegal move '11x18'"},
      {"21-17", "illegal move '21-17'"},
  };
  for (const Case& c : cases) {
    const std::string message = ErrorOf([&] { ParseMove(start, c.move); });
    EXPECT_NE(message.find(c.message), std::string::npos) << c.move << " -> " << message;
  }
  // An illegal move lists the legal ones.
  EXPECT_NE(ErrorOf([&] {
              ParseMove(start, "11-16");
            }).find("legal moves: 10-13 11-14 12-15 9-13 10-14 11-15 12-16"),
            std::string::npos);
  // A plain move when a capture is compulsory, and a capture that takes too few pieces.
  const Position p = ParsePosition("W:W1,6:B10,11,20");
  EXPECT_NE(ErrorOf([&] { ParseMove(p, "1-5"); }).find("legal moves: 6x24"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { ParseMove(p, "6x13"); }).find("no such capture"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { ParseMove(p, "6x15"); }).find("legal moves: 6x24"), std::string::npos);
  // A long form that breaks off, jumps nothing, or stops early.
  EXPECT_NE(ErrorOf([&] { ParseMove(p, "6x15x22"); }).find("no capture from 15 to 22"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { ParseMove(p, "1x10x19"); }).find("no capture from 1 to 10"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { ParseMove(p, "6x13x6"); }).find("no capture from 13 to 6"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { ParseMove(p, "3x12x21"); }).find("no piece on the start square"),
            std::string::npos);
  EXPECT_EQ(FormatMove(p, ParseMove(p, "6x15x24")), "6x24");
  // No legal move at all.
  const Position blocked = ParsePosition("W:W25:B29");
  EXPECT_NE(ErrorOf([&] { ParseMove(blocked, "25-29"); }).find("legal moves: (none)"),
            std::string::npos);
}

TEST(DraughtsNotationTest, SharedSquaresGiveLongFormAndAmbiguityError) {
  // Two captures 6 -> 22: over 10 and 18 (via 13), over 11 and 19 (via 15).
  const Position p = ParsePosition("W:W6:B10,11,18,19");
  EXPECT_EQ(SortedMoves("W:W6:B10,11,18,19"), (V{"6x13x22", "6x15x22"}));
  const Move via13 = ParseMove(p, "6x13x22");
  const Move via15 = ParseMove(p, "6x15x22");
  EXPECT_EQ(MoveCaptured(via13), Bit(9) | Bit(17));
  EXPECT_EQ(MoveCaptured(via15), Bit(10) | Bit(18));
  const std::string message = ErrorOf([&] { ParseMove(p, "6x22"); });
  EXPECT_EQ(message,
            "move '6x22' in W:W6:B10,11,18,19 is ambiguous: it fits several captures: 6x13x22 "
            "6x15x22");
}

TEST(DraughtsNotationTest, KingLongFormUsesTheSmallestLandingPath) {
  // King 3 goes round a loop and lands on its own start square in two ways, taking different
  // pieces; the first one (6, 22, 20, 7) can go round either way: 3-13-27-16-3 or 3-16-27-13-3.
  const Position p = ParsePosition("W:WK3:B6,7,20,22,26");
  ASSERT_EQ(testing::NumLegal(p), 2);
  const Move a = ParseMove(p, "3x13x27x16x3");
  const Move b = ParseMove(p, "3x16x30x17x3");
  EXPECT_NE(a, b);
  const std::vector<std::vector<int>> paths = CapturePaths(p, a);
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0], (std::vector<int>{3, 13, 27, 16, 3}));
  EXPECT_EQ(paths[1], (std::vector<int>{3, 16, 27, 13, 3}));
  EXPECT_EQ(ParseMove(p, "3x16x27x13x3"), a);  // the other path names the same move
  EXPECT_EQ(FormatMove(p, a), "3x13x27x16x3");
  EXPECT_EQ(FormatMove(p, b), "3x16x30x17x3");
  EXPECT_NE(ErrorOf([&] { ParseMove(p, "3x3"); }).find("ambiguous"), std::string::npos);
  // The display form is the protocol form.
  EXPECT_EQ(DraughtsGame::FormatDisplayMove(p, a), FormatMove(p, a));
}

TEST(DraughtsNotationTest, BoardPicture) {
  const std::string expected =
      "   a b c d e f g h\n"
      "8  .   .   .   .    8   32 31 30 29\n"
      "7    b   .   .   .  7   28 27 26 25\n"
      "6  .   .   .   .    6   24 23 22 21\n"
      "5    .   .   .   .  5   20 19 18 17\n"
      "4  .   .   .   .    4   16 15 14 13\n"
      "3    .   .   .   .  3   12 11 10  9\n"
      "2  .   .   .   .    2    8  7  6  5\n"
      "1    .   .   .   W  1    4  3  2  1\n"
      "   a b c d e f g h\n";
  EXPECT_EQ(BoardPicture(ParsePosition("W:WK1:B28")), expected);
  const std::string start = BoardPicture(InitialPosition());
  EXPECT_NE(start.find("8  b   b   b   b    8"), std::string::npos) << start;
  EXPECT_NE(start.find("1    w   w   w   w  1"), std::string::npos) << start;
  EXPECT_NE(BoardPicture(ParsePosition("W:W5:BK30")).find("8  .   .   B   .    8"),
            std::string::npos);
}

}  // namespace
}  // namespace vz::draughts
