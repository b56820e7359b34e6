// Perft tables as data files (tests/data/perft/<game>.txt), checked for every registered game.
// Line format:  <depth> <nodes> <position string | startpos>   ('#' starts a comment).
// Entries up to kUnitNodeLimit leaves run here (label unit); perft_data_slow_test runs them all.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/core/perft.h"
#include "engine/games.h"
#include "tests/engine/game_test_util.h"
#include "tests/engine/game_types.h"

#ifndef VZ_PERFT_NODE_LIMIT
#define VZ_PERFT_NODE_LIMIT 3000000ull
#define VZ_PERFT_SUITE PerftDataTest
#endif

namespace vz {
namespace {

using testing::PerftEntry;

template <class G>
class VZ_PERFT_SUITE : public ::testing::Test {};
TYPED_TEST_SUITE(VZ_PERFT_SUITE, testing::AllGameTypes, testing::GameNames);

TYPED_TEST(VZ_PERFT_SUITE, MatchesTable) {
  using G = TypeParam;
  const std::vector<PerftEntry> entries = testing::ReadPerftTable(G::kName);
  ASSERT_FALSE(entries.empty()) << "no perft entries for " << G::kName;
  int checked = 0;
  for (const PerftEntry& entry : entries) {
    if (entry.nodes > VZ_PERFT_NODE_LIMIT) continue;
    const typename G::Position position =
        entry.fen == "startpos" ? G::InitialPosition() : G::ParsePosition(entry.fen);
    EXPECT_EQ(Perft<G>(position, entry.depth), entry.nodes)
        << G::kName << " depth " << entry.depth << " from " << entry.fen;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace vz
