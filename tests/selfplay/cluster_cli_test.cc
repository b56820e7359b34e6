// The roles of a cluster run (selfplay/cluster.h) as separate `vzero` processes over one run
// directory, on a tiny Portuguese-draughts config: two `vzero selfplay` workers and one
// `vzero trainer`, started in the "wrong" order (a worker with no config first, the trainer
// last), one worker killed with SIGKILL and restarted with its id, the trainer killed and
// restarted, a half-written chunk left in records/. Checks: every chunk under its final name is
// whole, no game (worker, index) is counted twice or lost by the trainer, training advanced
// across the restart, the workers switched to promoted nets. Runs the vzero binary of the same
// build (VZ_VZERO names another one) and skips when there is none; VZ_KEEP_TEST_DIR keeps its
// directory (and the processes' logs) after a pass.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "records/game_record.h"
#include "tests/cli_driver.h"
#include "tests/test_util.h"

namespace vz {
namespace {

namespace fs = std::filesystem;

using testing::ExitedCleanly;
using testing::ReadFile;
using testing::VzeroPath;
using testing::WaitFor;
using testing::WaitUntil;

nlohmann::json State(const fs::path& run) {
  if (!fs::exists(run / "state.json")) return nlohmann::json::object();
  return nlohmann::json::parse(ReadFile(run / "state.json"), nullptr, false);
}

int64_t Step(const fs::path& run) {
  const nlohmann::json state = State(run);
  return state.is_object() ? state.value("step", int64_t{0}) : 0;
}

// The tiny config; gating off, so the trainer promotes every 6 steps and the workers switch nets.
std::vector<std::string> TinyConfig() {
  // clang-format off
  return {"--variant", "portuguese-draughts",
          "--preset", "demo",
          "--set", "selfplay.concurrent_games=6",
          "--set", "selfplay.simulations=4",
          "--set", "selfplay.gumbel_max_considered=4",
          "--set", "selfplay.max_plies=60",
          "--set", "selfplay.games_per_chunk=3",
          "--set", "replay.window_growth=fixed",
          "--set", "replay.window_games=40",
          "--set", "replay.min_positions=64",
          "--set", "optimizer.batch_size=16",
          "--set", "optimizer.checkpoint_every_steps=6",
          "--set", "gating.mode=none",
          "--set", "strength.every_checkpoints=0"};
  // clang-format on
}

std::vector<std::string> Worker(const fs::path& run, const std::string& id, bool with_config) {
  std::vector<std::string> arguments = {"selfplay", "--run-dir",   run.string(),     "--worker-id",
                                        id,         "--no-status", "--poll-seconds", "0.2"};
  if (with_config) {
    for (const std::string& argument : TinyConfig()) arguments.push_back(argument);
  }
  return arguments;
}

std::vector<std::string> Trainer(const fs::path& run) {
  return {"trainer",        "--run-dir", run.string(), "--no-status",
          "--poll-seconds", "0.2",       "--set",      "stop.train_steps=0"};
}

struct Games {
  std::multiset<std::pair<std::string, uint64_t>> keys;  // (worker, index) of every record
  std::set<std::string> nets;                            // net ids that played them
  std::vector<std::string> unreadable;                   // chunk files that do not read
};

Games ReadGames(const fs::path& run) {
  Games games;
  for (const std::string& path : ListRecordChunks((run / "records").string())) {
    try {
      for (const proto::GameRecord& record : ReadRecordChunk(path)) {
        games.keys.emplace(record.worker(), record.index());
        games.nets.insert(record.net_id());
      }
    } catch (const std::exception& e) {
      games.unreadable.push_back(e.what());
    }
  }
  return games;
}

// The commands these tests run, which only a vzero with LibTorch has.
constexpr const char* kNeeds = "selfplay, trainer and gate commands";

class ClusterCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = testing::VzeroSkipReason(kNeeds); !why.empty()) GTEST_SKIP() << why;
    dir_ = fs::temp_directory_path() / ("vzero-cluster-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    setenv("VZ_TORCH_THREADS", "1", 1);
    // A single process each: no rendezvous variables from the environment of the test.
    for (const char* name : {"RANK", "WORLD_SIZE", "SLURM_PROCID", "SLURM_NTASKS",
                             "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}) {
      unsetenv(name);
    }
  }
  void TearDown() override {
    for (pid_t pid : pids_) {
      if (kill(pid, 0) == 0) {
        kill(pid, SIGKILL);
        WaitFor(pid, 10);
      }
    }
    std::error_code error;
    if (!HasFailure() && std::getenv("VZ_KEEP_TEST_DIR") == nullptr) fs::remove_all(dir_, error);
  }
  pid_t Start(const std::vector<std::string>& arguments, const std::string& log,
              const std::vector<std::string>& environment = {}) {
    const pid_t pid = testing::StartVzero(arguments, dir_ / log, environment, /*append=*/true);
    pids_.push_back(pid);
    return pid;
  }
  std::string Logs() const {
    std::string all;
    for (const char* log : {"wa.log", "wb.log", "trainer.log", "rank0.log", "rank1.log"}) {
      all += std::string("==== ") + log + "\n" + ReadFile(dir_ / log);
    }
    return all;
  }

  fs::path dir_;
  std::vector<pid_t> pids_;
};

TEST_F(ClusterCliTest, TwoWorkersAndATrainerSurviveKillsAndRestarts) {
  const fs::path run = dir_ / "run";
  // Any order: worker wb first, with no config (it waits for one); then wa, which creates the
  // run's config; the trainer last, with only the run directory and a stop override.
  pid_t wb = Start(Worker(run, "wb", false), "wb.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  pid_t wa = Start(Worker(run, "wa", true), "wa.log");
  ASSERT_TRUE(WaitUntil(30, [&] { return fs::exists(run / "config.txtpb"); })) << Logs();
  pid_t trainer = Start(Trainer(run), "trainer.log");

  // Training with both workers: four promotions (every 6 steps).
  ASSERT_TRUE(WaitUntil(150, [&] { return Step(run) >= 24; })) << Logs();

  // A worker killed at an arbitrary moment (mid-round or mid-write) and the trainer killed too.
  ASSERT_EQ(kill(wa, SIGKILL), 0);
  ASSERT_NE(WaitFor(wa, 30), -1);
  ASSERT_EQ(kill(trainer, SIGKILL), 0);
  ASSERT_NE(WaitFor(trainer, 30), -1);
  const int64_t step_at_kill = Step(run);
  // The game number wa must continue from: after its last written game, in a chunk or (a game
  // finished since its last chunk) a single file in records/pending.
  int64_t wa_next = 0;
  for (const auto& [worker, index] : ReadGames(run).keys) {
    if (worker == "wa") wa_next = std::max(wa_next, int64_t(index) + 1);
  }
  for (const std::string& path : ListRecordChunks((run / "records" / "pending").string())) {
    for (const proto::GameRecord& record : ReadRecordChunk(path)) {
      if (record.worker() == "wa") wa_next = std::max(wa_next, int64_t(record.index()) + 1);
    }
  }
  // What a writer killed in the middle of a write leaves behind: a temporary file.
  {
    std::ofstream half(run / "records" / "chunk-wz-000000.vzr.tmp.4242.5eed", std::ios::binary);
    half << "VZRC\x01\x00\x00\x00half a chunk";
  }
  // Both restart; wa continues its own numbering.
  wa = Start(Worker(run, "wa", false), "wa.log");
  trainer = Start(Trainer(run), "trainer.log");
  EXPECT_TRUE(WaitUntil(150, [&] { return Step(run) >= step_at_kill + 12; })) << Logs();

  // Workers stop cleanly (their finished games in a last chunk); then the trainer, which reads
  // the chunks once more before it stops.
  ASSERT_EQ(kill(wa, SIGTERM), 0);
  ASSERT_EQ(kill(wb, SIGTERM), 0);
  EXPECT_TRUE(ExitedCleanly(WaitFor(wa, 60))) << Logs();
  EXPECT_TRUE(ExitedCleanly(WaitFor(wb, 60))) << Logs();
  ASSERT_EQ(kill(trainer, SIGTERM), 0);
  EXPECT_TRUE(ExitedCleanly(WaitFor(trainer, 60))) << Logs();

  // Every chunk under a final name is whole; the half-written one is ignored, not read.
  const Games games = ReadGames(run);
  EXPECT_TRUE(games.unreadable.empty()) << games.unreadable.front();
  const std::string trainer_log = ReadFile(run / "logs" / "trainer.log");
  EXPECT_EQ(trainer_log.find("skipping record file"), std::string::npos) << trainer_log;
  EXPECT_EQ(trainer_log.find(".tmp."), std::string::npos) << trainer_log;
  // No game twice on disk, and the trainer counted each game on disk exactly once.
  const std::set<std::pair<std::string, uint64_t>> distinct(games.keys.begin(), games.keys.end());
  EXPECT_EQ(distinct.size(), games.keys.size());
  const nlohmann::json state = State(run);
  EXPECT_EQ(state.value("games", int64_t{-1}), int64_t(distinct.size())) << state.dump();
  EXPECT_EQ(state.value("duplicates", int64_t{-1}), 0) << state.dump();
  // Both workers contributed; training advanced after the restart; promoted nets were used.
  std::map<std::string, int> per_worker;
  for (const auto& [worker, index] : distinct) ++per_worker[worker];
  EXPECT_GT(per_worker["wa"], 0);
  EXPECT_GT(per_worker["wb"], 0);
  EXPECT_GE(state.value("step", int64_t{0}), step_at_kill + 12);
  EXPECT_GE(state.value("generation", 0), 2);
  EXPECT_TRUE(fs::exists(run / "nets" / "best-0002.vznet"));
  EXPECT_GE(games.nets.size(), 2u) << "the workers never switched to a promoted net";
  // The restarted worker continued its own numbering after its last written game.
  const std::string wa_log = ReadFile(dir_ / "wa.log");
  EXPECT_NE(wa_log.find("game numbers from " + std::to_string(wa_next) + ","), std::string::npos)
      << wa_log;
}

TEST_F(ClusterCliTest, TwoTrainerRanksOverGloo) {
  const fs::path run = dir_ / "run";
  // Two ranks from torchrun-style variables, started before the run exists (they wait for its
  // config and for positions); each trains on 8 of the 16 samples of a step.
  const std::string port = std::to_string(testing::FreeLoopbackPort(29519));
  std::vector<pid_t> ranks;
  for (int rank = 1; rank >= 0; --rank) {
    std::vector<std::string> trainer = Trainer(run);
    trainer.back() = "stop.train_steps=12";
    ranks.push_back(Start(trainer, "rank" + std::to_string(rank) + ".log",
                          {"MASTER_ADDR=127.0.0.1", "MASTER_PORT=" + port, "WORLD_SIZE=2",
                           "RANK=" + std::to_string(rank), "LOCAL_RANK=" + std::to_string(rank)}));
  }
  // One worker creates the run and plays 24 games.
  std::vector<std::string> worker = Worker(run, "wa", true);
  worker.insert(worker.end(), {"--games", "24"});
  const pid_t wa = Start(worker, "wa.log");
  for (pid_t pid : ranks) EXPECT_TRUE(ExitedCleanly(WaitFor(pid, 150))) << Logs();
  EXPECT_TRUE(ExitedCleanly(WaitFor(wa, 150))) << Logs();
  const nlohmann::json state = State(run);
  EXPECT_EQ(state.value("step", 0), 12) << state.dump();
  EXPECT_EQ(state.value("world_size", 0), 2) << state.dump();
  EXPECT_GT(state.value("games", 0), 0) << state.dump();
  EXPECT_LE(state.value("games", 0), 24) << state.dump();
  EXPECT_EQ(state.value("generation", 0), 2) << state.dump();
  const std::string rank0 = ReadFile(dir_ / "rank0.log");
  EXPECT_NE(rank0.find("2 rank(s), backend gloo"), std::string::npos) << rank0;
  EXPECT_NE(rank0.find("8 per rank and step"), std::string::npos) << rank0;
  // Rank 1 wrote its own log only (rank 0 writes the run's files).
  EXPECT_NE(ReadFile(run / "logs" / "trainer-rank1.log").find("rank 1 of 2"), std::string::npos);
}

TEST_F(ClusterCliTest, GateJudgesTheNewestCandidate) {
  const fs::path run = dir_ / "run";
  // Gating on, with a threshold every candidate clears: the trainer leaves candidates (steps 6
  // and 12), the gate plays the newest, marks the older one superseded and promotes.
  std::vector<std::string> worker = Worker(run, "wa", true);
  worker.insert(worker.end(),
                {"--set", "gating.mode=threshold", "--set", "gating.games=2", "--set",
                 "gating.simulations=4", "--set", "gating.threshold=0", "--games", "24"});
  const pid_t wa = Start(worker, "wa.log");
  std::vector<std::string> trainer = Trainer(run);
  trainer.back() = "stop.train_steps=12";
  EXPECT_TRUE(ExitedCleanly(WaitFor(Start(trainer, "trainer.log"), 150))) << Logs();
  EXPECT_TRUE(ExitedCleanly(WaitFor(wa, 150))) << Logs();
  const fs::path candidates = run / "nets" / "candidates";
  ASSERT_TRUE(fs::exists(candidates / "candidate-00000006.vznet")) << Logs();
  ASSERT_TRUE(fs::exists(candidates / "candidate-00000012.vznet")) << Logs();
  EXPECT_FALSE(fs::exists(run / "nets" / "best-0001.vznet"));  // the trainer did not promote

  const pid_t gate =
      Start({"gate", "--run-dir", run.string(), "--once", "--no-status"}, "gate.log");
  EXPECT_TRUE(ExitedCleanly(WaitFor(gate, 150))) << ReadFile(dir_ / "gate.log");
  const auto verdict = [&](const char* name) {
    return nlohmann::json::parse(ReadFile(candidates / name), nullptr, false);
  };
  const nlohmann::json newest = verdict("candidate-00000012.json");
  ASSERT_TRUE(newest.is_object()) << ReadFile(dir_ / "gate.log");
  EXPECT_EQ(newest.value("promoted", false), true) << newest.dump();
  EXPECT_EQ(newest.value("generation", 0), 1) << newest.dump();
  EXPECT_EQ(newest.value("wins", 0) + newest.value("draws", 0) + newest.value("losses", 0), 2);
  EXPECT_EQ(verdict("candidate-00000006.json").value("superseded_by", 0), 12);
  EXPECT_TRUE(fs::exists(run / "nets" / "best-0001.vznet"));
  // Nothing waits any more: a second pass plays nothing.
  const pid_t again =
      Start({"gate", "--run-dir", run.string(), "--once", "--no-status"}, "gate.log");
  EXPECT_TRUE(ExitedCleanly(WaitFor(again, 60)));
  EXPECT_NE(ReadFile(dir_ / "gate.log").find("gate: 0 candidates played"), std::string::npos)
      << ReadFile(dir_ / "gate.log");

  // A gate killed between the promotion and its verdict (issue 17): the verdict is missing, the
  // promoted net is there. On restart the candidate is not promoted a second time.
  fs::remove(candidates / "candidate-00000012.json");
  const pid_t restarted =
      Start({"gate", "--run-dir", run.string(), "--once", "--no-status"}, "gate.log");
  EXPECT_TRUE(ExitedCleanly(WaitFor(restarted, 60))) << ReadFile(dir_ / "gate.log");
  EXPECT_FALSE(fs::exists(run / "nets" / "best-0002.vznet")) << ReadFile(dir_ / "gate.log");
  const nlohmann::json recovered = verdict("candidate-00000012.json");
  EXPECT_EQ(recovered.value("recovered", false), true) << recovered.dump();
  EXPECT_EQ(recovered.value("generation", 0), 1) << recovered.dump();
}

}  // namespace
}  // namespace vz
