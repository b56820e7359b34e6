#include "engine/core/task_team.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace vz {
namespace {

TEST(TaskTeam, RunsEveryMemberOncePerRoundAndTheCallerIsMemberZero) {
  TaskTeam team(3);
  ASSERT_EQ(team.size(), 3);
  std::vector<int> counts(3, 0);  // each member writes only its own entry
  std::vector<std::thread::id> threads(3);
  for (int round = 0; round < 50; ++round) {
    team.Run([&](int member) {
      ++counts[size_t(member)];
      threads[size_t(member)] = std::this_thread::get_id();
    });
  }
  EXPECT_EQ(counts, std::vector<int>({50, 50, 50}));
  EXPECT_EQ(threads[0], std::this_thread::get_id());
  EXPECT_EQ(std::set<std::thread::id>(threads.begin(), threads.end()).size(), 3u);
}

TEST(TaskTeam, MembersRunAtTheSameTime) {
  // Each member waits until all have started, for at most a generous deadline: a team that runs
  // its members one after another makes the first of them give up (and the test fail) instead of
  // hanging to the CTest timeout.
  TaskTeam team(3);
  std::atomic<int> started{0};
  std::vector<int> saw_all(3, 0);  // each member writes only its own entry
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  team.Run([&](int member) {
    started.fetch_add(1);
    while (started.load() < 3 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    saw_all[size_t(member)] = started.load() == 3;
  });
  EXPECT_EQ(saw_all, std::vector<int>({1, 1, 1})) << "members did not run at the same time";
}

TEST(TaskTeam, OnStartRunsInEveryHelperThreadBeforeItsFirstTask) {
  std::mutex mutex;
  std::set<int> started;
  TaskTeam team(4, [&](int member) {
    const std::lock_guard<std::mutex> lock(mutex);
    started.insert(member);
  });
  std::atomic<int> tasks_after_start{0};
  team.Run([&](int member) {
    if (member == 0) return;
    const std::lock_guard<std::mutex> lock(mutex);
    tasks_after_start += started.count(member);
  });
  EXPECT_EQ(started, std::set<int>({1, 2, 3}));
  EXPECT_EQ(tasks_after_start.load(), 3);
}

TEST(TaskTeam, AFailureIsRethrownAfterTheRoundAndTheTeamRunsOn) {
  TaskTeam team(3);
  std::atomic<int> finished{0};
  EXPECT_THROW(team.Run([&](int member) {
    if (member == 2) throw std::runtime_error("member 2 failed");
    finished.fetch_add(1);
  }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 2);  // the others completed their task
  finished = 0;
  team.Run([&](int) { finished.fetch_add(1); });
  EXPECT_EQ(finished.load(), 3);
}

TEST(TaskTeam, AFailedOnStartIsReportedByTheFirstRun) {
  TaskTeam team(2, [](int) { throw std::runtime_error("no threads for you"); });
  EXPECT_THROW(team.Run([](int) {}), std::runtime_error);
  EXPECT_NO_THROW(team.Run([](int) {}));
}

TEST(TaskTeam, OneMemberIsTheCallerAloneAndZeroIsAnError) {
  TaskTeam team(1);
  int runs = 0;
  team.Run([&](int member) { runs += member == 0; });
  EXPECT_EQ(runs, 1);
  EXPECT_THROW(TaskTeam(0), Error);
}

}  // namespace
}  // namespace vz
