// The engine's move generator against the independent slow reference generator
// (cuarenta_reference.h): equal move sets (protocol strings) at every node of small trees and along
// random games, and equal perft counts.

#include "tests/engine/cuarenta/cuarenta_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "engine/core/perft.h"
#include "engine/cuarenta/game.h"
#include "tests/engine/game_test_util.h"

namespace vz::cuarenta {
namespace {

using G = CuarentaGame;

// The positions of tests/data/perft/cuarenta.txt: the start, and positions with castling,
// promotions on arrival and in place, frogs, vaos, guard leaps and a check through a screen.
std::vector<std::string> TestPositions() {
  std::vector<std::string> positions = testing::PerftTablePositions<G>();
  EXPECT_GE(positions.size(), 5u);
  return positions;
}

std::vector<std::string> ReferenceMoves(const reference::RefPosition& p) {
  std::vector<std::string> texts;
  for (const reference::RefMove& move : reference::LegalRef(p)) {
    texts.push_back(reference::RefMoveText(move));
  }
  std::sort(texts.begin(), texts.end());
  return texts;
}

std::string Join(const std::vector<std::string>& texts) {
  std::string joined;
  for (const std::string& text : texts) joined += text + " ";
  return joined;
}

// Compares the move sets of the engine and the reference at every node to `depth`; each side plays
// its own moves (matched by protocol string). Returns the number of nodes compared.
int CompareTree(const Position& p, const reference::RefPosition& ref, int depth) {
  const std::vector<std::string> engine_moves = testing::SortedMoveTexts<G>(p);
  const std::vector<std::string> reference_moves = ReferenceMoves(ref);
  EXPECT_EQ(Join(engine_moves), Join(reference_moves)) << G::FormatPosition(p);
  if (engine_moves != reference_moves || depth <= 1) return 1;
  int nodes = 1;
  G::MoveList moves;
  G::GenerateMoves(p, moves);
  const std::vector<reference::RefMove> reference_list = reference::LegalRef(ref);
  for (Move move : moves) {
    Position child = p;
    G::ApplyMove(child, move);
    const std::string text = G::FormatMove(p, move);
    for (const reference::RefMove& ref_move : reference_list) {
      if (reference::RefMoveText(ref_move) != text) continue;
      reference::RefPosition ref_child = ref;
      reference::ApplyRef(ref_child, ref_move);
      nodes += CompareTree(child, ref_child, depth - 1);
      if (::testing::Test::HasFailure()) return nodes;
    }
  }
  return nodes;
}

TEST(CuarentaReferenceTest, MoveSetsAgreeAtEveryNodeToDepth3) {
  for (const std::string& fen : TestPositions()) {
    const Position p = G::ParsePosition(fen);
    EXPECT_GT(CompareTree(p, reference::ParseRef(fen), 3), 1) << fen;
    if (HasFailure()) return;
  }
}

TEST(CuarentaReferenceTest, MoveSetsAgreeAlongRandomGames) {
  std::mt19937_64 rng(2024);
  int compared = 0;
  for (int game = 0; game < 60; ++game) {
    Position p = G::InitialPosition();
    for (int ply = 0; ply < 300; ++ply) {
      // Parse the engine's own string: also checks that the reference reads it the same way.
      const std::string fen = G::FormatPosition(p);
      const std::vector<std::string> engine_moves = testing::SortedMoveTexts<G>(p);
      ASSERT_EQ(Join(engine_moves), Join(ReferenceMoves(reference::ParseRef(fen)))) << fen;
      ++compared;
      if (engine_moves.empty() || G::LocalOutcome(p, int(engine_moves.size())).IsTerminal()) break;
      G::MoveList moves;
      G::GenerateMoves(p, moves);
      std::uniform_int_distribution<int> pick(0, moves.size - 1);
      G::ApplyMove(p, moves[pick(rng)]);
    }
  }
  EXPECT_GT(compared, 1000);
}

TEST(CuarentaReferenceTest, PerftAgreesToDepth3OnTestPositions) {
  for (const std::string& fen : TestPositions()) {
    EXPECT_EQ(Perft<G>(G::ParsePosition(fen), 3), reference::PerftRef(reference::ParseRef(fen), 3))
        << fen;
  }
}

TEST(CuarentaReferenceTest, StartPerftMatchesPublishedCounts) {
  const Position start = G::InitialPosition();
  EXPECT_EQ(Perft<G>(start, 1), 26u);
  EXPECT_EQ(Perft<G>(start, 2), 695u);
  EXPECT_EQ(Perft<G>(start, 3), 18655u);
  const reference::RefPosition ref = reference::ParseRef(kStartPosition);
  EXPECT_EQ(reference::PerftRef(ref, 3), 18655u);
}

}  // namespace
}  // namespace vz::cuarenta
