#include "nets/checkpoint_file.h"

#include <fmt/core.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <iterator>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"

namespace vz::nets {
namespace {

static_assert(std::endian::native == std::endian::little,
              "checkpoints assume a little-endian host");

namespace fs = std::filesystem;

constexpr char kMagic[8] = {'V', 'Z', 'C', 'K', 'P', 'T', '\0', '\1'};
constexpr char kZipMagic[4] = {'P', 'K', '\3', '\4'};
constexpr size_t kHeaderBytes = 24;

uint32_t Crc32(std::string_view bytes) {
  // zlib's crc32 takes lengths as uInt: feed it in pieces below 4 GiB.
  uLong crc = crc32(0L, Z_NULL, 0);
  while (!bytes.empty()) {
    const size_t piece = std::min<size_t>(bytes.size(), size_t(1) << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), uInt(piece));
    bytes.remove_prefix(piece);
  }
  return uint32_t(crc);
}

void PutLittleEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(char((value >> (8 * i)) & 0xff));
}

uint64_t GetLittleEndian(std::string_view bytes, size_t offset, int count) {
  uint64_t value = 0;
  for (int i = 0; i < count; ++i) value |= uint64_t(uint8_t(bytes[offset + i])) << (8 * i);
  return value;
}

// The whole file. Throws vz::Error naming it when it cannot be read.
std::string ReadFile(const std::string& path) {
  constexpr uint64_t kMaxCheckpointBytes = uint64_t{64} << 30;
  return ReadWholeFile(path, "checkpoint", kMaxCheckpointBytes);
}

}  // namespace

std::string FrameCheckpoint(std::string_view archive) {
  std::string out(kMagic, sizeof(kMagic));
  out.reserve(kHeaderBytes + archive.size());
  PutLittleEndian(out, archive.size(), 8);
  PutLittleEndian(out, Crc32(archive), 4);
  PutLittleEndian(out, 0, 4);
  out += archive;
  return out;
}

std::string UnframeCheckpoint(std::string_view bytes, std::string_view source, bool* legacy) {
  if (legacy != nullptr) *legacy = false;
  if (bytes.size() >= sizeof(kZipMagic) &&
      std::memcmp(bytes.data(), kZipMagic, sizeof(kZipMagic)) == 0) {
    if (legacy != nullptr) *legacy = true;
    return std::string(bytes);
  }
  if (bytes.empty()) throw Error(fmt::format("checkpoint {}: the file is empty", source));
  if (bytes.size() < kHeaderBytes) {
    throw Error(fmt::format("checkpoint {}: truncated: {} bytes, the header alone has {}", source,
                            bytes.size(), kHeaderBytes));
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    throw Error(fmt::format("checkpoint {}: not a vzero checkpoint (bad magic)", source));
  }
  const uint64_t length = GetLittleEndian(bytes, 8, 8);
  const uint32_t checksum = uint32_t(GetLittleEndian(bytes, 16, 4));
  const uint64_t available = bytes.size() - kHeaderBytes;
  if (available < length) {
    throw Error(fmt::format(
        "checkpoint {}: truncated: the header announces {} archive bytes, the file has {}", source,
        length, available));
  }
  if (available > length) {
    throw Error(fmt::format("checkpoint {}: {} unexpected bytes after the {}-byte archive", source,
                            available - length, length));
  }
  const std::string_view archive = bytes.substr(kHeaderBytes);
  if (Crc32(archive) != checksum) {
    throw Error(
        fmt::format("checkpoint {}: corrupted: the archive's CRC-32 does not match", source));
  }
  return std::string(archive);
}

std::string PreviousCheckpointPath(const std::string& path) {
  constexpr std::string_view kSuffix = ".ckpt";
  if (path.size() > kSuffix.size() && path.ends_with(kSuffix)) {
    return path.substr(0, path.size() - kSuffix.size()) + ".prev.ckpt";
  }
  return path + ".prev";
}

bool CheckpointExists(const std::string& path) {
  std::error_code error;
  return fs::exists(path, error) || fs::exists(PreviousCheckpointPath(path), error);
}

void WriteCheckpointFile(const std::string& path, std::string_view archive) {
  std::error_code error;
  if (fs::exists(path, error)) {
    std::string current;
    bool good = true;
    try {
      current = ReadFile(path);
      UnframeCheckpoint(current, path, nullptr);
    } catch (const Error&) {
      good = false;
    }
    if (good) WriteFileAtomically(PreviousCheckpointPath(path), current);
  }
  WriteFileAtomically(path, FrameCheckpoint(archive));
}

CheckpointLoad ReadNewestCheckpoint(
    const std::string& path,
    const std::function<void(const std::string& archive, const std::string& file)>& load) {
  CheckpointLoad result;
  std::vector<std::string> faults;
  const std::string files[2] = {path, PreviousCheckpointPath(path)};
  for (const std::string& file : files) {
    std::error_code error;
    if (!fs::exists(file, error)) {
      faults.push_back(fmt::format("{}: missing", file));
      continue;
    }
    try {
      bool legacy = false;
      const std::string archive = UnframeCheckpoint(ReadFile(file), file, &legacy);
      load(archive, file);
      if (legacy) {
        result.warnings.push_back(fmt::format(
            "checkpoint {} has no checksum (written by a vzero from before checksums): loaded "
            "unverified; the next checkpoint will carry one",
            file));
      }
      if (file != path) {
        result.warnings.push_back(fmt::format("checkpoint {} unusable ({}); resumed from {}", path,
                                              faults.front(), file));
      }
      result.path = file;
      return result;
    } catch (const Error& e) {
      faults.push_back(e.what());
    }
  }
  if (faults.size() == 2 && faults[0].ends_with(": missing") && faults[1].ends_with(": missing")) {
    throw Error(fmt::format("checkpoint {}: not found (nor {})", path, files[1]));
  }
  throw Error(
      fmt::format("checkpoint {}: no usable checkpoint left: {}; {}", path, faults[0], faults[1]));
}

}  // namespace vz::nets
