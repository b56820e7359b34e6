// The shared run directory (selfplay/run_dir.h) and the cluster roles' helpers
// (selfplay/cluster.h): the run's config adopted once (concurrent creators, another config
// refused, stop-only overrides), worker ids, the run lock, temporary files, the promoted step.
// (Chunk and file names: tests/records/.)

#include "selfplay/run_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/atomic_file.h"
#include "engine/encodings.h"
#include "engine/games.h"
#if VZ_HAVE_TORCH
#include "nets/fresh_net.h"
#include "nets/net_file.h"
#endif
#include "records/game_record.h"
#include "selfplay/cluster.h"
#include "selfplay/train_config.h"
#include "tests/test_util.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using vz::testing::ErrorOf;

class RunDirTest : public vz::testing::TempDirTest {};

TEST_F(RunDirTest, ConfigIsAdoptedOnceAndOnlyStopMayChange) {
  RunConfigChoice choice;
  choice.variant = "portuguese-draughts";
  choice.overrides = {"selfplay.simulations=8"};
  const proto::TrainConfig config = ConfigFromChoice(choice);
  EXPECT_EQ(config.selfplay().simulations(), 8u);
  const std::string run = File("run");
  // Racing creators of the same config: one writes, the others agree.
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      try {
        AdoptRunConfig(run, config);
      } catch (const Error&) {
        ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_TRUE(SavedConfig(run));
  EXPECT_EQ(TrainConfigHash(*SavedConfig(run)), TrainConfigHash(config));
  for (const auto& entry : fs::directory_iterator(run)) {
    EXPECT_EQ(entry.path().filename(), "config.txtpb") << "left behind: " << entry.path();
  }
  // Another stop section is the same run; another simulation count is not.
  proto::TrainConfig stop_only = config;
  stop_only.mutable_stop()->set_train_steps(99);
  EXPECT_EQ(ErrorOf([&] { AdoptRunConfig(run, stop_only); }), "");
  proto::TrainConfig other = config;
  other.mutable_selfplay()->set_simulations(9);
  EXPECT_NE(ErrorOf([&] { AdoptRunConfig(run, other); }).find(run), std::string::npos);

  EXPECT_EQ(OverrideSavedConfig(config, {"stop.train_steps=7"}, run).stop().train_steps(), 7u);
  EXPECT_EQ(OverrideSavedConfig(config, {"selfplay.device=cpu"}, run).selfplay().device(), "cpu");
  const std::string refused =
      ErrorOf([&] { OverrideSavedConfig(config, {"selfplay.simulations=9"}, run); });
  EXPECT_NE(refused.find("selfplay.simulations"), std::string::npos) << refused;
  EXPECT_NE(ErrorOf([&] { OverrideSavedConfig(config, {"stop.nope=1"}, run); }).find("stop.nope"),
            std::string::npos);
  choice.preset = "demo";
  choice.config_file = File("x.txtpb");
  EXPECT_NE(ErrorOf([&] { ConfigFromChoice(choice); }).find("--preset or --config"),
            std::string::npos);
  // One game's preset is not run on another's board by a --set.
  RunConfigChoice switched;
  switched.variant = "chad";
  switched.overrides = {"variant=cuarenta"};
  EXPECT_NE(ErrorOf([&] { ConfigFromChoice(switched); }).find("--set variant=cuarenta"),
            std::string::npos);
}

// A run whose config.txtpb is gone (deleted by hand) cannot be told from another run: no config,
// not even the default one, may adopt its nets, records or checkpoints. The empty directories and
// locks that roles create while they wait for the config do not make a run.
TEST_F(RunDirTest, ARunWithoutItsConfigIsNotAdopted) {
  RunConfigChoice choice;
  choice.variant = "chad";
  const proto::TrainConfig config = ConfigFromChoice(choice);
  const std::string run = File("run");
  CreateRunDirectories(run, {"records/pending", "nets/candidates", "checkpoints"});
  std::ofstream(fs::path(run) / "lock") << "";
  EXPECT_EQ(ErrorOf([&] { CheckRunConfig(run, config); }), "");
  const std::vector<std::string> files = {"nets/best.vznet", "checkpoints/trainer.ckpt",
                                          "records/chunk-000001.vzr", "state.json"};
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& file = files[i];
    const std::string other = File("run-" + std::to_string(i));
    fs::copy(run, other, fs::copy_options::recursive);
    std::ofstream(fs::path(other) / file) << "x";
    const std::string error = ErrorOf([&] { AdoptRunConfig(other, config); });
    EXPECT_NE(error.find("no config.txtpb"), std::string::npos) << file << ": " << error;
    EXPECT_FALSE(fs::exists(fs::path(other) / "config.txtpb")) << file;
  }
  AdoptRunConfig(run, config);
  EXPECT_TRUE(SavedConfig(run));
}

TEST_F(RunDirTest, WaitForRunConfigReadsTheSavedOneOrStops) {
  const std::string run = File("run");
  CreateRunDirectories(run, {"logs"});
  EXPECT_TRUE(fs::is_directory(dir_ / "run" / "logs"));
  std::atomic<bool> stop{true};
  int waited = 0;
  RunConfigChoice none;
  EXPECT_FALSE(WaitForRunConfig(run, none, 0.01, stop, [&] { ++waited; }));
  RunConfigChoice chosen;
  chosen.variant = "chad";
  // Another thread creates the run while this one waits.
  stop = false;
  std::thread creator([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    WaitForRunConfig(run, chosen, 0.01, stop, nullptr);
  });
  none.overrides = {"stop.games=5"};
  const std::optional<proto::TrainConfig> config =
      WaitForRunConfig(run, none, 0.01, stop, [&] { ++waited; });
  creator.join();
  ASSERT_TRUE(config);
  EXPECT_EQ(config->variant(), "chad");
  EXPECT_EQ(config->stop().games(), 5u);
  EXPECT_GE(waited, 1);
}

TEST_F(RunDirTest, ExclusiveFilesAndTheDefaultWorkerId) {
  EXPECT_TRUE(CreateFileAtomically(File("once"), "first"));
  EXPECT_FALSE(CreateFileAtomically(File("once"), "second"));
  std::ifstream in(File("once"));
  std::string text;
  in >> text;
  EXPECT_EQ(text, "first");
  EXPECT_EQ(ErrorOf([] { CheckWorkerId(DefaultWorkerId()); }), "");
}

// Issue 17: one process of a unique role per run directory. flock(2) locks of two open file
// descriptions conflict within one process too, which stands in here for a second process (the
// kill test, scripts/kill-test.sh, refuses a second `vzero train` while the first runs).
TEST_F(RunDirTest, ASecondHolderOfTheRunLockIsRefused) {
  {
    const RunLock first(dir_.string(), "lock", "vzero train");
    const std::string error =
        ErrorOf([&] { RunLock second(dir_.string(), "lock", "vzero train"); });
    EXPECT_NE(error.find("in use by vzero train (pid " + std::to_string(getpid()) + ")"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find(dir_.string()), std::string::npos) << error;
    // Another role's lock is another file.
    EXPECT_EQ(ErrorOf([&] { RunLock gate(dir_.string(), "gate.lock", "vzero gate"); }), "");
  }
  EXPECT_EQ(ErrorOf([&] { RunLock again(dir_.string(), "lock", "vzero train"); }), "");
  EXPECT_NE(ErrorOf([&] { RunLock none(File("absent/dir"), "lock", "x"); }).find("absent"),
            std::string::npos);
}

TEST_F(RunDirTest, TemporaryFilesOfKilledSavesAreRemoved) {
  fs::create_directories(dir_ / "records" / "pending");
  std::ofstream(File("state.json.tmp.4242.1")) << "half";
  std::ofstream(File("records/pending/chunk-000003.vzr.tmp.4243.ff")) << "half";
  std::ofstream(File("records/chunk-000001.vzr")) << "whole";
  EXPECT_EQ(RemoveTemporaryFiles(dir_.string(), {"records", "records/pending", "absent"}), 2);
  EXPECT_TRUE(fs::exists(File("records/chunk-000001.vzr")));
  EXPECT_FALSE(fs::exists(File("state.json.tmp.4242.1")));
}

#if VZ_HAVE_TORCH
TEST_F(RunDirTest, PromotedStepIsTheHighestPromotedNetsStep) {
  EXPECT_EQ(PromotedStep(dir_.string()), -1);
  nets::NetFile net = nets::FreshNetForGame<draughts::DraughtsGame>("tiny", 1);
  net.provenance.training_steps = 40;
  nets::WriteNetFile(File(GenerationFile(1)), net);
  net.provenance.training_steps = 80;
  nets::WriteNetFile(File(GenerationFile(2)), net);
  EXPECT_EQ(PromotedStep(dir_.string()), 80);
  std::ofstream(File(GenerationFile(3))) << "not a net";
  EXPECT_EQ(PromotedStep(dir_.string()), -1);
}
#endif

}  // namespace
}  // namespace vz
