// `vzero trainer`: the trainer of a training run (selfplay/cluster.h): a process of its own, one
// rank of a data-parallel group (nets/distributed.h), or a thread of `vzero train`.

#include "selfplay/cluster.h"

#if VZ_HAVE_TORCH

#include <fmt/core.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <thread>
#include <tuple>
#include <utility>

#include "engine/core/atomic_file.h"
#include "engine/core/clock.h"
#include "engine/core/error.h"
#include "engine/core/fnv.h"
#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "nets/augment.h"
#include "nets/distributed.h"
#include "nets/fresh_net.h"
#include "nets/net_evaluator.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"
#include "nets/sample_codec.h"
#include "nets/trainer.h"
#include "records/game_record.h"
#include "selfplay/batch_prefetch.h"
#include "selfplay/replay_window.h"
#include "selfplay/run_report.h"
#include "selfplay/train_config.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

bool IsCuda(const std::string& device) { return device.rfind("cuda", 0) == 0; }

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
        window_(ReplayWindowSize(config.replay(), 0, env.world_size),
                AdjudicatedValueOf(config.replay())) {}

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
      TrainSteps(plan.steps);
      if (Leader() && request_.live && SecondsSince(last_status_) >= 0.5) {
        log_.Status(StatusLine());
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
      FlushMetrics();
      Checkpoint();
      SaveState();
      if (request_.shared == nullptr) log_.Info(RatesLine());  // else the caller's session line
      if (request_.shared == nullptr) {
        try {
          for (const std::string& file : DrawRunPlots(dir_.string())) log_.Info("plot: " + file);
        } catch (const Error& e) {
          log_.Info(fmt::format("warning: no plots: {}", e.what()));
        }
      }
    }
    TrainerRoleOutcome outcome;
    outcome.rank = env_.rank;
    outcome.world_size = env_.world_size;
    outcome.backend = group_ != nullptr ? group_->backend() : "none";
    outcome.steps = trainer_->step();
    outcome.games = games_;
    outcome.positions = positions_;
    outcome.chunks = chunks_;
    outcome.duplicates = duplicates_;
    outcome.samples_trained = samples_trained_;
    outcome.train_seconds = train_seconds_;
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
    const int world = env_.world_size;
    const uint32_t batch = config_.optimizer().batch_size();
    if (batch % uint32_t(world) != 0) {
      throw Error(
          fmt::format("config key optimizer.batch_size: {} is not a multiple of the {} "
                      "ranks (each rank trains on an equal share)",
                      batch, world));
    }
    local_batch_ = int(batch) / world;
    checkpoint_path_ = (dir_ / "checkpoints" / "trainer.ckpt").string();
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
      if (request_.shared != nullptr) {
        metrics_ = &request_.shared->metrics();
      } else {
        own_metrics_ = std::make_unique<MetricsFile>((dir_ / "metrics.jsonl").string());
        metrics_ = own_metrics_.get();
      }
      const nets::NetFile initial = InitialNet();
      net_bytes = nets::SerializeNetFile(initial);
      header = {{"checkpoint", nets::CheckpointExists(checkpoint_path_)},
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

    nets::TrainerOptions options;
    const proto::OptimizerConfig& o = config_.optimizer();
    if (o.cpu_threads() > 0) nets::SetCpuThreads(int(o.cpu_threads()));
    options.optimizer = o.optimizer();
    options.learning_rate = o.learning_rate();
    options.momentum = o.momentum();
    options.weight_decay = o.weight_decay();
    options.schedule = o.schedule();
    options.total_steps = int64_t(o.total_steps());
    options.warmup_steps = int64_t(o.warmup_steps());
    options.device = nets::ResolveDevice(o.device(), env_.local_rank);
    options.precision = o.precision().empty() ? "auto" : o.precision();
    options.seed = config_.seed();
    options.process_group = group_;
    trainer_ = std::make_unique<nets::Trainer>(initial, options);
    // On a GPU the batches travel compact (positions and sparse targets) and are expanded there
    // by the rule kernels; on the CPU, and in a build without the kernels, they are built dense
    // by the sampling thread.
#if defined(VZ_HAVE_CUDA)
    const bool compact = options.device.starts_with("cuda");
#else
    const bool compact = false;
#endif
    if (compact) {
      trainer_->set_sample_codec(nets::MakeSampleCodec<G>(/*cuda=*/true));
      compact_prefetcher_ = std::make_unique<BatchPrefetcher<nets::CompactBatch>>();
    } else {
      dense_prefetcher_ = std::make_unique<BatchPrefetcher<nets::TrainingBatch>>();
    }
    if (header.value("checkpoint", false)) {
      const nets::CheckpointLoad load = trainer_->LoadCheckpoint(checkpoint_path_);
      for (const std::string& warning : load.warnings) Warn(warning);
    }
    last_checkpoint_step_ = trainer_->step();
    if (Leader()) {
      log_.Info(fmt::format(
          "trainer of {} ({}): step {}; {}; training on {} in {}, global batch {} ({} per rank); "
          "gating {}",
          dir_.string(), G::kName, trainer_->step(), env_.Describe(), options.device,
          trainer_->precision(), batch, local_batch_,
          GatingOn() ? "on (candidates for `vzero gate`)" : "off (every candidate is promoted)"));
      // A candidate cut short by a stop between its checkpoint and its export.
      const int64_t every = int64_t(config_.optimizer().checkpoint_every_steps());
      if (trainer_->step() > 0 && trainer_->step() % every == 0 && !Exported()) Export();
    }
    if (request_.shared != nullptr) request_.shared->Notify();  // the first net is there
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

  // --- agreement and ingestion (collective) -----------------------------------------------------

  // Rank 0 names the new chunk files and its stop reason; every rank reads the files; all agree
  // on the totals, the window sizes and the steps to take.
  Plan Agree() {
    std::string message;
    if (Leader()) {
      json m = {{"files", NewChunkFiles()}, {"stop", LeaderStopReason()}};
      message = m.dump();
    }
    if (group_ != nullptr) group_->Broadcast(message, 0);
    const json m = json::parse(message);
    const int64_t games_before = games_;
    std::vector<std::pair<proto::GameRecord, std::string>> mine;
    for (const json& name : m.at("files")) Ingest(name.get<std::string>(), mine);
    // The window follows the positions the run has produced (a growing window), and only the
    // newest games of this rank's shard that it can hold are replayed.
    window_.Resize(ReplayWindowSize(config_.replay(), positions_, env_.world_size));
    std::vector<int64_t> targets(mine.size(), 0);
    for (size_t i = 0; i < mine.size(); ++i) {
      for (const proto::MoveRecord& move : mine[i].first.moves()) targets[i] += move.has_target();
    }
    for (size_t i = window_.OldestKept(targets); i < mine.size(); ++i) {
      try {
        window_.AddGame(mine[i].first, mine[i].second);
      } catch (const Error& e) {
        Warn(fmt::format("game {} of {} not used for training: {}", mine[i].first.index(),
                         mine[i].first.worker(), e.what()));
      }
    }
    if (Leader() && games_ > games_before) WriteIngestMetrics(games_ - games_before);

    std::vector<double> maxima = {RoleStopFlag().load() ? 1.0 : 0.0, double(games_),
                                  double(positions_), -double(window_.num_positions())};
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
    const int64_t smallest_window = int64_t(-maxima[3]);
    const int64_t window_positions = int64_t(sums[0]);
    if (plan.stop) return plan;

    const proto::ReplayConfig& r = config_.replay();
    if (window_positions < int64_t(r.min_positions()) || smallest_window == 0) return plan;
    // The sample cap (0 = none): training samples per self-play position.
    const double batch = double(config_.optimizer().batch_size());
    int64_t steps = 25;
    if (r.max_samples_per_new_sample() > 0) {
      const double allowed_samples =
          double(r.max_samples_per_new_sample()) * double(agreed_positions_) -
          double(trainer_->step()) * batch;
      steps = allowed_samples >= batch ? int64_t(allowed_samples / batch) : 0;
    }
    const uint64_t max_steps = config_.stop().train_steps();
    if (max_steps > 0) steps = std::min(steps, int64_t(max_steps) - trainer_->step());
    const int64_t every = int64_t(config_.optimizer().checkpoint_every_steps());
    steps = std::min(steps, every - trainer_->step() % every);
    plan.steps = std::clamp<int64_t>(steps, 0, 25);
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

  // Rank 0: chunk files not listed before, oldest first (modification time, then name): the
  // order in which they were finished, as near as a shared filesystem tells.
  std::vector<std::string> NewChunkFiles() {
    std::vector<std::tuple<int64_t, std::string>> fresh;
    for (const std::string& path : ListRecordChunks((dir_ / "records").string())) {
      std::string name = fs::path(path).filename().string();
      if (listed_.count(name) != 0) continue;
      struct stat info {};
      const int64_t mtime =
          ::stat(path.c_str(), &info) == 0
              ? int64_t(info.st_mtim.tv_sec) * 1000000000 + int64_t(info.st_mtim.tv_nsec)
              : 0;
      fresh.emplace_back(mtime, std::move(name));
    }
    std::sort(fresh.begin(), fresh.end());
    std::vector<std::string> names;
    for (auto& [mtime, name] : fresh) {
      listed_.insert(name);
      names.push_back(std::move(name));
    }
    return names;
  }

  // Reads one chunk: every game counted once by (worker, index); this rank's shard kept in `mine`.
  void Ingest(const std::string& name,
              std::vector<std::pair<proto::GameRecord, std::string>>& mine) {
    const std::string path = (dir_ / "records" / name).string();
    std::vector<proto::GameRecord> records;
    try {
      records = ReadRecordChunk(path);
    } catch (const Error& e) {
      Warn(fmt::format("skipping record file: {}", e.what()));
      return;
    }
    ++chunks_;
    for (size_t i = 0; i < records.size(); ++i) {
      proto::GameRecord& record = records[i];
      if (!seen_.emplace(record.worker(), record.index()).second) {
        ++duplicates_;
        Warn(fmt::format("{}: game {} of worker '{}' was read before; counted once", path,
                         record.index(), record.worker()));
        continue;
      }
      ++games_;
      plies_ += record.moves_size();
      for (const proto::MoveRecord& move : record.moves()) positions_ += move.has_target();
      const uint64_t key = Fnv1a64(std::to_string(record.index()), Fnv1a64(record.worker() + ":"));
      if (int(key % uint64_t(env_.world_size)) == env_.rank) {
        mine.emplace_back(std::move(record), fmt::format("{} game {}", path, i));
      }
    }
  }

  // Rank 0 logs every warning; other ranks only their own shard's.
  void Warn(const std::string& text) {
    if (Leader() || text.find("not used for training") != std::string::npos) {
      log_.Info("warning: " + text);
    }
  }

  // The "ingest" line: what the trainer read (the workers write the "selfplay" lines).
  void WriteIngestMetrics(int64_t new_games) {
    const double seconds = SecondsSince(start_);
    metrics_->Write({{"type", "ingest"},
                     {"time", nets::UtcNow()},
                     {"step", trainer_->step()},
                     {"games", games_},
                     {"positions", positions_},
                     {"chunks", chunks_},
                     {"duplicates", duplicates_},
                     // This rank's window (a growing window widens with the positions).
                     {"window_games", window_.num_games()},
                     {"window_positions", window_.num_positions()},
                     {"mean_plies", games_ > 0 ? double(plies_) / double(games_) : 0.0},
                     // The rate at which the workers' positions arrive, since this trainer started.
                     {"positions_per_second",
                      seconds > 1.0 ? double(positions_ - positions_at_start_) / seconds : 0.0}});
    if (games_ == new_games) positions_at_start_ = positions_;  // the backlog of a restart
    log_.Info(fmt::format("read {} new games: {} games, {} positions in {} chunks{}", new_games,
                          games_, positions_, chunks_,
                          duplicates_ > 0 ? fmt::format(", {} duplicates", duplicates_) : ""));
  }

  // --- training ------------------------------------------------------------------------------

  // `count` steps, each batch sampled beside the step before it (selfplay/batch_prefetch.h): the
  // same batches as sampling each just before its step. The prefetch draws from the trainer's
  // generator one batch ahead, and a checkpoint saves that generator: a Run ends at every
  // checkpoint step (Agree ends every call there anyway), so that a resumed run draws the same.
  void TrainSteps(int64_t count) {
    const int64_t every = int64_t(config_.optimizer().checkpoint_every_steps());
    const uint64_t salt = 0x9E3779B97F4A7C15ull * uint64_t(env_.rank + 1);
    const bool augment = config_.optimizer().augment();
    const std::function<uint64_t()> random = [&] {
      return SplitMix64(trainer_->NextRandom() ^ salt);
    };
    const auto train = [&]<class Batch>(BatchPrefetcher<Batch>& prefetcher) {
      const typename BatchPrefetcher<Batch>::Fill fill = [&](std::span<const uint64_t> draws,
                                                             Batch& batch) {
        SampleTrainingBatch<G>(window_, local_batch_, augment, draws, batch);
      };
      while (count > 0) {
        const int64_t run = std::min(count, every - trainer_->step() % every);
        prefetcher.Run(run, DrawsPerTrainingBatch<G>(local_batch_, augment), random, fill,
                       [&](const Batch& batch) { TrainStep(batch); });
        count -= run;
      }
    };
    if (compact_prefetcher_ != nullptr) {
      train(*compact_prefetcher_);
    } else {
      train(*dense_prefetcher_);
    }
  }

  // The sampling the steps did not hide (BatchPrefetcher::wait_seconds).
  double SampleWaitSeconds() const {
    return compact_prefetcher_ != nullptr ? compact_prefetcher_->wait_seconds()
                                          : dense_prefetcher_->wait_seconds();
  }

  template <class Batch>
  void TrainStep(const Batch& batch) {
    const int64_t every = int64_t(config_.optimizer().checkpoint_every_steps());
    const Clock::time_point step_start = Clock::now();
    const nets::TrainMetrics m = trainer_->Step(batch);
    train_seconds_ += SecondsSince(step_start);
    samples_trained_ += int64_t(config_.optimizer().batch_size());
    if (!Leader()) return;
    sums_[0] += m.loss;
    sums_[1] += m.policy_loss;
    sums_[2] += m.value_loss;
    sums_[3] += m.policy_accuracy;
    sums_[4] += m.value_accuracy;
    sums_[5] += m.learning_rate;
    ++summed_;
    if (summed_ >= 20) FlushMetrics();
    if (trainer_->step() % every == 0) {
      FlushMetrics();
      Checkpoint();
      Export();
      SaveState();
      // After state.json: a strength check of the new net reads the positions behind it there.
      if (request_.shared != nullptr) request_.shared->Notify();
    }
  }

  void FlushMetrics() {
    if (summed_ == 0) return;
    const double n = double(summed_);
    last_loss_ = sums_[0] / n;
    last_policy_loss_ = sums_[1] / n;
    last_value_loss_ = sums_[2] / n;
    metrics_->Write({{"type", "train"},
                     {"time", nets::UtcNow()},
                     {"step", trainer_->step()},
                     {"games", agreed_games_},
                     {"positions", agreed_positions_},
                     {"loss", last_loss_},
                     {"policy_loss", last_policy_loss_},
                     {"value_loss", last_value_loss_},
                     {"policy_accuracy", sums_[3] / n},
                     {"value_accuracy", sums_[4] / n},
                     {"learning_rate", sums_[5] / n},
                     {"world_size", env_.world_size},
                     {"samples_per_second",
                      train_seconds_ > 0 ? double(samples_trained_) / train_seconds_ : 0.0},
                     // Sampling not hidden behind the steps (this session's).
                     {"sample_wait_seconds", SampleWaitSeconds()}});
    std::fill(std::begin(sums_), std::end(sums_), 0.0);
    summed_ = 0;
  }

  void Checkpoint() {
    if (trainer_->step() == last_checkpoint_step_ && fs::exists(checkpoint_path_)) return;
    trainer_->SaveCheckpoint(checkpoint_path_);
    last_checkpoint_step_ = trainer_->step();
  }

  // Whether the gate judges candidates (gating.mode threshold or sprt), else they are promoted.
  bool GatingOn() const { return EffectiveGatingMode(config_.gating()) != GatingMode::kNone; }

  // Whether the weights of the current step were exported already.
  bool Exported() const {
    const int64_t step = trainer_->step();
    if (GatingOn()) {
      const fs::path candidates = dir_ / "nets" / "candidates";
      return fs::exists(candidates / CandidateFile(step, "vznet")) ||
             fs::exists(candidates / CandidateFile(step, "json"));
    }
    return PromotedStep((dir_ / "nets").string()) >= step;
  }

  // Rank 0: the current weights as a candidate for the gate, or promoted at once (gating off).
  // The caller wakes the other roles (SharedRun::Notify).
  void Export() {
    const int64_t step = trainer_->step();
    const int best = HighestGeneration((dir_ / "nets").string());
    nets::NetFile net =
        trainer_->ExportNet(uint64_t(agreed_games_), fmt::format("best-{:04d}", best));
    if (GatingOn()) {
      const fs::path path = dir_ / "nets" / "candidates" / CandidateFile(step, "vznet");
      nets::WriteNetFile(path.string(), net);
      metrics_->Write({{"type", "candidate"},
                       {"time", nets::UtcNow()},
                       {"step", step},
                       {"path", path.string()}});
      log_.Info(fmt::format("step {}: candidate {} for `vzero gate`", step, path.string()));
      return;
    }
    const int generation = best + 1;
    net.provenance.note = fmt::format("vzero trainer generation {}", generation);
    const std::string path = (dir_ / "nets" / GenerationFile(generation)).string();
    nets::WriteNetFile(path, net);
    nets::WriteNetFile((dir_ / "nets" / "best.vznet").string(), net);
    metrics_->Write({{"type", "gating"},
                     {"time", nets::UtcNow()},
                     {"step", step},
                     {"games_played", agreed_games_},
                     {"enabled", false},
                     {"mode", "none"},
                     {"promoted", true},
                     {"generation", generation}});
    log_.Info(fmt::format("step {}: promoted to best-{:04d} ({})", step, generation, path));
  }

  void SaveState() {
    json state;
    state["variant"] = std::string(G::kName);
    state["role"] = "trainer";
    state["world_size"] = env_.world_size;
    state["step"] = trainer_->step();
    state["games"] = agreed_games_;
    state["positions"] = agreed_positions_;
    state["chunks"] = chunks_;
    state["duplicates"] = duplicates_;
    state["generation"] = HighestGeneration((dir_ / "nets").string());
    state["best_net"] = (dir_ / "nets" / "best.vznet").string();
    WriteFileAtomically((dir_ / "state.json").string(), state.dump(2) + "\n");
  }

  std::string RatesLine() const {
    return fmt::format(
        "this session: {} training samples in {:.1f} s of steps ({:.1f} samples/s, {} rank(s), "
        "{} per rank and step); {} games, {} positions read from {} chunks",
        samples_trained_, train_seconds_,
        train_seconds_ > 0 ? double(samples_trained_) / train_seconds_ : 0.0, env_.world_size,
        local_batch_, games_, positions_, chunks_);
  }

  std::string StatusLine() const {
    return fmt::format("{} | games {} | positions {} | step {} | loss {:.3f} (p {:.3f} v {:.3f})",
                       G::kName, agreed_games_, agreed_positions_, trainer_->step(), last_loss_,
                       last_policy_loss_, last_value_loss_);
  }

  const TrainerRoleRequest& request_;
  proto::TrainConfig config_;
  fs::path dir_;
  nets::DistributedEnv env_;
  nets::ProcessGroup* group_;
  RunLog& log_;
  std::unique_ptr<RunLock> lock_;             // rank 0
  std::unique_ptr<MetricsFile> own_metrics_;  // rank 0 of a trainer process
  MetricsFile* metrics_ = nullptr;            // rank 0: own_metrics_ or the SharedRun's
  ReplayWindow<G> window_;
  std::unique_ptr<nets::Trainer> trainer_;
  // Its thread samples the next batch during a step: compact batches on a GPU, dense ones on
  // the CPU (one of the two is made, with the trainer).
  std::unique_ptr<BatchPrefetcher<nets::CompactBatch>> compact_prefetcher_;
  std::unique_ptr<BatchPrefetcher<nets::TrainingBatch>> dense_prefetcher_;
  std::string checkpoint_path_;
  int local_batch_ = 0;
  std::set<std::string> listed_;                     // rank 0: chunk files named so far
  std::set<std::pair<std::string, uint64_t>> seen_;  // (worker, index) of every game read
  int64_t games_ = 0, positions_ = 0, plies_ = 0, chunks_ = 0, duplicates_ = 0;
  int64_t agreed_games_ = 0, agreed_positions_ = 0, positions_at_start_ = 0;
  int64_t last_checkpoint_step_ = -1;
  int64_t samples_trained_ = 0;
  double train_seconds_ = 0, wait_seconds_ = 0;
  uint64_t news_seen_ = 0;  // SharedRun::Wait
  double sums_[6] = {};
  int summed_ = 0;
  double last_loss_ = 0, last_policy_loss_ = 0, last_value_loss_ = 0;
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
