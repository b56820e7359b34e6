// The GPU evaluator (nets/cuda_evaluator.h) equals the LibTorch evaluator (nets/torch_evaluator.h)
// on the same CUDA device and precision to float tolerance, and the CPU's fp32 evaluator within
// the precision's tolerance, for every game, over batches of growing and shrinking size; the
// factory picks it for CUDA devices; a batch whose moves are not the rule core's legal moves is
// refused. Skips with a message where no CUDA device is present (label gpu).

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

// Without the CUDA kernels there is no GPU evaluator to test.
#if !defined(VZ_HAVE_CUDA)
TEST(CudaEvaluatorGpuTest, NeedsTheCudaKernels) {
  GTEST_SKIP() << "built without the CUDA kernels (VZ_USE_CUDA off)";
}
#else

template <class G>
class CudaEvaluatorGpuTest : public ::testing::Test {};
TYPED_TEST_SUITE(CudaEvaluatorGpuTest, vz::testing::AllGameTypes, vz::testing::GameNames);

TYPED_TEST(CudaEvaluatorGpuTest, EqualsTheTorchEvaluator) {
  VZ_SKIP_WITHOUT_CUDA();
  using G = TypeParam;
  const NetFile net = FreshNetForGame<G>("small", 7);
  TorchEvaluator<G> cpu(net, "net", "cpu", "fp32", 0);
  // The host move source with CUDA graphs (the defaults), the device source without them.
  struct Mode {
    GpuMoveSource moves;
    bool graphs;
  };
  for (const Mode mode : {Mode{GpuMoveSource::kHost, true}, Mode{GpuMoveSource::kDevice, false}})
    for (const char* precision : {"fp32", "bf16"}) {
      SCOPED_TRACE(precision);
      SCOPED_TRACE(mode.moves == GpuMoveSource::kHost ? "host moves" : "device moves");
      TorchEvaluator<G> torch_gpu(net, "net", "cuda:0", precision, 0);
      CudaEvaluator<G> gpu(net, "net", "cuda:0", precision, 4, mode.moves,
                           {.cuda_graphs = mode.graphs});
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
      if (mode.graphs) {
        EXPECT_NE(tuning.find("CUDA graphs (6 captured)"), std::string::npos) << tuning;
      } else {
        EXPECT_NE(tuning.find("CUDA graphs off: turned off"), std::string::npos) << tuning;
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
  }
  EXPECT_NE(dynamic_cast<TorchEvaluator<G>*>(MakeNetEvaluator<G>(net, "n", "cpu", "auto", 0).get()),
            nullptr);
}

TEST(CudaEvaluatorGpuErrorsTest, MovesThatAreNotTheLegalMovesAreRefused) {
  VZ_SKIP_WITHOUT_CUDA();
  using G = cuarenta::CuarentaGame;
  const NetFile net = FreshNetForGame<G>("tiny", 2);
  CudaEvaluator<G> gpu(net, "net", "cuda", "fp32", 0, GpuMoveSource::kDevice);
  const G::Position start = G::InitialPosition();
  G::MoveList moves;
  G::GenerateMoves(start, moves);
  ASSERT_GE(moves.size, 2);
  EvalBatch<G> fewer;
  fewer.Add(start, moves.moves, moves.size - 1, 1);
  EXPECT_THROW(gpu.Evaluate(fewer), Error);
  std::swap(moves.moves[0], moves.moves[1]);
  EvalBatch<G> reordered;
  reordered.Add(start, moves.moves, moves.size, 1);
  EXPECT_THROW(gpu.Evaluate(reordered), Error);
  // The evaluator still works afterwards.
  std::swap(moves.moves[0], moves.moves[1]);
  EvalBatch<G> good;
  good.Add(start, moves.moves, moves.size, 1);
  gpu.Evaluate(good);
  double sum = 0;
  for (float prior : good.priors(0)) sum += prior;
  EXPECT_NEAR(sum, 1.0, 1e-4);
}

#endif  // VZ_HAVE_CUDA

}  // namespace
}  // namespace vz::nets
