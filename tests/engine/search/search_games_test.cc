// The search on every registered game (engine/games.h): a win in one move (checkmate in the
// chess-like games, a winning multi-capture in draughts) is found, proven and played with the
// rollout evaluator at a modest budget; bookkeeping, lockstep batching, Gumbel targets and tree
// reuse hold for real move generators.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/draughts/game.h"
#include "engine/games.h"
#include "engine/registry.h"
#include "engine/search/mcts.h"
#include "engine/search/rollout_evaluator.h"
#include "engine/search/search_driver.h"
#include "engine/search/uniform_evaluator.h"
#include "tests/engine/game_test_util.h"
#include "tests/engine/game_types.h"

namespace vz {
namespace {

template <class G>
class SearchGamesTest : public ::testing::Test {};

TYPED_TEST_SUITE(SearchGamesTest, testing::AllGameTypes, testing::GameNames);

// Pieces taken by a draughts move (bits 10-41 of the documented move layout).
int DraughtsCaptures(Move move) { return std::popcount((move.raw >> 10) & 0xffffffffull); }

// Does `move` end the game at once with a win for the side that plays it (checkmate in the
// chess-like games; in draughts a capture of at least two pieces after which the opponent cannot
// move)?
template <Game G>
bool WinsAtOnce(const typename G::Position& position, Move move) {
  const Outcome outcome = testing::OutcomeAfter<G>(position, move);
  if (outcome.status != WinFor(G::SideToMove(position))) return false;
  if constexpr (std::is_same_v<G, draughts::DraughtsGame>) return DraughtsCaptures(move) >= 2;
  if constexpr (G::kHasCheck) return outcome.reason == Reason::kCheckmate;
  return true;
}

// Positions of fixed-seed random games where the side to move has a win in one and at least one
// other move that does not win at once, with their game history.
template <Game G>
std::vector<GameState<G>> WinInOnePositions(int wanted) {
  std::vector<GameState<G>> found;
  std::mt19937_64 rng(2024);
  for (int game_index = 0; game_index < 3000 && int(found.size()) < wanted; ++game_index) {
    GameState<G> game;
    for (int ply = 0; ply < 400 && !game.outcome().IsTerminal(); ++ply) {
      int winning = 0;
      for (Move move : game.legal_moves()) winning += WinsAtOnce<G>(game.position(), move);
      if (winning > 0 && winning < game.legal_moves().size) {
        found.push_back(game);
        break;
      }
      std::uniform_int_distribution<int> pick(0, game.legal_moves().size - 1);
      game.Play(game.legal_moves()[pick(rng)]);
    }
  }
  return found;
}

TYPED_TEST(SearchGamesTest, WinInOneIsFoundProvenAndPlayed) {
  using G = TypeParam;
  std::vector<GameState<G>> positions = WinInOnePositions<G>(3);
  if constexpr (std::is_same_v<G, draughts::DraughtsGame>) {
    // Constructed: 10x26 takes 14 and 22, Black's last pieces.
    positions.emplace_back(G::ParsePosition("W:W1,10:B14,22"));
  }
  ASSERT_FALSE(positions.empty()) << "no win in one found in random games of " << G::kName;
  for (const GameState<G>& game : positions) {
    SCOPED_TRACE(G::FormatPosition(game.position()));
    SearchParams params;
    params.seed = 3;
    Mcts<G> search(params);
    search.SetRoot(game);
    RolloutEvaluator<G> rollout(7, 1, 200);
    constexpr int kBudget = 3000;
    search.Search(rollout, kBudget);
    const SearchResult result = search.Result();
    ASSERT_NE(result.best_move, kNullMove);
    EXPECT_TRUE(WinsAtOnce<G>(game.position(), result.best_move))
        << "played " << G::FormatMove(game.position(), result.best_move);
    EXPECT_EQ(result.proven, WinFor(G::SideToMove(game.position())));
    EXPECT_EQ(result.proven_plies, 1);
    EXPECT_LT(result.simulations, kBudget) << "the proof must end the search";
    EXPECT_EQ(search.ChooseMove(1.0f), result.best_move)
        << "a proven win is played at any temperature";
    // Gumbel search plays it too once the mate is among the sampled moves: here all are
    // considered, so the first phase of sequential halving visits every move.
    params.gumbel = true;
    params.gumbel_max_considered = G::kMaxMoves;
    Mcts<G> gumbel(params);
    gumbel.SetRoot(game);
    gumbel.Search(rollout, 2 * game.legal_moves().size + 16);
    EXPECT_EQ(gumbel.Result().proven, WinFor(G::SideToMove(game.position())));
    EXPECT_TRUE(WinsAtOnce<G>(game.position(), gumbel.BestMove()))
        << "gumbel played " << G::FormatMove(game.position(), gumbel.BestMove());
  }
}

template <Game G>
void ExpectVisitsAddUp(const Mcts<G>& search) {
  const SearchTree& tree = search.tree();
  for (int32_t node = 0; node < tree.size; ++node) {
    ASSERT_EQ(tree.in_flight[node], 0);
    if (tree.first_child[node] == SearchTree::kNone || tree.visits[node] == 0) continue;
    int64_t children = 0;
    for (int i = 0; i < tree.num_children[node]; ++i)
      children += tree.visits[tree.first_child[node] + i];
    ASSERT_GE(tree.visits[node], children + 1) << "node " << node;
  }
}

TYPED_TEST(SearchGamesTest, VisitCountsAddUpFromTheStart) {
  using G = TypeParam;
  Mcts<G> search;
  UniformEvaluator<G> evaluator;
  search.Search(evaluator, 2000);
  const SearchResult result = search.Result();
  EXPECT_EQ(result.simulations, 2000);
  EXPECT_EQ(result.root_visits, 2001);
  GameState<G> game;
  EXPECT_EQ(int(result.moves.size()), game.legal_moves().size);
  EXPECT_TRUE(game.legal_moves().Contains(result.best_move));
  ExpectVisitsAddUp(search);
}

TYPED_TEST(SearchGamesTest, SearchDriverMatchesLoneSearches) {
  using G = TypeParam;
  SearchParams params;
  params.leaves_per_round = 4;
  std::vector<GameState<G>> games(4);
  std::mt19937_64 rng(5);
  for (size_t i = 0; i < games.size(); ++i) {
    for (size_t ply = 0; ply < 3 * i && !games[i].outcome().IsTerminal(); ++ply) {
      std::uniform_int_distribution<int> pick(0, games[i].legal_moves().size - 1);
      games[i].Play(games[i].legal_moves()[pick(rng)]);
    }
  }
  RolloutEvaluator<G> evaluator(1, 1, 60);
  std::vector<std::vector<int32_t>> alone;
  for (size_t i = 0; i < games.size(); ++i) {
    params.seed = i;
    Mcts<G> search(params);
    search.SetRoot(games[i]);
    search.Search(evaluator, 200);
    std::vector<int32_t> visits;
    for (const RootMoveStats& stats : search.Result().moves) visits.push_back(stats.visits);
    alone.push_back(visits);
  }
  std::vector<std::unique_ptr<Mcts<G>>> searches;
  std::vector<Mcts<G>*> pointers;
  for (size_t i = 0; i < games.size(); ++i) {
    params.seed = i;
    searches.push_back(std::make_unique<Mcts<G>>(params));
    searches.back()->SetRoot(games[i]);
    searches.back()->StartSearch(200, evaluator);
    pointers.push_back(searches.back().get());
  }
  SearchDriver<G> driver;
  driver.Run(evaluator, pointers);
  for (size_t i = 0; i < games.size(); ++i) {
    std::vector<int32_t> visits;
    for (const RootMoveStats& stats : searches[i]->Result().moves) visits.push_back(stats.visits);
    EXPECT_EQ(visits, alone[i]) << "game " << i;
  }
}

TYPED_TEST(SearchGamesTest, GumbelTargetsAreValidAtSmallBudgets) {
  using G = TypeParam;
  for (int budget : {2, 4, 16}) {
    SearchParams params;
    params.gumbel = true;
    params.seed = uint64_t(budget);
    Mcts<G> search(params);
    UniformEvaluator<G> evaluator;
    search.Search(evaluator, budget);
    const SearchResult result = search.Result();
    EXPECT_EQ(result.simulations, budget);
    double total = 0.0;
    for (const RootMoveStats& stats : result.moves) total += stats.policy_target;
    EXPECT_NEAR(total, 1.0, 1e-5);
  }
}

TYPED_TEST(SearchGamesTest, SelfPlayWithTreeReuseStaysBounded) {
  using G = TypeParam;
  SearchParams params;
  params.seed = 9;
  params.dirichlet_epsilon = 0.25f;
  Mcts<G> search(params);
  UniformEvaluator<G> evaluator;
  GameState<G> game;
  int64_t max_nodes = 0;
  for (int ply = 0; ply < 60 && !game.outcome().IsTerminal(); ++ply) {
    search.SetRoot(game);
    search.Search(evaluator, 100);
    max_nodes = std::max(max_nodes, search.num_nodes());
    const Move move = search.ChooseMove(1.0f);
    ASSERT_TRUE(game.legal_moves().Contains(move));
    game.Play(move);
  }
  EXPECT_LT(max_nodes, 4 * 101 * G::kMaxMoves);
}

TYPED_TEST(SearchGamesTest, RegistrySearchAndBench) {
  using G = TypeParam;
  const Variant& variant = FindVariant(G::kName);
  GameState<G> game;
  SearchRequest request;
  request.simulations = 300;
  request.evaluator = "rollout";
  for (int ply = 0; ply < 2; ++ply) {
    const Move move = game.legal_moves()[0];
    request.moves.push_back(G::FormatMove(game.position(), move));
    game.Play(move);
  }
  const SearchReport report = variant.Search(request);
  EXPECT_EQ(report.fen, G::FormatPosition(game.position()));
  EXPECT_EQ(int(report.moves.size()), game.legal_moves().size);
  EXPECT_EQ(report.simulations, 300);
  ASSERT_FALSE(report.pv.empty());
  EXPECT_EQ(report.pv[0], report.best_move);
  EXPECT_EQ(G::FormatMove(game.position(), G::ParseMove(game.position(), report.best_move)),
            report.best_move);
  request.moves.push_back("not-a-move");
  try {
    variant.Search(request);
    ADD_FAILURE() << "an illegal move must throw";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("move 3"), std::string::npos) << error.what();
  }
  request.moves.pop_back();
  request.evaluator = "oracle";
  EXPECT_THROW(variant.Search(request), Error);
  const BenchReport first = variant.Bench(300);
  const BenchReport second = variant.Bench(300);
  EXPECT_GE(first.positions, 1);
  EXPECT_EQ(first.signature, second.signature);
  EXPECT_EQ(first.simulations, second.simulations);
}

// A node cap below the root's move count still gives a best move.
TEST(SearchRegistryTest, TinyNodeCapStillPlaysAMove) {
  SearchRequest request;
  request.simulations = 100;
  request.params.max_nodes = 2;
  const SearchReport report = FindVariant("chad").Search(request);
  EXPECT_FALSE(report.best_move.empty());
  EXPECT_FALSE(report.moves.empty());
  // Root moves are evaluated once each until a descent returns to one: the tree is full.
  EXPECT_GE(report.simulations, 1);
  EXPECT_LE(report.simulations, int64_t(report.moves.size()));
  EXPECT_EQ(report.root_visits, report.simulations + 1);
  EXPECT_TRUE(report.tree_full);
}

// Issue 17, fault 1: with the rollout evaluator a leaf's value is fixed per position, and a full
// tree used to back the same playout up thousands of times (root q +0.973, three moves at q
// +1.000). Now the search stops when the tree is full and its values stay honest.
TEST(SearchRegistryTest, FullTreeKeepsValuesHonest) {
  SearchRequest request;
  request.evaluator = "rollout";
  request.simulations = 3000;
  request.params.max_nodes = 300;
  const SearchReport report = FindVariant("cuarenta").Search(request);
  EXPECT_TRUE(report.tree_full);
  EXPECT_LT(report.simulations, 3000);
  EXPECT_LT(std::abs(report.root_q), 0.5f) << "root q " << report.root_q;
  int64_t visits = 0;
  for (const SearchMoveReport& move : report.moves) {
    visits += move.visits;
    if (move.proven.empty() && move.visits >= 20) {
      EXPECT_LT(move.q, 0.9f) << move.move << " at " << move.visits << " visits";
    }
  }
  EXPECT_EQ(visits + 1, report.root_visits);
}

// Issue 17, fault 7: a mate among 120 moves with uniform priors (the rollout evaluator) was never
// visited at 400 simulations; every root move is now checked for an immediate end first.
TEST(SearchRegistryTest, MateInOneAmongManyMovesIsPlayed) {
  for (bool gumbel : {false, true}) {
    for (bool solver : {false, true}) {
      SearchRequest request;
      request.fen = "1R4r4r/3r8/5Rr1k3/R3R4r2/12/11R/12/2R1q7/2K6R2/12/12/4R7 w 2 34";
      request.evaluator = "rollout";
      request.simulations = 400;
      request.params.gumbel = gumbel;
      request.params.solver = solver;
      const SearchReport report = FindVariant("chad").Search(request);
      EXPECT_EQ(report.moves.size(), 120u);
      EXPECT_EQ(report.best_move, "e9i9") << "gumbel " << gumbel << " solver " << solver;
      EXPECT_EQ(report.proven, "win");
      EXPECT_EQ(report.proven_plies, 1);
    }
  }
}

// Simulation counts beyond the 32-bit visit counts are refused with vz::Error (Gumbel once died
// allocating its schedule); the check comes before any search.
TEST(SearchRegistryTest, SimulationsBeyondThirtyTwoBitsAreRefused) {
  SearchRequest request;
  request.params.gumbel = true;
  request.simulations = (int64_t{1} << 31) + 1;
  ASSERT_THROW(FindVariant("chad").Search(request), Error);
  request.params.gumbel = false;
  ASSERT_THROW(FindVariant("chad").Search(request), Error);
  request.simulations = -1;
  EXPECT_THROW(FindVariant("chad").Search(request), Error);
  EXPECT_THROW(FindVariant("chad").Bench((int64_t{1} << 31) + 1), Error);
  EXPECT_THROW(FindVariant("chad").Bench(0), Error);
}

// A finished game at the root reports its result in the root statistics.
TEST(SearchRegistryTest, FinishedRootReportsItsResult) {
  SearchRequest request;
  request.fen = "W:W:B";  // no pieces: White to move has no move and has lost
  request.simulations = 10;
  const SearchReport report = FindVariant("portuguese-draughts").Search(request);
  EXPECT_EQ(report.outcome.status, Status::kBlackWins);
  EXPECT_EQ(report.proven, "loss");
  EXPECT_EQ(report.proven_plies, 0);
  EXPECT_EQ(report.root_wdl.loss, 1.0f);
  EXPECT_EQ(report.root_wdl.draw, 0.0f);
  EXPECT_EQ(report.root_q, -1.0f);
  EXPECT_TRUE(report.best_move.empty());
}

}  // namespace
}  // namespace vz
