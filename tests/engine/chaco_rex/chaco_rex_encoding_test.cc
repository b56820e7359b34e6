// Input planes, policy index and the file mirror of Chaco Rex (engine/chaco_rex/encoding.h).

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "engine/chaco_rex/encoding.h"
#include "engine/core/zobrist.h"
#include "tests/test_util.h"

namespace vz::chaco_rex {
namespace {

using G = ChacoRexGame;
using E = InputEncoding<G>;

using vz::testing::EncodePlanes;
using vz::testing::PlaneAt;
using vz::testing::PlaneSum;

TEST(ChacoRexEncodingTest, StartPositionLooksTheSameFromBothSides) {
  const Position white = G::InitialPosition();
  Position black = white;
  black.side_to_move = 1;
  black.hash = ComputePositionHash(black);
  EXPECT_EQ(EncodePlanes<E>(white),
            EncodePlanes<E>(black));  // the setup is mirror-symmetric across rank 5
  const auto planes = EncodePlanes<E>(white);
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnPawns + kKing - 1, 0, 11), 1.0f);    // m1
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnPawns + kQueen - 1, 0, 7), 1.0f);    // h1
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirPawns + kKing - 1, 8, 11), 1.0f);  // m9
  EXPECT_EQ(PlaneSum<E>(planes, E::kOwnPawns), 15.0f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kRealCells), 85.0f);
  EXPECT_EQ(PlaneAt<E>(planes, E::kRealCells, 0, 1), 1.0f);  // b1
  EXPECT_EQ(PlaneAt<E>(planes, E::kRealCells, 0, 0), 0.0f);  // no a1
  EXPECT_EQ(PlaneSum<E>(planes, E::kEnPassant), 0.0f);
  for (float value : planes) EXPECT_GE(value, 0.0f);
}

TEST(ChacoRexEncodingTest, BlackIsMirroredAcrossTheMiddleRankWithItsEnPassantCell) {
  // Black king m9, White king m1, a White pawn that just double-stepped c2-e4 (passed d3) and a
  // Black pawn on f5 (x 5, y 5); Black to move.
  const Position p = G::ParsePosition("5k3/10/9/10/2p6/2P7/9/10/5K3 b d3 0 1");
  const auto planes = EncodePlanes<E>(p, 2);
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnPawns + kKing - 1, 0, 11), 1.0f);    // m9 -> m1
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirPawns + kKing - 1, 8, 11), 1.0f);  // m1 -> m9
  EXPECT_EQ(PlaneAt<E>(planes, E::kOwnPawns, 4, 5), 1.0f);                 // f5 stays on rank 5
  EXPECT_EQ(PlaneAt<E>(planes, E::kTheirPawns, 5, 4), 1.0f);               // e4 -> e6
  EXPECT_EQ(PlaneAt<E>(planes, E::kEnPassant, 6, 3), 1.0f);                // d3 -> d7
  EXPECT_EQ(PlaneSum<E>(planes, E::kEnPassant), 1.0f);
  EXPECT_EQ(PlaneSum<E>(planes, E::kRepetition), 85.0f);
}

// The position mirrored left-right (x -> 18 - x).
Position MirrorFiles(const Position& p) {
  const Geometry& g = CellGeometry();
  auto mirror = [&](int cell) { return CellIndex(kNumFiles - 1 - g.x[cell], g.y[cell]); };
  Position q = EmptyPosition();
  for (int cell = 0; cell < kNumCells; ++cell) {
    if (p.board[cell]) PutPiece(q, p.board[cell], mirror(cell));
  }
  q.side_to_move = p.side_to_move;
  q.halfmove_clock = p.halfmove_clock;
  q.fullmove_number = p.fullmove_number;
  q.en_passant_cell = p.en_passant_cell < 0 ? int8_t(-1) : int8_t(mirror(p.en_passant_cell));
  q.hash = ComputePositionHash(q);
  return q;
}

TEST(ChacoRexEncodingTest, FileMirrorMapsPlanesAndLegalMoves) {
  const int checked =
      vz::testing::ExpectSymmetryOverRandomGames<G, E>(MirrorFiles, 1, /*games=*/6, /*plies=*/80,
                                                       /*seed=*/5);
  if (HasFatalFailure()) return;
  EXPECT_GT(checked, 200);
  for (int action = kNumCells * kNumCells; action < E::kNumActions; ++action) {
    EXPECT_EQ(E::SymmetricAction(1, E::SymmetricAction(1, action)), action);
  }
}

}  // namespace
}  // namespace vz::chaco_rex
