// `vzero selfplay`: one self-play worker of a training run (selfplay/cluster.h), a process of its
// own or a thread of `vzero train`.

#include "selfplay/cluster.h"

#if VZ_HAVE_TORCH

#include <dirent.h>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <utility>

#include "engine/core/atomic_file.h"
#include "engine/core/clock.h"
#include "engine/core/error.h"
#include "engine/core/fnv.h"
#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "nets/distributed.h"
#include "engine/search/quiescence_evaluator.h"
#include "nets/net_evaluator.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"
#include "records/game_record.h"
#include "selfplay/concurrent_actors.h"
#include "selfplay/train_config.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

template <Game G>
class SelfPlayWorker {
 public:
  SelfPlayWorker(const SelfPlayWorkerRequest& request, const proto::TrainConfig& config,
                 std::string worker, RunLog& log, MetricsFile& metrics)
      : request_(request),
        config_(config),
        dir_(request.run_dir),
        worker_(std::move(worker)),
        log_(log),
        metrics_(metrics) {}

  SelfPlayWorkerOutcome Run() {
    std::atomic<bool>& stop = RoleStopFlag();
    ScanOwnRecords();
    device_ =
        nets::ResolveDevice(config_.selfplay().device(), nets::ReadDistributedEnv().local_rank);
    if (config_.selfplay().cpu_threads() > 0) nets::SetCpuThreads(config_.selfplay().cpu_threads());
    groups_ = ActorGroupCount(config_.selfplay());
    // The first net: the trainer writes it; wait for it.
    bool told = false;
    while (!LoadNewestNet()) {
      if (stop.load() || Finishing()) return Outcome(stop.load());
      if (!told && request_.shared == nullptr) {
        log_.Info(
            fmt::format("waiting for the first net in {} (start `vzero trainer --run-dir "
                        "{}`)",
                        (dir_ / "nets").string(), dir_.string()));
        told = true;
      }
      WaitForNews(request_.shared, news_seen_, request_.poll_seconds);
    }
    // Seeds differ between workers (a worker's games are a function of its seed and index).
    const uint64_t seed = SplitMix64(config_.seed() ^ Fnv1a64(worker_));
    // Each group's thread gets this thread's LibTorch CPU threads.
    const int cpu_threads = nets::CpuThreads();
    actors_ = std::make_unique<ConcurrentActors<G>>(
        config_.selfplay(), seed, next_index_, worker_, TrainConfigHash(config_), groups_,
        [cpu_threads](int) { nets::SetCpuThreads(cpu_threads); });
    actors_->set_net_id(net_id_);
    log_.Info(fmt::format(
        "self-play worker {} in {}: {} with {} on {}; game numbers from {}, chunks from {}; {} "
        "games in flight in {} actor group(s), {} simulations a move",
        worker_, dir_.string(), G::kName, net_id_, device_, next_index_, next_chunk_,
        actors_->concurrent_games(), actors_->groups(), config_.selfplay().simulations()));

    start_ = Clock::now();
    std::vector<proto::GameRecord> finished;
    Clock::time_point last_status{};
    bool interrupted = false;
    auto limit_reached = [&] {
      return (request_.minutes > 0 && SecondsSince(start_) >= 60.0 * request_.minutes) ||
             (request_.games > 0 && games_ + int64_t(pending_.size()) >= request_.games);
    };
    for (;;) {
      if (stop.load()) {
        interrupted = true;
        break;
      }
      if (Finishing() || limit_reached()) break;
      const Clock::time_point round_start = Clock::now();
      finished.clear();
      actors_->RunRound(evaluators_, finished);
      selfplay_seconds_ += SecondsSince(round_start);
      for (proto::GameRecord& record : finished) {
        if (request_.games > 0 && games_ + int64_t(pending_.size()) >= request_.games) break;
        AddPending(std::move(record));
      }
      if (pending_.size() >= config_.selfplay().games_per_chunk()) {
        WriteChunk();
        if (LoadNewestNet()) actors_->set_net_id(net_id_);
      }
      if (request_.live && SecondsSince(last_status) >= 0.5) {
        log_.Status(fmt::format("{} | {} | games {} | positions {} ({:.1f}/s) | chunks {}", worker_,
                                net_id_, games_, positions_, Rate(), chunks_));
        last_status = Clock::now();
      }
    }
    WriteChunk();  // the finished games, in a last (smaller) chunk
    log_.Info(fmt::format(
        "self-play worker {} stopping ({}): {} games, {} positions in {} chunks; {:.1f} s of "
        "self-play in {:.1f} s ({:.0f}%): {:.2f} positions/s of self-play, {:.2f} over the wall "
        "clock",
        worker_, interrupted ? "signal" : "limit reached", games_, positions_, chunks_,
        selfplay_seconds_, WallSeconds(), 100.0 * SelfPlayFraction(), Rate(), WallRate()));
    return Outcome(interrupted);
  }

 private:
  bool Finishing() const { return request_.shared != nullptr && request_.shared->finishing(); }
  double WallSeconds() const { return actors_ ? SecondsSince(start_) : 0.0; }
  // Positions of the games finished by this invocation per second of self-play rounds, and per
  // second of wall-clock time since its first round; the share of that time spent in rounds.
  double Rate() const {
    return selfplay_seconds_ > 0 ? double(actors_->stats().positions) / selfplay_seconds_ : 0.0;
  }
  double WallRate() const {
    const double wall = WallSeconds();
    return wall > 0 ? double(actors_->stats().positions) / wall : 0.0;
  }
  double SelfPlayFraction() const {
    const double wall = WallSeconds();
    return wall > 0 ? std::min(1.0, selfplay_seconds_ / wall) : 0.0;
  }

  SelfPlayWorkerOutcome Outcome(bool interrupted) const {
    SelfPlayWorkerOutcome outcome;
    outcome.worker_id = worker_;
    outcome.games = games_;
    outcome.positions = positions_;
    outcome.chunks = chunks_;
    if (actors_) {
      outcome.finished_games = actors_->stats().games;
      outcome.finished_positions = actors_->stats().positions;
      outcome.rounds = actors_->stats().rounds;
      outcome.evaluated = actors_->stats().evaluated;
    }
    outcome.selfplay_seconds = selfplay_seconds_;
    outcome.wall_seconds = WallSeconds();
    outcome.net_id = net_id_;
    outcome.interrupted = interrupted;
    return outcome;
  }

  // This worker's records from earlier runs: its chunks give the next chunk number, the next game
  // number and its totals; its pending games not in a chunk yet go into the next chunk (those
  // already in one were left by a kill between the chunk and their deletion, and are deleted);
  // its own temporary files (writes cut by a kill) are removed.
  void ScanOwnRecords() {
    const fs::path records = dir_ / "records";
    const fs::path pending = records / "pending";
    std::set<uint64_t> chunked;
    for (const std::string& path : ListRecordChunks(records.string())) {
      const std::optional<RecordChunkId> id =
          ParseRecordChunkName(fs::path(path).filename().string());
      if (!id || id->worker != worker_) continue;
      next_chunk_ = std::max(next_chunk_, id->number + 1);
      try {
        for (const proto::GameRecord& record : ReadRecordChunk(path)) {
          next_index_ = std::max(next_index_, int64_t(record.index()) + 1);
          chunked.insert(record.index());
          ++run_games_;
          for (const proto::MoveRecord& move : record.moves()) run_positions_ += move.has_target();
        }
      } catch (const Error& e) {
        log_.Info(fmt::format("warning: own chunk unreadable (its games are lost): {}", e.what()));
      }
    }
    for (const std::string& path : ListRecordChunks(pending.string())) {
      const std::optional<RecordChunkId> id =
          ParseRecordChunkName(fs::path(path).filename().string());
      if (!id || id->worker != worker_) continue;
      std::vector<proto::GameRecord> records;
      try {
        records = ReadRecordChunk(path);
      } catch (const Error& e) {
        log_.Info(fmt::format("warning: skipping record file: {}", e.what()));
        continue;
      }
      for (proto::GameRecord& record : records) {
        if (chunked.count(record.index()) != 0) {
          std::error_code error;
          fs::remove(path, error);
          continue;
        }
        next_index_ = std::max(next_index_, int64_t(record.index()) + 1);
        pending_.push_back({std::move(record), path});
      }
    }
    if (!pending_.empty()) {
      log_.Info(fmt::format("{} finished games of worker {} wait in {} for the next chunk",
                            pending_.size(), worker_, pending.string()));
    }
    const std::string prefix = fmt::format("chunk-{}-", worker_);
    for (const fs::path& folder : {records, pending}) {
      std::error_code error;
      for (const auto& entry : fs::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) == 0 && ParseTemporaryName(name, nullptr)) {
          fs::remove(entry.path(), error);
          log_.Info("removed the unfinished record file " + entry.path().string());
        }
      }
    }
  }

  // Loads the newest promoted net when it is newer than the current one (or none is loaded).
  // Returns true when it loaded one.
  bool LoadNewestNet() {
    const fs::path nets = dir_ / "nets";
    const int generation = HighestGeneration(nets.string());
    if (!evaluators_.empty() && generation <= generation_) return false;
    const fs::path path =
        generation > 0 ? nets / GenerationFile(generation) : nets / "initial.vznet";
    if (!fs::exists(path)) return false;
    nets::NetFile net;
    try {
      net = nets::ReadNetFile(path.string());
      nets::CheckNetForGame<G>(net, path.string());
    } catch (const Error& e) {
      if (evaluators_.empty()) throw;
      log_.Info(fmt::format("warning: keeping {}: {}", net_id_, e.what()));
      return false;
    }
    // One evaluator per actor group: each group's thread calls only its own.
    std::vector<std::unique_ptr<Evaluator<G>>> loaded;
    for (int g = 0; g < groups_; ++g) {
      std::unique_ptr<Evaluator<G>> evaluator =
          nets::MakeNetEvaluator<G>(net, path.string(), device_, config_.selfplay().precision());
      if (config_.selfplay().leaf_quiescence()) {
        evaluator = std::make_unique<QuiescenceEvaluator<G>>(std::move(evaluator));
      }
      loaded.push_back(std::move(evaluator));
    }
    owned_evaluators_ = std::move(loaded);
    evaluators_.clear();
    for (const auto& evaluator : owned_evaluators_) evaluators_.push_back(evaluator.get());
    generation_ = generation;
    const bool first = net_id_.empty();
    net_id_ = fmt::format("best-{:04d}", generation);
    if (!first) log_.Info(fmt::format("playing with {} ({})", net_id_, path.string()));
    return true;
  }

  // A finished game, in its own file at once (a kill loses only the games in flight).
  void AddPending(proto::GameRecord&& record) {
    const std::string path =
        (dir_ / "records" / "pending" / WorkerRecordChunkName(worker_, int64_t(record.index())))
            .string();
    WriteRecordChunk(path, {record});
    pending_.push_back({std::move(record), path});
  }

  // Moves the pending games into the next chunk, then deletes their single files.
  void WriteChunk() {
    if (pending_.empty()) return;
    std::vector<proto::GameRecord> records;
    records.reserve(pending_.size());
    for (const auto& [record, pending_path] : pending_) records.push_back(record);
    const std::string path =
        (dir_ / "records" / WorkerRecordChunkName(worker_, next_chunk_)).string();
    WriteRecordChunk(path, records);
    for (const auto& [record, pending_path] : pending_) {
      std::error_code error;
      fs::remove(pending_path, error);
    }
    ++next_chunk_;
    ++chunks_;
    int64_t positions = 0, plies = 0;
    for (const proto::GameRecord& record : records) {
      plies += record.moves_size();
      for (const proto::MoveRecord& move : record.moves()) positions += move.has_target();
    }
    games_ += int64_t(records.size());
    positions_ += positions;
    run_games_ += int64_t(records.size());
    run_positions_ += positions;
    pending_.clear();
    if (request_.shared != nullptr) request_.shared->Notify();

    const ActorStats s = actors_->stats();
    metrics_.Write(
        {{"type", "selfplay"},
         {"time", nets::UtcNow()},
         {"worker", worker_},
         {"net", net_id_},
         {"chunk", path},
         {"games", run_games_},          // this worker's, in the whole run
         {"positions", run_positions_},  // ... their training positions
         {"session_games", s.games},     // finished by this invocation (rates below too)
         {"positions_per_second", Rate()},
         {"wall_positions_per_second", WallRate()},
         {"selfplay_fraction", SelfPlayFraction()},
         {"evaluations_per_second",
          selfplay_seconds_ > 0 ? double(s.evaluated) / selfplay_seconds_ : 0.0},
         {"mean_batch", s.rounds > 0 ? double(s.evaluated) / double(s.rounds) : 0.0},
         // Where this session's self-play time went, per round phase (SearchDriverStats).
         {"gather_seconds", s.gather_seconds},
         {"evaluate_seconds", s.evaluate_seconds},
         {"apply_seconds", s.apply_seconds},
         {"wait_seconds", s.wait_seconds},
         {"mean_plies", double(plies) / double(records.size())},
         {"white_wins", s.white_wins},
         {"draws", s.draws},
         {"black_wins", s.black_wins},
         {"resigned", s.resigned},
         {"adjudicated", s.adjudicated},
         // Moves without a target: forced (unsearched) and cheap searches (playout cap).
         {"forced_moves", s.forced_moves},
         {"cheap_moves", s.cheap_moves},
         {"resign_disabled_games", s.resign_disabled},
         {"would_have_resigned", s.would_have_resigned},
         {"false_resignations", s.false_resignations},
         {"false_resignation_rate",
          s.would_have_resigned > 0 ? double(s.false_resignations) / double(s.would_have_resigned)
                                    : 0.0},
         // The threshold in force (selfplay.resign_false_rate_target calibrates it).
         {"resign_threshold", s.resign_threshold}});
    log_.Info(fmt::format(
        "{}: {} games ({} positions) with {}; worker {}: {} games; this session W {} D {} L {}, "
        "{} resigned, {} adjudicated, false resignations {}/{}; {:.1f} positions/s of "
        "self-play, {:.1f} over the wall clock ({:.0f}% in self-play)",
        path, records.size(), positions, net_id_, worker_, run_games_, s.white_wins, s.draws,
        s.black_wins, s.resigned, s.adjudicated, s.false_resignations, s.would_have_resigned,
        Rate(), WallRate(), 100.0 * SelfPlayFraction()));
  }

  const SelfPlayWorkerRequest& request_;
  proto::TrainConfig config_;
  fs::path dir_;
  std::string worker_;
  RunLog& log_;
  MetricsFile& metrics_;
  std::string device_;
  int groups_ = 1;                                               // actor groups (ActorGroupCount)
  std::vector<std::unique_ptr<Evaluator<G>>> owned_evaluators_;  // [group] the current net's
  std::vector<Evaluator<G>*> evaluators_;                        // [group] the same, as passed
  std::unique_ptr<ConcurrentActors<G>> actors_;
  std::vector<std::pair<proto::GameRecord, std::string>> pending_;  // record, its single file
  int generation_ = -1;
  std::string net_id_;
  uint64_t news_seen_ = 0;  // SharedRun::Wait
  int64_t next_chunk_ = 0, next_index_ = 0;
  int64_t games_ = 0, positions_ = 0, chunks_ = 0;  // chunked by this invocation
  int64_t run_games_ = 0, run_positions_ = 0;       // chunked by this worker in the run
  double selfplay_seconds_ = 0;
  Clock::time_point start_{};
};

}  // namespace

SelfPlayWorkerOutcome RunSelfPlayWorker(const SelfPlayWorkerRequest& request) {
  const std::string worker = request.worker_id.empty() ? DefaultWorkerId() : request.worker_id;
  CheckWorkerId(worker);
  CreateRunDirectories(request.run_dir, {"records", "records/pending", "nets"});
  std::unique_ptr<RunLog> own_log;
  std::unique_ptr<MetricsFile> own_metrics;
  if (request.shared == nullptr) {
    CreateRunDirectories(request.run_dir, {"logs"});
    const fs::path logs = fs::path(request.run_dir) / "logs";
    own_log = std::make_unique<RunLog>((logs / fmt::format("selfplay-{}.log", worker)).string(),
                                       request.live);
    own_metrics =
        std::make_unique<MetricsFile>((logs / fmt::format("selfplay-{}.jsonl", worker)).string());
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
  SelfPlayWorkerOutcome outcome;
  outcome.worker_id = worker;
  if (!config) {
    outcome.interrupted = true;
    return outcome;
  }
  WithGame(config->variant(), [&]<Game G>() {
    SelfPlayWorker<G> run(request, *config, worker, log, metrics);
    outcome = run.Run();
  });
  return outcome;
}

}  // namespace vz

#else  // !VZ_HAVE_TORCH

#include "engine/core/error.h"

namespace vz {
SelfPlayWorkerOutcome RunSelfPlayWorker(const SelfPlayWorkerRequest&) {
  throw Error("selfplay: this vzero was built without LibTorch (VZ_USE_TORCH=OFF)");
}
}  // namespace vz

#endif
