// Players under a time a move (arena/player.h `movetime=MS`): the spec grammar, alpha-beta's
// iterative deepening stopped by a stop test (the deepest completed iteration's move; depth 1
// always completes), the clock respected by alpha-beta and MCTS players (a generous bound that
// only a player ignoring its clock can break: this is not a speed test), and a match of timed
// players (threads playing whole pairs).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "arena/match.h"
#include "arena/player.h"
#include "engine/alphabeta/alphabeta.h"
#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/games.h"
#include "engine/search/rollout_evaluator.h"
#include "engine/search/search_params.h"

namespace vz {
namespace {

// A player that ignores its clock overshoots by whole iterations (seconds on these boards); one
// that respects it returns within its time plus scheduling noise on a loaded 2-core machine.
constexpr int64_t kSlackMs = 750;

TEST(TimedPlayerTest, MoveTimeSpecs) {
  PlayerSpec spec = PlayerSpec::Parse("alphabeta:movetime=200");
  EXPECT_EQ(spec.kind, "alphabeta");
  EXPECT_EQ(spec.move_time_ms, 200);
  EXPECT_EQ(spec.value, kMaxTimedDepth);
  spec = PlayerSpec::Parse("rollout:movetime=50:qs");
  EXPECT_EQ(spec.move_time_ms, 50);
  EXPECT_TRUE(spec.leaf_quiescence);
  EXPECT_EQ(PlayerSpec::Parse("alphabeta:4").move_time_ms, 0);
  for (const char* bad : {"alphabeta:movetime=0", "alphabeta:movetime=-5", "alphabeta:movetime=",
                          "alphabeta:movetime=1e3", "rollout:movetime=3600001",
                          "alphabeta:movetime=200:qs", "random:movetime=100"}) {
    EXPECT_THROW(PlayerSpec::Parse(bad), Error) << bad;
  }
#if VZ_HAVE_TORCH
  spec = PlayerSpec::Parse("net:dir/a.vznet:movetime=100:qs");
  EXPECT_EQ(spec.file, "dir/a.vznet");
  EXPECT_EQ(spec.move_time_ms, 100);
  EXPECT_TRUE(spec.leaf_quiescence);
  spec = PlayerSpec::Parse("net:default");
  EXPECT_EQ(spec.file, "default");
  EXPECT_EQ(spec.value, kDefaultNetSimulations);
  EXPECT_TRUE(PlayerSpec::Parse("net:default:qs").leaf_quiescence);
  EXPECT_EQ(PlayerSpec::Parse("net:default:64").value, 64);
  EXPECT_THROW(PlayerSpec::Parse("net:some.vznet"), Error);
#endif
}

TEST(TimedPlayerTest, AlphaBetaStopsAtTheDeepestCompletedIteration) {
  const GameState<chaco_rex::ChacoRexGame> state;
  AlphaBeta<chaco_rex::ChacoRexGame> reference;
  const AlphaBetaResult one = reference.Search(state, 1);

  AlphaBeta<chaco_rex::ChacoRexGame> search;
  // The start position's first iteration is short (under 1024 nodes: never polled), so it
  // completes; the stop is then seen before the second.
  AlphaBetaResult result = search.Search(state, 3, [] { return true; });
  EXPECT_EQ(result.depth, 1);
  EXPECT_EQ(result.best_move, one.best_move);
  EXPECT_EQ(result.score, one.score);

  search.Clear();
  result = search.Search(state, 3, {});  // no stop test: the full depth
  EXPECT_EQ(result.depth, 3);

  for (int polls : {1, 3, 10, 40}) {
    search.Clear();
    int calls = 0;
    result = search.Search(state, 6, [&] { return ++calls > polls; });
    EXPECT_GE(result.depth, 0) << polls;
    EXPECT_LT(result.depth, 6) << polls;
    EXPECT_TRUE(state.legal_moves().Contains(result.best_move)) << polls;
    // The search goes on after a stop only to unwind: a few nodes, not another iteration.
    EXPECT_GE(calls, polls + 1) << polls;
  }
}

template <Game G>
int64_t MillisecondsOfOneMove(const std::string& spec_text, const GameState<G>& state) {
  const PlayerSpec spec = PlayerSpec::Parse(spec_text);
  auto player = MakePlayer<G>(spec);
  player->NewGame(1);
  const auto start = std::chrono::steady_clock::now();
  const Move move = player->ChooseMove(state);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(state.legal_moves().Contains(move)) << spec_text;
  return std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
}

TEST(TimedPlayerTest, PlayersRespectTheirClock) {
  // Middle games with many moves: depth 64 or a million simulations would take far longer.
  GameState<chaco_rex::ChacoRexGame> state;
  for (int i = 0; i < 6; ++i) state.Play(state.legal_moves()[i % state.legal_moves().size]);
  EXPECT_LE(MillisecondsOfOneMove<chaco_rex::ChacoRexGame>("alphabeta:movetime=60", state),
            60 + kSlackMs);
  EXPECT_LE(MillisecondsOfOneMove<chaco_rex::ChacoRexGame>("rollout:movetime=60", state),
            60 + kSlackMs);
  EXPECT_LE(MillisecondsOfOneMove<chaco_rex::ChacoRexGame>("rollout:movetime=60:qs", state),
            60 + kSlackMs);
  GameState<cuarenta::CuarentaGame> cuarenta;
  EXPECT_LE(MillisecondsOfOneMove<cuarenta::CuarentaGame>("alphabeta:movetime=40", cuarenta),
            40 + kSlackMs);
}

#if VZ_HAVE_TORCH
TEST(TimedPlayerTest, ATimedNetPlayerBatchesLikeTheUciEngine) {
  // Any evaluator serves the net player's search; the spec decides how it batches.
  using G = chaco_rex::ChacoRexGame;
  const auto evaluator = std::make_shared<RolloutEvaluator<G>>(/*seed=*/0);
  auto timed = MakePlayer<G>(PlayerSpec::Parse("net:a.vznet:movetime=60"), evaluator);
  ASSERT_NE(timed->AsSearchPlayer(), nullptr);
  EXPECT_EQ(timed->AsSearchPlayer()->leaves_per_round(), kNetLeavesPerRound);
  auto counted = MakePlayer<G>(PlayerSpec::Parse("net:a.vznet:32"), evaluator);
  EXPECT_EQ(counted->AsSearchPlayer()->leaves_per_round(), 1);
  GameState<G> state;
  timed->NewGame(1);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(state.legal_moves().Contains(timed->ChooseMove(state)));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LE(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count(), 60 + kSlackMs);
  // The search really handed out several leaves a round: more positions than evaluator calls.
  const SearchDriverStats& stats = timed->AsSearchPlayer()->lone_stats();
  EXPECT_GT(stats.evaluated, stats.evaluator_calls);
  EXPECT_EQ(timed->AsSearchPlayer()->lone_moves(), 1);
}
#endif

TEST(TimedPlayerTest, AMatchOfTimedPlayersPlaysWholeGames) {
  MatchConfig config;
  config.player1 = "alphabeta:movetime=5";
  config.player2 = "rollout:movetime=5";
  config.games = 4;
  config.concurrency = 2;
  config.max_plies = 40;
  config.openings = "random:2";
  const MatchSummary summary = RunMatch("chad", config);
  EXPECT_EQ(summary.wins + summary.draws + summary.losses, 4);
  // The timed MCTS player's searches are counted (the alpha-beta player has none).
  EXPECT_EQ(summary.searched_moves[0], 0);
  EXPECT_GT(summary.searched_moves[1], 0);
  EXPECT_GE(summary.evaluated[1], summary.searched_moves[1]);
  EXPECT_NE(summary.Report(config).find("per move"), std::string::npos);
}

}  // namespace
}  // namespace vz
