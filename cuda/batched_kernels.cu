// The game-independent CUDA launchers of cuda/batched_kernels.h (prior gather, move digests). The
// per-game kernels are instantiated in cuda/batched_kernels_<game>.cu, one game per translation
// unit; the static_assert below keeps that list equal to vz::AllGames.

#include "cuda/batched_kernels.cuh"

namespace vz::cuda {
namespace {

__global__ void GatherPriorsKernel(const float* policy_logits, int num_actions,
                                   const int32_t* policy_indices, int max_moves,
                                   const int32_t* counts, int batch, bool actions_may_collide,
                                   const int32_t* prior_offsets, float* priors,
                                   const float* wdl_logits, float* wdl) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch) {
    GatherPriorsAt(policy_logits, num_actions, policy_indices, max_moves, counts,
                   actions_may_collide, prior_offsets, priors, wdl_logits, wdl, i);
  }
}

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

__global__ void MoveDigestsKernel(const Move* moves, int max_moves, const int32_t* counts,
                                  int batch, uint64_t* digests) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch) MoveDigestAt(moves, max_moves, counts, digests, i);
}

}  // namespace

void LaunchGatherPriors(const float* policy_logits, int num_actions, const int32_t* policy_indices,
                        int max_moves, const int32_t* counts, int batch, bool actions_may_collide,
                        const int32_t* prior_offsets, float* priors, const float* wdl_logits,
                        float* wdl, Stream stream) {
  const int blocks = BlocksFor(batch, "LaunchGatherPriors");
  if (blocks == 0) return;
  GatherPriorsKernel<<<blocks, kThreads, 0, AsStream(stream)>>>(
      policy_logits, num_actions, policy_indices, max_moves, counts, batch, actions_may_collide,
      prior_offsets, priors, wdl_logits, wdl);
  VZ_CUDA_CHECK(cudaGetLastError());
}

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

void LaunchMoveDigests(const Move* moves, int max_moves, const int32_t* counts, int batch,
                       uint64_t* digests, Stream stream) {
  const int blocks = BlocksFor(batch, "LaunchMoveDigests");
  if (blocks == 0) return;
  MoveDigestsKernel<<<blocks, kThreads, 0, AsStream(stream)>>>(moves, max_moves, counts, batch,
                                                               digests);
  VZ_CUDA_CHECK(cudaGetLastError());
}

// One cuda/batched_kernels_<game>.cu per game of AllGames.
static_assert(std::is_same_v<AllGames, GameList<draughts::DraughtsGame, cuarenta::CuarentaGame,
                                                chad::ChadGame, chaco_rex::ChacoRexGame>>,
              "add a cuda/batched_kernels_<game>.cu for every game of AllGames");

}  // namespace vz::cuda
