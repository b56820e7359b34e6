// `vzero selfplay`: one self-play worker of a cluster run (selfplay/cluster.h).

#include "selfplay/cluster.h"

#if VZ_HAVE_TORCH

#include <dirent.h>
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "nets/distributed.h"
#include "nets/net_evaluator.h"
#include "nets/net_file.h"
#include "selfplay/game_record.h"
#include "selfplay/selfplay_actors.h"
#include "selfplay/train_config.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// FNV-1a 64 of `text` (the worker's share of the seed).
uint64_t Fnv1a(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : text) hash = (hash ^ uint8_t(c)) * 0x100000001b3ull;
  return hash;
}

template <Game G>
class SelfPlayWorker {
 public:
  SelfPlayWorker(const SelfPlayWorkerRequest& request, const proto::TrainConfig& config,
                 std::string worker, RunLog& log)
      : request_(request),
        config_(config),
        dir_(request.run_dir),
        worker_(std::move(worker)),
        log_(log),
        metrics_((dir_ / "logs" / fmt::format("selfplay-{}.jsonl", worker_)).string()) {}

  SelfPlayWorkerOutcome Run() {
    std::atomic<bool>& stop = RoleStopFlag();
    ScanOwnChunks();
    device_ = ResolveDevice(config_.selfplay().device(), nets::ReadDistributedEnv().local_rank);
    // The first net: the trainer writes it; wait for it.
    bool told = false;
    while (!LoadNewestNet()) {
      if (stop.load()) return Outcome(true);
      if (!told) {
        log_.Info(
            fmt::format("waiting for the first net in {} (start `vzero trainer --run-dir "
                        "{}`)",
                        (dir_ / "nets").string(), dir_.string()));
        told = true;
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(request_.poll_seconds));
    }
    // Seeds differ between workers (a worker's games are a function of its seed and index).
    const uint64_t seed = SplitMix64(config_.seed() ^ Fnv1a(worker_));
    actors_ = std::make_unique<SelfPlayActors<G>>(config_.selfplay(), seed, next_index_, worker_,
                                                  TrainConfigHash(config_));
    actors_->set_net_id(net_id_);
    log_.Info(fmt::format(
        "self-play worker {} in {}: {} with {} on {}; game numbers from {}, chunks from {}; {} "
        "games in flight, {} simulations a move",
        worker_, dir_.string(), G::kName, net_id_, device_, next_index_, next_chunk_,
        actors_->concurrent_games(), config_.selfplay().simulations()));

    const Clock::time_point start = Clock::now();
    std::vector<proto::GameRecord> finished;
    Clock::time_point last_status{};
    bool interrupted = false;
    for (;;) {
      if (stop.load()) {
        interrupted = true;
        break;
      }
      if (request_.minutes > 0 && SecondsSince(start) >= 60.0 * request_.minutes) break;
      if (request_.games > 0 && games_ + int64_t(pending_.size()) >= request_.games) break;
      const Clock::time_point round_start = Clock::now();
      finished.clear();
      actors_->RunRound(*evaluator_, finished);
      selfplay_seconds_ += SecondsSince(round_start);
      for (proto::GameRecord& record : finished) {
        if (request_.games > 0 && games_ + int64_t(pending_.size()) >= request_.games) break;
        pending_.push_back(std::move(record));
      }
      if (pending_.size() >= config_.selfplay().games_per_chunk()) {
        WriteChunk();
        if (LoadNewestNet()) actors_->set_net_id(net_id_);
      }
      if (SecondsSince(last_status) >= 0.5) {
        log_.Status(fmt::format("{} | {} | games {} | positions {} ({:.1f}/s) | chunks {}", worker_,
                                net_id_, games_, positions_, Rate(), chunks_));
        last_status = Clock::now();
      }
    }
    WriteChunk();  // the finished games, in a last (smaller) chunk
    log_.Info(fmt::format(
        "stopping ({}): {} games, {} positions in {} chunks; {:.1f} s of self-play, {:.2f} "
        "positions/s",
        interrupted ? "signal" : "limit reached", games_, positions_, chunks_, selfplay_seconds_,
        Rate()));
    return Outcome(interrupted);
  }

 private:
  double Rate() const {
    return selfplay_seconds_ > 0 ? double(positions_) / selfplay_seconds_ : 0.0;
  }

  SelfPlayWorkerOutcome Outcome(bool interrupted) const {
    SelfPlayWorkerOutcome outcome;
    outcome.worker_id = worker_;
    outcome.games = games_;
    outcome.positions = positions_;
    outcome.chunks = chunks_;
    outcome.selfplay_seconds = selfplay_seconds_;
    outcome.net_id = net_id_;
    outcome.interrupted = interrupted;
    return outcome;
  }

  // This worker's chunks from earlier runs: the next chunk number and game number; its own
  // temporary files (a write cut by a kill) are removed.
  void ScanOwnChunks() {
    const fs::path records = dir_ / "records";
    for (const std::string& path : ListRecordChunks(records.string())) {
      const std::optional<RecordChunkId> id =
          ParseRecordChunkName(fs::path(path).filename().string());
      if (!id || id->worker != worker_) continue;
      next_chunk_ = std::max(next_chunk_, id->number + 1);
      try {
        for (const proto::GameRecord& record : ReadRecordChunk(path)) {
          next_index_ = std::max(next_index_, int64_t(record.index()) + 1);
        }
      } catch (const Error& e) {
        log_.Info(fmt::format("warning: own chunk unreadable (its games are lost): {}", e.what()));
      }
    }
    const std::string prefix = fmt::format("chunk-{}-", worker_);
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(records, error)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) == 0 && ParseTemporaryName(name, nullptr)) {
        fs::remove(entry.path(), error);
        log_.Info("removed the unfinished chunk " + entry.path().string());
      }
    }
  }

  // Loads the newest promoted net when it is newer than the current one (or none is loaded).
  // Returns true when it loaded one.
  bool LoadNewestNet() {
    const fs::path nets = dir_ / "nets";
    const int generation = HighestGeneration(nets.string());
    if (evaluator_ && generation <= generation_) return false;
    const fs::path path =
        generation > 0 ? nets / GenerationFile(generation) : nets / "initial.vznet";
    if (!fs::exists(path)) return false;
    nets::NetFile net;
    try {
      net = nets::ReadNetFile(path.string());
      nets::CheckNetForGame<G>(net, path.string());
    } catch (const Error& e) {
      if (!evaluator_) throw;
      log_.Info(fmt::format("warning: keeping {}: {}", net_id_, e.what()));
      return false;
    }
    evaluator_ =
        nets::MakeNetEvaluator<G>(net, path.string(), device_, config_.selfplay().precision());
    generation_ = generation;
    const bool first = net_id_.empty();
    net_id_ = fmt::format("best-{:04d}", generation);
    if (!first) log_.Info(fmt::format("playing with {} ({})", net_id_, path.string()));
    return true;
  }

  void WriteChunk() {
    if (pending_.empty()) return;
    const std::string path =
        (dir_ / "records" / WorkerRecordChunkName(worker_, next_chunk_)).string();
    WriteRecordChunk(path, pending_);
    ++next_chunk_;
    ++chunks_;
    int64_t positions = 0, plies = 0;
    for (const proto::GameRecord& record : pending_) {
      plies += record.moves_size();
      for (const proto::MoveRecord& move : record.moves()) positions += move.has_target();
    }
    games_ += int64_t(pending_.size());
    positions_ += positions;
    const ActorStats& s = actors_->stats();
    metrics_.Write({{"type", "selfplay"},
                    {"time", nets::UtcNow()},
                    {"worker", worker_},
                    {"net", net_id_},
                    {"chunk", path},
                    {"games", games_},
                    {"positions", positions_},
                    {"positions_per_second", Rate()},
                    {"mean_plies", double(plies) / double(pending_.size())},
                    {"mean_batch", s.rounds > 0 ? double(s.evaluated) / double(s.rounds) : 0.0},
                    {"white_wins", s.white_wins},
                    {"draws", s.draws},
                    {"black_wins", s.black_wins},
                    {"resigned", s.resigned},
                    {"adjudicated", s.adjudicated},
                    {"false_resignations", s.false_resignations},
                    {"would_have_resigned", s.would_have_resigned}});
    log_.Info(fmt::format("{}: {} games ({} positions) with {}; {} games, {:.2f} positions/s", path,
                          pending_.size(), positions, net_id_, games_, Rate()));
    pending_.clear();
  }

  const SelfPlayWorkerRequest& request_;
  proto::TrainConfig config_;
  fs::path dir_;
  std::string worker_;
  RunLog& log_;
  MetricsFile metrics_;
  std::string device_;
  std::unique_ptr<Evaluator<G>> evaluator_;
  std::unique_ptr<SelfPlayActors<G>> actors_;
  std::vector<proto::GameRecord> pending_;
  int generation_ = -1;
  std::string net_id_;
  int64_t next_chunk_ = 0, next_index_ = 0;
  int64_t games_ = 0, positions_ = 0, chunks_ = 0;
  double selfplay_seconds_ = 0;
};

}  // namespace

SelfPlayWorkerOutcome RunSelfPlayWorker(const SelfPlayWorkerRequest& request) {
  const std::string worker = request.worker_id.empty() ? DefaultWorkerId() : request.worker_id;
  CheckWorkerId(worker);
  CreateRunDirectories(request.run_dir, {"records", "nets", "logs"});
  RunLog log((fs::path(request.run_dir) / "logs" / fmt::format("selfplay-{}.log", worker)).string(),
             request.live);
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
    SelfPlayWorker<G> run(request, *config, worker, log);
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
