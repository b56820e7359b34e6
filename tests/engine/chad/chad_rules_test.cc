// Rule tests for Chad on constructed positions: every expectation is an exact move list or a
// yes/no that a wrong reading of the rules page would get wrong.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "engine/chad/game.h"
#include "engine/core/game_state.h"
#include "tests/engine/game_test_util.h"

namespace vz::chad {
namespace {

using G = ChadGame;

std::vector<std::string> Moves(const Position& p) { return testing::SortedMoveTexts<G>(p); }

// Legal moves starting on `from`, protocol form, sorted.
std::vector<std::string> MovesFrom(const Position& p, const std::string& from) {
  std::vector<std::string> out;
  for (const std::string& m : Moves(p)) {
    if (m.compare(0, from.size(), from) == 0 && !std::isdigit(m[from.size()])) out.push_back(m);
  }
  return out;
}

std::vector<std::string> DisplayMoves(const Position& p) {
  return testing::SortedMoveTexts<G>(p, /*display=*/true);
}

// True if `protocol` is legal in `p` and is a capture / promotion as stated.
bool IsLegalCapture(const Position& p, const std::string& protocol, bool promotion) {
  G::MoveList list;
  G::GenerateMoves(p, list);
  for (Move m : list) {
    if (G::FormatMove(p, m) == protocol) return IsCapture(m) && IsPromotion(m) == promotion;
  }
  return false;
}

bool HasDisplayMove(const Position& p, const std::string& display) {
  const std::vector<std::string> all = DisplayMoves(p);
  return std::find(all.begin(), all.end(), display) != all.end();
}

using Strings = std::vector<std::string>;

TEST(ChadRulesTest, StartPositionHasKingsInCastleCentres) {
  const Position p = G::InitialPosition();
  EXPECT_EQ(G::FormatPosition(p), std::string(kStartPosition));
  EXPECT_EQ(p.king[0], SquareOf(3, 3));
  EXPECT_EQ(p.king[1], SquareOf(8, 8));
  EXPECT_FALSE(G::InCheck(p));
  // The king is boxed in by its own rooks; the rooks slide outwards.
  EXPECT_TRUE(MovesFrom(p, "d4").empty());
  EXPECT_EQ(MovesFrom(p, "d3"), (Strings{"d3d1", "d3d2"}));
  EXPECT_EQ(Moves(p).size(), 54u);
}

TEST(ChadRulesTest, KingFromCastleCentreReachesAllEightCastleSquares) {
  const Position p = G::ParsePosition("12/12/12/8k3/12/12/12/12/3K8/12/12/12 w 0 1");
  EXPECT_EQ(MovesFrom(p, "d4"),
            (Strings{"d4c3", "d4c4", "d4c5", "d4d3", "d4d5", "d4e3", "d4e4", "d4e5"}));
  const Position b = G::ParsePosition("12/12/12/8k3/12/12/12/12/3K8/12/12/12 b 0 1");
  EXPECT_EQ(MovesFrom(b, "i9"),
            (Strings{"i9h10", "i9h8", "i9h9", "i9i10", "i9i8", "i9j10", "i9j8", "i9j9"}));
}

TEST(ChadRulesTest, KingFromCastleCornerHasThreeStepsAndTwoLeaps) {
  const Position p = G::ParsePosition("12/12/12/8k3/12/12/12/12/12/2K9/12/12 w 0 1");
  EXPECT_EQ(MovesFrom(p, "c3"), (Strings{"c3c4", "c3d3", "c3d4", "c3d5", "c3e4"}));
  const Position b = G::ParsePosition("12/12/9k2/12/12/12/12/12/3K8/12/12/12 b 0 1");
  EXPECT_EQ(MovesFrom(b, "j10"), (Strings{"j10h9", "j10i10", "j10i8", "j10i9", "j10j9"}));
}

TEST(ChadRulesTest, KingMayNotLeaveCastleNorCaptureOnItsWall) {
  // Black rook on f4 (White's wall) checks the king on e4 along rank 4. The king may not take it
  // (a wall square), may not step to d4 (still on the rook's rank once the king has moved), nor
  // leave the castle.
  const Position p = G::ParsePosition("12/12/12/8k3/12/12/12/12/4Kr6/12/12/12 w 0 1");
  EXPECT_TRUE(G::InCheck(p));
  EXPECT_EQ(Moves(p), (Strings{"e4c3", "e4c5", "e4d3", "e4d5", "e4e3", "e4e5"}));
  // Not in check: an enemy rook on the wall still only stops squares it sees.
  const Position q = G::ParsePosition("12/12/12/8k3/12/12/12/4K7/12/5r6/12/12 w 0 1");
  EXPECT_FALSE(G::InCheck(q));
  EXPECT_EQ(Moves(q), (Strings{"e5c4", "e5d4", "e5d5", "e5e4"}));
}

TEST(ChadRulesTest, KingCapturesEnemyPieceInsideItsCastle) {
  // A black queen on c5 inside White's castle; the white king on d4 takes it.
  const Position p = G::ParsePosition("12/12/12/8k3/12/12/12/2q9/3K8/12/12/12 w 0 1");
  EXPECT_TRUE(G::InCheck(p));  // diagonal c5-d4
  EXPECT_TRUE(HasDisplayMove(p, "Kd4xc5"));
}

TEST(ChadRulesTest, RookOnEnemyWallAndDefenderInsideCaptureEachOther) {
  // White rook g9 on Black's wall, black rook h9 inside Black's castle: mutual capture.
  const std::string board = "12/12/12/6Rr4/9k2/12/12/12/3K8/12/12/12";
  const Position white = G::ParsePosition(board + " w 0 1");
  EXPECT_TRUE(HasDisplayMove(white, "Rg9xh9=Q"));
  const Position black = G::ParsePosition(board + " b 0 1");
  EXPECT_TRUE(HasDisplayMove(black, "Rh9xg9"));

  // The same across White's castle: black rook f4 on White's wall, white rook e4 inside.
  const std::string board2 = "12/12/12/8k3/12/12/12/12/4Rr6/2K9/12/12";
  const Position white2 = G::ParsePosition(board2 + " w 0 1");
  EXPECT_TRUE(HasDisplayMove(white2, "Re4xf4"));
  const Position black2 = G::ParsePosition(board2 + " b 0 1");
  EXPECT_TRUE(HasDisplayMove(black2, "Rf4xe4=Q"));
}

TEST(ChadRulesTest, CaptureAcrossWallWorksAlongALongClearLine) {
  // White rook on j11 (Black's wall) takes the black rook on j8 through the empty j10 and j9;
  // the queen on the wall square g10 takes diagonally into the castle (h9); the rook on g8 takes
  // i8 through the empty h8, but not once h8 is occupied (it takes h8 instead).
  const Position p = G::ParsePosition("12/9R2/6Q5/7rk3/6R1rr2/12/12/12/3K8/12/12/12 w 0 1");
  EXPECT_TRUE(IsLegalCapture(p, "j11j8", true));
  EXPECT_TRUE(IsLegalCapture(p, "g10h9", false));
  EXPECT_TRUE(IsLegalCapture(p, "g8i8", true));
  const Position q = G::ParsePosition("12/9R2/6Q5/7rk3/6Rrrr2/12/12/12/3K8/12/12/12 w 0 1");
  EXPECT_TRUE(IsLegalCapture(q, "g8h8", true));
  EXPECT_TRUE(MovesFrom(q, "g8").size() > 0);
  for (const std::string& m : MovesFrom(q, "g8")) EXPECT_NE(m, "g8i8");
}

TEST(ChadRulesTest, NoCaptureAnywhereElse) {
  // Rooks facing each other on plain squares (e7/e9), on the same wall (g8/g10), and a rook
  // inside its castle facing an enemy outside the wall: nothing can be captured.
  const Position p = G::ParsePosition("12/12/6r5/4r3k3/6R5/4R7/12/12/3K8/12/12/12 w 0 1");
  for (const std::string& m : DisplayMoves(p)) EXPECT_EQ(m.find('x'), std::string::npos) << m;
  const Position b = G::ParsePosition("12/12/6r5/4r3k3/6R5/4R7/12/12/3K8/12/12/12 b 0 1");
  for (const std::string& m : DisplayMoves(b)) EXPECT_EQ(m.find('x'), std::string::npos) << m;
  // Pieces block: the white rook on e7 cannot pass e9.
  EXPECT_EQ(MovesFrom(p, "e7"),
            (Strings{"e7a7", "e7b7", "e7c7", "e7d7", "e7e1", "e7e2", "e7e3", "e7e4", "e7e5", "e7e6",
                     "e7e8", "e7f7", "e7g7", "e7h7", "e7i7", "e7j7", "e7k7", "e7l7"}));
  // A black rook inside its castle (h9) and a white rook two files beyond the wall (e9): the
  // white rook is not on the wall, so no capture either way.
  const std::string board = "12/12/8k3/4R2r4/12/12/12/12/3K8/12/12/12";
  for (const char* side : {" w 0 1", " b 0 1"}) {
    for (const std::string& m : DisplayMoves(G::ParsePosition(board + side))) {
      EXPECT_EQ(m.find('x'), std::string::npos) << m;
    }
  }
}

TEST(ChadRulesTest, EnemyQueenInsideYourCastleOnlyTakenByTheKing) {
  // White queen on h9 inside Black's castle checks the king on i9. Black rooks on h8, h10 (inside
  // the castle) and g9 (own wall) all see it but may not take it; the king can, and every other
  // king move stays in the queen's lines or is blocked by the rooks on j8 and j10.
  const Position p = G::ParsePosition("12/12/7r1r2/6rQk3/7r1r2/12/12/12/3K8/12/12/12 b 0 1");
  EXPECT_TRUE(G::InCheck(p));
  EXPECT_EQ(DisplayMoves(p), (Strings{"Ki9xh9"}));
}

TEST(ChadRulesTest, CheckThroughAnEmptyWallSquareAndItsBlocking) {
  // White rook i5 sees the black king i9 through i6, i7 (Black's wall) and i8 (castle).
  const Position p = G::ParsePosition("12/12/12/8k3/12/12/12/8R3/3K8/12/12/12 b 0 1");
  EXPECT_TRUE(G::InCheck(p));
  // The same line with a black rook on the wall square i7 is no check.
  const Position q = G::ParsePosition("12/12/12/8k3/12/8r3/12/8R3/3K8/12/12/12 b 0 1");
  EXPECT_FALSE(G::InCheck(q));
  // With White to move and Black in check the position is invalid.
  EXPECT_THROW(G::ParsePosition("12/12/12/8k3/12/12/12/8R3/3K8/12/12/12 w 0 1"), Error);
  // Only moves that end the check are legal: the king leaves the i-file, or the rook on k7
  // blocks on the wall square i7.
  const Position r = G::ParsePosition("12/12/12/8k3/12/10r1/12/8R3/3K8/12/12/12 b 0 1");
  EXPECT_EQ(Moves(r), (Strings{"i9h10", "i9h8", "i9h9", "i9j10", "i9j8", "i9j9", "k7i7"}));
}

TEST(ChadRulesTest, QueenChecksDiagonallyRookDoesNot) {
  const Position queen = G::ParsePosition("12/12/12/8k3/12/12/12/4Q7/3K8/12/12/12 b 0 1");
  EXPECT_TRUE(G::InCheck(queen));  // e5-f6-g7-h8-i9
  const Position rook = G::ParsePosition("12/12/12/8k3/12/12/12/4R7/3K8/12/12/12 b 0 1");
  EXPECT_FALSE(G::InCheck(rook));
}

TEST(ChadRulesTest, PinnedRookMovesOnlyAlongThePin) {
  // Black rook i7 (its own wall) between its king i9 and the white rook i3.
  const Position p = G::ParsePosition("12/12/12/8k3/12/8r3/12/12/3K8/8R3/12/12 b 0 1");
  EXPECT_EQ(MovesFrom(p, "i7"), (Strings{"i7i4", "i7i5", "i7i6", "i7i8"}));
  // A rook pinned on a diagonal by a queen cannot move at all.
  const Position d = G::ParsePosition("12/12/12/8k3/7r4/12/12/4Q7/3K8/12/12/12 b 0 1");
  EXPECT_TRUE(MovesFrom(d, "h8").empty());
}

TEST(ChadRulesTest, PromotionOnEnteringTheEnemyCastle) {
  const Position p = G::ParsePosition("12/12/8k3/12/12/12/12/7R4/3K8/12/12/12 w 0 1");
  EXPECT_TRUE(HasDisplayMove(p, "Rh5-h8=Q"));
  EXPECT_TRUE(HasDisplayMove(p, "Rh5-h9=Q+"));
  EXPECT_TRUE(HasDisplayMove(p, "Rh5-h7"));   // the wall: no promotion
  EXPECT_TRUE(HasDisplayMove(p, "Rh5-h11"));  // passing through the castle: no promotion
  Position q = p;
  G::ApplyMove(q, G::ParseMove(p, "h5h8"));
  EXPECT_EQ(G::FormatPosition(q), "12/12/8k3/12/7Q4/12/12/12/3K8/12/12/12 b 0 1");
  // By capture: the white rook on the wall g9 takes h9 and becomes a queen; counter resets.
  const Position c = G::ParsePosition("12/12/8k3/6Rr4/12/12/12/12/3K8/12/12/12 w 7 20");
  Position after = c;
  G::ApplyMove(after, G::ParseMove(c, "g9h9"));
  EXPECT_EQ(G::FormatPosition(after), "12/12/8k3/7Q4/12/12/12/12/3K8/12/12/12 b 0 20");
  // A queen stays a queen and a rook in its own castle does not promote.
  const Position own = G::ParsePosition("12/12/8k3/12/12/12/12/12/3K8/12/12/2R9 w 3 9");
  Position moved = own;
  G::ApplyMove(moved, G::ParseMove(own, "c1c3"));
  EXPECT_EQ(G::FormatPosition(moved), "12/12/8k3/12/12/12/12/12/3K8/2R9/12/12 b 4 9");
}

TEST(ChadRulesTest, CheckmateAndItsDisplay) {
  const Position before = G::ParsePosition("12/12/R11/R11/7k4/12/12/12/3K8/12/12/1R10 w 0 1");
  const Move mate = G::ParseMove(before, "b1b8");
  EXPECT_EQ(G::FormatDisplayMove(before, mate), "Rb1-b8#");
  Position after = before;
  G::ApplyMove(after, mate);
  G::MoveList list;
  G::GenerateMoves(after, list);
  EXPECT_EQ(list.size, 0);
  EXPECT_TRUE(G::InCheck(after));
  EXPECT_EQ(G::LocalOutcome(after, list.size), (Outcome{Status::kWhiteWins, Reason::kCheckmate}));
}

TEST(ChadRulesTest, Stalemate) {
  // Black king h8 not in check; h9 i9 j9 h10 i10 (ranks 9, 10) and i8 (file i) are covered.
  const Position p = G::ParsePosition("12/12/R11/R11/7k4/12/12/12/3K8/12/12/8R3 b 0 1");
  EXPECT_FALSE(G::InCheck(p));
  G::MoveList list;
  G::GenerateMoves(p, list);
  EXPECT_EQ(list.size, 0);
  EXPECT_EQ(G::LocalOutcome(p, list.size), (Outcome{Status::kDraw, Reason::kStalemate}));
}

TEST(ChadRulesTest, BareKingsAreADraw) {
  const Position p = G::ParsePosition("12/12/12/8k3/12/12/12/12/3K8/12/12/12 w 0 1");
  G::MoveList list;
  G::GenerateMoves(p, list);
  EXPECT_EQ(list.size, 8);
  EXPECT_EQ(G::LocalOutcome(p, list.size), (Outcome{Status::kDraw, Reason::kBareKings}));
  const Position q = G::ParsePosition("12/12/12/8k3/12/12/12/12/3K8/12/12/R11 w 0 1");
  G::GenerateMoves(q, list);
  EXPECT_FALSE(G::LocalOutcome(q, list.size).IsTerminal());
}

TEST(ChadRulesTest, ThreefoldRepetitionIsADraw) {
  GameState<G> game(G::ParsePosition("12/12/12/8k3/12/12/12/12/3K8/12/12/R11 w 0 1"));
  const char* cycle[] = {"a1a2", "i9i10", "a2a1", "i10i9"};
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 4; ++i) {
      EXPECT_FALSE(game.outcome().IsTerminal()) << round << " " << i;
      game.Play(cycle[i]);
    }
  }
  EXPECT_EQ(game.RepetitionCount(), 3);
  EXPECT_EQ(game.outcome(), (Outcome{Status::kDraw, Reason::kRepetition}));
}

TEST(ChadRulesTest, CountersAndHash) {
  Position p = G::InitialPosition();
  for (const char* m : {"c5c11", "h8h2", "e3l3", "j10j12"}) {
    const Move move = G::ParseMove(p, m);
    G::ApplyMove(p, move);
    EXPECT_EQ(G::Hash(p), G::ComputeHash(p));
  }
  EXPECT_EQ(p.halfmove_clock, 4u);
  EXPECT_EQ(p.move_number, 3u);
  EXPECT_EQ(G::SideToMove(p), Color::kWhite);
  EXPECT_NE(G::Hash(p), G::Hash(G::InitialPosition()));
}

Position StartWithBlackToMove() {
  std::string text(kStartPosition);
  text.replace(text.find(" w "), 3, " b ");
  return G::ParsePosition(text);
}

TEST(ChadRulesTest, ActionIndicesAreDistinctAndSideRelative) {
  const Position p = G::ParsePosition("12/9R2/6Q5/7rk3/6R1rr2/12/12/12/3K8/12/12/12 w 0 1");
  for (const Position& position : {G::InitialPosition(), p, StartWithBlackToMove()}) {
    G::MoveList list;
    G::GenerateMoves(position, list);
    std::set<int> seen;
    for (Move m : list) {
      const int index = G::ActionIndex(position, m);
      EXPECT_GE(index, 0);
      EXPECT_LT(index, G::kNumActions);
      seen.insert(index);
    }
    EXPECT_EQ(int(seen.size()), list.size);
  }
  // Black's h8h2 (down the board) is, after a half-turn, e5e11: a slide of 6 up the board.
  const Position white = G::InitialPosition();
  const Position black = StartWithBlackToMove();
  EXPECT_EQ(G::ActionIndex(black, G::ParseMove(black, "h8h2")),
            G::ActionIndex(white, G::ParseMove(white, "e5e11")));
  // Knight leap of the king: d4 -> e6 is outside the castle, so use c3 -> d5.
  const Position k = G::ParsePosition("12/12/12/8k3/12/12/12/12/12/2K9/12/12 w 0 1");
  EXPECT_EQ(G::ActionIndex(k, G::ParseMove(k, "c3d5")), SquareOf(2, 2) * 96 + 88);
}

}  // namespace
}  // namespace vz::chad
