// Strength checks against fixed opponents (selfplay/strength.h): the schedule (a check every N
// checkpoints of the net self-play uses), the match of a check, and the metrics line.

#include "selfplay/strength.h"

#include <gtest/gtest.h>

#include <string>

#include "arena/stats.h"
#include "selfplay/train_config.h"
#include "tests/test_util.h"

namespace vz {
namespace {

TEST(StrengthTest, ACheckEveryNCheckpoints) {
  // Checkpoints every 250 steps, a check every 4 of them.
  const auto due = [](int64_t step, int64_t last) { return StrengthCheckDue(step, last, 250, 4); };
  EXPECT_TRUE(due(0, -1));  // the first net of a run (the initial net)
  EXPECT_TRUE(due(750, -1));
  EXPECT_FALSE(due(250, 0));
  EXPECT_FALSE(due(750, 0));
  EXPECT_TRUE(due(1000, 0));
  EXPECT_TRUE(due(1750, 0));  // a busy gate measures the newest net
  EXPECT_FALSE(due(1000, 1000));
  EXPECT_FALSE(due(900, 1000));
  EXPECT_FALSE(due(1999, 1000));
  EXPECT_TRUE(due(2000, 1000));
  // Every checkpoint: each new checkpoint's net.
  EXPECT_TRUE(StrengthCheckDue(500, 250, 250, 1));
  EXPECT_FALSE(StrengthCheckDue(499, 250, 250, 1));
  // 0: never.
  EXPECT_FALSE(StrengthCheckDue(0, -1, 250, 0));
  EXPECT_FALSE(StrengthCheckDue(100000, 0, 250, 0));
  EXPECT_NE(testing::ErrorOf([] { StrengthCheckDue(0, -1, 0, 1); }).find("checkpoint_every"),
            std::string::npos);
}

TEST(StrengthTest, EveryCheckPlaysTheSameOpenings) {
  const proto::TrainConfig config = PresetTrainConfig("portuguese-draughts", "demo");
  const proto::StrengthConfig& s = config.strength();
  ASSERT_EQ(s.opponents_size(), 3);
  const MatchConfig first = StrengthMatchConfig(config, "runs/x/nets/best-0001.vznet", 1);
  // The preset measures its net with leaf quiescence (evaluation.leaf_quiescence).
  ASSERT_TRUE(config.evaluation().leaf_quiescence());
  EXPECT_EQ(first.player1,
            "net:runs/x/nets/best-0001.vznet:" + std::to_string(s.simulations()) + ":qs");
  proto::TrainConfig plain = config;
  plain.mutable_evaluation()->set_leaf_quiescence(false);
  EXPECT_EQ(StrengthMatchConfig(plain, "runs/x/nets/best-0001.vznet", 1).player1,
            "net:runs/x/nets/best-0001.vznet:" + std::to_string(s.simulations()));
  EXPECT_EQ(first.player2, s.opponents(1));
  EXPECT_EQ(first.games, int(s.games()));
  EXPECT_EQ(first.openings, "random:" + std::to_string(s.opening_plies()));
  EXPECT_EQ(first.max_plies, int(config.selfplay().max_plies()));
  const MatchConfig later = StrengthMatchConfig(config, "runs/x/nets/best-0009.vznet", 1);
  EXPECT_EQ(later.seed, first.seed);
  EXPECT_NE(StrengthMatchConfig(config, "n", 0).seed, first.seed);
  EXPECT_NE(testing::ErrorOf([&] { StrengthMatchConfig(config, "n", 3); }).find("opponent 3 of 3"),
            std::string::npos);
}

// A summary of 4 pairs: 2 + 1.5 + 1.5 + 1 points for player 1 (W 4 D 2 L 2).
MatchSummary FourPairs() {
  MatchSummary summary;
  summary.wins = 4;
  summary.draws = 2;
  summary.losses = 2;
  summary.adjudicated = 1;
  for (int half_points : {4, 3, 3, 2}) summary.pentanomial.AddPair(half_points);
  summary.elo = EstimateElo(summary.pentanomial);
  return summary;
}

TEST(StrengthTest, MetricsRecordHoldsWhereTheRunStoodAndTheResult) {
  StrengthPoint point;
  point.net_id = "best-0004";
  point.step = 1000;
  point.selfplay_games = 320;
  point.selfplay_positions = 25000;
  point.wall_seconds = 185.5;
  const MatchSummary summary = FourPairs();
  const nlohmann::json record =
      StrengthRecord(point, "alphabeta:2", 32, summary, 12.25, "2026-01-01T00:00:00Z");
  EXPECT_EQ(record["type"], "strength");
  EXPECT_EQ(record["time"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(record["net"], "best-0004");
  EXPECT_EQ(record["step"], 1000);
  EXPECT_EQ(record["selfplay_games"], 320);
  EXPECT_EQ(record["selfplay_positions"], 25000);
  EXPECT_DOUBLE_EQ(record["wall_seconds"].get<double>(), 185.5);
  EXPECT_EQ(record["opponent"], "alphabeta:2");
  EXPECT_EQ(record["simulations"], 32);
  EXPECT_DOUBLE_EQ(record["seconds"].get<double>(), 12.25);
  EXPECT_EQ(record["games"], 8);
  EXPECT_EQ(record["wins"], 4);
  EXPECT_EQ(record["draws"], 2);
  EXPECT_EQ(record["losses"], 2);
  EXPECT_EQ(record["adjudicated"], 1);
  EXPECT_DOUBLE_EQ(record["score"].get<double>(), 0.625);
  // The Elo and 95% interval of arena/stats.h.
  EXPECT_DOUBLE_EQ(record["elo"].get<double>(), summary.elo.elo);
  EXPECT_GT(record["elo"].get<double>(), 0);
  EXPECT_TRUE(record["elo_interval_defined"].get<bool>());
  EXPECT_LT(record["elo_low"].get<double>(), record["elo"].get<double>());
  EXPECT_GT(record["elo_high"].get<double>(), record["elo"].get<double>());
  EXPECT_FALSE(record.contains("llr"));  // no SPRT
}

TEST(StrengthTest, ResultFieldsCarryTheSprt) {
  // With an SPRT the fields carry its ratio and verdict.
  MatchSummary tested = FourPairs();
  tested.llr = 1.5;
  const nlohmann::json fields = MatchResultFields(tested);
  EXPECT_DOUBLE_EQ(fields["llr"].get<double>(), 1.5);
  EXPECT_EQ(fields["sprt"], "continue");
}

}  // namespace
}  // namespace vz
