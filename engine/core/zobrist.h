#pragma once

// Deterministic pseudo-random keys for Zobrist hashing, generated at compile time with SplitMix64
// (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) so that host
// and device tables are bit-identical and hashes are stable across builds and machines.

#include <cstdint>

#include "engine/core/macros.h"

namespace vz {

VZ_HD constexpr uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// N keys; `seed` separates the tables of different games and features.
template <int N>
struct ZobristKeys {
  uint64_t key[N];
};

template <int N>
constexpr ZobristKeys<N> MakeZobristKeys(uint64_t seed) {
  ZobristKeys<N> keys{};
  for (int i = 0; i < N; ++i) keys.key[i] = SplitMix64(seed * 0x100000001B3ull + uint64_t(i));
  return keys;
}

}  // namespace vz
