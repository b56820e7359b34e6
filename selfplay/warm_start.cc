#include "selfplay/warm_start.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "arena/player.h"
#include "engine/core/clock.h"
#include "engine/core/error.h"
#include "engine/games.h"
#include "records/game_record.h"
#include "selfplay/run_dir.h"
#include "selfplay/train_config.h"

namespace vz {

float ScoreValue(int score, float scale) {
  if (score > kMateBound) return 1.0f;
  if (score < -kMateBound) return -1.0f;
  return std::tanh(float(score) / scale);
}

namespace {

template <Game G>
WarmStartOutcome PlayMissingChunks(const proto::TrainConfig& config, const std::string& records,
                                   int depth, int threads, RunLog& log,
                                   const std::atomic<bool>& stop) {
  const int64_t games = int64_t(config.warm_start().games());
  const int64_t per_chunk = std::max<int64_t>(1, config.selfplay().games_per_chunk());
  const int64_t chunks = (games + per_chunk - 1) / per_chunk;
  std::set<int64_t> present;
  for (const std::string& path : ListRecordChunks(records)) {
    const auto id = ParseRecordChunkName(std::filesystem::path(path).filename().string());
    if (id && id->worker == kWarmStartWorker) present.insert(id->number);
  }
  WarmStartOutcome outcome;
  for (const int64_t number : present) outcome.kept_chunks += number < chunks;
  if (outcome.kept_chunks == chunks) return outcome;
  log.Info(fmt::format(
      "warm start: {} games of {} from {} random plies ({} of {} chunks already written)", games,
      config.warm_start().player(), config.warm_start().random_opening_plies(),
      outcome.kept_chunks, chunks));

  const uint64_t config_hash = TrainConfigHash(config);
  const auto start = std::chrono::steady_clock::now();
  std::atomic<int64_t> next{0};
  std::mutex mutex;  // guards outcome and first_error
  std::exception_ptr first_error;
  auto work = [&] {
    try {
      AlphaBeta<G> search;
      for (int64_t chunk = next++; chunk < chunks && !stop; chunk = next++) {
        if (present.count(chunk)) continue;
        std::vector<proto::GameRecord> written;
        int64_t positions = 0;
        for (int64_t k = chunk * per_chunk; k < std::min(games, (chunk + 1) * per_chunk); ++k) {
          if (stop) return;  // a chunk is written whole or not at all
          const uint64_t seed = SplitMix64(config.seed() ^ SplitMix64(uint64_t(k) + 1));
          written.push_back(PlayWarmStartGame<G>(config, search, depth, seed, k));
          written.back().set_config_hash(config_hash);
          for (const proto::MoveRecord& move : written.back().moves())
            positions += move.has_target();
        }
        const std::string path =
            (std::filesystem::path(records) / WorkerRecordChunkName(kWarmStartWorker, chunk))
                .string();
        WriteRecordChunk(path, written);
        const std::lock_guard lock(mutex);
        outcome.games += int64_t(written.size());
        outcome.positions += positions;
        log.Info(fmt::format("warm start: {} games, {} positions played ({:.0f} s)",
                             outcome.games, outcome.positions, SecondsSince(start)));
      }
    } catch (...) {
      const std::lock_guard lock(mutex);
      if (!first_error) first_error = std::current_exception();
      next = chunks;  // the other threads stop after their chunk
    }
  };
  if (threads <= 0) threads = std::max(1, int(std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  if (first_error) std::rethrow_exception(first_error);
  outcome.seconds = SecondsSince(start);
  outcome.interrupted = stop.load();
  return outcome;
}

}  // namespace

WarmStartOutcome RunWarmStart(const proto::TrainConfig& config, const std::string& run_dir,
                              int threads, RunLog& log, const std::atomic<bool>& stop) {
  const proto::WarmStartConfig& warm = config.warm_start();
  if (warm.player().empty()) return {};
  const PlayerSpec player = PlayerSpec::Parse(warm.player());
  if (player.kind != "alphabeta") {
    throw Error(fmt::format("config key warm_start.player: '{}' is not alphabeta:DEPTH",
                            warm.player()));
  }
  const std::string records = (std::filesystem::path(run_dir) / "records").string();
  WarmStartOutcome outcome;
  WithGame(config.variant(), [&]<Game G>() {
    outcome = PlayMissingChunks<G>(config, records, player.value, threads, log, stop);
  });
  return outcome;
}

}  // namespace vz
