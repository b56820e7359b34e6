#pragma once

// Positions for the batched-rules tests: every position of pseudo-random games played to their
// end, so a batch holds openings, middle games, terminal positions (mate, stalemate, counters,
// repetition) and positions with zero legal moves, each with its repetition count.

#include <cstdint>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"

namespace vz::testing {

template <class G>
struct PositionBatch {
  std::vector<typename G::Position> positions;  // [batch]
  std::vector<int32_t> repetition_counts;       // [batch], >= 1
  int size() const { return int(positions.size()); }
};

// At least `count` positions (then truncated to `count`) from random games (SplitMix64 from
// `seed`) of at most `max_plies` plies; each game's last position is included.
template <class G>
PositionBatch<G> PositionsFromRandomGames(int count, uint64_t seed, int max_plies = 400) {
  PositionBatch<G> batch;
  uint64_t state = seed;
  while (batch.size() < count) {
    GameState<G> game;
    for (int ply = 0; ply <= max_plies && batch.size() < count; ++ply) {
      batch.positions.push_back(game.position());
      batch.repetition_counts.push_back(game.RepetitionCount());
      if (game.legal_moves().size == 0 || game.outcome().IsTerminal()) break;
      state = SplitMix64(state);
      game.Play(game.legal_moves()[int(state % uint64_t(game.legal_moves().size))]);
    }
  }
  return batch;
}

}  // namespace vz::testing
