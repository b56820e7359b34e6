// The LibTorch library on first use (nets/torch_backend.h) inside a test executable, which loads
// it from the build directory as the vzero binary does: nothing torch-free loads it (setting the
// CPU threads only records them, and the load applies them), the first net does, a net evaluator
// built through this process's evaluator slot (engine/search/evaluator_registry.h) runs on it,
// and settings made after the load reach the loaded backend. Run as one executable the file's
// tests run in order and the first one must see LibTorch unloaded; CTest runs each alone.

#include "nets/torch_backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <thread>

#include "engine/core/game_state.h"
#include "engine/games.h"
#include "engine/search/evaluator_registry.h"
#include "nets/net_runner.h"
#include "nets/variant_nets.h"
#include "tests/test_util.h"

namespace vz::nets {
namespace {

class TorchBackendTest : public testing::TempDirTest {};

// A thread count that is never LibTorch's default (which is at most the number of cores).
int UnusualThreadCount() { return int(std::thread::hardware_concurrency()) + 1; }

TEST_F(TorchBackendTest, LoadsOnFirstUseAndServesTheEvaluatorSlot) {
  // Start-up work of the binary (app/main.cc, --threads): neither loads LibTorch.
  SetCpuThreads(UnusualThreadCount());
  InstallNetEvaluators();
  EXPECT_FALSE(TorchLoaded());

  const std::string path = File("chad.vznet");
  WriteNetFile(path, FreshNetForVariant("chad", "tiny", 7));
  EXPECT_TRUE(TorchLoaded());
  EXPECT_EQ(Torch().CpuThreads(), UnusualThreadCount());  // the recorded setting, applied

  using G = chad::ChadGame;
  std::unique_ptr<Evaluator<G>> evaluator = LoadNetEvaluator<G>(path, "cpu");
  ASSERT_NE(evaluator, nullptr);
  GameState<G> game;
  EvalBatch<G> batch;
  const auto& moves = game.legal_moves();
  batch.Add(game.position(), moves.moves, moves.size, game.RepetitionCount());
  evaluator->Evaluate(batch);
  double sum = 0;
  for (float prior : batch.priors(0)) sum += prior;
  EXPECT_NEAR(sum, 1.0, 1e-4);
  const Wdl& value = batch.value(0);
  EXPECT_NEAR(value.win + value.draw + value.loss, 1.0, 1e-4);
}

TEST_F(TorchBackendTest, SettingsAfterTheLoadReachTheLoadedBackend) {
  Torch();  // loads LibTorch where this test runs on its own (CTest runs each test alone)
  ASSERT_TRUE(TorchLoaded());
  SetCpuThreads(UnusualThreadCount());
  EXPECT_EQ(Torch().CpuThreads(), UnusualThreadCount());
  SetCpuThreads(1);
  EXPECT_EQ(Torch().CpuThreads(), 1);
  SetCpuThreads(0);  // at least one thread
  EXPECT_EQ(Torch().CpuThreads(), 1);
}

}  // namespace
}  // namespace vz::nets
