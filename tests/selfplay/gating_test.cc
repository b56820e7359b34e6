// Gating modes (selfplay/gating.h) with cheap players instead of nets: the SPRT promotes a clearly
// stronger candidate and rejects an equal one within the game limit, the threshold mode promotes
// by the score, mode "none" promotes without a match; the match of each mode.

#include "selfplay/gating.h"

#include <gtest/gtest.h>

#include <string>

#include "arena/match.h"
#include "selfplay/train_config.h"

namespace vz {
namespace {

constexpr const char* kVariant = "portuguese-draughts";

// The draughts demo preset in `mode`, with an SPRT that tells 150 Elo from 0 and a limit of
// 200 games, 8 in flight.
proto::TrainConfig Config(const std::string& mode) {
  proto::TrainConfig config = PresetTrainConfig(kVariant, "demo");
  proto::GatingConfig& g = *config.mutable_gating();
  g.set_mode(mode);
  g.set_games(200);
  g.set_concurrent_games(8);
  g.set_opening_plies(4);
  g.mutable_sprt()->set_elo0(0);
  g.mutable_sprt()->set_elo1(150);
  g.mutable_sprt()->set_alpha(0.05f);
  g.mutable_sprt()->set_beta(0.05f);
  ValidateTrainConfig(config);
  return config;
}

MatchSummary Gate(const proto::TrainConfig& config, const std::string& candidate,
                  const std::string& best) {
  return RunMatch(kVariant, GatingMatchConfig(config, candidate, best, config.seed() + 6));
}

int64_t Games(const MatchSummary& summary) { return summary.wins + summary.draws + summary.losses; }

TEST(GatingTest, SprtPromotesAClearlyStrongerCandidate) {
  const proto::TrainConfig config = Config("sprt");
  const MatchSummary summary = Gate(config, "alphabeta:2", "random");
  const GatingVerdict verdict = JudgeGating(config.gating(), summary);
  EXPECT_TRUE(verdict.promote) << verdict.reason;
  EXPECT_EQ(summary.verdict, SprtVerdict::kAcceptH1);
  EXPECT_NE(verdict.reason.find("SPRT accepted H1"), std::string::npos) << verdict.reason;
  // Stopped early: the decision plus at most the games in flight.
  EXPECT_LT(Games(summary), 200);
  const SprtParams params{0, 150, 0.05, 0.05};
  EXPECT_GE(*summary.llr, params.UpperBound());
}

TEST(GatingTest, SprtRejectsAnEqualCandidateWithinTheLimit) {
  const proto::TrainConfig config = Config("sprt");
  const MatchSummary summary = Gate(config, "random", "random");
  const GatingVerdict verdict = JudgeGating(config.gating(), summary);
  EXPECT_FALSE(verdict.promote) << verdict.reason;
  // The test decides (H0) well before the limit.
  EXPECT_EQ(summary.verdict, SprtVerdict::kAcceptH0) << verdict.reason;
  EXPECT_LT(Games(summary), 200);
  EXPECT_NE(verdict.reason.find("SPRT accepted H0"), std::string::npos) << verdict.reason;
}

TEST(GatingTest, SprtGameLimitKeepsTheBest) {
  // Two games cannot decide a test of 5 Elo: undecided at the limit is a rejection.
  proto::TrainConfig config = Config("sprt");
  config.mutable_gating()->set_games(2);
  config.mutable_gating()->mutable_sprt()->set_elo1(5);
  const MatchSummary summary = Gate(config, "alphabeta:2", "random");
  EXPECT_EQ(summary.verdict, SprtVerdict::kContinue);
  const GatingVerdict verdict = JudgeGating(config.gating(), summary);
  EXPECT_FALSE(verdict.promote);
  EXPECT_NE(verdict.reason.find("undecided after 2 games"), std::string::npos) << verdict.reason;
}

TEST(GatingTest, ThresholdPromotesByTheScore) {
  proto::TrainConfig config = Config("threshold");
  config.mutable_gating()->set_games(8);
  const MatchConfig match = GatingMatchConfig(config, "alphabeta:2", "random", 1);
  EXPECT_FALSE(match.sprt.has_value());
  EXPECT_EQ(match.games, 8);
  const MatchSummary stronger = Gate(config, "alphabeta:2", "random");
  EXPECT_EQ(Games(stronger), 8);
  EXPECT_TRUE(JudgeGating(config.gating(), stronger).promote);
  const MatchSummary weaker = Gate(config, "random", "alphabeta:2");
  const GatingVerdict verdict = JudgeGating(config.gating(), weaker);
  EXPECT_FALSE(verdict.promote);
  EXPECT_NE(verdict.reason.find("< threshold 0.55"), std::string::npos) << verdict.reason;
}

TEST(GatingTest, NoGatingPromotesEveryCandidate) {
  const proto::TrainConfig config = Config("none");
  EXPECT_TRUE(JudgeGating(config.gating(), MatchSummary{}).promote);
  // The legacy switch off is the same mode.
  proto::GatingConfig legacy;
  legacy.set_enabled(false);
  EXPECT_EQ(EffectiveGatingMode(legacy), GatingMode::kNone);
  EXPECT_TRUE(JudgeGating(legacy, MatchSummary{}).promote);
}

TEST(GatingTest, MatchOfEachMode) {
  const MatchConfig sprt = GatingMatchConfig(Config("sprt"), "a", "b", 7);
  ASSERT_TRUE(sprt.sprt.has_value());
  EXPECT_EQ(sprt.sprt->elo1, 150);
  EXPECT_EQ(sprt.concurrency, 8);
  EXPECT_EQ(sprt.player1, "a");
  EXPECT_EQ(sprt.player2, "b");
  EXPECT_EQ(sprt.openings, "random:4");
  EXPECT_EQ(sprt.seed, 7u);
  proto::TrainConfig all = Config("threshold");
  all.mutable_gating()->set_concurrent_games(0);
  EXPECT_EQ(GatingMatchConfig(all, "a", "b", 7).concurrency, 200);  // all in flight
  all.mutable_gating()->set_concurrent_games(5);                    // rounded up to whole pairs
  EXPECT_EQ(GatingMatchConfig(all, "a", "b", 7).concurrency, 6);
}

}  // namespace
}  // namespace vz
