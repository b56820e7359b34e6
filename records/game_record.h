#pragma once

// Record chunk files: the finished self-play games (proto::GameRecord, proto/train.proto) that
// actors append to a run directory's records/ folder, a chunk of games per file, and the trainer
// reads back. A chunk is written by the project's one atomic writer (engine/core/atomic_file.h:
// a temporary name in the same directory, fsync'd, renamed, the directory fsync'd), so a reader
// never sees a half-written chunk under its final name, whenever the writer is killed (the scheme
// of KataGo's self-play data files).
//
// File layout (all integers little-endian unsigned 32-bit):
//   offset 0   magic "VZRC"
//          4   format version (kRecordChunkVersion = 1)
//          8   N, the number of records
//         12   CRC-32 (zlib's crc32) of bytes 0..11
//         16   N records, each:
//                compressed length C
//                serialized length S (the GameRecord's protobuf binary size)
//                CRC-32 of the 4 bytes of S followed by the C compressed bytes
//                C bytes: zlib stream (compress2) of the GameRecord's binary serialization
//   end of file right after the last record (trailing bytes are an error).
//
// Thread-safety: the functions share no state; two writers must not write the same path.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/train.pb.h"

namespace vz {

inline constexpr uint32_t kRecordChunkVersion = 1;

// "chunk-000012.vzr": the name of chunk `number` (zero-padded to 6 digits, more digits beyond
// 999999). Throws vz::Error for a negative number.
std::string RecordChunkName(int64_t number);

// Writes `records` (any number, 0 included) to `path` atomically (vz::WriteFileAtomically,
// replacing an existing file). Throws vz::Error naming the path (and the system's reason) if the
// directory does not exist, a write fails (full disk) or a record does not serialize; the temporary
// file is removed then.
void WriteRecordChunk(const std::string& path, const std::vector<proto::GameRecord>& records);

// Reads every record of the chunk at `path`, in the order written. Throws vz::Error naming the
// path and what is wrong: cannot be read, empty, bad magic, unknown version, header checksum
// mismatch, truncated (naming the record), checksum mismatch of a record, a record that does not
// decompress or parse, trailing bytes.
std::vector<proto::GameRecord> ReadRecordChunk(const std::string& path);

// Full paths ("<directory>/chunk-000012.vzr") of the chunk files in `directory`: regular files
// named chunk-<digits>.vzr, in increasing order of their number (which is name order for numbers
// below 1000000), then the self-play workers' chunk-<worker>-<digits>.vzr (WorkerRecordChunkName)
// ordered by worker id, then number. Temporary files and anything else are ignored; a missing
// directory gives an empty list. Throws vz::Error naming the directory if it exists but cannot be
// listed.
std::vector<std::string> ListRecordChunks(const std::string& directory);

// --- chunks of separate self-play workers (`vzero selfplay`, selfplay/cluster.h) ---------------

// Throws vz::Error naming `worker` unless it is a valid worker id: 1 to 64 characters of
// [A-Za-z0-9._-], the first a letter (so that chunk-<worker>-<digits>.vzr never reads as a
// numbered chunk).
void CheckWorkerId(std::string_view worker);

// "chunk-w1-000012.vzr": chunk `number` of worker `worker`. Throws vz::Error for a bad worker id
// (CheckWorkerId) or a negative number.
std::string WorkerRecordChunkName(std::string_view worker, int64_t number);

// The parts of a chunk file name: worker "" and the number for chunk-<digits>.vzr, the worker id
// and number for chunk-<worker>-<digits>.vzr; nullopt for any other name (temporary files
// included).
struct RecordChunkId {
  std::string worker;
  int64_t number = 0;
};
std::optional<RecordChunkId> ParseRecordChunkName(std::string_view file_name);

}  // namespace vz
