// Fuzz target: record chunk files (records/game_record.h) and the replay of their games into the
// training window (selfplay/replay_window.h), the path every self-play game takes to the trainer.
// Input: byte 0 chooses the mode:
//   even: the rest is a whole chunk file (header and checksums as given);
//   odd:  the rest, split at each "\n--\n", is the protobuf binary of one GameRecord per part;
//         they get a valid chunk around them (compressed, checksummed), so that inputs reach the
//         protobuf parse and the replay instead of stopping at a checksum.
// Every record read is added to a ReplayWindow of its game (if its game is a known one) and a
// batch is sampled. Checks: bad bytes and bad records are a vz::Error; a sampled batch's policy
// rows sum to 1 and have no mass on an illegal move.

#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"
#include "records/game_record.h"
#include "selfplay/replay_window.h"
#include "tests/fuzz/fuzz_util.h"

namespace vz::fuzz {
namespace {

void PutU32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(char((value >> (8 * i)) & 0xff));
}

uint32_t Crc(std::string_view bytes, uint32_t crc = 0) {
  return uint32_t(crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), uInt(bytes.size())));
}

// A chunk (layout of records/game_record.h) around the serialized records `parts`.
std::string Chunk(const std::vector<std::string_view>& parts) {
  std::string bytes = "VZRC";
  PutU32(bytes, kRecordChunkVersion);
  PutU32(bytes, uint32_t(parts.size()));
  PutU32(bytes, Crc(bytes));
  for (std::string_view part : parts) {
    std::string compressed(compressBound(uLong(part.size())), '\0');
    uLongf length = uLongf(compressed.size());
    compress2(reinterpret_cast<Bytef*>(compressed.data()), &length,
              reinterpret_cast<const Bytef*>(part.data()), uLong(part.size()), 1);
    compressed.resize(length);
    std::string size_bytes;
    PutU32(size_bytes, uint32_t(part.size()));
    PutU32(bytes, uint32_t(compressed.size()));
    bytes += size_bytes;
    PutU32(bytes, Crc(compressed, Crc(size_bytes)));
    bytes += compressed;
  }
  return bytes;
}

template <Game G>
void Replay(const proto::GameRecord& record) {
  ReplayWindow<G> window(2);
  try {
    window.AddGame(record, "fuzz record");
  } catch (const Error&) {
    return;
  }
  if (window.num_positions() == 0) return;
  nets::TrainingBatch batch;
  uint64_t state = 1;
  window.Sample(
      4, [&state] { return state = state * 6364136223846793005ull + 1442695040888963407ull; },
      batch);
  for (int i = 0; i < batch.size; ++i) {
    double sum = 0;
    for (int a = 0; a < G::kNumActions; ++a) {
      const float p = batch.policy[size_t(i) * G::kNumActions + a];
      VZ_FUZZ_CHECK(std::isfinite(p) && p >= 0);
      VZ_FUZZ_CHECK(p == 0 || batch.legal[size_t(i) * G::kNumActions + a] == 1);
      sum += p;
    }
    VZ_FUZZ_CHECK(std::abs(sum - 1.0) < 1e-3);
  }
}

struct Replayer {
  const proto::GameRecord& record;
  template <Game G>
  void operator()() {
    if (record.game() == G::kName) Replay<G>(record);
  }
};

template <class... Gs>
void ReplayAny(const proto::GameRecord& record, GameList<Gs...>) {
  Replayer replayer{record};
  (replayer.template operator()<Gs>(), ...);
}

}  // namespace
}  // namespace vz::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string bytes;
  if (data[0] & 1) {
    std::vector<std::string_view> parts;
    std::string_view text = rest;
    for (size_t end; (end = text.find("\n--\n")) != std::string_view::npos && parts.size() < 16;) {
      parts.push_back(text.substr(0, end));
      text.remove_prefix(end + 4);
    }
    parts.push_back(text);
    bytes = vz::fuzz::Chunk(parts);
  } else {
    bytes.assign(rest);
  }
  static const std::string path = "/tmp/vz-record-chunk-fuzz-" + std::to_string(getpid()) + ".vzr";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
  }
  std::vector<vz::proto::GameRecord> records;
  try {
    records = vz::ReadRecordChunk(path);
  } catch (const vz::Error&) {
    return 0;
  }
  for (const vz::proto::GameRecord& record : records) vz::fuzz::ReplayAny(record, vz::AllGames{});
  return 0;
}
