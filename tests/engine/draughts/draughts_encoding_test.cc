// Input planes and policy index of Portuguese draughts (engine/draughts/encoding.h).

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "engine/core/zobrist.h"
#include "engine/draughts/encoding.h"
#include "tests/test_util.h"

namespace vz::draughts {
namespace {

using G = DraughtsGame;
using E = InputEncoding<G>;

using vz::testing::EncodePlanes;
using vz::testing::PlaneAt;
using vz::testing::PlaneSum;

TEST(DraughtsEncodingTest, WhiteToMoveSeesTheBoardAsDrawn) {
  // Square 1 = a man on h1 (row 0, column 7); K9 on h3; 32 on a8; K21 on g6.
  const auto planes = EncodePlanes<E>(G::ParsePosition("W:W1,K9:B32,K21:H4"));
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnMen, 0, 7), 1.0f);
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnKings, 2, 7), 1.0f);
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirMen, 7, 0), 1.0f);
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirKings, 5, 6), 1.0f);
  for (int plane = 0; plane < 4; ++plane) EXPECT_EQ(PlaneSum<E>(planes, plane), 1.0f) << plane;
  EXPECT_EQ(PlaneSum<E>(planes, E::kOnes), 64.0f);
  EXPECT_FLOAT_EQ(PlaneAt<E>(planes, E::kTwentyMove, 3, 3), 0.1f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kThreeKings), 0.0f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kRepetition), 0.0f);
  for (float value : planes) EXPECT_GE(value, 0.0f);  // every entry written
}

TEST(DraughtsEncodingTest, BlackToMoveSeesTheBoardTurnedHalfATurn) {
  const auto planes = EncodePlanes<E>(G::ParsePosition("B:W1,K9:B32,K21:H4"));
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnMen, 0, 7), 1.0f);      // 32 (a8) turned to h1
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnKings, 2, 1), 1.0f);    // 21 (g6) turned to b3
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirMen, 7, 0), 1.0f);    // 1 (h1) turned to a8
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirKings, 5, 0), 1.0f);  // 9 (h3) turned to a6
  for (int plane = 0; plane < 4; ++plane) EXPECT_EQ(PlaneSum<E>(planes, plane), 1.0f) << plane;
}

TEST(DraughtsEncodingTest, CountersAndRepetition) {
  const auto planes = EncodePlanes<E>(G::ParsePosition("W:WK1,K2,K3:BK30:H10:T6"), 2);
  EXPECT_FLOAT_EQ(PlaneAt<E>(planes, E::kTwentyMove, 7, 7), 0.25f);
  EXPECT_FLOAT_EQ(PlaneAt<E>(planes, E::kThreeKings, 0, 0), 0.5f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kRepetition), 64.0f);
}

// The half-turned position with colours and side to move swapped.
Position SwapColours(const Position& p) {
  auto turn = [](uint32_t bits) {
    uint32_t out = 0;
    for (int s = 0; s < 32; ++s) out |= ((bits >> s) & 1u) << (31 - s);
    return out;
  };
  Position q = p;
  q.white = turn(p.black);
  q.black = turn(p.white);
  q.kings = turn(p.kings);
  q.side_to_move = Opponent(p.side_to_move);
  q.hash = ComputeHash(q);
  return q;
}

TEST(DraughtsEncodingTest, ColourSwappedPositionsLookTheSameAndKeepTheirPolicyIndices) {
  uint64_t state = 7;
  int checked = 0;
  for (int game = 0; game < 20; ++game) {
    Position p = G::InitialPosition();
    for (int ply = 0; ply < 80; ++ply) {
      G::MoveList moves;
      G::GenerateMoves(p, moves);
      if (moves.size == 0) break;
      const Position q = SwapColours(p);
      ASSERT_EQ(EncodePlanes<E>(p), EncodePlanes<E>(q));
      G::MoveList swapped;
      G::GenerateMoves(q, swapped);
      ASSERT_EQ(moves.size, swapped.size);
      std::multiset<int> a, b;
      for (Move m : moves) a.insert(E::PolicyIndex(p, m));
      for (Move m : swapped) b.insert(E::PolicyIndex(q, m));
      ASSERT_EQ(a, b);
      for (Move m : moves) {
        ASSERT_GE(E::PolicyIndex(p, m), 0);
        ASSERT_LT(E::PolicyIndex(p, m), E::kNumActions);
      }
      ++checked;
      state = SplitMix64(state);
      G::ApplyMove(p, moves[int(state % uint64_t(moves.size))]);
    }
  }
  EXPECT_GT(checked, 500);
}

TEST(DraughtsEncodingTest, PolicyIndexIsInTheMoversFrame) {
  // White 9-13 (bits 8 -> 12) and Black's mirror image 24-20 (bits 23 -> 19) share an index.
  const Position white = G::InitialPosition();
  const Position black = G::ParsePosition("B:W1-12:B21-32");
  EXPECT_EQ(E::PolicyIndex(white, G::ParseMove(white, "9-13")),
            E::PolicyIndex(black, G::ParseMove(black, "24-20")));
  EXPECT_EQ(E::PolicyIndex(white, G::ParseMove(white, "9-13")), 8 * 32 + 12);
}

}  // namespace
}  // namespace vz::draughts
