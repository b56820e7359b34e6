// Cuarenta rules: each piece's moves in constructed positions, castling and its refusals,
// promotion choices by rank (on arrival, declined, in place later), check, mate, stalemate, the
// forty-move count and bare kings, hashing and action indices.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "engine/cuarenta/game.h"

namespace vz::cuarenta {
namespace {

using G = CuarentaGame;
using Strings = std::vector<std::string>;

Strings Sorted(Strings texts) {
  std::sort(texts.begin(), texts.end());
  return texts;
}

// Protocol strings of the legal moves of `p` starting on `from` ("" for all), sorted.
Strings MovesFrom(const Position& p, const std::string& from = "") {
  G::MoveList moves;
  G::GenerateMoves(p, moves);
  Strings texts;
  for (Move move : moves) {
    const std::string text = G::FormatMove(p, move);
    if (from.empty() || text.compare(0, 2, from) == 0) texts.push_back(text);
  }
  return Sorted(texts);
}
Strings MovesFrom(const std::string& fen, const std::string& from = "") {
  return MovesFrom(G::ParsePosition(fen), from);
}

bool HasMove(const Position& p, const std::string& text) {
  const Strings all = MovesFrom(p);
  return std::find(all.begin(), all.end(), text) != all.end();
}

Position Play(Position p, const Strings& moves) {
  for (const std::string& text : moves) G::ApplyMove(p, G::ParseMove(p, text));
  return p;
}

int NumMoves(const Position& p) {
  G::MoveList moves;
  G::GenerateMoves(p, moves);
  return moves.size;
}

// ---- the board and the start ----

TEST(CuarentaRulesTest, BoardHasFortySquaresWithFileAndRankOfOddSum) {
  int count = 0;
  for (int file = 0; file < 9; ++file) {
    for (int rank = 0; rank < 9; ++rank) {
      const int square = SquareAt(file, rank);
      if ((file + rank) % 2 == 0) {
        EXPECT_EQ(square, kNoSquare);
        continue;
      }
      ASSERT_GE(square, 0);
      EXPECT_EQ(FileOf(square), file);
      EXPECT_EQ(RankOf(square), rank);
      EXPECT_EQ(SquareAt(8 - file, 8 - rank), Rotate(square));
      ++count;
    }
  }
  EXPECT_EQ(count, 40);
}

TEST(CuarentaRulesTest, StartPositionMatchesItsString) {
  const Position start = G::InitialPosition();
  EXPECT_EQ(G::FormatPosition(start), kStartPosition);
  EXPECT_EQ(G::Hash(G::ParsePosition(kStartPosition)), G::Hash(start));
  EXPECT_EQ(NumMoves(start), 26);
}

// ---- pieces ----

TEST(CuarentaRulesTest, FrogOnD1ReachesExactlyA4D5G4FromTheStart) {
  EXPECT_EQ(MovesFrom(G::InitialPosition(), "d1"), (Strings{"d1a4", "d1d5", "d1g4"}));
  EXPECT_EQ(MovesFrom(G::InitialPosition(), "f1"), (Strings{"f1c4", "f1f5", "f1i4"}));
}

TEST(CuarentaRulesTest, FrogStepsOrthogonallyAndJumpsRowsOfFriendsOnly) {
  // Frog e4: steps e2, g4 and takes e6 (orthogonal); jumps its own king f3 to g2 and the row f5 g6
  // to take h7; no jump over the enemy e6 or camel d5; no jump west (row c4 a4 reaches the edge).
  const std::string fen = "4/2k2/3p/2pP1/1cP1/PPF2/2K1/5/4 w - 0 1";
  EXPECT_EQ(MovesFrom(fen, "e4"), (Strings{"e4e2", "e4e6", "e4g2", "e4g4", "e4h7"}));
}

TEST(CuarentaRulesTest, FrogNeverMovesOneDiagonalStep) {
  const Strings moves = MovesFrom("4/2k2/4/5/4/2F2/4/K4/4 w - 0 1", "e4");
  EXPECT_EQ(moves, (Strings{"e4c4", "e4e2", "e4e6", "e4g4"}));
}

TEST(CuarentaRulesTest, VaoCapturesOnlyOverExactlyOneScreen) {
  // No screen: moves up to the guard on e6 but cannot take it.
  EXPECT_EQ(MovesFrom("4/2k2/4/2g2/4/5/4/V1K2/4 w - 0 1", "a2"),
            (Strings{"a2b1", "a2b3", "a2c4", "a2d5"}));
  // One screen of either colour: takes e6; cannot move past the screen onto empty squares.
  EXPECT_EQ(MovesFrom("4/2k2/4/2g2/4/1P3/4/V1K2/4 w - 0 1", "a2"),
            (Strings{"a2b1", "a2b3", "a2e6"}));
  EXPECT_EQ(MovesFrom("4/2k2/4/2g2/4/1p3/4/V1K2/4 w - 0 1", "a2"),
            (Strings{"a2b1", "a2b3", "a2e6"}));
  // Two screens (c4, d5): e6 is out of reach.
  EXPECT_EQ(MovesFrom("4/2k2/4/2g2/1P2/1P3/4/V1K2/4 w - 0 1", "a2"), (Strings{"a2b1", "a2b3"}));
  // The first piece beyond the screen is a friend: no capture.
  EXPECT_EQ(MovesFrom("4/2k2/4/2G2/4/1p3/4/V1K2/4 w - 0 1", "a2"), (Strings{"a2b1", "a2b3"}));
  // Screen next to the vao, target at the far end of the line.
  EXPECT_EQ(MovesFrom("4/3bk/4/5/4/5/P3/V1K2/4 w - 0 1", "a2"), (Strings{"a2b1", "a2g8"}));
}

TEST(CuarentaRulesTest, VaoGivesCheckThroughAScreenAndTheScreenMayStepAside) {
  const Position p = G::ParsePosition("4/2k2/4/1b3/4/V4/4/2K2/4 b - 0 40");
  EXPECT_TRUE(G::InCheck(p));
  // The screen (bishop c6) leaves the line or takes the vao; the king may not step to d7 (still
  // behind one screen) nor to f9 (on the line beyond itself).
  EXPECT_TRUE(HasMove(p, "c6b7"));
  EXPECT_TRUE(HasMove(p, "c6a4"));
  EXPECT_TRUE(HasMove(p, "e8f7"));
  EXPECT_FALSE(HasMove(p, "e8d7"));
  EXPECT_FALSE(HasMove(p, "e8f9"));
  EXPECT_EQ(NumMoves(p), 11);
}

TEST(CuarentaRulesTest, GuardLeapsTheFirstDiagonalSquareEvenWhenOccupied) {
  // Guard e4: own pawn f5 (leaps it to take g6), enemy pawn d5 (takes it, or leaps it to c6).
  EXPECT_EQ(MovesFrom("4/2k2/4/3g1/1pP1/2G2/4/2K2/4 w - 0 1", "e4"),
            (Strings{"e4c2", "e4c6", "e4d3", "e4d5", "e4f3", "e4g2", "e4g6"}));
}

TEST(CuarentaRulesTest, CamelLeapsOneByThree) {
  EXPECT_EQ(MovesFrom("4/2k2/4/5/4/2C2/4/2K2/4 w - 0 1", "e4"),
            (Strings{"e4b3", "e4b5", "e4d1", "e4d7", "e4f1", "e4f7", "e4h3", "e4h5"}));
}

TEST(CuarentaRulesTest, PawnStepsThreeWaysForwardAndNeverCapturesAPawn) {
  EXPECT_EQ(MovesFrom("4/4k/4/5/4/2P2/4/2K2/4 w - 0 1", "e4"), (Strings{"e4d5", "e4e6", "e4f5"}));
  // d5 black pawn: not capturable; e6 guard straight ahead and f5 bishop: captured.
  EXPECT_EQ(MovesFrom("4/4k/4/2g2/1pb1/2P2/4/2K2/4 w - 0 1", "e4"), (Strings{"e4e6", "e4f5"}));
  // Black pawns go down the board.
  EXPECT_EQ(MovesFrom("4/2k2/4/2p2/4/5/4/K4/4 b - 0 1", "e6"), (Strings{"e6d5", "e6e4", "e6f5"}));
  // A pawn gives check straight ahead (its capture direction includes (0, +2)).
  EXPECT_TRUE(G::InCheck(G::ParsePosition("4/2k2/4/2P2/4/5/4/2K2/4 b - 0 1")));
}

TEST(CuarentaRulesTest, KingNeverStepsSidewaysNorCapturesStraight) {
  // Alone: four diagonal steps and the two straight steps; c4 and g4 are sideways.
  EXPECT_EQ(MovesFrom("4/2k2/4/5/4/2K2/4/5/4 w - 0 1", "e4"),
            (Strings{"e4d3", "e4d5", "e4e2", "e4e6", "e4f3", "e4f5"}));
  // A guard on e6: the king may not take it straight ahead; d5 and f5 are attacked by it.
  EXPECT_EQ(MovesFrom("4/2k2/4/2g2/4/2K2/4/5/4 w - 0 1", "e4"), (Strings{"e4d3", "e4e2", "e4f3"}));
  // ... but takes diagonally.
  EXPECT_TRUE(HasMove(G::ParsePosition("4/2k2/4/5/2g1/2K2/4/5/4 w - 0 1"), "e4f5"));
}

// ---- castling ----

constexpr const char* kCastleWhite = "c3/2k2/2p1/5/4/5/1P2/2K2/3C w w 0 1";

TEST(CuarentaRulesTest, CastlingExchangesKingAndCamel) {
  const Position p = G::ParsePosition(kCastleWhite);
  ASSERT_TRUE(HasMove(p, "e2h1"));
  const Position after = Play(p, {"e2h1"});
  EXPECT_EQ(G::FormatPosition(after), "c3/2k2/2p1/5/4/5/1P2/2C2/3K b - 1 1");
  EXPECT_EQ(G::FormatDisplayMove(p, G::ParseMove(p, "e2h1")), "Ke2-h1");
  // Black castles too, and may do so while White still has the right.
  const Position black = G::ParsePosition("c3/2k2/2p1/5/4/5/1P2/2K2/3C b wb 0 1");
  EXPECT_TRUE(HasMove(black, "e8b9"));
  EXPECT_EQ(G::FormatPosition(Play(black, {"e8b9"})), "k3/2c2/2p1/5/4/5/1P2/2K2/3C w w 1 2");
}

TEST(CuarentaRulesTest, WhiteMayNotCastleWhileBlackStillCan) {
  EXPECT_FALSE(HasMove(G::ParsePosition("c3/2k2/2p1/5/4/5/1P2/2K2/3C w wb 0 1"), "e2h1"));
  // Once Black's camel leaves b9 (and comes back), Black's right is gone and White may castle.
  const Position p =
      Play(G::ParsePosition("c3/2k2/2p1/5/4/5/1P2/2K2/3C b wb 0 1"), {"b9a6", "d3d5", "a6b9"});
  EXPECT_EQ(G::FormatPosition(p).substr(G::FormatPosition(p).find(' ')), " w w 3 3");
  EXPECT_TRUE(HasMove(p, "e2h1"));
}

TEST(CuarentaRulesTest, CastlingRefusedAfterKingOrCamelMoved) {
  const Position start = G::ParsePosition(kCastleWhite);
  const Position camel_moved = Play(start, {"h1g4", "b9a6", "g4h1", "a6b9"});
  EXPECT_FALSE(HasMove(camel_moved, "e2h1"));
  EXPECT_NE(G::FormatPosition(camel_moved).find(" w - "), std::string::npos);
  const Position king_moved = Play(start, {"e2f3", "b9a6", "f3e2", "a6b9"});
  EXPECT_FALSE(HasMove(king_moved, "e2h1"));
  // The castling field cannot claim a right the pieces do not allow.
  EXPECT_THROW(G::ParsePosition("c3/2k2/2p1/5/4/5/1P2/1K3/3C w w 0 1"), Error);
}

TEST(CuarentaRulesTest, CastlingRefusedInCheckAndIntoCheck) {
  // Black camel d5 checks e2.
  const Position in_check = G::ParsePosition("c3/2k2/2p1/5/1c2/5/1P2/2K2/3C w w 0 1");
  EXPECT_TRUE(G::InCheck(in_check));
  EXPECT_FALSE(HasMove(in_check, "e2h1"));
  // Black camel g4 attacks h1, where the king would land.
  const Position into_check = G::ParsePosition("c3/2k2/2p1/5/4/3c1/1P2/2K2/3C w w 0 1");
  EXPECT_FALSE(G::InCheck(into_check));
  EXPECT_FALSE(HasMove(into_check, "e2h1"));
}

// ---- promotion ----

TEST(CuarentaRulesTest, PromotionToCamelOnlyOnRanksSevenAndEight) {
  EXPECT_EQ(MovesFrom("4/4k/4/2P2/4/5/4/2K2/4 w - 0 1", "e6"),
            (Strings{"e6d7", "e6d7c", "e6e8", "e6e8c", "e6f7", "e6f7c"}));
  // Black's zone is ranks 3, 2, 1.
  EXPECT_EQ(MovesFrom("4/2k2/4/5/4/2p2/4/K4/4 b - 0 1", "e4"),
            (Strings{"e4d3", "e4d3c", "e4e2", "e4e2c", "e4f3", "e4f3c"}));
}

TEST(CuarentaRulesTest, PromotionOnTheLastRankOffersFiveChoices) {
  // e8: moves to d9 and f9 with no promotion or any of five; camel in place on e8.
  EXPECT_EQ(MovesFrom("4/k1P2/4/5/4/5/4/2K2/4 w - 0 1", "e8"),
            (Strings{"e8d9", "e8d9b", "e8d9c", "e8d9f", "e8d9g", "e8d9v", "e8e8c", "e8f9", "e8f9b",
                     "e8f9c", "e8f9f", "e8f9g", "e8f9v"}));
  // A pawn left on the last rank has no move but promotion in place.
  EXPECT_EQ(MovesFrom("1P2/k4/4/5/4/5/4/2K2/4 w - 0 1", "d9"),
            (Strings{"d9d9b", "d9d9c", "d9d9f", "d9d9g", "d9d9v"}));
  const Position p = Play(G::ParsePosition("1P2/k4/4/5/4/5/4/2K2/4 w - 5 1"), {"d9d9v"});
  EXPECT_EQ(G::FormatPosition(p), "1V2/k4/4/5/4/5/4/2K2/4 b - 0 1");
}

TEST(CuarentaRulesTest, DeclinedPromotionCanBeTakenInPlaceLater) {
  Position p = G::ParsePosition("4/4k/4/2P2/4/5/4/2K2/4 w - 3 1");
  p = Play(p, {"e6f7", "i8i6"});
  EXPECT_EQ(G::FormatPosition(p), "4/5/2P1/4k/4/5/4/2K2/4 w - 5 2");
  EXPECT_EQ(MovesFrom(p, "f7"), (Strings{"f7e8", "f7e8c", "f7f7c", "f7f9", "f7f9b", "f7f9c",
                                         "f7f9f", "f7f9g", "f7f9v", "f7g8", "f7g8c"}));
  p = Play(p, {"f7f7c"});
  EXPECT_EQ(G::FormatPosition(p), "4/5/2C1/4k/4/5/4/2K2/4 b - 0 2");
  // Decline on the last rank, then become a frog there.
  Position q = Play(G::ParsePosition("4/k1P2/4/5/4/5/4/2K2/4 w - 0 1"), {"e8d9", "a8b7"});
  EXPECT_TRUE(HasMove(q, "d9d9f"));
  q = Play(q, {"d9d9f"});
  EXPECT_EQ(G::FormatPosition(q), "1F2/5/k3/5/4/5/4/2K2/4 b - 0 2");
}

TEST(CuarentaRulesTest, NoPromotionInPlaceWhileInCheck) {
  // White pawn d9 may promote in place, but not while a black camel checks e2.
  const Position p = G::ParsePosition("1P2/k4/4/5/1c2/5/4/2K2/4 w - 0 1");
  ASSERT_TRUE(G::InCheck(p));
  EXPECT_TRUE(MovesFrom(p, "d9").empty());
}

// ---- end of the game ----

TEST(CuarentaRulesTest, FortyMoveCountIsNotResetByPawnMoves) {
  Position p = G::ParsePosition("k3/5/4/5/4/5/P3/2K2/4 w - 10 1");
  p = Play(p, {"b3b5"});
  EXPECT_EQ(p.forty_count, 11);
  // Captures, promotions (on arrival and in place) reset it; castling does not.
  EXPECT_EQ(
      Play(G::ParsePosition("k3/5/4/5/4/5/P3/2K2/4 w - 10 1"), {"b3b5", "b9c8", "b5b7", "c8b7"})
          .forty_count,
      0);
  EXPECT_EQ(Play(G::ParsePosition("4/4k/4/2P2/4/5/4/2K2/4 w - 30 1"), {"e6f7c"}).forty_count, 0);
  EXPECT_EQ(Play(G::ParsePosition("4/4k/4/2P2/4/5/4/2K2/4 w - 30 1"), {"e6f7"}).forty_count, 31);
  EXPECT_EQ(Play(G::ParsePosition("c3/2k2/2p1/5/4/5/1P2/2K2/3C w w 30 1"), {"e2h1"}).forty_count,
            31);
}

TEST(CuarentaRulesTest, FortyMoveRuleDrawsAtEightyPliesUnlessMated) {
  const Position p = G::ParsePosition("k3/5/4/5/P3/5/4/2K2/4 w - 79 60");
  const Position quiet = Play(p, {"e2e4"});
  EXPECT_EQ(quiet.forty_count, 80);
  EXPECT_EQ(G::LocalOutcome(quiet, NumMoves(quiet)),
            (Outcome{Status::kDraw, Reason::kFortyMoveRule}));
  const Position at79 = G::ParsePosition("k3/5/4/5/P3/5/4/2K2/4 b - 79 60");
  EXPECT_FALSE(G::LocalOutcome(at79, NumMoves(at79)).IsTerminal());
  // b5-b7 is a pawn move (no reset) that mates on the 80th ply: mate is decided first.
  const Position mated = Play(p, {"b5b7"});
  EXPECT_EQ(mated.forty_count, 80);
  EXPECT_EQ(NumMoves(mated), 0);
  EXPECT_EQ(G::LocalOutcome(mated, 0), (Outcome{Status::kWhiteWins, Reason::kCheckmate}));
  EXPECT_EQ(G::FormatDisplayMove(p, G::ParseMove(p, "b5b7")), "b5-b7#");
}

TEST(CuarentaRulesTest, StalemateAndBareKingsAreDraws) {
  const Position stalemate = G::ParsePosition("k3/5/2C1/1G3/4/5/4/2K2/4 b - 20 50");
  EXPECT_FALSE(G::InCheck(stalemate));
  EXPECT_EQ(NumMoves(stalemate), 0);
  EXPECT_EQ(G::LocalOutcome(stalemate, 0), (Outcome{Status::kDraw, Reason::kStalemate}));
  const Position bare = G::ParsePosition("4/2k2/4/5/4/5/4/2K2/4 w - 0 1");
  EXPECT_EQ(G::LocalOutcome(bare, NumMoves(bare)), (Outcome{Status::kDraw, Reason::kBareKings}));
  const Position not_bare = G::ParsePosition("4/2k2/4/5/4/5/P3/2K2/4 w - 0 1");
  EXPECT_FALSE(G::LocalOutcome(not_bare, NumMoves(not_bare)).IsTerminal());
}

TEST(CuarentaRulesTest, NoMoveMayLeaveTheKingInCheck) {
  // The black frog e8 checks the king e4 by jumping its own guard e6: the king must step away, and
  // not to d5 or f5 (guarded), nor take e6 straight ahead.
  const Position p = G::ParsePosition("4/k1f2/4/2g2/4/2K2/4/5/4 w - 0 1");
  ASSERT_TRUE(G::InCheck(p));
  G::MoveList moves;
  G::GenerateMoves(p, moves);
  EXPECT_EQ(MovesFrom(p), (Strings{"e4d3", "e4e2", "e4f3"}));
  for (Move move : moves) {
    Position child = p;
    G::ApplyMove(child, move);
    child.side_to_move ^= 1;
    EXPECT_FALSE(G::InCheck(child)) << G::FormatMove(p, move);
  }
}

// ---- hashing and actions ----

TEST(CuarentaRulesTest, IncrementalHashMatchesAndSeparatesSideAndCastling) {
  const Position start = G::InitialPosition();
  EXPECT_EQ(G::Hash(start), G::ComputeHash(start));
  const Position after = Play(start, {"d1d5", "f9f5", "d5d1", "f5f9"});
  EXPECT_EQ(G::Hash(after), G::ComputeHash(after));
  EXPECT_EQ(G::Hash(after), G::Hash(start));  // same pieces, side and rights
  const Position lost = Play(G::ParsePosition(kCastleWhite), {"h1g4", "b9a6", "g4h1", "a6b9"});
  EXPECT_NE(G::Hash(lost), G::Hash(G::ParsePosition(kCastleWhite)));
  EXPECT_NE(G::Hash(G::ParsePosition("cffb/vgkgv/pppp/5/4/5/PPPP/VGKGV/BFFC b wb 0 1")),
            G::Hash(start));
}

TEST(CuarentaRulesTest, ActionIndicesAreDistinctInRangeAndSeenFromTheMover) {
  for (const char* fen :
       {kStartPosition, "4/k1P2/4/5/4/5/4/2K2/4 w - 0 1", "c3/1Pk2/P3/5/4/5/p3/2K1p/3C w wb 0 1",
        "c3/1Pk2/P3/5/4/5/p3/2K1p/3C b wb 0 1", "1P2/k4/4/5/4/5/4/2K2/4 w - 0 1",
        "c1fb/vgk1v/p1p1/1FgP1/pV2/2G1p/P1P1/V1K2/B1FC b b 12 9"}) {
    const Position p = G::ParsePosition(fen);
    G::MoveList moves;
    G::GenerateMoves(p, moves);
    std::set<int> seen;
    for (Move move : moves) {
      const int index = G::ActionIndex(p, move);
      ASSERT_GE(index, 0);
      ASSERT_LT(index, G::kNumActions);
      seen.insert(index);
    }
    EXPECT_EQ(int(seen.size()), moves.size) << fen;
  }
  // Black's mirror image of a White move gets the same index (half-turn symmetric start).
  const Position white = G::InitialPosition();
  const Position black = G::ParsePosition("cffb/vgkgv/pppp/5/4/5/PPPP/VGKGV/BFFC b wb 0 1");
  EXPECT_EQ(G::ActionIndex(white, G::ParseMove(white, "d1g4")),
            G::ActionIndex(black, G::ParseMove(black, "f9c6")));
  EXPECT_EQ(G::ActionIndex(white, G::ParseMove(white, "b3b5")),
            G::ActionIndex(black, G::ParseMove(black, "h7h5")));
  // Castling uses the camel plane of the king's start square.
  const Position castle = G::ParsePosition(kCastleWhite);
  EXPECT_EQ(G::ActionIndex(castle, G::ParseMove(castle, "e2h1")), 6 * kNumPlanes + 44 + 4 + 1);
}

}  // namespace
}  // namespace vz::cuarenta
