// The GPU evaluator (nets/cuda_evaluator.h) equals the LibTorch evaluator (nets/torch_evaluator.h)
// on the same CUDA device and precision to float tolerance, and the CPU's fp32 evaluator within
// the precision's tolerance, for every game, over batches of growing and shrinking size; the
// factory picks it for CUDA devices; a batch whose moves are not the rule core's legal moves is
// refused. Skips with a message where no CUDA device is present (label gpu).

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "nets/fresh_net.h"
#include "nets/net_evaluator.h"
#include "nets/net_runner.h"
#include "tests/engine/game_types.h"

namespace vz::nets {
namespace {

const bool kSingleThread = (SetCpuThreads(1), true);

#define VZ_SKIP_WITHOUT_CUDA() \
  if (CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device present: GPU evaluator not run"

template <Game G>
void FillBatch(EvalBatch<G>& batch, int count, uint64_t seed) {
  batch.Clear();
  uint64_t state = seed;
  while (batch.size() < count) {
    GameState<G> game;
    for (int ply = 0; ply < 300 && batch.size() < count && !game.outcome().IsTerminal(); ++ply) {
      const auto& moves = game.legal_moves();
      if (moves.size == 0) break;
      batch.Add(game.position(), moves.moves, moves.size, game.RepetitionCount());
      state = SplitMix64(state);
      game.Play(moves[int(state % uint64_t(moves.size))]);
    }
  }
}

// Largest absolute difference of priors and WDL between two evaluations of the same batch.
template <Game G>
double WorstDifference(const EvalBatch<G>& a, const EvalBatch<G>& b) {
  double worst = 0;
  for (int i = 0; i < a.size(); ++i) {
    for (size_t k = 0; k < a.priors(i).size(); ++k) {
      worst = std::max(worst, double(std::abs(a.priors(i)[k] - b.priors(i)[k])));
    }
    worst = std::max(worst, double(std::abs(a.value(i).win - b.value(i).win)));
    worst = std::max(worst, double(std::abs(a.value(i).draw - b.value(i).draw)));
    worst = std::max(worst, double(std::abs(a.value(i).loss - b.value(i).loss)));
  }
  return worst;
}

template <class G>
class CudaEvaluatorGpuTest : public ::testing::Test {};
TYPED_TEST_SUITE(CudaEvaluatorGpuTest, vz::testing::AllGameTypes, vz::testing::GameNames);

TYPED_TEST(CudaEvaluatorGpuTest, EqualsTheTorchEvaluator) {
  VZ_SKIP_WITHOUT_CUDA();
#if defined(VZ_HAVE_CUDA)
  using G = TypeParam;
  const NetFile net = FreshNetForGame<G>("small", 7);
  TorchEvaluator<G> cpu(net, "net", "cpu", "fp32", 0);
  for (const char* precision : {"fp32", "bf16"}) {
    SCOPED_TRACE(precision);
    TorchEvaluator<G> torch_gpu(net, "net", "cuda:0", precision, 0);
    CudaEvaluator<G> gpu(net, "net", "cuda:0", precision, 4);
    EXPECT_EQ(gpu.runner().device(), "cuda:0");
    EXPECT_EQ(gpu.runner().precision(), precision);
    // Sizes up and down exercise the buffers' growth and partial use.
    for (int size : {1, 37, 300, 5, 1024}) {
      SCOPED_TRACE(size);
      EvalBatch<G> expected, actual, reference;
      FillBatch(expected, size, uint64_t(size));
      FillBatch(actual, size, uint64_t(size));
      torch_gpu.Evaluate(expected);
      gpu.Evaluate(actual);
      // Same device, same precision, same input values: only the softmax arithmetic differs
      // (and, in bf16, possibly the rounding of a differently scheduled convolution).
      EXPECT_LT(WorstDifference(expected, actual),
                std::string(precision) == "fp32" ? 1e-4 : 5e-3);
      if (size <= 300) {
        FillBatch(reference, size, uint64_t(size));
        cpu.Evaluate(reference);
        EXPECT_LT(WorstDifference(reference, actual),
                  std::string(precision) == "fp32" ? 2e-3 : 6e-2);
      }
      for (int i = 0; i < actual.size(); ++i) {
        double sum = 0;
        for (float prior : actual.priors(i)) sum += prior;
        EXPECT_NEAR(sum, 1.0, 1e-4);
      }
    }
  }
#else
  GTEST_SKIP() << "built without the CUDA kernels (VZ_USE_CUDA off)";
#endif
}

TEST(CudaEvaluatorFactoryGpuTest, CudaDevicesGetTheGpuEvaluator) {
  VZ_SKIP_WITHOUT_CUDA();
#if defined(VZ_HAVE_CUDA)
  using G = chad::ChadGame;
  const NetFile net = FreshNetForGame<G>("tiny", 1);
  for (const char* device : {"auto", "cuda", "cuda:0"}) {
    auto evaluator = MakeNetEvaluator<G>(net, "net", device, "auto", 0);
    EXPECT_NE(dynamic_cast<CudaEvaluator<G>*>(evaluator.get()), nullptr) << device;
    EXPECT_EQ(RunnerOf(*evaluator).precision(), "bf16");
  }
  EXPECT_NE(dynamic_cast<TorchEvaluator<G>*>(MakeNetEvaluator<G>(net, "n", "cpu", "auto", 0).get()),
            nullptr);
#else
  GTEST_SKIP() << "built without the CUDA kernels (VZ_USE_CUDA off)";
#endif
}

TEST(CudaEvaluatorGpuErrorsTest, MovesThatAreNotTheLegalMovesAreRefused) {
  VZ_SKIP_WITHOUT_CUDA();
#if defined(VZ_HAVE_CUDA)
  using G = cuarenta::CuarentaGame;
  const NetFile net = FreshNetForGame<G>("tiny", 2);
  CudaEvaluator<G> gpu(net, "net", "cuda", "fp32", 0);
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
#else
  GTEST_SKIP() << "built without the CUDA kernels (VZ_USE_CUDA off)";
#endif
}

}  // namespace
}  // namespace vz::nets
