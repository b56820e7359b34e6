// Resignation threshold calibration (selfplay/resign_calibration.h): a side's resignation level
// is the smallest largest score of its runs of `consecutive` moves, and the calibrated threshold
// is the largest one at most the ceiling whose false-resignation share stays within the target.

#include "selfplay/resign_calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/core/zobrist.h"

namespace vz {
namespace {

TEST(ResignCalibrationTest, LevelIsTheLowestRunMaximum) {
  ResignLevel level(2);
  EXPECT_TRUE(std::isinf(level.level()));
  level.Add(0.5f);
  EXPECT_TRUE(std::isinf(level.level()));  // no whole run yet
  for (float score : {0.1f, 0.2f, 0.4f, 0.05f}) level.Add(score);
  // Runs (0.5, 0.1) (0.1, 0.2) (0.2, 0.4) (0.4, 0.05): maxima 0.5 0.2 0.4 0.4.
  EXPECT_FLOAT_EQ(level.level(), 0.2f);
  // A rule of one move: the lowest score.
  ResignLevel single(1);
  for (float score : {0.3f, 0.02f, 0.6f}) single.Add(score);
  EXPECT_FLOAT_EQ(single.level(), 0.02f);
}

TEST(ResignCalibrationTest, ThresholdKeepsFalseResignationsWithinTheTarget) {
  ResignCalibrator calibrator(/*ceiling=*/0.2f, /*target_rate=*/0.05f, /*history=*/100,
                              /*min_games=*/20);
  EXPECT_FLOAT_EQ(calibrator.threshold(), 0.2f);
  // Pseudo-random games: the loser sinks low, the winner sometimes dips.
  uint64_t state = 5;
  const auto uniform = [&] { return float((state = SplitMix64(state)) >> 40) / float(1 << 24); };
  std::vector<float> lowest;  // the reference: the lowest level of a side that did not lose
  for (int g = 0; g < 300; ++g) {
    const int result = g % 7 == 0 ? 0 : (g % 2 == 0 ? 1 : -1);
    const float white = result < 0 ? 0.05f * uniform() : 0.3f * uniform() + 0.02f;
    const float black = result > 0 ? 0.05f * uniform() : 0.3f * uniform() + 0.02f;
    calibrator.AddGame(white, black, result);
    lowest.push_back(result > 0 ? white : result < 0 ? black : std::min(white, black));
    if (g + 1 < 20) {
      EXPECT_FLOAT_EQ(calibrator.threshold(), 0.2f) << "too few games to calibrate";
      continue;
    }
    const float t = calibrator.threshold();
    ASSERT_GE(t, 0.0f);
    ASSERT_LE(t, 0.2f);
    // Within the target on the last 100 games ...
    const size_t first = lowest.size() > 100 ? lowest.size() - 100 : 0;
    int false_at_t = 0, false_above = 0;
    for (size_t i = first; i < lowest.size(); ++i) {
      false_at_t += lowest[i] < t;
      false_above += lowest[i] <= t;
    }
    const double n = double(lowest.size() - first);
    EXPECT_LE(false_at_t, int(0.05 * n + 1e-9)) << g;
    EXPECT_DOUBLE_EQ(calibrator.FalseRate(t), false_at_t / n);
    // ... and the largest such: any higher threshold takes in one more game (unless capped).
    if (t < 0.2f) {
      EXPECT_GT(false_above, int(0.05 * n + 1e-9)) << g;
    }
  }
  EXPECT_EQ(calibrator.games(), 100);
  EXPECT_LT(calibrator.threshold(), 0.2f);  // winners dip below 0.2 in more than 5% of games
}

TEST(ResignCalibrationTest, DrawsCountBothSidesAndLosersNeverCount) {
  ResignCalibrator calibrator(0.3f, 0.1f, 100, 1);
  // Losers at any level never make a false resignation.
  for (int g = 0; g < 10; ++g) calibrator.AddGame(0.5f, 0.0f, 1);
  EXPECT_FLOAT_EQ(calibrator.threshold(), 0.3f);
  EXPECT_EQ(calibrator.FalseRate(0.3f), 0.0);
  // A draw whose black side dipped to 0.1: one false resignation in 11 games at 0.3 is within
  // 10% (allowed: one), a second one is not.
  calibrator.AddGame(0.9f, 0.1f, 0);
  EXPECT_FLOAT_EQ(calibrator.threshold(), 0.3f);
  calibrator.AddGame(0.15f, 0.9f, 0);
  EXPECT_FLOAT_EQ(calibrator.threshold(), 0.15f);
  EXPECT_NEAR(calibrator.FalseRate(0.15f), 1.0 / 12, 1e-12);
  // Never above the ceiling, never below 0; a side that never completed a run counts as never.
  calibrator.AddGame(std::numeric_limits<float>::infinity(), 0.0f, 1);
  EXPECT_LE(calibrator.threshold(), 0.3f);
  EXPECT_GE(calibrator.threshold(), 0.0f);
}

}  // namespace
}  // namespace vz
