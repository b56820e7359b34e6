#pragma once

// What rank 0 of a trainer (selfplay/cluster.h, `vzero trainer`) leaves in the run directory for
// the other roles: the checkpoint (RUN/checkpoints/trainer.ckpt), the trained nets (a candidate
// for the gate, RUN/nets/candidates/candidate-SSSSSSSS.vznet, or with gating off a new
// generation promoted at once, RUN/nets/best-NNNN.vznet and best.vznet) with their "candidate"
// or "gating" metrics line, and RUN/state.json. Every write is atomic. Not thread-safe.

#include <cstdint>
#include <filesystem>
#include <string>

#include "nets/trainer.h"
#include "proto/train.pb.h"
#include "selfplay/run_dir.h"
#include "selfplay/trainer_report.h"

namespace vz {

class NetPublisher {
 public:
  // The nets of `trainer` (not owned) for the run in `run_dir` of game `variant`, judged by the
  // gate as `gating` says; lines to `metrics` and `log` (not owned).
  NetPublisher(std::filesystem::path run_dir, std::string variant,
               const proto::GatingConfig& gating, nets::Trainer& trainer, MetricsFile& metrics,
               RunLog& log);

  // Whether the gate judges candidates (gating.mode threshold or sprt); else every export is
  // promoted.
  bool GatingOn() const { return gating_on_; }
  // What every exported net's provenance says a human taught it (NetProvenance::knowledge).
  void SetKnowledge(std::string knowledge) { knowledge_ = std::move(knowledge); }

  // Saves the trainer's checkpoint, unless the file exists and holds the current step (saved
  // here, or the step the trainer started from: StartedAt). Throws what
  // Trainer::SaveCheckpoint throws.
  void Checkpoint();
  // The step the trainer started from (its checkpoint's, or 0 on a new run).
  void StartedAt(int64_t step) { checkpoint_step_ = step; }

  // Whether the weights of the current step were exported already (a candidate file or verdict
  // of this step, or a promoted net of this step or later).
  bool Exported() const;
  // The current weights as a candidate for the gate, or promoted at once (gating off), with the
  // run's `games` so far in their provenance. The caller wakes the other roles
  // (SharedRun::Notify). Throws vz::Error naming the file when a write fails.
  void Export(int64_t games);

  // RUN/state.json: the variant, the step, the agreed totals, the newest generation and the
  // best net's path.
  void SaveState(const TrainerProgress& progress) const;

 private:
  std::filesystem::path dir_;
  std::string variant_;
  bool gating_on_;
  std::string knowledge_;
  nets::Trainer& trainer_;
  MetricsFile& metrics_;
  RunLog& log_;
  int64_t checkpoint_step_ = -1;  // the step of the checkpoint saved or started from
};

}  // namespace vz
