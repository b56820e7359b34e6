#pragma once

// VZ_CUDA_CHECK(expr): evaluates a CUDA runtime call and turns any error into vz::Error naming the
// file, the line, the call and CUDA's own message. Host code only.

#include <cuda_runtime.h>

#include <string>

#include "engine/core/error.h"

namespace vz::cuda {

[[noreturn]] inline void ThrowCudaError(cudaError_t status, const char* call, const char* file,
                                        int line) {
  throw Error(std::string("CUDA error at ") + file + ":" + std::to_string(line) + " in " + call +
              ": " + cudaGetErrorString(status));
}

}  // namespace vz::cuda

#define VZ_CUDA_CHECK(expr)                                                        \
  do {                                                                             \
    const cudaError_t vz_cuda_status_ = (expr);                                    \
    if (vz_cuda_status_ != cudaSuccess) {                                          \
      ::vz::cuda::ThrowCudaError(vz_cuda_status_, #expr, __FILE__, __LINE__);      \
    }                                                                              \
  } while (0)
