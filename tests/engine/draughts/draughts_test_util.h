#pragma once

// Helpers shared by the Portuguese draughts tests.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"
#include "engine/draughts/game.h"
#include "tests/engine/game_test_util.h"
#include "tests/test_util.h"

namespace vz::draughts::testing {

// Legal moves of `fen` in protocol form, sorted.
inline std::vector<std::string> SortedMoves(std::string_view fen) {
  return vz::testing::SortedMoveTexts<DraughtsGame>(ParsePosition(fen));
}

inline std::vector<std::string> Sorted(std::vector<std::string> text) {
  std::sort(text.begin(), text.end());
  return text;
}

using vz::testing::ErrorOf;

// Plays `move` (protocol string) on `p`.
inline void PlayOn(Position& p, std::string_view move) { ApplyMove(p, ParseMove(p, move)); }

// `fen` after playing `moves` (protocol strings) one by one.
inline Position Play(std::string_view fen, const std::vector<std::string>& moves) {
  Position p = ParsePosition(fen);
  for (const std::string& text : moves) PlayOn(p, text);
  return p;
}

inline int NumLegal(const Position& p) {
  DraughtsMoveList moves;
  GenerateMoves(p, moves);
  return moves.size;
}

}  // namespace vz::draughts::testing
