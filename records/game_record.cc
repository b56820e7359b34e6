#include "records/game_record.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string_view>
#include <tuple>
#include <utility>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"

namespace vz {
namespace {

constexpr char kMagic[4] = {'V', 'Z', 'R', 'C'};
constexpr size_t kHeaderBytes = 16;
constexpr size_t kRecordHeaderBytes = 12;
// No game record comes near this; a larger size field is corruption, not a reason to allocate.
constexpr uint32_t kMaxRecordBytes = uint32_t{1} << 28;

void PutU32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint32_t GetU32(std::string_view bytes, size_t offset) {
  uint32_t value = 0;
  for (int i = 0; i < 4; ++i) value |= uint32_t(uint8_t(bytes[offset + i])) << (8 * i);
  return value;
}

uint32_t Crc32(std::string_view bytes, uint32_t crc = 0) {
  // zlib's crc32 takes lengths as uInt; records are far below 4 GiB (kMaxRecordBytes).
  return static_cast<uint32_t>(
      crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

std::string SystemError() { return std::strerror(errno); }

// The number of a chunk file name "chunk-<digits>.vzr", or -1 for any other name.
int64_t ChunkNumber(std::string_view name) {
  constexpr std::string_view kPrefix = "chunk-", kSuffix = ".vzr";
  if (name.size() <= kPrefix.size() + kSuffix.size() || name.substr(0, kPrefix.size()) != kPrefix ||
      name.substr(name.size() - kSuffix.size()) != kSuffix) {
    return -1;
  }
  const std::string_view digits =
      name.substr(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size());
  if (digits.size() > 18) return -1;
  int64_t number = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    number = number * 10 + (c - '0');
  }
  return number;
}

std::string Serialize(const std::vector<proto::GameRecord>& records, const std::string& path) {
  if (records.size() > std::numeric_limits<uint32_t>::max()) {
    throw Error(fmt::format("{}: too many records ({})", path, records.size()));
  }
  std::string out(kMagic, sizeof(kMagic));
  PutU32(out, kRecordChunkVersion);
  PutU32(out, static_cast<uint32_t>(records.size()));
  PutU32(out, Crc32(out));
  std::string serialized, compressed, checked;
  for (size_t i = 0; i < records.size(); ++i) {
    if (!records[i].SerializeToString(&serialized) || serialized.size() > kMaxRecordBytes) {
      throw Error(fmt::format("{}: record {} cannot be serialized ({} bytes)", path, i,
                              records[i].ByteSizeLong()));
    }
    uLongf compressed_size = compressBound(static_cast<uLong>(serialized.size()));
    compressed.resize(compressed_size);
    if (compress2(reinterpret_cast<Bytef*>(compressed.data()), &compressed_size,
                  reinterpret_cast<const Bytef*>(serialized.data()),
                  static_cast<uLong>(serialized.size()), Z_DEFAULT_COMPRESSION) != Z_OK) {
      throw Error(fmt::format("{}: record {} cannot be compressed", path, i));
    }
    compressed.resize(compressed_size);
    checked.clear();
    PutU32(checked, static_cast<uint32_t>(serialized.size()));
    checked += compressed;
    PutU32(out, static_cast<uint32_t>(compressed.size()));
    PutU32(out, static_cast<uint32_t>(serialized.size()));
    PutU32(out, Crc32(checked));
    out += compressed;
  }
  return out;
}

}  // namespace

std::string RecordChunkName(int64_t number) {
  if (number < 0) throw Error(fmt::format("record chunk number {} is negative", number));
  return fmt::format("chunk-{:06d}.vzr", number);
}

void WriteRecordChunk(const std::string& path, const std::vector<proto::GameRecord>& records) {
  WriteFileAtomically(path, Serialize(records, path));
}

std::vector<proto::GameRecord> ReadRecordChunk(const std::string& path) {
  constexpr uint64_t kMaxChunkBytes = uint64_t{4} << 30;
  const std::string bytes = ReadWholeFile(path, "record chunk", kMaxChunkBytes);
  const std::string_view view(bytes);

  if (view.empty()) throw Error(fmt::format("{}: empty record chunk", path));
  if (view.size() < sizeof(kMagic) ||
      view.substr(0, sizeof(kMagic)) != std::string_view(kMagic, 4)) {
    throw Error(fmt::format("{}: not a record chunk (bad magic)", path));
  }
  if (view.size() < kHeaderBytes) throw Error(fmt::format("{}: truncated header", path));
  if (Crc32(view.substr(0, 12)) != GetU32(view, 12)) {
    throw Error(fmt::format("{}: header checksum mismatch", path));
  }
  const uint32_t version = GetU32(view, 4);
  if (version != kRecordChunkVersion) {
    throw Error(fmt::format("{}: unknown record chunk version {} (this build reads {})", path,
                            version, kRecordChunkVersion));
  }
  const uint32_t count = GetU32(view, 8);

  std::vector<proto::GameRecord> records;
  size_t offset = kHeaderBytes;
  std::string serialized;
  for (uint32_t i = 0; i < count; ++i) {
    if (view.size() - offset < kRecordHeaderBytes) {
      throw Error(fmt::format("{}: truncated at record {} of {}", path, i, count));
    }
    const uint32_t compressed_size = GetU32(view, offset);
    const uint32_t serialized_size = GetU32(view, offset + 4);
    const uint32_t crc = GetU32(view, offset + 8);
    offset += kRecordHeaderBytes;
    if (view.size() - offset < compressed_size) {
      throw Error(fmt::format("{}: truncated at record {} of {}", path, i, count));
    }
    const std::string_view compressed = view.substr(offset, compressed_size);
    offset += compressed_size;
    std::string size_bytes;
    PutU32(size_bytes, serialized_size);
    if (Crc32(compressed, Crc32(size_bytes)) != crc) {
      throw Error(fmt::format("{}: checksum mismatch in record {}", path, i));
    }
    if (serialized_size > kMaxRecordBytes) {
      throw Error(fmt::format("{}: record {} claims {} bytes", path, i, serialized_size));
    }
    serialized.resize(serialized_size);
    uLongf size = serialized_size;
    if (uncompress(reinterpret_cast<Bytef*>(serialized.data()), &size,
                   reinterpret_cast<const Bytef*>(compressed.data()),
                   static_cast<uLong>(compressed.size())) != Z_OK ||
        size != serialized_size) {
      throw Error(fmt::format("{}: record {} does not decompress", path, i));
    }
    proto::GameRecord record;
    if (!record.ParseFromString(serialized)) {
      throw Error(fmt::format("{}: record {} does not parse as a GameRecord", path, i));
    }
    records.push_back(std::move(record));
  }
  if (offset != view.size()) {
    throw Error(
        fmt::format("{}: {} trailing bytes after record {}", path, view.size() - offset, count));
  }
  return records;
}

std::vector<std::string> ListRecordChunks(const std::string& directory) {
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) {
    if (errno == ENOENT) return {};
    throw Error(fmt::format("{}: cannot list the directory ({})", directory, SystemError()));
  }
  // Numbered chunks (worker "") sort before the workers' chunks.
  std::vector<std::tuple<std::string, int64_t, std::string>> chunks;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    std::optional<RecordChunkId> id = ParseRecordChunkName(name);
    if (!id) continue;
    const std::string path =
        directory.empty() || directory.back() == '/' ? directory + name : directory + "/" + name;
    struct stat info;
    if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    chunks.emplace_back(std::move(id->worker), id->number, path);
  }
  ::closedir(dir);
  std::sort(chunks.begin(), chunks.end());
  std::vector<std::string> paths;
  paths.reserve(chunks.size());
  for (auto& [worker, number, path] : chunks) paths.push_back(std::move(path));
  return paths;
}

void CheckWorkerId(std::string_view worker) {
  auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (worker.empty() || worker.size() > 64) {
    throw Error(fmt::format("worker id '{}': expected 1 to 64 characters", worker));
  }
  if (!letter(worker[0])) {
    throw Error(fmt::format("worker id '{}': must start with a letter", worker));
  }
  for (char c : worker) {
    if (!letter(c) && !(c >= '0' && c <= '9') && c != '.' && c != '_' && c != '-') {
      throw Error(fmt::format("worker id '{}': only letters, digits, '.', '_' and '-' are allowed",
                              worker));
    }
  }
}

std::string WorkerRecordChunkName(std::string_view worker, int64_t number) {
  CheckWorkerId(worker);
  if (number < 0) throw Error(fmt::format("record chunk number {} is negative", number));
  return fmt::format("chunk-{}-{:06d}.vzr", worker, number);
}

std::optional<RecordChunkId> ParseRecordChunkName(std::string_view file_name) {
  const int64_t number = ChunkNumber(file_name);
  if (number >= 0) return RecordChunkId{"", number};
  // chunk-<worker>-<digits>.vzr: the worker id runs to the last '-'.
  constexpr std::string_view kPrefix = "chunk-", kSuffix = ".vzr";
  if (file_name.size() <= kPrefix.size() + kSuffix.size() ||
      file_name.substr(0, kPrefix.size()) != kPrefix ||
      file_name.substr(file_name.size() - kSuffix.size()) != kSuffix) {
    return std::nullopt;
  }
  const std::string_view middle =
      file_name.substr(kPrefix.size(), file_name.size() - kPrefix.size() - kSuffix.size());
  const size_t dash = middle.rfind('-');
  if (dash == std::string_view::npos || dash == 0) return std::nullopt;
  const std::string_view worker = middle.substr(0, dash);
  const int64_t worker_number =
      ChunkNumber(std::string("chunk-") + std::string(middle.substr(dash + 1)) + ".vzr");
  if (worker_number < 0) return std::nullopt;
  try {
    CheckWorkerId(worker);
  } catch (const Error&) {
    return std::nullopt;
  }
  return RecordChunkId{std::string(worker), worker_number};
}

}  // namespace vz
