// The independent reference generator (cuarenta_reference.h) recounts the deeper perft values of
// tests/data/perft/cuarenta.txt, which were established by its agreement with the engine.

#include <gtest/gtest.h>

#include <cstdint>

#include "engine/core/perft.h"
#include "engine/cuarenta/game.h"
#include "tests/engine/cuarenta/cuarenta_reference.h"

namespace vz::cuarenta {
namespace {

struct Entry {
  const char* fen;
  int depth;
  uint64_t nodes;
};

TEST(CuarentaReferenceSlowTest, ReferenceAndEngineAgreeOnDeepPerft) {
  const Entry entries[] = {
      {kStartPosition, 4, 499599},
      {kStartPosition, 5, 13383388},
      {"c3/1Pk2/P3/5/4/5/p3/2K1p/3C w wb 0 1", 5, 3088413},
      {"cP2/2k2/P3/5/4/5/p3/2K2/p2C w w 7 30", 5, 1377791},
      {"c1fb/vgk1v/p1p1/1FgP1/pV2/2G1p/P1P1/V1K2/B1FC b b 12 9", 4, 570073},
      {"4/2k2/4/1b3/4/V4/4/2K2/4 b - 0 40", 5, 141926},
  };
  for (const Entry& entry : entries) {
    EXPECT_EQ(reference::PerftRef(reference::ParseRef(entry.fen), entry.depth), entry.nodes)
        << entry.fen << " depth " << entry.depth;
    EXPECT_EQ(Perft<CuarentaGame>(CuarentaGame::ParsePosition(entry.fen), entry.depth), entry.nodes)
        << entry.fen << " depth " << entry.depth;
  }
}

}  // namespace
}  // namespace vz::cuarenta
