#pragma once

// Bit scans and population counts of the games' bit sets, host and device (VZ_HD): one overload
// per word size the boards use (32-bit draughts, 64-bit Cuarenta and Chad words, 128-bit Chaco
// Rex). The scans require a non-zero argument (their result is undefined for zero, as the
// hardware instructions' is). Pure functions; thread-safe.

#include <cstdint>

#include "engine/core/macros.h"

namespace vz {

// Index of the lowest / highest set bit of a non-zero word; the number of set bits.
VZ_HD VZ_FORCE_INLINE int LowestBit(uint32_t word) {
#if defined(__CUDA_ARCH__)
  return __ffs(int(word)) - 1;
#else
  return __builtin_ctz(word);
#endif
}
VZ_HD VZ_FORCE_INLINE int HighestBit(uint32_t word) {
#if defined(__CUDA_ARCH__)
  return 31 - __clz(int(word));
#else
  return 31 - __builtin_clz(word);
#endif
}
VZ_HD VZ_FORCE_INLINE int PopCount(uint32_t word) {
#if defined(__CUDA_ARCH__)
  return __popc(word);
#else
  return __builtin_popcount(word);
#endif
}

VZ_HD VZ_FORCE_INLINE int LowestBit(uint64_t word) {
#if defined(__CUDA_ARCH__)
  return __ffsll(static_cast<long long>(word)) - 1;
#else
  return __builtin_ctzll(word);
#endif
}
VZ_HD VZ_FORCE_INLINE int HighestBit(uint64_t word) {
#if defined(__CUDA_ARCH__)
  return 63 - __clzll(static_cast<long long>(word));
#else
  return 63 - __builtin_clzll(word);
#endif
}
VZ_HD VZ_FORCE_INLINE int PopCount(uint64_t word) {
#if defined(__CUDA_ARCH__)
  return __popcll(word);
#else
  return __builtin_popcountll(word);
#endif
}

// The 128-bit word as two 64-bit halves (g++, clang and nvcc for sm_90 compile unsigned __int128
// to pairs of 64-bit operations).
VZ_HD VZ_FORCE_INLINE int LowestBit(unsigned __int128 word) {
  const uint64_t low = uint64_t(word);
  return low ? LowestBit(low) : 64 + LowestBit(uint64_t(word >> 64));
}
VZ_HD VZ_FORCE_INLINE int HighestBit(unsigned __int128 word) {
  const uint64_t high = uint64_t(word >> 64);
  return high ? 64 + HighestBit(high) : HighestBit(uint64_t(word));
}
VZ_HD VZ_FORCE_INLINE int PopCount(unsigned __int128 word) {
  return PopCount(uint64_t(word)) + PopCount(uint64_t(word >> 64));
}

}  // namespace vz
