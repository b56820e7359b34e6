// Input planes and policy index of Cuarenta (engine/cuarenta/encoding.h).

#include <gtest/gtest.h>

#include <vector>

#include "engine/cuarenta/encoding.h"
#include "tests/test_util.h"

namespace vz::cuarenta {
namespace {

using G = CuarentaGame;
using E = InputEncoding<G>;

using vz::testing::EncodePlanes;
using vz::testing::PlaneAt;
using vz::testing::PlaneSum;

TEST(CuarentaEncodingTest, StartPositionWhiteToMove) {
  const auto planes = EncodePlanes<E>(G::InitialPosition());
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnKing, 1, 4), 1.0f);                 // e2
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnKing + kCamel - 1, 0, 7), 1.0f);    // h1
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnKing + kBishop - 1, 0, 1), 1.0f);   // b1
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirKing, 7, 4), 1.0f);               // e8
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirKing + kCamel - 1, 8, 1), 1.0f);  // b9
  EXPECT_EQ(PlaneSum<E>(planes, E::kOwnKing + kPawn - 1), 4.0f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kRealSquares), 40.0f);
  EXPECT_EQ(PlaneAt<E>(planes, E::kRealSquares, 0, 0), 0.0f);  // a1 is dark
  EXPECT_EQ(PlaneSum<E>(planes, E::kOwnCastling), 40.0f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kTheirCastling), 40.0f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kWhiteToMove), 40.0f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kFortyMove), 0.0f);
  for (float value : planes) EXPECT_GE(value, 0.0f);
}

TEST(CuarentaEncodingTest, BlackIsTurnedHalfATurn) {
  // Black king e8, bishop c6; White king e2, vao a4; only White may castle;
  // 40 plies without capture; Black to move.
  const Position p = G::ParsePosition("4/2k2/4/1b3/4/V4/4/2K2/3C b w 40 30");
  const auto planes = EncodePlanes<E>(p);
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnKing, 1, 4), 1.0f);                // e8 -> e2
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnKing + kBishop - 1, 3, 6), 1.0f);  // c6 -> g4
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirKing, 7, 4), 1.0f);              // e2 -> e8
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirKing + kVao - 1, 5, 8), 1.0f);   // a4 -> i6
  EXPECT_EQ(PlaneSum<E>(planes, E::kOwnCastling), 0.0f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kTheirCastling), 40.0f);
  EXPECT_FLOAT_EQ(PlaneAt<E>(planes, E::kFortyMove, 1, 4), 0.5f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kWhiteToMove), 0.0f);
}

TEST(CuarentaEncodingTest, PolicyIndicesAreDistinctAndInRange) {
  Position p = G::InitialPosition();
  for (int ply = 0; ply < 40; ++ply) {
    G::MoveList moves;
    G::GenerateMoves(p, moves);
    if (moves.size == 0) break;
    std::vector<bool> seen(E::kNumActions, false);
    for (Move m : moves) {
      const int index = E::PolicyIndex(p, m);
      ASSERT_GE(index, 0);
      ASSERT_LT(index, E::kNumActions);
      ASSERT_FALSE(seen[index]);
      seen[index] = true;
    }
    G::ApplyMove(p, moves[(ply * 7) % moves.size]);
  }
}

}  // namespace
}  // namespace vz::cuarenta
