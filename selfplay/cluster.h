#pragma once

// The roles of a cluster run: self-play workers, a (possibly data-parallel) trainer and an
// optional gate, as separate processes on any machines, sharing nothing but one run directory on
// a shared filesystem (selfplay/run_dir.h) — the split of AlphaZero's actors and learner, done the
// way KataGo's distributed training does it (files, not a protocol of our own). `vzero train`
// (selfplay/train_loop.h) is the same loop in one process.
//
//   vzero selfplay --run-dir D [--worker-id ID]   (any number)
//     plays with the newest promoted net (the highest nets/best-NNNN.vznet, else
//     nets/initial.vznet; re-checked after every chunk) and writes its finished games as
//     records/chunk-<ID>-NNNNNN.vzr, atomically (game_record.h). Records carry the worker id and
//     the net id ("best-0003"); game numbers count per worker (a restarted worker continues its
//     own numbering), so a game is identified by (worker, index).
//   vzero trainer --run-dir D                      (one, of 1..N ranks: nets/distributed.h)
//     rank 0 lists new chunk files and tells every rank which to read; every rank reads them,
//     counts every game once (by worker and index) and keeps its shard of the replay window
//     (a game belongs to rank hash(worker, index) mod world size), trains on its share of the
//     global batch under the sample cap, gradients averaged over the ranks. Rank 0 alone writes
//     checkpoints, metrics.jsonl, state.json and nets: every optimizer.checkpoint_every_steps it
//     checkpoints and either promotes the weights at once (gating off: nets/best-NNNN.vznet and
//     nets/best.vznet) or leaves nets/candidates/candidate-SSSSSSSS.vznet for the gate.
//   vzero gate --run-dir D                         (optional, for gating on)
//     plays the newest candidate without a verdict against the current best (arena/match.h),
//     writes its verdict (candidate-SSSSSSSS.json; older waiting candidates are marked
//     superseded) and promotes it when its score clears gating.threshold.
//
// Order and restarts: every role may start first and waits (polling) for what it needs — the
// config (config.txtpb, written by the first role given --variant/--preset/--config), the first
// net (written by the trainer), candidates. State lives in files that are whole or absent, so any
// role can be killed (SIGKILL included) and started again: a worker loses its games in flight
// and its unwritten chunk; the trainer resumes from its last checkpoint and re-reads the chunks;
// the gate re-plays a candidate whose verdict it had not written. SIGINT/SIGTERM stop a role at
// the next round or step (a worker first writes its finished games, the trainer ingests once
// more and checkpoints).

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "proto/train.pb.h"
#include "selfplay/run_dir.h"

namespace vz {

// The stop flag of the roles, set by SIGINT/SIGTERM once InstallRoleSignalHandlers ran (a second
// signal exits at once with status 130), or by the caller.
std::atomic<bool>& RoleStopFlag();
void InstallRoleSignalHandlers();

// The run's config for a role: with a choice (--variant, --preset or --config) the config of the
// choice, made the run's (AdoptRunConfig); else the saved config.txtpb, waited for (polling every
// `poll_seconds`, calling `waiting` once) until it appears, with `choice.overrides` applied
// (keys outside the config hash only). Returns nullopt when `stop` is set while waiting. Throws
// vz::Error as ConfigFromChoice, OverrideSavedConfig and AdoptRunConfig do; `adopt` false skips
// writing (ranks other than 0).
std::optional<proto::TrainConfig> WaitForRunConfig(
    const std::string& dir, const RunConfigChoice& choice, double poll_seconds,
    const std::atomic<bool>& stop, const std::function<void()>& waiting, bool adopt = true);

// The default worker id: this host's name (characters outside [A-Za-z0-9._-] become '_', a 'w' is
// prefixed when it does not start with a letter) and the process id, "node07-12345".
std::string DefaultWorkerId();

struct SelfPlayWorkerRequest {
  std::string run_dir;
  RunConfigChoice config;     // nothing chosen: the run's config.txtpb, waited for
  std::string worker_id;      // "" = DefaultWorkerId()
  int64_t games = 0;          // stop after this many finished games (0 = no limit)
  double minutes = 0;         // stop after this many minutes (0 = no limit)
  double poll_seconds = 1.0;  // while waiting for the config or the first net
  bool live = false;          // a live status line on stderr
};

struct SelfPlayWorkerOutcome {
  std::string worker_id;
  int64_t games = 0;      // written to chunks by this invocation
  int64_t positions = 0;  // training positions of those games
  int64_t chunks = 0;
  double selfplay_seconds = 0;  // time in self-play rounds (net calls included)
  std::string net_id;           // the net of the last games
  bool interrupted = false;     // stopped by a signal
};

// Runs a self-play worker until a limit or a signal. Throws vz::Error on a bad worker id, a bad
// config, a net for another game, and I/O failures of the run directory (naming the file).
SelfPlayWorkerOutcome RunSelfPlayWorker(const SelfPlayWorkerRequest& request);

struct TrainerRoleRequest {
  std::string run_dir;
  RunConfigChoice config;     // nothing chosen: the run's config.txtpb, waited for
  std::string init_net;       // a new run starts from this net (rank 0; "" = fresh weights)
  double poll_seconds = 1.0;  // between looks for new chunks when the sample cap stops training
  bool live = false;
};

struct TrainerRoleOutcome {
  int rank = 0, world_size = 1;
  std::string backend;  // "none" for one process, else the process group's
  int64_t steps = 0;    // the step counter at the end
  int64_t games = 0;    // distinct games read (the whole run)
  int64_t positions = 0;
  int64_t chunks = 0;           // chunk files read
  int64_t duplicates = 0;       // games seen twice (same worker and index), counted once
  int64_t samples_trained = 0;  // this invocation, all ranks
  double train_seconds = 0;     // this invocation, in optimizer steps (collectives included)
  int generation = 0;           // highest promoted net
  bool interrupted = false;
};

// Runs the trainer (one rank of it, per the rendezvous variables of nets/distributed.h) until a
// stop limit of the config or a signal. Throws vz::Error on a bad config, a failed rendezvous or
// collective, an unreadable --init-net, and I/O failures (naming the file).
TrainerRoleOutcome RunTrainerRole(const TrainerRoleRequest& request);

struct GateRoleRequest {
  std::string run_dir;
  RunConfigChoice config;     // nothing chosen: the run's config.txtpb, waited for
  double poll_seconds = 2.0;  // between looks for new candidates
  bool once = false;          // gate the waiting candidates, then return
  bool live = false;
};

struct GateRoleOutcome {
  int gated = 0;  // candidates played
  int promoted = 0;
  int generation = 0;  // highest promoted net at the end
  bool interrupted = false;
};

// Runs the gate until a signal (or, with `once`, until no candidate waits). Returns at once, with
// a log line, when the run's gating is off. Throws vz::Error on a bad config and I/O failures.
GateRoleOutcome RunGateRole(const GateRoleRequest& request);

}  // namespace vz
