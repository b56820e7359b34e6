// The CUDA kernels of the batched rules interface (cuda/batched_kernels.h) equal the CPU twin
// (cuda/batched_rules.h) exactly on thousands of positions of random games per game — moves,
// counts, policy indices, applied positions, hashes, outcomes, float and bf16 input planes, move
// digests — including terminal positions and positions with zero legal moves; the priors and WDL
// agree to float tolerance. Skips with a message where no CUDA device is present (label gpu).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "cuda/batched_kernels.h"
#include "cuda/batched_rules.h"
#include "cuda/device_buffer.h"
#include "engine/core/error.h"
#include "engine/encodings.h"
#include "tests/cuda/random_positions.h"
#include "tests/engine/game_types.h"

namespace vz {
namespace {

#define VZ_SKIP_WITHOUT_CUDA()                                                               \
  if (cuda::DeviceCount() == 0)                                                              \
  GTEST_SKIP() << "no CUDA device present: GPU batched-rules kernels not run (built and "    \
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
  using Position = typename G::Position;
  testing::PositionBatch<G> batch = testing::PositionsFromRandomGames<G>(4000, 23);
  const int n = batch.size();
  const size_t rows = size_t(n), slots = rows * G::kMaxMoves, cells = rows * E::kSize;
  std::mt19937 rng(9);
  for (int i = 0; i < n; i += 5) batch.repetition_counts[size_t(i)] = 1 + int(rng() % 3);

  // CPU twin.
  std::vector<Move> moves(slots);
  std::vector<int32_t> counts(rows), indices(slots);
  cuda::CpuLegalMoves<G>(batch.positions.data(), n, moves.data(), counts.data(), indices.data());
  std::vector<Outcome> outcomes(rows);
  cuda::CpuOutcomes<G>(batch.positions.data(), n, counts.data(), outcomes.data());
  std::vector<uint64_t> hashes(rows), computed(rows), digests(rows);
  cuda::CpuHashes<G>(batch.positions.data(), n, hashes.data(), computed.data());
  cuda::CpuMoveDigests(moves.data(), G::kMaxMoves, counts.data(), n, digests.data());
  std::vector<float> planes(cells);
  cuda::CpuEncodeFloat<G>(batch.positions.data(), n, batch.repetition_counts.data(),
                          planes.data());
  std::vector<uint16_t> bf16(cells);
  cuda::CpuEncodeBf16<G>(batch.positions.data(), n, batch.repetition_counts.data(), bf16.data());
  std::vector<int32_t> choices(rows);
  for (int i = 0; i < n; ++i) {
    const int c = counts[size_t(i)];
    choices[size_t(i)] = i % 11 == 0 ? -1 : c > 0 ? int(rng() % uint32_t(c)) : 0;
  }
  std::vector<Position> applied = batch.positions;
  cuda::CpuApplyMoves<G>(applied.data(), n, moves.data(), counts.data(), choices.data());

  // Device.
  auto d_positions = Upload(batch.positions);
  auto d_repetitions = Upload(batch.repetition_counts);
  auto d_choices = Upload(choices);
  cuda::DeviceBuffer<Move> d_moves(slots);
  cuda::DeviceBuffer<int32_t> d_counts(rows), d_indices(slots);
  cuda::DeviceBuffer<Outcome> d_outcomes(rows), d_counted_outcomes(rows);
  cuda::DeviceBuffer<uint64_t> d_hashes(rows), d_computed(rows), d_digests(rows);
  cuda::DeviceBuffer<float> d_planes(cells);
  cuda::DeviceBuffer<uint16_t> d_bf16(cells);
  cuda::Stream stream = nullptr;
  cuda::LaunchLegalMoves<G>(d_positions.data(), n, d_moves.data(), d_counts.data(),
                            d_indices.data(), stream);
  cuda::LaunchOutcomes<G>(d_positions.data(), n, d_counts.data(), d_outcomes.data(), stream);
  cuda::LaunchOutcomes<G>(d_positions.data(), n, nullptr, d_counted_outcomes.data(), stream);
  cuda::LaunchHashes<G>(d_positions.data(), n, d_hashes.data(), d_computed.data(), stream);
  cuda::LaunchMoveDigests(d_moves.data(), G::kMaxMoves, d_counts.data(), n, d_digests.data(),
                          stream);
  cuda::LaunchEncodeFloat<G>(d_positions.data(), n, d_repetitions.data(), d_planes.data(),
                             stream);
  cuda::LaunchEncodeBf16<G>(d_positions.data(), n, d_repetitions.data(), d_bf16.data(), stream);
  cuda::LaunchApplyMoves<G>(d_positions.data(), n, d_moves.data(), d_counts.data(),
                            d_choices.data(), stream);
  cuda::SynchronizeStream(stream);

  const auto g_moves = Download(d_moves, slots);
  const auto g_counts = Download(d_counts, rows);
  const auto g_indices = Download(d_indices, slots);
  const auto g_outcomes = Download(d_outcomes, rows);
  const auto g_counted_outcomes = Download(d_counted_outcomes, rows);
  const auto g_hashes = Download(d_hashes, rows);
  const auto g_computed = Download(d_computed, rows);
  const auto g_digests = Download(d_digests, rows);
  const auto g_planes = Download(d_planes, cells);
  const auto g_bf16 = Download(d_bf16, cells);
  const auto g_applied = Download(d_positions, rows);

  int zero_moves = 0, terminal = 0;
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(G::FormatPosition(batch.positions[size_t(i)]));
    ASSERT_EQ(g_counts[size_t(i)], counts[size_t(i)]);
    for (int k = 0; k < counts[size_t(i)]; ++k) {
      const size_t slot = size_t(i) * G::kMaxMoves + k;
      ASSERT_EQ(g_moves[slot], moves[slot]);
      ASSERT_EQ(g_indices[slot], indices[slot]);
    }
    ASSERT_EQ(g_outcomes[size_t(i)], outcomes[size_t(i)]);
    ASSERT_EQ(g_counted_outcomes[size_t(i)], outcomes[size_t(i)]);
    ASSERT_EQ(g_hashes[size_t(i)], hashes[size_t(i)]);
    ASSERT_EQ(g_computed[size_t(i)], computed[size_t(i)]);
    ASSERT_EQ(g_digests[size_t(i)], digests[size_t(i)]);
    ASSERT_EQ(std::memcmp(&g_planes[size_t(i) * E::kSize], &planes[size_t(i) * E::kSize],
                          sizeof(float) * E::kSize),
              0);
    ASSERT_EQ(std::memcmp(&g_bf16[size_t(i) * E::kSize], &bf16[size_t(i) * E::kSize],
                          sizeof(uint16_t) * E::kSize),
              0);
    ASSERT_EQ(G::FormatPosition(g_applied[size_t(i)]), G::FormatPosition(applied[size_t(i)]));
    ASSERT_EQ(G::Hash(g_applied[size_t(i)]), G::Hash(applied[size_t(i)]));
    ASSERT_EQ(G::ComputeHash(g_applied[size_t(i)]), G::ComputeHash(applied[size_t(i)]));
    zero_moves += counts[size_t(i)] == 0;
    terminal += outcomes[size_t(i)].IsTerminal();
  }
  EXPECT_GT(zero_moves, 0) << "the batch has no position without legal moves";
  EXPECT_GT(terminal, 0) << "the batch has no terminal position";

  // Priors from random logits at the generated indices, dense and compact, and the WDL, for the
  // first m positions (the logits are [m][kNumActions]).
  const int m = std::min(n, 1500);
  const size_t m_rows = size_t(m), m_slots = m_rows * G::kMaxMoves;
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> logits(m_rows * G::kNumActions), wdl_logits(m_rows * 3);
  for (float& x : logits) x = normal(rng);
  for (float& x : wdl_logits) x = normal(rng);
  std::vector<int32_t> offsets(1, 0);
  for (int i = 0; i < m; ++i) offsets.push_back(offsets.back() + counts[size_t(i)]);
  std::vector<float> priors(m_slots, 0.0f), compact(size_t(offsets.back())), wdl(m_rows * 3);
  cuda::CpuGatherPriors(logits.data(), G::kNumActions, indices.data(), G::kMaxMoves,
                        counts.data(), m, G::kActionsMayCollide, nullptr, priors.data(),
                        wdl_logits.data(), wdl.data());
  cuda::CpuGatherPriors(logits.data(), G::kNumActions, indices.data(), G::kMaxMoves,
                        counts.data(), m, G::kActionsMayCollide, offsets.data(), compact.data(),
                        nullptr, nullptr);
  auto d_logits = Upload(logits);
  auto d_wdl_logits = Upload(wdl_logits);
  auto d_offsets = Upload(offsets);
  cuda::DeviceBuffer<float> d_priors(m_slots), d_compact(std::max<size_t>(1, compact.size())),
      d_wdl(m_rows * 3);
  cuda::LaunchGatherPriors(d_logits.data(), G::kNumActions, d_indices.data(), G::kMaxMoves,
                           d_counts.data(), m, G::kActionsMayCollide, nullptr, d_priors.data(),
                           d_wdl_logits.data(), d_wdl.data(), stream);
  cuda::LaunchGatherPriors(d_logits.data(), G::kNumActions, d_indices.data(), G::kMaxMoves,
                           d_counts.data(), m, G::kActionsMayCollide, d_offsets.data(),
                           d_compact.data(), nullptr, nullptr, stream);
  cuda::SynchronizeStream(stream);
  const auto g_priors = Download(d_priors, m_slots);
  const auto g_compact = Download(d_compact, compact.size());
  const auto g_wdl = Download(d_wdl, m_rows * 3);
  double worst = 0;
  for (int i = 0; i < m; ++i) {
    for (int k = 0; k < counts[size_t(i)]; ++k) {
      const size_t slot = size_t(i) * G::kMaxMoves + k;
      worst = std::max(worst, double(std::abs(g_priors[slot] - priors[slot])));
      worst = std::max(worst, double(std::abs(g_compact[size_t(offsets[size_t(i)] + k)] -
                                              compact[size_t(offsets[size_t(i)] + k)])));
    }
    for (int j = 0; j < 3; ++j) {
      worst = std::max(worst, double(std::abs(g_wdl[size_t(i) * 3 + j] - wdl[size_t(i) * 3 + j])));
    }
  }
  EXPECT_LT(worst, 1e-6);
}

TEST(BatchedKernelsGpuErrorsTest, NegativeBatchIsAnErrorAndEmptyBatchLaunchesNothing) {
  VZ_SKIP_WITHOUT_CUDA();
  using G = draughts::DraughtsGame;
  EXPECT_THROW(cuda::LaunchLegalMoves<G>(nullptr, -1, nullptr, nullptr, nullptr, nullptr),
               Error);
  cuda::LaunchLegalMoves<G>(nullptr, 0, nullptr, nullptr, nullptr, nullptr);
  cuda::SynchronizeDevice();
}

}  // namespace
}  // namespace vz
