// The search driver (engine/search/search_driver.h) and the search's recovery from a failed
// evaluation: cancel-on-throw over many searches, batch limits, the tree left usable.

#include "engine/search/search_driver.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/search/mcts.h"
#include "engine/search/uniform_evaluator.h"
#include "tests/engine/search/search_test_util.h"
#include "tests/engine/search/test_evaluators.h"
#include "tests/engine/search/test_games.h"

namespace vz {
namespace {

using search_testing::AdvanceToALeafAtTheCap;
using search_testing::Describe;
using search_testing::ExpectConsistentTree;
using search_testing::HashEvaluator;
using search_testing::MoveText;
using search_testing::NodeCapParams;
using search_testing::TicTacToeGame;

// Throws on its `fail_at`-th call, to check that a failed evaluation leaves a usable tree.
class FailingEvaluator final : public Evaluator<TicTacToeGame> {
 public:
  explicit FailingEvaluator(int fail_at) : fail_at_(fail_at) {}
  void Evaluate(EvalBatch<TicTacToeGame>& batch) override {
    if (++calls_ == fail_at_) throw Error("device lost");
    uniform_.Evaluate(batch);
  }

 private:
  int fail_at_;
  int calls_ = 0;
  UniformEvaluator<TicTacToeGame> uniform_;
};

TEST(SearchDriverTest, EvaluatorFailureLeavesAUsableTree) {
  SearchParams params;
  params.leaves_per_round = 4;
  Mcts<TicTacToeGame> search(params);
  FailingEvaluator evaluator(5);
  EXPECT_THROW(search.Search(evaluator, 100), Error);
  ExpectConsistentTree(search, /*exact=*/false);
  search.Search(evaluator, 100);
  EXPECT_EQ(search.Result().simulations, 100);
  ExpectConsistentTree(search, /*exact=*/false);
}

TEST(SearchDriverTest, SearchDriverMatchesLoneSearches) {
  SearchParams params;
  params.leaves_per_round = 4;
  params.dirichlet_epsilon = 0.25f;
  const std::vector<std::string> fens = {"......... x", "x...o.... x", "xo..x.... o", "x.o.o...x x",
                                         "....x.... o"};
  for (bool gumbel : {false, true}) {
    params.gumbel = gumbel;
    HashEvaluator<TicTacToeGame> evaluator;
    std::vector<std::string> alone;
    for (size_t i = 0; i < fens.size(); ++i) {
      params.seed = 100 + i;
      Mcts<TicTacToeGame> search(params);
      if (i > 0) search.SetRoot(TicTacToeGame::ParsePosition(fens[i]));
      search.Search(evaluator, 150);
      alone.push_back(Describe(search));
    }
    std::vector<std::unique_ptr<Mcts<TicTacToeGame>>> searches;
    std::vector<Mcts<TicTacToeGame>*> pointers;
    for (size_t i = 0; i < fens.size(); ++i) {
      params.seed = 100 + i;
      searches.push_back(std::make_unique<Mcts<TicTacToeGame>>(params));
      if (i > 0) searches.back()->SetRoot(TicTacToeGame::ParsePosition(fens[i]));
      searches.back()->StartSearch(150, evaluator);
      pointers.push_back(searches.back().get());
    }
    SearchDriver<TicTacToeGame> driver;
    driver.Run(evaluator, pointers);
    EXPECT_GT(driver.stats().max_batch, 4) << "one batch per round gathers several searches";
    for (size_t i = 0; i < fens.size(); ++i) {
      EXPECT_EQ(Describe(*searches[i]), alone[i]) << "search " << i << " gumbel " << gumbel;
    }
  }
}

TEST(SearchDriverTest, SearchDriverCancelsEverySearchOnAFailureAndCounts) {
  SearchParams params;
  params.leaves_per_round = 4;
  std::vector<std::unique_ptr<Mcts<TicTacToeGame>>> searches;
  std::vector<Mcts<TicTacToeGame>*> pointers;
  FailingEvaluator evaluator(3);
  for (int i = 0; i < 3; ++i) {
    params.seed = uint64_t(i);
    searches.push_back(std::make_unique<Mcts<TicTacToeGame>>(params));
    searches.back()->StartSearch(60, evaluator);
    pointers.push_back(searches.back().get());
  }
  SearchDriver<TicTacToeGame> driver;
  EXPECT_THROW(driver.Run(evaluator, pointers), Error);
  EXPECT_EQ(driver.stats().evaluator_calls, 2) << "the failed call is not counted";
  for (const Mcts<TicTacToeGame>* search : pointers) ExpectConsistentTree(*search, false);
  // The searches go on where they were: each ends with its whole budget.
  driver.Run(evaluator, pointers);
  for (const Mcts<TicTacToeGame>* search : pointers) {
    EXPECT_TRUE(search->Done());
    EXPECT_EQ(search->simulations(), 60);
    ExpectConsistentTree(*search, false);
  }
  const SearchDriverStats& stats = driver.stats();
  EXPECT_GT(stats.mean_batch(), 4.0) << "one batch per round gathers several searches";
  EXPECT_EQ(stats.mean_batch(), double(stats.evaluated) / double(stats.evaluator_calls));
  EXPECT_GE(stats.rounds, stats.evaluator_calls);
  EXPECT_GT(stats.gather_seconds + stats.evaluate_seconds + stats.apply_seconds, 0.0);
}

TEST(SearchDriverTest, SearchDriverBatchLimitLeavesTheRestForLater) {
  std::vector<std::unique_ptr<Mcts<TicTacToeGame>>> searches;
  std::vector<Mcts<TicTacToeGame>*> pointers;
  UniformEvaluator<TicTacToeGame> evaluator;
  for (int i = 0; i < 3; ++i) {
    searches.push_back(std::make_unique<Mcts<TicTacToeGame>>());
    searches.back()->StartSearch(10, evaluator);
    pointers.push_back(searches.back().get());
  }
  SearchDriver<TicTacToeGame> driver;
  EXPECT_EQ(driver.RunRound(evaluator, pointers, /*max_batch=*/2), 2);
  EXPECT_EQ(driver.last_scanned(), 2u);
  EXPECT_EQ(pointers[2]->tree().visits[SearchTree::kRoot], 0) << "the third waits";
  EXPECT_EQ(driver.RunRound(evaluator, pointers), 3);
  EXPECT_EQ(driver.last_scanned(), 3u);
}

// Children allocated for a leaf whose evaluation failed are dropped with it: a node that was
// already visited must not keep children without priors.
TEST(SearchDriverTest, EvaluatorFailureDropsChildrenWithoutPriors) {
  Mcts<TicTacToeGame> search(NodeCapParams(18));
  UniformEvaluator<TicTacToeGame> uniform;
  // The new root: visited, no children.
  ASSERT_NO_FATAL_FAILURE(AdvanceToALeafAtTheCap(search, uniform, 50));
  FailingEvaluator failing(1);
  EXPECT_THROW(search.Search(failing, 20), Error);
  EXPECT_EQ(search.num_nodes(), 1);
  ExpectConsistentTree(search, /*exact=*/false);
  search.Search(uniform, 20);
  ExpectConsistentTree(search, /*exact=*/false);
  for (const RootMoveStats& stats : search.Result().moves) EXPECT_NEAR(stats.prior, 0.125f, 1e-6f);
}

// A failed first evaluation of a root with a move that wins at once drops the root's children
// and their marks together: the next search of the same root finds the win again (it used to
// keep the root's proof without the children, and play no move).
TEST(SearchDriverTest, FailedRootExpansionForgetsTheRootProof) {
  for (bool gumbel : {false, true}) {
    SearchParams params;
    params.gumbel = gumbel;
    Mcts<TicTacToeGame> search(params);
    search.SetRoot(TicTacToeGame::ParsePosition("xx.oo.... x"));
    FailingEvaluator failing(1);
    EXPECT_THROW(search.Search(failing, 20), Error);
    EXPECT_EQ(search.num_nodes(), 1);
    EXPECT_EQ(search.Result().proven, Status::kOngoing) << "gumbel " << gumbel;
    UniformEvaluator<TicTacToeGame> uniform;
    search.Search(uniform, 20);
    EXPECT_EQ(search.Result().best_move, Move{2}) << "gumbel " << gumbel;
    ExpectConsistentTree(search, /*exact=*/false);
  }
}

}  // namespace
}  // namespace vz
