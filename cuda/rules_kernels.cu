#include <cuda_runtime.h>

#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"
#include "cuda/rules_kernels.h"
#include "engine/core/error.h"
#include "engine/games.h"

namespace vz::cuda {
namespace {

template <class G>
__global__ void CountAndPlayFirstKernel(typename G::Position* positions, int32_t* legal_counts,
                                        int count) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  if (index >= count) return;
  typename G::MoveList moves;
  G::GenerateMoves(positions[index], moves);
  legal_counts[index] = moves.size;
  if (moves.size > 0) G::ApplyMove(positions[index], moves[0]);
}

template <class G>
void Launch(void* positions, int32_t* legal_counts, int count, cudaStream_t stream) {
  constexpr int kThreads = 128;
  const int blocks = (count + kThreads - 1) / kThreads;
  if (blocks == 0) return;
  EnsureStackSize(kRuleKernelStackBytes);  // the draughts capture search recurses
  CountAndPlayFirstKernel<G><<<blocks, kThreads, 0, stream>>>(
      static_cast<typename G::Position*>(positions), legal_counts, count);
  VZ_CUDA_CHECK(cudaGetLastError());
}

// Launch<G> for the game G that WithGameAt picks.
struct LaunchFor {
  void* positions;
  int32_t* legal_counts;
  int count;
  cudaStream_t stream;
  template <class G>
  void operator()() const {
    Launch<G>(positions, legal_counts, count, stream);
  }
};

}  // namespace

bool LaunchCountAndPlayFirst(const char* variant_name, void* positions, int32_t* legal_counts,
                             int count, void* stream) {
  int index = 0;
  try {
    index = GameIndex(variant_name);  // the one lookup by name (engine/games.h)
  } catch (const Error&) {
    return false;
  }
  WithGameAt(index, LaunchFor{positions, legal_counts, count, static_cast<cudaStream_t>(stream)});
  return true;
}

}  // namespace vz::cuda
