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
__global__ void ApplyMovesKernel(typename G::Position* positions, int batch, const Move* moves,
                                 const int32_t* counts, const int32_t* choices) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch) ApplyMoveAt<G>(positions, i, moves, counts, choices);
}

template <class G>
__global__ void OutcomesKernel(const typename G::Position* positions, int batch,
                               const int32_t* counts, Outcome* outcomes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch) OutcomeAt<G>(positions, i, counts, outcomes);
}

template <class G>
__global__ void HashesKernel(const typename G::Position* positions, int batch, uint64_t* hashes,
                             uint64_t* computed_hashes) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < batch) HashAt<G>(positions, i, hashes, computed_hashes);
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
  LegalMovesKernel<G><<<blocks, kThreads, 0, AsStream(stream)>>>(positions, batch, moves, counts,
                                                                 policy_indices);
  VZ_CUDA_CHECK(cudaGetLastError());
}

template <class G>
void LaunchApplyMoves(typename G::Position* positions, int batch, const Move* moves,
                      const int32_t* counts, const int32_t* choices, Stream stream) {
  const int blocks = BlocksFor(batch, "LaunchApplyMoves");
  if (blocks == 0) return;
  ApplyMovesKernel<G><<<blocks, kThreads, 0, AsStream(stream)>>>(positions, batch, moves, counts,
                                                                 choices);
  VZ_CUDA_CHECK(cudaGetLastError());
}

template <class G>
void LaunchOutcomes(const typename G::Position* positions, int batch, const int32_t* counts,
                    Outcome* outcomes, Stream stream) {
  const int blocks = BlocksFor(batch, "LaunchOutcomes");
  if (blocks == 0) return;
  EnsureStackSize(kRuleKernelStackBytes);  // the draughts capture search recurses
  OutcomesKernel<G><<<blocks, kThreads, 0, AsStream(stream)>>>(positions, batch, counts,
                                                               outcomes);
  VZ_CUDA_CHECK(cudaGetLastError());
}

template <class G>
void LaunchHashes(const typename G::Position* positions, int batch, uint64_t* hashes,
                  uint64_t* computed_hashes, Stream stream) {
  const int blocks = BlocksFor(batch, "LaunchHashes");
  if (blocks == 0) return;
  HashesKernel<G><<<blocks, kThreads, 0, AsStream(stream)>>>(positions, batch, hashes,
                                                             computed_hashes);
  VZ_CUDA_CHECK(cudaGetLastError());
}

template <class G>
void LaunchEncodeFloat(const typename G::Position* positions, int batch,
                       const int32_t* repetition_counts, float* planes, Stream stream) {
  const int blocks = BlocksFor(batch, "LaunchEncodeFloat");
  if (blocks == 0) return;
  EncodeFloatKernel<G><<<blocks, kThreads, 0, AsStream(stream)>>>(positions, batch,
                                                                  repetition_counts, planes);
  VZ_CUDA_CHECK(cudaGetLastError());
}

template <class G>
void LaunchEncodeBf16(const typename G::Position* positions, int batch,
                      const int32_t* repetition_counts, uint16_t* planes, Stream stream) {
  const int blocks = BlocksFor(batch, "LaunchEncodeBf16");
  if (blocks == 0) return;
  EncodeBf16Kernel<G><<<blocks, kThreads, 0, AsStream(stream)>>>(positions, batch,
                                                                 repetition_counts, planes);
  VZ_CUDA_CHECK(cudaGetLastError());
}

// Explicit instantiations of every templated launcher for game G (one use per game, in its own
// cuda/batched_kernels_<game>.cu).
#define VZ_INSTANTIATE_BATCHED_KERNELS(G)                                                      \
  template void LaunchLegalMoves<G>(const G::Position*, int, Move*, int32_t*, int32_t*,        \
                                    Stream);                                                   \
  template void LaunchApplyMoves<G>(G::Position*, int, const Move*, const int32_t*,            \
                                    const int32_t*, Stream);                                   \
  template void LaunchOutcomes<G>(const G::Position*, int, const int32_t*, Outcome*, Stream);  \
  template void LaunchHashes<G>(const G::Position*, int, uint64_t*, uint64_t*, Stream);        \
  template void LaunchEncodeFloat<G>(const G::Position*, int, const int32_t*, float*, Stream); \
  template void LaunchEncodeBf16<G>(const G::Position*, int, const int32_t*, uint16_t*, Stream);

}  // namespace vz::cuda
