// Input planes, policy index and the diagonal symmetry of Chad (engine/chad/encoding.h).

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "engine/chad/encoding.h"
#include "engine/core/zobrist.h"
#include "tests/test_util.h"

namespace vz::chad {
namespace {

using G = ChadGame;
using E = InputEncoding<G>;

using vz::testing::EncodePlanes;
using vz::testing::PlaneAt;
using vz::testing::PlaneSum;

TEST(ChadEncodingTest, StartPositionFromBothSides) {
  const Position white = G::InitialPosition();
  Position black = white;
  G::MoveList moves;
  G::GenerateMoves(white, moves);
  ASSERT_GT(moves.size, 0);
  // Any quiet rook move keeps the castles full but one square; check the kings and the zones.
  for (const Position& p : {white, black}) {
    const auto planes = EncodePlanes<E>(p);
    EXPECT_EQ(PlaneAt<E>(planes, E::kOwnKing, 3, 3), 1.0f);  // d4 (White) or i9 turned (Black)
    EXPECT_EQ(PlaneAt<E>(planes, E::kTheirKing, 8, 8), 1.0f);
    EXPECT_EQ(PlaneSum<E>(planes, E::kOwnRooks), 8.0f);
    EXPECT_EQ(PlaneSum<E>(planes, E::kOwnQueens), 0.0f);
    EXPECT_EQ(PlaneSum<E>(planes, E::kOwnCastle), 9.0f);
    EXPECT_EQ(PlaneSum<E>(planes, E::kOwnWall), 12.0f);
    EXPECT_EQ(PlaneAt<E>(planes, E::kOwnCastle, 2, 2), 1.0f);    // c3
    EXPECT_EQ(PlaneAt<E>(planes, E::kOwnWall, 1, 2), 1.0f);      // c2
    EXPECT_EQ(PlaneAt<E>(planes, E::kTheirCastle, 9, 9), 1.0f);  // j10
    EXPECT_EQ(PlaneSum<E>(planes, E::kOnes), 144.0f);
    for (float value : planes) EXPECT_GE(value, 0.0f);
    black.side = Color::kBlack;
    black.hash = ComputeHash(black);
  }
}

TEST(ChadEncodingTest, BlackIsTurnedHalfATurn) {
  // White king d4, White queen b2 (queen by promotion is fine for the encoder), Black king i9,
  // Black rook h12; Black to move.
  const Position p = G::ParsePosition("7r4/12/12/8k3/12/12/12/12/3K8/12/1Q10/12 b 3 20");
  const auto planes = EncodePlanes<E>(p, 2);
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnKing, 3, 3), 1.0f);        // i9 -> d4
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnRooks, 0, 4), 1.0f);       // h12 (file 7, rank 11) -> (0, 4)
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirKing, 8, 8), 1.0f);      // d4 -> i9
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirQueens, 10, 10), 1.0f);  // b2 -> k11
  EXPECT_EQ(PlaneSum<E>(planes, E::kOwnRooks), 1.0f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kRepetition), 144.0f);
}

// The position reflected in the a1-l12 diagonal.
Position Transpose(const Position& p) {
  auto transpose = [](const Bitboard& b) {
    Bitboard out;
    ForEachSquare(b, [&](int s) { out.Set(FileOf(s) * kBoardSize + RankOf(s)); });
    return out;
  };
  Position q = p;
  q.pieces[0] = transpose(p.pieces[0]);
  q.pieces[1] = transpose(p.pieces[1]);
  q.queens = transpose(p.queens);
  for (int c = 0; c < 2; ++c)
    q.king[c] = uint8_t(FileOf(p.king[c]) * kBoardSize + RankOf(p.king[c]));
  q.hash = ComputeHash(q);
  return q;
}

TEST(ChadEncodingTest, DiagonalReflectionMapsPlanesAndLegalMoves) {
  const int checked =
      vz::testing::ExpectSymmetryOverRandomGames<G, E>(Transpose, 1, /*games=*/6, /*plies=*/60,
                                                       /*seed=*/3);
  if (HasFatalFailure()) return;
  EXPECT_GT(checked, 200);
  for (int action : {0, 95, 13823, 4000}) {
    EXPECT_EQ(E::SymmetricAction(1, E::SymmetricAction(1, action)), action);
  }
}

}  // namespace
}  // namespace vz::chad
