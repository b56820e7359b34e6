// The warm start from alpha-beta data (selfplay/warm_start.h): what a game's record holds, that
// the trainer's replay window accepts it, the chunks a run gets, resuming, and the config keys.

#include "selfplay/warm_start.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/games.h"
#include "records/game_record.h"
#include "selfplay/replay_window.h"
#include "selfplay/run_dir.h"
#include "selfplay/train_config.h"
#include "tests/test_util.h"

namespace vz {
namespace {

using testing::ErrorOf;
using Draughts = draughts::DraughtsGame;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

proto::TrainConfig WarmConfig(int games) {
  proto::TrainConfig config = PresetTrainConfig("portuguese-draughts", "demo");
  config.mutable_warm_start()->set_player("alphabeta:1");
  config.mutable_warm_start()->set_games(uint32_t(games));
  config.mutable_warm_start()->set_random_opening_plies(3);
  config.mutable_selfplay()->set_max_plies(40);
  config.mutable_selfplay()->set_games_per_chunk(2);
  return config;
}

TEST(WarmStartTest, ScoreValueIsTanhOfTheScoreAndOneForAMate) {
  EXPECT_EQ(ScoreValue(0, 400), 0.0f);
  EXPECT_NEAR(ScoreValue(100, 400), std::tanh(0.25f), 1e-6f);
  EXPECT_NEAR(ScoreValue(-900, 400), -std::tanh(2.25f), 1e-6f);
  EXPECT_EQ(ScoreValue(kMateScore - 3, 400), 1.0f);
  EXPECT_EQ(ScoreValue(-(kMateScore - 8), 400), -1.0f);
  EXPECT_LT(ScoreValue(kMateBound, 400), 1.0f + 1e-6f);
}

TEST(WarmStartTest, GameRecordsTheSearchedMovesAndScores) {
  const proto::TrainConfig config = WarmConfig(1);
  AlphaBeta<Draughts> search;
  const proto::GameRecord record = PlayWarmStartGame<Draughts>(config, search, 2, 77, 5);
  EXPECT_EQ(record.game(), "portuguese-draughts");
  EXPECT_EQ(record.worker(), kWarmStartWorker);
  EXPECT_EQ(record.index(), 5u);
  ASSERT_GT(record.moves_size(), 3);
  EXPECT_LE(record.moves_size(), 40);
  GameState<Draughts> game;
  for (int ply = 0; ply < record.moves_size(); ++ply) {
    const proto::MoveRecord& move = record.moves(ply);
    SCOPED_TRACE(ply);
    EXPECT_EQ(move.has_target(), ply >= 3);  // the random opening plies carry no target
    if (move.has_target()) {
      const Move played = Draughts::ParseMove(game.position(), move.move());
      ASSERT_EQ(move.policy_index_size(), 1);
      EXPECT_EQ(move.policy_index(0), uint32_t(Draughts::ActionIndex(game.position(), played)));
      EXPECT_EQ(move.policy_target(0), 1.0f);
      ASSERT_EQ(move.root_wdl_size(), 3);
      EXPECT_EQ(move.root_wdl(1), 0.0f);  // no draw share
      EXPECT_NEAR(move.root_wdl(0) - move.root_wdl(2), move.raw_value(), 1e-6f);
      EXPECT_NEAR(move.root_wdl(0) + move.root_wdl(2), 1.0f, 1e-6f);
    }
    game.Play(move.move());
  }
  // A game ends by the rules or is adjudicated at max_plies, and the result says which.
  if (game.outcome().IsTerminal()) {
    EXPECT_FALSE(record.adjudicated());
    const int expected = game.outcome().status == Status::kWhiteWins   ? 1
                         : game.outcome().status == Status::kBlackWins ? -1
                                                                       : 0;
    EXPECT_EQ(record.result(), expected);
  } else {
    EXPECT_TRUE(record.adjudicated());
    EXPECT_EQ(record.moves_size(), 40);
  }
  // The trainer's replay window reads it like a self-play record.
  ReplayWindow<Draughts> window(10, ReplayTargets(AdjudicatedValue::kResult, 0.5f));
  EXPECT_EQ(ErrorOf([&] { window.AddGame(record, "warm"); }), "");
  EXPECT_EQ(window.num_positions(), record.moves_size() - 3);
  // The same seed plays the same game; another seed another opening.
  AlphaBeta<Draughts> again;
  EXPECT_EQ(PlayWarmStartGame<Draughts>(config, again, 2, 77, 5).SerializeAsString(),
            record.SerializeAsString());
  EXPECT_NE(PlayWarmStartGame<Draughts>(config, again, 2, 78, 5).SerializeAsString(),
            record.SerializeAsString());
}

class WarmStartRunTest : public testing::TempDirTest {};

TEST_F(WarmStartRunTest, WritesItsChunksOnceAndReplaysOnlyTheMissing) {
  const proto::TrainConfig config = WarmConfig(5);  // 3 chunks: 2 + 2 + 1 games
  std::filesystem::create_directories(dir_ / "records");
  RunLog log(File("train.log"), /*live=*/false);
  std::atomic<bool> stop{false};
  const WarmStartOutcome first = RunWarmStart(config, dir_.string(), 2, log, stop);
  EXPECT_EQ(first.games, 5);
  EXPECT_EQ(first.kept_chunks, 0);
  EXPECT_FALSE(first.interrupted);
  const std::vector<std::string> chunks = ListRecordChunks(File("records"));
  ASSERT_EQ(chunks.size(), 3u);
  int64_t positions = 0;
  std::vector<std::string> games;
  for (const std::string& path : chunks) {
    const auto id = ParseRecordChunkName(std::filesystem::path(path).filename().string());
    ASSERT_TRUE(id.has_value());
    EXPECT_EQ(id->worker, kWarmStartWorker);
    for (const proto::GameRecord& record : ReadRecordChunk(path)) {
      EXPECT_EQ(record.config_hash(), TrainConfigHash(config));
      for (const proto::MoveRecord& move : record.moves()) positions += move.has_target();
      games.push_back(record.SerializeAsString());
    }
  }
  EXPECT_EQ(positions, first.positions);
  EXPECT_EQ(games.size(), 5u);

  // A second session keeps every chunk.
  const WarmStartOutcome second = RunWarmStart(config, dir_.string(), 2, log, stop);
  EXPECT_EQ(second.games, 0);
  EXPECT_EQ(second.kept_chunks, 3);
  // A lost chunk is played again, the same games as before.
  std::filesystem::remove(chunks[1]);
  const WarmStartOutcome third = RunWarmStart(config, dir_.string(), 1, log, stop);
  EXPECT_EQ(third.games, 2);
  EXPECT_EQ(third.kept_chunks, 2);
  std::vector<std::string> replayed;
  for (const proto::GameRecord& record : ReadRecordChunk(chunks[1]))
    replayed.push_back(record.SerializeAsString());
  ASSERT_EQ(replayed.size(), 2u);
  EXPECT_EQ(replayed[0], games[2]);
  EXPECT_EQ(replayed[1], games[3]);

  // A raised stop writes nothing more; no player, no games.
  std::filesystem::remove(chunks[0]);
  stop = true;
  EXPECT_TRUE(RunWarmStart(config, dir_.string(), 2, log, stop).interrupted);
  EXPECT_FALSE(std::filesystem::exists(chunks[0]));
  stop = false;
  proto::TrainConfig none = config;
  none.mutable_warm_start()->clear_player();
  EXPECT_EQ(RunWarmStart(none, dir_.string(), 2, log, stop).games, 0);
  EXPECT_FALSE(std::filesystem::exists(chunks[0]));
}

TEST(WarmStartTest, ConfigKeysAreChecked) {
  proto::TrainConfig config = WarmConfig(4);
  EXPECT_EQ(ErrorOf([&] { ValidateTrainConfig(config); }), "");
  for (const char* player : {"rollout:5", "alphabeta:9", "alphabeta", "random"}) {
    config.mutable_warm_start()->set_player(player);
    const std::string error = ErrorOf([&] { ValidateTrainConfig(config); });
    EXPECT_TRUE(Contains(error, "config key warm_start.player")) << player << ": " << error;
  }
  config = WarmConfig(0);
  EXPECT_TRUE(Contains(ErrorOf([&] { ValidateTrainConfig(config); }), "warm_start.games"));
  config = WarmConfig(4);
  config.mutable_warm_start()->set_random_opening_plies(40);  // not below max_plies
  EXPECT_TRUE(
      Contains(ErrorOf([&] { ValidateTrainConfig(config); }), "warm_start.random_opening_plies"));
  config = WarmConfig(4);
  config.mutable_warm_start()->set_score_scale(-1);
  EXPECT_TRUE(Contains(ErrorOf([&] { ValidateTrainConfig(config); }), "warm_start.score_scale"));
  // What the nets of a run say they were taught.
  EXPECT_EQ(TrainingKnowledge(WarmConfig(4), ""), "warm-started: alphabeta:1, 4 games");
  proto::TrainConfig zero = WarmConfig(4);
  zero.clear_warm_start();
  EXPECT_EQ(TrainingKnowledge(zero, ""), "zero-knowledge");
  EXPECT_EQ(TrainingKnowledge(zero, "zero-knowledge"), "zero-knowledge");
  EXPECT_EQ(TrainingKnowledge(zero, "warm-started: alphabeta:3, 9 games"),
            "warm-started: alphabeta:3, 9 games");
  zero.mutable_selfplay()->set_leaf_quiescence(true);
  EXPECT_EQ(TrainingKnowledge(zero, ""), "self-play with leaf quiescence");
  // Both, and a continuation (--init-net) keeps what its initial net was taught.
  proto::TrainConfig both = WarmConfig(4);
  both.mutable_selfplay()->set_leaf_quiescence(true);
  const std::string both_knowledge =
      "warm-started: alphabeta:1, 4 games; self-play with leaf quiescence";
  EXPECT_EQ(TrainingKnowledge(both, ""), both_knowledge);
  EXPECT_EQ(TrainingKnowledge(both, both_knowledge), both_knowledge);
  EXPECT_EQ(TrainingKnowledge(zero, "warm-started: alphabeta:3, 9 games"),
            "warm-started: alphabeta:3, 9 games; self-play with leaf quiescence");
  zero.mutable_selfplay()->set_leaf_quiescence(false);
  EXPECT_EQ(TrainingKnowledge(zero, both_knowledge), both_knowledge);
  EXPECT_EQ(TrainingKnowledge(zero, "self-play with leaf quiescence"),
            "self-play with leaf quiescence");
  // A second warm start keeps the first.
  EXPECT_EQ(TrainingKnowledge(WarmConfig(4), "warm-started: alphabeta:2, 1500 games"),
            "warm-started: alphabeta:2, 1500 games; warm-started: alphabeta:1, 4 games");
  const proto::TrainConfig demo = PresetTrainConfig("chaco-rex", "demo");
  EXPECT_EQ(TrainingKnowledge(demo, ""),
            "warm-started: alphabeta:2, 600 games; self-play with leaf quiescence");
  // The draughts presets measure a player with leaf quiescence, but their nets are taught nothing.
  for (const char* preset : {"demo", "long"}) {
    const proto::TrainConfig draughts = PresetTrainConfig("portuguese-draughts", preset);
    EXPECT_TRUE(draughts.evaluation().leaf_quiescence()) << preset;
    EXPECT_EQ(TrainingKnowledge(draughts, ""), "zero-knowledge") << preset;
  }
}

}  // namespace
}  // namespace vz
