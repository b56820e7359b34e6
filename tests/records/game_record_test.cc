// Record chunk files (records/game_record.h): round trip, atomic naming, every kind of damage
// reported with the file's path, worker chunk names and their listing.

#include "records/game_record.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/core/zobrist.h"
#include "tests/test_util.h"

namespace vz {
namespace {

using testing::ErrorOf;

// A fresh directory under the system's temporary directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "vz-record-XXXXXX").string();
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Pseudo-random records with every field set (SplitMix64 from `seed`).
std::vector<proto::GameRecord> MakeRecords(int count, uint64_t seed) {
  std::vector<proto::GameRecord> records;
  for (int g = 0; g < count; ++g) {
    proto::GameRecord record;
    record.set_game(g % 2 ? "chad" : "portuguese-draughts");
    record.set_rules_version(1);
    record.set_net_id("best-" + std::to_string(g));
    record.set_config_hash(seed = SplitMix64(seed));
    record.set_start_fen(g % 3 ? "" : "some fen " + std::to_string(g));
    const int plies = int((seed = SplitMix64(seed)) % 120);
    for (int ply = 0; ply < plies; ++ply) {
      proto::MoveRecord* move = record.add_moves();
      move->set_move("m" + std::to_string(ply));
      move->set_has_target(ply >= 2);
      for (int k = 0; k < 5; ++k) {
        move->add_policy_index(uint32_t((seed = SplitMix64(seed)) % 4096));
        move->add_policy_target(0.2f);
      }
      for (int k = 0; k < 3; ++k) move->add_root_wdl(float(k) / 3);
      move->set_raw_value(0.25f);
    }
    record.set_result(int(seed % 3) - 1);
    record.set_reason("checkmate");
    record.set_adjudicated(g % 2);
    record.set_resigned(g % 3 == 1);
    record.set_resign_disabled(g % 5 == 0);
    record.set_index(uint64_t(g) + 1000);
    record.set_worker("worker-1");
    records.push_back(record);
  }
  return records;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(GameRecordTest, ChunkNames) {
  EXPECT_EQ(RecordChunkName(0), "chunk-000000.vzr");
  EXPECT_EQ(RecordChunkName(12), "chunk-000012.vzr");
  EXPECT_EQ(RecordChunkName(1234567), "chunk-1234567.vzr");
  EXPECT_NE(ErrorOf([] { RecordChunkName(-1); }).find("-1"), std::string::npos);
}

TEST(GameRecordTest, RoundTrip) {
  TempDir dir;
  for (int count : {0, 1, 7, 40}) {
    const std::vector<proto::GameRecord> records = MakeRecords(count, uint64_t(count) + 5);
    const std::string path = dir.File(RecordChunkName(count));
    WriteRecordChunk(path, records);
    const std::vector<proto::GameRecord> read = ReadRecordChunk(path);
    ASSERT_EQ(read.size(), records.size());
    for (size_t i = 0; i < records.size(); ++i) {
      EXPECT_EQ(read[i].SerializeAsString(), records[i].SerializeAsString()) << "record " << i;
    }
  }
  // Rewriting a path replaces the chunk; no temporary file stays behind.
  const std::string path = dir.File(RecordChunkName(1));
  WriteRecordChunk(path, MakeRecords(3, 99));
  EXPECT_EQ(ReadRecordChunk(path).size(), 3u);
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(entry.path().extension(), ".vzr") << entry.path();
  }
}

TEST(GameRecordTest, WriteToMissingDirectoryNamesThePath) {
  TempDir dir;
  const std::string path = dir.File("missing/chunk-000001.vzr");
  EXPECT_NE(ErrorOf([&] { WriteRecordChunk(path, MakeRecords(1, 1)); }).find(path),
            std::string::npos);
}

// Every damaged file is an error that names the path and what is wrong.
TEST(GameRecordTest, DamageIsReportedWithThePath) {
  TempDir dir;
  const std::string good = dir.File("good.vzr");
  WriteRecordChunk(good, MakeRecords(6, 3));
  const std::string bytes = ReadBytes(good);
  ASSERT_GT(bytes.size(), 100u);
  const std::string bad = dir.File("bad.vzr");
  auto error_of = [&](const std::string& contents) {
    WriteBytes(bad, contents);
    const std::string error = ErrorOf([&] { ReadRecordChunk(bad); });
    EXPECT_NE(error.find(bad), std::string::npos) << error;
    return error;
  };

  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_NE(error_of("VZRX" + bytes.substr(4)).find("magic"), std::string::npos);
  EXPECT_NE(error_of("junk").find("magic"), std::string::npos);
  EXPECT_NE(error_of(bytes.substr(0, 10)).find("truncated"), std::string::npos);
  EXPECT_NE(error_of(bytes + "x").find("trailing"), std::string::npos);
  // Cut anywhere inside the records: truncated.
  for (size_t size : {size_t(16), size_t(20), bytes.size() / 2, bytes.size() - 1}) {
    EXPECT_NE(error_of(bytes.substr(0, size)).find("truncated"), std::string::npos) << size;
  }
  // A flipped byte anywhere is caught (header checksum, record checksum, or sizes that no longer
  // add up): every byte of the header and the first record's start, then ~100 spread out.
  for (size_t at = 0; at < bytes.size(); at += at < 64 ? 1 : bytes.size() / 97) {
    std::string flipped = bytes;
    flipped[at] = char(flipped[at] ^ 0x10);
    EXPECT_NE(error_of(flipped), "") << "flipped byte " << at;
  }
  std::string flipped = bytes;
  flipped[bytes.size() - 3] = char(flipped[bytes.size() - 3] ^ 1);
  EXPECT_NE(error_of(flipped).find("checksum mismatch"), std::string::npos);

  const std::string missing = dir.File("missing.vzr");
  EXPECT_NE(ErrorOf([&] { ReadRecordChunk(missing); }).find(missing), std::string::npos);
  EXPECT_NE(ReadRecordChunk(good).size(), 0u);  // the original is still fine
}

TEST(GameRecordTest, ListIgnoresTemporaryAndOtherFiles) {
  TempDir dir;
  EXPECT_TRUE(ListRecordChunks(dir.File("absent")).empty());
  EXPECT_TRUE(ListRecordChunks(dir.path()).empty());
  for (int number : {12, 3, 1000001, 7}) WriteRecordChunk(dir.File(RecordChunkName(number)), {});
  WriteBytes(dir.File("chunk-000005.vzr.tmp.123.ab"), "half");
  WriteBytes(dir.File("chunk-00x005.vzr"), "");
  WriteBytes(dir.File("chunk-.vzr"), "");
  WriteBytes(dir.File("notes.txt"), "");
  std::filesystem::create_directory(dir.File("chunk-000009.vzr"));
  const std::vector<std::string> expected = {
      dir.File("chunk-000003.vzr"), dir.File("chunk-000007.vzr"), dir.File("chunk-000012.vzr"),
      dir.File("chunk-1000001.vzr")};
  EXPECT_EQ(ListRecordChunks(dir.path()), expected);
  EXPECT_EQ(ListRecordChunks(dir.path() + "/"), expected);
}

// Worker chunk names (`vzero selfplay`) and their listing next to `vzero train`'s chunks.
class GameRecordDirTest : public testing::TempDirTest {};

TEST_F(GameRecordDirTest, WorkerChunkNames) {
  EXPECT_EQ(WorkerRecordChunkName("w1", 12), "chunk-w1-000012.vzr");
  EXPECT_EQ(WorkerRecordChunkName("node-07.a_b", 1234567), "chunk-node-07.a_b-1234567.vzr");
  for (const char* bad : {"", "1abc", "-x", "a/b", "a b", "ü"}) {
    EXPECT_NE(ErrorOf([&] { WorkerRecordChunkName(bad, 0); }).find("worker id"), std::string::npos)
        << bad;
  }
  EXPECT_NE(ErrorOf([] { CheckWorkerId(std::string(65, 'a')); }).find("64"), std::string::npos);
  EXPECT_NE(ErrorOf([] { WorkerRecordChunkName("w", -1); }).find("-1"), std::string::npos);

  auto parse = [](const char* name) { return ParseRecordChunkName(name); };
  ASSERT_TRUE(parse("chunk-000012.vzr"));
  EXPECT_EQ(parse("chunk-000012.vzr")->worker, "");
  EXPECT_EQ(parse("chunk-000012.vzr")->number, 12);
  ASSERT_TRUE(parse("chunk-node-07-000003.vzr"));
  EXPECT_EQ(parse("chunk-node-07-000003.vzr")->worker, "node-07");
  EXPECT_EQ(parse("chunk-node-07-000003.vzr")->number, 3);
  for (const char* other :
       {"chunk-w1-000003.vzr.tmp.77.1", "chunk-w1-.vzr", "chunk--000003.vzr", "chunk-1w-000003.vzr",
        "chunk-w1-00x003.vzr", "chunk-.vzr", "chunkw1-000003.vzr", "chunk-w1-000003.vz"}) {
    EXPECT_FALSE(parse(other)) << other;
  }
}

TEST_F(GameRecordDirTest, ListingHoldsNumberedThenWorkerChunks) {
  for (int number : {3, 1}) WriteRecordChunk(File(RecordChunkName(number)), {});
  WriteRecordChunk(File(WorkerRecordChunkName("wb", 0)), {});
  WriteRecordChunk(File(WorkerRecordChunkName("wa", 10)), {});
  WriteRecordChunk(File(WorkerRecordChunkName("wa", 2)), {});
  std::ofstream(File("chunk-wa-000004.vzr.tmp.123.9")) << "half";
  const std::vector<std::string> expected = {
      File("chunk-000001.vzr"), File("chunk-000003.vzr"), File("chunk-wa-000002.vzr"),
      File("chunk-wa-000010.vzr"), File("chunk-wb-000000.vzr")};
  EXPECT_EQ(ListRecordChunks(dir_.string()), expected);
}

}  // namespace
}  // namespace vz
