#pragma once

// The shape of a policy/value network (AlphaZero's residual tower, Lc0's heads): blocks x
// channels of 3x3 residual blocks, optionally with squeeze-and-excitation, then a policy head and
// a WDL value head (three outputs for win/draw/loss of the side to move). The value head is either
//   fc    1x1 convolution to value_channels, a hidden layer fully connected to every cell, the
//         WDL layer (the first heads of vzero: each piece's worth is learned again on every cell),
//         or
//   pool  KataGo's pooled head (Wu 2019, section 3.3): 1x1 convolution to value_channels, ReLU,
//         the mean and the maximum of each channel over the board's own cells (BoardCellMask),
//         then the hidden layer and the WDL layer: material is counted once, wherever it stands.
// With global_pooling_channels > 0, every global_pooling_every-th residual block of the tower is
// KataGo's global pooling block: a second 3x3 convolution of the block's input to
// global_pooling_channels channels, ReLU, their mean and maximum over the board's cells, and a
// linear layer of those to one bias per channel, added to the block's first convolution before its
// ReLU, so that every cell sees the whole board in one block (a 3x3 tower sees 2 cells further per
// convolution). The policy head is either
//   fc    1x1 convolution to policy_channels, fully connected layer to every action (the first
//         heads of vzero; policy_channels * height * width * num_actions weights), or
//   conv  AlphaZero's convolutional head: 3x3 convolution to policy_channels, ReLU, 1x1
//         convolution to policy_planes move-kind planes over the board grid, and a fixed gather
//         of each action's logit from its (plane, cell) (InputEncoding<G>::PolicyPlane).
// With material_outputs > 0 (a pooled value head only), a material head: one linear layer from
// the value head's pooled features to material_outputs numbers, trained (never used in play)
// to predict the piece-count difference of each type N plies later or at the game's end
// (replay.material_horizon_plies), side to move's view (engine/piece_types.h; Wu 2019 section 4.1).
// With `ownership`, an ownership head: a 1x1 convolution of the tower's output to
// kOccupancyClasses logits per grid cell, trained (never used in play) to predict each cell's
// occupant in the game's last position (empty, the side to move's piece, the opponent's;
// InputEncoding<G>::Occupancy), KataGo's ownership target (Wu 2019 section 4.1) made for games
// where pieces move and are taken.
// Torch-free: net files and the CLI use it without LibTorch headers.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/game.h"
#include "engine/input_encoding.h"
#include "engine/piece_types.h"

namespace vz::nets {

enum class PolicyHead { kFc, kConv };
enum class ValueHead { kFc, kPool };

// "fc" or "conv".
std::string_view PolicyHeadName(PolicyHead head);

// The policy head called `name` ("fc" or "conv"). Throws vz::Error naming `source`, the value and
// the known names otherwise.
PolicyHead ParsePolicyHead(std::string_view name, std::string_view source);

// "fc" or "pool".
std::string_view ValueHeadName(ValueHead head);

// The value head called `name` ("fc" or "pool"). Throws vz::Error naming `source`, the value and
// the known names otherwise.
ValueHead ParseValueHead(std::string_view name, std::string_view source);

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
  ValueHead value_head = ValueHead::kFc;
  // Global pooling blocks (above): the pooled channels of each (0 = none), and which blocks carry
  // them: block i (from 0) when (i + 1) % global_pooling_every == 0 (0 when there are none).
  int global_pooling_channels = 0;
  int global_pooling_every = 0;
  // Material head (above): its outputs, PieceTypes<G>::kNumTypes of the net's game (0 = none).
  int material_outputs = 0;
  // Ownership head (above).
  bool ownership = false;
  std::string preset;  // preset name it came from, or ""

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

// Names of the named presets: "tiny" and "small" for the CPU (tests, demos), "medium" and "large"
// for GPUs, all with the conv policy head and the fc value head; "tiny-fc", "small-fc",
// "medium-fc" and "large-fc" are the same towers with the fully connected policy head of the first
// vzero nets. Every preset name is a tower and options joined by '-' (PresetArchitecture).
const std::vector<std::string>& PresetNames();

// The preset `name` for an input of [planes][height][width], `num_actions` policy outputs and
// the game's conv policy `layout`. A name is a tower, then options in any order, joined by '-':
//   tower   tiny (1x16), small (4x32 SE), medium (10x128 SE), large (20x256 SE), or bNcM (N
//           blocks of M channels, as KataGo's b6c96: N in 1..64, M in 8..1024; SE only with -se,
//           policy 2 / value 2x64 channels)
//   se      squeeze-and-excitation in every block
//   fc      the fully connected policy head (else the conv head)
//   vpool   the pooled value head, value_channels = the tower's channels
//   gpool   global pooling blocks: max(4, channels / 4) pooled channels in every second block
//           (every third from 6 blocks on; the one block of a 1-block tower)
//   mat     the material head, with `material_types` outputs (needs vpool)
//   own     the ownership head
// e.g. "tiny", "small-fc", "b6c32-gpool-vpool", "tiny-gpool-vpool-mat", "small-own". Throws
// vz::Error naming the preset and saying what is wrong if the name is not of that form, or has mat
// without vpool or for a game without piece types (material_types < 1).
NetArchitecture PresetArchitecture(std::string_view name, int planes, int height, int width,
                                   int num_actions, const PolicyLayout& layout,
                                   int material_types = 0);

// Throws PresetArchitecture's error if `name` is not a preset name (checks the name alone, for
// configs read before the game's shapes are known).
void CheckPresetName(std::string_view name);

// The preset for game G's encoding (engine/input_encoding.h).
template <Game G>
NetArchitecture PresetArchitectureFor(std::string_view name) {
  using E = InputEncoding<G>;
  return PresetArchitecture(name, E::kPlanes, E::kHeight, E::kWidth, E::kNumActions,
                            PolicyLayoutFor<G>(), PieceTypes<G>::kNumTypes);
}

// The board's own cells of the grid, float[height * width] (row-major): 1 for a cell that some
// action of the conv policy head reads its logit at (the from cell of every move: every cell a
// piece can stand on and move from), 0 for the padding of a board that is not a rectangle (Chaco
// Rex's 9x19 grid of 85 hexagons, Cuarenta's 40 light squares of 9x9); every cell is 1 for an fc
// policy head. What the pooling of the value head and the global pooling blocks average over.
std::vector<float> BoardCellMask(const NetArchitecture& architecture);

// Throws vz::Error naming `source` and the first bad field if a size is out of range (blocks
// 0..64, channels 1..1024, every other size >= 1, se_ratio dividing nothing to zero,
// global_pooling_channels 0..channels with global_pooling_every 1..blocks exactly when it is not
// 0, material_outputs 0..64 and 0 without a pooled value head), or if the
// conv head's policy_planes is not in 1..4096 or its policy_map does not send every action to
// its own index in [0, policy_planes * height * width) (an fc head must have neither), or if the
// tower's 3x3 weights (blocks x 2 x channels^2 x 9) exceed 400 million (a net file holds under
// 2 GiB).
void ValidateArchitecture(const NetArchitecture& architecture, std::string_view source);

// One line: "10x128 SE, policy conv 128/96, value 4/128, input 12x12x12, 13824 actions" (fc
// heads: "policy fc 8"; a pooled value head "value pool 128/128"; global pooling blocks add
// " gpool 32/3" after the tower: pooled channels / every how many blocks; a material head
// ", material 5" after the value head, and an ownership head ", ownership").
std::string DescribeArchitecture(const NetArchitecture& architecture);

// Floating-point operations of one position's forward pass (a multiply-add counts 2): the
// convolutions and linear layers with their batch norms folded; activations, pooling, biases and
// gathers are not counted. With `legal_actions` < 0 the dense policy head (every action's
// logit); else the head evaluated at `legal_actions` requested actions a position
// (RunnerOptions::legal_policy). The material and ownership heads are not counted (play never runs
// them). For nnbench's roofline: GFLOP/s = positions/s * this / 1e9.
double ForwardFlops(const NetArchitecture& architecture, double legal_actions = -1);

}  // namespace vz::nets
