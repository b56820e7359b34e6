#pragma once

// The shape of a policy/value network (AlphaZero's residual tower, Lc0's heads): blocks x
// channels of 3x3 residual blocks, optionally with squeeze-and-excitation, then a policy head and
// a WDL value head (1x1 convolution, hidden layer, three outputs for win/draw/loss of the side to
// move). The policy head is either
//   fc    1x1 convolution to policy_channels, fully connected layer to every action (the first
//         heads of vzero; policy_channels * height * width * num_actions weights), or
//   conv  AlphaZero's convolutional head: 3x3 convolution to policy_channels, ReLU, 1x1
//         convolution to policy_planes move-kind planes over the board grid, and a fixed gather
//         of each action's logit from its (plane, cell) (InputEncoding<G>::PolicyPlane).
// Torch-free: net files and the CLI use it without LibTorch headers.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/game.h"
#include "engine/input_encoding.h"

namespace vz::nets {

enum class PolicyHead { kFc, kConv };

// "fc" or "conv".
std::string_view PolicyHeadName(PolicyHead head);

// The policy head called `name` ("fc" or "conv"). Throws vz::Error naming `source`, the value and
// the known names otherwise.
PolicyHead ParsePolicyHead(std::string_view name, std::string_view source);

struct NetArchitecture {
  int blocks = 1;
  int channels = 16;
  bool squeeze_excitation = false;
  int se_ratio = 4;      // channels / hidden units of the squeeze-and-excitation unit
  int input_planes = 0;  // input shape [input_planes][height][width]
  int height = 0;
  int width = 0;
  int num_actions = 0;  // policy outputs
  PolicyHead policy_head = PolicyHead::kFc;
  int policy_channels = 2;  // channels of the convolution feeding the policy layer or planes
  // conv head only (0 and empty for fc): the planes of its last convolution, and for every
  // action the flat index plane * height * width + row * width + column of its logit.
  int policy_planes = 0;
  std::vector<int32_t> policy_map;
  int value_channels = 1;  // channels of the 1x1 convolution feeding the value layers
  int value_hidden = 32;   // hidden units of the value head
  std::string preset;      // preset name it came from, or ""

  bool operator==(const NetArchitecture&) const = default;
};

// A game's convolutional policy layout: `planes` output planes and, per action, the flat index
// plane * height * width + cell of its logit (NetArchitecture::policy_map).
struct PolicyLayout {
  int planes = 0;
  std::vector<int32_t> map;
};

// Game G's layout from InputEncoding<G>::kPolicyPlanes and PolicyPlane (engine/input_encoding.h).
template <Game G>
PolicyLayout PolicyLayoutFor() {
  using E = InputEncoding<G>;
  PolicyLayout layout;
  layout.planes = E::kPolicyPlanes;
  layout.map.resize(E::kNumActions);
  for (int action = 0; action < E::kNumActions; ++action) {
    const PolicySlot slot = E::PolicyPlane(action);
    layout.map[action] = slot.plane * E::kHeight * E::kWidth + slot.cell;
  }
  return layout;
}

// Names of the presets: "tiny" and "small" for the CPU (tests, demos), "medium" and "large" for
// GPUs, all with the conv policy head; "tiny-fc", "small-fc", "medium-fc" and "large-fc" are the
// same towers with the fully connected head of the first vzero nets.
const std::vector<std::string>& PresetNames();

// The preset `name` for an input of [planes][height][width], `num_actions` policy outputs and
// the game's conv policy `layout`. Throws vz::Error naming the preset and listing the known ones
// if there is no such preset.
NetArchitecture PresetArchitecture(std::string_view name, int planes, int height, int width,
                                   int num_actions, const PolicyLayout& layout);

// The preset for game G's encoding (engine/input_encoding.h).
template <Game G>
NetArchitecture PresetArchitectureFor(std::string_view name) {
  using E = InputEncoding<G>;
  return PresetArchitecture(name, E::kPlanes, E::kHeight, E::kWidth, E::kNumActions,
                            PolicyLayoutFor<G>());
}

// Throws vz::Error naming `source` and the first bad field if a size is out of range (blocks
// 0..64, channels 1..1024, every other size >= 1, se_ratio dividing nothing to zero), or if the
// conv head's policy_planes is not in 1..4096 or its policy_map does not send every action to
// its own index in [0, policy_planes * height * width) (an fc head must have neither).
void ValidateArchitecture(const NetArchitecture& architecture, std::string_view source);

// One line: "10x128 SE, policy conv 128/96, value 4/128, input 12x12x12, 13824 actions" (fc
// heads: "policy fc 8").
std::string DescribeArchitecture(const NetArchitecture& architecture);

}  // namespace vz::nets
