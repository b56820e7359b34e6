// Gumbel search: the sequential-halving schedule, the completed-Q transform, and small budgets
// (2, 4, 16 simulations) giving a valid policy target that prefers the better move.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/search/gumbel.h"
#include "engine/search/mcts.h"
#include "engine/search/uniform_evaluator.h"
#include "tests/engine/search/search_test_util.h"
#include "tests/engine/search/test_evaluators.h"
#include "tests/engine/search/test_games.h"

namespace vz {
namespace {

using search_testing::HashEvaluator;
using search_testing::PassNimGame;
using search_testing::RunSearch;
using search_testing::StatsOf;
using search_testing::TicTacToeGame;

TEST(SearchGumbelTest, ConsideredVisitSequenceIsSequentialHalving) {
  // m = 4, n = 8: two phases; 4 moves get 1 visit, then the best 2 get 2 more each.
  EXPECT_EQ(ConsideredVisitSequence(4, 8), (std::vector<int>{0, 0, 0, 0, 1, 1, 2, 2}));
  // m = 2, n = 4: one phase of 2 visits each, then the same pair again.
  EXPECT_EQ(ConsideredVisitSequence(2, 4), (std::vector<int>{0, 0, 1, 1}));
  // m = 1: the one move gets every visit.
  EXPECT_EQ(ConsideredVisitSequence(1, 3), (std::vector<int>{0, 1, 2}));
  // Budget smaller than m: only the first considered moves are visited.
  EXPECT_EQ(ConsideredVisitSequence(16, 2), (std::vector<int>{0, 0}));
  EXPECT_EQ(ConsideredVisitSequence(16, 100).size(), 100u);
}

// mctx's get_sequence_of_considered_visits, built as a table: the reference for the lazy form.
std::vector<int> ReferenceSequence(int max_num_considered, int num_simulations) {
  std::vector<int> sequence;
  if (max_num_considered <= 1) {
    for (int s = 0; s < num_simulations; ++s) sequence.push_back(s);
    return sequence;
  }
  const int log2max = int(std::ceil(std::log2(double(max_num_considered))));
  std::vector<int> visits(size_t(max_num_considered), 0);
  int num_considered = max_num_considered;
  while (int(sequence.size()) < num_simulations) {
    const int extra = std::max(1, num_simulations / (log2max * num_considered));
    for (int e = 0; e < extra; ++e) {
      sequence.insert(sequence.end(), visits.begin(), visits.begin() + num_considered);
      for (int i = 0; i < num_considered; ++i) ++visits[size_t(i)];
    }
    num_considered = std::max(2, num_considered / 2);
  }
  sequence.resize(size_t(num_simulations));
  return sequence;
}

TEST(SearchGumbelTest, ConsideredVisitsMatchesTheTableAtAnyBudget) {
  for (int m = 1; m <= 40; ++m) {
    for (int n = 0; n <= 400; n += (n < 64 ? 1 : 7)) {
      const std::vector<int> expected = ReferenceSequence(m, n);
      for (int s = 0; s < n; ++s) {
        ASSERT_EQ(ConsideredVisits(m, n, s), expected[size_t(s)]) << m << " " << n << " " << s;
      }
    }
  }
  // The largest budget, without a table: the two last moves end with n (1/64 + 1/32 + 1/16 + 1/8)
  // visits each (503316490 counting the integer divisions of every phase).
  const int64_t n = kMaxSimulations;
  EXPECT_EQ(ConsideredVisits(16, n, 0), 0);
  EXPECT_EQ(ConsideredVisits(16, n, 15), 0);
  EXPECT_EQ(ConsideredVisits(16, n, 16), 1);
  EXPECT_EQ(ConsideredVisits(1, n, n - 1), n - 1);
  EXPECT_EQ(ConsideredVisits(16, n, n - 1), 503316489);
  EXPECT_EQ(ConsideredVisits(16, n, n - 2), 503316489);
  EXPECT_EQ(ConsideredVisits(16, n, n - 3), 503316488);
}

TEST(SearchGumbelTest, CompletedQSigmaRescalesAndCompletes) {
  const std::vector<float> q = {0.5f, -0.5f, 0.0f};
  const std::vector<int32_t> visits = {2, 2, 0};
  const std::vector<float> priors = {0.25f, 0.25f, 0.5f};
  std::vector<float> sigma(3);
  CompletedQSigma(q, visits, priors, /*raw_value=*/0.2f, /*c_visit=*/50.0f, /*c_scale=*/1.0f,
                  sigma);
  // v_mix = (0.2 + 4 * 0) / 5 = 0.04; rescaled over [-0.5, 0.5]; scale = 50 + 2.
  EXPECT_NEAR(sigma[0], 52.0f, 1e-4f);
  EXPECT_NEAR(sigma[1], 0.0f, 1e-4f);
  EXPECT_NEAR(sigma[2], 52.0f * 0.54f, 1e-3f);
  std::vector<float> policy(3);
  ImprovedPolicy(priors, sigma, policy);
  EXPECT_NEAR(policy[0] + policy[1] + policy[2], 1.0f, 1e-6f);
  EXPECT_GT(policy[0], policy[2]);
  EXPECT_GT(policy[2], policy[1]);
}

template <Game G>
void ExpectValidTarget(const SearchResult& result, int num_legal) {
  ASSERT_EQ(int(result.moves.size()), num_legal);
  double total = 0.0;
  for (const RootMoveStats& stats : result.moves) {
    EXPECT_GE(stats.policy_target, 0.0f);
    total += stats.policy_target;
  }
  EXPECT_NEAR(total, 1.0, 1e-5);
}

float MaxOtherTarget(const SearchResult& result, Move move) {
  float best = 0.0f;
  for (const RootMoveStats& stats : result.moves) {
    if (stats.move != move) best = std::max(best, stats.policy_target);
  }
  return best;
}

SearchParams GumbelParams(uint64_t seed) {
  SearchParams params;
  params.gumbel = true;
  params.seed = seed;
  return params;
}

TEST(SearchGumbelTest, TwoSimulationsPreferTheWinningMove) {
  // Pile 1: taking it wins at once; passing hands the win to the opponent.
  UniformEvaluator<PassNimGame> evaluator;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    const SearchResult result =
        RunSearch(PassNimGame::Make(1, Color::kWhite), evaluator, 2, GumbelParams(seed));
    ExpectValidTarget<PassNimGame>(result, 2);
    EXPECT_GT(StatsOf(result, Move{1}).policy_target, 0.9f) << "seed " << seed;
    EXPECT_EQ(result.best_move, Move{1});
  }
}

TEST(SearchGumbelTest, FourSimulationsPreferTheWinningMove) {
  // Pile 3: taking three wins; pass and the smaller takes do not.
  HashEvaluator<PassNimGame> evaluator;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    const SearchResult result =
        RunSearch(PassNimGame::Make(3, Color::kWhite), evaluator, 4, GumbelParams(seed));
    EXPECT_LE(result.simulations, 4);
    ExpectValidTarget<PassNimGame>(result, 4);
    EXPECT_GT(StatsOf(result, Move{3}).policy_target, MaxOtherTarget(result, Move{3}))
        << "seed " << seed;
    EXPECT_EQ(result.best_move, Move{3});
  }
}

TEST(SearchGumbelTest, SixteenSimulationsPreferTheWinningMove) {
  const auto position = TicTacToeGame::ParsePosition("xx.oo.... x");
  HashEvaluator<TicTacToeGame> evaluator;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    const SearchResult result = RunSearch(position, evaluator, 16, GumbelParams(seed));
    ExpectValidTarget<TicTacToeGame>(result, 5);
    EXPECT_GT(StatsOf(result, Move{2}).policy_target, 0.5f) << "seed " << seed;
    EXPECT_EQ(result.best_move, Move{2});
  }
}

TEST(SearchGumbelTest, SpendsExactlyTheBudgetWithoutProof) {
  HashEvaluator<TicTacToeGame> evaluator;
  for (int budget : {2, 4, 16, 50}) {
    const SearchResult result =
        RunSearch(TicTacToeGame::InitialPosition(), evaluator, budget, GumbelParams(3));
    EXPECT_EQ(result.simulations, budget);
    ExpectValidTarget<TicTacToeGame>(result, 9);
    int visited = 0;
    for (const RootMoveStats& stats : result.moves) visited += stats.visits > 0;
    EXPECT_EQ(visited, std::min(budget, 9)) << "budget " << budget;
  }
}

TEST(SearchGumbelTest, BatchedGumbelStillValid) {
  SearchParams params = GumbelParams(8);
  params.leaves_per_round = 4;
  HashEvaluator<TicTacToeGame> evaluator;
  const SearchResult result = RunSearch(TicTacToeGame::InitialPosition(), evaluator, 16, params);
  EXPECT_EQ(result.simulations, 16);
  ExpectValidTarget<TicTacToeGame>(result, 9);
}

}  // namespace
}  // namespace vz
