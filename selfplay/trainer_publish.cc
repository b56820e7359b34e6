#include "selfplay/trainer_publish.h"

#if VZ_HAVE_TORCH

#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "build_info.h"
#include "engine/core/atomic_file.h"
#include "nets/net_file.h"
#include "selfplay/train_config.h"

namespace vz {

namespace fs = std::filesystem;

NetPublisher::NetPublisher(fs::path run_dir, std::string variant, const proto::GatingConfig& gating,
                           nets::Trainer& trainer, MetricsFile& metrics, RunLog& log)
    : dir_(std::move(run_dir)),
      variant_(std::move(variant)),
      gating_on_(EffectiveGatingMode(gating) != GatingMode::kNone),
      trainer_(trainer),
      metrics_(metrics),
      log_(log) {}

void NetPublisher::Checkpoint() {
  const std::string path = (dir_ / "checkpoints" / "trainer.ckpt").string();
  if (trainer_.step() == checkpoint_step_ && fs::exists(path)) return;
  trainer_.SaveCheckpoint(path);
  checkpoint_step_ = trainer_.step();
}

bool NetPublisher::Exported() const {
  const int64_t step = trainer_.step();
  if (gating_on_) {
    const fs::path candidates = dir_ / "nets" / "candidates";
    return fs::exists(candidates / CandidateFile(step, "vznet")) ||
           fs::exists(candidates / CandidateFile(step, "json"));
  }
  return PromotedStep((dir_ / "nets").string()) >= step;
}

void NetPublisher::Export(int64_t games) {
  const int64_t step = trainer_.step();
  const int best = HighestGeneration((dir_ / "nets").string());
  nets::NetFile net = trainer_.ExportNet(uint64_t(games), fmt::format("best-{:04d}", best));
  net.provenance.knowledge = knowledge_;
  net.provenance.source_revision = VZ_GIT_REVISION;
  if (gating_on_) {
    const fs::path path = dir_ / "nets" / "candidates" / CandidateFile(step, "vznet");
    nets::WriteNetFile(path.string(), net);
    metrics_.Write(
        {{"type", "candidate"}, {"time", nets::UtcNow()}, {"step", step}, {"path", path.string()}});
    log_.Info(fmt::format("step {}: candidate {} for `vzero gate`", step, path.string()));
    return;
  }
  const int generation = best + 1;
  net.provenance.note = fmt::format("vzero trainer generation {}", generation);
  const std::string path = (dir_ / "nets" / GenerationFile(generation)).string();
  nets::WriteNetFile(path, net);
  nets::WriteNetFile((dir_ / "nets" / "best.vznet").string(), net);
  metrics_.Write({{"type", "gating"},
                  {"time", nets::UtcNow()},
                  {"step", step},
                  {"games_played", games},
                  {"enabled", false},
                  {"mode", "none"},
                  {"promoted", true},
                  {"generation", generation}});
  log_.Info(fmt::format("step {}: promoted to best-{:04d} ({})", step, generation, path));
}

void NetPublisher::SaveState(const TrainerProgress& progress) const {
  nlohmann::json state;
  state["variant"] = variant_;
  state["role"] = "trainer";
  state["world_size"] = progress.world_size;
  state["step"] = progress.step;
  state["games"] = progress.games;
  state["positions"] = progress.positions;
  state["chunks"] = progress.read.chunks;
  state["duplicates"] = progress.read.duplicates;
  state["generation"] = HighestGeneration((dir_ / "nets").string());
  state["best_net"] = (dir_ / "nets" / "best.vznet").string();
  WriteFileAtomically((dir_ / "state.json").string(), state.dump(2) + "\n");
}

}  // namespace vz

#endif  // VZ_HAVE_TORCH
