#pragma once

// Helpers shared by the per-game rule and reference tests (tests/engine/<game>/) and the perft
// table test, and by the search tests on the real games: the position after a move and its local
// outcome, the engine's legal moves as sorted text, the perft of an independent reference
// generator, the perft tables of tests/data/perft, and a readable difference of two move lists.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/game.h"

namespace vz::testing {

// The position after `move` (legal) in `p`.
template <Game G>
typename G::Position PositionAfter(const typename G::Position& p, Move move) {
  typename G::Position child = p;
  G::ApplyMove(child, move);
  return child;
}

// The local outcome (G::LocalOutcome with its legal move count) of the position after `move`
// (legal) in `p`.
template <Game G>
Outcome OutcomeAfter(const typename G::Position& p, Move move) {
  const typename G::Position child = PositionAfter<G>(p, move);
  typename G::MoveList replies;
  G::GenerateMoves(child, replies);
  return G::LocalOutcome(child, replies.size);
}

// The legal moves of `p` in protocol form (display form if `display`), sorted.
template <Game G>
std::vector<std::string> SortedMoveTexts(const typename G::Position& p, bool display = false) {
  typename G::MoveList moves;
  G::GenerateMoves(p, moves);
  std::vector<std::string> texts;
  for (Move m : moves) texts.push_back(display ? G::FormatDisplayMove(p, m) : G::FormatMove(p, m));
  std::sort(texts.begin(), texts.end());
  return texts;
}

// "" if the sorted lists `engine` and `reference` are equal, else "only engine: a b; only
// reference: c" for a failure message.
inline std::string MoveListDifference(const std::vector<std::string>& engine,
                                      const std::vector<std::string>& reference) {
  if (engine == reference) return "";
  std::vector<std::string> only_engine, only_reference;
  std::set_difference(engine.begin(), engine.end(), reference.begin(), reference.end(),
                      std::back_inserter(only_engine));
  std::set_difference(reference.begin(), reference.end(), engine.begin(), engine.end(),
                      std::back_inserter(only_reference));
  std::string text = "only engine:";
  for (const std::string& move : only_engine) text += " " + move;
  text += "; only reference:";
  for (const std::string& move : only_reference) text += " " + move;
  return text;
}

// Leaves of the move tree of a reference generator (a test-only twin of the rules): `legal(b)`
// returns the legal moves of board b (any container), `play(b, m)` the board after move m.
template <class Board, class Legal, class Play>
uint64_t ReferencePerft(const Board& board, int depth, const Legal& legal, const Play& play) {
  if (depth == 0) return 1;
  const auto moves = legal(board);
  if (depth == 1) return moves.size();
  uint64_t total = 0;
  for (const auto& move : moves) total += ReferencePerft(play(board, move), depth - 1, legal, play);
  return total;
}

// One line of a perft table: `nodes` leaves at `depth` plies below `fen` ("startpos" for the
// start position).
struct PerftEntry {
  int depth = 0;
  uint64_t nodes = 0;
  std::string fen;
};

// The entries of tests/data/perft/<game>.txt. Line format: <depth> <nodes> <position string |
// startpos>; empty lines and lines starting with '#' are skipped. A malformed line is a test
// failure.
inline std::vector<PerftEntry> ReadPerftTable(std::string_view game) {
  const std::string path = std::string(VZ_TEST_DATA_DIR) + "/perft/" + std::string(game) + ".txt";
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << "cannot read " << path;
  std::vector<PerftEntry> entries;
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream stream(line);
    PerftEntry entry;
    stream >> entry.depth >> entry.nodes >> std::ws;
    std::getline(stream, entry.fen);
    EXPECT_FALSE(entry.fen.empty()) << path << ": malformed line '" << line << "'";
    entries.push_back(entry);
  }
  return entries;
}

// The position string of a perft table entry (G's start position for "startpos").
template <Game G>
std::string PerftEntryPosition(const PerftEntry& entry) {
  return entry.fen == "startpos" ? G::FormatPosition(G::InitialPosition()) : entry.fen;
}

// The distinct positions of G's perft table (ReadPerftTable(G::kName)) as position strings, in
// the order of the table.
template <Game G>
std::vector<std::string> PerftTablePositions() {
  std::vector<std::string> positions;
  for (const PerftEntry& entry : ReadPerftTable(G::kName)) {
    const std::string position = PerftEntryPosition<G>(entry);
    if (std::find(positions.begin(), positions.end(), position) == positions.end()) {
      positions.push_back(position);
    }
  }
  return positions;
}

}  // namespace vz::testing
