#pragma once

// Perft: the number of legal move sequences of a given length from a position (draw rules
// ignored, as usual for chess and draughts perft). Bulk counting: at depth 1 the legal moves are
// counted by G::CountMoves (each game's count-only pass: a piece's whole target set added by
// population count, draughts' men-only positions counted over whole boards) without being written
// or played; every shallower node generates its list and plays each move.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/game.h"
#include "engine/core/macros.h"

namespace vz {

// Perft at depth 2: every legal move of `position` played and the replies counted. Most of a
// perft's time is spent here, so its generation, moves and counts are inlined into one function
// (VZ_FLATTEN: 2.5% faster in draughts, 2-8% in the other games; docs/performance.md).
template <Game G>
VZ_FLATTEN uint64_t PerftLastTwoPlies(const typename G::Position& position) {
  typename G::MoveList moves;
  G::GenerateMoves(position, moves);
  uint64_t total = 0;
  for (Move move : moves) {
    typename G::Position child = position;
    G::ApplyMove(child, move);
    total += uint64_t(G::CountMoves(child));
  }
  return total;
}

template <Game G>
uint64_t Perft(const typename G::Position& position, int depth) {
  if (depth <= 0) return 1;
  if (depth == 1) return uint64_t(G::CountMoves(position));
  if (depth == 2) return PerftLastTwoPlies<G>(position);
  typename G::MoveList moves;
  G::GenerateMoves(position, moves);
  uint64_t total = 0;
  for (Move move : moves) {
    typename G::Position child = position;
    G::ApplyMove(child, move);
    total += Perft<G>(child, depth - 1);
  }
  return total;
}

// Perft split by first move: (move in protocol form, leaf count) for every legal move, in
// generation order. depth >= 1.
template <Game G>
std::vector<std::pair<std::string, uint64_t>> PerftDivide(const typename G::Position& position,
                                                          int depth) {
  typename G::MoveList moves;
  G::GenerateMoves(position, moves);
  std::vector<std::pair<std::string, uint64_t>> result;
  for (Move move : moves) {
    typename G::Position child = position;
    G::ApplyMove(child, move);
    result.emplace_back(G::FormatMove(position, move), Perft<G>(child, depth - 1));
  }
  return result;
}

}  // namespace vz
