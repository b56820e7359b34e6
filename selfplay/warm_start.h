#pragma once

// The warm start of a training run from alpha-beta data (config section warm_start,
// proto::WarmStartConfig; issue 28), as Stockfish's first NNUE nets were trained on positions
// scored by its classical search. Before self-play, `vzero train` plays warm_start.games games of
// `alphabeta:DEPTH` (engine/alphabeta/alphabeta.h) against itself from random openings and writes
// them into RUN/records as the chunks of worker "warmstart" (chunk-warmstart-NNNNNN.vzr,
// selfplay.games_per_chunk games each), which the trainer reads like any self-play chunk:
//   - the first warm_start.random_opening_plies plies are uniformly random, without targets;
//   - every later position's policy target is the searched move (probability 1), its root_wdl
//     the search's score as a value, tanh(score / score_scale) (a mate +-1), with no draw share,
//     and raw_value the same value;
//   - a game ends by the rules or at selfplay.max_plies by selfplay.adjudication, like self-play.
// The value target is then the result mixed with the score by replay.value_target_search_weight.
// Game k is seeded from the run's seed and k alone, so the same config writes the same games.
// Resumable: chunks already in RUN/records are kept, and only the missing ones are played.
// Thread-safe per call; the games are played on `threads` threads.

#include <atomic>
#include <cstdint>
#include <string>

#include "engine/alphabeta/alphabeta.h"
#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/search/wdl.h"
#include "proto/train.pb.h"
#include "selfplay/adjudication.h"

namespace vz {

class RunLog;

// The worker id of the warm-start chunks (records/game_record.h WorkerRecordChunkName).
inline constexpr char kWarmStartWorker[] = "warmstart";
// warm_start.score_scale when the config leaves it 0 (centipawns per unit of atanh(value)).
inline constexpr float kDefaultWarmStartScoreScale = 400.0f;

// The value in [-1, 1] of an alpha-beta score (centipawns, side to move's view): +-1 for a mate
// score, else tanh(score / scale). `scale` > 0.
float ScoreValue(int score, float scale);

// One game of `search` (alphabeta at `depth` >= 1) against itself, seeded by `seed`, under the
// rules of `config` (warm_start, selfplay.max_plies, selfplay.adjudication and material_margin),
// as a record of worker kWarmStartWorker numbered `index`. Deterministic for a given seed.
template <Game G>
proto::GameRecord PlayWarmStartGame(const proto::TrainConfig& config, AlphaBeta<G>& search,
                                    int depth, uint64_t seed, int64_t index) {
  const proto::WarmStartConfig& warm = config.warm_start();
  const proto::SelfPlayConfig& play = config.selfplay();
  const float scale = warm.score_scale() > 0 ? warm.score_scale() : kDefaultWarmStartScoreScale;
  proto::GameRecord record;
  record.set_game(std::string(G::kName));
  record.set_rules_version(1);
  record.set_net_id("alphabeta:" + std::to_string(depth));
  record.set_start_fen(G::FormatPosition(G::InitialPosition()));
  record.set_index(uint64_t(index));
  record.set_worker(kWarmStartWorker);
  search.Clear();
  GameState<G> game;
  uint64_t random = seed;
  while (!game.outcome().IsTerminal() && game.moves().size() < size_t(play.max_plies())) {
    const auto& moves = game.legal_moves();
    proto::MoveRecord* move_record = record.add_moves();
    Move move;
    if (game.moves().size() < size_t(warm.random_opening_plies())) {
      random = SplitMix64(random);
      move = moves[int((random >> 32) * uint64_t(moves.size) >> 32)];
      move_record->set_has_target(false);
    } else {
      const AlphaBetaResult result = search.Search(game, depth);
      move = result.best_move == kNullMove ? moves[0] : result.best_move;
      const float value = ScoreValue(result.score, scale);
      move_record->set_has_target(true);
      move_record->add_policy_index(uint32_t(G::ActionIndex(game.position(), move)));
      move_record->add_policy_target(1.0f);
      const Wdl wdl = Wdl::FromValueAndDraw(value, 0.0f);
      move_record->add_root_wdl(wdl.win);
      move_record->add_root_wdl(wdl.draw);
      move_record->add_root_wdl(wdl.loss);
      move_record->set_raw_value(value);
    }
    move_record->set_move(G::FormatMove(game.position(), move));
    game.Play(move);
  }
  const Outcome outcome = game.outcome();
  OverLongResult result{outcome.status, ReasonName(outcome.reason)};
  if (!outcome.IsTerminal()) {
    record.set_adjudicated(true);
    result = AdjudicateOverLong<G>(play, game.position(), game.moves().size());
  }
  record.set_result(ResultFromWhite(result.status));
  record.set_reason(result.reason);
  return record;
}

struct WarmStartOutcome {
  int64_t games = 0;       // games played by this call (chunks already there not counted)
  int64_t positions = 0;   // ... and their positions with targets
  int64_t kept_chunks = 0; // chunks found from an earlier session, kept
  double seconds = 0;
  bool interrupted = false;  // `stop` was raised; the chunks written so far stay
};

// Plays the missing warm-start games of `config` (nothing when warm_start.player is empty) into
// `run_dir`/records on `threads` threads (0: one per core; nothing else runs beside a warm start),
// logging progress to `log`. Stops early, with whole
// chunks written, when `stop` becomes true. Throws vz::Error naming the chunk file on a write
// failure, or naming the key for a bad warm_start.player.
WarmStartOutcome RunWarmStart(const proto::TrainConfig& config, const std::string& run_dir,
                              int threads, RunLog& log, const std::atomic<bool>& stop);

}  // namespace vz
