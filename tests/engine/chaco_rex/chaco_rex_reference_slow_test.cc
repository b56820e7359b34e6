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
  EXPECT_EQ(CompareStartTree(4).leaves, 911316u);
}

TEST(ChacoRexReferenceSlowTest, ReferencePerft5FromTheStart) {
  const Board start = StartBoard();
  EXPECT_EQ(Perft(start, 5), 30968054u);
  EXPECT_EQ(vz::Perft<G>(G::InitialPosition(), 5), 30968054u);
}

// Every entry of the perft table up to 5,000,000 leaves, recounted by the reference (the deeper
// start-position entries are covered by the tests above).
TEST(ChacoRexReferenceSlowTest, ReferenceAgreesWithThePerftTable) {
  int checked = 0;
  for (const testing::PerftEntry& entry : testing::ReadPerftTable(G::kName)) {
    if (entry.nodes > 5000000) continue;
    const std::string fen =
        entry.fen == "startpos" ? G::FormatPosition(G::InitialPosition()) : entry.fen;
    EXPECT_EQ(Perft(FromFen(fen), entry.depth), entry.nodes) << entry.depth << " " << fen;
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

TEST(ChacoRexReferenceSlowTest, MiddleGameDepth3MatchesNodeByNode) {
  const char* const fen =
      "r1bqbkb1r/1p1pp1ppp1/1np1p1pn1/p1Pp3P1p/9/P3P2P2/2P1PP3/1PP1P1PPP1/RNBQBKBNR w - 0 1";
  CompareStats stats;
  CompareTree(G::ParsePosition(fen), FromFen(fen), 3, stats);
  EXPECT_EQ(stats.leaves, 113516u);
}

TEST(ChacoRexReferenceSlowTest, ManyRandomGamesMatchPlyByPly) {
  const CompareStats stats = CompareRandomGames(400, 600, 777);
  EXPECT_GT(stats.en_passant, 10u);
  EXPECT_GT(stats.promotions, 10u);
  EXPECT_GT(stats.mates, 0u);
}

}  // namespace
}  // namespace vz::chaco_rex::reference
