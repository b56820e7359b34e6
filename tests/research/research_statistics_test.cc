// The statistics of research/statistics.h and the piece-value fit of research/study.h: the
// regression recovers known piece values from synthetic outcomes.

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "research/statistics.h"
#include "research/study.h"
#include "tests/test_util.h"

namespace vz::research {
namespace {

double Sigmoid(double t) { return 1.0 / (1.0 + std::exp(-t)); }

// Synthetic games with known piece values: each game has `positions` positions whose material
// differences (3 kinds, -2..2 each) are drawn at random and whose shared result is drawn from
// P(White wins) = sigmoid(intercept + sum beta_k d_k) of its first position, with draws: the
// expected score stays the model's probability (a draw takes equal shares from win and loss).
MaterialData SyntheticGames(int games, int positions, const double (&beta)[3], double intercept,
                            uint64_t seed) {
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<int> difference(-2, 2);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  MaterialData data;
  for (int g = 0; g < games; ++g) {
    std::array<int, kMaxPieceKinds> d{};
    for (int k = 0; k < 3; ++k) d[size_t(k)] = difference(generator);
    double eta = intercept;
    for (int k = 0; k < 3; ++k) eta += beta[k] * d[size_t(k)];
    const double p = Sigmoid(eta);
    const double draw_share = 0.6 * std::min(p, 1.0 - p);  // half of it from each side
    const double u = uniform(generator);
    const double score = u < p - draw_share / 2 ? 1.0 : u < p + draw_share / 2 ? 0.5 : 0.0;
    for (int i = 0; i < positions; ++i) {
      data.differences.push_back(d);
      data.scores.push_back(score);
      data.game_ids.push_back(g);
    }
  }
  return data;
}

TEST(ResearchStatistics, RegressionRecoversKnownPieceValues) {
  const double beta[3] = {0.4, 1.2, 2.0};  // values 1 : 3 : 5 relative to kind 0
  const MaterialData data = SyntheticGames(20000, 1, beta, 0.15, 7);
  const PieceValueFit fit =
      FitPieceValues(data, {"pawn", "knight", "rook"}, {100, 300, 500}, "synthetic");
  ASSERT_EQ(fit.error, "");
  EXPECT_TRUE(fit.converged);
  EXPECT_EQ(fit.reference, "pawn");
  EXPECT_EQ(fit.positions, 20000);
  EXPECT_EQ(fit.games, 20000);
  EXPECT_NEAR(fit.intercept, 0.15, 0.08);
  for (int k = 0; k < 3; ++k) {
    const PieceValueRow& row = fit.rows[size_t(k)];
    EXPECT_TRUE(row.estimated);
    EXPECT_NEAR(row.coefficient, beta[k], 4 * row.standard_error) << row.kind;
    const double truth = beta[k] / beta[0];
    EXPECT_LE(row.relative.low, truth) << row.kind;
    EXPECT_GE(row.relative.high, truth) << row.kind;
    EXPECT_NEAR(row.relative.value, truth, 0.1 * truth) << row.kind;
    EXPECT_DOUBLE_EQ(row.baseline_relative, double(row.baseline) / 100.0);
  }
  EXPECT_DOUBLE_EQ(fit.rows[0].relative.value, 1.0);
}

TEST(ResearchStatistics, ClusteredErrorsAccountForPositionsOfOneGame) {
  const double beta[3] = {0.4, 1.2, 2.0};
  // Ten copies of each game's position: the same information as one, so the clustered errors
  // stay those of 2000 games while the model's errors shrink as if there were 20000.
  const MaterialData repeated = SyntheticGames(2000, 10, beta, 0.0, 11);
  const MaterialData single = SyntheticGames(2000, 1, beta, 0.0, 11);
  std::vector<double> x_repeated, x_single;
  for (const auto& d : repeated.differences)
    x_repeated.insert(x_repeated.end(), {1.0, double(d[0]), double(d[1]), double(d[2])});
  for (const auto& d : single.differences)
    x_single.insert(x_single.end(), {1.0, double(d[0]), double(d[1]), double(d[2])});
  const LogisticFit a = FitLogistic(x_repeated, 4, repeated.scores, repeated.game_ids);
  const LogisticFit b = FitLogistic(x_single, 4, single.scores, single.game_ids);
  EXPECT_EQ(a.clusters, 2000);
  EXPECT_EQ(a.rows, 20000);
  for (int f = 0; f < 4; ++f) {
    EXPECT_NEAR(a.coefficients[size_t(f)], b.coefficients[size_t(f)], 1e-6);
    // Clustered: as one copy (up to the small-sample factor); model-based: sqrt(10) too small.
    EXPECT_NEAR(a.standard_errors[size_t(f)], b.standard_errors[size_t(f)],
                0.01 * b.standard_errors[size_t(f)]);
    EXPECT_NEAR(a.model_errors[size_t(f)] * std::sqrt(10.0), b.model_errors[size_t(f)],
                0.01 * b.model_errors[size_t(f)]);
  }
}

TEST(ResearchStatistics, KindsThatNeverDifferAreLeftOut) {
  const double beta[3] = {0.5, 1.0, 0.0};
  MaterialData data = SyntheticGames(3000, 1, beta, 0.0, 3);
  for (auto& d : data.differences) d[2] = 0;  // the third kind never differs
  const PieceValueFit fit = FitPieceValues(data, {"a", "b", "c"}, {100, 200, 300}, "test");
  ASSERT_EQ(fit.error, "");
  EXPECT_TRUE(fit.rows[0].estimated);
  EXPECT_TRUE(fit.rows[1].estimated);
  EXPECT_FALSE(fit.rows[2].estimated);
  EXPECT_NEAR(fit.rows[1].relative.value, 2.0, 0.4);
  // Without any variation there is nothing to fit, and the fit says so.
  for (auto& d : data.differences) d = {};
  EXPECT_NE(FitPieceValues(data, {"a", "b", "c"}, {100, 200, 300}, "test").error, "");
  EXPECT_EQ(FitPieceValues(MaterialData(), {"a"}, {100}, "none").error, "no positions");
}

TEST(ResearchStatistics, BadInputIsAnError) {
  const std::vector<double> x = {1, 0, 1, 1};
  EXPECT_NE(testing::ErrorOf([&] { FitLogistic(x, 2, std::vector<double>{0.0, 1.5}, {}); }), "");
  EXPECT_NE(testing::ErrorOf([&] { FitLogistic(x, 2, std::vector<double>{0.0}, {}); }), "");
  EXPECT_NE(testing::ErrorOf([&] { FitLogistic(x, 2, std::vector<double>{0.0, NAN}, {}); }), "");
  // A column that is twice another: singular, named.
  const std::vector<double> collinear = {1, 2, 2, 4, 3, 6};
  const std::string error = testing::ErrorOf([&] {
    FitLogistic(collinear, 2, std::vector<double>{0.0, 1.0, 1.0}, {});
  });
  EXPECT_NE(error.find("feature"), std::string::npos) << error;
}

TEST(ResearchStatistics, ScoreIntervalAndEntropy) {
  const Interval all_wins = ScoreInterval(10, 0, 0);
  EXPECT_DOUBLE_EQ(all_wins.value, 1.0);
  EXPECT_NEAR(all_wins.low, 1.0 / (1.0 + 1.959963984540054 * 1.959963984540054 / 10), 1e-9);
  EXPECT_DOUBLE_EQ(all_wins.high, 1.0);
  const Interval even = ScoreInterval(30, 40, 30);
  EXPECT_DOUBLE_EQ(even.value, 0.5);
  EXPECT_NEAR(even.high - 0.5, 0.5 - even.low, 1e-12);
  EXPECT_LT(even.high - even.low, ScoreInterval(3, 4, 3).high - ScoreInterval(3, 4, 3).low);
  EXPECT_DOUBLE_EQ(ScoreInterval(0, 0, 0).value, 0.5);
  const std::vector<int64_t> four = {5, 5, 5, 5}, one = {7}, none;
  EXPECT_NEAR(EntropyBits(four), 2.0, 1e-12);
  EXPECT_EQ(EntropyBits(one), 0.0);
  EXPECT_EQ(EntropyBits(none), 0.0);
}

}  // namespace
}  // namespace vz::research
