// Cuarenta text I/O: position strings (round-trips and every validity check), moves in protocol
// and display form (written and read, wrong claims, dark squares, illegal moves), board picture.

#include <gtest/gtest.h>

#include <string>

#include "engine/core/error.h"
#include "engine/cuarenta/game.h"
#include "tests/test_util.h"

namespace vz::cuarenta {
namespace {

using G = CuarentaGame;

using vz::testing::ErrorOf;

// The messages of the vz::Error that G::ParsePosition and G::ParseMove throw ("" if none).
constexpr auto PositionError = &vz::testing::ParsePositionError<G>;
constexpr auto MoveError = &vz::testing::ParseMoveError<G>;

void ExpectContains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "'" << text << "' lacks '" << part << "'";
}

// ---- position strings ----

TEST(CuarentaNotationTest, PositionStringsRoundTrip) {
  for (const char* fen : {kStartPosition, "c3/1Pk2/P3/5/4/5/p3/2K1p/3C w wb 0 1",
                          "cP2/2k2/P3/5/4/5/p3/2K1p/p2C w w 7 30",
                          "4/2k2/4/1b3/4/V4/4/2K2/4 b - 0 40", "k3/5/4/5/P3/5/4/2K2/4 w - 79 60"}) {
    EXPECT_EQ(G::FormatPosition(G::ParsePosition(fen)), fen);
  }
  // Surrounding and repeated blanks are accepted.
  EXPECT_EQ(G::FormatPosition(G::ParsePosition("  4/2k2/4/5/4/5/4/2K2/4   w  -  3 9 ")),
            "4/2k2/4/5/4/5/4/2K2/4 w - 3 9");
}

TEST(CuarentaNotationTest, EachValidityCheckHasItsOwnMessage) {
  ExpectContains(PositionError("4/5/4/5/4/5/4/2K2/4 w - 0 1"), "Black has 0 kings");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K1K/4 w - 0 1"), "White has 2 kings");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K2/P3 w - 0 1"),
                 "White pawn on b1, its own first rank");
  ExpectContains(PositionError("3p/2k2/4/5/4/5/4/2K2/4 w - 0 1"),
                 "Black pawn on h9, its own first rank");
  // A pawn on its last rank is fine: promotion is optional.
  EXPECT_EQ(PositionError("1P2/2k2/4/5/4/5/4/2K2/3p w - 0 1"), "");
  // Black (not to move) in check from the camel h9... e8 is checked by a pawn on d7.
  ExpectContains(PositionError("4/2k2/1P2/5/4/5/4/2K2/4 w - 0 1"),
                 "Black is in check but it is not their turn");
  EXPECT_EQ(PositionError("4/2k2/1P2/5/4/5/4/2K2/4 b - 0 1"), "");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K2/4 w w 0 1"),
                 "castling right 'w' needs the White king on e2 and the White camel on h1");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K2/3C w b 0 1"),
                 "castling right 'b' needs the Black king on e8 and the Black camel on b9");
  ExpectContains(PositionError("5/2k2/4/5/4/5/4/2K2/4 w - 0 1"),
                 "rank 9 describes 5 squares, but it has 4");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K2/4K w - 0 1"),
                 "rank 1 describes 5 squares, but it has 4");
  ExpectContains(PositionError("4/2k3/4/5/4/5/4/2K2/4 w - 0 1"),
                 "rank 8 describes 6 squares, but it has 5");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K2 w - 0 1"), "expected 9 ranks");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K2/3X w - 0 1"), "unknown piece letter 'X'");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K2/4 x - 0 1"), "side to move 'x'");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K2/4 w KQ 0 1"), "castling field 'KQ'");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K2/4 w - -1 1"), "forty-move count '-1'");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K2/4 w - 0 0"), "move number '0'");
  ExpectContains(PositionError("4/2k2/4/5/4/5/4/2K2/4 w - 0"), "expected 5 fields");
  ExpectContains(PositionError("PPPP/2k2/PP2/5/4/5/4/2K2/4 w - 0 1"), "6 pawns");
  ExpectContains(PositionError("BBBB/BBkBB/BBBB/BBBBB/4/5/4/2K2/4 w - 0 1"), "more than the 13");
  for (const char* text : {"", "garbage", "///////", "w", "1 2 3 4"}) {
    EXPECT_NE(PositionError(text), "") << text;
  }
}

// ---- moves ----

TEST(CuarentaNotationTest, ProtocolAndDisplayFormsAreWrittenAndRead) {
  struct Case {
    const char* fen;
    const char* protocol;
    const char* display;
  };
  const Case cases[] = {
      {kStartPosition, "d1d5", "Fd1-d5"},
      {kStartPosition, "i2d7", "Vi2xd7"},
      {kStartPosition, "b3b5", "b3-b5"},
      {kStartPosition, "h1i4", "Ch1-i4"},
      {"c3/1Pk2/P3/5/4/5/p3/2K1p/3C w wb 0 1", "c8d9g", "c8-d9=G+"},
      {"c3/1Pk2/P3/5/4/5/p3/2K1p/3C w wb 0 1", "b7b9c", "b7xb9=C+"},
      {"c3/1Pk2/P3/5/4/5/p3/2K1p/3C w wb 0 1", "b7b9", "b7xb9"},
      {"cP2/2k2/P3/5/4/5/p3/2K1p/p2C w w 7 30", "d9d9f", "d9=F"},
      {"cP2/2k2/P3/5/4/5/p3/2K1p/p2C w w 7 30", "d9d9b", "d9=B+"},
      {"c3/2k2/2p1/5/4/5/1P2/2K2/3C w w 0 1", "e2h1", "Ke2-h1"},
      {"k3/5/4/5/P3/5/4/2K2/4 w - 79 60", "b5b7", "b5-b7#"},
  };
  for (const Case& c : cases) {
    const Position p = G::ParsePosition(c.fen);
    const Move from_protocol = G::ParseMove(p, c.protocol);
    EXPECT_EQ(G::FormatMove(p, from_protocol), c.protocol);
    EXPECT_EQ(G::FormatDisplayMove(p, from_protocol), c.display);
    EXPECT_EQ(G::ParseMove(p, c.display), from_protocol) << c.display;
  }
}

TEST(CuarentaNotationTest, MissingCheckClaimIsAcceptedAndWrongClaimsAreErrors) {
  const char* promote = "c3/1Pk2/P3/5/4/5/p3/2K1p/3C w wb 0 1";
  EXPECT_EQ(MoveError(promote, "c8-d9=G"), "");
  ExpectContains(MoveError(promote, "c8-d9=G#"), "claims mate but the move gives check, not mate");
  ExpectContains(MoveError(promote, "c8-d9=F+"), "claims check but the move gives no check");
  EXPECT_EQ(MoveError("k3/5/4/5/P3/5/4/2K2/4 w - 79 60", "b5-b7"), "");
  ExpectContains(MoveError("k3/5/4/5/P3/5/4/2K2/4 w - 79 60", "b5-b7+"),
                 "claims check but the move gives mate");
  // Wrong piece letter, wrong separator, letter on an in-place promotion.
  ExpectContains(MoveError(kStartPosition, "Gd1-d5"), "the piece on d1 is a frog, not a guard");
  ExpectContains(MoveError(kStartPosition, "d1-d5"), "the piece on d1 is a frog, not a pawn");
  ExpectContains(MoveError(kStartPosition, "Fd1xd5"), "claims a capture");
  ExpectContains(MoveError(kStartPosition, "Vi2-d7"), "is a capture, write 'x'");
  ExpectContains(MoveError("cP2/2k2/P3/5/4/5/p3/2K1p/p2C w w 7 30", "Pd9=F"), "unknown piece");
}

TEST(CuarentaNotationTest, BadMovesAreErrorsNamingTheFault) {
  // Dark squares are named as such, in either form.
  ExpectContains(MoveError(kStartPosition, "a1b1"), "a1 is a dark square");
  ExpectContains(MoveError(kStartPosition, "d3d4"), "d4 is a dark square");
  ExpectContains(MoveError(kStartPosition, "Fd1-e3"), "e3 is a dark square");
  ExpectContains(MoveError(kStartPosition, "j1b1"), "'j1' is not a square");
  ExpectContains(MoveError(kStartPosition, "b3"), "expected a square");
  ExpectContains(MoveError(kStartPosition, "b3b5q"), "bad promotion letter 'q'");
  ExpectContains(MoveError(kStartPosition, "b3b5c"), "is not legal");
  ExpectContains(MoveError(kStartPosition, "b3-b5=K"), "bad promotion letter 'K'");
  ExpectContains(MoveError(kStartPosition, "b3b5cc"), "unexpected text");
  // Illegal moves list the legal ones; castling for White is refused while Black may castle.
  const std::string illegal = MoveError(kStartPosition, "e2h1");
  ExpectContains(illegal, "is not legal in cffb/vgkgv/pppp/5/4/5/PPPP/VGKGV/BFFC w wb 0 1");
  ExpectContains(illegal, "legal moves: ");
  ExpectContains(illegal, "d1g4");
  // The king's sideways step does not exist.
  ExpectContains(MoveError("4/2k2/4/5/4/2K2/4/5/4 w - 0 1", "e4c4"), "is not legal");
  for (const char* text : {"", "zz", "a1a1a1", "x", "99-99"}) {
    EXPECT_NE(MoveError(kStartPosition, text), "") << text;
  }
}

TEST(CuarentaNotationTest, EveryLegalMoveRoundTripsInBothForms) {
  for (const char* fen : {kStartPosition, "c3/1Pk2/P3/5/4/5/p3/2K1p/3C w wb 0 1",
                          "c1fb/vgk1v/p1p1/1FgP1/pV2/2G1p/P1P1/V1K2/B1FC b b 12 9"}) {
    const Position p = G::ParsePosition(fen);
    G::MoveList moves;
    G::GenerateMoves(p, moves);
    for (Move move : moves) {
      EXPECT_EQ(G::ParseMove(p, G::FormatMove(p, move)), move);
      EXPECT_EQ(G::ParseMove(p, G::FormatDisplayMove(p, move)), move);
    }
  }
}

// ---- board picture ----

TEST(CuarentaNotationTest, BoardPictureShowsOnlyRealSquares) {
  EXPECT_EQ(G::BoardPicture(G::InitialPosition()),
            "9    c   f   f   b\n"
            "8  v   g   k   g   v\n"
            "7    p   p   p   p\n"
            "6  .   .   .   .   .\n"
            "5    .   .   .   .\n"
            "4  .   .   .   .   .\n"
            "3    P   P   P   P\n"
            "2  V   G   K   G   V\n"
            "1    B   F   F   C\n"
            "   a b c d e f g h i\n");
}

}  // namespace
}  // namespace vz::cuarenta
