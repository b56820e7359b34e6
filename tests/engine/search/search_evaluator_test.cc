// The evaluators of engine/search/: uniform, rollout, and the caching decorator.

#include <gtest/gtest.h>

#include "engine/search/caching_evaluator.h"
#include "engine/search/rollout_evaluator.h"
#include "engine/search/uniform_evaluator.h"
#include "tests/engine/search/test_evaluators.h"
#include "tests/engine/search/test_games.h"

namespace vz {
namespace {

using search_testing::PassNimGame;
using search_testing::RecordingEvaluator;
using search_testing::TicTacToeGame;

template <Game G>
void AddPosition(EvalBatch<G>& batch, const typename G::Position& position, int repetition = 1) {
  typename G::MoveList moves;
  G::GenerateMoves(position, moves);
  batch.Add(position, moves.moves, moves.size, repetition);
}

TEST(SearchEvaluatorTest, BatchLayout) {
  EvalBatch<TicTacToeGame> batch;
  batch.Clear();
  AddPosition(batch, TicTacToeGame::InitialPosition());
  AddPosition(batch, TicTacToeGame::ParsePosition("xx.oo.... x"), 2);
  ASSERT_EQ(batch.size(), 2);
  EXPECT_EQ(batch.num_moves(0), 9);
  EXPECT_EQ(batch.num_moves(1), 5);
  EXPECT_EQ(batch.move_offsets(), (std::vector<int32_t>{0, 9, 14}));
  EXPECT_EQ(batch.moves(1)[0], Move{2});
  EXPECT_EQ(batch.repetition_count(1), 2);
  batch.Clear();
  EXPECT_EQ(batch.size(), 0);
}

TEST(SearchEvaluatorTest, UniformIsUniformAndDrawn) {
  EvalBatch<TicTacToeGame> batch;
  AddPosition(batch, TicTacToeGame::ParsePosition("xx.oo.... x"));
  UniformEvaluator<TicTacToeGame> evaluator;
  evaluator.Evaluate(batch);
  for (float p : batch.priors(0)) EXPECT_FLOAT_EQ(p, 0.2f);
  EXPECT_FLOAT_EQ(batch.value(0).draw, 1.0f);
  EXPECT_FLOAT_EQ(batch.value(0).Value(), 0.0f);
}

TEST(SearchEvaluatorTest, RolloutIsSeededAndSound) {
  EvalBatch<TicTacToeGame> batch;
  AddPosition(batch, TicTacToeGame::InitialPosition());
  // One empty cell left and no line possible: every playout is a draw.
  AddPosition(batch, TicTacToeGame::ParsePosition("xoxxooox. x"));
  // O to move, X threatens nothing, O cannot lose in one: a mix.
  RolloutEvaluator<TicTacToeGame> a(1, 64), b(1, 64), c(2, 64);
  a.Evaluate(batch);
  const Wdl first = batch.value(0);
  EXPECT_NEAR(first.win + first.draw + first.loss, 1.0f, 1e-6f);
  EXPECT_GT(first.win, first.loss) << "the first player wins more random games";
  EXPECT_FLOAT_EQ(batch.value(1).draw, 1.0f);
  b.Evaluate(batch);
  EXPECT_EQ(batch.value(0).win, first.win);
  c.Evaluate(batch);
  EXPECT_NE(batch.value(0).win, first.win);
  // Ply cap: no playout ends within 0 plies of a fresh game, so all are draws.
  RolloutEvaluator<TicTacToeGame> capped(1, 8, 0);
  capped.Evaluate(batch);
  EXPECT_FLOAT_EQ(batch.value(0).draw, 1.0f);
}

// Positions of a few plies of tic-tac-toe, so that a batch holds many different entries.
EvalBatch<TicTacToeGame> ManyPositions() {
  EvalBatch<TicTacToeGame> batch;
  for (const char* text :
       {"......... x", "x........ o", "x...o.... x", "xo..x.... o", "x.o.o...x x", "....x.... o",
        "xx.oo.... x", "xo.xo.... x", "x.......o x"}) {
    AddPosition(batch, TicTacToeGame::ParsePosition(text));
  }
  return batch;
}

TEST(SearchEvaluatorTest, RolloutThreadsGiveTheOneThreadResult) {
  EvalBatch<TicTacToeGame> alone = ManyPositions();
  RolloutEvaluator<TicTacToeGame>(3, 16).Evaluate(alone);
  for (int threads : {2, 4, 32}) {
    EvalBatch<TicTacToeGame> split = ManyPositions();
    RolloutEvaluator<TicTacToeGame> evaluator(3, 16);
    evaluator.set_threads(threads);
    evaluator.Evaluate(split);
    for (int i = 0; i < alone.size(); ++i) {
      EXPECT_EQ(split.value(i).win, alone.value(i).win) << "entry " << i << ", threads " << threads;
      EXPECT_EQ(split.value(i).loss, alone.value(i).loss) << "entry " << i;
      EXPECT_EQ(split.priors(i)[0], alone.priors(i)[0]) << "entry " << i;
    }
  }
}

TEST(SearchEvaluatorTest, RolloutSeedEntriesPlaysEachGameWithItsSeed) {
  EvalBatch<TicTacToeGame> seven = ManyPositions(), nine = ManyPositions(), mixed = ManyPositions();
  RolloutEvaluator<TicTacToeGame>(7, 16).Evaluate(seven);
  RolloutEvaluator<TicTacToeGame>(9, 16).Evaluate(nine);
  RolloutEvaluator<TicTacToeGame> evaluator(7, 16, 400, /*threads=*/2);
  evaluator.SeedEntries(3, 6, 9);  // entries 3..5 come from the game of seed 9
  evaluator.Evaluate(mixed);
  for (int i = 0; i < mixed.size(); ++i) {
    const EvalBatch<TicTacToeGame>& expected = i >= 3 && i < 6 ? nine : seven;
    EXPECT_EQ(mixed.value(i).win, expected.value(i).win) << "entry " << i;
    EXPECT_EQ(mixed.value(i).draw, expected.value(i).draw) << "entry " << i;
  }
  // Tags last one batch: the next one is played with the evaluator's own seed.
  EvalBatch<TicTacToeGame> again = ManyPositions();
  evaluator.Evaluate(again);
  for (int i = 0; i < again.size(); ++i) EXPECT_EQ(again.value(i).win, seven.value(i).win);
  bool differs = false;
  for (int i = 3; i < 6; ++i) differs = differs || seven.value(i).win != nine.value(i).win;
  EXPECT_TRUE(differs) << "the two seeds must give different playouts for the test to mean much";
}

TEST(SearchEvaluatorTest, RolloutValueIsFromTheSideToMove) {
  // Pile 1 with a pass: a random playout either takes (wins) or passes, then the opponent may
  // take and win. Wins for the side to move must be counted as wins for White and for Black.
  for (Color side : {Color::kWhite, Color::kBlack}) {
    EvalBatch<PassNimGame> batch;
    AddPosition(batch, PassNimGame::Make(1, side));
    RolloutEvaluator<PassNimGame> evaluator(5, 200, 1000);
    evaluator.Evaluate(batch);
    EXPECT_GT(batch.value(0).win, batch.value(0).loss) << ColorName(side);
  }
}

TEST(SearchEvaluatorTest, CacheKeysOnHashAndRepetition) {
  RecordingEvaluator<TicTacToeGame> inner;
  CachingEvaluator<TicTacToeGame> cache(inner, 1024);
  EvalBatch<TicTacToeGame> batch;
  AddPosition(batch, TicTacToeGame::InitialPosition());
  cache.Evaluate(batch);
  EXPECT_EQ(inner.positions.size(), 1u);
  batch.Clear();
  AddPosition(batch, TicTacToeGame::InitialPosition());
  AddPosition(batch, TicTacToeGame::InitialPosition(), 2);  // another repetition count: a miss
  cache.Evaluate(batch);
  EXPECT_EQ(inner.positions.size(), 2u);
  EXPECT_EQ(inner.repetition_counts.back(), 2);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 2);
  for (float p : batch.priors(0)) EXPECT_FLOAT_EQ(p, 1.0f / 9.0f);
  EXPECT_FLOAT_EQ(batch.value(0).draw, 1.0f);
}

TEST(SearchEvaluatorTest, CacheNeverStoresPathDependentValues) {
  RecordingEvaluator<TicTacToeGame> inner;
  inner.mark_uncacheable = true;
  CachingEvaluator<TicTacToeGame> cache(inner, 1024);
  for (int round = 0; round < 3; ++round) {
    EvalBatch<TicTacToeGame> batch;
    AddPosition(batch, TicTacToeGame::InitialPosition());
    cache.Evaluate(batch);
    EXPECT_FALSE(batch.cacheable(0));
  }
  EXPECT_EQ(inner.positions.size(), 3u);
  EXPECT_EQ(cache.hits(), 0);
}

}  // namespace
}  // namespace vz
