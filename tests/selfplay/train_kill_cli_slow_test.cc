// The kill test of issue 17: `vzero train` (a tiny Portuguese-draughts run, gating on with a
// threshold every candidate clears, so that promotions happen) killed with SIGKILL at VZ_KILLS
// random moments (default 3; scripts/kill-test.sh runs 20), resumed each time, then run to a
// normal end. Checks after every kill: every file under its final name reads whole, no game
// (by its index, unique in the run) is twice in the chunks, no finished game is ever lost, the
// checkpoint's step never goes back; once, a second `vzero train` on the same run directory is
// refused while the first runs. At the end: the run stops normally at its step limit, every game
// on disk is counted exactly once (state.json), no temporary file is left, and no candidate was
// promoted twice (each best-NNNN.vznet holds a later step than the one before). Prints a table of
// the kills (moment, last log line, games, step, generation).
// Knobs: VZ_KILLS, VZ_KILL_SEED (default 1), VZ_KILL_MAX_SECONDS (longest life, default 8),
// VZ_VZERO (another binary), VZ_KEEP_TEST_DIR (keep the run and its logs).

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/atomic_file.h"
#include "engine/core/zobrist.h"
#include "records/game_record.h"
#include "selfplay/run_dir.h"
#if VZ_HAVE_TORCH
#include "nets/net_file.h"
#include "nets/trainer.h"
#endif

#include "tests/cli_driver.h"
#include "tests/selfplay/tiny_train_run.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using testing::ReadFile;
using testing::StartVzero;
using testing::VzeroPath;
using testing::WaitFor;

double EnvNumber(const char* name, double fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::atof(text) : fallback;
}

// The tiny run (tests/selfplay/tiny_train_run.h) with gating that promotes every candidate and
// no evaluation.
std::vector<std::string> TinyRun(const fs::path& run, int64_t steps) {
  return testing::TinyTrainRun(
      run.string(), steps, {"gating.mode=threshold", "gating.threshold=0", "evaluation.games=0"});
}

// What the run directory holds.
struct OnDisk {
  std::multiset<uint64_t> chunked;      // game indices in records/chunk-*.vzr
  std::set<uint64_t> games;             // distinct indices in chunks and records/pending
  std::vector<std::string> unreadable;  // files under a final name that do not read
};

OnDisk ReadRun(const fs::path& run) {
  OnDisk disk;
  for (const bool pending : {false, true}) {
    const fs::path dir = pending ? run / "records" / "pending" : run / "records";
    for (const std::string& path : ListRecordChunks(dir.string())) {
      try {
        for (const proto::GameRecord& record : ReadRecordChunk(path)) {
          if (!pending) disk.chunked.insert(record.index());
          disk.games.insert(record.index());
        }
      } catch (const std::exception& e) {
        disk.unreadable.push_back(e.what());
      }
    }
  }
  return disk;
}

// The step of the run's checkpoint (the one a resume uses), 0 without one.
int64_t CheckpointStep(const fs::path& run) {
#if VZ_HAVE_TORCH
  const std::string path = (run / "checkpoints" / "trainer.ckpt").string();
  if (!nets::CheckpointExists(path)) return 0;
  return int64_t(nets::ExportCheckpoint(path).provenance.training_steps);
#else
  (void)run;
  return 0;
#endif
}

// The training steps of best-0001.vznet, best-0002.vznet, ... in order.
std::vector<int64_t> PromotedSteps(const fs::path& run) {
  std::vector<int64_t> steps;
#if VZ_HAVE_TORCH
  const int highest = HighestGeneration((run / "nets").string());
  for (int generation = 1; generation <= highest; ++generation) {
    const fs::path path = run / "nets" / GenerationFile(generation);
    steps.push_back(fs::exists(path)
                        ? int64_t(nets::ReadNetFile(path.string()).provenance.training_steps)
                        : -1);
  }
#else
  (void)run;
#endif
  return steps;
}

// The last log line of a life, without its time stamp, at most `width` characters.
std::string LastLine(const fs::path& log, size_t width) {
  std::istringstream lines(ReadFile(log));
  std::string line, last;
  while (std::getline(lines, line)) {
    if (!line.empty()) last = line;
  }
  if (last.size() > 22 && last[0] == '[' && last[20] == ']') last = last.substr(22);
  return last.size() > width ? last.substr(0, width - 3) + "..." : last;
}

class TrainKillTest : public ::testing::Test {
 protected:
  void SetUp() override {
#if !VZ_HAVE_TORCH
    GTEST_SKIP() << "vzero train needs LibTorch (VZ_USE_TORCH=OFF)";
#endif
    if (const std::string why = testing::VzeroSkipReason(); !why.empty()) GTEST_SKIP() << why;
    dir_ = fs::temp_directory_path() / ("vzero-kill-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    setenv("VZ_TORCH_THREADS", "1", 1);
  }
  void TearDown() override {
    if (pid_ > 0 && kill(pid_, 0) == 0) {
      kill(pid_, SIGKILL);
      WaitFor(pid_, 10);
    }
    std::error_code error;
    if (!HasFailure() && std::getenv("VZ_KEEP_TEST_DIR") == nullptr) fs::remove_all(dir_, error);
  }

  fs::path dir_;
  pid_t pid_ = -1;
};

TEST_F(TrainKillTest, SurvivesKillsAtRandomMomentsAndEndsNormally) {
  const int kills = int(EnvNumber("VZ_KILLS", 3));
  uint64_t random = uint64_t(EnvNumber("VZ_KILL_SEED", 1));
  const double longest = EnvNumber("VZ_KILL_MAX_SECONDS", 8.0);
  const fs::path run = dir_ / "run";
  constexpr int64_t kEndless = 1000000000;
  std::printf("kill test: %d kills of `vzero train` (SIGKILL), lives of 0.3 to %.1f s, seed %s\n",
              kills, longest, std::getenv("VZ_KILL_SEED") ? std::getenv("VZ_KILL_SEED") : "1");
  std::printf("%4s  %8s  %-50s  %6s  %5s  %4s\n", "kill", "moment", "last log line before the kill",
              "games", "step", "gen");
  std::set<uint64_t> games_before;
  int64_t step_before = 0;
  for (int k = 1; k <= kills; ++k) {
    const fs::path log = dir_ / ("life-" + std::to_string(k) + ".log");
    const Clock::time_point start = Clock::now();
    pid_ = StartVzero(TinyRun(run, kEndless), log);
    random = SplitMix64(random);
    const double moment = 0.3 + double(random >> 11) * 0x1.0p-53 * (longest - 0.3);
    if (k == 1) {
      // A second `vzero train` on the same run directory while the first runs: refused.
      const Clock::time_point deadline = Clock::now() + std::chrono::seconds(120);
      while (Clock::now() < deadline && ReadFile(log).find("new run") == std::string::npos) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      ASSERT_NE(ReadFile(log).find("new run"), std::string::npos) << ReadFile(log);
      const fs::path second_log = dir_ / "second.log";
      const int status = WaitFor(StartVzero(TinyRun(run, kEndless), second_log), 120);
      ASSERT_NE(status, -1) << "the second vzero train did not stop";
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << ReadFile(second_log);
      const std::string refusal = ReadFile(second_log);
      EXPECT_NE(refusal.find("is in use by vzero train (pid " + std::to_string(pid_) + ")"),
                std::string::npos)
          << refusal;
      std::printf("      second `vzero train` on the run directory: %s",
                  refusal.empty() ? "(no output)\n" : refusal.c_str());
    }
    std::this_thread::sleep_until(
        start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(moment)));
    int status = 0;
    ASSERT_EQ(waitpid(pid_, &status, WNOHANG), 0) << "vzero train ended before its kill:\n"
                                                  << ReadFile(log);
    ASSERT_EQ(kill(pid_, SIGKILL), 0);
    const double killed_at = std::chrono::duration<double>(Clock::now() - start).count();
    ASSERT_NE(WaitFor(pid_, 30), -1);
    pid_ = -1;

    const OnDisk disk = ReadRun(run);
    EXPECT_TRUE(disk.unreadable.empty()) << disk.unreadable.front();
    EXPECT_EQ(std::set<uint64_t>(disk.chunked.begin(), disk.chunked.end()).size(),
              disk.chunked.size())
        << "a game is twice in the chunks after kill " << k;
    for (uint64_t index : games_before) {
      EXPECT_EQ(disk.games.count(index), 1u) << "game " << index << " lost at kill " << k;
    }
    const int64_t step = CheckpointStep(run);
    EXPECT_GE(step, step_before) << "the step went back at kill " << k;
    std::printf("%4d  %7.2fs  %-50s  %6zu  %5lld  %4d\n", k, killed_at, LastLine(log, 50).c_str(),
                disk.games.size(), static_cast<long long>(step),
                HighestGeneration((run / "nets").string()));
    std::fflush(stdout);
    games_before = disk.games;
    step_before = step;
  }

  // The last life runs to its step limit and stops normally.
  const int64_t final_steps = step_before + 12;
  const fs::path log = dir_ / "final.log";
  pid_ = StartVzero(TinyRun(run, final_steps), log);
  const int status = WaitFor(pid_, 900);
  ASSERT_NE(status, -1) << "the final run did not end:\n" << ReadFile(log);
  pid_ = -1;
  const std::string output = ReadFile(log);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  EXPECT_NE(output.find("stopping: reached " + std::to_string(final_steps) + " training steps"),
            std::string::npos)
      << output;

  const OnDisk disk = ReadRun(run);
  EXPECT_TRUE(disk.unreadable.empty()) << disk.unreadable.front();
  EXPECT_EQ(std::set<uint64_t>(disk.chunked.begin(), disk.chunked.end()).size(),
            disk.chunked.size());
  for (uint64_t index : games_before) EXPECT_EQ(disk.games.count(index), 1u) << "game " << index;
  const nlohmann::json state = nlohmann::json::parse(ReadFile(run / "state.json"), nullptr, false);
  ASSERT_TRUE(state.is_object());
  EXPECT_EQ(state.value("games", int64_t{-1}), int64_t(disk.games.size())) << state.dump();
  EXPECT_EQ(state.value("step", int64_t{-1}), final_steps) << state.dump();
  EXPECT_EQ(CheckpointStep(run), final_steps);
  int temporary = 0;
  for (const auto& entry : fs::recursive_directory_iterator(run)) {
    temporary += ParseTemporaryName(entry.path().filename().string(), nullptr);
  }
  EXPECT_EQ(temporary, 0) << "temporary files left in " << run;
  const std::vector<int64_t> promoted = PromotedSteps(run);
  for (size_t i = 1; i < promoted.size(); ++i) {
    EXPECT_GT(promoted[i], promoted[i - 1]) << "best-" << i + 1 << " repeats a promotion";
  }
  std::printf(
      "final run: exit %d, step %lld, %zu games on disk (state.json: %lld), generation %zu,"
      " %d temporary files left\n",
      WIFEXITED(status) ? WEXITSTATUS(status) : -1, static_cast<long long>(final_steps),
      disk.games.size(), static_cast<long long>(state.value("games", int64_t{-1})), promoted.size(),
      temporary);
}

}  // namespace
}  // namespace vz
