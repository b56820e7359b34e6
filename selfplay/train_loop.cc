// `vzero train` (selfplay/train_loop.h): the roles of selfplay/cluster.h as threads of one process,
// then the end-of-run evaluation and plots.

#include "selfplay/train_loop.h"

#if VZ_HAVE_TORCH

#include <fmt/core.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>
#include <vector>

#include "arena/match.h"
#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "nets/net_evaluator.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"
#include "nets/trainer.h"
#include "records/game_record.h"
#include "selfplay/cluster.h"
#include "selfplay/run_dir.h"
#include "selfplay/run_report.h"
#include "selfplay/strength.h"
#include "selfplay/train_config.h"
#include "selfplay/warm_start.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The worker id of the self-play thread: fixed, so that a resumed run continues its numbering.
constexpr const char* kWorkerId = "train";

// A role in a thread of its own: LibTorch's intra-op CPU threads set for that thread first; an
// exception is kept for Join and stops the other roles (the one stop flag).
class RoleThread {
 public:
  RoleThread() = default;
  RoleThread(const RoleThread&) = delete;
  RoleThread& operator=(const RoleThread&) = delete;
  ~RoleThread() {
    if (thread_.joinable()) thread_.join();
  }

  // Call before any thread may call WaitDone.
  void Start(int cpu_threads, SharedRun& shared, std::function<void()> body) {
    started_ = true;
    thread_ = std::thread([this, cpu_threads, &shared, body = std::move(body)] {
      try {
        nets::SetCpuThreads(cpu_threads);
        body();
      } catch (...) {
        error_ = std::current_exception();
        RoleStopFlag().store(true);
        shared.Notify();
      }
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        done_ = true;
      }
      finished_.notify_all();
    });
  }

  // Waits until the role returned (from any thread; at once when it was never started).
  void WaitDone() {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return done_ || !started_; });
  }

  // Joins the thread (the caller's only); returns the role's exception, if any.
  std::exception_ptr Join() {
    if (thread_.joinable()) thread_.join();
    return error_;
  }

 private:
  bool started_ = false;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;  // guarded by mutex_
  std::exception_ptr error_;
};

// state.json as JSON: a discarded value when it is missing or unreadable (it is informational).
json ReadStateFile(const fs::path& path) {
  if (!fs::exists(path)) return json();
  try {
    return json::parse(ReadWholeFile(path.string(), "state file", uint64_t{16} << 20), nullptr,
                       /*allow_exceptions=*/false);
  } catch (const Error&) {
    return json(json::value_t::discarded);
  }
}

// The end-of-run evaluation: the best net against the initial net, a rollout search and each
// fixed opponent of the strength section.
std::string Evaluate(const proto::TrainConfig& config, const fs::path& dir, int64_t step,
                     int64_t games, RunLog& log, MetricsFile& metrics) {
  const proto::EvaluationConfig& e = config.evaluation();
  const std::string sims = std::to_string(e.simulations());
  const std::string best_path = (dir / "nets" / "best.vznet").string();
  // (name, spec) of every opponent.
  std::vector<std::pair<std::string, std::string>> opponents = {
      {"initial net",
       RunNetPlayer(config, (dir / "nets" / "initial.vznet").string(), e.simulations())},
      {"rollout search", "rollout:" + sims}};
  for (const std::string& spec : config.strength().opponents()) opponents.emplace_back(spec, spec);
  const std::string player = RunNetPlayer(config, best_path, e.simulations());
  std::string report = fmt::format(
      "evaluation of {} (best-{:04d}, step {}, {} games of self-play) as player {}: {} paired "
      "games per opponent, {} random opening plies, over-long games after {} plies adjudicated "
      "by {}\n",
      best_path, HighestGeneration((dir / "nets").string()), step, games, player, e.games(),
      e.opening_plies(), config.selfplay().max_plies(),
      config.selfplay().adjudication() == proto::MATERIAL
          ? fmt::format("material (margin {})", config.selfplay().material_margin())
          : std::string("draw"));
  for (size_t k = 0; k < opponents.size(); ++k) {
    const auto& [name, spec] = opponents[k];
    log.Info(fmt::format("evaluation: best net vs {} ({} games)", name, e.games()));
    const MatchSummary summary =
        RunMatch(config.variant(),
                 RunMatchConfig(config, player, spec, int(e.games()), int(e.opening_plies()),
                                config.seed() * 7919 + 17 + uint64_t(k)));
    const std::string line = fmt::format("best net vs {}: {}, {} adjudicated", name,
                                         summary.ResultText(), summary.adjudicated);
    report += line + "\n";
    log.Info(line);
    json record = {
        {"type", "evaluation"}, {"time", nets::UtcNow()},   {"step", step},
        {"opponent", name},     {"fixed_opponent", k >= 2}, {"simulations", e.simulations()}};
    record.update(MatchResultFields(summary));
    metrics.Write(record);
  }
  WriteFileAtomically((dir / "evaluation.txt").string(), report);
  return report;
}

// This invocation's rates: self-play (while it ran, and over the wall clock) and training.
std::string SessionLine(const SelfPlayWorkerOutcome& play, const TrainerRoleOutcome& train) {
  const auto per = [](double count, double seconds) { return seconds > 0 ? count / seconds : 0.0; };
  return fmt::format(
      "this session: {} self-play positions in {:.0f} s of self-play ({:.1f} positions/s, {:.1f} "
      "evaluations/s, mean batch {:.1f}); {:.1f} positions/s over {:.0f} s of wall clock, "
      "self-play ran {:.0f}% of it; {} training samples in {:.0f} s ({:.0f} samples/s), the "
      "trainer waited {:.0f} s for new positions",
      play.finished_positions, play.selfplay_seconds,
      per(double(play.finished_positions), play.selfplay_seconds),
      per(double(play.evaluated), play.selfplay_seconds),
      play.rounds > 0 ? double(play.evaluated) / double(play.rounds) : 0.0,
      per(double(play.finished_positions), play.wall_seconds), play.wall_seconds,
      100.0 * std::min(1.0, per(play.selfplay_seconds, play.wall_seconds)), train.samples_trained,
      train.train_seconds, per(double(train.samples_trained), train.train_seconds),
      train.wait_seconds);
}

// The first log line: a new run, or where a resumed one stands (state.json: informational).
std::string StartLine(const proto::TrainConfig& config, const fs::path& dir) {
  const json state = ReadStateFile(dir / "state.json");
  const bool resumed = state.is_object() ||
                       nets::CheckpointExists((dir / "checkpoints" / "trainer.ckpt").string()) ||
                       !ListRecordChunks((dir / "records").string()).empty();
  const auto count = [&](const char* key) {
    return state.is_object() ? state.value(key, int64_t{0}) : int64_t{0};
  };
  const auto threads = [](uint32_t configured) {
    return configured > 0 ? fmt::format("{}", configured) : std::string("VZ_TORCH_THREADS");
  };
  return fmt::format(
      "{} {}: {} (step {}, {} games, {} positions, generation {}); self-play, trainer{} as "
      "threads of one process; self-play on {} ({} CPU threads), training on {} ({} CPU "
      "threads); {} games in flight, {} simulations a move",
      resumed ? "resuming run" : "new run", dir.string(), config.variant(), count("step"),
      count("games"), count("positions"), HighestGeneration((dir / "nets").string()),
      GateRoleNeeded(config) ? ", gate" : "", nets::ResolveDevice(config.selfplay().device()),
      threads(config.selfplay().cpu_threads()), nets::ResolveDevice(config.optimizer().device()),
      threads(config.optimizer().cpu_threads()), config.selfplay().concurrent_games(),
      config.selfplay().simulations());
}

}  // namespace

TrainOutcome RunTraining(const TrainRequest& request) {
  const proto::TrainConfig& config = request.config;
  ValidateTrainConfig(config);
  if (request.run_dir.empty()) throw Error("train: the run directory is empty");
  const fs::path dir(request.run_dir);
  CreateRunDirectories(request.run_dir, {});
  CheckRunConfig(request.run_dir, config);
  // One `vzero train` (or trainer) per run directory, held until return or death; then the
  // temporary files of saves cut by a kill are ours to delete.
  const RunLock lock(request.run_dir, "lock", "vzero train");
  const std::vector<std::string> folders = {
      "records", "records/pending", "checkpoints", "nets", "nets/candidates", "plots", "strength"};
  CreateRunDirectories(request.run_dir, folders);
  const int removed = RemoveTemporaryFiles(request.run_dir, folders);
  WriteFileAtomically((dir / "config.txtpb").string(), TrainConfigText(config));
  RunLog log((dir / "train.log").string(), request.live);
  MetricsFile metrics((dir / "metrics.jsonl").string());
  if (removed > 0) {
    log.Info(fmt::format("removed {} temporary file(s) of saves cut short by a kill", removed));
  }
  log.Info(StartLine(config, dir));

  // The warm start's alpha-beta games (none unless warm_start.player is set) before any role:
  // the trainer's first steps learn from them.
  if (!config.warm_start().player().empty()) {
    const WarmStartOutcome warm =
        RunWarmStart(config, request.run_dir, /*threads=*/0, log, RoleStopFlag());
    if (warm.games > 0) {
      metrics.Write({{"type", "warm_start"},
                     {"time", nets::UtcNow()},
                     {"player", config.warm_start().player()},
                     {"games", warm.games},
                     {"positions", warm.positions},
                     {"seconds", warm.seconds}});
    }
    if (warm.interrupted) {
      log.Info("warm start stopped by a signal; the next session plays its missing games");
      TrainOutcome outcome;
      outcome.run_dir = dir.string();
      outcome.interrupted = true;
      return outcome;
    }
  }

  SharedRun shared(log, metrics);
  // Threads without a cpu_threads of their own get the process's (VZ_TORCH_THREADS), set here.
  const int process_threads = nets::CpuThreads();
  RoleThread worker, gate, trainer;
  shared.stop_others = [&] {
    shared.Finish();
    worker.WaitDone();
    gate.WaitDone();
  };
  SelfPlayWorkerRequest play;
  play.run_dir = request.run_dir;
  play.worker_id = kWorkerId;
  play.poll_seconds = 0.5;
  play.shared = &shared;
  GateRoleRequest judge;
  judge.run_dir = request.run_dir;
  judge.poll_seconds = 0.5;
  judge.shared = &shared;
  TrainerRoleRequest learn;
  learn.run_dir = request.run_dir;
  learn.init_net = request.init_net;
  learn.poll_seconds = 0.5;
  learn.live = request.live;
  learn.lock_holder = "";  // held above
  learn.shared = &shared;
  SelfPlayWorkerOutcome played;
  TrainerRoleOutcome trained;
  // The trainer last (its stop_others waits for the others); the worker waits for its first net.
  worker.Start(process_threads, shared, [&] { played = RunSelfPlayWorker(play); });
  if (GateRoleNeeded(config)) {
    gate.Start(process_threads, shared, [&] { RunGateRole(judge); });
  }
  trainer.Start(process_threads, shared, [&] { trained = RunTrainerRole(learn); });
  const std::exception_ptr trainer_error = trainer.Join();
  if (trainer_error) shared.stop_others();  // it failed before it could stop them itself
  const std::exception_ptr worker_error = worker.Join();
  const std::exception_ptr gate_error = gate.Join();
  for (const std::exception_ptr& error : {trainer_error, worker_error, gate_error}) {
    if (error) std::rethrow_exception(error);
  }

  TrainOutcome outcome;
  outcome.run_dir = dir.string();
  outcome.best_net = (dir / "nets" / "best.vznet").string();
  outcome.steps = trained.steps;
  outcome.games = trained.games;
  outcome.positions = trained.positions;
  outcome.generation = HighestGeneration((dir / "nets").string());
  outcome.interrupted = trained.interrupted || RoleStopFlag().load();
  outcome.session = SessionLine(played, trained);
  log.Info(outcome.session);
  metrics.Write(
      {{"type", "session"},
       {"time", nets::UtcNow()},
       {"step", trained.steps},
       {"selfplay_games", played.finished_games},  // finished this session
       {"selfplay_positions", played.finished_positions},
       {"selfplay_games_written", played.games},  // ... of them in record files
       {"selfplay_positions_written", played.positions},
       {"selfplay_seconds", played.selfplay_seconds},
       {"wall_seconds", played.wall_seconds},
       {"positions_per_second", played.selfplay_seconds > 0
                                    ? double(played.finished_positions) / played.selfplay_seconds
                                    : 0.0},
       {"wall_positions_per_second",
        played.wall_seconds > 0 ? double(played.finished_positions) / played.wall_seconds : 0.0},
       {"selfplay_fraction", played.wall_seconds > 0
                                 ? std::min(1.0, played.selfplay_seconds / played.wall_seconds)
                                 : 0.0},
       {"samples_trained", trained.samples_trained},
       {"train_seconds", trained.train_seconds},
       {"trainer_wait_seconds", trained.wait_seconds}});
  if (!outcome.interrupted && config.evaluation().games() > 0) {
    try {
      outcome.evaluation = Evaluate(config, dir, trained.steps, trained.games, log, metrics);
    } catch (const MatchStopped&) {
      log.Info("evaluation stopped by a signal");
      outcome.interrupted = true;
    }
  }
  try {
    for (const std::string& file : DrawRunPlots(dir.string())) log.Info("plot: " + file);
  } catch (const Error& e) {
    log.Info(fmt::format("warning: no plots: {}", e.what()));
  }
  return outcome;
}

}  // namespace vz

#else  // !VZ_HAVE_TORCH

#include "engine/core/error.h"

namespace vz {
TrainOutcome RunTraining(const TrainRequest&) {
  throw Error("train: this vzero was built without LibTorch (VZ_USE_TORCH=OFF)");
}
}  // namespace vz

#endif
