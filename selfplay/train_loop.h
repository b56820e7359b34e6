#pragma once

// `vzero train`: the AlphaZero loop in one process (Silver et al., Science 2018; KataGo's and Lc0's
// practice for the replay window, the sample cap, gating and resumable runs), composed of the
// roles of selfplay/cluster.h — the same code as `vzero selfplay`, `vzero trainer` and `vzero
// gate` — each in its own thread, over one run directory:
//
//   self-play thread (RunSelfPlayWorker, worker id "train"; selfplay/selfplay_actors.h: many
//   games, one batched net call per round), never paused for training
//     -> a finished game at once in records/pending/chunk-train-GGGGGG.vzr, every
//        selfplay.games_per_chunk games one records/chunk-train-NNNNNN.vzr      [wake-up]
//   trainer thread (RunTrainerRole): reads the new chunks into the replay window
//     (selfplay/replay_window.h, the most recent games: replay.window_games, or a growing
//     window of positions), trains
//     (nets/trainer.h) while the sample cap allows (replay.max_samples_per_new_sample training
//     samples per position read), else waits for the next chunk; every
//     optimizer.checkpoint_every_steps a checkpoint and either
//     nets/candidates/candidate-SSSSSSSS.vznet (gating on)               [wake-up] or a promotion
//     at once (gating off: nets/best-NNNN.vznet, nets/best.vznet)
//   gate thread (RunGateRole; gating on or strength checks, GateRoleNeeded): the newest waiting
//     candidate against the best (arena/match.h), its verdict candidate-SSSSSSSS.json, a
//     promotion by gating.mode (selfplay/gating.h: a score threshold or an SPRT); between
//     candidates the strength checks of the net self-play uses against the fixed opponents
//     (selfplay/strength.h); the self-play thread switches to a promoted net after its next chunk.
//
// One stop flag (RoleStopFlag: SIGINT/SIGTERM, or a role's failure), one log (RUN/train.log and
// stderr), one metrics file (RUN/metrics.jsonl: "selfplay" lines from the worker, "ingest" and
// "train" from the trainer, "candidate" and "gating" from the trainer or the gate, "strength"
// from the gate, "evaluation" from the end of the run). The trainer's stop limits (the config's
// `stop`) end the run: it asks the other roles to finish (the worker chunks its finished games,
// the gate judges the waiting candidates and abandons a strength check) and waits for them, reads
// the last chunks, checkpoints; then the end-of-run evaluation plays (the best net against the
// initial net, a rollout search and the fixed opponents of the strength section) and the plots
// are drawn. On a CPU the two busy threads split the cores by
// selfplay.cpu_threads and optimizer.cpu_threads (LibTorch's intra-op threads, set per thread).
//
// Run directory (every file written by the one atomic writer, engine/core/atomic_file.h, so a
// reader never sees half a file, and the temporary files of a killed save are deleted on resume):
//   config.txtpb                the resolved config (TrainConfigText)
//   state.json                  the trainer's counters, for people and tests (informational)
//   records/chunk-train-NNNNNN.vzr   finished games (records/game_record.h); a cluster's workers
//                               write chunk-<worker>-NNNNNN.vzr, and runs before the roles
//                               chunk-NNNNNN.vzr (still read)
//   records/pending/chunk-train-GGGGGG.vzr  a game finished since the last chunk (G: its index)
//   checkpoints/trainer.ckpt    the trainer's full state (weights, optimizer, step, generators),
//                               with a CRC-32; trainer.prev.ckpt the one before (fallback)
//   lock, gate.lock             held (flock) by the running `vzero train` (and its gate): a second
//                               one is refused
//   nets/initial.vznet          the net the run started from
//   nets/best.vznet             the current best net; nets/best-NNNN.vznet one per promotion
//   nets/candidates/candidate-SSSSSSSS.{vznet,json}  candidates and the gate's verdicts
//   strength/strength-SSSSSSSS.json  the strength check of the net of step S
//   metrics.jsonl, train.log    the metrics and the log
//   plots/*.svg                 losses, strength, gating and self-play plots (run_report.h)
//   evaluation.txt              the end-of-run evaluation
//
// Resume: the same command (or `vzero train --run-dir D`) continues: the step from
// checkpoints/trainer.ckpt, the games from the chunks (the worker chunks its pending games first,
// deleting those a kill left in a chunk already, so no game counts twice), the best net from the
// highest nets/best-NNNN.vznet, the candidates without a verdict from nets/candidates. A SIGKILL
// anywhere loses at most the games in flight and the steps since the last checkpoint. A corrupted
// record file is reported by name and skipped; a corrupted newest checkpoint falls back to the
// previous one with a warning; a candidate promoted just before a kill is not promoted again
// (PromotedStep). A non-finite training loss stops the run with an error before that step is
// taken or checkpointed. SIGINT/SIGTERM stop every role at its next round, step or gating move;
// the trainer checkpoints; a second signal exits at once.

#include <cstdint>
#include <string>

#include "proto/train.pb.h"

namespace vz {

struct TrainRequest {
  proto::TrainConfig config;  // validated by RunTraining
  std::string run_dir;
  std::string init_net;  // a fresh run starts from this net file ("" = fresh weights)
  bool live = false;     // a live status line on stderr (else plain log lines)
};

struct TrainOutcome {
  std::string run_dir;
  std::string best_net;  // path of the exported best net
  int64_t steps = 0;
  int64_t games = 0;  // read by the trainer, the whole run
  int64_t positions = 0;
  int generation = 0;        // promotions so far
  bool interrupted = false;  // stopped by a signal
  std::string evaluation;    // the end-of-run evaluation report ("" when none ran)
  std::string session;       // this invocation's rates: the "this session: ..." line
};

// Runs (or resumes) the run in `request.run_dir` until a stop limit or a signal (install the
// handlers with InstallRoleSignalHandlers, selfplay/cluster.h). Throws vz::Error on an invalid
// config, a run directory that holds a run of another config (the `stop` section, devices,
// precision and CPU threads may differ) or is in use by another `vzero train` or trainer, an
// unreadable --init-net or one for another game, rendezvous variables of a distributed job, and
// I/O failures (naming the file); an error in one role stops the others first.
TrainOutcome RunTraining(const TrainRequest& request);

}  // namespace vz
