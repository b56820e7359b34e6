#pragma once

// Strength against fixed opponents, measured inside every training run (issue 18): the curve users
// look at. Every strength.every_checkpoints checkpoints the gate role (selfplay/cluster_gate.cc,
// a thread of `vzero train` beside self-play) lets the net self-play uses (the current best) play
// a paired match (arena/match.h: each random opening with both colours) against each of
// strength.opponents (arena/player.h specs such as "alphabeta:1"), and writes one "strength" line
// per opponent to the run's metrics (StrengthRecord); selfplay/run_report.h draws the Elo against
// self-play positions and wall time, one line per opponent. The end-of-run evaluation plays the
// final net against the same opponents.
//
// The pieces here are pure (no files, no nets): the schedule, the match of a check, the metrics
// line and the result text that gating verdicts and the end-of-run evaluation print too.
// Thread-safe (no shared state).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "arena/match.h"
#include "proto/train.pb.h"

namespace vz {

// Whether the net of training step `step` is due for a strength check: there was none yet
// (`last_checked_step` < 0), or `step` lies at least `every_checkpoints` checkpoints (of
// `checkpoint_every_steps` steps, counted as step / checkpoint_every_steps) after the last net
// checked. Never when every_checkpoints is 0 or `step` <= last_checked_step. A gate busy for
// several checkpoints measures the newest net and skips the ones in between. Throws vz::Error
// when checkpoint_every_steps < 1.
bool StrengthCheckDue(int64_t step, int64_t last_checked_step, int64_t checkpoint_every_steps,
                      int64_t every_checkpoints);

// The match of a strength check of `config`: net:NET_PATH:strength.simulations (player 1) against
// strength.opponents[opponent] (player 2), strength.games games from strength.opening_plies random
// plies, all in flight, the run's adjudication. The seed depends on the run's seed and the opponent
// only, so every check of a run plays the same openings (the points of a curve differ by the net,
// not by the openings). Throws vz::Error when `opponent` is out of range.
MatchConfig StrengthMatchConfig(const proto::TrainConfig& config, const std::string& net_path,
                                int opponent);

// Where the run stood when a net was measured.
struct StrengthPoint {
  std::string net_id;              // "best-0004", or "initial" (nets/initial.vznet)
  int64_t step = 0;                // the net's training step (0 for the initial net)
  int64_t selfplay_games = 0;      // self-play games the trainer had read (state.json)
  int64_t selfplay_positions = 0;  // ... and their training positions
  double wall_seconds = 0;         // since the run began (nets/initial.vznet was written)
};

// The result fields of a match, player 1's view: games, wins, draws, losses, score, elo, elo_low,
// elo_high (the 95% interval of arena/stats.h), elo_interval_defined, adjudicated; with an SPRT
// also llr and sprt ("H0", "H1", "continue"). Shared by gating verdicts, strength lines and the
// end-of-run evaluation.
nlohmann::json MatchResultFields(const MatchSummary& summary);

// The metrics line {"type": "strength", "time", "net", "step", "selfplay_games",
// "selfplay_positions", "wall_seconds", "opponent", "simulations", "seconds" (the match's
// duration), and MatchResultFields} of the match of `point`'s net against `opponent`.
nlohmann::json StrengthRecord(const StrengthPoint& point, const std::string& opponent,
                              int simulations, const MatchSummary& summary, double seconds,
                              const std::string& time);

}  // namespace vz
