// The GPU evaluator (nets/cuda_evaluator.h) equals the LibTorch evaluator (nets/torch_evaluator.h)
// on the same CUDA device and precision to float tolerance, and the CPU's fp32 evaluator within
// the precision's tolerance, for every game, over batches of growing and shrinking size, with
// CUDA graphs off (the default) and on (each graph passing its own check); the factory picks it
// for CUDA devices. Skips with a message where no CUDA device is present (label gpu). Built with
// the CUDA kernels only (no GPU evaluator otherwise); what of it needs no device (a CPU device
// refused, the runner's device-only calls) is tested in net_runner_test.cc (label unit).

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "nets/fresh_net.h"
#include "nets/net_evaluator.h"
#include "nets/net_runner.h"
#include "tests/engine/game_types.h"
#include "tests/nets/net_test_util.h"

namespace vz::nets {
namespace {

using testing::FillEvalBatch;
using testing::WorstDifference;

#if defined(VZ_HAVE_CUDA)

template <class G>
class CudaEvaluatorGpuTest : public ::testing::Test {};
TYPED_TEST_SUITE(CudaEvaluatorGpuTest, vz::testing::AllGameTypes, vz::testing::GameNames);

TYPED_TEST(CudaEvaluatorGpuTest, EqualsTheTorchEvaluator) {
  VZ_SKIP_WITHOUT_CUDA();
  using G = TypeParam;
  const NetFile net = FreshNetForGame<G>("small", 7);
  TorchEvaluator<G> cpu(net, "net", "cpu", "fp32", 0);
  for (const bool graphs : {false, true})
    for (const char* precision : {"fp32", "bf16"}) {
      SCOPED_TRACE(precision);
      SCOPED_TRACE(graphs ? "CUDA graphs on" : "CUDA graphs off");
      TorchEvaluator<G> torch_gpu(net, "net", "cuda:0", precision, 0);
      CudaEvaluator<G> gpu(net, "net", "cuda:0", precision, 4, {.cuda_graphs = graphs});
      EXPECT_EQ(gpu.runner().device(), "cuda:0");
      EXPECT_EQ(gpu.runner().precision(), precision);
      // Sizes up and down exercise the buffers' growth and partial use.
      for (int size : {1, 37, 300, 5, 1024}) {
        SCOPED_TRACE(size);
        EvalBatch<G> expected, actual, reference;
        FillEvalBatch(expected, size, uint64_t(size), /*max_plies=*/300);
        FillEvalBatch(actual, size, uint64_t(size), /*max_plies=*/300);
        torch_gpu.Evaluate(expected);
        gpu.Evaluate(actual);
        // Same device, same precision, same input values: only the softmax arithmetic and the
        // convolution algorithms differ (cuDNN autotunes the padded and the unpadded shapes
        // apart; LibTorch lets fp32 convolutions use TF32, 10-bit mantissas, by default).
        EXPECT_LT(WorstDifference(expected, actual),
                  std::string(precision) == "fp32" ? 2e-3 : 5e-3);
        if (size <= 300) {
          FillEvalBatch(reference, size, uint64_t(size), /*max_plies=*/300);
          cpu.Evaluate(reference);
          EXPECT_LT(WorstDifference(reference, actual),
                    std::string(precision) == "fp32" ? 1e-2 : 6e-2);
        }
        for (int i = 0; i < actual.size(); ++i) {
          double sum = 0;
          for (float prior : actual.priors(i)) sum += prior;
          EXPECT_NEAR(sum, 1.0, 1e-4);
        }
      }
      // The graphs passed their check against the eager pass: one per padded size used (4 for the
      // warm-up, 1, 64, 512, 8, 1024).
      const std::string tuning = gpu.runner().tuning();
      EXPECT_EQ(tuning.find("channels-last"), 0u) << tuning;
      if (graphs) {
        EXPECT_NE(tuning.find("CUDA graphs (6 captured)"), std::string::npos) << tuning;
      } else {
        EXPECT_NE(tuning.find("CUDA graphs off: not turned on"), std::string::npos) << tuning;
      }
    }
}

TEST(CudaEvaluatorFactoryGpuTest, CudaDevicesGetTheGpuEvaluator) {
  VZ_SKIP_WITHOUT_CUDA();
  using G = chad::ChadGame;
  const NetFile net = FreshNetForGame<G>("tiny", 1);
  for (const char* device : {"auto", "cuda", "cuda:0"}) {
    auto evaluator = MakeNetEvaluator<G>(net, "net", device, "auto", 0);
    EXPECT_NE(dynamic_cast<CudaEvaluator<G>*>(evaluator.get()), nullptr) << device;
    EXPECT_EQ(RunnerOf(*evaluator).precision(), "bf16");
    // CUDA graphs are off unless asked for (RunnerOptions::cuda_graphs).
    EXPECT_EQ(RunnerOf(*evaluator).tuning(), "channels-last, CUDA graphs off: not turned on");
  }
  EXPECT_NE(dynamic_cast<TorchEvaluator<G>*>(MakeNetEvaluator<G>(net, "n", "cpu", "auto", 0).get()),
            nullptr);
}

#endif  // VZ_HAVE_CUDA

}  // namespace
}  // namespace vz::nets
