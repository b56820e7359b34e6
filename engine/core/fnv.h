#pragma once

// FNV-1a, 64-bit (Fowler, Noll and Vo; the offset basis and prime of the published 64-bit
// variant): the one non-cryptographic hash of bytes in vzero, for net-file checksums, config
// hashes, bench signatures and worker seeds. Values are stable across builds and machines.

#include <cstdint>
#include <string_view>

namespace vz {

inline constexpr uint64_t kFnv1aBasis = 0xcbf29ce484222325ull;
inline constexpr uint64_t kFnv1aPrime = 0x100000001b3ull;

// The hash of `bytes`, continuing from `hash` (kFnv1aBasis starts a fresh one).
constexpr uint64_t Fnv1a64(std::string_view bytes, uint64_t hash = kFnv1aBasis) {
  for (const char c : bytes) hash = (hash ^ uint8_t(c)) * kFnv1aPrime;
  return hash;
}

// The hash continued with the 8 bytes of `value`, lowest first.
constexpr uint64_t Fnv1a64Word(uint64_t value, uint64_t hash) {
  for (int byte = 0; byte < 8; ++byte) hash = (hash ^ ((value >> (8 * byte)) & 0xff)) * kFnv1aPrime;
  return hash;
}

}  // namespace vz
