#pragma once

// Trainer checkpoint files (nets/trainer.h writes and reads their content, a LibTorch archive):
// a frame with a checksum around the archive, the previous good checkpoint kept next to the
// newest, and a reader that falls back to it. Torch-free.
//
// On disk (all integers little-endian):
//   bytes  0..7    magic "VZCKPT\0\1"
//   bytes  8..15   archive length in bytes (uint64)
//   bytes 16..19   CRC-32 (zlib's crc32) of the archive
//   bytes 20..23   zero
//   bytes 24..     the archive (LibTorch's torch::serialize::OutputArchive, a zip file)
// A file that starts with a zip's "PK\3\4" instead is a checkpoint of a vzero from before the
// frame: it is read unverified, with a warning (the next save writes the frame), so that an old
// run resumes.
//
// Files: <dir>/trainer.ckpt (the newest) and <dir>/trainer.prev.ckpt (PreviousCheckpointPath:
// the one before, if it verified when the newest was written). Both are written by the project's
// one atomic writer (engine/core/atomic_file.h), so a kill leaves each whole or as before.
// Thread-safety: the functions share no state; two writers must not write the same path.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace vz::nets {

// The framed bytes of `archive` (layout above).
std::string FrameCheckpoint(std::string_view archive);

// The archive inside framed `bytes`; `source` names them in errors. A bare zip archive (a
// checkpoint from before the frame) is returned as it is, with *legacy set (legacy may be null).
// Throws vz::Error naming `source`: empty, too short for the header, neither the frame's magic
// nor a zip's, truncated (fewer bytes than the header says), trailing bytes, checksum mismatch.
std::string UnframeCheckpoint(std::string_view bytes, std::string_view source, bool* legacy);

// "dir/trainer.prev.ckpt" for "dir/trainer.ckpt"; "<path>.prev" for a path without ".ckpt".
std::string PreviousCheckpointPath(const std::string& path);

// True when `path` or its previous checkpoint exists.
bool CheckpointExists(const std::string& path);

// Writes FrameCheckpoint(archive) to `path` atomically. An existing `path` that verifies (frame
// and checksum; legacy files count as verified) first becomes PreviousCheckpointPath(path); one
// that does not is replaced without being kept, so the previous file stays the last good one.
// Throws vz::Error naming the path on I/O failures.
void WriteCheckpointFile(const std::string& path, std::string_view archive);

// What ReadNewestCheckpoint used.
struct CheckpointLoad {
  std::string path;                   // the file loaded: `path` or its previous
  std::vector<std::string> warnings;  // one line each: a fallback and why, an unverified file
};

// Reads the newest good checkpoint: `path`, else PreviousCheckpointPath(path). Each file is read,
// verified (UnframeCheckpoint) and handed to `load(archive, file)`, which throws vz::Error when
// the archive does not load (LibTorch's own errors must be turned into vz::Error by it); on any
// such error the previous file is tried. Throws vz::Error naming `path` and each file's fault
// when neither loads (or "not found" when neither exists).
CheckpointLoad ReadNewestCheckpoint(
    const std::string& path,
    const std::function<void(const std::string& archive, const std::string& file)>& load);

}  // namespace vz::nets
