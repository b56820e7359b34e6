// Text I/O of Chad: position strings with every validity check, moves in protocol and display
// form (each wrong claim rejected), and the board picture.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "engine/chad/game.h"
#include "engine/core/error.h"
#include "tests/test_util.h"

namespace vz::chad {
namespace {

using G = ChadGame;

using vz::testing::ErrorOf;

// The message of the vz::Error that G::ParsePosition throws ("" if it throws none).
constexpr auto PositionError = &vz::testing::ParsePositionError<G>;

std::string MoveError(const Position& p, const std::string& text) {
  return ErrorOf([&] { G::ParseMove(p, text); });
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Each move text of `cases` fails to parse in `p` with a message containing its text.
void ExpectMoveErrors(const Position& p,
                      const std::vector<std::pair<std::string, std::string>>& cases) {
  for (const auto& [text, message] : cases) {
    EXPECT_TRUE(Contains(MoveError(p, text), message)) << text << ": " << MoveError(p, text);
  }
}

TEST(ChadNotationTest, StartPositionRoundTrips) {
  const Position p = G::ParsePosition(kStartPosition);
  EXPECT_EQ(G::FormatPosition(p), std::string(kStartPosition));
  EXPECT_EQ(G::Hash(p), G::Hash(G::InitialPosition()));
  const std::string other = "12/11q/7r1r2/6rQk3/7r1r2/12/12/12/2RK8/12/12/12 b 17 42";
  EXPECT_EQ(G::FormatPosition(G::ParsePosition(other)), other);
}

TEST(ChadNotationTest, PositionErrorsNameTheFault) {
  const std::string kings = "12/12/12/8k3/12/12/12/12/3K8/12/12/12";
  const std::pair<std::string, std::string> cases[] = {
      {kings, "expected 4 fields"},
      {kings + " w 0 1 x", "expected 4 fields"},
      {"12/12/12/8k3/12/12/12/12/3K8/12/12 w 0 1", "ranks"},
      {"12/12/12/8k3/12/12/12/12/3K8/12/12/12/12 w 0 1", "more than 12 ranks"},
      {"12/12/12/8k3/12/12/12/12/3K7/12/12/12 w 0 1", "rank 4 has 11 squares"},
      {"12/12/12/8k3/12/12/12/12/3K9/12/12/12 w 0 1", "rank 4 has more than 12 squares"},
      {"13/12/12/8k3/12/12/12/12/3K8/12/12/12 w 0 1", "empty-square count"},
      {"0c12/12/12/8k3/12/12/12/12/3K8/12/12/12 w 0 1", "empty-square count"},
      {"12/12/12/8k3/12/12/12/12/3K7N/12/12/12 w 0 1", "unknown piece letter 'N'"},
      {"12/12/12/12/12/12/12/12/3K8/12/12/12 w 0 1", "Black has 0 kings"},
      {"12/12/12/8k3/12/12/12/12/3KK7/12/12/12 w 0 1", "White has 2 kings"},
      {"12/12/12/8k3/12/12/12/12/5K6/12/12/12 w 0 1",
       "White's king on f4 is outside White's castle"},
      {"12/12/12/10k1/12/12/12/12/3K8/12/12/12 w 0 1",
       "Black's king on k9 is outside Black's castle"},
      {"12/12/12/8k3/12/12/12/12/3K8/12/12/RRRRRRRRR3 w 0 1", "White has 9 rooks and queens"},
      {"12/12/12/7Rk3/12/12/12/12/3K8/12/12/12 b 0 1",
       "White rook on h9 stands inside Black's castle"},
      {kings + " x 0 1", "side to move 'x'"},
      {kings + " w -1 1", "half-move count"},
      {kings + " w 0 0", "move number"},
      {kings + " w 0 99999999", "move number"},
  };
  for (const auto& [text, message] : cases) {
    EXPECT_TRUE(Contains(PositionError(text), message)) << text << ": " << PositionError(text);
  }
  // The side not to move may not be in check; the side to move may.
  EXPECT_TRUE(Contains(PositionError("12/12/12/8k3/12/12/12/8R3/3K8/12/12/12 w 0 1"),
                       "Black (not to move) is in check"));
  EXPECT_EQ(PositionError("12/12/12/8k3/12/12/12/8R3/3K8/12/12/12 b 0 1"), "");
  // Messages quote the input.
  EXPECT_TRUE(Contains(PositionError(kings + " q 0 1"), "'" + kings + " q 0 1'"));
}

TEST(ChadNotationTest, ProtocolMoves) {
  const Position start = G::InitialPosition();
  const Move m = G::ParseMove(start, "c5c11");
  EXPECT_EQ(G::FormatMove(start, m), "c5c11");
  EXPECT_EQ(G::FormatDisplayMove(start, m), "Rc5-c11");
  ExpectMoveErrors(start, {
                              {"c5c11q", "only allowed on a promoting move"},
                              {"d4d5", "not a legal move; legal moves: "},
                              {"d4d5", "c5c11"},
                              {"m1m2", "expected from and to squares"},
                              {"c13c12", "expected from and to squares"},
                              {"c5c11x", "unexpected 'x'"},
                              {"", "empty move"},
                          });
  // A promoting move takes an optional q and is printed without it.
  const Position p = G::ParsePosition("12/12/8k3/12/12/12/12/7R4/3K8/12/12/12 w 0 1");
  const Move promote = G::ParseMove(p, "h5h8q");
  EXPECT_EQ(promote, G::ParseMove(p, "h5h8"));
  EXPECT_TRUE(IsPromotion(promote));
  EXPECT_EQ(G::FormatMove(p, promote), "h5h8");
  EXPECT_TRUE(Contains(MoveError(p, "h5h7q"), "only allowed on a promoting move"));
}

TEST(ChadNotationTest, DisplayMovesAndWrongClaims) {
  // White rook g9 on Black's wall next to the black rook h9 inside Black's castle.
  const Position p = G::ParsePosition("12/12/12/6Rr4/9k2/12/12/12/3K8/12/12/12 w 0 1");
  const Move capture = G::ParseMove(p, "Rg9xh9=Q");
  EXPECT_EQ(capture, G::ParseMove(p, "g9h9"));
  EXPECT_EQ(capture, G::ParseMove(p, "Rg9xh9"));  // =Q may be left out: promotion is automatic
  ExpectMoveErrors(p, {
                          {"Qg9xh9=Q", "is a rook (R), not Q"},
                          {"Rg9-h9=Q", "'-' but it is a capture"},
                          {"Rg9xg12", "'x' but it is no capture"},
                          {"Rg9-g12=Q", "'=Q' but the move does not promote"},
                          {"Rg9-g12+", "'+' but the move gives no check"},
                          {"Rg9-g12#", "'#' but the move is not checkmate"},
                          {"Kd4-d9", "not a legal move"},
                          {"Rg9h9", "expected '-' or 'x'"},
                          {"Rg9-g12!", "unexpected '!'"},
                      });
  EXPECT_EQ(G::FormatDisplayMove(p, G::ParseMove(p, "d4e5")), "Kd4-e5");

  // Check and mate marks: Rb1-b8 mates the king on h8.
  const Position m = G::ParsePosition("12/12/R11/R11/7k4/12/12/12/3K8/12/12/1R10 w 0 1");
  const Move mate = G::ParseMove(m, "b1b8");
  EXPECT_EQ(G::FormatDisplayMove(m, mate), "Rb1-b8#");
  EXPECT_EQ(G::ParseMove(m, "Rb1-b8#"), mate);
  EXPECT_EQ(G::ParseMove(m, "Rb1-b8"), mate);
  EXPECT_EQ(G::ParseMove(m, "Rb1-b8+"), mate);  // a mate is a check
  EXPECT_TRUE(Contains(MoveError(m, "Ra10-a11+"), "gives no check"));
  EXPECT_EQ(G::FormatDisplayMove(m, G::ParseMove(m, "b1b10")), "Rb1-b10");
  // A check that is not mate: the king can escape to i8.
  const Position c = G::ParsePosition("12/12/12/R11/7k4/12/12/12/3K8/12/12/1R10 w 0 1");
  EXPECT_EQ(G::FormatDisplayMove(c, G::ParseMove(c, "b1b8")), "Rb1-b8+");
  EXPECT_TRUE(Contains(MoveError(c, "Rb1-b8#"), "not checkmate"));
  // King capture in display form.
  const Position k = G::ParsePosition("12/12/12/8k3/12/12/12/2q9/3K8/12/12/12 w 0 1");
  EXPECT_EQ(G::FormatDisplayMove(k, G::ParseMove(k, "Kd4xc5")), "Kd4xc5");
}

TEST(ChadNotationTest, MangledTextThrowsOnlyVzError) {
  // Random edits of valid strings: each either parses (and then round-trips) or throws vz::Error.
  std::mt19937_64 rng(5);
  const std::string alphabet = "0123456789/ abcdefghijklmnopqrstuvwxyzKQRWB-x=+#";
  const Position start = G::InitialPosition();
  for (int i = 0; i < 20000; ++i) {
    std::string fen(kStartPosition);
    std::string move = i % 2 ? "Rc5-c11" : "c5c11";
    for (std::string* text : {&fen, &move}) {
      const int edits = 1 + int(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        const size_t at = rng() % (text->size() + 1);
        const char c = alphabet[rng() % alphabet.size()];
        switch (rng() % 3) {
          case 0: text->insert(at, 1, c); break;
          case 1:
            if (at < text->size()) text->erase(at, 1);
            break;
          default:
            if (at < text->size()) (*text)[at] = c;
            break;
        }
      }
    }
    try {
      const Position p = G::ParsePosition(fen);
      EXPECT_EQ(G::FormatPosition(G::ParsePosition(G::FormatPosition(p))), G::FormatPosition(p));
    } catch (const Error&) {
    }
    try {
      const Move m = G::ParseMove(start, move);
      EXPECT_EQ(G::ParseMove(start, G::FormatMove(start, m)), m) << move;
    } catch (const Error&) {
    }
  }
}

TEST(ChadNotationTest, BoardPictureMarksCastlesAndWalls) {
  const Position p = G::ParsePosition("12/12/7r1r2/6rQk3/7r1r2/12/12/12/3K8/12/12/12 b 0 1");
  const std::string picture = G::BoardPicture(p);
  const std::string expected =
      "12 . . . . . . . . . . . .\n"
      "11 . . . . . . . w w w . .\n"
      "10 . . . . . . w r c r w .\n"
      " 9 . . . . . . r Q k c w .\n"
      " 8 . . . . . . w r c r w .\n"
      " 7 . . . . . . . w w w . .\n"
      " 6 . . W W W . . . . . . .\n"
      " 5 . W C C C W . . . . . .\n"
      " 4 . W C K C W . . . . . .\n"
      " 3 . W C C C W . . . . . .\n"
      " 2 . . W W W . . . . . . .\n"
      " 1 . . . . . . . . . . . .\n"
      "   a b c d e f g h i j k l\n"
      "W/w empty White/Black wall, C/c empty White/Black castle square; Black to move\n";
  EXPECT_EQ(picture, expected);
}

}  // namespace
}  // namespace vz::chad
