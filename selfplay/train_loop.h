#pragma once

// `vzero train`: the AlphaZero loop in one process (Silver et al., Science 2018; KataGo's and Lc0's
// practice for the replay window, the sample cap, gating and resumable runs).
//
//   actors (selfplay/selfplay_actors.h, many games, one batched net call per round)
//     -> finished games: records/pending/chunk-GGGGGG.vzr at once (G = the game's index), then
//        records/chunk-NNNNNN.vzr
//     -> replay window (selfplay/replay_window.h, the most recent replay.window_games games)
//     -> trainer (nets/trainer.h): at most replay.max_samples_per_new_sample training samples per
//        self-play position, a candidate every optimizer.checkpoint_every_steps steps
//     -> gating (arena/match.h: candidate vs best over paired openings) -> promotion -> export
//
// Run directory (every file written by the one atomic writer, engine/core/atomic_file.h, so a
// reader never sees half a file, and the temporary files of a killed save are deleted on resume):
//   config.txtpb                the resolved config (TrainConfigText)
//   state.json                  counters for people and the status line (informational)
//   records/chunk-NNNNNN.vzr    finished games (selfplay/game_record.h)
//   records/pending/chunk-GGGGGG.vzr  games finished since the last chunk, one file per game,
//                               named by the game's index (unique in the run)
//   checkpoints/trainer.ckpt    the trainer's full state (weights, optimizer, step, generators),
//                               with a CRC-32; trainer.prev.ckpt the one before (fallback)
//   lock                        held (flock) by the running `vzero train`: a second is refused
//   nets/initial.vznet          the net the run started from
//   nets/best.vznet             the current best net; nets/best-NNNN.vznet one per promotion
//   metrics.jsonl               one JSON object per line: selfplay, train, gating, evaluation
//   train.log                   the log
//   plots/*.svg                 losses, strength and self-play plots (selfplay/run_report.h)
//   evaluation.txt              the end-of-run evaluation
//
// Resume: the same command (or `vzero train --run-dir D`) continues from the last checkpoint: the
// step comes from checkpoints/trainer.ckpt, games and positions from the record files (pending
// games already in a chunk are deleted, so no game counts twice), the best net from the highest
// nets/best-NNNN.vznet. At most the games in flight and the steps since the last checkpoint (one
// train phase) are lost. A corrupted record file is reported by name and skipped; a corrupted
// newest checkpoint falls back to the previous one with a warning. A candidate promoted just
// before a kill is not gated again (its step is the promoted net's). A non-finite training loss
// stops the run with an error before that step is taken or checkpointed.
// SIGINT/SIGTERM: the loop stops at the next round or step, writes a checkpoint, and returns.

#include <cstdint>
#include <string>
#include <vector>

#include "proto/train.pb.h"

namespace vz {

struct TrainRequest {
  proto::TrainConfig config;  // validated by RunTraining
  std::string run_dir;
  std::string init_net;       // a fresh run starts from this net file ("" = fresh weights)
  bool live = false;          // a live status line on stderr (else plain log lines)
};

struct TrainOutcome {
  std::string run_dir;
  std::string best_net;       // path of the exported best net
  int64_t steps = 0;
  int64_t games = 0;
  int64_t positions = 0;
  int generation = 0;         // promotions so far
  bool interrupted = false;   // stopped by a signal
  std::string evaluation;     // the end-of-run evaluation report ("" when none ran)
};

// Runs (or resumes) the run in `request.run_dir` until a stop limit or a signal. Throws vz::Error
// on an invalid config, a run directory that holds a run of another config (the `stop` section
// may differ), an unreadable --init-net or one for another game, and I/O failures (naming the
// file).
TrainOutcome RunTraining(const TrainRequest& request);

// Asks a running RunTraining to stop (async-signal-safe).
void RequestTrainingStop();

// Installs SIGINT and SIGTERM handlers that call RequestTrainingStop (a second signal exits at
// once with status 130).
void InstallTrainingSignalHandlers();

}  // namespace vz
