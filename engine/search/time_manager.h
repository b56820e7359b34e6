#pragma once

// Time allocation for one move under a clock (the UCI `go` limits: wtime/btime/winc/binc/
// movestogo/movetime/infinite), and the per-round stop test that a round-by-round search driver
// (`vzero uci`) asks before starting each round of leaves. Pure arithmetic on milliseconds plus an
// injectable clock, so that tests drive it with a fake clock.
//
// The scheme (Stockfish's, in a small form; documented in docs/uci.md), all in ms:
//   safe  = max(0, remaining - overhead): the most this move may ever use, so that the clock
//           keeps the overhead for what happens outside the engine (GUI, pipes, network);
//   moves = movestogo when given (at most 50), else kDefaultMovesToGo (sudden death and
//           increment games: plan as if that many moves remained);
//   pool  = max(0, remaining + increment * (moves - 1) - overhead * (moves + 1)): what the next
//           `moves` moves may spend, keeping one overhead for each of them and one spare;
//   soft  = min(pool / moves, safe * soft_cap), soft_cap = 0.5 (0.8 with movestogo 1): the
//           target; the driver starts no new round after it, unless the best move is still
//           changing (then it may go on towards hard). With an empty pool: safe / (2 * moves);
//   hard  = min(safe, pool, max(soft, min(3 * soft, safe * hard_cap))), hard_cap = 0.75 (0.95
//           with movestogo 1); with an empty pool hard = soft. A round is not started if the
//           longest of the recent rounds would end after it, so only a first round of unknown
//           length (no estimate from an earlier move) can pass it.
//   Each move thus uses at most remaining - overhead: after it the clock shows at least
//   overhead - latency + increment, so with an increment a game is never lost on time as long as
//   the overhead covers the latency outside the engine. With movestogo, spending at most the pool
//   keeps the next move's pool from being empty once it was not (remaining + increment *
//   (moves - 1) >= overhead * (moves + 1) carries over), so latencies below the overhead never
//   flag before the control either.
//   movetime M: soft = hard = max(1, M - overhead).
//   infinite, or no clock for the side to move: unlimited (nodes or `stop` end the search).

#include <array>
#include <chrono>
#include <cstdint>

#include "engine/core/types.h"

namespace vz {

// The time limits of one `go` command, in milliseconds. A negative time means "not given".
struct TimeControl {
  int64_t white_ms = -1;           // wtime: White's remaining clock
  int64_t black_ms = -1;           // btime
  int64_t white_increment_ms = 0;  // winc: added to White's clock after each of its moves
  int64_t black_increment_ms = 0;  // binc
  int moves_to_go = 0;             // movestogo: moves until the next time control; 0 = none
  int64_t move_time_ms = -1;       // movetime: search exactly this long
  bool infinite = false;           // search until `stop`

  // True when a clock or a movetime limits the search of `side`.
  bool LimitsTime(Color side) const {
    if (infinite) return false;
    if (move_time_ms >= 0) return true;
    return (side == Color::kWhite ? white_ms : black_ms) >= 0;
  }
};

struct TimeOptions {
  // Kept on the clock for what happens outside the search (GUI, pipes, network), in ms, >= 0.
  int64_t move_overhead_ms = 50;
};

// What one move may use, in milliseconds since the search started.
struct TimeBudget {
  bool limited = false;  // false: no time limit at all (soft_ms and hard_ms unused)
  int64_t soft_ms = 0;   // target: no new round after it unless the best move is unstable
  int64_t hard_ms = 0;   // never passed; <= remaining - move overhead (0: no time to search)
};

// Plans without a movestogo assume this many moves remain.
inline constexpr int kDefaultMovesToGo = 30;
// movestogo above this is treated as this (a long control is planned like sudden death).
inline constexpr int kMaxMovesToGo = 50;

// The budget of the side `side` to move under `control` (formulas in the file comment). Throws
// vz::Error naming the value if the move overhead or a clock field is negative where it must not
// be (increment, movestogo, overhead); a negative wtime/btime/movetime means "not given".
TimeBudget AllocateTime(const TimeControl& control, Color side, const TimeOptions& options);

// A source of monotonic time in microseconds. Thread-safety: NowMicros may be called from any
// thread.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMicros() const = 0;
};

// std::chrono::steady_clock.
class SteadyClock final : public Clock {
 public:
  int64_t NowMicros() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

// The stop test of one search. The search starts when the TimeManager is constructed; the driver
// calls ShouldStartRound before every round (the gap between two calls is taken as the duration
// of the round in between). Not thread-safe: one search, one thread; `clock` must outlive it.
class TimeManager {
 public:
  // `round_estimate_micros` (>= 0; e.g. NextRoundEstimateMicros of the previous move's search)
  // counts as one measured round, so that even the first round respects the hard limit.
  TimeManager(const TimeBudget& budget, const Clock& clock, int64_t round_estimate_micros = 0);

  // Milliseconds (and microseconds) since construction.
  int64_t ElapsedMs() const { return ElapsedMicros() / 1000; }
  int64_t ElapsedMicros() const { return clock_->NowMicros() - start_micros_; }

  // Whether the driver may start one more round. Always true without a limit. Otherwise false
  // once the soft target is reached (unless `unstable`: the best move is still changing), and
  // false whenever the longest of the last kRoundWindow rounds, started now, would end after the
  // hard limit.
  bool ShouldStartRound(bool unstable = false);

  const TimeBudget& budget() const { return budget_; }
  // The longest of the last kRoundWindow rounds (the estimate included) in microseconds; 0 when
  // nothing is known yet.
  int64_t LongestRecentRoundMicros() const;
  // The estimate to hand the next search: the longest of this search's last kRoundWindow measured
  // rounds, or, when it measured none (the estimate alone kept its first round from starting),
  // half the estimate it was given, so that one slow round (a larger minibatch since changed, a
  // busy machine) cannot keep every later search from starting.
  int64_t NextRoundEstimateMicros() const;

  static constexpr int kRoundWindow = 16;

 private:
  TimeBudget budget_;
  const Clock* clock_;
  int64_t start_micros_;
  int64_t last_call_micros_ = -1;               // time of the previous ShouldStartRound
  std::array<int64_t, kRoundWindow> rounds_{};  // [round % kRoundWindow] duration in us
  int64_t num_rounds_ = 0;
  int64_t estimate_micros_ = 0;  // the estimate given, rounds_[0] until a round overwrites it
};

}  // namespace vz
