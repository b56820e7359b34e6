#include "selfplay/trainer_ingest.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "engine/core/fnv.h"
#include "records/game_record.h"

namespace vz {

namespace fs = std::filesystem;

RecordIngester::RecordIngester(std::string records_dir, int rank, int world_size, RunLog& log)
    : records_dir_(std::move(records_dir)), rank_(rank), world_size_(world_size), log_(log) {}

std::vector<std::string> RecordIngester::NewChunkFiles() {
  std::vector<std::tuple<int64_t, std::string>> fresh;
  for (const std::string& path : ListRecordChunks(records_dir_)) {
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

std::vector<ShardGame> RecordIngester::Read(const std::vector<std::string>& names) {
  std::vector<ShardGame> shard;
  for (const std::string& name : names) ReadChunk(name, shard);
  return shard;
}

void RecordIngester::ReadChunk(const std::string& name, std::vector<ShardGame>& shard) {
  const std::string path = (fs::path(records_dir_) / name).string();
  std::vector<proto::GameRecord> records;
  try {
    records = ReadRecordChunk(path);
  } catch (const Error& e) {
    Warn(fmt::format("skipping record file: {}", e.what()));
    return;
  }
  ++counts_.chunks;
  for (size_t i = 0; i < records.size(); ++i) {
    proto::GameRecord& record = records[i];
    if (!seen_.emplace(record.worker(), record.index()).second) {
      ++counts_.duplicates;
      Warn(fmt::format("{}: game {} of worker '{}' was read before; counted once", path,
                       record.index(), record.worker()));
      continue;
    }
    ++counts_.games;
    counts_.plies += record.moves_size();
    for (const proto::MoveRecord& move : record.moves()) counts_.positions += move.has_target();
    const uint64_t key = Fnv1a64(std::to_string(record.index()), Fnv1a64(record.worker() + ":"));
    if (int(key % uint64_t(world_size_)) == rank_) {
      shard.push_back({std::move(record), fmt::format("{} game {}", path, i)});
    }
  }
}

void RecordIngester::Warn(const std::string& text) {
  if (rank_ == 0) log_.Info("warning: " + text);
}

}  // namespace vz
