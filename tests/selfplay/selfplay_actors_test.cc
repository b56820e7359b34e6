// The self-play actors (selfplay/selfplay_actors.h) with the uniform evaluator on Portuguese
// draughts, whose mandatory captures make single legal moves common: forced moves are played
// unsearched and kept out of the targets when so configured, and playout cap randomisation
// records a target for about full_search_fraction of the searched moves; resign-disabled games
// calibrate the resignation threshold when so configured.

#include "selfplay/selfplay_actors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/draughts/game.h"
#include "engine/search/uniform_evaluator.h"
#include "selfplay/train_config.h"
#include "tests/engine/search/test_evaluators.h"

namespace vz {
namespace {

using G = draughts::DraughtsGame;

// The draughts demo's self-play section, made small: 8 games in flight, 8 simulations, games
// cut at 60 plies, no resignation.
proto::SelfPlayConfig SmallConfig() {
  proto::TrainConfig config = PresetTrainConfig("portuguese-draughts", "demo");
  proto::SelfPlayConfig& s = *config.mutable_selfplay();
  s.set_concurrent_games(8);
  s.set_simulations(8);
  s.set_gumbel_max_considered(4);
  s.set_max_plies(60);
  s.set_resign_threshold(0);
  s.set_resign_consecutive_plies(0);
  s.set_resign_false_rate_target(0);
  s.set_forced_moves_unsearched(false);
  s.set_cheap_simulations(0);
  s.set_full_search_fraction(1);
  ValidateTrainConfig(config);
  return s;
}

// At least `games` finished games of actors seeded with `seed`.
template <class E = UniformEvaluator<G>>
std::vector<proto::GameRecord> Play(const proto::SelfPlayConfig& config, int games,
                                    ActorStats* stats = nullptr, uint64_t seed = 7) {
  SelfPlayActors<G> actors(config, seed, 0, "test", 1);
  E evaluator;
  std::vector<proto::GameRecord> finished;
  while (int(finished.size()) < games) actors.RunRound(evaluator, finished);
  if (stats != nullptr) *stats = actors.stats();
  return finished;
}

// Per move of `record`: the number of legal moves before it.
std::vector<int> LegalCounts(const proto::GameRecord& record) {
  GameState<G> game(record.start_fen().empty() ? G::InitialPosition()
                                               : G::ParsePosition(record.start_fen()));
  std::vector<int> counts;
  for (const proto::MoveRecord& move : record.moves()) {
    counts.push_back(game.legal_moves().size);
    game.Play(move.move());
  }
  return counts;
}

TEST(SelfPlayActorsTest, ForcedMovesArePlayedUnsearchedWithoutTarget) {
  proto::SelfPlayConfig config = SmallConfig();
  for (bool unsearched : {false, true}) {
    config.set_forced_moves_unsearched(unsearched);
    ActorStats stats;
    int forced = 0, searched = 0;
    for (const proto::GameRecord& record : Play(config, 16, &stats)) {
      const std::vector<int> legal = LegalCounts(record);
      for (int ply = int(config.random_opening_plies()); ply < record.moves_size(); ++ply) {
        const proto::MoveRecord& move = record.moves(ply);
        if (legal[size_t(ply)] == 1) {
          ++forced;
          // Unsearched: no target, no search value; searched: a target on its one move.
          EXPECT_EQ(move.has_target(), !unsearched) << "ply " << ply;
          EXPECT_EQ(move.root_wdl_size(), unsearched ? 0 : 3) << "ply " << ply;
          if (!unsearched) {
            EXPECT_EQ(move.policy_index_size(), 1);
          }
        } else {
          ++searched;
          EXPECT_TRUE(move.has_target()) << "ply " << ply;
        }
      }
    }
    EXPECT_GT(forced, 20) << "draughts games of 60 plies have forced captures";
    EXPECT_GT(searched, forced);
    EXPECT_EQ(stats.forced_moves, unsearched ? forced : 0);
  }
}

TEST(SelfPlayActorsTest, PlayoutCapRecordsTargetsForTheFullFraction) {
  proto::SelfPlayConfig config = SmallConfig();
  config.set_forced_moves_unsearched(true);
  config.set_cheap_simulations(2);
  config.set_full_search_fraction(0.25f);
  ActorStats stats;
  int64_t searched = 0, targets = 0, forced = 0;
  for (const proto::GameRecord& record : Play(config, 40, &stats)) {
    const std::vector<int> legal = LegalCounts(record);
    for (int ply = int(config.random_opening_plies()); ply < record.moves_size(); ++ply) {
      const proto::MoveRecord& move = record.moves(ply);
      if (legal[size_t(ply)] == 1) {
        ++forced;
        EXPECT_FALSE(move.has_target());
        continue;
      }
      ++searched;
      targets += move.has_target();
      // A cheap move is played with its search value but no policy target.
      EXPECT_EQ(move.root_wdl_size(), 3);
      EXPECT_EQ(move.policy_index_size() > 0, move.has_target());
    }
  }
  ASSERT_GT(searched, 1000);
  // Bernoulli(0.25) per searched move: 5 standard deviations.
  const double fraction = double(targets) / double(searched);
  const double bound = 5 * std::sqrt(0.25 * 0.75 / double(searched));
  EXPECT_NEAR(fraction, 0.25, bound) << targets << " of " << searched;
  EXPECT_EQ(stats.forced_moves, forced);
  EXPECT_EQ(stats.cheap_moves, searched - targets);
  EXPECT_EQ(stats.positions, targets);

  // Fraction 1 (or cheap_simulations 0): every searched move is a target.
  config.set_full_search_fraction(1);
  for (const proto::GameRecord& record : Play(config, 4)) {
    const std::vector<int> legal = LegalCounts(record);
    for (int ply = int(config.random_opening_plies()); ply < record.moves_size(); ++ply) {
      EXPECT_EQ(record.moves(ply).has_target(), legal[size_t(ply)] > 1);
    }
  }
}

// Values that are pseudo-random per position make winners dip below a resignation threshold of
// 0.3 often; played to the end (every game resign-disabled), the games pull the threshold down
// to what keeps false resignations at 5%. Without calibration it stays.
TEST(SelfPlayActorsTest, ResignDisabledGamesCalibrateTheThreshold) {
  proto::SelfPlayConfig config = SmallConfig();
  config.set_forced_moves_unsearched(true);
  config.set_resign_threshold(0.3f);
  config.set_resign_consecutive_plies(1);
  config.set_resign_disabled_fraction(1);
  ActorStats stats;
  const auto records = Play<search_testing::HashEvaluator<G>>(config, 24, &stats);
  EXPECT_FLOAT_EQ(stats.resign_threshold, 0.3f);
  // More than 5% of the 24 games would have resigned wrongly at 0.3. The games are the same with
  // calibration (resign-disabled games play on), so it must lower the threshold.
  EXPECT_GT(double(stats.false_resignations), 0.05 * 24);
  config.set_resign_false_rate_target(0.05f);
  Play<search_testing::HashEvaluator<G>>(config, 24, &stats);
  EXPECT_LT(stats.resign_threshold, 0.3f);
  EXPECT_GE(stats.resign_threshold, 0.0f);
  for (const proto::GameRecord& record : records) EXPECT_FALSE(record.resigned());
}

}  // namespace
}  // namespace vz
