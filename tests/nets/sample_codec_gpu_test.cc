// Compact training batches expanded on a GPU by the rule kernels (nets/sample_codec.h, the
// trainer's Expand) give the metrics of the CPU expansion (their CPU twin), which
// ReplayWindowTest.CompactSamplesExpandToTheDenseBatch ties to the dense batch. Label gpu: skips
// without a CUDA device.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "cuda/batched_rules.h"
#include "engine/encodings.h"
#include "nets/fresh_net.h"
#include "nets/sample_codec.h"
#include "nets/trainer.h"
#include "tests/cuda/random_positions.h"
#include "tests/engine/game_types.h"
#include "tests/nets/net_test_util.h"

namespace vz::nets {
namespace {

// `size` positions of random games with targets over up to 3 of their legal moves, random
// results and random symmetries.
template <Game G>
CompactBatch RandomCompactBatch(int size, uint64_t seed) {
  using Position = typename G::Position;
  const testing::PositionBatch<G> positions = testing::PositionsFromRandomGames<G>(size, seed);
  std::vector<int32_t> counts(static_cast<size_t>(size));
  std::vector<int32_t> indices(static_cast<size_t>(size) * G::kMaxMoves);
  cuda::CpuLegalMoves<G>(positions.positions.data(), size, nullptr, counts.data(), indices.data());
  CompactBatch batch;
  batch.size = size;
  batch.positions.resize(size_t(size) * sizeof(Position));
  std::memcpy(batch.positions.data(), positions.positions.data(), batch.positions.size());
  batch.repetitions = positions.repetition_counts;
  batch.target_offsets.assign(1, 0);
  uint64_t state = seed;
  for (int i = 0; i < size; ++i) {
    state = SplitMix64(state);
    batch.symmetries.push_back(int32_t(state % uint64_t(InputEncoding<G>::kNumSymmetries)));
    for (int k = 0; k < 3; ++k) batch.wdl.push_back(k == int(state % 3) ? 1.0f : 0.0f);
    const int targets = std::min(3, counts[size_t(i)]);
    for (int k = 0; k < targets; ++k) {
      batch.target_indices.push_back(indices[size_t(i) * G::kMaxMoves + k]);
      batch.target_probabilities.push_back(1.0f / float(targets));
    }
    batch.target_offsets.push_back(int32_t(batch.target_indices.size()));
  }
  return batch;
}

template <class G>
class SampleCodecGpuTest : public ::testing::Test {};
TYPED_TEST_SUITE(SampleCodecGpuTest, vz::testing::AllGameTypes, vz::testing::GameNames);

TYPED_TEST(SampleCodecGpuTest, TheGpuExpansionGivesTheCpuMetrics) {
  VZ_SKIP_WITHOUT_CUDA();
  using G = TypeParam;
  const CompactBatch batch = RandomCompactBatch<G>(64, 9);
  // A net trained on the batch first (on the CPU): its losses depend on every plane, target and
  // mask value far more than a fresh net's, whose policy loss is about log(legal moves).
  TrainerOptions cpu_options, gpu_options;
  cpu_options.learning_rate = 0.05;
  NetFile net;
  {
    Trainer warm(FreshNetForGame<G>("small", 2), cpu_options);
    warm.set_sample_codec(MakeSampleCodec<G>(false));
    for (int step = 0; step < 30; ++step) warm.Step(batch);
    net = warm.ExportNet();
  }
  gpu_options.device = "cuda:0";
  gpu_options.precision = "fp32";
  Trainer cpu(net, cpu_options), gpu(net, gpu_options);
  cpu.set_sample_codec(MakeSampleCodec<G>(false));
  gpu.set_sample_codec(MakeSampleCodec<G>(true));
  const TrainMetrics expected = cpu.Evaluate(batch), actual = gpu.Evaluate(batch);
  // fp32 on the GPU may run its convolutions in TF32 (LibTorch's default): 1% of the loss.
  EXPECT_NEAR(actual.policy_loss, expected.policy_loss, 1e-2 * (1 + expected.policy_loss));
  EXPECT_NEAR(actual.value_loss, expected.value_loss, 1e-2 * (1 + expected.value_loss));
  // And it trains there.
  const TrainMetrics first = gpu.Step(batch);
  TrainMetrics last = first;
  for (int step = 0; step < 10; ++step) last = gpu.Step(batch);
  EXPECT_TRUE(std::isfinite(last.loss));
  EXPECT_LT(last.loss, first.loss);
}

}  // namespace
}  // namespace vz::nets
