// Gumbel search: the sequential-halving schedule, the completed-Q transform, and small budgets
// (2, 4, 16 simulations) giving a valid policy target that prefers the better move.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "engine/search/gumbel.h"
#include "engine/search/mcts.h"
#include "engine/search/search_driver.h"
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

// Tic-tac-toe values that depend only on x's cells: x holding the centre (cell 4) is worth 0.5 to
// x, a corner (cell 0) 0.3, both 0.4, anything else -0.5; uniform priors. From the empty board
// every subtree that a 16-simulation search reaches keeps its first move's value, so the root's
// Q are 0.5 (centre), 0.3 (corner 0) and -0.5 (the seven others): two close moves.
class TwoCloseMovesEvaluator final : public Evaluator<TicTacToeGame> {
 public:
  void Evaluate(EvalBatch<TicTacToeGame>& batch) override {
    for (int i = 0; i < batch.size(); ++i) {
      const TicTacToeGame::Position& position = batch.position(i);
      for (float& prior : batch.priors(i)) prior = 1.0f / float(batch.num_moves(i));
      const bool centre = position.cells[0] >> 4 & 1, corner = position.cells[0] & 1;
      const float x_value = centre && corner ? 0.4f : centre ? 0.5f : corner ? 0.3f : -0.5f;
      const float value = position.side == 0 ? x_value : -x_value;  // side to move's view
      batch.value(i) = Wdl{(1.0f + value) / 2.0f, 0.0f, (1.0f - value) / 2.0f};
    }
  }
};

// The largest policy target of a 16-simulation Gumbel search from the empty board at c_scale.
float TopTargetOfCloseMoves(float c_scale, uint64_t seed, Move* top) {
  SearchParams params = GumbelParams(seed);
  params.gumbel_c_scale = c_scale;
  Mcts<TicTacToeGame> search(params);
  TwoCloseMovesEvaluator evaluator;
  search.Search(evaluator, 16);
  const SearchResult result = search.Result();
  ExpectValidTarget<TicTacToeGame>(result, 9);
  float best = 0.0f;
  for (const RootMoveStats& stats : result.moves) {
    if (stats.policy_target > best) {
      best = stats.policy_target;
      *top = stats.move;
    }
  }
  return best;
}

// mctx's qtransform_completed_by_mix_value: sigma = (50 + max visits) * value_scale * q with q
// min-max rescaled to [0, 1], value_scale 0.1. With c_scale 1 (the Gumbel paper's value, stated
// for another normalisation of Q) a Q gap of a fifth of the range is ~11 logits and the target is
// one-hot; with mctx's 0.1 the two close moves share it.
TEST(SearchGumbelTest, MctxValueScaleKeepsCloseMovesInTheTarget) {
  for (uint64_t seed = 0; seed < 10; ++seed) {
    Move top;
    const float mctx = TopTargetOfCloseMoves(0.1f, seed, &top);
    EXPECT_EQ(top, Move{4}) << "seed " << seed;
    EXPECT_LT(mctx, 0.99f) << "seed " << seed;
    EXPECT_GT(mctx, 0.5f) << "seed " << seed;
    const float paper = TopTargetOfCloseMoves(1.0f, seed, &top);
    EXPECT_EQ(top, Move{4}) << "seed " << seed;
    EXPECT_GT(paper, 0.999f) << "seed " << seed;
  }
  // The arithmetic alone: two visited moves a tenth of the Q range apart, 8 visits each.
  const std::vector<float> q = {0.5f, 0.4f, -0.5f};
  const std::vector<int32_t> visits = {8, 8, 1};
  const std::vector<float> priors = {1.0f / 3, 1.0f / 3, 1.0f / 3};
  std::vector<float> sigma(3), policy(3);
  CompletedQSigma(q, visits, priors, 0.0f, 50.0f, 0.1f, sigma);
  EXPECT_NEAR(sigma[0] - sigma[1], (50.0f + 8.0f) * 0.1f * 0.1f, 1e-4f);
  ImprovedPolicy(priors, sigma, policy);
  EXPECT_NEAR(policy[0] / policy[1], std::exp(0.58f), 1e-3f);
}

// A quiet search (StartSearch without root noise: KataGo's cheap searches) draws no Gumbel
// sample, so its move does not depend on the seed; searches with noise do vary.
TEST(SearchGumbelTest, QuietSearchHasNoGumbelNoise) {
  std::set<uint64_t> quiet_moves, noisy_moves;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    for (bool noise : {false, true}) {
      Mcts<TicTacToeGame> search(GumbelParams(seed));
      HashEvaluator<TicTacToeGame> evaluator;
      search.StartSearch(4, evaluator, noise);
      Mcts<TicTacToeGame>* self = &search;
      SearchDriver<TicTacToeGame> driver(/*timed=*/false);
      driver.Run(evaluator, std::span<Mcts<TicTacToeGame>* const>(&self, 1));
      (noise ? noisy_moves : quiet_moves).insert(search.Result().best_move.raw);
    }
  }
  EXPECT_EQ(quiet_moves.size(), 1u);
  EXPECT_GT(noisy_moves.size(), 1u);
}

// With the uniform evaluator every value is a draw, so no backup changes a selection: the root's
// sequential halving and the interior choices depend only on the seed's Gumbel sample and the
// visit counts. A search handing out several leaves per round must then spend its simulations
// exactly as the one-leaf search (the same visits per root move, the same move and policy
// target): a leaf that collides in a round gives its sequential-halving step back.
TEST(SearchGumbelTest, BatchedGumbelEqualsTheUnbatchedSearch) {
  UniformEvaluator<TicTacToeGame> evaluator;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    for (int simulations : {16, 50}) {
      const SearchResult unbatched =
          RunSearch(TicTacToeGame::InitialPosition(), evaluator, simulations, GumbelParams(seed));
      ExpectValidTarget<TicTacToeGame>(unbatched, 9);
      for (int leaves : {2, 4, 8}) {
        SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(simulations) +
                     " simulations, " + std::to_string(leaves) + " leaves per round");
        SearchParams params = GumbelParams(seed);
        params.leaves_per_round = leaves;
        const SearchResult batched =
            RunSearch(TicTacToeGame::InitialPosition(), evaluator, simulations, params);
        EXPECT_EQ(batched.simulations, unbatched.simulations);
        EXPECT_EQ(batched.best_move, unbatched.best_move);
        ASSERT_EQ(batched.moves.size(), unbatched.moves.size());
        for (size_t i = 0; i < batched.moves.size(); ++i) {
          EXPECT_EQ(batched.moves[i].move, unbatched.moves[i].move);
          EXPECT_EQ(batched.moves[i].visits, unbatched.moves[i].visits) << "move " << i;
          EXPECT_NEAR(batched.moves[i].policy_target, unbatched.moves[i].policy_target, 1e-6)
              << "move " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace vz
