// The batched rule kernels of one game (cuda/batched_kernels.cuh), in a translation unit of their own.

#include "cuda/batched_kernels.cuh"

namespace vz::cuda {

VZ_INSTANTIATE_BATCHED_KERNELS(chad::ChadGame)

}  // namespace vz::cuda
