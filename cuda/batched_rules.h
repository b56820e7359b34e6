#pragma once

// The batched rules interface over a batch of positions of one game G: legal moves with their
// policy indices, network input planes (float or bf16) and the prior gather of the network's
// policy at the host's policy indices. Two implementations share this file's per-position cores
// (VZ_HD, the games' own rule code from engine/):
//   - the CPU twin below (Cpu* functions: plain C++, loops over the batch, no CUDA needed);
//   - the CUDA kernels of cuda/batched_kernels.h (Launch* functions: one thread per position
//     running the very same cores), so GPU and CPU results are equal by construction.
// Users: the GPU evaluator (nets/cuda_evaluator.h: encoding and the compact gather) and the
// trainer's compact-batch expansion (nets/sample_codec.h: encoding and legal policy indices).
// Source: ../shared/design/ARCHITECTURE.md ("Networks and the GPU path"); the prior semantics are
// those of nets/torch_evaluator.h; bf16 rounding is round-to-nearest-even as in PyTorch's
// c10::BFloat16.
//
// Arrays (all row-major, `batch` = number of positions; host arrays for the twin, device arrays
// for the kernels, same shapes):
//   positions         [batch]                       G::Position (trivially copyable)
//   moves             [batch][G::kMaxMoves]          Move; entries [i][0, counts[i]) are position
//                                                    i's legal moves in G::GenerateMoves order,
//                                                    the rest are left unwritten
//   counts            [batch]                       int32 number of legal moves, <= kMaxMoves
//   policy_indices    [batch][G::kMaxMoves]          int32 InputEncoding<G>::PolicyIndex of each
//                                                    legal move, in [0, G::kNumActions); the rest
//                                                    unwritten
//   repetition_counts [batch]                       int32 >= 1 (nullptr: 1 for every position)
//   planes            [batch][kPlanes][kHeight][kWidth]  float32, or bf16 as uint16 bit patterns,
//                                                    InputEncoding<G>::Encode of each position
//   policy_logits     [batch][num_actions]          float32 network policy logits
//   offsets           [batch + 1]                   int32 compact prior layout: entry i's
//                                                    priors at priors[offsets[i] + k]
//   compact indices   [offsets[batch]]              int32 the host's policy indices of each
//                                                    entry's moves, in that compact layout
//   priors            [offsets[batch]]              float32 prior of each listed move
//   wdl_logits        [batch][3]                    float32 network value logits (win, draw, loss)
//   wdl               [batch][3]                    float32 softmax of wdl_logits

#include <math.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/core/macros.h"
#include "engine/core/types.h"
#include "engine/input_encoding.h"

namespace vz::cuda {

// ------------------------------------------------------------------------------------------------
// Per-position cores (host and device). `i` is the position's index in the batch.

// bf16 bit pattern of `value`, rounded to nearest even (NaN stays a quiet NaN), as
// c10::BFloat16 and __float2bfloat16_rn do.
VZ_HD inline uint16_t FloatToBf16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return uint16_t((bits >> 16) | 0x0040u);
  const uint32_t rounding_bias = 0x7FFFu + ((bits >> 16) & 1u);
  return uint16_t((bits + rounding_bias) >> 16);
}

// float value of a bf16 bit pattern (exact).
VZ_HD inline float Bf16BitsToFloat(uint16_t bits) {
  const uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

template <class G>
VZ_HD void LegalMovesAt(const typename G::Position* positions, int i, Move* moves, int32_t* counts,
                        int32_t* policy_indices) {
  const typename G::Position& p = positions[i];
  typename G::MoveList list;
  list.Clear();
  G::GenerateMoves(p, list);
  if (moves != nullptr) {
    Move* out = moves + size_t(i) * G::kMaxMoves;
    for (int k = 0; k < list.size; ++k) out[k] = list.moves[k];
  }
  counts[i] = list.size;
  if (policy_indices != nullptr) {
    int32_t* indices = policy_indices + size_t(i) * G::kMaxMoves;
    for (int k = 0; k < list.size; ++k)
      indices[k] = InputEncoding<G>::PolicyIndex(p, list.moves[k]);
  }
}

template <class G>
VZ_HD void EncodeFloatAt(const typename G::Position* positions, int i,
                         const int32_t* repetition_counts, float* planes) {
  using E = InputEncoding<G>;
  const int repetition = repetition_counts != nullptr ? repetition_counts[i] : 1;
  E::Encode(positions[i], repetition, planes + size_t(i) * E::kSize);
}

// As EncodeFloatAt, each entry rounded to bf16 (the float planes live in `scratch`, kSize floats).
template <class G>
VZ_HD void EncodeBf16At(const typename G::Position* positions, int i,
                        const int32_t* repetition_counts, uint16_t* planes, float* scratch) {
  using E = InputEncoding<G>;
  const int repetition = repetition_counts != nullptr ? repetition_counts[i] : 1;
  E::Encode(positions[i], repetition, scratch);
  uint16_t* out = planes + size_t(i) * E::kSize;
  for (int k = 0; k < E::kSize; ++k) out[k] = FloatToBf16Bits(scratch[k]);
}

// Priors of one entry from its policy logits `logits` [num_actions], as nets/torch_evaluator.h
// computes them: a softmax over the DISTINCT policy indices `indices` [count] of the legal moves
// (everything else masked out), each index's probability shared equally by the moves that have
// it, written to out [count]. Indices outside [0, num_actions) get prior 0 and take no part. A
// NaN or +infinite logit at a legal index (or all of them -infinite) makes every prior NaN, for
// the caller's finiteness check (nets::CheckFiniteOutputs); a -infinite one alone gets prior 0.
VZ_HD inline void EntryPriors(const float* logits, int num_actions, const int32_t* indices,
                              int count, bool actions_may_collide, float* out) {
  auto valid = [&](int k) { return indices[k] >= 0 && indices[k] < num_actions; };
  // A move counts towards the sum only as the first of its index.
  auto first_of_index = [&](int k) {
    if (!actions_may_collide) return true;
    for (int j = 0; j < k; ++j) {
      if (indices[j] == indices[k]) return false;
    }
    return true;
  };
  float max_logit = -INFINITY;
  for (int k = 0; k < count; ++k) {
    if (valid(k) && logits[indices[k]] > max_logit) max_logit = logits[indices[k]];
  }
  double sum = 0.0;
  for (int k = 0; k < count; ++k) {
    if (valid(k) && first_of_index(k)) sum += double(expf(logits[indices[k]] - max_logit));
  }
  const bool broken = sum != sum;  // a NaN or infinite logit: NaN priors, for the caller's check
  for (int k = 0; k < count; ++k) {
    if (broken) {
      out[k] = NAN;
      continue;
    }
    if (!valid(k) || !(sum > 0.0)) {
      out[k] = 0.0f;
      continue;
    }
    int sharers = 1;
    if (actions_may_collide) {
      sharers = 0;
      for (int j = 0; j < count; ++j) sharers += indices[j] == indices[k];
    }
    const float probability = expf(logits[indices[k]] - max_logit);
    out[k] = float(double(probability) / sum) / float(sharers);
  }
}

// wdl [3] = softmax(wdl_logits [3]).
VZ_HD inline void WdlSoftmax(const float* wdl_logits, float* wdl) {
  const float m = fmaxf(wdl_logits[0], fmaxf(wdl_logits[1], wdl_logits[2]));
  const float e0 = expf(wdl_logits[0] - m), e1 = expf(wdl_logits[1] - m),
              e2 = expf(wdl_logits[2] - m);
  const float sum = e0 + e1 + e2;
  wdl[0] = e0 / sum;
  wdl[1] = e1 / sum;
  wdl[2] = e2 / sum;
}

// Priors of entry i (EntryPriors) from the policy indices as the host lists them (no move
// generation on the device): entry i's indices at policy_indices[offsets[i], offsets[i + 1]) and
// its priors at the same places of priors [offsets[batch]]; then the WDL softmax of entry i.
// Either output may be nullptr. An entry with offsets[i + 1] < offsets[i] has no priors.
VZ_HD inline void GatherCompactPriorsAt(const float* policy_logits, int num_actions,
                                        const int32_t* policy_indices, const int32_t* offsets,
                                        bool actions_may_collide, float* priors,
                                        const float* wdl_logits, float* wdl, int i) {
  if (priors != nullptr) {
    const int begin = offsets[i];
    const int count = offsets[i + 1] > begin ? offsets[i + 1] - begin : 0;
    EntryPriors(policy_logits + size_t(i) * num_actions, num_actions, policy_indices + begin, count,
                actions_may_collide, priors + begin);
  }
  if (wdl != nullptr) WdlSoftmax(wdl_logits + size_t(i) * 3, wdl + size_t(i) * 3);
}

// ------------------------------------------------------------------------------------------------
// The CPU twin: the same cores in a loop over host arrays (shapes in the file comment). No
// throwing: `batch` <= 0 does nothing.

template <class G>
void CpuLegalMoves(const typename G::Position* positions, int batch, Move* moves, int32_t* counts,
                   int32_t* policy_indices) {
  for (int i = 0; i < batch; ++i) LegalMovesAt<G>(positions, i, moves, counts, policy_indices);
}

template <class G>
void CpuEncodeFloat(const typename G::Position* positions, int batch,
                    const int32_t* repetition_counts, float* planes) {
  for (int i = 0; i < batch; ++i) EncodeFloatAt<G>(positions, i, repetition_counts, planes);
}

template <class G>
void CpuEncodeBf16(const typename G::Position* positions, int batch,
                   const int32_t* repetition_counts, uint16_t* planes) {
  float scratch[InputEncoding<G>::kSize];
  for (int i = 0; i < batch; ++i) EncodeBf16At<G>(positions, i, repetition_counts, planes, scratch);
}

inline void CpuGatherCompactPriors(const float* policy_logits, int num_actions,
                                   const int32_t* policy_indices, const int32_t* offsets, int batch,
                                   bool actions_may_collide, float* priors, const float* wdl_logits,
                                   float* wdl) {
  for (int i = 0; i < batch; ++i) {
    GatherCompactPriorsAt(policy_logits, num_actions, policy_indices, offsets, actions_may_collide,
                          priors, wdl_logits, wdl, i);
  }
}

}  // namespace vz::cuda
