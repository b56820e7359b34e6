// The trainer's record ingester (selfplay/trainer_ingest.h): every game counted once, the
// shards of the ranks a partition of the games, each chunk named once, a damaged chunk skipped.
// The expected counts are worked by hand from the records written here.

#include "selfplay/trainer_ingest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "records/game_record.h"
#include "tests/test_util.h"

namespace vz {
namespace {

// A record of game `index` of `worker` with `targets` moves that carry a training target and
// `others` that do not (the ingester counts; it does not replay the moves).
proto::GameRecord Record(const std::string& worker, uint64_t index, int targets, int others) {
  proto::GameRecord record;
  record.set_game("chaco-rex");
  record.set_worker(worker);
  record.set_index(index);
  for (int k = 0; k < targets + others; ++k) record.add_moves()->set_has_target(k < targets);
  return record;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class RecordIngesterTest : public testing::TempDirTest {};

TEST_F(RecordIngesterTest, CountsEveryGameOnceAndSplitsTheShards) {
  const std::string records = File("records");
  std::filesystem::create_directories(records);
  WriteRecordChunk(records + "/" + RecordChunkName(1),
                   {Record("a", 0, 3, 1), Record("a", 1, 2, 0), Record("b", 0, 1, 0)});
  // Game 1 of worker a again (a chunk written twice by a worker killed after its rename).
  WriteRecordChunk(records + "/" + RecordChunkName(2),
                   {Record("a", 1, 2, 0), Record("b", 1, 4, 0)});
  std::ofstream(records + "/" + RecordChunkName(3)) << "not a chunk";

  RunLog log0(File("rank0.log"), false), log1(File("rank1.log"), false);
  RecordIngester rank0(records, 0, 2, log0), rank1(records, 1, 2, log1);
  const std::vector<std::string> names = rank0.NewChunkFiles();
  EXPECT_EQ(names.size(), 3u);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()),
            (std::set<std::string>{RecordChunkName(1), RecordChunkName(2), RecordChunkName(3)}));
  EXPECT_TRUE(rank0.NewChunkFiles().empty()) << "a chunk is named once";

  const std::vector<ShardGame> shard0 = rank0.Read(names), shard1 = rank1.Read(names);
  for (const RecordIngester* ingester : {&rank0, &rank1}) {
    const IngestCounts& counts = ingester->counts();
    EXPECT_EQ(counts.games, 4);
    EXPECT_EQ(counts.duplicates, 1);
    EXPECT_EQ(counts.chunks, 2);      // the damaged one is skipped
    EXPECT_EQ(counts.positions, 10);  // 3 + 2 + 1 + 4
    EXPECT_EQ(counts.plies, 11);      // 4 + 2 + 1 + 4
  }
  // The shards are a partition of the four games.
  std::multiset<std::pair<std::string, uint64_t>> games;
  for (const auto* shard : {&shard0, &shard1}) {
    for (const ShardGame& game : *shard) {
      games.emplace(game.record.worker(), game.record.index());
      EXPECT_NE(game.source.find("records/chunk-00000"), std::string::npos) << game.source;
    }
  }
  EXPECT_EQ(games, (std::multiset<std::pair<std::string, uint64_t>>{
                       {"a", 0}, {"a", 1}, {"b", 0}, {"b", 1}}));

  // Rank 0 warns of the duplicate and the damaged chunk; rank 1 reads the same files silently.
  const std::string warnings = ReadText(File("rank0.log"));
  EXPECT_NE(warnings.find("game 1 of worker 'a' was read before"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("skipping record file"), std::string::npos) << warnings;
  EXPECT_EQ(ReadText(File("rank1.log")), "");
}

}  // namespace
}  // namespace vz
