// `vzero trainer`: the trainer of a training run (selfplay/cluster.h): a process of its own, one
// rank of a data-parallel group (nets/distributed.h), or a thread of `vzero train`.

#include "selfplay/cluster.h"

#if VZ_HAVE_TORCH

#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/core/atomic_file.h"
#include "engine/core/clock.h"
#include "engine/core/error.h"
#include "engine/games.h"
#include "nets/distributed.h"
#include "nets/fresh_net.h"
#include "nets/net_evaluator.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"
#include "nets/trainer.h"
#include "selfplay/replay_window.h"
#include "selfplay/run_report.h"
#include "selfplay/train_config.h"
#include "selfplay/trainer_ingest.h"
#include "selfplay/trainer_publish.h"
#include "selfplay/trainer_report.h"
#include "selfplay/trainer_steps.h"
#include "selfplay/warm_start.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

bool IsCuda(const std::string& device) { return device.rfind("cuda", 0) == 0; }

// The role composes its parts, each with one job: the record ingester feeding the replay window
// (selfplay/trainer_ingest.h), the step loop with its prefetch and sample cap
// (selfplay/trainer_steps.h), the publisher of checkpoints, nets and state.json
// (selfplay/trainer_publish.h, rank 0) and the report of metrics and status
// (selfplay/trainer_report.h, rank 0). What stays here: the setup of the run and the trainer,
// and the collective agreement of every round.
template <Game G>
class TrainerRole {
 public:
  TrainerRole(const TrainerRoleRequest& request, const proto::TrainConfig& config,
              const nets::DistributedEnv& env, nets::ProcessGroup* group, RunLog& log)
      : request_(request),
        config_(config),
        dir_(request.run_dir),
        env_(env),
        group_(group),
        log_(log),
        ingester_((dir_ / "records").string(), env.rank, env.world_size, log),
        window_(ReplayWindowSize(config.replay(), 0, env.world_size), ReplayTargetsOf(config)) {}

  TrainerRoleOutcome Run() {
    Setup();
    start_ = Clock::now();
    bool interrupted = false;
    for (;;) {
      const Plan plan = Agree();
      if (plan.stop) {
        interrupted = plan.signal;
        if (Leader()) log_.Info("stopping: " + plan.reason);
        break;
      }
      if (plan.steps == 0) {
        // The sample cap (or min_positions) holds training until new chunks arrive.
        const Clock::time_point wait_start = Clock::now();
        WaitForNews(request_.shared, news_seen_, request_.poll_seconds);
        wait_seconds_ += SecondsSince(wait_start);
        continue;
      }
      steps_->Take(plan.steps, [&](const nets::TrainMetrics& metrics) { AfterStep(metrics); });
      if (Leader() && request_.live && SecondsSince(last_status_) >= 0.5) {
        log_.Status(report_->StatusLine(Progress()));
        last_status_ = Clock::now();
      }
    }
    if (request_.shared != nullptr) {
      // One process (world size 1): the other roles write their last chunk and verdicts, which
      // are then read and counted here.
      if (request_.shared->stop_others) request_.shared->stop_others();
      Agree();
    }
    if (Leader()) {
      report_->Flush(Progress());
      publisher_->Checkpoint();
      publisher_->SaveState(Progress());
      if (request_.shared == nullptr) {  // else the caller's session line
        log_.Info(TrainerReport::RatesLine(Progress()));
        try {
          for (const std::string& file : DrawRunPlots(dir_.string())) log_.Info("plot: " + file);
        } catch (const Error& e) {
          log_.Info(fmt::format("warning: no plots: {}", e.what()));
        }
      }
    }
    const IngestCounts& read = ingester_.counts();
    TrainerRoleOutcome outcome;
    outcome.rank = env_.rank;
    outcome.world_size = env_.world_size;
    outcome.backend = group_ != nullptr ? group_->backend() : "none";
    outcome.steps = trainer_->step();
    outcome.games = read.games;
    outcome.positions = read.positions;
    outcome.chunks = read.chunks;
    outcome.duplicates = read.duplicates;
    outcome.samples_trained = steps_->samples_trained();
    outcome.train_seconds = steps_->train_seconds();
    outcome.wait_seconds = wait_seconds_;
    outcome.generation = HighestGeneration((dir_ / "nets").string());
    outcome.interrupted = interrupted;
    return outcome;
  }

 private:
  struct Plan {
    bool stop = false;
    bool signal = false;
    std::string reason;
    int64_t steps = 0;  // training steps to take now, the same on every rank
  };

  bool Leader() const { return env_.rank == 0; }

  // --- setup -------------------------------------------------------------------------------------

  void Setup() {
    const int local_batch = LocalBatchSize(config_, env_.world_size);
    const std::string checkpoint_path = (dir_ / "checkpoints" / "trainer.ckpt").string();
    // Rank 0 prepares the run directory and the initial net; the others get the net and whether
    // a checkpoint exists from it (the checkpoint file itself every rank reads).
    json header;
    std::string net_bytes;
    if (Leader()) {
      CreateRunDirectories(dir_.string(),
                           {"records", "checkpoints", "nets", "nets/candidates", "plots"});
      // Only the trainer writes checkpoints/ and plots/: their temporary files are of killed
      // saves (the shared folders' may be another host's live writer's, and are left alone).
      if (!request_.lock_holder.empty()) {
        lock_ = std::make_unique<RunLock>(dir_.string(), "lock", request_.lock_holder);
      }
      RemoveStaleTemporaryFiles((dir_ / "checkpoints").string(), /*only_dead_writers=*/false);
      RemoveStaleTemporaryFiles((dir_ / "plots").string(), /*only_dead_writers=*/false);
      if (request_.shared == nullptr) {
        own_metrics_ = std::make_unique<MetricsFile>((dir_ / "metrics.jsonl").string());
      }
      const nets::NetFile initial = InitialNet();
      net_bytes = nets::SerializeNetFile(initial);
      // A cluster's trainer (`vzero trainer`) plays the warm start's games itself before its first
      // step; `vzero train` has played them before starting its roles (selfplay/train_loop.cc).
      if (request_.shared == nullptr && !config_.warm_start().player().empty()) {
        RunWarmStart(config_, dir_.string(), /*threads=*/0, log_, RoleStopFlag());
      }
      header = {{"checkpoint", nets::CheckpointExists(checkpoint_path)},
                {"config_hash", fmt::format("{:016x}", TrainConfigHash(config_))}};
    }
    std::string header_text = header.dump();
    if (group_ != nullptr) {
      group_->Broadcast(header_text, 0);
      group_->Broadcast(net_bytes, 0);
    }
    header = json::parse(header_text);
    if (header.value("config_hash", "") != fmt::format("{:016x}", TrainConfigHash(config_))) {
      throw Error(fmt::format(
          "trainer rank {}: its config differs from rank 0's (give every rank the same options)",
          env_.rank));
    }
    const nets::NetFile initial = nets::ParseNetFile(net_bytes, "the initial net from rank 0");

    const nets::TrainerOptions options = Options();
    trainer_ = std::make_unique<nets::Trainer>(initial, options);
    steps_ = std::make_unique<TrainingSteps<G>>(*trainer_, options.device, window_, config_,
                                                env_.rank, local_batch);
    if (header.value("checkpoint", false)) {
      const nets::CheckpointLoad load = trainer_->LoadCheckpoint(checkpoint_path);
      if (Leader()) {
        for (const std::string& warning : load.warnings) log_.Info("warning: " + warning);
      }
    }
    if (!Leader()) return;
    MetricsFile& metrics = request_.shared != nullptr ? request_.shared->metrics() : *own_metrics_;
    report_ = std::make_unique<TrainerReport>(std::string(G::kName), metrics, log_);
    publisher_ = std::make_unique<NetPublisher>(dir_, std::string(G::kName), config_.gating(),
                                                *trainer_, metrics, log_);
    publisher_->StartedAt(trainer_->step());
    publisher_->SetKnowledge(TrainingKnowledge(config_, initial.provenance.knowledge));
    log_.Info(fmt::format(
        "trainer of {} ({}): step {}; {}; training on {} in {}, global batch {} ({} per rank); "
        "gating {}",
        dir_.string(), G::kName, trainer_->step(), env_.Describe(), options.device,
        trainer_->precision(), config_.optimizer().batch_size(), local_batch,
        publisher_->GatingOn() ? "on (candidates for `vzero gate`)"
                               : "off (every candidate is promoted)"));
    // A candidate cut short by a stop between its checkpoint and its export.
    const int64_t every = int64_t(config_.optimizer().checkpoint_every_steps());
    if (trainer_->step() > 0 && trainer_->step() % every == 0 && !publisher_->Exported()) {
      publisher_->Export(agreed_games_);
    }
    if (request_.shared != nullptr) request_.shared->Notify();  // the first net is there
  }

  // The trainer's options from the config's optimizer section, on this rank's device.
  nets::TrainerOptions Options() const {
    const proto::OptimizerConfig& o = config_.optimizer();
    if (o.cpu_threads() > 0) nets::SetCpuThreads(int(o.cpu_threads()));
    nets::TrainerOptions options;
    options.optimizer = o.optimizer();
    options.learning_rate = o.learning_rate();
    options.momentum = o.momentum();
    options.weight_decay = o.weight_decay();
    options.material_weight = o.material_loss_weight();
    options.ownership_weight = o.ownership_loss_weight();
    options.schedule = o.schedule();
    options.total_steps = int64_t(o.total_steps());
    options.warmup_steps = int64_t(o.warmup_steps());
    options.device = nets::ResolveDevice(o.device(), env_.local_rank);
    options.precision = o.precision().empty() ? "auto" : o.precision();
    options.seed = config_.seed();
    options.process_group = group_;
    return options;
  }

  // nets/initial.vznet (written on a new run from --init-net or fresh weights) and, when absent,
  // nets/best.vznet.
  nets::NetFile InitialNet() {
    const std::string initial_path = (dir_ / "nets" / "initial.vznet").string();
    nets::NetFile initial;
    if (fs::exists(initial_path)) {
      initial = nets::ReadNetFile(initial_path);
      nets::CheckNetForGame<G>(initial, initial_path);
    } else if (!request_.init_net.empty()) {
      initial = nets::ReadNetFile(request_.init_net);
      nets::CheckNetForGame<G>(initial, request_.init_net);
      nets::WriteNetFile(initial_path, initial);
      log_.Info("starting from net " + request_.init_net);
    } else {
      initial = nets::FreshNetForGame<G>(config_.net().preset(), config_.net().seed());
      initial.provenance.knowledge = "zero-knowledge";  // random weights
      nets::WriteNetFile(initial_path, initial);
    }
    const fs::path best = dir_ / "nets" / "best.vznet";
    if (!fs::exists(best)) {
      const int generation = HighestGeneration((dir_ / "nets").string());
      nets::WriteNetFile(
          best.string(),
          generation > 0 ? nets::ReadNetFile((dir_ / "nets" / GenerationFile(generation)).string())
                         : initial);
    }
    return initial;
  }

  // --- agreement (collective) --------------------------------------------------------------------

  // Rank 0 names the new chunk files and its stop reason; every rank reads the files; all agree
  // on the totals, the window sizes and the steps to take.
  Plan Agree() {
    std::string message;
    if (Leader()) {
      json m = {{"files", ingester_.NewChunkFiles()}, {"stop", LeaderStopReason()}};
      message = m.dump();
    }
    if (group_ != nullptr) group_->Broadcast(message, 0);
    const json m = json::parse(message);
    const int64_t games_before = ingester_.counts().games;
    const std::vector<ShardGame> shard =
        ingester_.Read(m.at("files").get<std::vector<std::string>>());
    // The window follows the positions the run has produced (a growing window), and only the
    // newest games of this rank's shard that it can hold are replayed.
    FeedReplayWindow(window_, config_.replay(), ingester_.counts().positions, env_.world_size,
                     shard, log_);
    const IngestCounts& read = ingester_.counts();
    if (Leader() && read.games > games_before) {
      report_->Ingested(Progress(), read.games - games_before);
    }

    std::vector<double> maxima = {RoleStopFlag().load() ? 1.0 : 0.0, double(read.games),
                                  double(read.positions), -double(window_.num_positions())};
    std::vector<double> sums = {double(window_.num_positions())};
    if (group_ != nullptr) {
      group_->AllReduce(maxima, nets::ReduceOp::kMax);
      group_->AllReduce(sums, nets::ReduceOp::kSum);
    }
    Plan plan;
    const std::string reason = m.at("stop").get<std::string>();
    plan.signal = maxima[0] > 0;
    plan.stop = plan.signal || !reason.empty();
    plan.reason = plan.signal ? "signal received" : reason;
    agreed_games_ = int64_t(maxima[1]);
    agreed_positions_ = int64_t(maxima[2]);
    if (plan.stop) return plan;
    plan.steps = steps_->Allowed(/*window_positions=*/int64_t(sums[0]),
                                 /*smallest_window=*/int64_t(-maxima[3]), agreed_positions_);
    return plan;
  }

  // "" or why rank 0 stops (a limit of the config's stop section).
  std::string LeaderStopReason() const {
    const proto::StopConfig& stop = config_.stop();
    if (stop.minutes() > 0 && SecondsSince(start_) >= 60.0 * stop.minutes())
      return fmt::format("reached {} minutes", stop.minutes());
    if (stop.train_steps() > 0 && uint64_t(trainer_->step()) >= stop.train_steps())
      return fmt::format("reached {} training steps", stop.train_steps());
    if (stop.games() > 0 && uint64_t(agreed_games_) >= stop.games())
      return fmt::format("reached {} games", stop.games());
    return "";
  }

  // --- after each step ---------------------------------------------------------------------------

  // Rank 0: the step's metrics into the report, and at every checkpoint step the checkpoint, the
  // exported net and state.json.
  void AfterStep(const nets::TrainMetrics& metrics) {
    if (!Leader()) return;
    report_->Trained(metrics, Progress());
    const int64_t every = int64_t(config_.optimizer().checkpoint_every_steps());
    if (trainer_->step() % every != 0) return;
    report_->Flush(Progress());
    publisher_->Checkpoint();
    publisher_->Export(agreed_games_);
    publisher_->SaveState(Progress());
    // After state.json: a strength check of the new net reads the positions behind it there.
    if (request_.shared != nullptr) request_.shared->Notify();
  }

  // The parts' figures now (what the report and state.json say).
  TrainerProgress Progress() const {
    TrainerProgress progress;
    progress.step = trainer_->step();
    progress.games = agreed_games_;
    progress.positions = agreed_positions_;
    progress.read = ingester_.counts();
    progress.window_games = window_.num_games();
    progress.window_positions = window_.num_positions();
    progress.world_size = env_.world_size;
    progress.local_batch = steps_->local_batch();
    progress.samples_trained = steps_->samples_trained();
    progress.train_seconds = steps_->train_seconds();
    progress.sample_wait_seconds = steps_->sample_wait_seconds();
    progress.seconds = SecondsSince(start_);
    return progress;
  }

  const TrainerRoleRequest& request_;
  proto::TrainConfig config_;
  fs::path dir_;
  nets::DistributedEnv env_;
  nets::ProcessGroup* group_;
  RunLog& log_;
  std::unique_ptr<RunLock> lock_;             // rank 0
  std::unique_ptr<MetricsFile> own_metrics_;  // rank 0 of a trainer process
  RecordIngester ingester_;
  ReplayWindow<G> window_;
  std::unique_ptr<nets::Trainer> trainer_;
  std::unique_ptr<TrainingSteps<G>> steps_;
  std::unique_ptr<TrainerReport> report_;    // rank 0
  std::unique_ptr<NetPublisher> publisher_;  // rank 0
  int64_t agreed_games_ = 0, agreed_positions_ = 0;
  double wait_seconds_ = 0;
  uint64_t news_seen_ = 0;  // SharedRun::Wait
  Clock::time_point start_ = Clock::now(), last_status_{};
};

}  // namespace

TrainerRoleOutcome RunTrainerRole(const TrainerRoleRequest& request) {
  const nets::DistributedEnv env = nets::ReadDistributedEnv();
  if (request.shared != nullptr && env.distributed()) {
    throw Error("vzero train runs one trainer process: unset the rendezvous variables (" +
                env.Describe() + ") or use `vzero trainer`");
  }
  std::unique_ptr<RunLog> own_log;
  if (request.shared == nullptr) {
    CreateRunDirectories(request.run_dir, {"logs"});
    const std::string log_name =
        env.rank == 0 ? "trainer.log" : fmt::format("trainer-rank{}.log", env.rank);
    own_log = std::make_unique<RunLog>((fs::path(request.run_dir) / "logs" / log_name).string(),
                                       request.live && env.rank == 0);
  }
  RunLog& log = own_log ? *own_log : request.shared->log();
  std::atomic<bool>& stop = RoleStopFlag();
  const std::optional<proto::TrainConfig> config = WaitForRunConfig(
      request.run_dir, request.config, request.poll_seconds, stop,
      [&] {
        log.Info(
            fmt::format("waiting for {}/config.txtpb (give --variant/--preset or --config "
                        "to one role to create the run)",
                        request.run_dir));
      },
      /*adopt=*/env.rank == 0);
  TrainerRoleOutcome outcome;
  outcome.rank = env.rank;
  outcome.world_size = env.world_size;
  if (!config) {
    outcome.interrupted = true;
    return outcome;
  }
  std::unique_ptr<nets::ProcessGroup> group;
  if (env.distributed()) {
    const std::string device = nets::ResolveDevice(config->optimizer().device(), env.local_rank);
    log.Info(fmt::format("joining the process group as {}", env.Describe()));
    group = std::make_unique<nets::ProcessGroup>(env, IsCuda(device) ? device : "cpu");
    log.Info(fmt::format("process group ready: {} ranks, backend {}", group->world_size(),
                         group->backend()));
  }
  WithGame(config->variant(), [&]<Game G>() {
    TrainerRole<G> role(request, *config, env, group.get(), log);
    outcome = role.Run();
  });
  return outcome;
}

}  // namespace vz

#else  // !VZ_HAVE_TORCH

#include "engine/core/error.h"

namespace vz {
TrainerRoleOutcome RunTrainerRole(const TrainerRoleRequest&) {
  throw Error("trainer: this vzero was built without LibTorch (VZ_USE_TORCH=OFF)");
}
}  // namespace vz

#endif
