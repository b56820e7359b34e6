#include "nets/net_architecture.h"

#include <fmt/core.h>

#include "engine/core/error.h"

namespace vz::nets {

std::string_view PolicyHeadName(PolicyHead head) {
  return head == PolicyHead::kConv ? "conv" : "fc";
}

PolicyHead ParsePolicyHead(std::string_view name, std::string_view source) {
  if (name == "fc") return PolicyHead::kFc;
  if (name == "conv") return PolicyHead::kConv;
  throw Error(fmt::format("{}: unknown policy head '{}' (known: fc, conv)", source, name));
}

const std::vector<std::string>& PresetNames() {
  static const std::vector<std::string> names = {"tiny",    "small",    "medium",    "large",
                                                 "tiny-fc", "small-fc", "medium-fc", "large-fc"};
  return names;
}

NetArchitecture PresetArchitecture(std::string_view name, int planes, int height, int width,
                                   int num_actions, const PolicyLayout& layout) {
  NetArchitecture a;
  a.input_planes = planes;
  a.height = height;
  a.width = width;
  a.num_actions = num_actions;
  a.preset = std::string(name);
  const bool fc = name.ends_with("-fc");
  if (fc) name.remove_suffix(3);
  // The fc policy layer has policy_channels * height * width * num_actions weights, the bulk of
  // a small net for the games with big action spaces; the presets keep it in proportion.
  if (name == "tiny") {
    a.blocks = 1, a.channels = 16, a.policy_channels = 2, a.value_channels = 1;
    a.value_hidden = 32;
  } else if (name == "small") {
    a.blocks = 4, a.channels = 32, a.squeeze_excitation = true, a.policy_channels = 2;
    a.value_channels = 2, a.value_hidden = 64;
  } else if (name == "medium") {
    a.blocks = 10, a.channels = 128, a.squeeze_excitation = true, a.policy_channels = 8;
    a.value_channels = 4, a.value_hidden = 128;
  } else if (name == "large") {
    a.blocks = 20, a.channels = 256, a.squeeze_excitation = true, a.policy_channels = 16;
    a.value_channels = 8, a.value_hidden = 256;
  } else {
    std::string known;
    for (const std::string& preset : PresetNames()) known += (known.empty() ? "" : ", ") + preset;
    throw Error(fmt::format("unknown net preset '{}' (known: {})", a.preset, known));
  }
  if (!fc) {
    // AlphaZero's head: a full-width 3x3 convolution, then one plane per kind of move.
    a.policy_head = PolicyHead::kConv;
    a.policy_channels = a.channels;
    a.policy_planes = layout.planes;
    a.policy_map = layout.map;
  }
  return a;
}

void ValidateArchitecture(const NetArchitecture& a, std::string_view source) {
  auto check = [&](bool ok, std::string_view field, int value) {
    if (!ok)
      throw Error(
          fmt::format("{}: architecture field {} = {} is out of range", source, field, value));
  };
  check(a.blocks >= 0 && a.blocks <= 64, "blocks", a.blocks);
  check(a.channels >= 1 && a.channels <= 1024, "channels", a.channels);
  check(a.se_ratio >= 1 && a.se_ratio <= a.channels, "se_ratio", a.se_ratio);
  check(a.input_planes >= 1 && a.input_planes <= 1024, "input_planes", a.input_planes);
  check(a.height >= 1 && a.height <= 64, "height", a.height);
  check(a.width >= 1 && a.width <= 64, "width", a.width);
  check(a.num_actions >= 1 && a.num_actions <= 1 << 20, "num_actions", a.num_actions);
  check(a.policy_channels >= 1 && a.policy_channels <= 1024, "policy_channels", a.policy_channels);
  check(a.value_channels >= 1 && a.value_channels <= 1024, "value_channels", a.value_channels);
  check(a.value_hidden >= 1 && a.value_hidden <= 8192, "value_hidden", a.value_hidden);
  if (a.policy_head == PolicyHead::kFc) {
    check(a.policy_planes == 0, "policy_planes (of an fc head)", a.policy_planes);
    check(a.policy_map.empty(), "policy_map size (of an fc head)", int(a.policy_map.size()));
    return;
  }
  check(a.policy_planes >= 1 && a.policy_planes <= 4096, "policy_planes", a.policy_planes);
  check(int64_t(a.policy_map.size()) == a.num_actions, "policy_map size", int(a.policy_map.size()));
  const int64_t slots = int64_t(a.policy_planes) * a.height * a.width;
  std::vector<bool> used(size_t(slots), false);
  for (size_t action = 0; action < a.policy_map.size(); ++action) {
    const int32_t slot = a.policy_map[action];
    if (slot < 0 || slot >= slots) {
      throw Error(fmt::format("{}: policy_map sends action {} to {}, outside the {} plane cells",
                              source, action, slot, slots));
    }
    if (used[size_t(slot)]) {
      throw Error(fmt::format("{}: policy_map sends action {} to {}, which another action has",
                              source, action, slot));
    }
    used[size_t(slot)] = true;
  }
}

std::string DescribeArchitecture(const NetArchitecture& a) {
  const std::string policy = a.policy_head == PolicyHead::kConv
                                 ? fmt::format("conv {}/{}", a.policy_channels, a.policy_planes)
                                 : fmt::format("fc {}", a.policy_channels);
  return fmt::format("{}x{}{}, policy {}, value {}/{}, input {}x{}x{}, {} actions", a.blocks,
                     a.channels, a.squeeze_excitation ? fmt::format(" SE/{}", a.se_ratio) : "",
                     policy, a.value_channels, a.value_hidden, a.input_planes, a.height, a.width,
                     a.num_actions);
}

}  // namespace vz::nets
