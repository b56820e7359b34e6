#pragma once

// The trainer's reading of a run's self-play records (selfplay/cluster.h, `vzero trainer`): the
// record chunks of RUN/records not read before, every game counted once by (worker, index), and
// this rank's shard of the new games fed to its replay window (selfplay/replay_window.h), whose
// size follows the positions the run has produced. Every rank of a trainer reads the same chunk
// names in the same order (rank 0 lists them and broadcasts the list), so that all agree on the
// counts. Not thread-safe.

#include <fmt/core.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game.h"
#include "proto/train.pb.h"
#include "selfplay/replay_window.h"
#include "selfplay/run_dir.h"

namespace vz {

// What a trainer rank has read since it started (a restart reads the whole run again).
struct IngestCounts {
  int64_t games = 0;       // games read, each counted once
  int64_t positions = 0;   // their positions with a training target
  int64_t plies = 0;       // their moves
  int64_t chunks = 0;      // chunk files read
  int64_t duplicates = 0;  // games read again (counted once)
};

// A game of this rank's shard and where it came from ("RUN/records/chunk-... game 5").
struct ShardGame {
  proto::GameRecord record;
  std::string source;
};

// Reads the record chunks of one run for one trainer rank of `world_size`. Warnings go to `log`
// ("warning: ..."), only on rank 0 (the other ranks read the same files).
class RecordIngester {
 public:
  RecordIngester(std::string records_dir, int rank, int world_size, RunLog& log);

  // Rank 0: the chunk files of the records folder (ListRecordChunks) not named before, oldest
  // first (modification time, then name: the order in which they were finished, as near as a
  // shared filesystem tells). Each is named once. Throws what ListRecordChunks throws.
  std::vector<std::string> NewChunkFiles();

  // Reads the chunks `names` (file names in the records folder, in order), counts their games
  // into counts() and returns the new games of this rank's shard (the games whose
  // (worker, index) hash falls to this rank), oldest first. A game read before is counted as a
  // duplicate and warned of; a chunk that does not read is skipped with a warning (nothing of
  // it is counted).
  std::vector<ShardGame> Read(const std::vector<std::string>& names);

  const IngestCounts& counts() const { return counts_; }

 private:
  void ReadChunk(const std::string& name, std::vector<ShardGame>& shard);
  void Warn(const std::string& text);

  std::string records_dir_;
  int rank_;
  int world_size_;
  RunLog& log_;
  std::set<std::string> listed_;                     // chunk files named so far (rank 0)
  std::set<std::pair<std::string, uint64_t>> seen_;  // (worker, index) of every game read
  IngestCounts counts_;
};

// Resizes `window` to the config's size after `produced` positions (ReplayWindowSize over
// `world_size` shards) and adds the games of `shard` (oldest first) that it will still hold: the
// older ones of a long backlog are not replayed. A game the window refuses (ReplayWindow::AddGame's
// vz::Error) is not used for training; `log` gets a warning naming it, on every rank.
template <Game G>
void FeedReplayWindow(ReplayWindow<G>& window, const proto::ReplayConfig& replay, int64_t produced,
                      int world_size, const std::vector<ShardGame>& shard, RunLog& log) {
  window.Resize(ReplayWindowSize(replay, produced, world_size));
  std::vector<int64_t> targets(shard.size(), 0);
  for (size_t i = 0; i < shard.size(); ++i) {
    for (const proto::MoveRecord& move : shard[i].record.moves()) targets[i] += move.has_target();
  }
  for (size_t i = window.OldestKept(targets); i < shard.size(); ++i) {
    try {
      window.AddGame(shard[i].record, shard[i].source);
    } catch (const Error& e) {
      log.Info(fmt::format("warning: game {} of {} not used for training: {}",
                           shard[i].record.index(), shard[i].record.worker(), e.what()));
    }
  }
}

}  // namespace vz
