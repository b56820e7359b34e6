#pragma once

// CUDA launchers of the batched rules interface (cuda/batched_rules.h has the CPU twin and the
// shapes of every array): one thread per position runs the games' own VZ_HD rule cores, so each
// launcher's results equal its Cpu* twin exactly (the priors and WDL to float rounding of expf).
// Plain C++ interface: raw device pointers and a stream handle, no CUDA headers; implemented in
// cuda/batched_kernels.cu and instantiated there for every game of vz::AllGames.
//
// Common contract of every launcher:
//   - every pointer is a device pointer (cudaMalloc'd, or a tensor's data on the current device)
//     with the shape named in cuda/batched_rules.h; optional outputs may be nullptr;
//   - `stream` is a cudaStream_t (nullptr: the legacy default stream); the launch is
//     asynchronous: synchronise the stream before reading the outputs on the host;
//   - batch == 0 launches nothing; batch < 0 throws vz::Error;
//   - a failed launch throws vz::Error with file, line and CUDA's message (VZ_CUDA_CHECK).
// Source: ../shared/design/ARCHITECTURE.md ("Networks and the GPU path").

#include <cstdint>

#include "engine/core/types.h"

namespace vz::cuda {

// A cudaStream_t passed through plain C++ code.
using Stream = void*;

// moves [batch][G::kMaxMoves] (optional), counts [batch], policy_indices [batch][G::kMaxMoves]
// (optional).
template <class G>
void LaunchLegalMoves(const typename G::Position* positions, int batch, Move* moves,
                      int32_t* counts, int32_t* policy_indices, Stream stream);

// planes [batch][kPlanes][kHeight][kWidth] float32 = InputEncoding<G>::Encode;
// repetition_counts [batch] (nullptr: 1).
template <class G>
void LaunchEncodeFloat(const typename G::Position* positions, int batch,
                       const int32_t* repetition_counts, float* planes, Stream stream);

// As LaunchEncodeFloat, written as bf16 (uint16 bit patterns, round to nearest even).
template <class G>
void LaunchEncodeBf16(const typename G::Position* positions, int batch,
                      const int32_t* repetition_counts, uint16_t* planes, Stream stream);

// Priors of the legal moves from policy_logits [batch][num_actions] at the policy indices the
// host lists (the GPU evaluator's): policy_indices [offsets[batch]], entry i's at [offsets[i],
// offsets[i + 1]); priors [offsets[batch]] at the same places; offsets [batch + 1] on the device;
// and wdl [batch][3] = softmax(wdl_logits [batch][3]). Semantics: cuda::GatherCompactPriorsAt
// (distinct-index masked softmax, shared indices split equally). priors or wdl may be nullptr to
// skip that part.
void LaunchGatherCompactPriors(const float* policy_logits, int num_actions,
                               const int32_t* policy_indices, const int32_t* offsets, int batch,
                               bool actions_may_collide, float* priors, const float* wdl_logits,
                               float* wdl, Stream stream);

}  // namespace vz::cuda
