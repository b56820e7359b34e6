#pragma once

// Net files: a network's game, encodings, architecture, weights and provenance in one
// self-describing protobuf message (proto/net.proto), read without LibTorch's pickles so that a
// net from a stranger cannot run code. Torch-free.
//
// On disk (all integers little-endian):
//   bytes  0..7    magic "VZNET\0\0\1"
//   bytes  8..15   payload length in bytes (uint64)
//   bytes 16..23   FNV-1a 64 checksum of the payload
//   bytes 24..     payload: a serialized vz.proto.Net
// so that a truncated or corrupted file is reported as such instead of half-parsed.
// Format version 1 is every net with a fully connected policy head (the first vzero nets);
// version 2 adds the convolutional policy head (NetArchitecture::policy_head, policy_planes,
// policy_map), version 3 the pooled value head and global pooling blocks, version 4 the material
// head (NetArchitecture::material_outputs), version 5 the ownership head
// (NetArchitecture::ownership). A net is written with the lowest version that holds
// it, so older builds still read every net they can run, and all versions are read.
// Files are written by the project's one atomic writer (engine/core/atomic_file.h).

#include <fmt/core.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"
#include "engine/input_encoding.h"
#include "nets/net_architecture.h"

namespace vz::nets {

inline constexpr int kNetFormatVersion = 5;  // the newest version this build reads and writes
inline constexpr int kOldestNetFormatVersion = 1;

// A float32 tensor of the network's state (a parameter or a batch-norm running statistic).
struct NetTensor {
  std::string name;            // module path, e.g. "tower.0.conv1.conv.weight"
  std::vector<int64_t> shape;  // outermost first
  std::vector<float> data;     // product(shape) values, row-major

  int64_t NumElements() const;
};

struct NetProvenance {
  uint64_t training_steps = 0;
  uint64_t games = 0;
  std::string parent;           // the net this one was trained from, "" for a fresh net
  std::string created;          // UTC, ISO 8601
  std::string source_revision;  // git revision of the writer
  std::string note;
  // "zero-knowledge", or parts joined by "; " ("warm-started: ...", "self-play with leaf
  // quiescence"; selfplay/train_config.h TrainingKnowledge), or "" (unknown: an older file)
  std::string knowledge;
};

struct NetFile {
  int format_version = kNetFormatVersion;  // as read; SerializeNetFile writes the lowest that fits
  std::string game;                        // registry name
  std::string input_encoding;
  int input_version = 0;
  std::string action_encoding;
  int action_version = 0;
  NetArchitecture architecture;
  std::vector<NetTensor> tensors;
  NetProvenance provenance;

  // The tensor called `name`, or nullptr.
  const NetTensor* Find(std::string_view name) const;
  // Number of values in every tensor (parameters and running statistics).
  int64_t ParameterCount() const;
};

// The framed bytes of `net` (layout above).
std::string SerializeNetFile(const NetFile& net);

// Parses framed bytes; `source` names them in errors. Throws vz::Error saying which: too short
// for the header, bad magic, truncated (fewer payload bytes than the header says) or trailing
// bytes, checksum mismatch (corrupted), unparsable payload, unsupported format version, an
// unknown policy head (or a conv head in a version-1 file), a tensor with an unknown dtype, a
// negative dimension or a data size that does not match its shape, a tensor name given twice,
// or an invalid architecture.
NetFile ParseNetFile(std::string_view bytes, std::string_view source);

// Writes `net` to `path` atomically (vz::WriteFileAtomically). Throws vz::Error naming the path if
// it cannot be written.
void WriteNetFile(const std::string& path, const NetFile& net);

// The largest net file (bytes): protocol buffers cannot parse a message of 2 GiB or more.
inline constexpr uint64_t kMaxNetFileBytes = (uint64_t{1} << 31) - 1;

// Reads and parses `path`. Throws vz::Error naming the path if it cannot be read (not a regular
// file, more than kMaxNetFileBytes: engine/core/atomic_file.h's ReadWholeFile), and the errors of
// ParseNetFile.
NetFile ReadNetFile(const std::string& path);

// Throws vz::Error naming `source` if `net` has a conv policy head whose planes or map are not
// `layout` (the game's InputEncoding<G>::PolicyPlane of this build).
void CheckPolicyLayout(const NetFile& net, std::string_view source, const PolicyLayout& layout);

// Throws vz::Error naming `source` if `net` was made for another game, another input or action
// encoding or version, or an architecture whose input or policy shape is not the encoding's.
void CheckNetCompatible(const NetFile& net, std::string_view source, std::string_view game,
                        std::string_view input_encoding, int input_version,
                        std::string_view action_encoding, int action_version, int planes,
                        int height, int width, int num_actions);

// CheckNetCompatible and CheckPolicyLayout with game G's encodings and layout; also throws
// vz::Error naming `source` if a material head's outputs are not G's piece types
// (PieceTypes<G>::kNumTypes).
template <Game G>
void CheckNetForGame(const NetFile& net, std::string_view source) {
  using E = InputEncoding<G>;
  CheckNetCompatible(net, source, G::kName, E::kEncodingName, E::kVersion, E::kActionName,
                     E::kActionVersion, E::kPlanes, E::kHeight, E::kWidth, E::kNumActions);
  if (net.architecture.policy_head == PolicyHead::kConv) {
    CheckPolicyLayout(net, source, PolicyLayoutFor<G>());
  }
  const int material = net.architecture.material_outputs;
  if (material != 0 && material != PieceTypes<G>::kNumTypes) {
    throw Error(fmt::format("net file {}: a material head of {} outputs, {} has {} piece types",
                            source, material, G::kName, PieceTypes<G>::kNumTypes));
  }
}

// A net header (no tensors) for game G with `architecture`, created now by this build.
template <Game G>
NetFile NetHeaderForGame(const NetArchitecture& architecture) {
  using E = InputEncoding<G>;
  NetFile net;
  net.game = std::string(G::kName);
  net.input_encoding = E::kEncodingName;
  net.input_version = E::kVersion;
  net.action_encoding = E::kActionName;
  net.action_version = E::kActionVersion;
  net.architecture = architecture;
  return net;
}

// Current UTC time as "2026-11-29T23:59:59Z".
std::string UtcNow();

// Shape as "[32, 16, 3, 3]".
std::string ShapeString(const std::vector<int64_t>& shape);

}  // namespace vz::nets
