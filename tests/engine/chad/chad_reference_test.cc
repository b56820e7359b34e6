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
#include "tests/engine/game_test_util.h"

namespace vz::chad {
namespace {

using G = ChadGame;

TEST(ChadReferenceTest, StartPerftMatchesGivenValues) {
  const reference::Board start = reference::FromFen(std::string(kStartPosition));
  const uint64_t expected[] = {1, 54, 2844, 187228};
  for (int depth = 0; depth <= 3; ++depth) {
    EXPECT_EQ(Perft<G>(G::InitialPosition(), depth), expected[depth]) << depth;
    EXPECT_EQ(reference::Perft(start, depth), expected[depth]) << depth;
  }
}

// Every position of tests/data/perft/chad.txt: the start, mid-game positions from random games
// biased towards captures and promotions, and constructed ones.
TEST(ChadReferenceTest, PerftTablePositionsAgree) {
  const std::vector<std::string> positions = testing::PerftTablePositions<G>();
  EXPECT_GE(positions.size(), 8u);
  for (const std::string& fen : positions) {
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
