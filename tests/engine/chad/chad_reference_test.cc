// The engine against the independent test-only generator of chad_reference.h: exact legal move
// lists on many positions of random games biased towards captures and promotions (so queens,
// checks, mates and captures across walls all occur), and perft on the start and mid-game
// positions.

#include "tests/engine/chad/chad_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "engine/chad/game.h"
#include "engine/core/perft.h"

namespace vz::chad {
namespace {

using G = ChadGame;

// Mid-game positions from biased random games (also in tests/data/perft/chad.txt).
const char* const kMidGamePositions[] = {
    "12/12/4R7/7k4/12/12/5R6/3K8/12/q11/10r1/12 w 2 61",
    "1r10/12/3R4r3/8k1r1/9r2/7r4/12/2RK3R2R1/2R1q7/7R4/3R8/2R9 w 0 16",
    "12/11q/12/2r9/9k2/12/12/R1Rq2q3R1/3R7R/2K1qR3r2/R1R9/5r6 w 0 31",
    "12/12/12/2r9/8qk2/q11/5q6/R1R1q7/2K5R3/11R/R1RR2R5/r11 w 14 46",
    "12/9R2/6Q5/7rk3/6R1rr2/12/12/12/3K8/12/12/12 w 0 1",
};

TEST(ChadReferenceTest, StartPerftMatchesGivenValues) {
  const reference::Board start = reference::FromFen(std::string(kStartPosition));
  const uint64_t expected[] = {1, 54, 2844, 187228};
  for (int depth = 0; depth <= 3; ++depth) {
    EXPECT_EQ(Perft<G>(G::InitialPosition(), depth), expected[depth]) << depth;
    EXPECT_EQ(reference::Perft(start, depth), expected[depth]) << depth;
  }
}

TEST(ChadReferenceTest, MidGamePerftAgrees) {
  for (const char* fen : kMidGamePositions) {
    const Position p = G::ParsePosition(fen);
    const reference::Board b = reference::FromFen(fen);
    for (int depth = 1; depth <= 2; ++depth) {
      EXPECT_EQ(Perft<G>(p, depth), reference::Perft(b, depth)) << fen << " depth " << depth;
    }
  }
}

TEST(ChadReferenceTest, RandomGamesHaveExactlyTheReferenceMoves) {
  std::mt19937_64 rng(11);
  int positions = 0, captures = 0, promotions = 0, checks = 0, mates = 0;
  for (int game = 0; game < 60; ++game) {
    Position p = G::InitialPosition();
    for (int ply = 0; ply < 250; ++ply) {
      const std::string fen = G::FormatPosition(p);
      ASSERT_EQ(testing::SortedMoveTexts<G>(p), reference::LegalMoveTexts(reference::FromFen(fen)))
          << fen;
      ASSERT_EQ(G::InCheck(p), reference::KingAttacked(reference::FromFen(fen), int(p.side)))
          << fen;
      ++positions;
      checks += G::InCheck(p);
      G::MoveList list;
      G::GenerateMoves(p, list);
      if (list.size == 0) {
        mates += G::InCheck(p);
        break;
      }
      std::vector<Move> special;
      for (Move m : list) {
        if (IsCapture(m) || IsPromotion(m)) special.push_back(m);
      }
      const Move move = !special.empty() && rng() % 10 < 7 ? special[rng() % special.size()]
                                                           : list[int(rng() % list.size)];
      captures += IsCapture(move);
      promotions += IsPromotion(move);
      G::ApplyMove(p, move);
      ASSERT_EQ(G::Hash(p), G::ComputeHash(p)) << fen;
    }
  }
  // The walk must have met the interesting cases, or it proves little.
  EXPECT_GT(positions, 5000);
  EXPECT_GT(captures, 200);
  EXPECT_GT(promotions, 100);
  EXPECT_GT(checks, 100);
  EXPECT_GT(mates, 0);
}

}  // namespace
}  // namespace vz::chad
