#include "nets/net_file.h"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iterator>
#include <set>

#include "engine/core/atomic_file.h"
#include "engine/core/fnv.h"
#include "proto/net.pb.h"

namespace vz::nets {
namespace {

static_assert(std::endian::native == std::endian::little, "net files assume a little-endian host");

constexpr char kMagic[8] = {'V', 'Z', 'N', 'E', 'T', '\0', '\0', '\1'};
constexpr size_t kHeaderBytes = 24;

void PutU64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(char((value >> (8 * i)) & 0xff));
}

uint64_t GetU64(std::string_view bytes, size_t offset) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value |= uint64_t(uint8_t(bytes[offset + i])) << (8 * i);
  return value;
}

}  // namespace

int64_t NetTensor::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

const NetTensor* NetFile::Find(std::string_view name) const {
  for (const NetTensor& tensor : tensors) {
    if (tensor.name == name) return &tensor;
  }
  return nullptr;
}

int64_t NetFile::ParameterCount() const {
  int64_t count = 0;
  for (const NetTensor& tensor : tensors) count += int64_t(tensor.data.size());
  return count;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string SerializeNetFile(const NetFile& net) {
  proto::Net message;
  const bool conv = net.architecture.policy_head == PolicyHead::kConv;
  const bool pooling = net.architecture.value_head == ValueHead::kPool ||
                       net.architecture.global_pooling_channels > 0;
  const bool material = net.architecture.material_outputs > 0;
  message.set_format_version(net.architecture.ownership ? 5u
                             : material                 ? 4u
                             : pooling                  ? 3u
                             : conv                     ? 2u
                                                        : 1u);
  message.set_game(net.game);
  message.mutable_input_encoding()->set_name(net.input_encoding);
  message.mutable_input_encoding()->set_version(uint32_t(net.input_version));
  message.mutable_action_encoding()->set_name(net.action_encoding);
  message.mutable_action_encoding()->set_version(uint32_t(net.action_version));
  const NetArchitecture& a = net.architecture;
  proto::Architecture* arch = message.mutable_architecture();
  arch->set_blocks(uint32_t(a.blocks));
  arch->set_channels(uint32_t(a.channels));
  arch->set_squeeze_excitation(a.squeeze_excitation);
  arch->set_se_ratio(uint32_t(a.se_ratio));
  arch->set_input_planes(uint32_t(a.input_planes));
  arch->set_height(uint32_t(a.height));
  arch->set_width(uint32_t(a.width));
  arch->set_num_actions(uint32_t(a.num_actions));
  arch->set_policy_channels(uint32_t(a.policy_channels));
  arch->set_value_channels(uint32_t(a.value_channels));
  arch->set_value_hidden(uint32_t(a.value_hidden));
  arch->set_preset(a.preset);
  if (conv) {
    arch->set_policy_head(std::string(PolicyHeadName(a.policy_head)));
    arch->set_policy_planes(uint32_t(a.policy_planes));
    for (int32_t slot : a.policy_map) arch->add_policy_map(uint32_t(slot));
  }
  if (pooling) {
    arch->set_value_head(std::string(ValueHeadName(a.value_head)));
    arch->set_global_pooling_channels(uint32_t(a.global_pooling_channels));
    arch->set_global_pooling_every(uint32_t(a.global_pooling_every));
  }
  if (material) arch->set_material_outputs(uint32_t(a.material_outputs));
  if (a.ownership) arch->set_ownership(true);
  for (const NetTensor& tensor : net.tensors) {
    proto::Tensor* t = message.add_tensors();
    t->set_name(tensor.name);
    for (int64_t d : tensor.shape) t->add_shape(d);
    t->set_dtype(proto::Tensor::FLOAT32);
    t->set_data(std::string(reinterpret_cast<const char*>(tensor.data.data()),
                            tensor.data.size() * sizeof(float)));
  }
  proto::Provenance* p = message.mutable_provenance();
  p->set_training_steps(net.provenance.training_steps);
  p->set_games(net.provenance.games);
  p->set_parent(net.provenance.parent);
  p->set_created(net.provenance.created);
  p->set_source_revision(net.provenance.source_revision);
  p->set_note(net.provenance.note);
  p->set_knowledge(net.provenance.knowledge);

  std::string payload;
  if (!message.SerializeToString(&payload)) throw Error("net file: cannot serialize the message");
  std::string out(kMagic, sizeof(kMagic));
  PutU64(out, payload.size());
  PutU64(out, Fnv1a64(payload));
  out += payload;
  return out;
}

NetFile ParseNetFile(std::string_view bytes, std::string_view source) {
  if (bytes.size() < kHeaderBytes) {
    throw Error(fmt::format("net file {}: truncated: {} bytes, the header alone has {}", source,
                            bytes.size(), kHeaderBytes));
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    throw Error(fmt::format("net file {}: not a vzero net file (bad magic)", source));
  }
  const uint64_t length = GetU64(bytes, 8);
  const uint64_t checksum = GetU64(bytes, 16);
  const uint64_t available = bytes.size() - kHeaderBytes;
  if (available < length) {
    throw Error(
        fmt::format("net file {}: truncated: the header announces {} payload bytes, the "
                    "file has {}",
                    source, length, available));
  }
  if (available > length) {
    throw Error(fmt::format("net file {}: {} unexpected bytes after the {}-byte payload", source,
                            available - length, length));
  }
  const std::string_view payload = bytes.substr(kHeaderBytes);
  if (Fnv1a64(payload) != checksum) {
    throw Error(fmt::format("net file {}: corrupted: the payload checksum does not match", source));
  }
  proto::Net message;
  if (!message.ParseFromArray(payload.data(), int(payload.size()))) {
    throw Error(fmt::format("net file {}: corrupted: the payload is not a net message", source));
  }
  if (message.format_version() < uint32_t(kOldestNetFormatVersion) ||
      message.format_version() > uint32_t(kNetFormatVersion)) {
    throw Error(fmt::format("net file {}: format version {}, this vzero reads versions {} to {}",
                            source, message.format_version(), kOldestNetFormatVersion,
                            kNetFormatVersion));
  }
  NetFile net;
  net.format_version = int(message.format_version());
  net.game = message.game();
  net.input_encoding = message.input_encoding().name();
  net.input_version = int(message.input_encoding().version());
  net.action_encoding = message.action_encoding().name();
  net.action_version = int(message.action_encoding().version());
  const proto::Architecture& arch = message.architecture();
  NetArchitecture& a = net.architecture;
  a.blocks = int(arch.blocks());
  a.channels = int(arch.channels());
  a.squeeze_excitation = arch.squeeze_excitation();
  a.se_ratio = int(arch.se_ratio());
  a.input_planes = int(arch.input_planes());
  a.height = int(arch.height());
  a.width = int(arch.width());
  a.num_actions = int(arch.num_actions());
  a.policy_channels = int(arch.policy_channels());
  a.value_channels = int(arch.value_channels());
  a.value_hidden = int(arch.value_hidden());
  a.preset = arch.preset();
  a.policy_head = arch.policy_head().empty()
                      ? PolicyHead::kFc
                      : ParsePolicyHead(arch.policy_head(), fmt::format("net file {}", source));
  if (a.policy_head == PolicyHead::kConv && net.format_version < 2) {
    throw Error(fmt::format("net file {}: a conv policy head in a format version {} file", source,
                            net.format_version));
  }
  a.value_head = arch.value_head().empty()
                     ? ValueHead::kFc
                     : ParseValueHead(arch.value_head(), fmt::format("net file {}", source));
  a.global_pooling_channels = int(std::min<uint32_t>(arch.global_pooling_channels(), 1u << 20));
  a.global_pooling_every = int(std::min<uint32_t>(arch.global_pooling_every(), 1u << 20));
  if ((a.value_head == ValueHead::kPool || a.global_pooling_channels > 0) &&
      net.format_version < 3) {
    throw Error(fmt::format("net file {}: pooling in a format version {} file", source,
                            net.format_version));
  }
  a.material_outputs = int(std::min<uint32_t>(arch.material_outputs(), 1u << 20));
  if (a.material_outputs > 0 && net.format_version < 4) {
    throw Error(fmt::format("net file {}: a material head in a format version {} file", source,
                            net.format_version));
  }
  a.ownership = arch.ownership();
  if (a.ownership && net.format_version < 5) {
    throw Error(fmt::format("net file {}: an ownership head in a format version {} file", source,
                            net.format_version));
  }
  a.policy_planes = int(arch.policy_planes());
  a.policy_map.reserve(size_t(arch.policy_map_size()));
  for (uint32_t slot : arch.policy_map()) {
    a.policy_map.push_back(slot > uint32_t(INT32_MAX) ? -1 : int32_t(slot));
  }
  ValidateArchitecture(a, fmt::format("net file {}", source));
  std::set<std::string> names;
  for (const proto::Tensor& t : message.tensors()) {
    if (!names.insert(t.name()).second) {
      throw Error(fmt::format("net file {}: tensor '{}' appears twice", source, t.name()));
    }
    if (t.dtype() != proto::Tensor::FLOAT32) {
      throw Error(fmt::format("net file {}: tensor '{}' has unsupported dtype {}", source, t.name(),
                              int(t.dtype())));
    }
    NetTensor tensor;
    tensor.name = t.name();
    // The elements a file of under 2 GiB can hold: a shape beyond it is refused before its
    // product could overflow (so a crafted shape cannot pass the size check below).
    constexpr int64_t kMaxElements = int64_t(1) << 29;
    int64_t elements = 1;
    for (int64_t d : t.shape()) {
      if (d < 0 || d > kMaxElements) {
        throw Error(
            fmt::format("net file {}: tensor '{}' has a bad dimension {}", source, t.name(), d));
      }
      tensor.shape.push_back(d);
      if (d != 0 && elements > kMaxElements / d) {
        throw Error(fmt::format("net file {}: tensor '{}' has a shape {} of more than {} elements",
                                source, t.name(), ShapeString(tensor.shape), kMaxElements));
      }
      elements *= d;
    }
    if (uint64_t(t.data().size()) != uint64_t(elements) * sizeof(float)) {
      throw Error(fmt::format(
          "net file {}: tensor '{}' has {} bytes of data, its shape {} needs {}", source, t.name(),
          t.data().size(), ShapeString(tensor.shape), uint64_t(elements) * sizeof(float)));
    }
    tensor.data.resize(size_t(elements));
    std::memcpy(tensor.data.data(), t.data().data(), t.data().size());
    net.tensors.push_back(std::move(tensor));
  }
  const proto::Provenance& p = message.provenance();
  net.provenance.training_steps = p.training_steps();
  net.provenance.games = p.games();
  net.provenance.parent = p.parent();
  net.provenance.created = p.created();
  net.provenance.source_revision = p.source_revision();
  net.provenance.note = p.note();
  net.provenance.knowledge = p.knowledge();
  return net;
}

void WriteNetFile(const std::string& path, const NetFile& net) {
  WriteFileAtomically(path, SerializeNetFile(net));
}

NetFile ReadNetFile(const std::string& path) {
  return ParseNetFile(ReadWholeFile(path, "net file", kMaxNetFileBytes), path);
}

void CheckPolicyLayout(const NetFile& net, std::string_view source, const PolicyLayout& layout) {
  const NetArchitecture& a = net.architecture;
  if (a.policy_head != PolicyHead::kConv) return;
  if (a.policy_planes != layout.planes || a.policy_map != layout.map) {
    throw Error(fmt::format(
        "net file {}: its conv policy head has another layout ({} planes) than this vzero's {} "
        "({} planes)",
        source, a.policy_planes, net.action_encoding, layout.planes));
  }
}

void CheckNetCompatible(const NetFile& net, std::string_view source, std::string_view game,
                        std::string_view input_encoding, int input_version,
                        std::string_view action_encoding, int action_version, int planes,
                        int height, int width, int num_actions) {
  if (net.game != game) {
    throw Error(fmt::format("net file {}: made for game '{}', not '{}'", source, net.game, game));
  }
  if (net.input_encoding != input_encoding || net.input_version != input_version) {
    throw Error(
        fmt::format("net file {}: input encoding '{}' version {}, this vzero uses '{}' "
                    "version {}",
                    source, net.input_encoding, net.input_version, input_encoding, input_version));
  }
  if (net.action_encoding != action_encoding || net.action_version != action_version) {
    throw Error(fmt::format(
        "net file {}: action encoding '{}' version {}, this vzero uses '{}' "
        "version {}",
        source, net.action_encoding, net.action_version, action_encoding, action_version));
  }
  const NetArchitecture& a = net.architecture;
  if (a.input_planes != planes || a.height != height || a.width != width ||
      a.num_actions != num_actions) {
    throw Error(
        fmt::format("net file {}: architecture takes {}x{}x{} inputs and {} actions, the "
                    "encoding has {}x{}x{} and {}",
                    source, a.input_planes, a.height, a.width, a.num_actions, planes, height, width,
                    num_actions));
  }
}

}  // namespace vz::nets
