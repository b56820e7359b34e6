// `vzero train`, `vzero export` and `vzero report` end to end on a tiny Portuguese-draughts config:
// a whole run (self-play, chunks, training, gating, promotion, export, evaluation, plots), resume
// with the same step counter and no game lost or counted twice, the concurrent roles (self-play
// and training in threads of one process) losing or repeating no game and keeping the sample
// cap, SIGKILL at a random moment and resume, SIGTERM stopping cleanly, a corrupted chunk
// reported by name and skipped, config errors naming their key. Runs the vzero binary of the same
// build (VZ_VZERO names another one) and skips when there is none.

#include <fmt/core.h>
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
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "records/game_record.h"
#include "tests/cli_driver.h"
#include "tests/selfplay/tiny_train_run.h"

namespace vz {
namespace {

namespace fs = std::filesystem;

using testing::Execution;
using testing::ReadFile;
using testing::RunVzero;
using testing::StartVzero;
using testing::VzeroPath;
using testing::WaitFor;

// The tiny run (tests/selfplay/tiny_train_run.h) with a 2-game evaluation.
std::vector<std::string> TinyRun(const std::string& run_dir, int steps) {
  return testing::TinyTrainRun(run_dir, steps, {"evaluation.games=2", "evaluation.simulations=4"});
}

// Game numbers of every finished game on disk (chunks and pending files); fails on a duplicate.
// The run's games as its resume sees them: those in chunks, then the finished games in
// records/pending that no chunk holds yet. A kill between writing a chunk and deleting its games'
// single files leaves both on disk (the resume deletes the single files), so a pending file whose
// game is in a chunk is not a second game; StrayPendingGames counts those.
std::multiset<uint64_t> GameIndices(const fs::path& run_dir) {
  std::multiset<uint64_t> indices;
  const auto read = [](const std::string& path) {
    try {
      return ReadRecordChunk(path);
    } catch (const std::exception&) {
      return std::vector<proto::GameRecord>();  // corrupted on purpose in one test
    }
  };
  for (const std::string& path : ListRecordChunks((run_dir / "records").string()))
    for (const proto::GameRecord& record : read(path)) indices.insert(record.index());
  const std::set<uint64_t> chunked(indices.begin(), indices.end());
  for (const std::string& path : ListRecordChunks((run_dir / "records" / "pending").string()))
    for (const proto::GameRecord& record : read(path))
      if (chunked.count(record.index()) == 0) indices.insert(record.index());
  return indices;
}

// Pending single files whose game is already in a chunk: only a kill leaves them.
int StrayPendingGames(const fs::path& run_dir) {
  std::set<uint64_t> chunked;
  for (const std::string& path : ListRecordChunks((run_dir / "records").string()))
    for (const proto::GameRecord& record : ReadRecordChunk(path)) chunked.insert(record.index());
  int stray = 0;
  for (const std::string& path : ListRecordChunks((run_dir / "records" / "pending").string()))
    for (const proto::GameRecord& record : ReadRecordChunk(path))
      stray += int(chunked.count(record.index()));
  return stray;
}

bool Unique(const std::multiset<uint64_t>& indices) {
  return std::set<uint64_t>(indices.begin(), indices.end()).size() == indices.size();
}

nlohmann::json State(const fs::path& run_dir) {
  return nlohmann::json::parse(ReadFile(run_dir / "state.json"), nullptr, false);
}

// The commands these tests run, which only a vzero with LibTorch has.
constexpr const char* kNeeds = "train and export commands";

class TrainCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = testing::VzeroSkipReason(kNeeds); !why.empty()) GTEST_SKIP() << why;
    dir_ = fs::temp_directory_path() /
           ("vzero-train-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    setenv("VZ_TORCH_THREADS", "1", 1);
  }
  void TearDown() override {
    std::error_code error;
    if (!HasFailure()) fs::remove_all(dir_, error);
  }
  fs::path dir_;
};

TEST_F(TrainCliTest, TinyRunEndToEndAndResume) {
  const fs::path run = dir_ / "run";
  const Execution first = RunVzero(TinyRun(run.string(), 12));
  ASSERT_EQ(first.status, 0) << first.output;
  EXPECT_NE(first.output.find("exported net: " + (run / "nets" / "best.vznet").string()),
            std::string::npos)
      << first.output;
  EXPECT_NE(first.output.find("best net vs initial net"), std::string::npos) << first.output;
  EXPECT_NE(first.output.find("best net vs rollout search"), std::string::npos) << first.output;
  for (const char* file :
       {"config.txtpb", "state.json", "metrics.jsonl", "train.log", "evaluation.txt",
        "checkpoints/trainer.ckpt", "nets/initial.vznet", "nets/best.vznet"}) {
    EXPECT_TRUE(fs::exists(run / file)) << file;
  }
  nlohmann::json state = State(run);
  ASSERT_TRUE(state.is_object());
  EXPECT_EQ(state["step"], 12);
  // The gate judged the last candidate (step 12) before the run ended; the one of step 6 was
  // judged or superseded by it.
  for (const char* step : {"00000006", "00000012"}) {
    const fs::path verdict =
        run / "nets" / "candidates" / ("candidate-" + std::string(step) + ".json");
    ASSERT_TRUE(fs::exists(verdict)) << verdict << "\n" << first.output;
  }
  const nlohmann::json last_verdict = nlohmann::json::parse(
      ReadFile(run / "nets" / "candidates" / "candidate-00000012.json"), nullptr, false);
  ASSERT_TRUE(last_verdict.is_object());
  EXPECT_TRUE(last_verdict.contains("score")) << last_verdict.dump();
  // The sample cap: at most 4 training samples per self-play position.
  EXPECT_LE(12 * 16, 4 * state["positions"].get<int64_t>());
  const std::multiset<uint64_t> before = GameIndices(run);
  EXPECT_EQ(int64_t(before.size()), state["games"].get<int64_t>());
  EXPECT_TRUE(Unique(before));
  // Every metric kind was written.
  std::set<std::string> kinds;
  std::istringstream metrics(ReadFile(run / "metrics.jsonl"));
  for (std::string line; std::getline(metrics, line);) {
    const auto object = nlohmann::json::parse(line, nullptr, false);
    ASSERT_TRUE(object.is_object()) << line;
    kinds.insert(object.value("type", ""));
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"selfplay", "ingest", "train", "candidate", "gating",
                                          "session", "evaluation"}));

  // The net is ready for play.
  const Execution search =
      RunVzero({"search", "--variant", "portuguese-draughts", "--evaluator", "net", "--net",
                (run / "nets" / "best.vznet").string(), "--simulations", "8"});
  EXPECT_EQ(search.status, 0) << search.output;

  // Resume: the same settings with a higher step limit continue from step 12, with the best net
  // of the last promotion.
  const int generation = state["generation"].get<int>();
  EXPECT_EQ(fs::exists(run / "nets" / ("best-000" + std::to_string(generation) + ".vznet")),
            generation > 0);
  const Execution second = RunVzero(TinyRun(run.string(), 18));
  ASSERT_EQ(second.status, 0) << second.output;
  EXPECT_NE(second.output.find("resuming run"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("step 12"), std::string::npos) << second.output;
  EXPECT_NE(second.output.find("generation " + std::to_string(generation) + ")"), std::string::npos)
      << second.output;
  state = State(run);
  EXPECT_EQ(state["step"], 18);
  const std::multiset<uint64_t> after = GameIndices(run);
  EXPECT_TRUE(Unique(after));
  for (uint64_t index : before) EXPECT_EQ(after.count(index), 1u) << "game " << index;

  // export and report.
  const fs::path exported = dir_ / "exported.vznet";
  const Execution exporting = RunVzero(
      {"export", (run / "checkpoints" / "trainer.ckpt").string(), "-o", exported.string()});
  EXPECT_EQ(exporting.status, 0) << exporting.output;
  EXPECT_NE(exporting.output.find("step 18"), std::string::npos) << exporting.output;
  EXPECT_TRUE(fs::exists(exported));
  const Execution bad_export =
      RunVzero({"export", (run / "state.json").string(), "-o", (dir_ / "x.vznet").string()});
  EXPECT_EQ(bad_export.status, 1);
  EXPECT_NE(bad_export.output.find("state.json"), std::string::npos) << bad_export.output;
  // Exporting over the checkpoint itself, or over a file that is not a net file, is refused and
  // leaves the file; over the earlier export (a net file) it replaces it.
  const std::string checkpoint = (run / "checkpoints" / "trainer.ckpt").string();
  const uintmax_t checkpoint_bytes = fs::file_size(checkpoint);
  const Execution over_checkpoint = RunVzero({"export", checkpoint, "-o", checkpoint});
  EXPECT_EQ(over_checkpoint.status, 1);
  EXPECT_NE(over_checkpoint.output.find("is the checkpoint itself"), std::string::npos)
      << over_checkpoint.output;
  EXPECT_EQ(fs::file_size(checkpoint), checkpoint_bytes);
  const Execution over_state =
      RunVzero({"export", checkpoint, "-o", (run / "state.json").string()});
  EXPECT_EQ(over_state.status, 1);
  EXPECT_NE(over_state.output.find("not overwritten"), std::string::npos) << over_state.output;
  EXPECT_EQ(RunVzero({"export", checkpoint, "-o", exported.string()}).status, 0);
  const Execution report = RunVzero({"report", run.string()});
  EXPECT_EQ(report.status, 0) << report.output;
  EXPECT_NE(report.output.find("gating:"), std::string::npos) << report.output;

  // Another config in the same run directory is refused.
  std::vector<std::string> other = TinyRun(run.string(), 24);
  other.insert(other.end(), {"--set", "selfplay.simulations=5"});
  const Execution refused = RunVzero(other);
  EXPECT_EQ(refused.status, 1);
  EXPECT_NE(refused.output.find("another config"), std::string::npos) << refused.output;
}

// Self-play, training and gating run at once in threads of one process: every game a record file
// holds is counted once by the trainer, every game the worker finished is in a record file, and
// at every moment the trainer reported, samples trained <= cap x positions read.
TEST_F(TrainCliTest, ConcurrentRolesLoseNoGameAndKeepTheSampleCap) {
  const fs::path run = dir_ / "run";
  // Two actor groups (selfplay/concurrent_actors.h) beside the trainer and the gate.
  const Execution done = RunVzero(testing::TinyTrainRun(
      run.string(), 18,
      {"evaluation.games=2", "evaluation.simulations=4", "selfplay.actor_threads=2"}));
  ASSERT_EQ(done.status, 0) << done.output;
  EXPECT_NE(done.output.find("in 2 actor group(s)"), std::string::npos) << done.output;
  // The games on disk: (worker, index) of every record; no pending game left at a normal end.
  std::multiset<std::pair<std::string, uint64_t>> games;
  int64_t positions_on_disk = 0;
  for (const std::string& path : ListRecordChunks((run / "records").string())) {
    for (const proto::GameRecord& record : ReadRecordChunk(path)) {
      games.emplace(record.worker(), record.index());
      for (const proto::MoveRecord& move : record.moves()) positions_on_disk += move.has_target();
    }
  }
  EXPECT_TRUE(ListRecordChunks((run / "records" / "pending").string()).empty());
  const std::set<std::pair<std::string, uint64_t>> distinct(games.begin(), games.end());
  EXPECT_EQ(distinct.size(), games.size()) << "a game is twice in the records";
  ASSERT_GT(games.size(), 0u);
  for (const auto& [worker, index] : distinct) EXPECT_EQ(worker, "train");
  // Both groups finished games: group 0 numbers them 0, 2, 4, ..., group 1 1, 3, 5, ...
  EXPECT_TRUE(std::any_of(distinct.begin(), distinct.end(),
                          [](const auto& g) { return g.second % 2 == 0; }));
  EXPECT_TRUE(std::any_of(distinct.begin(), distinct.end(),
                          [](const auto& g) { return g.second % 2 == 1; }));
  const nlohmann::json state = State(run);
  ASSERT_TRUE(state.is_object());
  EXPECT_EQ(state.value("games", int64_t{-1}), int64_t(games.size())) << state.dump();
  EXPECT_EQ(state.value("positions", int64_t{-1}), positions_on_disk) << state.dump();
  EXPECT_EQ(state.value("duplicates", int64_t{-1}), 0) << state.dump();
  EXPECT_NE(
      done.output.find(fmt::format("{} games, {} positions)", games.size(), positions_on_disk)),
      std::string::npos)
      << done.output;
  // The cap at every training report (step x batch <= 4 x positions read by then), and in the
  // end; the worker's lines carry the wall-clock rate and the share of time in self-play.
  const double cap = 4, batch = 16;
  int train_lines = 0, selfplay_lines = 0;
  nlohmann::json session;
  std::istringstream metrics(ReadFile(run / "metrics.jsonl"));
  for (std::string line; std::getline(metrics, line);) {
    const auto m = nlohmann::json::parse(line, nullptr, false);
    ASSERT_TRUE(m.is_object()) << line;
    if (m.value("type", "") == "train") {
      ++train_lines;
      EXPECT_LE(batch * m.value("step", 0.0), cap * m.value("positions", 0.0)) << line;
    } else if (m.value("type", "") == "selfplay") {
      ++selfplay_lines;
      EXPECT_GT(m.value("wall_positions_per_second", 0.0), 0.0) << line;
      EXPECT_GT(m.value("selfplay_fraction", 0.0), 0.0) << line;
      EXPECT_LE(m.value("selfplay_fraction", 2.0), 1.0) << line;
    } else if (m.value("type", "") == "session") {
      session = m;
    }
  }
  EXPECT_GT(train_lines, 0);
  EXPECT_GT(selfplay_lines, 0);
  EXPECT_LE(batch * 18, cap * double(state.value("positions", 0)));
  // Every game the worker finished (games in flight at the end are dropped) is on disk.
  ASSERT_TRUE(session.is_object());
  EXPECT_EQ(session.value("selfplay_games", int64_t{-1}), int64_t(games.size())) << session.dump();
  EXPECT_EQ(session.value("selfplay_positions", int64_t{-1}), positions_on_disk) << session.dump();
  EXPECT_NE(done.output.find("positions/s over"), std::string::npos) << done.output;
}

// Issue 18: with gating off every candidate is promoted, and the gate thread measures the net
// self-play uses against a fixed opponent beside self-play (the initial net at once, then the
// net of every checkpoint it gets to): "strength" lines in the metrics, one file per measured
// net, the curve; the end-of-run evaluation and the summary name the fixed opponent; a gate run
// again measures nothing twice.
TEST_F(TrainCliTest, StrengthIsMeasuredInsideTheRunAndNoGatingPromotesEveryCandidate) {
  const fs::path run = dir_ / "run";
  const Execution done = RunVzero(testing::TinyTrainRun(
      run.string(), 18,
      {"gating.mode=none", "strength.opponents=alphabeta:1", "strength.every_checkpoints=1",
       "evaluation.games=2", "evaluation.simulations=4"}));
  ASSERT_EQ(done.status, 0) << done.output;
  // Every checkpoint (steps 6, 12, 18) became the best net; nothing waited for a gate.
  const nlohmann::json state = State(run);
  EXPECT_EQ(state.value("generation", 0), 3) << state.dump();
  for (const char* net : {"best-0001.vznet", "best-0002.vznet", "best-0003.vznet"}) {
    EXPECT_TRUE(fs::exists(run / "nets" / net)) << net;
  }
  EXPECT_TRUE(fs::is_empty(run / "nets" / "candidates"));

  // The strength lines: where the run stood and the match's result with its Elo interval.
  std::set<int64_t> measured_steps;
  std::istringstream metrics(ReadFile(run / "metrics.jsonl"));
  for (std::string line; std::getline(metrics, line);) {
    const auto m = nlohmann::json::parse(line, nullptr, false);
    ASSERT_TRUE(m.is_object()) << line;
    if (m.value("type", "") != "strength") continue;
    measured_steps.insert(m.value("step", int64_t{-1}));
    EXPECT_EQ(m.value("opponent", ""), "alphabeta:1") << line;
    EXPECT_EQ(m.value("games", 0), 2) << line;
    EXPECT_EQ(m.value("wins", 0) + m.value("draws", 0) + m.value("losses", 0), 2) << line;
    EXPECT_EQ(m.value("net", ""), m.value("step", 0) == 0
                                      ? std::string("initial")
                                      : fmt::format("best-{:04d}", m.value("step", 0) / 6))
        << line;
    EXPECT_GE(m.value("selfplay_positions", int64_t{-1}), 0) << line;
    EXPECT_GE(m.value("wall_seconds", -1.0), 0.0) << line;
    EXPECT_LE(m.value("elo_low", 0.0), m.value("elo", 0.0)) << line;
    EXPECT_GE(m.value("elo_high", 0.0), m.value("elo", 0.0)) << line;
  }
  ASSERT_FALSE(measured_steps.empty()) << done.output;
  for (int64_t step : measured_steps) {
    EXPECT_TRUE(fs::exists(run / "strength" / fmt::format("strength-{:08d}.json", step))) << step;
  }
  // The end-of-run evaluation plays the fixed opponent; the summary prints it.
  EXPECT_NE(done.output.find("best net vs alphabeta:1: W "), std::string::npos) << done.output;
  const Execution report = RunVzero({"report", run.string()});
  EXPECT_NE(report.output.find("strength vs alphabeta:1: "), std::string::npos) << report.output;
  // The curve as a table: the initial net's check, then the evaluation's row.
  const Execution table = RunVzero({"report", "--table", run.string()});
  EXPECT_EQ(table.status, 0) << table.output;
  EXPECT_EQ(
      table.output.rfind("| net | step | self-play positions | minutes | vs alphabeta:1 |", 0), 0u)
      << table.output;
  EXPECT_NE(table.output.find("\n| initial | 0 | "), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("\n| evaluation | 18 |  |  | "), std::string::npos) << table.output;
  // A run without fixed opponents has no table: one line naming the run.
  const fs::path bare = dir_ / "bare";
  fs::create_directories(bare);
  std::ofstream(bare / "metrics.jsonl") << R"({"type":"train","step":1,"loss":3})"
                                        << "\n";
  const Execution no_table = RunVzero({"report", "--table", bare.string()});
  EXPECT_EQ(no_table.status, 1);
  EXPECT_NE(no_table.output.find("run " + bare.string() + ": no strength checks"),
            std::string::npos)
      << no_table.output;
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) {
    EXPECT_TRUE(fs::exists(run / "plots" / "strength.svg")) << done.output;
  }

  // A gate run on the finished run measures the best net once (unless the run did), then never
  // again: the files say which nets were measured.
  const Execution gate = RunVzero({"gate", "--run-dir", run.string(), "--once", "--no-status"});
  ASSERT_EQ(gate.status, 0) << gate.output;
  const bool measured_best = measured_steps.count(18) > 0;
  EXPECT_NE(gate.output.find(measured_best ? "0 strength checks" : "1 strength checks"),
            std::string::npos)
      << gate.output;
  EXPECT_TRUE(fs::exists(run / "strength" / "strength-00000018.json"));
  const Execution again = RunVzero({"gate", "--run-dir", run.string(), "--once", "--no-status"});
  EXPECT_NE(again.output.find("0 strength checks"), std::string::npos) << again.output;
}

// A warm start: the alpha-beta games are the run's first chunks (worker "warmstart"), counted in
// the metrics, the nets say what they were taught, and the measured player searches with leaf
// quiescence (evaluation.leaf_quiescence); a resumed run plays no warm-start game again. No gating
// (as in the warm-started demo presets): the step-6 net becomes the best net whatever a 2-game
// gate would have said, so that best.vznet is a trained, warm-started net and not, by the chance
// of a gate's games, the fresh initial one.
TEST_F(TrainCliTest, WarmStartGamesComeFirstAndTheNetsSaySo) {
  const fs::path run = dir_ / "run";
  const std::vector<std::string> settings = {"warm_start.player=alphabeta:1",
                                             "warm_start.games=6",
                                             "warm_start.random_opening_plies=2",
                                             "evaluation.games=2",
                                             "evaluation.simulations=4",
                                             "evaluation.leaf_quiescence=true",
                                             "gating.mode=none"};
  const Execution done = RunVzero(testing::TinyTrainRun(run.string(), 6, settings));
  ASSERT_EQ(done.status, 0) << done.output;
  int warm_games = 0;
  for (const std::string& path : ListRecordChunks((run / "records").string())) {
    if (fs::path(path).filename().string().starts_with("chunk-warmstart-")) {
      for (const proto::GameRecord& record : ReadRecordChunk(path)) {
        EXPECT_EQ(record.net_id(), "alphabeta:1");
        ++warm_games;
      }
    }
  }
  EXPECT_EQ(warm_games, 6);
  EXPECT_NE(ReadFile(run / "metrics.jsonl").find(R"("type":"warm_start")"), std::string::npos);
  const Execution describe = RunVzero({"net", "describe", (run / "nets" / "best.vznet").string()});
  ASSERT_EQ(describe.status, 0) << describe.output;
  EXPECT_NE(describe.output.find("knowledge        warm-started: alphabeta:1, 6 games"),
            std::string::npos)
      << describe.output;
  const std::string evaluation = ReadFile(run / "evaluation.txt");
  EXPECT_NE(evaluation.find("best.vznet:4:qs:"), std::string::npos) << evaluation;

  const Execution resumed = RunVzero(testing::TinyTrainRun(run.string(), 12, settings));
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_EQ(resumed.output.find("warm start: "), std::string::npos) << resumed.output;
}

TEST_F(TrainCliTest, KilledRunResumesWithoutLosingOrRepeatingGames) {
  const fs::path run = dir_ / "run";
  const fs::path log = dir_ / "first.log";
  const pid_t pid = StartVzero(TinyRun(run.string(), 100000), log.string());
  // Kill it once it has finished some games and taken some steps (or after 60 s at most).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    const nlohmann::json state = fs::exists(run / "state.json") ? State(run) : nlohmann::json();
    if (state.is_object() && state.value("step", 0) >= 6) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_NE(WaitFor(pid, 30), -1);
  const std::multiset<uint64_t> before = GameIndices(run);
  ASSERT_TRUE(Unique(before));
  ASSERT_GT(before.size(), 0u) << ReadFile(log);
  const int64_t step_before = State(run).value("step", 0);

  const Execution resumed = RunVzero(TinyRun(run.string(), int(step_before) + 6));
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("step " + std::to_string(step_before)), std::string::npos)
      << resumed.output;
  const std::multiset<uint64_t> after = GameIndices(run);
  EXPECT_TRUE(Unique(after));
  for (uint64_t index : before) EXPECT_EQ(after.count(index), 1u) << "game " << index;
  EXPECT_EQ(State(run)["step"], step_before + 6);
  EXPECT_EQ(StrayPendingGames(run), 0);
}

TEST_F(TrainCliTest, SigtermStopsCleanly) {
  const fs::path run = dir_ / "run";
  const fs::path log = dir_ / "run.log";
  const pid_t pid = StartVzero(TinyRun(run.string(), 100000), log.string());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && GameIndices(run).size() < 4) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  const int status = WaitFor(pid, 120);
  ASSERT_NE(status, -1) << "vzero train did not stop after SIGTERM";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadFile(log);
  const std::string output = ReadFile(log);
  EXPECT_NE(output.find("stopped by a signal"), std::string::npos) << output;
  EXPECT_TRUE(fs::exists(run / "checkpoints" / "trainer.ckpt") || State(run).value("step", 0) == 0);
}

TEST_F(TrainCliTest, CorruptedChunkIsReportedAndSkipped) {
  const fs::path run = dir_ / "run";
  ASSERT_EQ(RunVzero(TinyRun(run.string(), 6)).status, 0);
  const std::vector<std::string> chunks = ListRecordChunks((run / "records").string());
  ASSERT_FALSE(chunks.empty());
  {
    std::fstream file(chunks.front(), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(20);
    file.write("garbage!garbage!", 16);
  }
  const Execution resumed = RunVzero(TinyRun(run.string(), 12));
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("skipping record file"), std::string::npos) << resumed.output;
  EXPECT_NE(resumed.output.find(chunks.front()), std::string::npos) << resumed.output;
}

TEST_F(TrainCliTest, ConfigErrorsNameTheirKey) {
  const fs::path run = dir_ / "run";
  std::vector<std::string> arguments = TinyRun(run.string(), 6);
  arguments.insert(arguments.end(), {"--set", "selfplay.simulations=0"});
  Execution bad = RunVzero(arguments);
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("selfplay.simulations"), std::string::npos) << bad.output;

  arguments = TinyRun(run.string(), 6);
  arguments.insert(arguments.end(), {"--set", "selfplay.simulation=8"});
  bad = RunVzero(arguments);
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("selfplay.simulation"), std::string::npos) << bad.output;

  const fs::path config = dir_ / "bad.txtpb";
  std::ofstream(config) << "variant: \"chad\"\nselfplay { simulatoins: 3 }\n";
  bad = RunVzero({"train", "--config", config.string(), "--run-dir", run.string()});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("simulatoins"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find(config.string() + ":2"), std::string::npos) << bad.output;

  bad = RunVzero({"train", "--preset", "nope", "--run-dir", run.string()});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("nope"), std::string::npos) << bad.output;
  EXPECT_FALSE(fs::exists(run / "config.txtpb"));
}

TEST_F(TrainCliTest, PrintConfigPrintsWhatWouldRunAndCreatesNothing) {
  const fs::path run = dir_ / "run";
  const Execution printed =
      RunVzero({"train", "--preset", "gpu", "--set", "selfplay.simulations=400", "--run-dir",
                run.string(), "--print-config"});
  ASSERT_EQ(printed.status, 0) << printed.output;
  EXPECT_NE(printed.output.find("simulations: 400"), std::string::npos) << printed.output;
  EXPECT_FALSE(fs::exists(run)) << "--print-config created the run directory";

  // The printed text is a config file that prints the same again.
  const fs::path file = dir_ / "printed.txtpb";
  std::ofstream(file) << printed.output;
  const Execution again = RunVzero({"train", "--config", file.string(), "--run-dir",
                                    (dir_ / "run2").string(), "--print-config"});
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_EQ(again.output, printed.output);

  // What the run would refuse: a value out of range, a net to start from (no run to start), and
  // another config than the run directory's.
  Execution bad = RunVzero(
      {"train", "--preset", "gpu", "--set", "selfplay.cheap_simulations=999", "--print-config"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("selfplay.cheap_simulations"), std::string::npos) << bad.output;
  EXPECT_EQ(bad.output.find("variant:"), std::string::npos) << bad.output;
  bad = RunVzero({"train", "--init-net", "x.vznet", "--print-config"});
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("--init-net"), std::string::npos) << bad.output;
  fs::create_directories(run);
  std::ofstream(run / "config.txtpb") << printed.output;
  bad = RunVzero({"train", "--preset", "demo", "--run-dir", run.string(), "--print-config"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("another config"), std::string::npos) << bad.output;
  const Execution saved = RunVzero({"train", "--run-dir", run.string(), "--print-config"});
  EXPECT_EQ(saved.status, 0) << saved.output;
  EXPECT_EQ(saved.output, printed.output);
  EXPECT_FALSE(fs::exists(run / "lock")) << "--print-config locked the run directory";
}

}  // namespace
}  // namespace vz
