// The game-independent CUDA launchers of cuda/batched_kernels.h (the compact prior gather). The
// per-game kernels are instantiated in cuda/batched_kernels_<game>.cu, one game per translation
// unit; the static_assert below keeps that list equal to vz::AllGames.

#include "cuda/batched_kernels.cuh"

namespace vz::cuda {
namespace {

__global__ void GatherCompactPriorsKernel(const float* policy_logits, int num_actions,
                                          const int32_t* policy_indices, const int32_t* offsets,
                                          int batch, bool actions_may_collide, float* priors,
                                          const float* wdl_logits, float* wdl) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch) {
    GatherCompactPriorsAt(policy_logits, num_actions, policy_indices, offsets, actions_may_collide,
                          priors, wdl_logits, wdl, i);
  }
}

}  // namespace

void LaunchGatherCompactPriors(const float* policy_logits, int num_actions,
                               const int32_t* policy_indices, const int32_t* offsets, int batch,
                               bool actions_may_collide, float* priors, const float* wdl_logits,
                               float* wdl, Stream stream) {
  const int blocks = BlocksFor(batch, "LaunchGatherCompactPriors");
  if (blocks == 0) return;
  GatherCompactPriorsKernel<<<blocks, kThreads, 0, AsStream(stream)>>>(
      policy_logits, num_actions, policy_indices, offsets, batch, actions_may_collide, priors,
      wdl_logits, wdl);
  VZ_CUDA_CHECK(cudaGetLastError());
}

// One cuda/batched_kernels_<game>.cu per game of AllGames.
static_assert(std::is_same_v<AllGames, GameList<draughts::DraughtsGame, cuarenta::CuarentaGame,
                                                chad::ChadGame, chaco_rex::ChacoRexGame>>,
              "add a cuda/batched_kernels_<game>.cu for every game of AllGames");

}  // namespace vz::cuda
