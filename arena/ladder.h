#pragma once

// Round-robin ladder: every pair of players plays a paired match (arena/match.h), then one
// maximum-likelihood rating per player (Bradley-Terry on the Elo scale, draws as half a win;
// arena/stats.h) with its standard error, anchored at the player `random` = 0 (or the first
// player when `random` is not in the list).

#include <string>
#include <string_view>
#include <vector>

#include "arena/match.h"
#include "arena/stats.h"

namespace vz {

struct LadderConfig {
  std::vector<std::string> players;  // spec strings, at least 2, all different
  int games_per_pair = 10;           // rounded up to whole pairs of games
  MatchConfig match;                 // openings, concurrency, max plies, adjudication, seed
  std::string csv_path;              // "" = no CSV
};

struct LadderRow {
  std::string player;
  Rating rating;
  int games = 0;
  double points = 0.0;
  int adjudicated = 0;
};

struct LadderResult {
  std::string variant;
  int anchor = 0;
  std::vector<LadderRow> rows;          // in the order of LadderConfig::players
  std::vector<PairingResult> pairings;  // i, j index LadderConfig::players
  std::vector<MatchSummary> matches;    // one per pairing

  // The table: rank, player, Elo, +- error (95% = 1.96 sigma), games, score, adjudicated, sorted
  // by rating; then the cross table of points.
  std::string Table() const;
  // CSV: player,elo,error,games,points,adjudicated (one row per player, sorted by rating).
  std::string Csv() const;
};

// Runs the round robin for the registered game `variant`; `progress` (may be empty) is called
// with one line after each match. Throws vz::Error on a bad spec, duplicate players, fewer than
// two players, or an unwritable CSV path.
LadderResult RunLadder(std::string_view variant, const LadderConfig& config,
                       const std::function<void(const std::string&)>& progress = {});

}  // namespace vz
