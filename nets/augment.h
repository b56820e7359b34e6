#pragma once

// Training-data augmentation with the symmetries the game's rules really have
// (InputEncoding<G>::kNumSymmetries, SymmetricCell, SymmetricAction; which ones and why is
// written in each engine/<game>/encoding.h): Chad the a1-l12 diagonal reflection, Chaco Rex the
// left-right mirror, Portuguese draughts and Cuarenta none. Torch-free.

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "engine/encodings.h"
#include "nets/trainer.h"

namespace vz::nets {

// Applies `symmetry` to sample `index` of `batch` in place: planes (and ownership targets) moved
// cell by cell, policy target (and legal mask) moved action by action. The value and material
// targets are unchanged.
template <Game G>
void ApplySymmetry(TrainingBatch& batch, int index, int symmetry) {
  using E = InputEncoding<G>;
  if (symmetry == 0) return;
  constexpr int kArea = E::kHeight * E::kWidth;
  // Moves `planes` grids of kArea values cell by cell.
  auto move_cells = [&](auto* values, int planes) {
    using T = std::remove_reference_t<decltype(*values)>;
    std::vector<T> moved(size_t(planes) * kArea, T{});
    for (int plane = 0; plane < planes; ++plane) {
      for (int row = 0; row < E::kHeight; ++row) {
        for (int column = 0; column < E::kWidth; ++column) {
          int r, c;
          E::SymmetricCell(symmetry, row, column, r, c);
          moved[size_t(plane * kArea + r * E::kWidth + c)] =
              values[plane * kArea + row * E::kWidth + column];
        }
      }
    }
    std::copy(moved.begin(), moved.end(), values);
  };
  move_cells(batch.planes.data() + size_t(index) * E::kSize, E::kPlanes);
  if (!batch.ownership.empty()) move_cells(batch.ownership.data() + size_t(index) * kArea, 1);
  auto move_actions = [&](auto* values) {
    using T = std::remove_reference_t<decltype(*values)>;
    std::vector<T> out(E::kNumActions, T{});
    for (int a = 0; a < E::kNumActions; ++a) {
      if (values[a] != T{}) out[size_t(E::SymmetricAction(symmetry, a))] = values[a];
    }
    std::copy(out.begin(), out.end(), values);
  };
  move_actions(batch.policy.data() + size_t(index) * E::kNumActions);
  if (!batch.legal.empty()) move_actions(batch.legal.data() + size_t(index) * E::kNumActions);
}

// The number of random() calls AugmentBatch<G> makes for a batch of `size` samples: one per
// sample for a game with symmetries, none otherwise.
template <Game G>
constexpr int64_t AugmentDraws(int size) {
  return InputEncoding<G>::kNumSymmetries > 1 ? int64_t(size) : 0;
}

// Applies a random symmetry (drawn from `random()`, a callable returning uint64_t: AugmentDraws
// calls, one per sample in order) to every sample of `batch`; a no-op for games with only the
// identity.
template <Game G, class Random>
void AugmentBatch(TrainingBatch& batch, Random&& random) {
  if constexpr (InputEncoding<G>::kNumSymmetries > 1) {
    for (int i = 0; i < batch.size; ++i) {
      ApplySymmetry<G>(batch, i, int(random() % uint64_t(InputEncoding<G>::kNumSymmetries)));
    }
  }
}

// As AugmentBatch for a compact batch: the same random() calls, the drawn symmetries recorded in
// batch.symmetries for the trainer's expansion (nets/trainer.h CompactBatch) to apply.
template <Game G, class Random>
void AugmentCompact(CompactBatch& batch, Random&& random) {
  batch.symmetries.assign(size_t(batch.size), 0);
  if constexpr (InputEncoding<G>::kNumSymmetries > 1) {
    for (int i = 0; i < batch.size; ++i) {
      batch.symmetries[size_t(i)] = int32_t(random() % uint64_t(InputEncoding<G>::kNumSymmetries));
    }
  }
}

}  // namespace vz::nets
