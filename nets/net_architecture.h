#pragma once

// The shape of a policy/value network (AlphaZero's residual tower, Lc0's heads): blocks x
// channels of 3x3 residual blocks, optionally with squeeze-and-excitation, then a policy head
// (1x1 convolution, fully connected layer to every action) and a WDL value head (1x1 convolution,
// hidden layer, three outputs for win/draw/loss of the side to move). Torch-free: net files and
// the CLI use it without LibTorch headers.

#include <string>
#include <string_view>
#include <vector>

#include "engine/core/game.h"
#include "engine/input_encoding.h"

namespace vz::nets {

struct NetArchitecture {
  int blocks = 1;
  int channels = 16;
  bool squeeze_excitation = false;
  int se_ratio = 4;      // channels / hidden units of the squeeze-and-excitation unit
  int input_planes = 0;  // input shape [input_planes][height][width]
  int height = 0;
  int width = 0;
  int num_actions = 0;      // policy outputs
  int policy_channels = 2;  // channels of the 1x1 convolution feeding the policy layer
  int value_channels = 1;   // channels of the 1x1 convolution feeding the value layers
  int value_hidden = 32;    // hidden units of the value head
  std::string preset;       // preset name it came from, or ""

  bool operator==(const NetArchitecture&) const = default;
};

// Names of the presets: "tiny" and "small" for the CPU (tests, demos), "medium" and "large" for
// GPUs.
const std::vector<std::string>& PresetNames();

// The preset `name` for an input of [planes][height][width] and `num_actions` policy outputs.
// Throws vz::Error naming the preset and listing the known ones if there is no such preset.
NetArchitecture PresetArchitecture(std::string_view name, int planes, int height, int width,
                                   int num_actions);

// The preset for game G's encoding (engine/input_encoding.h).
template <Game G>
NetArchitecture PresetArchitectureFor(std::string_view name) {
  using E = InputEncoding<G>;
  return PresetArchitecture(name, E::kPlanes, E::kHeight, E::kWidth, E::kNumActions);
}

// Throws vz::Error naming `source` and the first bad field if a size is out of range (blocks
// 0..64, channels 1..1024, every other size >= 1, se_ratio dividing nothing to zero).
void ValidateArchitecture(const NetArchitecture& architecture, std::string_view source);

// One line: "10x128 SE, policy 8, value 4/128, input 12x12x12, 13824 actions".
std::string DescribeArchitecture(const NetArchitecture& architecture);

}  // namespace vz::nets
