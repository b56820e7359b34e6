// The rule cores run on a CUDA device exactly as on the host: for random positions of every game,
// the kernel's legal-move counts and the positions after its first legal move equal the CPU's.
// Skips with a message where no CUDA device is present.

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cuda/cuda_check.h"
#include "cuda/rules_kernels.h"
#include "engine/core/game_state.h"
#include "tests/engine/game_types.h"

namespace vz {
namespace {

bool HaveCudaDevice() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

template <class G>
class RulesKernelsGpuTest : public ::testing::Test {};
TYPED_TEST_SUITE(RulesKernelsGpuTest, testing::AllGameTypes, testing::GameNames);

TYPED_TEST(RulesKernelsGpuTest, CountAndPlayFirstMatchesCpu) {
  using G = TypeParam;
  using Position = typename G::Position;
  if (!HaveCudaDevice()) GTEST_SKIP() << "no CUDA device: GPU rule kernels not run";

  // [count] positions from random games, terminal ones included.
  std::vector<Position> positions;
  std::mt19937_64 rng(3);
  while (positions.size() < 4000) {
    GameState<G> game;
    for (int ply = 0; ply < 300; ++ply) {
      positions.push_back(game.position());
      if (game.legal_moves().size == 0 || game.outcome().IsTerminal()) break;
      game.Play(game.legal_moves()[int(rng() % game.legal_moves().size)]);
    }
  }
  const int count = int(positions.size());

  Position* device_positions = nullptr;
  int32_t* device_counts = nullptr;
  VZ_CUDA_CHECK(cudaMalloc(&device_positions, sizeof(Position) * count));
  VZ_CUDA_CHECK(cudaMalloc(&device_counts, sizeof(int32_t) * count));
  VZ_CUDA_CHECK(cudaMemcpy(device_positions, positions.data(), sizeof(Position) * count,
                           cudaMemcpyHostToDevice));
  ASSERT_TRUE(cuda::LaunchCountAndPlayFirst(std::string(G::kName).c_str(), device_positions,
                                            device_counts, count, nullptr));
  VZ_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Position> after(count);
  std::vector<int32_t> counts(count);
  VZ_CUDA_CHECK(cudaMemcpy(after.data(), device_positions, sizeof(Position) * count,
                           cudaMemcpyDeviceToHost));
  VZ_CUDA_CHECK(
      cudaMemcpy(counts.data(), device_counts, sizeof(int32_t) * count, cudaMemcpyDeviceToHost));
  VZ_CUDA_CHECK(cudaFree(device_positions));
  VZ_CUDA_CHECK(cudaFree(device_counts));

  for (int i = 0; i < count; ++i) {
    typename G::MoveList moves;
    G::GenerateMoves(positions[i], moves);
    ASSERT_EQ(counts[i], moves.size) << G::FormatPosition(positions[i]);
    Position expected = positions[i];
    if (moves.size > 0) G::ApplyMove(expected, moves[0]);
    ASSERT_EQ(G::Hash(after[i]), G::Hash(expected)) << G::FormatPosition(positions[i]);
    ASSERT_EQ(G::FormatPosition(after[i]), G::FormatPosition(expected));
  }
}

}  // namespace
}  // namespace vz
