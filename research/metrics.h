#pragma once

// The field's game metrics (issue 30), from a set of finished games of one player: the measures of
// Ludii's game-evaluation metrics (Browne 2008, "Automatic generation and evaluation of
// recombination games"; Piette et al., the Ludii metrics), each with its definition and a 95%
// interval, so that a designer can cite them:
//   first-mover advantage  the score of the side that moves first, minus 1/2 (Wilson interval)
//   balance                1 - |first mover's wins - second mover's wins| / games (bootstrap)
//   completion             share of games ended by the rules or a resignation, not at the ply
//                          limit (Wilson)
//   decisiveness           share of games won by one side (Wilson)
//   drawishness            share of drawn games, and of those drawn by the rules (Wilson)
//   timeouts               share of games adjudicated at the ply limit (Wilson)
//   duration               plies a game: mean (normal interval) and standard deviation
//                          (bootstrap)
//   branching factor       legal moves a position, the mean of each game's mean (normal
//                          interval over games), and its curve over the game (per 10 plies)
//   lead changes           times a game's leader changes: the searches' value (White's view)
//                          crossing from above +threshold to below -threshold or back, per game
//                          with values (a player without values, e.g. random, has none)
//   stability              mean |change| of the searches' value from one searched ply to the
//                          next, per game (lower: steadier games)
//   decision moves         share of the sampled positions (every `decision_every` plies, more
//                          than one legal move) where one legal move alone stays within
//                          `decision_margin` centipawns of the best by alphabeta:`decision_depth`
//                          (each move scored by a depth - 1 search of the position after it)
// Games enter as research/study.h StudyGame; "adjudication" endings are the ply limit's.
// Thread-safety: none shared; pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/game_state.h"
#include "research/statistics.h"
#include "research/study.h"

namespace vz::research {

struct MetricsConfig {
  double lead_threshold = 0.2;  // |value| a side must pass to lead (W - L units, in (0, 1))
  int decision_every = 0;       // sample a position every N plies for decision moves; 0 = none
  int decision_depth = 2;       // alphabeta depth that judges them (2..4)
  int decision_margin = 150;    // centipawns within the best that keep the result
  int bootstrap = 1000;         // resamples of the bootstrap intervals (>= 100)
  uint64_t seed = 1;            // of the bootstrap
};

// One metric of one group of games.
struct Metric {
  std::string key;         // "first_mover_advantage", "balance", ... (CSV/JSON)
  std::string name;        // "first-mover advantage"
  std::string definition;  // one line
  Interval value;          // NaN fields when there were no data (no games, no values)
  int64_t samples = 0;     // games or positions it was computed from
};

struct GameMetrics {
  std::string label;
  int64_t games = 0;
  std::vector<Metric> metrics;             // in the order of the list above
  std::vector<double> branching_by_plies;  // [ply / 10] mean legal moves over the games there
};

// Throws vz::Error naming the field of a config value out of its range.
void CheckMetricsConfig(const MetricsConfig& config);

// The metric with key `key` of `metrics`; null when there is none.
const Metric* FindMetric(const GameMetrics& metrics, const std::string& key);

// The number of times the leader of a game changes along `values` (White's view, NaN skipped): a
// side leads once the value passes +threshold (White) or -threshold (Black); values in between
// keep the last leader.
int LeadChanges(const std::vector<float>& values, double threshold);

// Mean |v[t] - v[t-1]| over consecutive finite values; NaN with fewer than two.
double MeanValueChange(const std::vector<float>& values);

// The metrics of `games` (replayed with G for the branching factor and the decision moves).
// Throws vz::Error on a config out of range, a game without a result (Status::kOngoing) or a game
// that does not replay.
template <Game G>
GameMetrics MeasureGames(const std::vector<const StudyGame*>& games, const std::string& label,
                         const MetricsConfig& config);

// A finding measured under two players: `differs` when their 95% intervals do not overlap, i.e.
// the finding depends on the player beyond the noise.
struct PlayerFinding {
  std::string finding;  // "balance", "value of the knight (imbalance matches)", ...
  Interval first, second;
  bool differs = false;
};

// The metrics both groups have, in `a`'s order, as findings.
std::vector<PlayerFinding> CompareMetrics(const GameMetrics& a, const GameMetrics& b);

}  // namespace vz::research
