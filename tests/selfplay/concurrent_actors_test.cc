#include "selfplay/concurrent_actors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "engine/draughts/game.h"
#include "engine/search/uniform_evaluator.h"
#include "selfplay/train_config.h"

namespace vz {
namespace {

using draughts::DraughtsGame;

// The draughts demo's actors, made cheap: 8 simulations, games cut at 30 plies (a draw).
proto::SelfPlayConfig CheapConfig(uint32_t games) {
  proto::SelfPlayConfig config = PresetTrainConfig("portuguese-draughts", "demo").selfplay();
  config.set_concurrent_games(games);
  config.set_simulations(8);
  config.set_gumbel_max_considered(4);
  config.set_max_plies(30);
  config.set_adjudication(proto::DRAW);
  return config;
}

// Plays rounds until at least `games` games finished; returns them.
std::vector<proto::GameRecord> PlayGames(ConcurrentActors<DraughtsGame>& actors,
                                         std::vector<Evaluator<DraughtsGame>*> evaluators,
                                         size_t games) {
  std::vector<proto::GameRecord> finished;
  for (int round = 0; finished.size() < games && round < 100000; ++round) {
    actors.RunRound(evaluators, finished);
  }
  return finished;
}

TEST(ConcurrentActors, GroupsPlayInterleavedGameNumbersWithoutLosingOrRepeatingOne) {
  ConcurrentActors<DraughtsGame> actors(CheapConfig(6), 7, 100, "w", 0, 2);
  ASSERT_EQ(actors.groups(), 2);
  EXPECT_EQ(actors.concurrent_games(), 6);
  UniformEvaluator<DraughtsGame> a, b;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<proto::GameRecord> finished = PlayGames(actors, {&a, &b}, 24);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_GE(finished.size(), 24u);
  std::set<uint64_t> indices;
  int64_t positions = 0;
  for (const proto::GameRecord& record : finished) {
    EXPECT_GE(record.index(), 100u);
    EXPECT_EQ(record.worker(), "w");
    indices.insert(record.index());
    for (const proto::MoveRecord& move : record.moves()) positions += move.has_target();
  }
  EXPECT_EQ(indices.size(), finished.size()) << "a game number was used twice";
  // Both groups finished games: even and odd numbers (first 100, stride 2).
  EXPECT_TRUE(std::any_of(indices.begin(), indices.end(), [](uint64_t i) { return i % 2 == 0; }));
  EXPECT_TRUE(std::any_of(indices.begin(), indices.end(), [](uint64_t i) { return i % 2 == 1; }));
  const ActorStats stats = actors.stats();
  EXPECT_EQ(stats.games, int64_t(finished.size()));
  EXPECT_EQ(stats.positions, positions);
  EXPECT_EQ(stats.white_wins + stats.draws + stats.black_wins, stats.games);
  EXPECT_GT(stats.rounds, 0);
  // The phases and the waits are thread-seconds of the two groups: within twice the wall time.
  EXPECT_GE(stats.wait_seconds, 0.0);
  EXPECT_LE(
      stats.gather_seconds + stats.evaluate_seconds + stats.apply_seconds + stats.wait_seconds,
      2.0 * elapsed + 1e-3);
}

TEST(ConcurrentActors, AGameIsTheSameWhicheverGroupCountPlaysIt) {
  // Game k's random choices depend on the seed and k alone, and the uniform evaluator's results
  // do not depend on the batch: one group and three groups play game 0 alike.
  auto first_game = [](int groups) {
    ConcurrentActors<DraughtsGame> actors(CheapConfig(3), 11, 0, "w", 0, groups);
    std::vector<UniformEvaluator<DraughtsGame>> evaluators(size_t(actors.groups()));
    std::vector<Evaluator<DraughtsGame>*> pointers;
    for (auto& e : evaluators) pointers.push_back(&e);
    for (const proto::GameRecord& record : PlayGames(actors, pointers, 6)) {
      if (record.index() == 0) return record.SerializeAsString();
    }
    return std::string();
  };
  const std::string alone = first_game(1);
  ASSERT_FALSE(alone.empty());
  EXPECT_EQ(first_game(3), alone);
}

TEST(ConcurrentActors, GroupsAreCappedByTheGamesAndCountsAreChecked) {
  EXPECT_EQ(ConcurrentActors<DraughtsGame>(CheapConfig(3), 1, 0, "w", 0, 5).groups(), 3);
  EXPECT_THROW(ConcurrentActors<DraughtsGame>(CheapConfig(3), 1, 0, "w", 0, 0), Error);
  ConcurrentActors<DraughtsGame> actors(CheapConfig(4), 1, 0, "w", 0, 2);
  UniformEvaluator<DraughtsGame> one;
  std::vector<proto::GameRecord> finished;
  std::vector<Evaluator<DraughtsGame>*> too_few = {&one};
  EXPECT_THROW(actors.RunRound(too_few, finished), Error);
}

TEST(ConcurrentActors, AnEvaluatorFailureReachesTheCaller) {
  struct Failing final : Evaluator<DraughtsGame> {
    void Evaluate(EvalBatch<DraughtsGame>&) override { throw std::runtime_error("net gone"); }
  };
  ConcurrentActors<DraughtsGame> actors(CheapConfig(4), 1, 0, "w", 0, 2);
  UniformEvaluator<DraughtsGame> fine;
  Failing failing;
  std::vector<proto::GameRecord> finished;
  std::vector<Evaluator<DraughtsGame>*> evaluators = {&fine, &failing};
  EXPECT_THROW(actors.RunRound(evaluators, finished), std::runtime_error);
}

TEST(ActorGroupCount, ExplicitCountsAreCappedAndAutoKeepsEightGamesAGroup) {
  proto::SelfPlayConfig config = CheapConfig(64);
  config.set_actor_threads(3);
  EXPECT_EQ(ActorGroupCount(config), 3);
  config.set_concurrent_games(2);
  EXPECT_EQ(ActorGroupCount(config), 2);
  config.set_actor_threads(0);
  config.set_concurrent_games(8);
  EXPECT_EQ(ActorGroupCount(config), 1);  // auto: at most one group per 8 games
  config.set_concurrent_games(10000);
  EXPECT_EQ(ActorGroupCount(config), int(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace
}  // namespace vz
