#pragma once

// The piece kinds a strategy study counts in each game (research/study.h): the game's piece types
// (engine/piece_types.h, where they are written once), the alpha-beta baseline's values of them
// (engine/alphabeta/evaluation.h, read from there), and the count of each kind per colour in a
// position. Kings of the chess-like games are left out (never captured); draughts counts men and
// kings. Kind 0 is always the game's weakest piece (the unit piece values are scaled to), and
// `kPromotedFrom` the kind that promotes (pawn, man, or Chad's rook, which becomes a queen inside
// the enemy castle).
//
// PieceTraits<G> members:
//   Types                  PieceTypes<G> (names, letters, counting)
//   kKinds                 number of kinds (<= kMaxPieceKinds)
//   kNames[kind]           English name ("pawn", "king" for a draughts king)
//   kPromotedFrom          the kind that promotes
//   Baseline(kind)         the baseline's value in centipawns (a pawn or man = 100)
//   Count(position)        PieceCounts of the position
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
  static constexpr int kKinds = Types::kCount;
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
