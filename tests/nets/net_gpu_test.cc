// The network on a CUDA device (label gpu): the evaluator in bf16 and fp16 agrees with the CPU in
// fp32 to within the precision's tolerance, and a training step runs. Skips without a device.

#include <gtest/gtest.h>

#include <cmath>

#include "engine/encodings.h"
#include "nets/fresh_net.h"
#include "nets/net_runner.h"
#include "nets/torch_evaluator.h"
#include "nets/trainer.h"
#include "tests/nets/net_test_util.h"

namespace vz::nets {
namespace {

TEST(NetGpuTest, CudaEvaluatorAgreesWithTheCpu) {
  VZ_SKIP_WITHOUT_CUDA();
  using G = chad::ChadGame;
  const NetFile net = FreshNetForGame<G>("small", 1);
  TorchEvaluator<G> cpu(net, "cpu-net", "cpu", "fp32", 0);
  EvalBatch<G> reference;
  testing::FillEvalBatch(reference, 64, /*seed=*/3, /*max_plies=*/80);
  cpu.Evaluate(reference);
  for (const char* precision : {"fp32", "bf16", "fp16"}) {
    TorchEvaluator<G> gpu(net, "gpu-net", "cuda:0", precision, 64);
    EXPECT_EQ(gpu.runner().device(), "cuda:0");
    EvalBatch<G> batch;
    testing::FillEvalBatch(batch, 64, /*seed=*/3, /*max_plies=*/80);
    gpu.Evaluate(batch);
    const double tolerance = std::string(precision) == "fp32" ? 1e-3 : 5e-2;
    EXPECT_LT(testing::WorstDifference(batch, reference), tolerance) << precision;
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

}  // namespace
}  // namespace vz::nets
