#pragma once

// The LibTorch policy/value network (nets/net_architecture.h describes its shape). Included only
// by nets/*.cc: the rest of vzero uses the torch-free NetRunner, Trainer and TorchEvaluator.
//
// Tensors:
//   input   [batch, input_planes, height, width]   float planes from InputEncoding<G>::Encode
//   policy  [batch, num_actions]                    logits (no softmax; masking is the caller's)
//   value   [batch, 3]                              WDL logits of the side to move
//
// Module names (the tensor names of net files): input.{conv.weight, bn.weight, bn.bias,
// bn.running_mean, bn.running_var}; tower.<i>.{conv1,conv2}.{conv,bn}.* and, with
// squeeze-and-excitation, tower.<i>.se.{fc1,fc2}.{weight,bias}; policy.{conv,bn}.* (1x1 for an
// fc head, 3x3 for a conv head), then policy_fc.{weight,bias} (fc head) or
// policy_planes.{weight,bias} (conv head: 1x1 convolution to policy_planes planes, whose
// [batch, planes * height * width] outputs are gathered at policy_map into [batch, num_actions]);
// value.{conv,bn}.*, value_fc1.*, value_fc2.* (value_fc1 takes value_channels * height * width
// inputs with the fc value head, 2 * value_channels with the pooled one). A global pooling block
// adds tower.<i>.pool.{conv,bn}.* (its 3x3 convolution to the pooled channels) and
// tower.<i>.pool_fc.{weight,bias} (2 * pooled channels -> channels); a material head
// material_fc.{weight,bias} (2 * value_channels -> material_outputs); an ownership head
// ownership.{weight,bias} (1x1 convolution, channels -> kOccupancyClasses).

#include <torch/nn.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nets/net_architecture.h"
#include "nets/net_file.h"

namespace vz::nets {

// 3x3 convolution without bias, batch norm: the unit every block repeats.
// After FoldBatchNorm, forward is one convolution with the batch norm folded into its weight
// and bias (inference only: the folded copies are not parameters and do not follow training).
// After PackConvolutions as well, that convolution is oneDNN's, with its weight in oneDNN's
// blocked layout and the ReLU and the skip addition that follow it fused into it. Shapes:
// x [batch, in_channels, height, width] -> [batch, out_channels, height, width]; a shape or dtype
// that does not fit throws c10::Error. Forward passes may run on several threads at once.
struct ConvBnImpl : torch::nn::Module {
  ConvBnImpl(int in_channels, int out_channels, int kernel);
  torch::Tensor forward(const torch::Tensor& x);
  // relu(forward(x)), fused after PackConvolutions.
  torch::Tensor ForwardRelu(const torch::Tensor& x);
  // relu(forward(x) + skip), `skip` of the output's shape; fused after PackConvolutions.
  torch::Tensor ForwardAddRelu(const torch::Tensor& x, const torch::Tensor& skip);
  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::Tensor folded_weight, folded_bias;  // undefined until FoldBatchNorm
  torch::Tensor packed_weight;  // undefined until PackConvolutions; cleared by the net's `to`

 private:
  // oneDNN's convolution of x with the packed weight and the folded bias, then `skip` added (when
  // not null), then `activation` ("none" or "relu").
  torch::Tensor Packed(const torch::Tensor& x, std::string_view activation,
                       const torch::Tensor* skip) const;
};
TORCH_MODULE(ConvBn);

// Squeeze-and-excitation: channel weights from the global average (Hu et al. 2018).
struct SqueezeExcitationImpl : torch::nn::Module {
  SqueezeExcitationImpl(int channels, int ratio);
  torch::Tensor forward(const torch::Tensor& x);
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(SqueezeExcitation);

// The board's own cells (BoardCellMask) in the two forms global pooling reads, on a trunk's
// device: mask [1, 1, height, width] in the trunk's dtype, 1 on the board's cells and 0 elsewhere;
// index [cells] int64, their flat indices (row * width + column).
struct BoardCells {
  torch::Tensor mask;
  torch::Tensor index;
};

// The mean and the maximum of each channel of x [batch, channels, height, width] (NCHW or
// channels-last) over the board's own cells (KataGo's global pooling, over the board rather than
// the grid); x must be >= 0 (after a ReLU). Reduced in float32, returned in x's dtype as
// [batch, 2 * channels] (means first). A channels-last x is pooled by gathering board.index, any
// other by masking with board.mask. On the CPU an index out of [0, height * width), and on any
// device a mask of another device or shape, throws c10::Error; on CUDA an index out of range is
// a device-side assert.
torch::Tensor PoolBoardCells(const torch::Tensor& x, const BoardCells& board);

// Two 3x3 ConvBn with a skip connection (AlphaZero), optionally squeeze-and-excitation, and with
// pooled_channels > 0 KataGo's global pooling bias (nets/net_architecture.h).
struct ResidualBlockImpl : torch::nn::Module {
  ResidualBlockImpl(int channels, bool squeeze_excitation, int se_ratio, int pooled_channels = 0);
  // x [batch, channels, height, width]; `board` on x's device (unused without global pooling).
  torch::Tensor forward(const torch::Tensor& x, const BoardCells& board);
  ConvBn conv1{nullptr}, conv2{nullptr};
  SqueezeExcitation se{nullptr};
  ConvBn pool{nullptr};  // global pooling only
  torch::nn::Linear pool_fc{nullptr};
};
TORCH_MODULE(ResidualBlock);

// The outputs of the heads that only training reads (forward's and ForwardActions' optional
// argument), in the net's dtype (bf16 under autocast); each is set when the net has the head and
// left undefined otherwise.
struct AuxiliaryOutputs {
  // [batch, material_outputs]: the predicted piece-count difference of each type, side to move's
  // view (NetArchitecture::material_outputs).
  torch::Tensor material;
  // [batch, kOccupancyClasses, height, width]: logits of each grid cell's occupant in the game's
  // last position, side to move's view and frame (NetArchitecture::ownership).
  torch::Tensor ownership;
};

struct PolicyValueNetImpl : torch::nn::Module {
  explicit PolicyValueNetImpl(const NetArchitecture& architecture);
  // Returns {policy logits [batch, num_actions], WDL logits [batch, 3]}. With `auxiliary` given,
  // also sets the outputs of the net's training-only heads there (AuxiliaryOutputs).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& input,
                                                  AuxiliaryOutputs* auxiliary = nullptr);

  // The policy logits of the requested actions only (the legal moves), with the same weights and
  // the same values as forward's, up to float rounding: the trunk and the policy head's first
  // convolution run over the board, and then the head's last layer only where an action reads
  // it (the conv head: the 1x1 layer's row of the action's plane dotted with the features at the
  // action's cell; the fc head: the fc layer's row of the action). The dense head writes
  // policy_planes x height x width logits a position (54,891 in Chaco Rex) where a search reads a
  // few dozen.
  //   input    [batch, input_planes, height, width]
  //   rows     [total] int64 on the net's device: the batch entry of each requested action, in
  //            any order, repeats allowed
  //   actions  [total] int64 on the net's device: the action, in [0, num_actions)
  // Returns {logits [total] float32 (the products are summed in float32 in every precision),
  // WDL logits [batch, 3] in the net's dtype}; `auxiliary` as forward's. Indices out of range
  // throw c10::Error (index_select's check).
  std::pair<torch::Tensor, torch::Tensor> ForwardActions(const torch::Tensor& input,
                                                         const torch::Tensor& rows,
                                                         const torch::Tensor& actions,
                                                         AuxiliaryOutputs* auxiliary = nullptr);

  // Module::to, and the conv head's gather indices, board_index and the board mask to the device
  // (they are no buffers, so that a dtype change leaves the indices int64 and the net file stores
  // none of them).
  void to(torch::Device device, torch::Dtype dtype, bool non_blocking = false) override;
  void to(torch::Dtype dtype, bool non_blocking = false) override;
  void to(torch::Device device, bool non_blocking = false) override;

  NetArchitecture architecture;
  ConvBn input{nullptr};
  torch::nn::Sequential tower{nullptr};
  ConvBn policy_conv{nullptr};
  torch::nn::Linear policy_fc{nullptr};      // fc head
  torch::nn::Conv2d policy_planes{nullptr};  // conv head
  torch::Tensor policy_index;                // conv head: architecture.policy_map, int64
  torch::Tensor policy_plane, policy_cell;   // conv head: policy_index / area, % area (int64)
  torch::Tensor board_mask;                  // [1, 1, height, width]: BoardCellMask
  double board_cells = 0;                    // cells where board_mask is 1
  torch::Tensor board_index;                 // [board_cells] int64: their flat indices
  ConvBn value_conv{nullptr};
  torch::nn::Linear value_fc1{nullptr}, value_fc2{nullptr};
  torch::nn::Linear material_fc{nullptr};  // material head only
  torch::nn::Conv2d ownership{nullptr};    // ownership head only

 private:
  // The tower's output [batch, channels, height, width] and the board's cells on its device.
  std::pair<torch::Tensor, BoardCells> Trunk(const torch::Tensor& input);
  // The WDL logits [batch, 3] of a trunk; `board` on its device (Trunk's); with `auxiliary`,
  // also the training-only heads' outputs (the ownership head reads the trunk, the material head
  // the pooled value features).
  torch::Tensor ValueLogits(const torch::Tensor& trunk, const BoardCells& board,
                            AuxiliaryOutputs* auxiliary);
  // The device copy of an index tensor that follows the net's `to` (a net moved otherwise still
  // gathers on its device).
  static torch::Tensor OnDevice(const torch::Tensor& index, const torch::Device& device);
  // Moves the index tensors (policy_index, policy_plane, policy_cell, board_index) to `device`.
  void MoveIndices(torch::Device device);
};
TORCH_MODULE(PolicyValueNet);

// Every tensor of the state (parameters, then buffers except num_batches_tracked), by name.
std::vector<std::pair<std::string, torch::Tensor>> NamedState(PolicyValueNet& net);

// Folds every batch norm into the convolution before it, for inference (the standard
// conv-BN fusion of inference engines; Lc0 and KataGo do it when they load a net): with
// s = gamma / sqrt(running_var + eps), weight' = weight * s (per output channel) and
// bias' = beta - running_mean * s. Call it on a net in eval mode after its tensors are imported
// and before it is moved to its device and dtype (the fold is computed in float32). The saved
// tensors (NamedState, ExportTensors) are unchanged; a net that trains must not be folded.
void FoldBatchNorm(PolicyValueNet& net);

// Reorders the folded weight of every convolution of `net` once into oneDNN's blocked layout, so
// that ConvBn's forward passes run oneDNN's convolution with the bias, the ReLU and a residual
// block's skip addition fused into it (mkldnn::_convolution_pointwise), instead of a plain
// convolution that reorders its weight on every call and then one pass over the output per
// elementwise op. For CPU inference after FoldBatchNorm and after the net's last `to` (which
// unpacks: a packed weight would not follow it). The outputs are the same up to float rounding
// (the sum of the skip addition is rounded once instead of twice). Measured faster in bf16 on an
// AMX Xeon and not in fp32 (docs/performance.md, *Fused convolutions in bf16*). Returns false,
// leaving every weight unpacked, when the net is not folded, not on the CPU,
// this LibTorch lacks oneDNN's fused convolution ops (mkldnn::_convolution_pointwise and
// mkldnn::_reorder_convolution_weight) or oneDNN refuses the weights' dtype on this CPU. Throws
// nothing of its own; not thread-safe (call it before the forward passes start).
bool PackConvolutions(PolicyValueNet& net);

// The state as net-file tensors (float32, on the host).
std::vector<NetTensor> ExportTensors(PolicyValueNet& net);

// Copies the tensors of `file` into `net`. Throws vz::Error naming `source` and the tensor if one
// the architecture needs is missing, has another shape, or the file has one it does not need.
void ImportTensors(PolicyValueNet& net, const NetFile& file, std::string_view source);

// A network with fresh weights (PyTorch's default initialisation, seeded by `seed`).
PolicyValueNet MakeFreshNet(const NetArchitecture& architecture, uint64_t seed);

// The tensor type of a precision name: "fp32" float32, "fp16" float16, "bf16" bfloat16; nullopt
// for any other name (the callers say what they accept).
std::optional<torch::Dtype> PrecisionDtype(std::string_view precision);

// Parses "cpu", "cuda", "cuda:N". Throws vz::Error naming the string if it is not a device or
// names a CUDA device that is not present.
torch::Device ParseDevice(const std::string& device);

}  // namespace vz::nets
