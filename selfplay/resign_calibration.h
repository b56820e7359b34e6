#pragma once

// Calibration of the resignation threshold from the measured false resignations (AlphaGo Zero,
// Silver et al. 2017: the resignation threshold "is selected automatically to keep the fraction of
// false positives below 5%", measured on the share of games played to the end).
//
// A side resigns when its expected score stays below the threshold t for `consecutive` own moves
// in a row (selfplay/selfplay_actors.h), i.e. when some run of `consecutive` own moves has its
// largest score below t. So each side of a game played to the end has a resignation level: the
// smallest, over its runs of `consecutive` own moves, of the largest score in the run. The side
// would have resigned at every threshold above its level. A game is a false resignation at t when
// a side that did not lose has a level below t. The calibrated threshold is the largest t, at most
// the configured one (the ceiling), at which at most `target_rate` of the last `history` measured
// games are false resignations; before `min_games` games are measured it is the ceiling.
//
// Not thread-safe.

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

namespace vz {

// The resignation level of one side, fed one own move at a time (ResignCalibrator's statistic).
class ResignLevel {
 public:
  // `consecutive` >= 1: the run length of the resignation rule.
  explicit ResignLevel(int consecutive) : consecutive_(std::max(consecutive, 1)) {}

  // The expected score (W + D/2, in [0, 1]) of this side's move.
  void Add(float score) {
    recent_.push_back(score);
    if (int(recent_.size()) > consecutive_) recent_.pop_front();
    if (int(recent_.size()) == consecutive_) {
      level_ = std::min(level_, *std::max_element(recent_.begin(), recent_.end()));
    }
  }

  // The smallest largest score of a run so far; +infinity before the first whole run.
  float level() const { return level_; }

 private:
  int consecutive_;
  std::deque<float> recent_;  // the last `consecutive_` scores
  float level_ = std::numeric_limits<float>::infinity();
};

class ResignCalibrator {
 public:
  // `ceiling` in [0, 0.5]: the configured threshold; `target_rate` in (0, 1]: the largest share
  // of false resignations; `history` >= 1 games kept; `min_games` >= 1 before calibrating.
  ResignCalibrator(float ceiling, float target_rate, int history = 500, int min_games = 20)
      : ceiling_(ceiling),
        target_rate_(target_rate),
        history_(std::max(history, 1)),
        min_games_(std::max(min_games, 1)),
        threshold_(ceiling) {}

  // One game played to the end: the resignation levels of White and Black (ResignLevel::level)
  // and the result from White's view (+1, 0, -1). Recomputes the threshold.
  void AddGame(float level_white, float level_black, int result_white) {
    // The lowest level of a side that did not lose: the game is a false resignation at every
    // threshold above it.
    float lowest = std::numeric_limits<float>::infinity();
    if (result_white >= 0) lowest = std::min(lowest, level_white);
    if (result_white <= 0) lowest = std::min(lowest, level_black);
    lowest_.push_back(lowest);
    if (int(lowest_.size()) > history_) lowest_.pop_front();
    Recompute();
  }

  // The threshold to resign at now, in [0, ceiling].
  float threshold() const { return threshold_; }
  // Games measured (at most `history`).
  int games() const { return int(lowest_.size()); }
  // The share of the measured games that are false resignations at `threshold` (0 without games).
  double FalseRate(float threshold) const {
    if (lowest_.empty()) return 0.0;
    int64_t count = 0;
    for (float lowest : lowest_) count += lowest < threshold;
    return double(count) / double(lowest_.size());
  }

 private:
  void Recompute() {
    if (int(lowest_.size()) < min_games_) {
      threshold_ = ceiling_;
      return;
    }
    // With the lowest levels sorted, at most `allowed` of them may lie below t: t is the
    // (allowed + 1)-th smallest (or the ceiling when there are not that many).
    std::vector<float> sorted(lowest_.begin(), lowest_.end());
    std::sort(sorted.begin(), sorted.end());
    const size_t allowed = size_t(double(target_rate_) * double(sorted.size()) + 1e-9);
    threshold_ = allowed < sorted.size() ? std::min(ceiling_, sorted[allowed]) : ceiling_;
    threshold_ = std::max(threshold_, 0.0f);
  }

  float ceiling_;
  float target_rate_;
  int history_;
  int min_games_;
  float threshold_;
  std::deque<float> lowest_;  // [game] the lowest level of a side that did not lose
};

}  // namespace vz
