#pragma once

// A 144-square Chad board as a 192-bit set (three 64-bit words), usable on host and device.
//
// Square index s = 12 * rank + file, with file a..l = 0..11 and rank 1..12 = 0..11 (a1 = 0,
// l1 = 11, a2 = 12, ..., l12 = 143). Square s is bit (s % 64) of word w[s / 64]:
//
//   w[0]  bits 0..63   squares a1 .. d6    (s = 0..63)
//   w[1]  bits 0..63   squares e6 .. h11   (s = 64..127)
//   w[2]  bits 0..15   squares i11 .. l12  (s = 128..143); bits 16..63 are always zero.
//
// Every operation keeps the unused high bits of w[2] zero (Not() masks them), so Any() and
// Count() never see phantom squares.

#include <cstdint>

#include "engine/core/macros.h"

namespace vz::chad {

inline constexpr int kNumSquares = 144;
inline constexpr int kBoardSize = 12;

// Square index of (file 0..11, rank 0..11) and back; no range checks (callers pass board squares).
VZ_HD constexpr int SquareOf(int file, int rank) { return rank * kBoardSize + file; }
VZ_HD constexpr int FileOf(int square) { return square % kBoardSize; }
VZ_HD constexpr int RankOf(int square) { return square / kBoardSize; }

// Index of the lowest / highest set bit of a non-zero word.
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

// A set of squares (layout above). Plain value type; every member is VZ_HD.
struct Bitboard {
  uint64_t w[3] = {0, 0, 0};

  VZ_HD static constexpr Bitboard FromSquare(int square) {
    Bitboard b;
    b.w[square >> 6] = uint64_t{1} << (square & 63);
    return b;
  }
  VZ_HD constexpr bool Test(int square) const { return (w[square >> 6] >> (square & 63)) & 1; }
  VZ_HD constexpr void Set(int square) { w[square >> 6] |= uint64_t{1} << (square & 63); }
  VZ_HD constexpr void Clear(int square) { w[square >> 6] &= ~(uint64_t{1} << (square & 63)); }
  VZ_HD constexpr void Toggle(int square) { w[square >> 6] ^= uint64_t{1} << (square & 63); }
  VZ_HD constexpr bool Any() const { return (w[0] | w[1] | w[2]) != 0; }
  VZ_HD constexpr bool None() const { return !Any(); }

  VZ_HD constexpr Bitboard operator|(const Bitboard& o) const {
    return Bitboard{{w[0] | o.w[0], w[1] | o.w[1], w[2] | o.w[2]}};
  }
  VZ_HD constexpr Bitboard operator&(const Bitboard& o) const {
    return Bitboard{{w[0] & o.w[0], w[1] & o.w[1], w[2] & o.w[2]}};
  }
  VZ_HD constexpr Bitboard operator^(const Bitboard& o) const {
    return Bitboard{{w[0] ^ o.w[0], w[1] ^ o.w[1], w[2] ^ o.w[2]}};
  }
  // Complement within the 144 squares.
  VZ_HD constexpr Bitboard Not() const { return Bitboard{{~w[0], ~w[1], ~w[2] & 0xFFFFull}}; }
  // this & ~o.
  VZ_HD constexpr Bitboard AndNot(const Bitboard& o) const {
    return Bitboard{{w[0] & ~o.w[0], w[1] & ~o.w[1], w[2] & ~o.w[2]}};
  }
  VZ_HD constexpr Bitboard& operator|=(const Bitboard& o) { return *this = *this | o; }
  VZ_HD constexpr Bitboard& operator&=(const Bitboard& o) { return *this = *this & o; }
  VZ_HD constexpr Bitboard& operator^=(const Bitboard& o) { return *this = *this ^ o; }
  VZ_HD constexpr bool operator==(const Bitboard& o) const {
    return w[0] == o.w[0] && w[1] == o.w[1] && w[2] == o.w[2];
  }

  // Lowest / highest occupied square; the set must not be empty.
  VZ_HD VZ_FORCE_INLINE int Lowest() const {
    if (w[0]) return LowestBit(w[0]);
    if (w[1]) return 64 + LowestBit(w[1]);
    return 128 + LowestBit(w[2]);
  }
  VZ_HD VZ_FORCE_INLINE int Highest() const {
    if (w[2]) return 128 + HighestBit(w[2]);
    if (w[1]) return 64 + HighestBit(w[1]);
    return HighestBit(w[0]);
  }
  VZ_HD VZ_FORCE_INLINE int Count() const {
    return PopCount(w[0]) + PopCount(w[1]) + PopCount(w[2]);
  }
};

// Calls f(square) for every square of `b`, lowest first.
template <class F>
VZ_HD VZ_FORCE_INLINE void ForEachSquare(const Bitboard& b, F&& f) {
  for (int i = 0; i < 3; ++i) {
    uint64_t word = b.w[i];
    while (word) {
      f(64 * i + LowestBit(word));
      word &= word - 1;
    }
  }
}

}  // namespace vz::chad
