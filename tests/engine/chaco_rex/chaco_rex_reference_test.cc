// engine/chaco_rex against the independent slow reference generator of the test folder
// (chaco_rex_reference.h): identical move sets and positions at every node of whole trees and of
// random games; perft of both.

#include <gtest/gtest.h>

#include "engine/core/error.h"
#include "engine/core/perft.h"
#include "tests/engine/chaco_rex/chaco_rex_reference_compare.h"

namespace vz::chaco_rex::reference {
namespace {

TEST(ChacoRexReferenceTest, StartTreeDepth3MatchesNodeByNode) {
  EXPECT_EQ(CompareStartTree(3).leaves, kStartPerft[3]);
}

TEST(ChacoRexReferenceTest, ReferenceGivesTheIssuePerftValues) {
  for (int depth = 1; depth <= 3; ++depth) {
    EXPECT_EQ(Perft(StartBoard(), depth), kStartPerft[depth]) << "depth " << depth;
  }
}

// Positions with en passant, promotions, pins, checks and mates, compared to depth 3.
const char* const kPositions[] = {
    // en passant for Black after g2-i4 (Black pawn on g4 takes on h3).
    "5k3/10/9/10/9/3pP5/9/10/5K3 b h3 0 1",
    // promotions for both sides, with captures onto the last rank.
    "1n3k1q1/1P5P2/9/10/9/10/9/2p5p1/1N3K3 w - 0 1",
    // pins of a rook along a rank, a knight on a diagonal line, a pawn along (1, 1).
    "4b3k/6q3/4N4/5P4/r1R1K4/10/9/10/9 w - 0 1",
    // en passant that would expose the own king along the rank (illegal).
    "5k3/10/9/K4Pp2r/9/10/9/10/9 w m7 0 1",
    // en passant that removes the checking pawn.
    "5k3/10/9/5Pp3/5K3/10/9/10/9 w m7 0 1",
    // the position after 1.h3i4.
    "rnbqbkbnr/pppppppppp/2ppppp2/10/9/4P5/2P1PPP2/PPPPPPPPPP/RNBQBKBNR b - 0 1",
};

TEST(ChacoRexReferenceTest, SpecialPositionsMatchNodeByNode) {
  for (const char* fen : kPositions) {
    SCOPED_TRACE(fen);
    G::Position p;
    try {
      p = G::ParsePosition(fen);
    } catch (const Error& error) {
      ADD_FAILURE() << error.what();
      continue;
    }
    CompareStats stats;
    CompareTree(p, FromFen(G::FormatPosition(p)), 3, stats);
    EXPECT_EQ(stats.leaves, vz::Perft<G>(p, 3));
  }
}

TEST(ChacoRexReferenceTest, MiddleGameMatchesNodeByNode) {
  EXPECT_EQ(ComparePositionTree(kMiddleGame, 2).leaves, 2136u);
}

TEST(ChacoRexReferenceTest, RandomGamesMatchPlyByPly) {
  CompareRandomGamesWithRareRules(40, 400, 12345, /*min_rare=*/0);
}

}  // namespace
}  // namespace vz::chaco_rex::reference
