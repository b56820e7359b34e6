// The network on a CUDA device (label gpu): the evaluator in bf16 and fp16 agrees with the CPU in
// fp32 to within the precision's tolerance, and a training step runs. Skips without a device.

#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/encodings.h"
#include "nets/fresh_net.h"
#include "nets/net_runner.h"
#include "nets/torch_evaluator.h"
#include "nets/trainer.h"

namespace vz::nets {
namespace {

// One CPU thread: the tests run next to others on a shared machine.
const bool kSingleThread = (SetCpuThreads(1), true);

#define VZ_SKIP_WITHOUT_CUDA() \
  if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device present: GPU test skipped"

template <Game G>
void FillBatch(EvalBatch<G>& batch, int count) {
  batch.Clear();
  uint64_t state = 3;
  while (batch.size() < count) {
    GameState<G> game;
    for (int ply = 0; ply < 80 && batch.size() < count && !game.outcome().IsTerminal(); ++ply) {
      const auto& moves = game.legal_moves();
      batch.Add(game.position(), moves.moves, moves.size, game.RepetitionCount());
      state = SplitMix64(state);
      game.Play(moves[int(state % uint64_t(moves.size))]);
    }
  }
}

TEST(NetGpuTest, CudaEvaluatorAgreesWithTheCpu) {
  VZ_SKIP_WITHOUT_CUDA();
  using G = chad::ChadGame;
  const NetFile net = FreshNetForGame<G>("small", 1);
  TorchEvaluator<G> cpu(net, "cpu-net", "cpu", "fp32", 0);
  EvalBatch<G> reference;
  FillBatch(reference, 64);
  cpu.Evaluate(reference);
  for (const char* precision : {"fp32", "bf16", "fp16"}) {
    TorchEvaluator<G> gpu(net, "gpu-net", "cuda:0", precision, 64);
    EXPECT_EQ(gpu.runner().device(), "cuda:0");
    EvalBatch<G> batch;
    FillBatch(batch, 64);
    gpu.Evaluate(batch);
    const double tolerance = std::string(precision) == "fp32" ? 1e-3 : 5e-2;
    double worst = 0;
    for (int i = 0; i < batch.size(); ++i) {
      for (size_t k = 0; k < batch.priors(i).size(); ++k) {
        worst = std::max(worst, double(std::abs(batch.priors(i)[k] - reference.priors(i)[k])));
      }
      worst = std::max(worst, double(std::abs(batch.value(i).win - reference.value(i).win)));
    }
    EXPECT_LT(worst, tolerance) << precision;
  }
  EXPECT_EQ(TorchEvaluator<G>(net, "n", "cuda", "auto", 0).runner().precision(), "bf16");
}

TEST(NetGpuTest, TrainingStepRunsOnTheGpu) {
  VZ_SKIP_WITHOUT_CUDA();
  using G = cuarenta::CuarentaGame;
  using E = InputEncoding<G>;
  TrainingBatch batch;
  batch.size = 16;
  batch.planes.assign(size_t(batch.size) * E::kSize, 0.5f);
  batch.policy.assign(size_t(batch.size) * E::kNumActions, 0.0f);
  batch.wdl.assign(size_t(batch.size) * 3, 0.0f);
  for (int i = 0; i < batch.size; ++i) {
    batch.policy[size_t(i) * E::kNumActions + i] = 1.0f;
    batch.wdl[size_t(i) * 3 + i % 3] = 1.0f;
  }
  TrainerOptions options;
  options.device = "cuda:0";
  Trainer trainer(FreshNetForGame<G>("small", 1), options);
  const TrainMetrics first = trainer.Step(batch);
  TrainMetrics last = first;
  for (int step = 0; step < 20; ++step) last = trainer.Step(batch);
  EXPECT_TRUE(std::isfinite(last.loss));
  EXPECT_LT(last.loss, first.loss);
}

TEST(NetGpuTest, MissingDeviceIsAnError) {
  if (CudaDeviceCount() > 0) GTEST_SKIP() << "a CUDA device is present";
  const NetFile net = FreshNetForGame<draughts::DraughtsGame>("tiny", 1);
  try {
    NetRunner runner(net, "n", "cuda:0");
    ADD_FAILURE() << "no error without a device";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), "device 'cuda:0': no CUDA device is present");
  }
}

}  // namespace
}  // namespace vz::nets
