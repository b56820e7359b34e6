#pragma once

// The CUDA kernels and launchers of the batched rules interface (cuda/batched_kernels.h) as
// templates: one thread per position runs the per-position cores of cuda/batched_rules.h, i.e.
// the games' own VZ_HD rule code. Included only by the .cu files that instantiate them, one game
// per translation unit (cuda/batched_kernels_<game>.cu), so that the slow CUDA compiles of the four
// rule cores run in parallel.

#include <cuda_runtime.h>

#include <string>
#include <type_traits>

#include "cuda/batched_kernels.h"
#include "cuda/batched_rules.h"
#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"
#include "engine/encodings.h"
#include "engine/games.h"

namespace vz::cuda {
namespace {

constexpr int kThreads = 128;

// Blocks for `batch` threads; throws on a negative batch.
int BlocksFor(int batch, const char* launcher) {
  if (batch < 0) {
    throw Error(std::string(launcher) + ": batch " + std::to_string(batch) + " is negative");
  }
  return (batch + kThreads - 1) / kThreads;
}

cudaStream_t AsStream(Stream stream) { return static_cast<cudaStream_t>(stream); }

template <class G>
__global__ void LegalMovesKernel(const typename G::Position* positions, int batch, Move* moves,
                                 int32_t* counts, int32_t* policy_indices) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch) LegalMovesAt<G>(positions, i, moves, counts, policy_indices);
}

template <class G>
__global__ void EncodeFloatKernel(const typename G::Position* positions, int batch,
                                  const int32_t* repetition_counts, float* planes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch) EncodeFloatAt<G>(positions, i, repetition_counts, planes);
}

template <class G>
__global__ void EncodeBf16Kernel(const typename G::Position* positions, int batch,
                                 const int32_t* repetition_counts, uint16_t* planes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= batch) return;
  float scratch[InputEncoding<G>::kSize];  // thread-local float planes, then rounded to bf16
  EncodeBf16At<G>(positions, i, repetition_counts, planes, scratch);
}

}  // namespace

template <class G>
void LaunchLegalMoves(const typename G::Position* positions, int batch, Move* moves,
                      int32_t* counts, int32_t* policy_indices, Stream stream) {
  const int blocks = BlocksFor(batch, "LaunchLegalMoves");
  if (blocks == 0) return;
  EnsureStackSize(kRuleKernelStackBytes);  // the draughts capture search recurses
  LegalMovesKernel<G>
      <<<blocks, kThreads, 0, AsStream(stream)>>>(positions, batch, moves, counts, policy_indices);
  VZ_CUDA_CHECK(cudaGetLastError());
}

template <class G>
void LaunchEncodeFloat(const typename G::Position* positions, int batch,
                       const int32_t* repetition_counts, float* planes, Stream stream) {
  const int blocks = BlocksFor(batch, "LaunchEncodeFloat");
  if (blocks == 0) return;
  EncodeFloatKernel<G>
      <<<blocks, kThreads, 0, AsStream(stream)>>>(positions, batch, repetition_counts, planes);
  VZ_CUDA_CHECK(cudaGetLastError());
}

template <class G>
void LaunchEncodeBf16(const typename G::Position* positions, int batch,
                      const int32_t* repetition_counts, uint16_t* planes, Stream stream) {
  const int blocks = BlocksFor(batch, "LaunchEncodeBf16");
  if (blocks == 0) return;
  EncodeBf16Kernel<G>
      <<<blocks, kThreads, 0, AsStream(stream)>>>(positions, batch, repetition_counts, planes);
  VZ_CUDA_CHECK(cudaGetLastError());
}

// Explicit instantiations of every templated launcher for game G (one use per game, in its own
// cuda/batched_kernels_<game>.cu).
#define VZ_INSTANTIATE_BATCHED_KERNELS(G)                                                        \
  template void LaunchLegalMoves<G>(const G::Position*, int, Move*, int32_t*, int32_t*, Stream); \
  template void LaunchEncodeFloat<G>(const G::Position*, int, const int32_t*, float*, Stream);   \
  template void LaunchEncodeBf16<G>(const G::Position*, int, const int32_t*, uint16_t*, Stream);

}  // namespace vz::cuda
