#include <cuda_runtime.h>

#include <string_view>

#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"
#include "cuda/rules_kernels.h"
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

template <class... Gs>
bool Dispatch(GameList<Gs...>, const char* name, void* positions, int32_t* legal_counts, int count,
              cudaStream_t stream) {
  bool found = false;
  ((std::string_view(name) == std::string_view(Gs::kName)
        ? (Launch<Gs>(positions, legal_counts, count, stream), found = true)
        : false),
   ...);
  return found;
}

}  // namespace

bool LaunchCountAndPlayFirst(const char* variant_name, void* positions, int32_t* legal_counts,
                             int count, void* stream) {
  return Dispatch(AllGames{}, variant_name, positions, legal_counts, count,
                  static_cast<cudaStream_t>(stream));
}

}  // namespace vz::cuda
