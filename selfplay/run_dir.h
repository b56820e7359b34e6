#pragma once

// The run directory shared by the roles of a training run (selfplay/cluster.h: `vzero selfplay`,
// `vzero trainer`, `vzero gate`, any number of processes on any machines, or all three as threads
// of one `vzero train`, selfplay/train_loop.h), the writers' side: its config chosen and adopted,
// its log and metrics files, its lock, the promoted step (the names of its numbered files and the
// reading of its config are records/run_files.h, the read side, for research/ and serve/ too).
// The layout is the one train_loop.h documents; a cluster run also has
//   logs/<role>.log, logs/<role>.jsonl         per-process log and metrics of the roles
// (`vzero train` writes one train.log and one metrics.jsonl for its three roles instead).
// Every file is written by the one atomic writer (engine/core/atomic_file.h: a temporary name in
// its own directory, fsync'd, renamed), so a reader on any machine sees a whole file or none (the
// shared filesystem must make a rename within one directory atomic and give close-to-open
// consistency, as NFS does; docs/cluster.md).
// Thread-safety: RunLog and MetricsFile may be shared by threads (the roles of `vzero train`); the
// functions share no state.

#include <cstdint>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/train.pb.h"
#include "records/run_files.h"

namespace spdlog {
class logger;
}

namespace vz {

// The log of a process: a file (spdlog) and stderr, with a live status line on a terminal.
// Thread-safe: lines of several threads never interleave.
class RunLog {
 public:
  // Appends to `path`. Throws vz::Error naming the path when it cannot be opened.
  RunLog(const std::string& path, bool live);
  ~RunLog();
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;

  // A log line (file and stderr).
  void Info(const std::string& line);
  // The live status line (stderr only, and only when live).
  void Status(const std::string& line);

 private:
  bool live_;
  std::mutex mutex_;  // guards stderr and status_
  std::string name_;
  std::shared_ptr<spdlog::logger> file_;
  std::string status_;
};

// A JSON-lines metrics file: one object per line, appended and flushed. Thread-safe.
class MetricsFile {
 public:
  // Opens `path` for appending; a last line cut by a kill is ended first, so that the next object
  // starts a line of its own (readers skip the bad line). Throws vz::Error naming the path.
  explicit MetricsFile(const std::string& path);
  // Throws vz::Error naming the path when the write fails.
  void Write(const nlohmann::json& object);

 private:
  std::string path_;
  std::mutex mutex_;  // guards out_
  std::ofstream out_;
};

// How a command picked its config (the options of `vzero train`).
struct RunConfigChoice {
  std::string variant;                 // --variant
  std::string preset;                  // --preset
  std::string config_file;             // --config
  std::vector<std::string> overrides;  // --set KEY=VALUE

  // True when --variant, --preset or --config was given.
  bool chosen() const { return !variant.empty() || !preset.empty() || !config_file.empty(); }
};

// The config of `choice`: the preset (variant default chaco-rex, preset default demo) or the file,
// then the overrides, validated. Throws vz::Error for --preset with --config, a --variant that
// the file contradicts, and the errors of the config functions (naming the key or the file).
proto::TrainConfig ConfigFromChoice(const RunConfigChoice& choice);

// `saved` (a run directory's config) with `overrides` applied, validated; only keys that
// TrainConfigHash leaves out (stop.*, devices, precision, cpu_threads) may change (the hash stays).
// Throws vz::Error naming the key otherwise.
proto::TrainConfig OverrideSavedConfig(const proto::TrainConfig& saved,
                                       const std::vector<std::string>& overrides,
                                       const std::string& dir);

// Checks that `config` may run in `dir`: when dir/config.txtpb exists, its hash must equal
// `config`'s (TrainConfigHash: stop, devices, precision and cpu_threads may differ). Reads only;
// creates and locks nothing. Throws vz::Error naming the directory and the file for another
// config, naming the directory when it holds a run's nets, records, checkpoints or state.json but
// no config.txtpb (a run that cannot be told from another), and the errors of reading a saved
// config.
void CheckRunConfig(const std::string& dir, const proto::TrainConfig& config);

// Makes `config` the config of the run in `dir`: creates dir/config.txtpb when it is absent
// (without replacing one that another process created at the same moment), else checks the saved
// one with CheckRunConfig (stop, devices, precision and cpu_threads may differ). Throws vz::Error
// naming the directory for another config, and on I/O failures.
void AdoptRunConfig(const std::string& dir, const proto::TrainConfig& config);

// Creates dir and the sub-directories `subdirs` (relative). Throws vz::Error naming the one that
// cannot be created.
void CreateRunDirectories(const std::string& dir, const std::vector<std::string>& subdirs);

// An exclusive lock on the file <dir>/<name> (flock(2)), held by this object: the one process of
// a role that must be unique in a run directory (`vzero train` and the trainer role take "lock",
// the gate role "gate.lock"). The kernel releases it when the process ends, SIGKILL included, so
// a killed run never leaves a stale lock. The file holds the holder's description and pid, for
// the message of the next one. Throws vz::Error naming the directory, the holder and its pid when
// another process holds the lock, or naming the file when it cannot be opened. Not copyable.
class RunLock {
 public:
  RunLock(const std::string& dir, const std::string& name, const std::string& holder);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

// Deletes the temporary files of killed saves (engine/core/atomic_file.h) in `dir` and in each of
// `subdirs` (relative; not recursive): all of them, so only a holder of the run's lock whose role
// writes every file of those folders may call it. Returns the number removed. Never throws.
int RemoveTemporaryFiles(const std::string& dir, const std::vector<std::string>& subdirs);

// The training step of the highest promoted net of `nets_dir` (best-NNNN.vznet: its provenance's
// training_steps), or -1 when there is none or it cannot be read (or in a build without
// LibTorch). A step at or after a candidate's means that candidate was promoted (or overtaken)
// already, by a process killed before it recorded its verdict: promotion is idempotent by it.
int64_t PromotedStep(const std::string& nets_dir);

}  // namespace vz
