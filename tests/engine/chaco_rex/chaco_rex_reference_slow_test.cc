// The deeper comparisons with the independent reference generator (chaco_rex_reference.h): the
// whole depth-4 tree from the start node by node, the reference's own perft 5, a middle game to
// depth 3, the reference recount of the perft table and many more random games. Label slow (about
// three minutes on a loaded machine).

#include <gtest/gtest.h>

#include <string>

#include "engine/core/perft.h"
#include "tests/engine/chaco_rex/chaco_rex_reference_compare.h"
#include "tests/engine/game_test_util.h"

namespace vz::chaco_rex::reference {
namespace {

TEST(ChacoRexReferenceSlowTest, StartTreeDepth4MatchesNodeByNode) {
  EXPECT_EQ(CompareStartTree(4).leaves, kStartPerft[4]);
}

TEST(ChacoRexReferenceSlowTest, ReferencePerft5FromTheStart) {
  EXPECT_EQ(Perft(StartBoard(), 5), kStartPerft[5]);
  EXPECT_EQ(vz::Perft<G>(G::InitialPosition(), 5), kStartPerft[5]);
}

// Every entry of the perft table up to 5,000,000 leaves, recounted by the reference (the deeper
// start-position entries are covered by the tests above).
TEST(ChacoRexReferenceSlowTest, ReferenceAgreesWithThePerftTable) {
  int checked = 0;
  for (const testing::PerftEntry& entry : testing::ReadPerftTable(G::kName)) {
    if (entry.nodes > 5000000) continue;
    const std::string fen = testing::PerftEntryPosition<G>(entry);
    EXPECT_EQ(Perft(FromFen(fen), entry.depth), entry.nodes) << entry.depth << " " << fen;
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

TEST(ChacoRexReferenceSlowTest, MiddleGameDepth3MatchesNodeByNode) {
  EXPECT_EQ(ComparePositionTree(kMiddleGame, 3).leaves, 113516u);
}

TEST(ChacoRexReferenceSlowTest, ManyRandomGamesMatchPlyByPly) {
  EXPECT_GT(CompareRandomGamesWithRareRules(400, 600, 777, /*min_rare=*/10).mates, 0u);
}

}  // namespace
}  // namespace vz::chaco_rex::reference
