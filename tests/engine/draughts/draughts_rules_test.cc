// Portuguese draughts rules on small constructed positions: moves, compulsory capture, flying
// kings, quantity and quality rules, Turkish strike, crowning, end of game and draw counters.
//
// Square map (White at the bottom):  8: 32 . 31 . 30 . 29 .    4: 16 . 15 . 14 . 13 .
//                                     7: . 28 . 27 . 26 . 25   3: . 12 . 11 . 10 . 9
//                                     6: 24 . 23 . 22 . 21 .   2: 8 . 7 . 6 . 5 .
//                                     5: . 20 . 19 . 18 . 17   1: . 4 . 3 . 2 . 1

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/draughts/game.h"
#include "tests/engine/draughts/draughts_test_util.h"

namespace vz::draughts {
namespace {

using testing::NumLegal;
using testing::Play;
using testing::PlayOn;
using testing::SortedMoves;
using V = std::vector<std::string>;

const char* const kStart = "W:W1,2,3,4,5,6,7,8,9,10,11,12:B21,22,23,24,25,26,27,28,29,30,31,32";

TEST(DraughtsRulesTest, StartPositionMoves) {
  EXPECT_EQ(FormatPosition(InitialPosition()), kStart);
  EXPECT_EQ(SortedMoves(kStart), (V{"10-13", "10-14", "11-14", "11-15", "12-15", "12-16", "9-13"}));
  // Black's replies to 11-15 move downwards.
  const Position p = Play(kStart, {"11-15"});
  EXPECT_EQ(p.side_to_move, Color::kBlack);
  EXPECT_EQ(SortedMoves(FormatPosition(p)),
            (V{"21-17", "21-18", "22-18", "22-19", "23-19", "23-20", "24-20"}));
}

TEST(DraughtsRulesTest, MenMoveForwardOnlyAndCaptureForwardOnly) {
  // A White man on 14 with a Black man behind it (10) cannot capture backwards.
  EXPECT_EQ(SortedMoves("W:W14:B10"), (V{"14-18", "14-19"}));
  EXPECT_EQ(SortedMoves("B:W14:B10"), (V{"10-5", "10-6"}));  // Black's man moves down.
  // Black captures downwards only.
  EXPECT_EQ(SortedMoves("B:W14:B19"), (V{"19x10"}));
  EXPECT_EQ(SortedMoves("B:W19:B14"), (V{"14-10", "14-11"}));
  // A man on the edge has one forward square.
  EXPECT_EQ(SortedMoves("W:W16:B32"), (V{"16-20"}));
}

TEST(DraughtsRulesTest, CaptureIsCompulsory) {
  EXPECT_EQ(SortedMoves("W:W1,10:B14"), (V{"10x19"}));
  // Both captures are allowed (same quantity and quality), the plain moves are not.
  EXPECT_EQ(SortedMoves("W:W1,10:B13,14"), (V{"10x17", "10x19"}));
  // Compulsory for kings too.
  EXPECT_EQ(SortedMoves("W:WK4,1:B11"), (V{"4x14", "4x18", "4x21", "4x25"}));
}

TEST(DraughtsRulesTest, ManMultiCapture) {
  // 1 jumps 5 to 10, then must go on: over 14 to 19 or over 13 to 17.
  EXPECT_EQ(SortedMoves("W:W1:B5,13,14"), (V{"1x17", "1x19"}));
  const Position p = Play("W:W1:B5,13,14", {"1x19"});
  EXPECT_EQ(FormatPosition(p), "B:W19:B13");
}

TEST(DraughtsRulesTest, QuantityRule) {
  // 6x13 takes one piece, 6x15x24 takes two: only the latter is legal.
  EXPECT_EQ(SortedMoves("W:W6:B10,11,20"), (V{"6x24"}));
  // Quantity before quality: two men beat one king.
  EXPECT_EQ(SortedMoves("W:W6:BK10,11,20"), (V{"6x24"}));
  // Across pieces: the man taking two (1x10x19) beats the king taking one (31x24).
  EXPECT_EQ(SortedMoves("W:W1,K31:B5,14,28"), (V{"1x19"}));
}

TEST(DraughtsRulesTest, QualityRuleDecides) {
  EXPECT_EQ(SortedMoves("W:W6:B10,11"), (V{"6x13", "6x15"}));
  // Equal quantity: the capture taking the king is compulsory.
  EXPECT_EQ(SortedMoves("W:W6:B10,K11"), (V{"6x15"}));
  EXPECT_EQ(SortedMoves("W:W6:BK10,11"), (V{"6x13"}));
  // Two pieces each, both ending on 22; the route over the king (via 13 and 18) is the only move.
  EXPECT_EQ(SortedMoves("W:W6:B10,11,K18,19"), (V{"6x22"}));
  const Position p = ParsePosition("W:W6:B10,11,K18,19");
  EXPECT_EQ(MoveCaptured(ParseMove(p, "6x22")), Bit(9) | Bit(17));
  // Two kings each: free choice again.
  EXPECT_EQ(SortedMoves("W:W6:BK10,K11"), (V{"6x13", "6x15"}));
}

TEST(DraughtsRulesTest, FlyingKingMovesAnyDistance) {
  EXPECT_EQ(SortedMoves("W:WK1:B32"), (V{"1-10", "1-14", "1-19", "1-23", "1-28", "1-5"}));
  // A king moves backwards too, and is stopped by its own pieces.
  EXPECT_EQ(SortedMoves("W:WK14,23:B32"), (V{"14-1", "14-10", "14-11", "14-18", "14-19", "14-21",
                                             "14-25", "14-4", "14-5", "14-7", "23-27", "23-28"}));
}

TEST(DraughtsRulesTest, KingChoosesItsLandingSquare) {
  // Any empty square behind the captured piece, at any distance.
  EXPECT_EQ(SortedMoves("W:WK1:B10"), (V{"1x14", "1x19", "1x23", "1x28", "1x32"}));
  // Only up to the next occupied square.
  EXPECT_EQ(SortedMoves("W:WK1:B10,32"), (V{"1x14", "1x19", "1x23", "1x28"}));
  // A landing square that allows a further capture must be chosen (quantity rule): from 14 or 19
  // the king takes 23 as well; two sequences (via 14, via 19) are one move each.
  EXPECT_EQ(SortedMoves("W:WK1:B10,23"), (V{"1x28", "1x32"}));
  // From 14 the king may also turn: 1x14 then over 18 to 21/25.
  EXPECT_EQ(SortedMoves("W:WK1:B10,18"), (V{"1x21", "1x25"}));
  // A king cannot jump two pieces in a row.
  EXPECT_EQ(SortedMoves("W:WK1:B10,14"), (V{"1-5"}));
}

TEST(DraughtsRulesTest, SameStartEndAndCapturedSetIsOneMove) {
  const Position p = ParsePosition("W:WK1:B10,23");
  ASSERT_EQ(NumLegal(p), 2);
  // The landing path is recomputed: the smallest of 1-14-28 and 1-19-28.
  const Move move = ParseMove(p, "1x28");
  EXPECT_EQ(MoveCaptured(move), Bit(9) | Bit(22));
  EXPECT_EQ(CapturePath(p, move), (std::vector<int>{1, 14, 28}));
  EXPECT_EQ(ParseMove(p, "1x19x28"), move);
  EXPECT_EQ(ParseMove(p, "1x14x28"), move);
}

TEST(DraughtsRulesTest, TurkishStrikeJumpedPieceBlocks) {
  // 1 takes 19 (lands on 23: 28 is occupied), 27 (to 30), 26 (to 21), 18 (to 14/11/7/4). From 14
  // the jumped man on 19 still stands: the king cannot pass it to take 28 and land on 32, which it
  // could if pieces were removed during the move (five pieces).
  EXPECT_EQ(SortedMoves("W:WK1:B18,19,26,27,28"), (V{"1x11", "1x14", "1x4", "1x7"}));
  const Position p = Play("W:WK1:B18,19,26,27,28", {"1x14"});
  EXPECT_EQ(FormatPosition(p), "B:WK14:B28");
}

TEST(DraughtsRulesTest, TurkishStrikeNoPieceJumpedTwice) {
  // The king goes round the loop 14-23-30-21 (or the other way) and comes back to the diagonals
  // of its first captures: it may not jump 19 or 18 a second time, so every move takes four.
  const V moves = SortedMoves("W:WK14:B18,19,26,27");
  EXPECT_EQ(moves, (V{"14x1", "14x10", "14x11", "14x14", "14x4", "14x5", "14x7"}));
}

TEST(DraughtsRulesTest, KingPassesOverAndLandsOnItsStartSquare) {
  // Both round trips pass the start square 14 (empty during the king's own capture); 14x14 ends
  // there, and the two directions give the same move once.
  const Position p = ParsePosition("W:WK14:B18,19,26,27");
  const Move move = ParseMove(p, "14x14");
  EXPECT_EQ(MoveFrom(move), 13);
  EXPECT_EQ(MoveTo(move), 13);
  EXPECT_EQ(PopCount(MoveCaptured(move)), 4);
  Position child = p;
  ApplyMove(child, move);
  EXPECT_EQ(FormatPosition(child), "B:WK14:B");
  EXPECT_EQ(child.hash, ComputeHash(child));
  // Passing over the start square: 14x4 goes 14-23-30-21 then over 18 across 14 to 4.
  EXPECT_EQ(CapturePath(p, ParseMove(p, "14x4")), (std::vector<int>{14, 23, 30, 21, 4}));
}

TEST(DraughtsRulesTest, ManCrownedOnlyWhenTheMoveEndsOnTheFarRank) {
  // A plain move onto the far rank crowns.
  Position p = Play("W:W25:BK1", {"25-29"});
  EXPECT_EQ(FormatPosition(p), "B:WK29:BK1");
  EXPECT_EQ(p.hash, ComputeHash(p));
  // A capture ending on the far rank crowns.
  p = Play("W:W23:B27,K1", {"23x30"});
  EXPECT_EQ(FormatPosition(p), "B:WK30:BK1");
  // Black crowns on 1-4, by a plain move and by a capture.
  p = Play("B:WK32:B5", {"5-1"});
  EXPECT_EQ(FormatPosition(p), "W:WK32:BK1");
  p = Play("B:W6,7:B10", {"10x3"});
  EXPECT_EQ(FormatPosition(p), "W:W7:BK3");
  // A man that does not reach the far rank stays a man.
  p = Play("W:W19:B23", {"19x28"});
  EXPECT_EQ(FormatPosition(p), "B:W28:B");
}

TEST(DraughtsRulesTest, ManReachingFarRankDuringCaptureStops) {
  // After 23x30 the new king could take 26 (30 over 26 to 21/17), a man cannot go on: the move
  // ends, takes one piece and crowns.
  EXPECT_EQ(SortedMoves("W:W23:B26,27"), (V{"23x30"}));
  const Position p = Play("W:W23:B26,27", {"23x30"});
  EXPECT_EQ(FormatPosition(p), "B:WK30:B26");
  // The man on 23 takes only one piece (it stops on 30), so the man on 6 taking two (over 11 and
  // 20) is compulsory; were the crowned man allowed to go on over 26, the counts would tie.
  EXPECT_EQ(SortedMoves("W:W6,23:B10,11,20,26,27"), (V{"6x24"}));
  // Black likewise stops on rank 1: 10x3 takes 6 only, although a king on 3 could take 7.
  EXPECT_EQ(SortedMoves("B:W6,7:B10"), (V{"10x3"}));
}

TEST(DraughtsRulesTest, CrownedKingMovesAsKingNextTurn) {
  const Position p = Play("W:W25:BK1", {"25-29", "1-5"});
  EXPECT_EQ(SortedMoves(FormatPosition(p)),
            (V{"29-12", "29-15", "29-19", "29-22", "29-25", "29-26", "29-8"}));
}

TEST(DraughtsRulesTest, NoLegalMoveLoses) {
  // White's only man is blocked by a Black man it cannot capture (no square behind 29).
  const Position blocked = ParsePosition("W:W25:B29");
  EXPECT_EQ(NumLegal(blocked), 0);
  EXPECT_EQ(LocalOutcome(blocked, 0), (Outcome{Status::kBlackWins, Reason::kNoLegalMove}));
  // No pieces at all.
  const Position empty = ParsePosition("B:W5:B");
  EXPECT_EQ(LocalOutcome(empty, NumLegal(empty)),
            (Outcome{Status::kWhiteWins, Reason::kNoLegalMove}));
  // Decided before any draw count.
  const Position counted = ParsePosition("W:W25:B29:H40");
  EXPECT_EQ(LocalOutcome(counted, 0), (Outcome{Status::kBlackWins, Reason::kNoLegalMove}));
  // The move that blocks the opponent wins.
  const Position after = Play("B:W25:BK22", {"22-29"});
  EXPECT_EQ(NumLegal(after), 0);
  EXPECT_EQ(LocalOutcome(after, 0), (Outcome{Status::kBlackWins, Reason::kNoLegalMove}));
}

TEST(DraughtsRulesTest, TwentyMoveRuleCountsPlies) {
  // Kings on 4 and 29 shuffle without contact.
  Position p = Play("W:WK4:BK29:H38", {"4-8"});
  EXPECT_EQ(p.twenty_move_plies, 39);
  EXPECT_EQ(LocalOutcome(p, NumLegal(p)).status, Status::kOngoing);
  PlayOn(p, "29-25");
  EXPECT_EQ(p.twenty_move_plies, 40);
  EXPECT_EQ(FormatPosition(p), "W:WK8:BK25:H40");
  EXPECT_EQ(LocalOutcome(p, NumLegal(p)), (Outcome{Status::kDraw, Reason::kTwentyMoveRule}));
  // Counting from zero: 40 king plies draw, 39 do not.
  p = ParsePosition("W:WK4:BK29");
  const char* const kShuffle[4] = {"4-8", "29-25", "8-4", "25-29"};
  for (int ply = 0; ply < 40; ++ply) {
    EXPECT_EQ(LocalOutcome(p, NumLegal(p)).status, Status::kOngoing) << ply;
    PlayOn(p, kShuffle[ply % 4]);
  }
  EXPECT_EQ(p.twenty_move_plies, 40);
  EXPECT_EQ(LocalOutcome(p, NumLegal(p)).reason, Reason::kTwentyMoveRule);
}

TEST(DraughtsRulesTest, TwentyMoveCountRestartsOnManMoveOrCapture) {
  Position p = Play("W:WK4,9:BK29:H30", {"9-13"});
  EXPECT_EQ(p.twenty_move_plies, 0);
  p = Play("W:WK4:BK29,K11:H30", {"4x14"});
  EXPECT_EQ(p.twenty_move_plies, 0);
  EXPECT_EQ(FormatPosition(p), "B:WK14:BK29");
  // A king move by either side counts.
  p = Play("B:WK4:BK29,30:H7", {"29-25"});
  EXPECT_EQ(p.twenty_move_plies, 8);
  PlayOn(p, "4-8");
  EXPECT_EQ(p.twenty_move_plies, 9);
  PlayOn(p, "30-26");  // a man move
  EXPECT_EQ(p.twenty_move_plies, 0);
}

TEST(DraughtsRulesTest, ThreeKingsAgainstOneTwelfthMove) {
  // Kings on 1, 2, 3 against a king on 30: no capture either way.
  Position p = Play("W:WK1,K2,K3:BK30:T10", {"1-5"});  // 11th move
  EXPECT_EQ(p.three_kings_moves, 11);
  EXPECT_EQ(LocalOutcome(p, NumLegal(p)).status, Status::kOngoing);
  PlayOn(p, "30-26");  // the weaker side's move does not count
  EXPECT_EQ(p.three_kings_moves, 11);
  EXPECT_EQ(LocalOutcome(p, NumLegal(p)).status, Status::kOngoing);
  PlayOn(p, "2-6");  // 12th move, not winning
  EXPECT_EQ(p.three_kings_moves, 12);
  EXPECT_EQ(FormatPosition(p), "B:WK3,K5,K6:BK26:H3:T12");
  EXPECT_EQ(LocalOutcome(p, NumLegal(p)), (Outcome{Status::kDraw, Reason::kThreeKingsRule}));
}

TEST(DraughtsRulesTest, ThreeKingsTwelfthMoveMayStillWin) {
  // 12th move captures the lone king: a win, not a draw.
  Position p = Play("W:WK1,K2,K3:BK10:T11", {"1x14"});
  EXPECT_EQ(LocalOutcome(p, NumLegal(p)), (Outcome{Status::kWhiteWins, Reason::kNoLegalMove}));
  // 12th move blocks the lone king on 4 (8 and 7 cannot be jumped once 11 is taken).
  Position q = Play("W:WK7,K8,K15:BK4:T11", {"15-11"});
  EXPECT_EQ(q.three_kings_moves, 12);
  EXPECT_EQ(NumLegal(q), 0);
  EXPECT_EQ(LocalOutcome(q, 0), (Outcome{Status::kWhiteWins, Reason::kNoLegalMove}));
}

TEST(DraughtsRulesTest, ThreeKingsCountStartsWhenMaterialAppears) {
  // By crowning: 25-29 makes the third king; that position is the first one (T = 0).
  Position p = Play("W:WK1,K2,25:BK30", {"25-29"});
  EXPECT_TRUE(IsThreeKingsAgainstOne(p));
  EXPECT_EQ(p.three_kings_moves, 0);
  PlayOn(p, "30-27");
  EXPECT_EQ(p.three_kings_moves, 0);
  PlayOn(p, "1-5");
  EXPECT_EQ(p.three_kings_moves, 1);
  EXPECT_EQ(FormatPosition(p), "B:WK2,K5,K29:BK27:H2:T1");
  // By a capture of the stronger side.
  p = Play("W:WK1,K2,K3:BK10,K30", {"1x14"});
  EXPECT_EQ(p.three_kings_moves, 0);
  EXPECT_TRUE(IsThreeKingsAgainstOne(p));
  PlayOn(p, "30-26");
  PlayOn(p, "14-10");
  EXPECT_EQ(p.three_kings_moves, 1);
  // By a capture of the weaker side: Black's king takes one of four White kings.
  p = Play("B:WK2,K3,K4,K27:BK30", {"30x23"});
  EXPECT_TRUE(IsThreeKingsAgainstOne(p));
  EXPECT_EQ(p.three_kings_moves, 0);
  PlayOn(p, "3-7");
  EXPECT_EQ(p.three_kings_moves, 1);
}

TEST(DraughtsRulesTest, ThreeKingsCountResetsWhenMaterialChanges) {
  // The lone king takes one of the three: two against one, the count is gone.
  Position p = Play("B:WK1,K2,K14:BK23:T5", {"23x10"});
  EXPECT_FALSE(IsThreeKingsAgainstOne(p));
  EXPECT_EQ(p.three_kings_moves, 0);
  EXPECT_EQ(FormatPosition(p), "W:WK1,K2:BK10");
  // Three kings and a man against one king: the rule does not apply.
  p = Play("W:WK1,K2,K3,9:BK30", {"1-5"});
  EXPECT_EQ(p.three_kings_moves, 0);
  EXPECT_EQ(LocalOutcome(p, NumLegal(p)).status, Status::kOngoing);
}

TEST(DraughtsRulesTest, ThreefoldRepetitionThroughGameState) {
  GameState<DraughtsGame> game(ParsePosition("W:WK4:BK29"));
  for (const char* move : {"4-8", "29-25", "8-4", "25-29", "4-8", "29-25", "8-4"}) {
    EXPECT_FALSE(game.outcome().IsTerminal());
    game.Play(move);
  }
  EXPECT_FALSE(game.outcome().IsTerminal());
  game.Play("25-29");  // the start position for the third time
  EXPECT_EQ(game.outcome(), (Outcome{Status::kDraw, Reason::kRepetition}));
  // The counters are not part of the repetition key.
  EXPECT_EQ(DraughtsGame::RepetitionKey(ParsePosition("W:WK4:BK29:H8")),
            DraughtsGame::RepetitionKey(ParsePosition("W:WK4:BK29")));
  EXPECT_NE(DraughtsGame::RepetitionKey(ParsePosition("B:WK4:BK29")),
            DraughtsGame::RepetitionKey(ParsePosition("W:WK4:BK29")));
}

TEST(DraughtsRulesTest, ActionIndexIsFromTimes32PlusTo) {
  const Position p = ParsePosition(kStart);
  EXPECT_EQ(DraughtsGame::ActionIndex(p, ParseMove(p, "11-15")), 10 * 32 + 14);
  // Two captures 6->22 taking different pieces share an index.
  const Position q = ParsePosition("W:W6:B10,11,18,19");
  const Move a = ParseMove(q, "6x13x22"), b = ParseMove(q, "6x15x22");
  EXPECT_NE(a, b);
  EXPECT_EQ(DraughtsGame::ActionIndex(q, a), DraughtsGame::ActionIndex(q, b));
  EXPECT_EQ(DraughtsGame::ActionIndex(q, a), 5 * 32 + 21);
  // Black's moves are seen with the board turned half a turn: 22-18 is White's 11-15.
  const Position black = ParsePosition("B" + std::string(kStart).substr(1));
  EXPECT_EQ(DraughtsGame::ActionIndex(black, ParseMove(black, "22-18")),
            DraughtsGame::ActionIndex(p, ParseMove(p, "11-15")));
}

TEST(DraughtsRulesTest, ShiftsMatchNeighbourTable) {
  const Geometry& g = GeometryTable();
  for (int s = 0; s < kNumSquares; ++s) {
    const auto expect = [&](uint32_t shifted, int d) {
      EXPECT_EQ(shifted, g.neighbour[s][d] < 0 ? 0u : Bit(g.neighbour[s][d])) << s << " " << d;
    };
    expect(ShiftUpRight(Bit(s)), kUpRight);
    expect(ShiftUpLeft(Bit(s)), kUpLeft);
    expect(ShiftDownRight(Bit(s)), kDownRight);
    expect(ShiftDownLeft(Bit(s)), kDownLeft);
  }
  // Diagonals named by the rules page.
  EXPECT_EQ(g.ray[3][kUpRight], Bit(6) | Bit(10) | Bit(13) | Bit(17) | Bit(20) | Bit(24));  // 4-25
  EXPECT_EQ(g.ray[1][kUpLeft], Bit(5) | Bit(10) | Bit(14) | Bit(19) | Bit(23));             // 2-24
  EXPECT_EQ(g.ray[8][kUpLeft], Bit(12) | Bit(17) | Bit(21) | Bit(26) | Bit(30));            // 9-31
  EXPECT_EQ(g.ray[2][kUpRight], Bit(5) | Bit(9) | Bit(12) | Bit(16));                       // 3-17
  EXPECT_EQ(g.ray[15][kUpRight], Bit(19) | Bit(22) | Bit(26) | Bit(29));                    // 16-30
}

TEST(DraughtsRulesTest, TwoStepsMatchJumpTable) {
  const Geometry& g = GeometryTable();
  for (int s = 0; s < kNumSquares; ++s) {
    const auto expect = [&](uint32_t shifted, int d) {
      EXPECT_EQ(shifted, g.jump[s][d] < 0 ? 0u : Bit(g.jump[s][d])) << s << " " << d;
    };
    expect(TwoSteps<kUpRight>(Bit(s)), kUpRight);
    expect(TwoSteps<kUpLeft>(Bit(s)), kUpLeft);
    expect(TwoSteps<kDownRight>(Bit(s)), kDownRight);
    expect(TwoSteps<kDownLeft>(Bit(s)), kDownLeft);
  }
}

// CountMoves counts men against men over whole boards (no list) and goes through the generator
// otherwise: both must give the list's size. 20,000 crowded random boards, men only and then with
// kings, each with either side to move; the men-only sample must reach captures of one, two and
// three men, and the other kings' captures, so that every path of the count is compared. (The
// count against the independent reference: DraughtsReferenceTest.)
TEST(DraughtsRulesTest, CountMovesIsTheListSizeOnCrowdedBoards) {
  std::mt19937 rng(7);
  bool man_took[internal::kMaxManJumps + 1] = {};  // [n]: men only, a capture of n pieces seen
  int king_captures = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const bool with_kings = trial % 2 == 1;
    Position p;
    for (int s = 0; s < kNumSquares; ++s) {
      const uint32_t roll = rng() % 8;            // 3/8 White, 3/8 Black, 1/4 empty
      if (roll < 3 && s < 28) p.white |= Bit(s);  // no man on its own far rank
      if (roll >= 3 && roll < 6 && s >= 4) p.black |= Bit(s);
      if (with_kings && (p.white | p.black) & Bit(s) && rng() % 6 == 0) p.kings |= Bit(s);
    }
    for (const Color side : {Color::kWhite, Color::kBlack}) {
      p.side_to_move = side;
      p.hash = ComputeHash(p);
      DraughtsMoveList moves;
      GenerateMoves(p, moves);
      ASSERT_EQ(CountMoves(p), moves.size) << FormatPosition(p);
      for (Move move : moves) {
        if (!IsCapture(move)) continue;
        if (p.kings & Bit(MoveFrom(move))) {
          ++king_captures;
        } else if (!p.kings) {
          man_took[PopCount(MoveCaptured(move))] = true;
        }
      }
    }
  }
  for (int taken = 1; taken <= internal::kMaxManJumps; ++taken) {
    EXPECT_TRUE(man_took[taken]) << taken;
  }
  EXPECT_GT(king_captures, 1000);
}

}  // namespace
}  // namespace vz::draughts
