// The search on the test-only games of test_games.h: visit bookkeeping, solver, repetition with
// game history, node cap, tree reuse and memory, virtual loss, lockstep runner, noise and
// temperature, limits of the 32-bit counts, and golden outputs for fixed seeds.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/search/mcts.h"
#include "engine/search/rollout_evaluator.h"
#include "engine/search/search_driver.h"
#include "engine/search/uniform_evaluator.h"
#include "tests/engine/search/search_test_util.h"
#include "tests/engine/search/test_evaluators.h"
#include "tests/engine/search/test_games.h"

namespace vz {
namespace {

using search_testing::AdvanceToALeafAtTheCap;
using search_testing::CountedTicTacToeGame;
using search_testing::Describe;
using search_testing::ExpectConsistentTree;
using search_testing::HashEvaluator;
using search_testing::MoveText;
using search_testing::NodeCapParams;
using search_testing::PassNimGame;
using search_testing::RecordingEvaluator;
using search_testing::RunSearch;
using search_testing::StatsOf;
using search_testing::TicTacToeGame;

TEST(SearchMctsTest, VisitCountsAddUp) {
  SearchParams params;
  Mcts<PassNimGame> search(params);
  search.SetRoot(PassNimGame::Make(200, Color::kWhite));
  HashEvaluator<PassNimGame> evaluator;
  search.Search(evaluator, 300);
  const SearchResult result = search.Result();
  EXPECT_EQ(result.simulations, 300);
  EXPECT_EQ(result.root_visits, 301);  // root evaluation + 300 simulations
  int64_t child_visits = 0;
  for (const RootMoveStats& stats : result.moves) child_visits += stats.visits;
  EXPECT_EQ(child_visits, 300);
  ExpectConsistentTree(search, /*exact=*/true);

  // With terminal nodes and proofs, proven nodes are revisited without children: visits >= 1 +
  // children.
  Mcts<TicTacToeGame> ttt(params);
  UniformEvaluator<TicTacToeGame> uniform;
  ttt.Search(uniform, 3000);
  ExpectConsistentTree(ttt, /*exact=*/false);
  EXPECT_EQ(ttt.Result().root_visits, ttt.Result().simulations + 1);
}

TEST(SearchMctsTest, MateInOneIsProvenAndPlayedAtOnce) {
  const auto position = TicTacToeGame::ParsePosition("xx.oo.... x");
  UniformEvaluator<TicTacToeGame> evaluator;
  const SearchResult result = RunSearch(position, evaluator, 400);
  EXPECT_EQ(MoveText<TicTacToeGame>(position, result.best_move), "2");
  EXPECT_EQ(result.proven, Status::kWhiteWins);
  EXPECT_EQ(result.proven_plies, 1);
  EXPECT_LT(result.simulations, 400) << "a proven root must end the search";
  ASSERT_FALSE(result.pv.empty());
  EXPECT_EQ(result.pv[0], result.best_move);
  EXPECT_EQ(result.pv.size(), 1u);
  for (const RootMoveStats& stats : result.moves) {
    EXPECT_EQ(stats.policy_target, stats.move == result.best_move ? 1.0f : 0.0f);
  }
  // Also with the rollout evaluator.
  RolloutEvaluator<TicTacToeGame> rollout(3);
  const SearchResult rollout_result = RunSearch(position, rollout, 400);
  EXPECT_EQ(MoveText<TicTacToeGame>(position, rollout_result.best_move), "2");
  EXPECT_EQ(rollout_result.proven, Status::kWhiteWins);
}

TEST(SearchMctsTest, BlocksTheOpponentsThreat) {
  const auto position = TicTacToeGame::ParsePosition("xx..o.... o");
  UniformEvaluator<TicTacToeGame> evaluator;
  EXPECT_EQ(MoveText<TicTacToeGame>(position, RunSearch(position, evaluator, 3000).best_move), "2");
}

TEST(SearchMctsTest, SolverProvesTicTacToeDraw) {
  UniformEvaluator<TicTacToeGame> evaluator;
  const SearchResult result =
      RunSearch(TicTacToeGame::ParsePosition("x...o.... x"), evaluator, 200000);
  EXPECT_EQ(result.proven, Status::kDraw);
  EXPECT_EQ(result.proven_plies, 7);
  EXPECT_LT(result.simulations, 200000);
  for (const RootMoveStats& stats : result.moves) {
    EXPECT_NE(stats.proven, Status::kWhiteWins);
  }
}

TEST(SearchMctsTest, SolverWithRepetitionDraws) {
  UniformEvaluator<PassNimGame> evaluator;
  {
    const SearchResult result = RunSearch(PassNimGame::Make(3, Color::kWhite), evaluator, 5000);
    EXPECT_EQ(result.proven, Status::kWhiteWins);
    EXPECT_EQ(result.best_move, Move{3});
    EXPECT_EQ(result.proven_plies, 1);
  }
  {
    // Taking one leaves 4, where passing draws; every other move loses at once.
    const SearchResult result = RunSearch(PassNimGame::Make(5, Color::kBlack), evaluator, 5000);
    EXPECT_EQ(result.proven, Status::kDraw);
    for (const RootMoveStats& stats : result.moves) {
      EXPECT_EQ(stats.proven, stats.move.raw >= 2 ? Status::kWhiteWins : Status::kDraw);
    }
  }
  {
    const SearchResult result = RunSearch(PassNimGame::Make(4, Color::kWhite), evaluator, 5000);
    EXPECT_EQ(result.proven, Status::kDraw);
    EXPECT_EQ(result.best_move, Move{0});
    EXPECT_EQ(result.proven_plies, 4);  // pass, pass, pass, pass: the start position a third time
  }
}

TEST(SearchMctsTest, RepetitionCountsTheGameHistory) {
  GameState<PassNimGame> game(PassNimGame::Make(4, Color::kWhite));
  game.Play("pass");
  game.Play("pass");
  ASSERT_EQ(game.RepetitionCount(), 2);
  Mcts<PassNimGame> search;
  search.SetRoot(game);
  EXPECT_EQ(search.root_repetition_count(), 2);
  RecordingEvaluator<PassNimGame> evaluator;
  search.Search(evaluator, 5000);
  ASSERT_FALSE(evaluator.repetition_counts.empty());
  EXPECT_EQ(evaluator.repetition_counts[0], 2);  // the root, seen twice before
  const SearchResult result = search.Result();
  EXPECT_EQ(result.proven, Status::kDraw);
  EXPECT_EQ(result.proven_plies, 2);  // pass, pass reaches the third occurrence
  // A third occurrence at the root is a finished game.
  game.Play("pass");
  game.Play("pass");
  search.SetRoot(game);
  EXPECT_EQ(search.root_outcome().reason, Reason::kRepetition);
  search.Search(evaluator, 10);
  EXPECT_EQ(search.BestMove(), kNullMove);
}

// Every leaf without children that is not a finished game holds exactly one evaluation: a full
// tree must not back the same estimate up again and again.
template <Game G>
void ExpectNoLeafEvaluatedTwice(const Mcts<G>& search) {
  const SearchTree& tree = search.tree();
  for (int32_t node = 1; node < tree.size; ++node) {
    if (tree.first_child[node] != SearchTree::kNone) continue;
    if (tree.proven[node] != uint8_t(Status::kOngoing)) continue;
    EXPECT_LE(tree.visits[node], 1) << "leaf " << node << " was evaluated more than once";
  }
}

TEST(SearchMctsTest, FullTreeEndsTheSearch) {
  Mcts<TicTacToeGame> search(NodeCapParams(60));
  HashEvaluator<TicTacToeGame> evaluator;
  search.Search(evaluator, 2000);
  const SearchResult result = search.Result();
  EXPECT_LE(result.nodes, 60);
  EXPECT_TRUE(result.node_cap_reached);
  EXPECT_TRUE(result.tree_full);
  EXPECT_LT(result.simulations, 2000);
  EXPECT_GT(result.simulations, 0);
  EXPECT_NE(result.best_move, kNullMove);
  ExpectConsistentTree(search, /*exact=*/true);
  ExpectNoLeafEvaluatedTwice(search);
  // A new search on the full tree stops at once, without evaluating anything twice.
  search.Search(evaluator, 100);
  EXPECT_TRUE(search.tree_full());
  ExpectNoLeafEvaluatedTwice(search);
  // Without a cap the same search runs its whole budget.
  Mcts<TicTacToeGame> uncapped;
  uncapped.Search(evaluator, 2000);
  EXPECT_FALSE(uncapped.Result().tree_full);
  EXPECT_LE(search.tree().capacity(), 60u);
  // MiB form.
  EXPECT_EQ(Mcts<TicTacToeGame>::NodesForMiB(1.0),
            int64_t(1024 * 1024 / Mcts<TicTacToeGame>::kBytesPerNode));
}

TEST(SearchMctsTest, TreeReuseKeepsTheSubtree) {
  Mcts<TicTacToeGame> search;
  HashEvaluator<TicTacToeGame> evaluator;
  search.Search(evaluator, 500);
  const Move best = search.BestMove();
  const int32_t kept_visits = StatsOf(search.Result(), best).visits;
  ASSERT_GT(kept_visits, 1);
  search.Advance(best);
  EXPECT_EQ(search.Result().root_visits, kept_visits);
  ExpectConsistentTree(search, /*exact=*/false);
  search.Search(evaluator, 200);
  EXPECT_EQ(search.Result().root_visits, kept_visits + 200);
  EXPECT_EQ(search.Result().simulations, 200);
  // The same through SetRoot with a GameState that continues the game.
  GameState<TicTacToeGame> game;
  game.Play(best);
  const Move second = search.BestMove();
  game.Play(second);
  const int32_t second_visits = StatsOf(search.Result(), second).visits;
  search.SetRoot(game);
  EXPECT_EQ(search.Result().root_visits, second_visits);
  // A position outside the game clears the tree.
  search.SetRoot(TicTacToeGame::ParsePosition("x........ o"));
  EXPECT_EQ(search.num_nodes(), 1);
  EXPECT_THROW(search.Advance(Move{0}), Error);
}

// Tree reuse keeps a subtree each move; garbage from older trees must not pile up: the memory
// reached in the first half of a 300-move game is enough for the second half, and the tree stays
// bounded by what one search adds plus the kept subtree.
TEST(SearchMctsTest, NoMemoryGrowthOverA300MoveGame) {
  SearchParams params;
  Mcts<PassNimGame> search(params);
  search.SetRoot(PassNimGame::Make(700, Color::kWhite));
  HashEvaluator<PassNimGame> evaluator;
  std::vector<size_t> memory;
  int64_t max_nodes = 0;
  for (int ply = 0; ply < 300; ++ply) {
    search.Search(evaluator, 200);
    ASSERT_EQ(search.Result().simulations, 200);
    max_nodes = std::max(max_nodes, search.num_nodes());
    memory.push_back(search.MemoryBytes());
    search.Advance(Move{1});
  }
  EXPECT_EQ(memory[299], memory[150]);
  // Without reuse garbage collection the tree would reach about 300 * 800 nodes.
  EXPECT_LT(max_nodes, 5 * 201 * 4);
  EXPECT_LE(memory[299], size_t(2 * 8192) * Mcts<PassNimGame>::kBytesPerNode);
}

TEST(SearchMctsTest, VirtualLossHandsOutDistinctLeaves) {
  SearchParams params;
  params.leaves_per_round = 8;
  params.max_collisions = 8;
  Mcts<TicTacToeGame> search(params);
  UniformEvaluator<TicTacToeGame> evaluator;
  search.Search(evaluator, 20);  // expands the root and a few more
  search.StartSearch(8, evaluator);
  EvalBatch<TicTacToeGame> batch;
  batch.Clear();
  const int gathered = search.GatherLeaves(batch, evaluator);
  EXPECT_EQ(gathered, 8);
  std::set<uint64_t> distinct;
  for (int i = 0; i < batch.size(); ++i) distinct.insert(TicTacToeGame::Hash(batch.position(i)));
  EXPECT_EQ(int(distinct.size()), batch.size());
  EXPECT_FALSE(search.Done());
  evaluator.Evaluate(batch);
  search.ApplyEvaluations(batch, evaluator);
  EXPECT_TRUE(search.Done());
  ExpectConsistentTree(search, /*exact=*/false);
}

TEST(SearchMctsTest, DirichletNoiseChangesRootPriorsDeterministically) {
  SearchParams params;
  params.dirichlet_epsilon = 0.25f;
  params.dirichlet_alpha = 0.3f;
  params.seed = 5;
  UniformEvaluator<TicTacToeGame> evaluator;
  Mcts<TicTacToeGame> a(params), b(params);
  a.Search(evaluator, 50);
  b.Search(evaluator, 50);
  double total = 0.0;
  bool changed = false;
  const SearchResult result = a.Result();
  for (size_t i = 0; i < result.moves.size(); ++i) {
    total += result.moves[i].prior;
    changed = changed || std::abs(result.moves[i].prior - 1.0f / 9.0f) > 1e-4f;
    EXPECT_EQ(result.moves[i].prior, b.Result().moves[i].prior);
  }
  EXPECT_NEAR(total, 1.0, 1e-5);
  EXPECT_TRUE(changed);
}

TEST(SearchMctsTest, TemperatureSamplesByVisits) {
  SearchParams params;
  params.seed = 11;
  Mcts<TicTacToeGame> search(params);
  HashEvaluator<TicTacToeGame> evaluator;
  search.Search(evaluator, 400);
  EXPECT_EQ(search.ChooseMove(0.0f), search.BestMove());
  std::set<uint64_t> chosen;
  for (int i = 0; i < 200; ++i) chosen.insert(search.ChooseMove(1.0f).raw);
  EXPECT_GT(chosen.size(), 1u);
  const SearchResult result = search.Result();
  for (uint64_t raw : chosen) {
    for (const RootMoveStats& stats : result.moves) {
      if (stats.move.raw == raw) {
        EXPECT_GT(stats.visits, 0);
      }
    }
  }
}

// A leaf evaluated at the node cap has no children; when tree reuse makes room, its later
// expansion must give the children priors (an evaluation of the node), not leave them at 0 with
// every simulation on the first move.
TEST(SearchMctsTest, ExpansionAfterTheNodeCapSetsPriors) {
  Mcts<TicTacToeGame> search(NodeCapParams(18));
  UniformEvaluator<TicTacToeGame> uniform;
  ASSERT_NO_FATAL_FAILURE(AdvanceToALeafAtTheCap(search, uniform, 50));
  search.Search(uniform, 20);
  const SearchResult result = search.Result();
  ASSERT_EQ(result.moves.size(), 8u);
  for (const RootMoveStats& stats : result.moves) {
    EXPECT_NEAR(stats.prior, 1.0f / 8.0f, 1e-6f);
    EXPECT_GE(stats.visits, 1) << "uniform priors spread 20 simulations over the 8 moves";
  }
  ExpectConsistentTree(search, /*exact=*/false);
}

// A cap below the root's move count is raised to the root and its children: the search still
// expands the root and plays a move.
TEST(SearchMctsTest, NodeCapBelowTheMoveCountStillExpandsTheRoot) {
  Mcts<TicTacToeGame> search(NodeCapParams(2));
  EXPECT_EQ(search.params().max_nodes, 1 + TicTacToeGame::kMaxMoves);
  UniformEvaluator<TicTacToeGame> uniform;
  search.Search(uniform, 100);
  const SearchResult result = search.Result();
  EXPECT_NE(result.best_move, kNullMove);
  EXPECT_EQ(result.moves.size(), 9u);
  // Root moves are evaluated once each until a descent returns to one of them: the tree is full.
  EXPECT_GE(result.simulations, 1);
  EXPECT_LE(result.simulations, 9);
  EXPECT_EQ(result.root_visits, result.simulations + 1);
  ExpectNoLeafEvaluatedTwice(search);
  EXPECT_TRUE(result.node_cap_reached);
  EXPECT_TRUE(result.tree_full);
  EXPECT_EQ(Mcts<TicTacToeGame>::NodesForMiB(1e-9), 1 + TicTacToeGame::kMaxMoves);
  EXPECT_EQ(Mcts<TicTacToeGame>::NodesForMiB(0.0), 1 + TicTacToeGame::kMaxMoves);
}

// Node ids and visit counts are 32-bit: caps are clamped, and a search that the root's visit
// count could not hold is refused.
TEST(SearchMctsTest, CountsBeyondThirtyTwoBitsAreRefusedOrClamped) {
  const int64_t int32_max = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(Mcts<TicTacToeGame>::NodesForMiB(1e9), int32_max);
  EXPECT_EQ(SearchTree::NodesForMiB(1e9), int32_max);
  EXPECT_EQ(Mcts<TicTacToeGame>(NodeCapParams(int64_t{1} << 40)).params().max_nodes, int32_max);

  Mcts<TicTacToeGame> search;
  UniformEvaluator<TicTacToeGame> uniform;
  EXPECT_THROW(search.StartSearch(int64_t{1} << 31, uniform), Error);
  // The root's own evaluation counts too.
  EXPECT_THROW(search.StartSearch(int32_max, uniform), Error);
  search.StartSearch(int32_max - 1, uniform);
  // On a reused tree the root's visits so far count as well.
  search.Search(uniform, 10);
  EXPECT_THROW(search.StartSearch(int32_max - 1, uniform), Error);
  search.StartSearch(int32_max - 11, uniform);
  for (bool gumbel : {false, true}) {
    SearchParams params;
    params.gumbel = gumbel;
    Mcts<TicTacToeGame> huge(params);
    huge.StartSearch(kMaxSimulations, uniform);  // Gumbel's schedule must not be a table of 2^31 entries
    EvalBatch<TicTacToeGame> batch;
    for (int round = 0; round < 50 && !huge.Done(); ++round) {
      batch.Clear();
      huge.GatherLeaves(batch, uniform);
      uniform.Evaluate(batch);
      huge.ApplyEvaluations(batch, uniform);
    }
    EXPECT_GE(huge.simulations(), 49);
    EXPECT_NE(huge.BestMove(), kNullMove);
  }
}

// A finished game at the root reports its result, not the default draw.
TEST(SearchMctsTest, FinishedRootReportsItsResult) {
  Mcts<TicTacToeGame> search;
  UniformEvaluator<TicTacToeGame> uniform;
  search.SetRoot(TicTacToeGame::ParsePosition("xxxoo.... o"));  // x has won; o to move
  search.Search(uniform, 10);
  SearchResult result = search.Result();
  EXPECT_EQ(result.best_move, kNullMove);
  EXPECT_EQ(result.proven, Status::kWhiteWins);
  EXPECT_EQ(result.proven_plies, 0);
  EXPECT_EQ(result.root_wdl.loss, 1.0f);
  EXPECT_EQ(result.root_wdl.draw, 0.0f);
  EXPECT_EQ(result.root_q, -1.0f);
  search.SetRoot(TicTacToeGame::ParsePosition("xoxxoxoxo o"));  // full board, no line
  search.Search(uniform, 10);
  result = search.Result();
  EXPECT_EQ(result.proven, Status::kDraw);
  EXPECT_EQ(result.root_wdl.draw, 1.0f);
  EXPECT_EQ(result.root_q, 0.0f);
}

// `fill` in every byte of the position, padding included, then the value of `position`.
CountedTicTacToeGame::Position WithPadding(unsigned char fill,
                                           const CountedTicTacToeGame::Position& position) {
  CountedTicTacToeGame::Position result;
  std::memset(static_cast<void*>(&result), fill, sizeof(result));
  result.inner = position.inner;
  result.plies = position.plies;
  return result;
}

// Tree reuse compares positions by value: padding bytes do not matter, and a counter left out of
// the hash does.
TEST(SearchMctsTest, TreeReuseComparesPositionsByValue) {
  using G = CountedTicTacToeGame;
  Mcts<G> search;
  HashEvaluator<G> evaluator;
  GameState<G> game(WithPadding(0x00, G::InitialPosition()));
  search.SetRoot(game);
  search.Search(evaluator, 300);
  const Move best = search.BestMove();
  const int32_t kept_visits = StatsOf(search.Result(), best).visits;
  ASSERT_GT(kept_visits, 1);
  GameState<G> same(WithPadding(0xa5, G::InitialPosition()));
  ASSERT_NE(std::memcmp(static_cast<const void*>(&same.start_position()),
                        static_cast<const void*>(&game.start_position()), sizeof(G::Position)),
            0);
  same.Play(best);
  search.SetRoot(same);
  EXPECT_EQ(search.Result().root_visits, kept_visits) << "the same game: the subtree is kept";
  // The same board with another counter is another game, although the hashes agree.
  G::Position later = G::InitialPosition();
  later.plies = 7;
  ASSERT_EQ(G::Hash(later), G::Hash(G::InitialPosition()));
  GameState<G> other(later);
  other.Play(best);
  search.SetRoot(other);
  EXPECT_EQ(search.num_nodes(), 1);
  EXPECT_EQ(G::FormatPosition(search.root_position()), G::FormatPosition(other.position()));
}

// Priors that put almost all the weight on one move (`favorite`, by raw value) and a fixed value;
// optionally a non-finite value or prior from a given call on (a broken network).
template <Game G>
class FavoriteMoveEvaluator final : public Evaluator<G> {
 public:
  explicit FavoriteMoveEvaluator(uint64_t favorite) : favorite_(favorite) {}
  void Evaluate(EvalBatch<G>& batch) override {
    ++calls;
    const bool broken = broken_from_call > 0 && calls >= broken_from_call;
    for (int i = 0; i < batch.size(); ++i) {
      std::span<const Move> moves = batch.moves(i);
      for (size_t k = 0; k < moves.size(); ++k) {
        batch.priors(i)[k] = moves[k].raw == favorite_ ? 0.99f : 0.01f;
      }
      batch.value(i) = Wdl{0.2f, 0.6f, 0.2f};
      if (broken && broken_prior) batch.priors(i)[0] = std::numeric_limits<float>::quiet_NaN();
      if (broken && !broken_prior) batch.value(i).win = std::numeric_limits<float>::quiet_NaN();
    }
  }
  int calls = 0;
  int broken_from_call = 0;  // 0: never broken
  bool broken_prior = false;

 private:
  uint64_t favorite_;
};

// A non-finite network output is an error, not a value: the round is cancelled, the tree stays
// valid and the search does not spin (it used to hang in PUCT selection on NaN Q values).
TEST(SearchMctsTest, NonFiniteEvaluationsAreAnError) {
  for (bool gumbel : {false, true}) {
    for (bool broken_prior : {false, true}) {
      SearchParams params;
      params.gumbel = gumbel;
      params.leaves_per_round = 4;
      Mcts<TicTacToeGame> search(params);
      FavoriteMoveEvaluator<TicTacToeGame> evaluator(4);
      evaluator.broken_from_call = 3;
      evaluator.broken_prior = broken_prior;
      try {
        search.Search(evaluator, 200);
        ADD_FAILURE() << "no error for a non-finite evaluation";
      } catch (const Error& error) {
        EXPECT_NE(std::string(error.what()).find("non-finite"), std::string::npos) << error.what();
      }
      EXPECT_EQ(evaluator.calls, 3);
      ExpectConsistentTree(search, /*exact=*/true);
      for (int32_t node = 0; node < search.tree().size; ++node) {
        EXPECT_TRUE(std::isfinite(search.tree().value_sum[node]));
      }
      evaluator.broken_from_call = 0;
      search.Search(evaluator, 20);
      EXPECT_NE(search.BestMove(), kNullMove);
    }
  }
}

// A move that wins at once is played whatever the priors and the solver (x wins with c3 = cell
// 8; the evaluator favours cell 3), and the search ends without spending its budget.
TEST(SearchMctsTest, WinInOneIsPlayedWithoutTheSolver) {
  for (bool solver : {false, true}) {
    for (bool gumbel : {false, true}) {
      SearchParams params;
      params.solver = solver;
      params.gumbel = gumbel;
      Mcts<TicTacToeGame> search(params);
      search.SetRoot(TicTacToeGame::ParsePosition("xx.oo.... x"));
      FavoriteMoveEvaluator<TicTacToeGame> evaluator(5);
      search.Search(evaluator, 50);
      const SearchResult result = search.Result();
      EXPECT_EQ(result.best_move, Move{2}) << "solver " << solver << " gumbel " << gumbel;
      EXPECT_EQ(result.proven, Status::kWhiteWins);
      EXPECT_EQ(result.simulations, 0);
      for (const RootMoveStats& stats : result.moves) {
        EXPECT_EQ(stats.policy_target, stats.move == Move{2} ? 1.0f : 0.0f);
      }
      EXPECT_EQ(search.ChooseMove(1.0f), Move{2});
    }
  }
}

// A move after which the rules end the game with the mover's loss is never played, even when it
// holds the visits (misère nim at a pile of 1: taking the last stone loses; the evaluator
// favours it).
TEST(SearchMctsTest, MoveThatLosesAtOnceIsNeverPlayed) {
  using search_testing::MisereNimGame;
  for (bool solver : {false, true}) {
    SearchParams params;
    params.solver = solver;
    Mcts<MisereNimGame> search(params);
    search.SetRoot(MisereNimGame::Make(1, Color::kWhite));
    FavoriteMoveEvaluator<MisereNimGame> evaluator(1);
    search.Search(evaluator, 1);
    const SearchResult result = search.Result();
    EXPECT_EQ(result.best_move, Move{0}) << "solver " << solver;
    for (int i = 0; i < 20; ++i) EXPECT_EQ(search.ChooseMove(1.0f), Move{0});
  }
}

// `go searchmoves`: the root is restricted to the given moves, the restriction is lifted by an
// empty list or a new root, and an illegal move is refused by name.
TEST(SearchMctsTest, RestrictedRootSearchesOnlyTheGivenMoves) {
  Mcts<TicTacToeGame> search;
  FavoriteMoveEvaluator<TicTacToeGame> evaluator(4);
  search.Search(evaluator, 30);
  EXPECT_EQ(search.BestMove(), Move{4});
  const std::vector<Move> allowed = {Move{0}, Move{8}};
  search.RestrictRootMoves(allowed);
  search.Search(evaluator, 30);
  SearchResult result = search.Result();
  ASSERT_EQ(result.moves.size(), 2u);
  EXPECT_TRUE(result.best_move == Move{0} || result.best_move == Move{8});
  EXPECT_EQ(result.root_visits, 31);
  ExpectConsistentTree(search, /*exact=*/true);
  search.RestrictRootMoves({});
  search.Search(evaluator, 30);
  EXPECT_EQ(search.Result().moves.size(), 9u);
  EXPECT_EQ(search.BestMove(), Move{4});
  search.RestrictRootMoves(allowed);
  search.Search(evaluator, 5);
  search.Advance(Move{0});
  EXPECT_TRUE(search.root_move_restriction().empty());
  const std::vector<Move> taken = {Move{0}};
  EXPECT_THROW(search.RestrictRootMoves(taken), Error);
}

// Golden outputs: regenerate with VZ_UPDATE_GOLDEN=1 after an intended change of the search.
TEST(SearchMctsTest, FixedSeedGivesGoldenOutput) {
  std::ostringstream out;
  for (bool gumbel : {false, true}) {
    SearchParams params;
    params.gumbel = gumbel;
    params.seed = 42;
    params.dirichlet_epsilon = 0.25f;
    {
      Mcts<TicTacToeGame> search(params);
      UniformEvaluator<TicTacToeGame> uniform;
      search.Search(uniform, 64);
      out << (gumbel ? "gumbel " : "puct ") << Describe(search);
      search.Advance(search.ChooseMove(1.0f));
      search.Search(uniform, 64);
      out << Describe(search);
    }
    {
      Mcts<PassNimGame> search(params);
      RolloutEvaluator<PassNimGame> rollout(9, 2, 100);
      search.Search(rollout, 100);
      out << Describe(search);
    }
  }
  const std::string path = std::string(VZ_TEST_DATA_DIR) + "/golden/search_test_games.txt";
  if (std::getenv("VZ_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << out.str();
  }
  std::ifstream file(path);
  ASSERT_TRUE(file.good()) << "missing " << path << " (run with VZ_UPDATE_GOLDEN=1 to create)";
  std::stringstream expected;
  expected << file.rdbuf();
  EXPECT_EQ(out.str(), expected.str());
}

}  // namespace
}  // namespace vz
