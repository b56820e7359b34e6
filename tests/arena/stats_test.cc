#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "engine/core/zobrist.h"
#include "arena/stats.h"

namespace vz {
namespace {

TEST(SelfplayStatsTest, EloScoreRoundTrip) {
  EXPECT_NEAR(ScoreFromElo(0.0), 0.5, 1e-12);
  EXPECT_NEAR(EloFromScore(0.75), 400.0 * std::log10(3.0), 1e-9);
  EXPECT_NEAR(EloFromScore(ScoreFromElo(-123.0)), -123.0, 1e-9);
  EXPECT_TRUE(std::isfinite(EloFromScore(1.0)));
}

// Hand-computed: pairs scoring 1/4, 1/2, 1/2, 3/4 per game: mean 1/2, pair variance
// (1/16 + 1/16) / 4 = 1/32, standard error sqrt(1/128) = 0.0884, interval
// 0.5 +- 0.1732 -> +-125.57 Elo.
TEST(SelfplayStatsTest, PentanomialSymmetricCase) {
  Pentanomial p;
  p.AddPair(1);
  p.AddPair(2);
  p.AddPair(2);
  p.AddPair(3);
  EXPECT_EQ(p.pairs(), 4);
  EXPECT_DOUBLE_EQ(p.MeanScore(), 0.5);
  EXPECT_DOUBLE_EQ(p.PairVariance(), 1.0 / 32.0);
  const EloEstimate e = EstimateElo(p);
  EXPECT_NEAR(e.elo, 0.0, 1e-9);
  EXPECT_NEAR(e.elo_high, 125.5748, 1e-3);
  EXPECT_NEAR(e.elo_low, -125.5748, 1e-3);
}

// A whitewash (every pair 2-0) or a single pair has no sample variance: the interval is undefined
// rather than zero-width.
TEST(SelfplayStatsTest, IntervalUndefinedWithoutVariance) {
  Pentanomial whitewash;
  whitewash.AddPair(4);
  whitewash.AddPair(4);
  whitewash.AddPair(4);
  EXPECT_FALSE(EstimateElo(whitewash).interval_defined);
  Pentanomial single;
  single.AddPair(3);
  EXPECT_FALSE(EstimateElo(single).interval_defined);
  Pentanomial mixed;
  mixed.AddPair(4);
  mixed.AddPair(2);
  EXPECT_TRUE(EstimateElo(mixed).interval_defined);
}

// Pairs 1/2, 3/4, 3/4, 1: mean 3/4 (Elo 400 log10 3 = 190.85), the same variance 1/32, interval
// [0.5768, 0.9232] -> [53.76, 432.07] Elo.
TEST(SelfplayStatsTest, PentanomialAsymmetricCase) {
  Pentanomial p;
  p.AddPair(2);
  p.AddPair(3);
  p.AddPair(3);
  p.AddPair(4);
  const EloEstimate e = EstimateElo(p);
  EXPECT_NEAR(e.score, 0.75, 1e-12);
  EXPECT_NEAR(e.elo, 190.8485, 1e-3);
  EXPECT_NEAR(e.elo_low, 53.7648, 1e-3);
  EXPECT_NEAR(e.elo_high, 432.0669, 1e-3);
  EXPECT_TRUE(e.interval_defined);
  EXPECT_THROW(p.AddPair(5), Error);
}

TEST(SelfplayStatsTest, SprtBoundsAndHandComputedLlr) {
  const SprtParams params = SprtParams::Parse("0,10,0.05,0.05");
  EXPECT_NEAR(params.LowerBound(), -2.944439, 1e-6);
  EXPECT_NEAR(params.UpperBound(), 2.944439, 1e-6);
  Pentanomial p;
  for (int k : {1, 2, 2, 3}) p.AddPair(k);
  // N (s1 - s0)(2m - s0 - s1) / (2 v) with s0 = 0.5, s1 = 0.514387, m = 0.5 and v = 0.05: the
  // variance of the bins 0.2, 1.2, 2.2, 1.2, 0.2 (the data plus the one-pair prior).
  EXPECT_NEAR(SprtLlr(p, params), -0.00827964, 1e-7);
  EXPECT_THROW(SprtParams::Parse("0,10,0.05"), Error);
  EXPECT_THROW(SprtParams::Parse("10,0,0.05,0.05"), Error);
  EXPECT_THROW(SprtParams::Parse("0,10,0.7,0.05"), Error);
  EXPECT_THROW(SprtParams::Parse("0,x,0.05,0.05"), Error);
}

// Pairs drawn from the pentanomial distribution of two players `elo` apart with a draw rate per
// game of 40% (games of a pair independent), by a fixed generator.
int RunSprt(double elo, const SprtParams& params, uint64_t seed, SprtVerdict* verdict) {
  const double expected = ScoreFromElo(elo);
  const double draw = 0.4;
  const double win = expected - draw / 2.0;
  Pentanomial p;
  uint64_t state = seed;
  auto game = [&]() {  // half points of one game
    state = SplitMix64(state);
    const double u = double(state >> 11) * 0x1.0p-53;
    return u < win ? 2 : u < win + draw ? 1 : 0;
  };
  for (int pairs = 1; pairs <= 200000; ++pairs) {
    p.AddPair(game() + game());
    *verdict = SprtDecide(SprtLlr(p, params), params);
    if (*verdict != SprtVerdict::kContinue) return pairs;
  }
  return -1;
}

TEST(SelfplayStatsTest, SprtStopsOnSyntheticStreams) {
  const SprtParams params = SprtParams::Parse("0,20,0.05,0.05");
  int accepted_h1 = 0, accepted_h0 = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    SprtVerdict verdict;
    ASSERT_GT(RunSprt(60.0, params, seed, &verdict), 0);
    accepted_h1 += verdict == SprtVerdict::kAcceptH1;
    ASSERT_GT(RunSprt(-40.0, params, seed + 100, &verdict), 0);
    accepted_h0 += verdict == SprtVerdict::kAcceptH0;
  }
  // Far from the hypotheses, the right one wins nearly always (error rates well below 5%).
  EXPECT_GE(accepted_h1, 19);
  EXPECT_GE(accepted_h0, 19);
  // A clear edge ends the test early.
  SprtVerdict verdict;
  EXPECT_LT(RunSprt(300.0, params, 7, &verdict), 200);
  EXPECT_EQ(verdict, SprtVerdict::kAcceptH1);
}

TEST(SelfplayStatsTest, SprtIdenticalPairsStillEnd) {
  const SprtParams params = SprtParams::Parse("0,10,0.05,0.05");
  Pentanomial p;
  for (int i = 0; i < 1000; ++i) p.AddPair(4);
  EXPECT_EQ(SprtDecide(SprtLlr(p, params), params), SprtVerdict::kAcceptH1);
}

// Two players, 10 games, 7.5 points: with the virtual draw 8 / 11 -> 400 log10(8/3) = 170.39 Elo,
// standard error sqrt(1 / (11 p (1 - p))) * 400 / ln 10 = 117.61.
TEST(SelfplayStatsTest, BradleyTerryTwoPlayers) {
  const auto ratings = MaximumLikelihoodRatings(2, {{1, 0, 10, 7.5}}, 0);
  EXPECT_DOUBLE_EQ(ratings[0].elo, 0.0);
  EXPECT_NEAR(ratings[1].elo, 170.3875, 1e-3);
  EXPECT_NEAR(ratings[1].error, 117.6075, 1e-3);
}

TEST(SelfplayStatsTest, BradleyTerryRecoversConsistentRatings) {
  // Scores made exactly from ratings 0, 100, 250 (virtual draws included), so the MLE is exact.
  const double r[3] = {0.0, 100.0, 250.0};
  std::vector<PairingResult> results;
  for (int i = 0; i < 3; ++i) {
    for (int j = i + 1; j < 3; ++j) {
      const double games = 1000.0;
      const double points = ScoreFromElo(r[i] - r[j]) * (games + 1.0) - 0.5;
      results.push_back({i, j, int(games), points});
    }
  }
  const auto ratings = MaximumLikelihoodRatings(3, results, 0);
  EXPECT_NEAR(ratings[1].elo, 100.0, 1e-6);
  EXPECT_NEAR(ratings[2].elo, 250.0, 1e-6);
  EXPECT_GT(ratings[2].error, 0.0);
  EXPECT_THROW(MaximumLikelihoodRatings(3, {{0, 1, 10, 5.0}}, 0), Error);  // 2 unconnected
  EXPECT_THROW(MaximumLikelihoodRatings(2, {{0, 2, 10, 5.0}}, 0), Error);
}

}  // namespace
}  // namespace vz
