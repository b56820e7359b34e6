// `vzero gate`: the optional gate of a training run (selfplay/cluster.h), a process of its own or a
// thread of `vzero train`: the newest candidate of the trainer against the current best, over
// paired openings (arena/match.h), promoted when its score clears gating.threshold.

#include "selfplay/cluster.h"

#if VZ_HAVE_TORCH

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "arena/match.h"
#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "nets/net_file.h"
#include "selfplay/train_config.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

class Gate {
 public:
  Gate(const GateRoleRequest& request, const proto::TrainConfig& config, RunLog& log,
       MetricsFile& metrics)
      : request_(request),
        config_(config),
        dir_(request.run_dir),
        candidates_(dir_ / "nets" / "candidates"),
        log_(log),
        metrics_(metrics) {}

  GateRoleOutcome Run() {
    GateRoleOutcome outcome;
    std::atomic<bool>& stop = RoleStopFlag();
    const proto::GatingConfig& g = config_.gating();
    log_.Info(fmt::format("gate of {}: {} games of {} simulations a move, threshold {:.2f}",
                          dir_.string(), g.games(), g.simulations(), g.threshold()));
    bool told = false;
    while (!stop.load()) {
      const int64_t step = NewestWaitingCandidate();
      if (step < 0) {
        if (request_.once || (request_.shared != nullptr && request_.shared->finishing())) break;
        if (!told) log_.Info("waiting for candidates in " + candidates_.string());
        told = true;
        WaitForNews(request_.shared, news_seen_, request_.poll_seconds);
        continue;
      }
      told = false;
      try {
        outcome.promoted += Play(step) ? 1 : 0;
        ++outcome.gated;
      } catch (const MatchStopped&) {
        log_.Info(
            fmt::format("gating of step {} stopped by a signal; it runs again on restart", step));
        break;
      }
    }
    outcome.interrupted = stop.load();
    outcome.generation = HighestGeneration((dir_ / "nets").string());
    return outcome;
  }

 private:
  std::string Candidate(int64_t step, const char* extension) const {
    return (candidates_ / CandidateFile(step, extension)).string();
  }

  // The newest candidate without a verdict (older ones without a verdict are marked superseded),
  // or -1.
  int64_t NewestWaitingCandidate() {
    std::vector<int64_t> waiting;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(candidates_, error)) {
      const int64_t step = CandidateStep(entry.path().filename().string(), "vznet");
      if (step >= 0 && !fs::exists(Candidate(step, "json"))) waiting.push_back(step);
    }
    if (waiting.empty()) return -1;
    std::sort(waiting.begin(), waiting.end());
    for (size_t i = 0; i + 1 < waiting.size(); ++i) {
      WriteVerdict(waiting[i],
                   {{"step", waiting[i]}, {"superseded_by", waiting.back()}, {"promoted", false}});
      log_.Info(
          fmt::format("candidate of step {} superseded by step {}", waiting[i], waiting.back()));
    }
    return waiting.back();
  }

  void WriteVerdict(int64_t step, const json& verdict) {
    WriteFileAtomically(Candidate(step, "json"), verdict.dump(2) + "\n");
  }

  // Plays candidate `step` against the best; returns whether it was promoted.
  bool Play(int64_t step) {
    const proto::GatingConfig& g = config_.gating();
    const fs::path nets_dir = dir_ / "nets";
    const int best_generation = HighestGeneration(nets_dir.string());
    const int64_t promoted_step = PromotedStep(nets_dir.string());
    if (promoted_step >= step) {
      // A gate killed between the promotion and its verdict: the promoted net is the verdict.
      WriteVerdict(step, {{"type", "gating"},
                          {"time", nets::UtcNow()},
                          {"step", step},
                          {"promoted", promoted_step == step},
                          {"generation", best_generation},
                          {"recovered", true}});
      log_.Info(
          fmt::format("candidate of step {}: best-{:04d} holds step {} already (promoted "
                      "before a restart); not gated again",
                      step, best_generation, promoted_step));
      return false;
    }
    const std::string best = best_generation > 0
                                 ? (nets_dir / GenerationFile(best_generation)).string()
                                 : (nets_dir / "initial.vznet").string();
    const std::string candidate = Candidate(step, "vznet");
    const std::string sims = std::to_string(g.simulations());
    const MatchConfig match =
        RunMatchConfig(config_, "net:" + candidate + ":" + sims, "net:" + best + ":" + sims,
                       int(g.games()), int(g.opening_plies()), config_.seed() + uint64_t(step));
    const Clock::time_point start = Clock::now();
    const MatchSummary summary = RunMatch(config_.variant(), match);
    const double score = summary.Score();
    const bool promote = score >= g.threshold();
    json verdict = {{"type", "gating"},
                    {"time", nets::UtcNow()},
                    {"step", step},
                    {"enabled", true},
                    {"best", fmt::format("best-{:04d}", best_generation)},
                    {"score", score},
                    {"wins", summary.wins},
                    {"draws", summary.draws},
                    {"losses", summary.losses},
                    {"elo", summary.elo.elo},
                    {"elo_low", summary.elo.elo_low},
                    {"elo_high", summary.elo.elo_high},
                    {"elo_interval_defined", summary.elo.interval_defined},
                    {"threshold", g.threshold()},
                    {"promoted", promote}};
    int generation = best_generation;
    if (promote) {
      generation = HighestGeneration(nets_dir.string()) + 1;
      nets::NetFile net = nets::ReadNetFile(candidate);
      net.provenance.note = fmt::format("vzero gate generation {}", generation);
      nets::WriteNetFile((nets_dir / GenerationFile(generation)).string(), net);
      nets::WriteNetFile((nets_dir / "best.vznet").string(), net);
      if (request_.shared != nullptr) request_.shared->Notify();
    }
    verdict["generation"] = generation;
    WriteVerdict(step, verdict);
    metrics_.Write(verdict);
    log_.Info(fmt::format(
        "gating at step {}: candidate vs best-{:04d}: W {} D {} L {}, score {:.3f} (threshold "
        "{:.2f}), Elo {:+.0f} in {:.0f} s -> {}",
        step, best_generation, summary.wins, summary.draws, summary.losses, score, g.threshold(),
        summary.elo.elo + 0.0, SecondsSince(start),
        promote ? fmt::format("promoted to best-{:04d}", generation) : "kept the best"));
    return promote;
  }

  const GateRoleRequest& request_;
  proto::TrainConfig config_;
  fs::path dir_;
  fs::path candidates_;
  RunLog& log_;
  MetricsFile& metrics_;
  uint64_t news_seen_ = 0;  // SharedRun::Wait
};

}  // namespace

GateRoleOutcome RunGateRole(const GateRoleRequest& request) {
  CreateRunDirectories(request.run_dir, {"nets/candidates"});
  std::unique_ptr<RunLog> own_log;
  std::unique_ptr<MetricsFile> own_metrics;
  if (request.shared == nullptr) {
    CreateRunDirectories(request.run_dir, {"logs"});
    const fs::path logs = fs::path(request.run_dir) / "logs";
    own_log = std::make_unique<RunLog>((logs / "gate.log").string(), request.live);
    own_metrics = std::make_unique<MetricsFile>((logs / "gate.jsonl").string());
  }
  RunLog& log = own_log ? *own_log : request.shared->log();
  MetricsFile& metrics = own_metrics ? *own_metrics : request.shared->metrics();
  std::atomic<bool>& stop = RoleStopFlag();
  const std::optional<proto::TrainConfig> config =
      WaitForRunConfig(request.run_dir, request.config, request.poll_seconds, stop, [&] {
        log.Info(
            fmt::format("waiting for {}/config.txtpb (give --variant/--preset or --config "
                        "to one role to create the run)",
                        request.run_dir));
      });
  GateRoleOutcome outcome;
  if (!config) {
    outcome.interrupted = true;
    return outcome;
  }
  if (!config->gating().enabled()) {
    log.Info("gating is off in this run's config: the trainer promotes every candidate itself");
    outcome.generation = HighestGeneration((fs::path(request.run_dir) / "nets").string());
    return outcome;
  }
  const RunLock lock(request.run_dir, "gate.lock", "vzero gate");
  Gate gate(request, *config, log, metrics);
  return gate.Run();
}

}  // namespace vz

#else  // !VZ_HAVE_TORCH

#include "engine/core/error.h"

namespace vz {
GateRoleOutcome RunGateRole(const GateRoleRequest&) {
  throw Error("gate: this vzero was built without LibTorch (VZ_USE_TORCH=OFF)");
}
}  // namespace vz

#endif
