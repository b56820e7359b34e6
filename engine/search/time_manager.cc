// Time allocation and the per-round stop test (see engine/search/time_manager.h for the scheme).

#include "engine/search/time_manager.h"

#include <algorithm>
#include <string>

#include "engine/core/error.h"

namespace vz {

TimeBudget AllocateTime(const TimeControl& given, Color side, const TimeOptions& options) {
  // Times beyond about 35 years mean "unlimited" in practice; clamped to it, the arithmetic below
  // (increments times moves, milliseconds to microseconds) cannot overflow.
  constexpr int64_t kMaxMs = int64_t{1} << 40;
  TimeControl control = given;
  for (int64_t* ms : {&control.white_ms, &control.black_ms, &control.white_increment_ms,
                      &control.black_increment_ms, &control.move_time_ms}) {
    *ms = std::min(*ms, kMaxMs);
  }
  if (options.move_overhead_ms < 0) {
    throw Error("move overhead " + std::to_string(options.move_overhead_ms) + " ms is negative");
  }
  if (control.white_increment_ms < 0 || control.black_increment_ms < 0) {
    throw Error("increment " +
                std::to_string(std::min(control.white_increment_ms, control.black_increment_ms)) +
                " ms is negative");
  }
  if (control.moves_to_go < 0) {
    throw Error("movestogo " + std::to_string(control.moves_to_go) + " is negative");
  }
  const int64_t overhead = std::min<int64_t>(options.move_overhead_ms, kMaxMs);
  TimeBudget budget;
  if (control.infinite) return budget;
  if (control.move_time_ms >= 0) {
    budget.limited = true;
    budget.soft_ms = budget.hard_ms = std::max<int64_t>(1, control.move_time_ms - overhead);
    return budget;
  }
  const bool white = side == Color::kWhite;
  const int64_t remaining = white ? control.white_ms : control.black_ms;
  if (remaining < 0) return budget;
  const int64_t increment = white ? control.white_increment_ms : control.black_increment_ms;
  budget.limited = true;
  const int64_t safe = std::max<int64_t>(0, remaining - overhead);
  const int moves =
      control.moves_to_go > 0 ? std::min(control.moves_to_go, kMaxMovesToGo) : kDefaultMovesToGo;
  const bool last_move = control.moves_to_go == 1;
  const double soft_cap = last_move ? 0.8 : 0.5;
  const double hard_cap = last_move ? 0.95 : 0.75;
  const int64_t pool =
      std::max<int64_t>(0, remaining + increment * (moves - 1) - overhead * (moves + 1));
  int64_t soft, hard;
  if (pool > 0) {
    soft = std::min<int64_t>(pool / moves, int64_t(double(safe) * soft_cap));
    hard = std::max<int64_t>(soft, std::min<int64_t>(3 * soft, int64_t(double(safe) * hard_cap)));
    hard = std::min(hard, pool);
  } else {
    soft = hard = safe / (2 * moves);
  }
  budget.hard_ms = std::min(hard, safe);
  budget.soft_ms = std::min(soft, budget.hard_ms);
  return budget;
}

TimeManager::TimeManager(const TimeBudget& budget, const Clock& clock,
                         int64_t round_estimate_micros)
    : budget_(budget), clock_(&clock), start_micros_(clock.NowMicros()) {
  if (round_estimate_micros > 0) {
    rounds_[0] = round_estimate_micros;
    num_rounds_ = 1;
    estimate_micros_ = round_estimate_micros;
  }
}

int64_t TimeManager::NextRoundEstimateMicros() const {
  const int64_t measured = num_rounds_ - (estimate_micros_ > 0 ? 1 : 0);
  if (measured <= 0) return estimate_micros_ / 2;
  // The window's entries that are measured rounds: all but rounds_[0] while it is the estimate.
  const bool estimate_in_window = estimate_micros_ > 0 && num_rounds_ <= kRoundWindow;
  const int64_t count = std::min<int64_t>(num_rounds_, kRoundWindow);
  int64_t longest = 0;
  for (int64_t i = estimate_in_window ? 1 : 0; i < count; ++i) {
    longest = std::max(longest, rounds_[size_t(i)]);
  }
  return longest;
}

int64_t TimeManager::LongestRecentRoundMicros() const {
  const int64_t count = std::min<int64_t>(num_rounds_, kRoundWindow);
  int64_t longest = 0;
  for (int64_t i = 0; i < count; ++i) longest = std::max(longest, rounds_[size_t(i)]);
  return longest;
}

bool TimeManager::ShouldStartRound(bool unstable) {
  const int64_t now = clock_->NowMicros();
  if (last_call_micros_ >= 0) {
    rounds_[size_t(num_rounds_ % kRoundWindow)] = now - last_call_micros_;
    ++num_rounds_;
  }
  last_call_micros_ = now;
  if (!budget_.limited) return true;
  const int64_t elapsed = now - start_micros_;
  const int64_t hard = budget_.hard_ms * 1000;
  if (elapsed + LongestRecentRoundMicros() > hard || elapsed >= hard) return false;
  return unstable || elapsed < budget_.soft_ms * 1000;
}

}  // namespace vz
