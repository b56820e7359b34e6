#pragma once

// The roles of a training run: self-play workers, a (possibly data-parallel) trainer and an
// optional gate. They share nothing but one run directory (selfplay/run_dir.h) — the split of
// AlphaZero's actors and learner, done the way KataGo's distributed training does it (files, not a
// protocol of our own) — and run either as separate processes on any machines over a shared
// filesystem, or as threads of one `vzero train` process (selfplay/train_loop.h, which passes a
// SharedRun: one log, one metrics file, wake-ups instead of polling). The same code either way.
//
//   vzero selfplay --run-dir D [--worker-id ID]   (any number; `vzero train` runs one, id "train")
//     plays with the newest promoted net (the highest nets/best-NNNN.vznet, else
//     nets/initial.vznet; re-checked after every chunk). A finished game is written at once to
//     records/pending/chunk-<ID>-GGGGGG.vzr (G: its game number); every selfplay.games_per_chunk
//     games the pending ones become records/chunk-<ID>-NNNNNN.vzr and their single files are
//     deleted (all atomically, game_record.h). Records carry the worker id and the net id
//     ("best-0003"); game numbers count per worker (a restarted worker continues its own
//     numbering and chunks its pending games first), so a game is identified by (worker, index).
//   vzero trainer --run-dir D                      (one, of 1..N ranks: nets/distributed.h)
//     rank 0 lists new chunk files and tells every rank which to read; every rank reads them,
//     counts every game once (by worker and index) and keeps its shard of the replay window
//     (a game belongs to rank hash(worker, index) mod world size), trains on its share of the
//     global batch under the sample cap (replay.max_samples_per_new_sample training samples per
//     position read; it waits for new chunks when the cap is reached), gradients averaged over
//     the ranks. Rank 0 alone writes checkpoints, metrics.jsonl, state.json and nets: every
//     optimizer.checkpoint_every_steps it checkpoints and either promotes the weights at once
//     (gating off: nets/best-NNNN.vznet and nets/best.vznet) or leaves
//     nets/candidates/candidate-SSSSSSSS.vznet for the gate. The config's stop limits end it.
//   vzero gate --run-dir D                         (optional: gating on, or strength checks)
//     plays the newest candidate without a verdict against the current best (arena/match.h),
//     writes its verdict (candidate-SSSSSSSS.json; older waiting candidates are marked
//     superseded) and promotes it by the verdict of gating.mode (selfplay/gating.h: a score
//     threshold or an SPRT). Between candidates it measures the net self-play uses against the
//     fixed opponents of the strength section every few checkpoints (selfplay/strength.h):
//     strength/strength-SSSSSSSS.json (S: the net's step) and "strength" metrics lines.
//
// Order and restarts: every role may start first and waits for what it needs — the config
// (config.txtpb, written by the first role given --variant/--preset/--config), the first net
// (written by the trainer), candidates. State lives in files that are whole or absent, so any
// role can be killed (SIGKILL included) and started again: a worker loses its games in flight;
// the trainer resumes from its last checkpoint and re-reads the chunks; the gate re-plays a
// candidate whose verdict it had not written, and never promotes one twice (PromotedStep).
// SIGINT/SIGTERM stop a role at the next round or step (a worker first writes its finished games,
// the trainer ingests once more and checkpoints).

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "arena/match.h"
#include "proto/train.pb.h"
#include "selfplay/run_dir.h"

namespace vz {

// The one stop flag of the roles (and of `vzero train`), set by SIGINT/SIGTERM once
// InstallRoleSignalHandlers ran (a second signal exits at once with status 130), or by the caller.
std::atomic<bool>& RoleStopFlag();
void InstallRoleSignalHandlers();

// What the roles share when `vzero train` runs them as threads of one process
// (selfplay/train_loop.h). A role given none opens its own log and metrics file and polls the run
// directory every poll_seconds. Thread-safe; not copyable.
class SharedRun {
 public:
  SharedRun(RunLog& log, MetricsFile& metrics) : log_(log), metrics_(metrics) {}
  SharedRun(const SharedRun&) = delete;
  SharedRun& operator=(const SharedRun&) = delete;

  RunLog& log() { return log_; }               // the one log (RUN/train.log)
  MetricsFile& metrics() { return metrics_; }  // the one metrics file (RUN/metrics.jsonl)

  // The end of the run at a limit of the trainer (not a signal, which is RoleStopFlag): the worker
  // writes its finished games and returns, the gate judges the candidates that wait and returns.
  void Finish();
  bool finishing() const { return finish_.load(); }
  // The flag Finish sets, for a match to watch (MatchConfig::stop): a strength check is
  // abandoned at the end of the run.
  const std::atomic<bool>& finish_flag() const { return finish_; }

  // Called by the trainer when it stops, before it reads the chunks a last time and saves its
  // state: must stop the other roles (Finish) and wait until they returned, so that their last
  // chunk and verdicts are counted. May be empty.
  std::function<void()> stop_others;

  // A new chunk, net or candidate, or the end: wakes the roles waiting in Wait.
  void Notify();
  // Waits until Notify was called after the previous return of the waiter whose counter is `seen`
  // (at once when it was), or `seconds` passed; updates `seen`.
  void Wait(uint64_t& seen, double seconds);

 private:
  RunLog& log_;
  MetricsFile& metrics_;
  std::atomic<bool> finish_{false};
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t epoch_ = 0;  // guarded by mutex_
};

// A role's wait for something new in the run directory: SharedRun::Wait when `shared` is set,
// else a sleep of `seconds`.
void WaitForNews(SharedRun* shared, uint64_t& seen, double seconds);

// The run's config for a role: with a choice (--variant, --preset or --config) the config of the
// choice, made the run's (AdoptRunConfig); else the saved config.txtpb, waited for (polling every
// `poll_seconds`, calling `waiting` once) until it appears, with `choice.overrides` applied
// (keys outside the config hash only). Returns nullopt when `stop` is set while waiting. Throws
// vz::Error as ConfigFromChoice, OverrideSavedConfig and AdoptRunConfig do; `adopt` false skips
// writing (ranks other than 0).
std::optional<proto::TrainConfig> WaitForRunConfig(
    const std::string& dir, const RunConfigChoice& choice, double poll_seconds,
    const std::atomic<bool>& stop, const std::function<void()>& waiting, bool adopt = true);

// A match of the run (gating, the end-of-run evaluation): `games` games (whole pairs, all in
// flight) of `player1` against `player2` (arena/player.h specs) from `opening_plies` random plies,
// over-long games adjudicated as the run's self-play's, stopped by RoleStopFlag.
MatchConfig RunMatchConfig(const proto::TrainConfig& config, const std::string& player1,
                           const std::string& player2, int games, int opening_plies, uint64_t seed);

// The run's net player (gating, the strength curve, the evaluation): net file `net_path`
// searching `simulations` a move, "net:PATH:SIMS", with ":qs" when evaluation.leaf_quiescence is
// on.
std::string RunNetPlayer(const proto::TrainConfig& config, const std::string& net_path,
                         uint32_t simulations);

// The default worker id: this host's name (characters outside [A-Za-z0-9._-] become '_', a 'w' is
// prefixed when it does not start with a letter) and the process id, "node07-12345".
std::string DefaultWorkerId();

struct SelfPlayWorkerRequest {
  std::string run_dir;
  RunConfigChoice config;       // nothing chosen: the run's config.txtpb, waited for
  std::string worker_id;        // "" = DefaultWorkerId()
  int64_t games = 0;            // stop after this many finished games (0 = no limit)
  double minutes = 0;           // stop after this many minutes (0 = no limit)
  double poll_seconds = 1.0;    // while waiting for the config or the first net
  bool live = false;            // a live status line on stderr
  SharedRun* shared = nullptr;  // set by `vzero train`; stops (as at a limit) when it finishes
};

struct SelfPlayWorkerOutcome {
  std::string worker_id;
  int64_t games = 0;               // written to chunks by this invocation
  int64_t positions = 0;           // training positions of those games
  int64_t finished_games = 0;      // finished by this invocation (= games, unless `games` cut it)
  int64_t finished_positions = 0;  // ... their training positions
  int64_t chunks = 0;
  int64_t rounds = 0;           // batched evaluator calls
  int64_t evaluated = 0;        // positions evaluated by them
  double selfplay_seconds = 0;  // time in self-play rounds (net calls included)
  double wall_seconds = 0;      // from the first round to the end (chunk writes and net loads too)
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
  // Named to a second process wanting the run's lock; "" = the caller holds it (`vzero train`).
  std::string lock_holder = "vzero trainer";
  SharedRun* shared = nullptr;  // set by `vzero train` (one process, world size 1 only)
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
  double wait_seconds = 0;      // this invocation, waiting for new chunks (the sample cap)
  int generation = 0;           // highest promoted net
  bool interrupted = false;
};

// Runs the trainer (one rank of it, per the rendezvous variables of nets/distributed.h) until a
// stop limit of the config or a signal; writes plots at the end unless `shared` is set (the
// caller draws them after its evaluation). Throws vz::Error on a bad config, a failed rendezvous or
// collective, an unreadable --init-net, and I/O failures (naming the file).
TrainerRoleOutcome RunTrainerRole(const TrainerRoleRequest& request);

struct GateRoleRequest {
  std::string run_dir;
  RunConfigChoice config;     // nothing chosen: the run's config.txtpb, waited for
  double poll_seconds = 2.0;  // between looks for new candidates
  bool once = false;          // gate the waiting candidates, then return
  bool live = false;
  SharedRun* shared = nullptr;  // set by `vzero train`; once it finishes, as `once`
};

struct GateRoleOutcome {
  int gated = 0;  // candidates played
  int promoted = 0;
  int strength_checks = 0;  // nets measured against the fixed opponents
  int generation = 0;       // highest promoted net at the end
  bool interrupted = false;
};

// Whether a run of `config` has work for the gate role: gating on (gating.mode threshold or sprt),
// or strength checks (strength.opponents and strength.every_checkpoints > 0).
bool GateRoleNeeded(const proto::TrainConfig& config);

// Runs the gate until a signal (or, with `once`, until no candidate waits and no strength check is
// due). Returns at once, with a log line, when the run has no work for it (GateRoleNeeded). In
// `vzero train` (`shared` set) it starts no strength check once the run finishes and abandons the
// one in progress (the end-of-run evaluation measures the final net). Throws vz::Error on a bad
// config and I/O failures.
GateRoleOutcome RunGateRole(const GateRoleRequest& request);

}  // namespace vz
