// Deeper agreement between the engine and the test-only reference generator
// (chad_reference.h): the depth-4 start perft recorded in tests/data/perft/chad.txt and depth 3
// of the mid-game positions (label slow: the reference needs several seconds).

#include <gtest/gtest.h>

#include <string>

#include "engine/chad/game.h"
#include "engine/core/perft.h"
#include "tests/engine/chad/chad_reference.h"

namespace vz::chad {
namespace {

using G = ChadGame;

TEST(ChadReferenceSlowTest, StartDepthFour) {
  const uint64_t reference = reference::Perft(reference::FromFen(std::string(kStartPosition)), 4);
  EXPECT_EQ(reference, 12107364u);
  EXPECT_EQ(Perft<G>(G::InitialPosition(), 4), reference);
}

TEST(ChadReferenceSlowTest, MidGameDepthThree) {
  for (const char* fen : {
           "12/12/4R7/7k4/12/12/5R6/3K8/12/q11/10r1/12 w 2 61",
           "1r10/12/3R4r3/8k1r1/9r2/7r4/12/2RK3R2R1/2R1q7/7R4/3R8/2R9 w 0 16",
           "12/11q/12/2r9/9k2/12/12/R1Rq2q3R1/3R7R/2K1qR3r2/R1R9/5r6 w 0 31",
           "12/12/12/2r9/8qk2/q11/5q6/R1R1q7/2K5R3/11R/R1RR2R5/r11 w 14 46",
           "12/9R2/6Q5/7rk3/6R1rr2/12/12/12/3K8/12/12/12 w 0 1",
       }) {
    EXPECT_EQ(Perft<G>(G::ParsePosition(fen), 3), reference::Perft(reference::FromFen(fen), 3))
        << fen;
  }
}

}  // namespace
}  // namespace vz::chad
