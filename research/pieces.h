#pragma once

// The piece kinds a strategy study counts in each game (research/study.h): a kind is one of the
// game's piece types (engine/piece_types.h, which states their order, names and promoting type;
// kind 0, the weakest, is the unit the study's piece values are scaled to), with the alpha-beta
// baseline's value of each (engine/alphabeta/evaluation.h) and both colours counted at once.
//
// PieceTraits<G> members:
//   Types                  PieceTypes<G>
//   kKinds, kNames, kPromotedFrom   Types::kNumTypes, Types::kNames, Types::kPromotedFrom
//   Baseline(kind)         the baseline's value in centipawns (a pawn or man = 100)
//   Count(position)        PieceCounts of the position (both colours)
// Host only; no state.

#include <algorithm>
#include <array>

#include "engine/alphabeta/evaluation.h"
#include "engine/piece_types.h"

namespace vz::research {

inline constexpr int kMaxPieceKinds = kMaxPieceTypes;

// [colour][kind] pieces on the board.
struct PieceCounts {
  std::array<std::array<int, kMaxPieceKinds>, 2> count{};

  bool operator==(const PieceCounts& other) const = default;
};

// G's piece types (engine/piece_types.h) as a study counts them: both colours at once, with the
// baseline's value of each.
template <class G>
struct PieceTraits {
  using Types = PieceTypes<G>;
  static constexpr int kKinds = Types::kNumTypes;
  static_assert(kKinds <= kMaxPieceKinds);
  static constexpr const auto& kNames = Types::kNames;
  static constexpr int kPromotedFrom = Types::kPromotedFrom;
  static int Baseline(int kind) { return EvalTraits<G>::kPieceValues[kind]; }
  static PieceCounts Count(const typename G::Position& p) {
    PieceCounts counts;
    for (int color = 0; color < 2; ++color) {
      Types::Count(p, Color(color), counts.count[size_t(color)].data());
    }
    return counts;
  }
};

// What one ply did to the material, from the piece counts before and after it: the mover's
// promotions (its promoting kind lost, another kind gained) and the opponent's pieces captured.
struct PlyMaterial {
  std::array<int, kMaxPieceKinds> captured{};  // [kind] opponent pieces removed
  std::array<int, kMaxPieceKinds> promoted{};  // [kind] mover's pieces that appeared by promotion
};

// `mover` is the colour that played the ply (0 White, 1 Black).
template <class G>
PlyMaterial MaterialChange(const PieceCounts& before, const PieceCounts& after, int mover) {
  PlyMaterial change;
  for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) {
    change.captured[size_t(kind)] =
        std::max(0, before.count[1 - mover][kind] - after.count[1 - mover][kind]);
    if (kind != PieceTraits<G>::kPromotedFrom) {
      change.promoted[size_t(kind)] =
          std::max(0, after.count[mover][kind] - before.count[mover][kind]);
    }
  }
  return change;
}

}  // namespace vz::research
