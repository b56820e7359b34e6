// Chaco Rex text I/O: position strings (round trips, every validity check with its message),
// cells, moves in protocol and display form (written, read, wrong claims), the board picture.

#include <gtest/gtest.h>

#include <string>

#include "engine/chaco_rex/game.h"
#include "engine/core/error.h"
#include "tests/test_util.h"

namespace vz::chaco_rex {
namespace {

using G = ChacoRexGame;

// Before the articles' example mate Dh1-h9++.
const std::string kMate = "4kn3/4pp4/9/3N6/9/10/9/10/3Q1K3 w - 0 1";
const std::string kStart =
    "rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR w - 0 1";

using vz::testing::ErrorOf;

// The messages of the vz::Error that G::ParsePosition and G::ParseMove throw ("" if none).
constexpr auto PositionError = &vz::testing::ParsePositionError<G>;
constexpr auto MoveError = &vz::testing::ParseMoveError<G>;

::testing::AssertionResult Mentions(const std::string& message, const std::string& part) {
  if (message.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << message << "' does not mention '" << part << "'";
}

TEST(ChacoRexNotationTest, StartPositionString) {
  EXPECT_EQ(G::FormatPosition(G::InitialPosition()), kStart);
  const G::Position parsed = G::ParsePosition(kStart);
  EXPECT_EQ(G::Hash(parsed), G::Hash(G::InitialPosition()));
  EXPECT_EQ(G::FormatPosition(parsed), kStart);
}

TEST(ChacoRexNotationTest, PositionStringRoundTripsWithCountsAndEnPassant) {
  for (const std::string fen : {
           "5k3/10/9/10/9/3pP5/9/10/5K3 b h3 0 1",
           "5k3/10/9/5Pp3/5K3/10/9/10/9 w m7 0 1",
           "1n3k1q1/1P5P2/9/10/9/10/9/2p5p1/1N3K3 w - 17 93",
           "9/10/9/10/9/10/9/2Q7/k1K6 b - 0 1",
       }) {
    EXPECT_EQ(G::FormatPosition(G::ParsePosition(fen)), fen);
  }
}

TEST(ChacoRexNotationTest, CellsAndTheMissingFileK) {
  EXPECT_EQ(ParseCell("b1"), 0);
  EXPECT_EQ(ParseCell("j5"), 42);
  EXPECT_EQ(ParseCell("t8"), 75);
  EXPECT_TRUE(Mentions(ErrorOf([] { ParseCell("k5"); }), "no file k"));
  EXPECT_TRUE(Mentions(ErrorOf([] { ParseCell("h4"); }), "only on odd ranks"));
  EXPECT_TRUE(Mentions(ErrorOf([] { ParseCell("a1"); }), "only on even ranks"));
  EXPECT_TRUE(Mentions(ErrorOf([] { ParseCell("u2"); }), "unknown file"));
  EXPECT_TRUE(Mentions(ErrorOf([] { ParseCell("b0"); }), "rank must be 1..9"));
}

TEST(ChacoRexNotationTest, SyntaxErrorsNameTheFault) {
  EXPECT_TRUE(Mentions(PositionError(""), "expected 5 fields"));
  EXPECT_TRUE(Mentions(PositionError("rnbqbkbnr/pppppppppp w - 0 1"), "2 ranks given"));
  EXPECT_TRUE(Mentions(
      PositionError("rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR/9 w - 0 1"),
      "more than 9 ranks"));
  // Rank 8 with 9 cells, rank 5 with 10: the message names the rank.
  EXPECT_TRUE(Mentions(
      PositionError("rnbqbkbnr/ppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR w - 0 1"),
      "rank 8 describes 9 cells, but has 10"));
  EXPECT_TRUE(Mentions(
      PositionError("rnbqbkbnr/pppppppppp/2ppppp2/10/10/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR w - 0 1"),
      "rank 5 has a bad empty-cell count '10'"));
  EXPECT_TRUE(Mentions(
      PositionError("rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPPP/RNBQBKBNR w - 0 1"),
      "rank 2 describes more than 10 cells"));
  EXPECT_TRUE(Mentions(
      PositionError("rnbqbkbnr/pppppppppp/2ppppx2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR w - 0 1"),
      "unknown piece letter 'x' in rank 7"));
  EXPECT_TRUE(Mentions(
      PositionError("rnbqbkbnr/pppppppppp/2ppppp2/010/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR w - 0 1"),
      "bad empty-cell count '010'"));
  EXPECT_TRUE(Mentions(
      PositionError("rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR x - 0 1"),
      "side to move 'x'"));
  EXPECT_TRUE(Mentions(
      PositionError("rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR b k7 0 1"),
      "no file k"));
  EXPECT_TRUE(Mentions(
      PositionError("rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR w - x 1"),
      "half-move clock 'x'"));
  EXPECT_TRUE(Mentions(
      PositionError("rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR w - 0 0"),
      "move number '0'"));
  // The message quotes the input.
  EXPECT_TRUE(Mentions(PositionError("garbage"), "position 'garbage'"));
}

TEST(ChacoRexNotationTest, ValidityChecksEachWithItsMessage) {
  EXPECT_TRUE(Mentions(PositionError("9/10/9/10/9/10/9/10/5K3 w - 0 1"),
                       "Black has 0 kings (exactly one king per side)"));
  EXPECT_TRUE(Mentions(PositionError("k8/10/9/10/9/10/9/10/5KK2 w - 0 1"), "White has 2 kings"));
  EXPECT_TRUE(Mentions(PositionError("k8/10/9/10/9/10/9/10/3P1K3 w - 0 1"),
                       "White pawn on h1 (no pawn may stand on rank 1 or 9)"));
  EXPECT_TRUE(Mentions(PositionError("k7p/10/9/10/9/10/9/10/5K3 w - 0 1"), "Black pawn on s9"));
  EXPECT_TRUE(Mentions(PositionError("k8/PPPPPPPPPP/9/10/9/10/2PPPPPP1/10/5K3 w - 0 1"),
                       "White has 16 pawns"));
  EXPECT_TRUE(Mentions(PositionError("k8/10/9/10/QQ7/10/2PPPPPP1/PPPPPPPPP1/5K3 w - 0 1"),
                       "impossible piece count"));
  // Black (not to move) in check from the rook on j9 along rank 9.
  EXPECT_TRUE(Mentions(PositionError("k3R4/10/9/10/9/10/9/10/5K3 w - 0 1"),
                       "Black (not to move) is in check"));
  // En passant: wrong rank, occupied, no pawn that can just have passed it.
  EXPECT_TRUE(Mentions(PositionError("5k3/10/9/10/9/3pP5/9/10/5K3 b h5 0 1"), "is not on rank 3"));
  EXPECT_TRUE(Mentions(PositionError("5k3/10/9/10/9/3pP5/9/10/5K3 w h3 0 1"), "is not on rank 7"));
  EXPECT_TRUE(Mentions(PositionError("5k3/10/9/10/9/3pP5/3N5/10/5K3 b h3 0 1"),
                       "en-passant cell h3 is occupied"));
  EXPECT_TRUE(Mentions(PositionError("5k3/10/9/10/9/3p6/9/10/5K3 b h3 0 1"),
                       "no White pawn can have just passed it"));
  // The start cell g2 of the double step must be empty.
  EXPECT_TRUE(Mentions(PositionError("5k3/10/9/10/9/3pP5/9/3P6/5K3 b h3 0 1"),
                       "no White pawn can have just passed it"));
  // The other side's pawn cannot have made it (White pawn, White to move).
  EXPECT_TRUE(Mentions(PositionError("5k3/10/9/5P4/5K3/10/9/10/9 w m7 0 1"),
                       "no Black pawn can have just passed it"));
}

TEST(ChacoRexNotationTest, ProtocolMoves) {
  const G::Position start = G::InitialPosition();
  const Move m = G::ParseMove(start, "h3i4");
  EXPECT_EQ(G::FormatMove(start, m), "h3i4");
  const G::Position promo = G::ParsePosition("1n3k1q1/1P5P2/9/10/9/10/9/2p5p1/1N3K3 w - 0 1");
  EXPECT_EQ(G::FormatMove(promo, G::ParseMove(promo, "c8b9n")), "c8b9n");
  EXPECT_TRUE(Mentions(MoveError(kStart, "h3h5"), "is not legal"));
  EXPECT_TRUE(Mentions(MoveError(kStart, "h3h5"), "legal moves: "));
  EXPECT_TRUE(Mentions(MoveError(kStart, "h3h5"), "h3i4"));
  EXPECT_TRUE(Mentions(MoveError(kStart, "k3i4"), "no file k"));
  EXPECT_TRUE(Mentions(MoveError(kStart, "h4i4"), "only on odd ranks"));
  EXPECT_TRUE(Mentions(MoveError("1n3k1q1/1P5P2/9/10/9/10/9/2p5p1/1N3K3 w - 0 1", "c8b9"),
                       "is a promotion"));
  EXPECT_TRUE(Mentions(MoveError("1n3k1q1/1P5P2/9/10/9/10/9/2p5p1/1N3K3 w - 0 1", "c8b9k"),
                       "promotion letter must be q, r, b or n"));
  EXPECT_TRUE(Mentions(MoveError(kStart, "h3i4q"), "is not legal"));
  EXPECT_TRUE(Mentions(MoveError(kStart, "zz"), "neither protocol form"));
}

TEST(ChacoRexNotationTest, DisplayMovesAreWrittenAsInTheArticles) {
  const G::Position start = G::InitialPosition();
  EXPECT_EQ(G::FormatDisplayMove(start, G::ParseMove(start, "q1p4")), "Cq1-p4");
  EXPECT_EQ(G::FormatDisplayMove(start, G::ParseMove(start, "h3i4")), "h3-i4");
  EXPECT_EQ(G::FormatDisplayMove(start, G::ParseMove(start, "c2a4")), "c2-a4");
  // The articles' Dh1-h9++: the queen slides along (0, +2) next to the Black king on j9, which
  // is boxed in by its own pieces; the knight on g6 guards h9.
  const G::Position mate = G::ParsePosition(kMate);
  EXPECT_EQ(G::FormatDisplayMove(mate, G::ParseMove(mate, "h1h9")), "Dh1-h9++");
  // Check: the rook slides along (+1, +1) to j9, next to the king on m9 (which can take it).
  const G::Position check = G::ParsePosition("5k3/10/9/10/9/10/9/10/R4K3 w - 0 1");
  EXPECT_EQ(G::FormatDisplayMove(check, G::ParseMove(check, "b1j9")), "Tb1-j9+");
  // King moves are written with R, captures with x.
  const G::Position capture = G::ParsePosition("5k3/10/9/10/9/10/9/5p4/5K3 w - 0 1");
  EXPECT_EQ(G::FormatDisplayMove(capture, G::ParseMove(capture, "m1l2")), "Rm1xl2");
}

TEST(ChacoRexNotationTest, DisplayMovesAreRead) {
  const G::Position start = G::InitialPosition();
  EXPECT_EQ(G::ParseMove(start, "Cq1-p4"), G::ParseMove(start, "q1p4"));
  EXPECT_EQ(G::ParseMove(start, "h3-i4"), G::ParseMove(start, "h3i4"));
  const G::Position mate = G::ParsePosition(kMate);
  // Missing or weaker check marks are accepted.
  EXPECT_EQ(G::ParseMove(mate, "Dh1-h9++"), G::ParseMove(mate, "h1h9"));
  EXPECT_EQ(G::ParseMove(mate, "Dh1-h9+"), G::ParseMove(mate, "h1h9"));
  EXPECT_EQ(G::ParseMove(mate, "Dh1-h9"), G::ParseMove(mate, "h1h9"));
  const G::Position promo = G::ParsePosition("1n3k1q1/1P5P2/9/10/9/10/9/2p5p1/1N3K3 w - 0 1");
  EXPECT_EQ(G::ParseMove(promo, "c8-b9=C"), G::ParseMove(promo, "c8b9n"));
  EXPECT_EQ(G::ParseMove(promo, "c8xd9=D"), G::ParseMove(promo, "c8d9q"));
  EXPECT_EQ(G::ParseMove(promo, "p8xq9=T"), G::ParseMove(promo, "p8q9r"));
  EXPECT_EQ(G::ParseMove(promo, "p8-o9=B"), G::ParseMove(promo, "p8o9b"));
}

TEST(ChacoRexNotationTest, WrongDisplayClaimsAreErrors) {
  // Wrong piece letter, letter on a pawn, missing letter on a piece.
  EXPECT_TRUE(Mentions(MoveError(kStart, "Bq1-p4"), "the piece on q1 is a knight"));
  EXPECT_TRUE(Mentions(MoveError(kStart, "Th3-i4"), "the piece on h3 is a pawn"));
  EXPECT_TRUE(Mentions(MoveError(kStart, "q1-p4"), "not a pawn"));
  EXPECT_TRUE(Mentions(MoveError(kStart, "Xq1-p4"), "unknown piece letter 'X'"));
  // 'x' without a capture, '-' on a capture.
  EXPECT_TRUE(Mentions(MoveError(kStart, "Cq1xp4"), "captures nothing"));
  const std::string capture = "5k3/10/9/10/9/10/9/5p4/5K3 w - 0 1";
  EXPECT_TRUE(Mentions(MoveError(capture, "Rm1-l2"), "written with 'x'"));
  EXPECT_EQ(MoveError(capture, "Rm1xl2"), "");
  // '+' without check, '++' without mate.
  EXPECT_TRUE(Mentions(MoveError(kStart, "Cq1-p4+"), "gives no check"));
  const std::string check = "5k3/10/9/10/9/10/9/10/R4K3 w - 0 1";
  EXPECT_EQ(MoveError(check, "Tb1-j9+"), "");
  EXPECT_TRUE(Mentions(MoveError(check, "Tb1-j9++"), "gives check without mate"));
  EXPECT_EQ(MoveError(kMate, "Dh1-h9++"), "");
  EXPECT_TRUE(Mentions(MoveError(kStart, "Cq1-p4++"), "claims mate"));
  // En passant is a capture: written with 'x'.
  const std::string en_passant = "5k3/10/9/10/9/3pP5/9/10/5K3 b h3 0 1";
  EXPECT_EQ(MoveError(en_passant, "g4xh3"), "");
  EXPECT_TRUE(Mentions(MoveError(en_passant, "g4-h3"), "written with 'x'"));
  // Promotions need their piece; non-promotions must not have one.
  const std::string promo = "1n3k1q1/1P5P2/9/10/9/10/9/2p5p1/1N3K3 w - 0 1";
  EXPECT_TRUE(Mentions(MoveError(promo, "c8-b9"), "is a promotion"));
  EXPECT_TRUE(Mentions(MoveError(promo, "c8-b9=R"), "promotion piece must be D, T, B or C"));
  EXPECT_TRUE(Mentions(MoveError(kStart, "h3-i4=D"), "is not legal"));
  // Illegal display moves list the legal moves.
  EXPECT_TRUE(Mentions(MoveError(kStart, "Dh1-h5"), "legal moves: "));
  EXPECT_TRUE(Mentions(MoveError(kStart, "h3-i4#"), "neither protocol form"));
}

TEST(ChacoRexNotationTest, BoardPictureInHexLayout) {
  EXPECT_EQ(G::BoardPicture(G::InitialPosition()),
            "9  r n b q b k b n r\n"
            "8 p p p p p p p p p p\n"
            "7  . . p p p p p . .\n"
            "6 . . . . . . . . . .\n"
            "5  . . . . . . . . .\n"
            "4 . . . . . . . . . .\n"
            "3  . . P P P P P . .\n"
            "2 P P P P P P P P P P\n"
            "1  R N B Q B K B N R\n"
            "  abcdefghijlmnopqrst\n");
}

}  // namespace
}  // namespace vz::chaco_rex
