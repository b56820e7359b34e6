#pragma once

// Host launchers for kernels that run every registered game's rule core on the device. Until the
// batched GPU path lands, these prove at every build that the VZ_HD rule cores compile for CUDA.
// Plain C++ interface: raw device pointers and a stream, no CUDA headers.

#include <cstdint>

namespace vz::cuda {

// For each of `count` positions of game `variant_name` (device array [count] of that game's
// Position, trivially copyable), writes the number of legal moves into `legal_counts` [count] and
// plays the first legal move in place (positions without a legal move are left unchanged).
// `stream` is a cudaStream_t (nullptr: the default stream). Returns false for an unknown game;
// throws vz::Error if the launch fails. Asynchronous: synchronise the stream before reading.
bool LaunchCountAndPlayFirst(const char* variant_name, void* positions, int32_t* legal_counts,
                             int count, void* stream);

}  // namespace vz::cuda
