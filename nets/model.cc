#include "nets/model.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <fmt/core.h>
#include <torch/cuda.h>
#include <torch/utils.h>

#include <array>
#include <cstring>
#include <set>

#include "engine/core/error.h"
#include "nets/fresh_net.h"

namespace vz::nets {

namespace nn = torch::nn;

namespace {

// `x` in float32: the legal-moves head sums its products in float32 in every precision, as the
// dense head's 1x1 convolution accumulates (a bf16 sum of 16-32 bf16 products would round each),
// and the global pooling reduces in float32 (PoolBoardCells).
torch::Tensor Float32(const torch::Tensor& x) {
  return x.scalar_type() == torch::kFloat32 ? x : x.to(torch::kFloat32);
}

}  // namespace

ConvBnImpl::ConvBnImpl(int in_channels, int out_channels, int kernel) {
  conv = register_module(
      "conv",
      nn::Conv2d(
          nn::Conv2dOptions(in_channels, out_channels, kernel).padding(kernel / 2).bias(false)));
  bn = register_module("bn", nn::BatchNorm2d(out_channels));
}

namespace {

// oneDNN's fused convolution ops, from the dispatcher (they have no C++ function of their own);
// nullopt where this LibTorch lacks them.
using ScalarList = c10::List<std::optional<c10::Scalar>>;
using UnaryConvolution = torch::Tensor(const torch::Tensor&, const torch::Tensor&,
                                       const std::optional<torch::Tensor>&, c10::IntArrayRef,
                                       c10::IntArrayRef, c10::IntArrayRef, int64_t,
                                       c10::string_view, ScalarList,
                                       std::optional<c10::string_view>);
using BinaryConvolution = torch::Tensor(const torch::Tensor&, const torch::Tensor&,
                                        const torch::Tensor&, const std::optional<torch::Tensor>&,
                                        c10::IntArrayRef, c10::IntArrayRef, c10::IntArrayRef,
                                        int64_t, c10::string_view, std::optional<c10::Scalar>,
                                        std::optional<c10::string_view>, ScalarList,
                                        std::optional<c10::string_view>);
using ReorderWeight = torch::Tensor(const torch::Tensor&, c10::IntArrayRef, c10::IntArrayRef,
                                    c10::IntArrayRef, int64_t, at::OptionalIntArrayRef);

struct OneDnnOps {
  std::optional<c10::TypedOperatorHandle<UnaryConvolution>> unary;
  std::optional<c10::TypedOperatorHandle<BinaryConvolution>> binary;
  std::optional<c10::TypedOperatorHandle<ReorderWeight>> reorder;
};

// The ops, looked up once (thread-safe); all three empty when one is missing or its C++ signature
// is not the one above (another LibTorch).
const OneDnnOps& OneDnn() {
  static const OneDnnOps ops = [] {
    OneDnnOps found;
    auto& dispatcher = c10::Dispatcher::singleton();
    const auto unary = dispatcher.findSchema({"mkldnn::_convolution_pointwise", ""});
    const auto binary = dispatcher.findSchema({"mkldnn::_convolution_pointwise", "binary"});
    const auto reorder = dispatcher.findSchema({"mkldnn::_reorder_convolution_weight", ""});
    if (!unary || !binary || !reorder) return found;
    try {
      found.unary = unary->typed<UnaryConvolution>();
      found.binary = binary->typed<BinaryConvolution>();
      found.reorder = reorder->typed<ReorderWeight>();
    } catch (const c10::Error&) {
      return OneDnnOps{};
    }
    return found;
  }();
  return ops;
}

// Drops the packed weights of every convolution of `net`.
void UnpackConvolutions(PolicyValueNetImpl& net) {
  for (const auto& module : net.modules(/*include_self=*/false)) {
    if (auto* unit = module->as<ConvBnImpl>()) unit->packed_weight = torch::Tensor();
  }
}

}  // namespace

torch::Tensor ConvBnImpl::forward(const torch::Tensor& x) {
  if (packed_weight.defined()) return Packed(x, "none", nullptr);
  if (folded_weight.defined()) {
    return torch::conv2d(x, folded_weight, folded_bias, /*stride=*/1,
                         /*padding=*/folded_weight.size(2) / 2);
  }
  return bn(conv(x));
}

torch::Tensor ConvBnImpl::ForwardRelu(const torch::Tensor& x) {
  if (packed_weight.defined()) return Packed(x, "relu", nullptr);
  return torch::relu(forward(x));
}

torch::Tensor ConvBnImpl::ForwardAddRelu(const torch::Tensor& x, const torch::Tensor& skip) {
  if (packed_weight.defined()) return Packed(x, "relu", &skip);
  return torch::relu(skip + forward(x));
}

torch::Tensor ConvBnImpl::Packed(const torch::Tensor& x, std::string_view activation,
                                 const torch::Tensor* skip) const {
  const int64_t padding = folded_weight.size(2) / 2;
  const std::array<int64_t, 2> pad{padding, padding}, one{1, 1};  // no allocation per call
  if (skip == nullptr) {
    return OneDnn().unary->call(x, packed_weight, folded_bias, pad, one, one, 1, activation,
                                ScalarList(), "");
  }
  return OneDnn().binary->call(x, *skip, packed_weight, folded_bias, pad, one, one, 1, "add",
                               c10::Scalar(1.0), activation, ScalarList(), "");
}

SqueezeExcitationImpl::SqueezeExcitationImpl(int channels, int ratio) {
  const int hidden = std::max(1, channels / ratio);
  fc1 = register_module("fc1", nn::Linear(channels, hidden));
  fc2 = register_module("fc2", nn::Linear(hidden, channels));
}

torch::Tensor SqueezeExcitationImpl::forward(const torch::Tensor& x) {
  torch::Tensor w = x.mean({2, 3});
  w = torch::sigmoid(fc2(torch::relu(fc1(w))));
  return x * w.unsqueeze(-1).unsqueeze(-1);
}

torch::Tensor PoolBoardCells(const torch::Tensor& x, const BoardCells& board) {
  // Reduced in float32 either way: LibTorch's bf16 reductions over the spatial dimensions took 2
  // to 6 times as long on these sizes (docs/performance.md, *Global pooling and the allocator*).
  torch::Tensor pooled;
  if (!x.is_contiguous() && x.is_contiguous(torch::MemoryFormat::ChannelsLast)) {
    // Channels-last: the board's cells gathered from the [batch, area, channels] view, as whole
    // rows of channels.
    const int64_t batch = x.size(0), channels = x.size(1), area = x.size(2) * x.size(3);
    const torch::Tensor cells = Float32(
        x.permute({0, 2, 3, 1}).reshape({batch, area, channels}).index_select(1, board.index));
    pooled = torch::cat({cells.mean(1), cells.amax(1)}, 1);
  } else {
    // NCHW: a gather along the innermost dimension is slower than masking the grid; x >= 0, so
    // the masked-out zeros never win the maximum.
    const torch::Tensor masked = Float32(x * board.mask);
    pooled = torch::cat({masked.sum({2, 3}) / double(board.index.size(0)), masked.amax({2, 3})}, 1);
  }
  return pooled.scalar_type() == x.scalar_type() ? pooled : pooled.to(x.scalar_type());
}

ResidualBlockImpl::ResidualBlockImpl(int channels, bool squeeze_excitation, int se_ratio,
                                     int pooled_channels) {
  conv1 = register_module("conv1", ConvBn(channels, channels, 3));
  conv2 = register_module("conv2", ConvBn(channels, channels, 3));
  if (squeeze_excitation) se = register_module("se", SqueezeExcitation(channels, se_ratio));
  if (pooled_channels > 0) {
    pool = register_module("pool", ConvBn(channels, pooled_channels, 3));
    pool_fc = register_module("pool_fc", nn::Linear(2 * pooled_channels, channels));
  }
}

torch::Tensor ResidualBlockImpl::forward(const torch::Tensor& x, const BoardCells& board) {
  torch::Tensor y;
  if (pool) {
    const torch::Tensor bias = pool_fc(PoolBoardCells(pool->ForwardRelu(x), board));
    y = torch::relu(conv1(x) + bias.unsqueeze(-1).unsqueeze(-1));
  } else {
    y = conv1->ForwardRelu(x);
  }
  if (se) return torch::relu(x + se(conv2(y)));
  return conv2->ForwardAddRelu(y, x);
}

PolicyValueNetImpl::PolicyValueNetImpl(const NetArchitecture& a) : architecture(a) {
  const int area = a.height * a.width;
  input = register_module("input", ConvBn(a.input_planes, a.channels, 3));
  tower = nn::Sequential();
  for (int i = 0; i < a.blocks; ++i) {
    const bool pooled = a.global_pooling_channels > 0 && (i + 1) % a.global_pooling_every == 0;
    tower->push_back(ResidualBlock(a.channels, a.squeeze_excitation, a.se_ratio,
                                   pooled ? a.global_pooling_channels : 0));
  }
  register_module("tower", tower);
  const std::vector<float> mask = BoardCellMask(a);
  board_mask = torch::tensor(mask, torch::kFloat32).view({1, 1, a.height, a.width});
  std::vector<int64_t> on_board;
  for (size_t cell = 0; cell < mask.size(); ++cell) {
    if (mask[cell] == 1.0f) on_board.push_back(int64_t(cell));
  }
  board_index = torch::tensor(on_board, torch::kInt64);
  board_cells = double(on_board.size());
  if (a.policy_head == PolicyHead::kConv) {
    policy_conv = register_module("policy", ConvBn(a.channels, a.policy_channels, 3));
    policy_planes = register_module(
        "policy_planes", nn::Conv2d(nn::Conv2dOptions(a.policy_channels, a.policy_planes, 1)));
    std::vector<int64_t> index(a.policy_map.begin(), a.policy_map.end());
    policy_index = torch::tensor(index, torch::kInt64);
    policy_plane = torch::div(policy_index, area, "floor");
    policy_cell = torch::remainder(policy_index, area);
  } else {
    policy_conv = register_module("policy", ConvBn(a.channels, a.policy_channels, 1));
    policy_fc = register_module("policy_fc", nn::Linear(a.policy_channels * area, a.num_actions));
  }
  value_conv = register_module("value", ConvBn(a.channels, a.value_channels, 1));
  const int value_inputs =
      a.value_head == ValueHead::kPool ? 2 * a.value_channels : a.value_channels * area;
  value_fc1 = register_module("value_fc1", nn::Linear(value_inputs, a.value_hidden));
  value_fc2 = register_module("value_fc2", nn::Linear(a.value_hidden, 3));
  if (a.material_outputs > 0) {
    material_fc =
        register_module("material_fc", nn::Linear(2 * a.value_channels, a.material_outputs));
  }
  if (a.ownership) {
    ownership = register_module("ownership",
                                nn::Conv2d(nn::Conv2dOptions(a.channels, kOccupancyClasses, 1)));
  }
}

torch::Tensor PolicyValueNetImpl::OnDevice(const torch::Tensor& index,
                                           const torch::Device& device) {
  return index.device() == device ? index : index.to(device);
}

std::pair<torch::Tensor, BoardCells> PolicyValueNetImpl::Trunk(const torch::Tensor& x) {
  torch::Tensor trunk = input->ForwardRelu(x);
  // The mask and the index follow the net's `to`; a net moved otherwise still pools on its
  // device and dtype.
  BoardCells board;
  board.mask = board_mask.device() == trunk.device() && board_mask.dtype() == trunk.dtype()
                   ? board_mask
                   : board_mask.to(trunk.device(), trunk.scalar_type());
  board.index = OnDevice(board_index, trunk.device());
  for (size_t i = 0; i < tower->size(); ++i) {
    trunk = tower->ptr(i)->as<ResidualBlockImpl>()->forward(trunk, board);
  }
  return {trunk, board};
}

torch::Tensor PolicyValueNetImpl::ValueLogits(const torch::Tensor& trunk, const BoardCells& board,
                                              AuxiliaryOutputs* auxiliary) {
  if (auxiliary != nullptr && ownership) auxiliary->ownership = ownership(trunk);
  torch::Tensor value = value_conv->ForwardRelu(trunk);
  value =
      architecture.value_head == ValueHead::kPool ? PoolBoardCells(value, board) : value.flatten(1);
  if (auxiliary != nullptr && material_fc) auxiliary->material = material_fc(value);
  return value_fc2(torch::relu(value_fc1(value)));
}

std::pair<torch::Tensor, torch::Tensor> PolicyValueNetImpl::forward(const torch::Tensor& x,
                                                                    AuxiliaryOutputs* auxiliary) {
  const auto [trunk, board] = Trunk(x);
  torch::Tensor policy = policy_conv->ForwardRelu(trunk);
  if (policy_planes) {
    policy =
        policy_planes(policy).flatten(1).index_select(1, OnDevice(policy_index, policy.device()));
  } else {
    policy = policy_fc(policy.flatten(1));
  }
  return {policy, ValueLogits(trunk, board, auxiliary)};
}

std::pair<torch::Tensor, torch::Tensor> PolicyValueNetImpl::ForwardActions(
    const torch::Tensor& x, const torch::Tensor& rows, const torch::Tensor& actions,
    AuxiliaryOutputs* auxiliary) {
  const auto [trunk, board] = Trunk(x);
  const torch::Tensor features = policy_conv->ForwardRelu(trunk);  // [batch, P, height, width]
  torch::Tensor logits;
  if (policy_planes) {
    const int64_t area = int64_t(architecture.height) * architecture.width;
    const int64_t channels = features.size(1);
    // [batch * area, P]: the features of each cell, gathered at each action's (entry, cell).
    const torch::Tensor by_cell = features.permute({0, 2, 3, 1}).reshape({-1, channels});
    const torch::Tensor plane = OnDevice(policy_plane, x.device()).index_select(0, actions);
    const torch::Tensor cell = OnDevice(policy_cell, x.device()).index_select(0, actions);
    const torch::Tensor at = Float32(by_cell.index_select(0, rows * area + cell));
    const torch::Tensor weight =
        Float32(policy_planes->weight.view({-1, channels}).index_select(0, plane));
    logits = (at * weight).sum(1) + Float32(policy_planes->bias.index_select(0, plane));
  } else {
    const torch::Tensor flat = Float32(features.flatten(1).index_select(0, rows));
    logits = (flat * Float32(policy_fc->weight.index_select(0, actions))).sum(1) +
             Float32(policy_fc->bias.index_select(0, actions));
  }
  return {logits, ValueLogits(trunk, board, auxiliary)};
}

void PolicyValueNetImpl::MoveIndices(torch::Device device) {
  for (torch::Tensor* index : {&policy_index, &policy_plane, &policy_cell, &board_index}) {
    if (index->defined()) *index = index->to(device);
  }
}

void PolicyValueNetImpl::to(torch::Device device, torch::Dtype dtype, bool non_blocking) {
  UnpackConvolutions(*this);
  Module::to(device, dtype, non_blocking);
  MoveIndices(device);
  board_mask = board_mask.to(device, dtype);
}

void PolicyValueNetImpl::to(torch::Dtype dtype, bool non_blocking) {
  UnpackConvolutions(*this);
  Module::to(dtype, non_blocking);
  board_mask = board_mask.to(dtype);
}

void PolicyValueNetImpl::to(torch::Device device, bool non_blocking) {
  UnpackConvolutions(*this);
  Module::to(device, non_blocking);
  MoveIndices(device);
  board_mask = board_mask.to(device);
}

void FoldBatchNorm(PolicyValueNet& net) {
  torch::NoGradGuard no_grad;
  for (const auto& module : net->modules(/*include_self=*/false)) {
    auto* unit = module->as<ConvBnImpl>();
    if (unit == nullptr) continue;
    const auto& bn = unit->bn;
    const torch::Tensor scale =
        bn->weight.to(torch::kFloat32) /
        torch::sqrt(bn->running_var.to(torch::kFloat32) + bn->options.eps());
    unit->folded_weight = unit->conv->weight.to(torch::kFloat32) * scale.view({-1, 1, 1, 1});
    unit->folded_bias = bn->bias.to(torch::kFloat32) - bn->running_mean.to(torch::kFloat32) * scale;
    // Registered as buffers, so that the net's `to(device, dtype)` moves them with the rest.
    unit->register_buffer("folded_weight", unit->folded_weight);
    unit->register_buffer("folded_bias", unit->folded_bias);
  }
}

bool PackConvolutions(PolicyValueNet& net) {
  if (!OneDnn().reorder) return false;
  std::vector<ConvBnImpl*> units;
  for (const auto& module : net->modules(/*include_self=*/false)) {
    auto* unit = module->as<ConvBnImpl>();
    if (unit == nullptr) continue;
    if (!unit->folded_weight.defined() || !unit->folded_weight.device().is_cpu()) return false;
    units.push_back(unit);
  }
  torch::NoGradGuard no_grad;
  try {
    for (ConvBnImpl* unit : units) {
      // No input size: oneDNN's blocked layout for the weight is the same for every batch and for
      // channels-last inputs (no reorder at run time, checked with ONEDNN_VERBOSE).
      const int64_t padding = unit->folded_weight.size(2) / 2;
      unit->packed_weight = OneDnn().reorder->call(unit->folded_weight, {padding, padding}, {1, 1},
                                                   {1, 1}, 1, std::nullopt);
    }
  } catch (const c10::Error&) {
    // oneDNN refuses the dtype on this CPU (bf16 without AVX-512 or AVX-NE-CONVERT): plain ops.
    UnpackConvolutions(*net);
    return false;
  }
  return !units.empty();
}

std::vector<std::pair<std::string, torch::Tensor>> NamedState(PolicyValueNet& net) {
  std::vector<std::pair<std::string, torch::Tensor>> state;
  for (const auto& item : net->named_parameters()) state.emplace_back(item.key(), item.value());
  for (const auto& item : net->named_buffers()) {
    if (item.key().ends_with("num_batches_tracked")) continue;
    if (item.key().ends_with("folded_weight") || item.key().ends_with("folded_bias")) continue;
    state.emplace_back(item.key(), item.value());
  }
  return state;
}

std::vector<NetTensor> ExportTensors(PolicyValueNet& net) {
  std::vector<NetTensor> tensors;
  torch::NoGradGuard no_grad;
  for (auto& [name, value] : NamedState(net)) {
    const torch::Tensor host = value.detach().to(torch::kCPU, torch::kFloat32).contiguous();
    NetTensor tensor;
    tensor.name = name;
    tensor.shape.assign(host.sizes().begin(), host.sizes().end());
    tensor.data.resize(size_t(host.numel()));
    std::memcpy(tensor.data.data(), host.data_ptr<float>(), tensor.data.size() * sizeof(float));
    tensors.push_back(std::move(tensor));
  }
  return tensors;
}

void ImportTensors(PolicyValueNet& net, const NetFile& file, std::string_view source) {
  torch::NoGradGuard no_grad;
  std::set<std::string> used;
  for (auto& [name, value] : NamedState(net)) {
    const std::vector<int64_t> shape(value.sizes().begin(), value.sizes().end());
    const NetTensor* tensor = file.Find(name);
    if (!tensor) {
      throw Error(fmt::format("net file {}: missing tensor '{}' (shape {})", source, name,
                              ShapeString(shape)));
    }
    if (tensor->shape != shape) {
      throw Error(fmt::format("net file {}: tensor '{}' has shape {}, the architecture needs {}",
                              source, name, ShapeString(tensor->shape), ShapeString(shape)));
    }
    const torch::Tensor host =
        torch::from_blob(const_cast<float*>(tensor->data.data()), value.sizes(), torch::kFloat32);
    value.copy_(host);
    used.insert(name);
  }
  for (const NetTensor& tensor : file.tensors) {
    if (!used.count(tensor.name)) {
      throw Error(
          fmt::format("net file {}: unexpected tensor '{}' (shape {}) that the "
                      "architecture does not have",
                      source, tensor.name, ShapeString(tensor.shape)));
    }
  }
}

PolicyValueNet MakeFreshNet(const NetArchitecture& architecture, uint64_t seed) {
  ValidateArchitecture(architecture, "net architecture");
  torch::manual_seed(seed);
  return PolicyValueNet(architecture);
}

std::optional<torch::Dtype> PrecisionDtype(std::string_view precision) {
  if (precision == "fp32") return torch::kFloat32;
  if (precision == "fp16") return torch::kFloat16;
  if (precision == "bf16") return torch::kBFloat16;
  return std::nullopt;
}

torch::Device ParseDevice(const std::string& device) {
  if (device == "cpu") return torch::Device(torch::kCPU);
  if (device == "cuda" || device.starts_with("cuda:")) {
    int index = 0;
    if (device.size() > 5) {
      const std::string digits = device.substr(5);
      if (digits.empty() || digits.size() > 3 ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        throw Error(fmt::format("device '{}': expected cpu, cuda or cuda:N", device));
      }
      index = std::stoi(digits);
    }
    const int count = int(torch::cuda::device_count());
    if (count == 0) throw Error(fmt::format("device '{}': no CUDA device is present", device));
    if (index >= count) {
      throw Error(fmt::format("device '{}': only {} CUDA device(s) present", device, count));
    }
    return torch::Device(torch::kCUDA, int8_t(index));
  }
  throw Error(fmt::format("device '{}': expected cpu, cuda or cuda:N", device));
}

}  // namespace vz::nets

namespace vz::nets::torch_impl {

NetFile FreshNet(const NetFile& header, uint64_t seed) {
  NetFile net = header;
  PolicyValueNet model = MakeFreshNet(header.architecture, seed);
  net.tensors = ExportTensors(model);
  net.provenance.created = UtcNow();
  return net;
}

}  // namespace vz::nets::torch_impl
