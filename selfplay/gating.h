#pragma once

// Gating (issue 18): the match of a training run's candidate against its best net and the
// verdict on it, by the config's gating.mode (selfplay/train_config.h):
//   "none"       no match: the trainer promotes every candidate (continuous training, as in
//                AlphaZero, Silver et al. 2018);
//   "threshold"  gating.games paired games; promoted when the candidate's score reaches
//                gating.threshold (AlphaGo Zero's 55%);
//   "sprt"       the sequential probability ratio test of arena/stats.h (fishtest's pentanomial
//                GSPRT) over at most gating.games paired games, gating.concurrent_games in flight:
//                promoted when it accepts H1 (the candidate is gating.sprt.elo1 Elo stronger),
//                kept out when it accepts H0 (elo0) or the game limit comes first.
// A threshold over a few games is a coin toss (16 games at 0.55 promote an equal net about a
// third of the time); the SPRT bounds both error rates by alpha and beta.
// The gate role (selfplay/cluster_gate.cc) plays the match with net players; tests use any
// players. Thread-safe (no shared state).

#include <string>

#include "arena/match.h"
#include "proto/train.pb.h"

namespace vz {

// The gating match of `config`: `candidate` (player 1) against `best` (player 2), both
// arena/player.h specs, over the run's adjudication (RunMatchConfig, selfplay/cluster.h), with
// gating.games games from gating.opening_plies random plies, and in mode "sprt" the SPRT of
// gating.sprt with gating.concurrent_games games in flight (0: all). Does not validate `config`
// (ValidateTrainConfig does); RunMatch throws on bad specs.
MatchConfig GatingMatchConfig(const proto::TrainConfig& config, const std::string& candidate,
                              const std::string& best, uint64_t seed);

struct GatingVerdict {
  bool promote = false;
  // Why, for the log and the verdict file: "score 0.625 >= 0.55", "SPRT accepted H1 (LLR 2.97
  // >= 2.94)", "SPRT accepted H0 ...", "SPRT undecided after 200 games (LLR 1.20)".
  std::string reason;
};

// The verdict on a finished gating match of `config` (mode "threshold" or "sprt"; "none" promotes).
GatingVerdict JudgeGating(const proto::GatingConfig& gating, const MatchSummary& summary);

}  // namespace vz
