// `vzero gate`: the optional gate of a training run (selfplay/cluster.h), a process of its own or a
// thread of `vzero train`: the newest candidate of the trainer against the current best, over
// paired openings (arena/match.h), promoted by the verdict of gating.mode (selfplay/gating.h);
// and between candidates the strength checks of the net self-play uses against the fixed
// opponents (selfplay/strength.h).

#include "selfplay/cluster.h"

#if VZ_HAVE_TORCH

#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "arena/match.h"
#include "engine/core/atomic_file.h"
#include "engine/core/clock.h"
#include "engine/core/error.h"
#include "nets/net_file.h"
#include "records/pgn_record.h"
#include "selfplay/gating.h"
#include "selfplay/strength.h"
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
    const GatingMode mode = EffectiveGatingMode(g);
    const proto::StrengthConfig& st = config_.strength();
    std::string gating = "gating off (the trainer promotes every candidate)";
    if (mode == GatingMode::kThreshold) {
      gating = fmt::format("gating: {} games of {} simulations a move, threshold {:.2f}", g.games(),
                           g.simulations(), g.threshold());
    } else if (mode == GatingMode::kSprt) {
      gating = fmt::format(
          "gating: SPRT elo0 {} elo1 {} alpha {} beta {} over at most {} games of {} simulations "
          "a move",
          g.sprt().elo0(), g.sprt().elo1(), g.sprt().alpha(), g.sprt().beta(), g.games(),
          g.simulations());
    }
    last_checked_step_ = LastStrengthCheck();
    log_.Info(fmt::format(
        "gate of {}: {}; {}", dir_.string(), gating,
        StrengthChecksOn()
            ? fmt::format("strength checks every {} checkpoints: {} games of {} simulations a move "
                          "against each of {}",
                          st.every_checkpoints(), st.games(), st.simulations(),
                          fmt::join(st.opponents(), ", "))
            : std::string("no strength checks")));
    bool told = false;
    while (!stop.load()) {
      const int64_t step = mode == GatingMode::kNone ? -1 : NewestWaitingCandidate();
      if (step >= 0) {
        told = false;
        try {
          outcome.promoted += Play(step) ? 1 : 0;
          ++outcome.gated;
        } catch (const MatchStopped&) {
          log_.Info(
              fmt::format("gating of step {} stopped by a signal; it runs again on restart", step));
          break;
        }
        continue;
      }
      // At the end of a `vzero train` run the end-of-run evaluation measures the final net.
      const bool finishing = request_.shared != nullptr && request_.shared->finishing();
      if (!finishing && CheckStrengthIfDue()) {
        ++outcome.strength_checks;
        continue;
      }
      if (request_.once || finishing) break;
      if (!told) {
        log_.Info(mode == GatingMode::kNone ? "waiting for new nets in " + (dir_ / "nets").string()
                                            : "waiting for candidates in " + candidates_.string());
      }
      told = true;
      WaitForNews(request_.shared, news_seen_, request_.poll_seconds);
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
      const int64_t step = StepOfFile(entry.path().filename().string(), "candidate-", "vznet");
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
    const MatchConfig match = GatingMatchConfig(
        config_, RunNetPlayer(config_, candidate, g.simulations()),
        RunNetPlayer(config_, best, g.simulations()), config_.seed() + uint64_t(step));
    const Clock::time_point start = Clock::now();
    const MatchSummary summary = RunMatch(config_.variant(), match);
    const GatingVerdict judged = JudgeGating(g, summary);
    const bool promote = judged.promote;
    json verdict = {{"type", "gating"},
                    {"time", nets::UtcNow()},
                    {"step", step},
                    {"enabled", true},
                    {"mode", GatingModeName(EffectiveGatingMode(g))},
                    {"best", fmt::format("best-{:04d}", best_generation)},
                    {"threshold", g.threshold()},
                    {"reason", judged.reason},
                    {"promoted", promote}};
    verdict.update(MatchResultFields(summary));
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
        "gating at step {}: candidate vs best-{:04d}: {}; {} in {:.0f} s -> {}", step,
        best_generation, summary.ResultText(), judged.reason, SecondsSince(start),
        promote ? fmt::format("promoted to best-{:04d}", generation) : "kept the best"));
    return promote;
  }

  // --- strength checks (selfplay/strength.h) ---------------------------------------------------

  bool StrengthChecksOn() const {
    return config_.strength().opponents_size() > 0 && config_.strength().every_checkpoints() > 0;
  }

  std::string StrengthFile(int64_t step) const {
    return (dir_ / "strength" / StepFile("strength-", step, "json")).string();
  }

  // The step of the newest net measured (strength/strength-SSSSSSSS.json), or -1.
  int64_t LastStrengthCheck() const {
    int64_t last = -1;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir_ / "strength", error)) {
      last = std::max(last, StepOfFile(entry.path().filename().string(), "strength-", "json"));
    }
    return last;
  }

  // The net self-play uses now: the highest best-NNNN (its training step from its provenance,
  // read once per generation), else nets/initial.vznet (step 0). False before the trainer wrote
  // the first net.
  bool CurrentNet(StrengthPoint& point, std::string& path) {
    const fs::path nets_dir = dir_ / "nets";
    const int generation = HighestGeneration(nets_dir.string());
    if (generation != current_generation_) {
      if (generation == 0) {
        if (!fs::exists(nets_dir / "initial.vznet")) return false;
        current_ = {"initial", (nets_dir / "initial.vznet").string(), 0};
      } else {
        const std::string file = (nets_dir / GenerationFile(generation)).string();
        current_ = {fmt::format("best-{:04d}", generation), file,
                    int64_t(nets::ReadNetFile(file).provenance.training_steps)};
      }
      current_generation_ = generation;
    }
    point.net_id = current_.id;
    point.step = current_.step;
    path = current_.path;
    return true;
  }

  // Runs the strength check of the current net when it is due; returns whether one ran to its end.
  bool CheckStrengthIfDue() {
    if (!StrengthChecksOn()) return false;
    StrengthPoint point;
    std::string path;
    if (!CurrentNet(point, path) ||
        !StrengthCheckDue(point.step, last_checked_step_,
                          int64_t(config_.optimizer().checkpoint_every_steps()),
                          int64_t(config_.strength().every_checkpoints()))) {
      return false;
    }
    // Where the run stands: the trainer's counters (state.json, written at every checkpoint) and
    // the age of the run (nets/initial.vznet is written once, when it begins).
    const json state =
        fs::exists(dir_ / "state.json")
            ? json::parse(ReadTextFile((dir_ / "state.json").string()), nullptr, false)
            : json();
    if (state.is_object()) {
      point.selfplay_games = state.value("games", int64_t{0});
      point.selfplay_positions = state.value("positions", int64_t{0});
    }
    std::error_code error;
    const auto born = fs::last_write_time(dir_ / "nets" / "initial.vznet", error);
    if (!error) {
      point.wall_seconds = std::max(
          0.0, std::chrono::duration<double>(fs::file_time_type::clock::now() - born).count());
    }
    const proto::StrengthConfig& st = config_.strength();
    const Clock::time_point start = Clock::now();
    json records = json::array();
    std::vector<std::string> lines;
    for (int k = 0; k < st.opponents_size(); ++k) {
      MatchConfig match = StrengthMatchConfig(config_, path, k);
      // Abandoned at the end of a `vzero train` run, whose evaluation measures the final net.
      match.stop = request_.shared != nullptr ? &request_.shared->finish_flag() : &RoleStopFlag();
      const Clock::time_point match_start = Clock::now();
      MatchSummary summary;
      try {
        summary = RunMatch(config_.variant(), match);
      } catch (const MatchStopped&) {
        log_.Info(fmt::format("strength check of {} stopped before its end", point.net_id));
        return false;
      }
      records.push_back(StrengthRecord(point, st.opponents(k), int(st.simulations()), summary,
                                       SecondsSince(match_start), nets::UtcNow()));
      lines.push_back(fmt::format("vs {}: {}", st.opponents(k), summary.ResultText()));
    }
    CreateRunDirectories(dir_.string(), {"strength"});
    WriteFileAtomically(StrengthFile(point.step), records.dump(2) + "\n");
    for (const json& record : records) metrics_.Write(record);
    last_checked_step_ = point.step;
    log_.Info(fmt::format(
        "strength of {} (step {}, {} self-play positions), {} games each in {:.0f} s: {}",
        point.net_id, point.step, point.selfplay_positions, st.games(), SecondsSince(start),
        fmt::join(lines, "; ")));
    return true;
  }

  const GateRoleRequest& request_;
  proto::TrainConfig config_;
  fs::path dir_;
  fs::path candidates_;
  RunLog& log_;
  MetricsFile& metrics_;
  uint64_t news_seen_ = 0;  // SharedRun::Wait
  // Strength checks: the step of the last net measured (-1: none), and the current net.
  int64_t last_checked_step_ = -1;
  int current_generation_ = -1;
  struct {
    std::string id, path;
    int64_t step = 0;
  } current_;
};

}  // namespace

GateRoleOutcome RunGateRole(const GateRoleRequest& request) {
  CreateRunDirectories(request.run_dir, {"nets/candidates", "strength"});
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
  if (!GateRoleNeeded(*config)) {
    log.Info(
        "gating is off and there are no strength checks in this run's config: the trainer "
        "promotes every candidate itself");
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
