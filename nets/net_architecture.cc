#include "nets/net_architecture.h"

#include <fmt/core.h>

#include "engine/core/error.h"

namespace vz::nets {

const std::vector<std::string>& PresetNames() {
  static const std::vector<std::string> names = {"tiny", "small", "medium", "large"};
  return names;
}

NetArchitecture PresetArchitecture(std::string_view name, int planes, int height, int width,
                                   int num_actions) {
  NetArchitecture a;
  a.input_planes = planes;
  a.height = height;
  a.width = width;
  a.num_actions = num_actions;
  a.preset = std::string(name);
  // The policy layer has policy_channels * height * width * num_actions weights, the bulk of a
  // small net for the games with big action spaces; the presets keep it in proportion.
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
    throw Error(fmt::format("unknown net preset '{}' (known: {})", name, known));
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
}

std::string DescribeArchitecture(const NetArchitecture& a) {
  return fmt::format("{}x{}{}, policy {}, value {}/{}, input {}x{}x{}, {} actions", a.blocks,
                     a.channels, a.squeeze_excitation ? fmt::format(" SE/{}", a.se_ratio) : "",
                     a.policy_channels, a.value_channels, a.value_hidden, a.input_planes, a.height,
                     a.width, a.num_actions);
}

}  // namespace vz::nets
