// Time allocation (engine/search/time_manager.h) against a fake clock: sudden death, increments,
// movestogo, tiny remaining time, movetime, infinite; whole games played on a simulated clock
// never lose on time.

#include "engine/search/time_manager.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "tests/test_util.h"

namespace vz {
namespace {

class FakeClock final : public Clock {
 public:
  int64_t NowMicros() const override { return now_micros_; }
  void AdvanceMs(int64_t ms) { now_micros_ += ms * 1000; }
  void AdvanceMicros(int64_t micros) { now_micros_ += micros; }

 private:
  int64_t now_micros_ = 123456789;  // not 0: nothing may assume the clock starts at 0
};

// Plays one move as the UCI driver does: rounds of `round_ms` while the manager allows them.
// `round_estimate_micros` carries the estimate from move to move, as the driver does
// (NextRoundEstimateMicros). Returns the milliseconds the move used.
int64_t PlayMove(const TimeBudget& budget, FakeClock& clock, int64_t round_ms,
                 bool unstable = false, int64_t* round_estimate_micros = nullptr) {
  TimeManager manager(budget, clock, round_estimate_micros ? *round_estimate_micros : 0);
  int rounds = 0;
  while (manager.ShouldStartRound(unstable)) {
    clock.AdvanceMs(round_ms);
    if (++rounds > 1000000) break;  // an unlimited budget would loop forever
  }
  if (round_estimate_micros != nullptr) *round_estimate_micros = manager.NextRoundEstimateMicros();
  return manager.ElapsedMs();
}

TimeControl Clocks(int64_t white_ms, int64_t black_ms, int64_t increment_ms = 0,
                   int moves_to_go = 0) {
  TimeControl control;
  control.white_ms = white_ms;
  control.black_ms = black_ms;
  control.white_increment_ms = increment_ms;
  control.black_increment_ms = increment_ms;
  control.moves_to_go = moves_to_go;
  return control;
}

TEST(TimeManagerTest, SuddenDeathPlansForManyMoves) {
  const TimeOptions options;  // 50 ms overhead
  const TimeBudget budget = AllocateTime(Clocks(60000, 1000), Color::kWhite, options);
  ASSERT_TRUE(budget.limited);
  // One overhead is kept for each planned move and one more.
  EXPECT_EQ(budget.soft_ms, (60000 - 50 * (kDefaultMovesToGo + 1)) / kDefaultMovesToGo);
  EXPECT_GT(budget.hard_ms, budget.soft_ms);
  EXPECT_LE(budget.hard_ms, 60000 - 50);
  // The side to move's clock is the one used.
  const TimeBudget black = AllocateTime(Clocks(60000, 1000), Color::kBlack, options);
  EXPECT_LT(black.soft_ms, budget.soft_ms);
  EXPECT_LE(black.hard_ms, 1000 - 50);
}

TEST(TimeManagerTest, IncrementIsSpentOnTop) {
  const TimeOptions options;
  const TimeBudget without = AllocateTime(Clocks(30000, 30000), Color::kBlack, options);
  const TimeBudget with = AllocateTime(Clocks(30000, 30000, 500), Color::kBlack, options);
  const int64_t moves = kDefaultMovesToGo;
  EXPECT_EQ(without.soft_ms, (30000 - 50 * (moves + 1)) / moves);
  EXPECT_EQ(with.soft_ms, (30000 + 500 * (moves - 1) - 50 * (moves + 1)) / moves);
  EXPECT_LE(with.hard_ms, 30000 - 50);
}

TEST(TimeManagerTest, MovesToGoSplitsTheClock) {
  const TimeOptions options{.move_overhead_ms = 0};
  EXPECT_EQ(AllocateTime(Clocks(40000, 0, 0, 20), Color::kWhite, options).soft_ms, 2000);
  EXPECT_EQ(AllocateTime(Clocks(40000, 0, 0, 10), Color::kWhite, options).soft_ms, 4000);
  // The last move before the control may use most, never all, of the clock.
  const TimeBudget last = AllocateTime(Clocks(10000, 0, 0, 1), Color::kWhite, options);
  EXPECT_GT(last.soft_ms, 5000);
  EXPECT_LT(last.hard_ms, 10000);
  // A huge movestogo is planned like sudden death, not as an almost-zero slice.
  EXPECT_EQ(AllocateTime(Clocks(40000, 0, 0, 1000), Color::kWhite, options).soft_ms,
            40000 / kMaxMovesToGo);
}

TEST(TimeManagerTest, TinyRemainingTimeLeavesNoSearch) {
  FakeClock clock;
  const TimeOptions options;
  for (int64_t remaining : {0, 10, 49, 50}) {
    const TimeBudget budget = AllocateTime(Clocks(remaining, remaining), Color::kWhite, options);
    EXPECT_TRUE(budget.limited);
    EXPECT_EQ(budget.hard_ms, 0) << remaining;
    EXPECT_EQ(PlayMove(budget, clock, 1), 0) << remaining;
  }
  // Just above the overhead: never past remaining - overhead.
  TimeBudget budget = AllocateTime(Clocks(90, 90), Color::kWhite, options);
  EXPECT_LE(budget.hard_ms, 40);
  EXPECT_LE(PlayMove(budget, clock, 1), 40);
  // Less than an overhead per planned move left: still a short search, a small slice of the rest.
  budget = AllocateTime(Clocks(1000, 1000), Color::kWhite, options);
  EXPECT_GT(budget.hard_ms, 0);
  EXPECT_LE(budget.hard_ms, (1000 - 50) / (2 * kDefaultMovesToGo));
  EXPECT_LE(PlayMove(budget, clock, 1), budget.hard_ms);
}

TEST(TimeManagerTest, MoveTimeIsUsedMinusTheOverhead) {
  FakeClock clock;
  TimeControl control;
  control.move_time_ms = 1000;
  const TimeBudget budget = AllocateTime(control, Color::kBlack, TimeOptions{});
  EXPECT_EQ(budget.soft_ms, 950);
  EXPECT_EQ(budget.hard_ms, 950);
  const int64_t used = PlayMove(budget, clock, 10);
  EXPECT_LE(used, 950);
  EXPECT_GE(used, 940);
  // A movetime below the overhead still searches a moment.
  control.move_time_ms = 20;
  EXPECT_EQ(AllocateTime(control, Color::kBlack, TimeOptions{}).hard_ms, 1);
  // movetime wins over clocks given with it.
  control = Clocks(100000, 100000);
  control.move_time_ms = 300;
  EXPECT_EQ(AllocateTime(control, Color::kWhite, TimeOptions{}).hard_ms, 250);
}

TEST(TimeManagerTest, InfiniteAndNoClockAreUnlimited) {
  FakeClock clock;
  TimeControl control = Clocks(1000, 1000);
  control.infinite = true;
  EXPECT_FALSE(AllocateTime(control, Color::kWhite, TimeOptions{}).limited);
  EXPECT_FALSE(control.LimitsTime(Color::kWhite));
  TimeManager manager(AllocateTime(control, Color::kWhite, TimeOptions{}), clock);
  for (int i = 0; i < 100; ++i) {
    EXPECT_TRUE(manager.ShouldStartRound());
    clock.AdvanceMs(3600 * 1000);
  }
  // Only the opponent's clock given: nothing limits the side to move.
  EXPECT_FALSE(AllocateTime(Clocks(-1, 5000), Color::kWhite, TimeOptions{}).limited);
  EXPECT_FALSE(AllocateTime(TimeControl{}, Color::kWhite, TimeOptions{}).limited);
}

TEST(TimeManagerTest, SlowRoundsAreNotStartedPastTheHardLimit) {
  FakeClock clock;
  TimeBudget budget{.limited = true, .soft_ms = 1000, .hard_ms = 1000};
  // Rounds of 300 ms: the fourth would end at 1200 ms, after the hard limit.
  EXPECT_EQ(PlayMove(budget, clock, 300), 900);
  // Rounds that do not fit at all: the first starts (nothing is known yet), no second one.
  EXPECT_EQ(PlayMove(budget, clock, 700), 700);
  // With the round length known from an earlier move, not even the first one.
  TimeManager manager(budget, clock, /*round_estimate_micros=*/1100 * 1000);
  EXPECT_FALSE(manager.ShouldStartRound(/*unstable=*/true));
  EXPECT_EQ(manager.LongestRecentRoundMicros(), 1100 * 1000);
}

// One slow round (a larger minibatch since changed, a busy machine) must not keep every later
// search from starting: a search that could start none hands on half its estimate, and once a
// round runs, the estimate is what this search measured.
TEST(TimeManagerTest, AStaleRoundEstimateFadesOut) {
  FakeClock clock;
  const TimeBudget budget{.limited = true, .soft_ms = 200, .hard_ms = 200};
  int64_t estimate = 1100 * 1000;
  int moves_without_search = 0;
  while (PlayMove(budget, clock, 10, /*unstable=*/false, &estimate) == 0) {
    ASSERT_LT(++moves_without_search, 10) << "the estimate never fades: " << estimate;
  }
  EXPECT_EQ(moves_without_search, 3);  // 1100, 550, 275 ms do not fit in 200 ms; 137 ms does
  EXPECT_EQ(estimate, 10 * 1000);
  EXPECT_GE(PlayMove(budget, clock, 10, /*unstable=*/false, &estimate), 190);
}

// Clocks beyond any game (UCI's numbers are 64-bit) are searched as unlimited in practice, with
// no overflow in the arithmetic: the search starts and the limits stay positive.
TEST(TimeManagerTest, HugeTimesDoNotOverflow) {
  FakeClock clock;
  TimeControl move_time;
  move_time.move_time_ms = 9300000000000000;
  const int64_t huge = int64_t{2305843009213693951};
  for (const TimeControl& control :
       {move_time, Clocks(huge, huge, huge), Clocks(huge, huge, 0, 1)}) {
    const TimeBudget budget = AllocateTime(control, Color::kWhite, TimeOptions{});
    EXPECT_TRUE(budget.limited);
    EXPECT_GT(budget.soft_ms, int64_t{1} << 30);
    EXPECT_GE(budget.hard_ms, budget.soft_ms);
    TimeManager manager(budget, clock, /*round_estimate_micros=*/1000);
    EXPECT_TRUE(manager.ShouldStartRound());
  }
}

TEST(TimeManagerTest, UnstableBestMoveExtendsTowardsTheHardLimit) {
  FakeClock clock;
  const TimeBudget budget{.limited = true, .soft_ms = 100, .hard_ms = 400};
  const int64_t stable = PlayMove(budget, clock, 10, /*unstable=*/false);
  const int64_t unstable = PlayMove(budget, clock, 10, /*unstable=*/true);
  EXPECT_GE(stable, 100);
  EXPECT_LT(stable, 400);
  EXPECT_GT(unstable, stable);
  EXPECT_LE(unstable, 400);
}

// Plays `moves` moves of one side on a simulated clock (rounds of `round_ms`, plus `latency_ms`
// outside the engine per move) and returns the lowest clock reading after a move; negative means
// lost on time. Checks that each move's search stays within remaining - overhead (after the
// first move, once the length of a round is known).
int64_t LowestClock(int64_t start_ms, int64_t increment_ms, int moves_to_go_period, int moves,
                    int64_t round_ms, int64_t latency_ms, bool unstable) {
  FakeClock clock;
  const TimeOptions options;
  int64_t remaining = start_ms;
  int64_t lowest = remaining;
  int64_t round_estimate_micros = 0;
  for (int move = 0; move < moves; ++move) {
    const int moves_to_go =
        moves_to_go_period > 0 ? moves_to_go_period - move % moves_to_go_period : 0;
    const TimeBudget budget = AllocateTime(Clocks(remaining, remaining, increment_ms, moves_to_go),
                                           Color::kWhite, options);
    const int64_t safe = std::max<int64_t>(0, remaining - options.move_overhead_ms);
    EXPECT_LE(budget.hard_ms, safe);
    const int64_t searched = PlayMove(budget, clock, round_ms, unstable, &round_estimate_micros);
    if (move > 0) {
      EXPECT_LE(searched, safe) << "move " << move << " remaining " << remaining;
    }
    remaining -= searched + latency_ms;
    lowest = std::min(lowest, remaining);
    if (remaining < 0) return remaining;
    remaining += increment_ms;
    if (moves_to_go == 1) remaining += start_ms;  // the next period's time
  }
  return lowest;
}

TEST(TimeManagerTest, GamesWithIncrementsAreNeverLostOnTime) {
  for (bool unstable : {false, true}) {
    // Rounds up to 20 ms with 30 ms latency: within the 50 ms overhead.
    for (int64_t round_ms : {1, 7, 20}) {
      // Bullet with a small increment, and a start clock just above the overhead.
      EXPECT_GE(LowestClock(1000, 100, 0, 300, round_ms, 30, unstable), 0) << round_ms;
      EXPECT_GE(LowestClock(60, 100, 0, 300, round_ms, 30, unstable), 0) << round_ms;
      EXPECT_GE(LowestClock(60000, 1000, 0, 300, round_ms, 30, unstable), 0) << round_ms;
    }
  }
}

TEST(TimeManagerTest, MovesToGoControlsAreNeverLostOnTime) {
  for (bool unstable : {false, true}) {
    for (int64_t round_ms : {1, 13}) {
      EXPECT_GE(LowestClock(5000, 0, 40, 200, round_ms, 30, unstable), 0) << round_ms;
      EXPECT_GE(LowestClock(1000, 0, 1, 50, round_ms, 30, unstable), 0) << round_ms;
    }
  }
}

TEST(TimeManagerTest, SuddenDeathKeepsTheOverheadOnTheClock) {
  // No increment: the clock dwindles, but each move stays within remaining - overhead, so without
  // latency the overhead is never touched (with latency and no increment every clock runs out
  // in a long enough game: that is the time control, not the engine).
  for (int64_t round_ms : {1, 5, 20}) {
    EXPECT_GE(LowestClock(3000, 0, 0, 500, round_ms, 0, /*unstable=*/true), 50) << round_ms;
    EXPECT_GE(LowestClock(3000, 0, 0, 500, round_ms, 0, /*unstable=*/false), 50) << round_ms;
  }
}

TEST(TimeManagerTest, NegativeSettingsAreRefused) {
  TimeControl control = Clocks(1000, 1000);
  EXPECT_NE(testing::ErrorOf([&] {
              AllocateTime(control, Color::kWhite, {.move_overhead_ms = -1});
            }).find("overhead"),
            std::string::npos);
  control.black_increment_ms = -5;
  EXPECT_NE(testing::ErrorOf([&] { AllocateTime(control, Color::kWhite, {}); }).find("increment"),
            std::string::npos);
  control = Clocks(1000, 1000, 0, -2);
  EXPECT_NE(testing::ErrorOf([&] { AllocateTime(control, Color::kWhite, {}); }).find("movestogo"),
            std::string::npos);
}

}  // namespace
}  // namespace vz
