#include "nets/net_architecture.h"

#include <fmt/core.h>

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/position_text.h"

namespace vz::nets {

std::string_view PolicyHeadName(PolicyHead head) {
  return head == PolicyHead::kConv ? "conv" : "fc";
}

PolicyHead ParsePolicyHead(std::string_view name, std::string_view source) {
  if (name == "fc") return PolicyHead::kFc;
  if (name == "conv") return PolicyHead::kConv;
  throw Error(fmt::format("{}: unknown policy head '{}' (known: fc, conv)", source, name));
}

std::string_view ValueHeadName(ValueHead head) { return head == ValueHead::kPool ? "pool" : "fc"; }

ValueHead ParseValueHead(std::string_view name, std::string_view source) {
  if (name == "fc") return ValueHead::kFc;
  if (name == "pool") return ValueHead::kPool;
  throw Error(fmt::format("{}: unknown value head '{}' (known: fc, pool)", source, name));
}

const std::vector<std::string>& PresetNames() {
  static const std::vector<std::string> names = {"tiny",    "small",    "medium",    "large",
                                                 "tiny-fc", "small-fc", "medium-fc", "large-fc"};
  return names;
}

namespace {

// The tower and options of a preset name (PresetArchitecture's grammar), sizes only.
NetArchitecture ParsePreset(std::string_view name) {
  const auto fail = [&](const std::string& what) {
    std::string known;
    for (const std::string& preset : PresetNames()) known += (known.empty() ? "" : ", ") + preset;
    return Error(fmt::format(
        "net preset '{}': {} (a preset is tiny, small, medium, large or bNcM, then any of -se, "
        "-fc, -vpool, -gpool, -mat, -own; e.g. {}, b6c32-gpool-vpool)",
        name, what, known));
  };
  const std::vector<std::string_view> parts = SplitAt(name, '-');
  NetArchitecture a;
  const std::string_view tower = parts[0];
  if (tower == "tiny") {
    a.blocks = 1, a.channels = 16, a.policy_channels = 2, a.value_channels = 1;
    a.value_hidden = 32;
  } else if (tower == "small") {
    a.blocks = 4, a.channels = 32, a.squeeze_excitation = true, a.policy_channels = 2;
    a.value_channels = 2, a.value_hidden = 64;
  } else if (tower == "medium") {
    a.blocks = 10, a.channels = 128, a.squeeze_excitation = true, a.policy_channels = 8;
    a.value_channels = 4, a.value_hidden = 128;
  } else if (tower == "large") {
    a.blocks = 20, a.channels = 256, a.squeeze_excitation = true, a.policy_channels = 16;
    a.value_channels = 8, a.value_hidden = 256;
  } else {
    // bNcM
    int blocks = 0, channels = 0;
    size_t i = 0;
    const auto number = [&](int& out) {
      const size_t begin = i;
      while (i < tower.size() && i - begin < 5 && tower[i] >= '0' && tower[i] <= '9') {
        out = out * 10 + (tower[i++] - '0');
      }
      return i > begin;
    };
    const bool ok = i < tower.size() && tower[i++] == 'b' && number(blocks) && i < tower.size() &&
                    tower[i++] == 'c' && number(channels) && i == tower.size();
    if (!ok) throw fail(fmt::format("unknown tower '{}'", tower));
    if (blocks < 1 || blocks > 64 || channels < 8 || channels > 1024) {
      throw fail(fmt::format("tower '{}' outside b1..64 and c8..1024", tower));
    }
    a.blocks = blocks, a.channels = channels, a.policy_channels = 2, a.value_channels = 2;
    a.value_hidden = 64;
  }
  bool fc = false;
  for (size_t k = 1; k < parts.size(); ++k) {
    const std::string_view option = parts[k];
    const auto once = [&](bool already) {
      if (already) throw fail(fmt::format("option '{}' given twice", option));
    };
    if (option == "se") {
      once(a.squeeze_excitation);
      a.squeeze_excitation = true;
    } else if (option == "fc") {
      once(fc);
      fc = true;
    } else if (option == "vpool") {
      once(a.value_head == ValueHead::kPool);
      a.value_head = ValueHead::kPool;
      a.value_channels = a.channels;
    } else if (option == "gpool") {
      once(a.global_pooling_channels > 0);
      a.global_pooling_channels = std::max(4, a.channels / 4);
      a.global_pooling_every = a.blocks >= 6 ? 3 : std::min(a.blocks, 2);
    } else if (option == "mat") {
      once(a.material_outputs != 0);
      a.material_outputs = -1;  // the game's piece types (PresetArchitecture)
    } else if (option == "own") {
      once(a.ownership);
      a.ownership = true;
    } else {
      throw fail(fmt::format("unknown option '{}'", option));
    }
  }
  if (fc)
    a.policy_head = PolicyHead::kFc;
  else
    a.policy_head = PolicyHead::kConv;
  if (a.material_outputs != 0 && a.value_head != ValueHead::kPool) {
    throw fail("option 'mat' needs 'vpool' (the material head reads the pooled value features)");
  }
  return a;
}

}  // namespace

void CheckPresetName(std::string_view name) { ParsePreset(name); }

NetArchitecture PresetArchitecture(std::string_view name, int planes, int height, int width,
                                   int num_actions, const PolicyLayout& layout,
                                   int material_types) {
  NetArchitecture a = ParsePreset(name);
  if (a.material_outputs != 0) {
    if (material_types < 1) {
      throw Error(fmt::format(
          "net preset '{}': option 'mat': this game has no piece types to count", name));
    }
    a.material_outputs = material_types;
  }
  a.input_planes = planes;
  a.height = height;
  a.width = width;
  a.num_actions = num_actions;
  a.preset = std::string(name);
  // The fc policy layer has policy_channels * height * width * num_actions weights, the bulk of
  // a small net for the games with big action spaces; the presets keep it in proportion.
  if (a.policy_head == PolicyHead::kConv) {
    // AlphaZero's head: a full-width 3x3 convolution, then one plane per kind of move.
    a.policy_channels = a.channels;
    a.policy_planes = layout.planes;
    a.policy_map = layout.map;
  }
  return a;
}

std::vector<float> BoardCellMask(const NetArchitecture& a) {
  const size_t area = size_t(a.height) * size_t(a.width);
  if (a.policy_map.empty()) return std::vector<float>(area, 1.0f);
  std::vector<float> mask(area, 0.0f);
  for (int32_t slot : a.policy_map) mask[size_t(slot) % area] = 1.0f;
  return mask;
}

// The residual tower's 3x3 convolution weights at most: a net file holds under 2 GiB of float32
// (protocol buffers' limit), and the heads need room beside the tower.
constexpr double kMaxTowerWeights = 400e6;

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
  check(a.global_pooling_channels >= 0 && a.global_pooling_channels <= a.channels,
        "global_pooling_channels", a.global_pooling_channels);
  if (a.global_pooling_channels > 0) {
    check(a.global_pooling_every >= 1 && a.global_pooling_every <= a.blocks, "global_pooling_every",
          a.global_pooling_every);
  } else {
    check(a.global_pooling_every == 0, "global_pooling_every (without pooled channels)",
          a.global_pooling_every);
  }
  check(a.material_outputs >= 0 && a.material_outputs <= 64, "material_outputs",
        a.material_outputs);
  if (a.value_head != ValueHead::kPool) {
    check(a.material_outputs == 0, "material_outputs (without a pooled value head)",
          a.material_outputs);
  }
  // Refused here, before gigabytes of weights are made and then cannot be written.
  const double tower_weights = double(a.blocks) * 2.0 * double(a.channels) * a.channels * 9.0;
  if (tower_weights > kMaxTowerWeights) {
    throw Error(fmt::format(
        "{}: a tower of {} blocks of {} channels has {:.0f} million weights, more than the {:.0f} "
        "million a net file can hold",
        source, a.blocks, a.channels, tower_weights / 1e6, kMaxTowerWeights / 1e6));
  }
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
  const std::string gpool =
      a.global_pooling_channels > 0
          ? fmt::format(" gpool {}/{}", a.global_pooling_channels, a.global_pooling_every)
          : "";
  const std::string material =
      a.material_outputs > 0 ? fmt::format(", material {}", a.material_outputs) : "";
  return fmt::format(
      "{}x{}{}{}, policy {}, value {}{}/{}{}{}, input {}x{}x{}, {} actions", a.blocks, a.channels,
      a.squeeze_excitation ? fmt::format(" SE/{}", a.se_ratio) : "", gpool, policy,
      a.value_head == ValueHead::kPool ? "pool " : "", a.value_channels, a.value_hidden, material,
      a.ownership ? ", ownership" : "", a.input_planes, a.height, a.width, a.num_actions);
}

double ForwardFlops(const NetArchitecture& a, double legal_actions) {
  const double area = double(a.height) * a.width;
  const auto conv = [&](double in, double out, double kernel) {
    return 2.0 * in * out * kernel * kernel * area;
  };
  const auto linear = [](double in, double out) { return 2.0 * in * out; };
  double flops = conv(a.input_planes, a.channels, 3);
  for (int i = 0; i < a.blocks; ++i) {
    flops += 2 * conv(a.channels, a.channels, 3);
    if (a.squeeze_excitation) {
      const double hidden = std::max(1, a.channels / a.se_ratio);
      flops += linear(a.channels, hidden) + linear(hidden, a.channels);
    }
    if (a.global_pooling_channels > 0 && (i + 1) % a.global_pooling_every == 0) {
      flops += conv(a.channels, a.global_pooling_channels, 3) +
               linear(2.0 * a.global_pooling_channels, a.channels);
    }
  }
  if (a.policy_head == PolicyHead::kConv) {
    flops += conv(a.channels, a.policy_channels, 3);
    flops += legal_actions < 0 ? conv(a.policy_channels, a.policy_planes, 1)
                               : legal_actions * linear(a.policy_channels, 1);
  } else {
    flops += conv(a.channels, a.policy_channels, 1);
    const double inputs = a.policy_channels * area;
    flops += legal_actions < 0 ? linear(inputs, a.num_actions) : legal_actions * linear(inputs, 1);
  }
  flops += conv(a.channels, a.value_channels, 1);
  const double value_inputs =
      a.value_head == ValueHead::kPool ? 2.0 * a.value_channels : a.value_channels * area;
  flops += linear(value_inputs, a.value_hidden) + linear(a.value_hidden, 3);
  return flops;
}

}  // namespace vz::nets
