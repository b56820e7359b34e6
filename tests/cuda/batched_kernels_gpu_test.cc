// The CUDA kernels of the batched rules interface (cuda/batched_kernels.h) equal the CPU twin
// (cuda/batched_rules.h) exactly on thousands of positions of random games per game — moves,
// counts, policy indices, float and bf16 input planes — including terminal positions and
// positions with zero legal moves; the compact priors and the WDL agree to float tolerance. Skips
// with a message where no CUDA device is present (label gpu); the launchers' argument checks,
// which need no device, are tested in tests/cuda/batched_kernels_test.cc.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cuda/batched_kernels.h"
#include "cuda/batched_rules.h"
#include "cuda/device_buffer.h"
#include "engine/encodings.h"
#include "tests/cuda/random_positions.h"
#include "tests/engine/game_types.h"

namespace vz {
namespace {

#define VZ_SKIP_WITHOUT_CUDA()                                                            \
  if (cuda::DeviceCount() == 0)                                                           \
  GTEST_SKIP() << "no CUDA device present: GPU batched-rules kernels not run (built and " \
                  "linked only)"

// A device copy of a host vector, and back.
template <class T>
cuda::DeviceBuffer<T> Upload(const std::vector<T>& host) {
  cuda::DeviceBuffer<T> device(host.size());
  cuda::CopyToDevice(device.data(), host.data(), host.size() * sizeof(T));
  return device;
}
template <class T>
std::vector<T> Download(const cuda::DeviceBuffer<T>& device, size_t size) {
  std::vector<T> host(size);
  cuda::CopyToHost(host.data(), device.data(), size * sizeof(T));
  return host;
}

template <class G>
class BatchedKernelsGpuTest : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedKernelsGpuTest, testing::AllGameTypes, testing::GameNames);

TYPED_TEST(BatchedKernelsGpuTest, KernelsEqualTheCpuTwin) {
  VZ_SKIP_WITHOUT_CUDA();
  using G = TypeParam;
  using E = InputEncoding<G>;
  testing::PositionBatch<G> batch = testing::PositionsFromRandomGames<G>(4000, 23);
  const int n = batch.size();
  const size_t rows = size_t(n), slots = rows * G::kMaxMoves, cells = rows * E::kSize;
  std::mt19937 rng(9);
  for (int i = 0; i < n; i += 5) batch.repetition_counts[size_t(i)] = 1 + int(rng() % 3);

  // CPU twin.
  std::vector<Move> moves(slots);
  std::vector<int32_t> counts(rows), indices(slots);
  cuda::CpuLegalMoves<G>(batch.positions.data(), n, moves.data(), counts.data(), indices.data());
  std::vector<float> planes(cells);
  cuda::CpuEncodeFloat<G>(batch.positions.data(), n, batch.repetition_counts.data(), planes.data());
  std::vector<uint16_t> bf16(cells);
  cuda::CpuEncodeBf16<G>(batch.positions.data(), n, batch.repetition_counts.data(), bf16.data());

  // Device.
  auto d_positions = Upload(batch.positions);
  auto d_repetitions = Upload(batch.repetition_counts);
  cuda::DeviceBuffer<Move> d_moves(slots);
  cuda::DeviceBuffer<int32_t> d_counts(rows), d_indices(slots);
  cuda::DeviceBuffer<float> d_planes(cells);
  cuda::DeviceBuffer<uint16_t> d_bf16(cells);
  cuda::Stream stream = nullptr;
  cuda::LaunchLegalMoves<G>(d_positions.data(), n, d_moves.data(), d_counts.data(),
                            d_indices.data(), stream);
  cuda::LaunchEncodeFloat<G>(d_positions.data(), n, d_repetitions.data(), d_planes.data(), stream);
  cuda::LaunchEncodeBf16<G>(d_positions.data(), n, d_repetitions.data(), d_bf16.data(), stream);
  cuda::SynchronizeStream(stream);

  const auto g_moves = Download(d_moves, slots);
  const auto g_counts = Download(d_counts, rows);
  const auto g_indices = Download(d_indices, slots);
  const auto g_planes = Download(d_planes, cells);
  const auto g_bf16 = Download(d_bf16, cells);

  int zero_moves = 0, terminal = 0;
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(G::FormatPosition(batch.positions[size_t(i)]));
    ASSERT_EQ(g_counts[size_t(i)], counts[size_t(i)]);
    for (int k = 0; k < counts[size_t(i)]; ++k) {
      const size_t slot = size_t(i) * G::kMaxMoves + k;
      ASSERT_EQ(g_moves[slot], moves[slot]);
      ASSERT_EQ(g_indices[slot], indices[slot]);
    }
    ASSERT_EQ(std::memcmp(&g_planes[size_t(i) * E::kSize], &planes[size_t(i) * E::kSize],
                          sizeof(float) * E::kSize),
              0);
    ASSERT_EQ(std::memcmp(&g_bf16[size_t(i) * E::kSize], &bf16[size_t(i) * E::kSize],
                          sizeof(uint16_t) * E::kSize),
              0);
    zero_moves += counts[size_t(i)] == 0;
    terminal += G::LocalOutcome(batch.positions[size_t(i)], counts[size_t(i)]).IsTerminal();
  }
  EXPECT_GT(zero_moves, 0) << "the batch has no position without legal moves";
  EXPECT_GT(terminal, 0) << "the batch has no terminal position";

  // Priors from random logits at the generated indices, listed compact as the GPU evaluator's
  // host does, and the WDL, for the first m positions (the logits are [m][kNumActions]).
  const int m = std::min(n, 1500);
  const size_t m_rows = size_t(m);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> logits(m_rows * G::kNumActions), wdl_logits(m_rows * 3);
  for (float& x : logits) x = normal(rng);
  for (float& x : wdl_logits) x = normal(rng);
  std::vector<int32_t> offsets(1, 0), compact_indices;
  for (int i = 0; i < m; ++i) {
    for (int k = 0; k < counts[size_t(i)]; ++k) {
      compact_indices.push_back(indices[size_t(i) * G::kMaxMoves + k]);
    }
    offsets.push_back(int32_t(compact_indices.size()));
  }
  std::vector<float> priors(compact_indices.size()), wdl(m_rows * 3);
  cuda::CpuGatherCompactPriors(logits.data(), G::kNumActions, compact_indices.data(),
                               offsets.data(), m, G::kActionsMayCollide, priors.data(),
                               wdl_logits.data(), wdl.data());
  auto d_logits = Upload(logits);
  auto d_wdl_logits = Upload(wdl_logits);
  auto d_offsets = Upload(offsets);
  auto d_compact_indices = Upload(compact_indices);
  cuda::DeviceBuffer<float> d_priors(std::max<size_t>(1, priors.size())), d_wdl(m_rows * 3);
  cuda::LaunchGatherCompactPriors(d_logits.data(), G::kNumActions, d_compact_indices.data(),
                                  d_offsets.data(), m, G::kActionsMayCollide, d_priors.data(),
                                  d_wdl_logits.data(), d_wdl.data(), stream);
  cuda::SynchronizeStream(stream);
  const auto g_priors = Download(d_priors, priors.size());
  const auto g_wdl = Download(d_wdl, m_rows * 3);
  double worst = 0;
  for (size_t k = 0; k < priors.size(); ++k) {
    worst = std::max(worst, double(std::abs(g_priors[k] - priors[k])));
  }
  for (size_t k = 0; k < wdl.size(); ++k) {
    worst = std::max(worst, double(std::abs(g_wdl[k] - wdl[k])));
  }
  EXPECT_LT(worst, 1e-6);
}

}  // namespace
}  // namespace vz
