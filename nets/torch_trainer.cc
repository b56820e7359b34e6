// The LibTorch Trainer and ExportCheckpoint (nets/trainer.h), inside libvzero_nets.so.

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/autocast_mode.h>
#include <fmt/core.h>
#include <torch/optim.h>
#include <torch/serialize.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numbers>
#include <optional>
#include <shared_mutex>
#include <sstream>

// CUDA events (LibTorch's own header) where this build has CUDA: the pinned batch upload.
#if defined(VZ_HAVE_CUDA) && __has_include(<c10/cuda/CUDAEvent.h>)
#include <c10/cuda/CUDAEvent.h>
#include <c10/cuda/CUDAGuard.h>
#define VZ_TORCH_CUDA_EVENTS 1
#endif

#include "engine/core/error.h"
#include "engine/core/macros.h"
#include "engine/core/zobrist.h"
#include "nets/checkpoint_file.h"
#include "nets/distributed.h"
#include "nets/distributed_tensors.h"
#include "nets/fresh_net.h"
#include "nets/model.h"
#include "nets/net_runner.h"
#include "nets/torch_impl.h"

namespace vz::nets::torch_impl {
namespace {

// The loss metrics Loss returns (its comment names them).
constexpr int kLossMetrics = 7;

// The net file header without tensors: what a checkpoint must match.
std::string HeaderBytes(const NetFile& net) {
  NetFile header = net;
  header.tensors.clear();
  header.provenance = {};
  return SerializeNetFile(header);
}

torch::Tensor BytesTensor(const std::string& bytes) {
  torch::Tensor t = torch::empty({int64_t(bytes.size())}, torch::kUInt8);
  std::memcpy(t.data_ptr<uint8_t>(), bytes.data(), bytes.size());
  return t;
}

std::string TensorBytes(const torch::Tensor& t) {
  const torch::Tensor c = t.to(torch::kCPU).contiguous();
  return std::string(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()), size_t(c.numel()));
}

// The LibTorch side of nets::Trainer: the net on its device, the optimizer, the step count and
// the trainer's own generator (what a checkpoint holds), and the staging of batch uploads.
// Not thread-safe.
class TorchTrainer final : public Trainer::Impl {
 public:
  TorchTrainer(const NetFile& net, const TrainerOptions& options);
  TrainMetrics Step(const TrainingBatch& batch) override;
  TrainMetrics Evaluate(const TrainingBatch& batch) override;
  TrainMetrics Step(const CompactBatch& batch) override;
  TrainMetrics Evaluate(const CompactBatch& batch) override;
  void SetSampleCodec(std::shared_ptr<const SampleCodec> codec) override;
  void Predict(const float* planes, int batch, float* policy, float* wdl) override;
  void SaveCheckpoint(const std::string& path) const override;
  CheckpointLoad LoadCheckpoint(const std::string& path) override;
  NetFile ExportNet(uint64_t games, const std::string& parent,
                    const std::string& source_revision) const override;
  int64_t step() const override { return steps_; }
  std::string precision() const override { return options_.precision; }
  double LearningRate(int64_t step) const override;
  uint64_t NextRandom() override;

 private:
  struct DeviceBatch;
  // The pinned host tensors of a CUDA device's batch upload (staging_).
  struct PinnedStaging {
    torch::Tensor planes, policy, wdl, legal, material, ownership;
#if defined(VZ_TORCH_CUDA_EVENTS)
    c10::cuda::CUDAEvent copied;
#endif
  };
  struct CompactStaging {
    torch::Tensor positions, repetitions, symmetries, offsets, indices, probabilities;
  };
  // One optimizer step (Evaluate: the metrics) on the device batch `make` returns, `size`
  // samples; the device work of Step and Evaluate for both kinds of batch.
  TrainMetrics StepOn(const std::function<DeviceBatch()>& make, int size);
  TrainMetrics EvaluateOn(const std::function<DeviceBatch()>& make);

  void CheckBatch(const TrainingBatch& batch) const {
    const NetArchitecture& a = header_.architecture;
    const size_t n = size_t(batch.size);
    const size_t input = size_t(a.input_planes) * a.height * a.width;
    auto check = [&](size_t actual, size_t expected, const char* what) {
      if (actual != expected) {
        throw Error(fmt::format("training batch of {}: {} has {} values, expected {}", n, what,
                                actual, expected));
      }
    };
    if (batch.size < 1) throw Error("training batch is empty");
    check(batch.planes.size(), n * input, "planes");
    check(batch.policy.size(), n * size_t(a.num_actions), "policy");
    check(batch.wdl.size(), n * 3, "wdl");
    if (!batch.legal.empty()) check(batch.legal.size(), n * size_t(a.num_actions), "legal");
    CheckMaterial(batch.material, n, "training batch");
    CheckOwnership(batch.ownership, n, "training batch");
  }

  // A batch's material targets: none, or [n][material_outputs] of a net with a material head
  // (ignored otherwise); finite.
  void CheckMaterial(const std::vector<float>& material, size_t n, const char* what) const {
    const int outputs = header_.architecture.material_outputs;
    if (outputs == 0 || material.empty()) return;
    if (material.size() != n * size_t(outputs)) {
      throw Error(fmt::format("{} of {}: material has {} values, expected {} ({} piece types)",
                              what, n, material.size(), n * size_t(outputs), outputs));
    }
    for (size_t k = 0; k < material.size(); ++k) {
      if (!std::isfinite(material[k])) {
        throw Error(fmt::format("{}: material target {} of sample {} is not finite ({})", what,
                                k % size_t(outputs), k / size_t(outputs), material[k]));
      }
    }
  }

  // A batch's ownership targets: none, or [n][height * width] classes below kOccupancyClasses
  // for a net with an ownership head (ignored otherwise).
  void CheckOwnership(const std::vector<uint8_t>& ownership, size_t n, const char* what) const {
    const NetArchitecture& a = header_.architecture;
    if (!a.ownership || ownership.empty()) return;
    const size_t area = size_t(a.height) * size_t(a.width);
    if (ownership.size() != n * area) {
      throw Error(fmt::format("{} of {}: ownership has {} values, expected {} ({} cells)", what, n,
                              ownership.size(), n * area, area));
    }
    for (size_t k = 0; k < ownership.size(); ++k) {
      if (ownership[k] >= kOccupancyClasses) {
        throw Error(
            fmt::format("{}: ownership target of cell {} of sample {} is {}, not a class "
                        "below {}",
                        what, k % area, k / area, int(ownership[k]), kOccupancyClasses));
      }
    }
  }

  // The batch's ownership targets on the device, [n][height][width] uint8, or undefined (none
  // given, or a net without the head).
  torch::Tensor OwnershipOnDevice(const std::vector<uint8_t>& ownership, int64_t n) {
    const NetArchitecture& a = header_.architecture;
    if (!a.ownership || ownership.empty()) return {};
    return ToDevice(ownership, {n, a.height, a.width}, torch::kUInt8, staging_.ownership);
  }

  // The batch's material targets on the device, [n][material_outputs] float32, or undefined
  // (none given, or a net without the head).
  torch::Tensor MaterialOnDevice(const std::vector<float>& material, int64_t n) {
    const int outputs = header_.architecture.material_outputs;
    if (outputs == 0 || material.empty()) return {};
    return ToDevice(material, {n, outputs}, torch::kFloat32, staging_.material);
  }

  // `forward()`'s {policy logits, WDL logits}, in fp32 (a material output that `forward` sets is
  // converted by Loss): under bf16 mixed precision (TrainerOptions::precision "bf16") the forward
  // pass runs in LibTorch's autocast on the device's type (convolutions and matrix products in
  // bf16, weights and gradients in fp32).
  template <class Forward>
  std::pair<torch::Tensor, torch::Tensor> InPrecision(const Forward& forward) {
    if (options_.precision != "bf16") return forward();
    const c10::DeviceType type = device_.type();
    const bool was_enabled = at::autocast::is_autocast_enabled(type);
    const at::ScalarType was_dtype = at::autocast::get_autocast_dtype(type);
    at::autocast::set_autocast_enabled(type, true);
    at::autocast::set_autocast_dtype(type, torch::kBFloat16);
    at::autocast::increment_nesting();
    struct Restore {
      c10::DeviceType type;
      bool enabled;
      at::ScalarType dtype;
      ~Restore() {
        if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
        at::autocast::set_autocast_enabled(type, enabled);
        at::autocast::set_autocast_dtype(type, dtype);
      }
    } restore{type, was_enabled, was_dtype};
    auto [policy, value] = forward();
    return {policy.to(torch::kFloat32), value.to(torch::kFloat32)};
  }

  // `values` as a tensor of `shape` and type `dtype` (that of T) on the device. On the CPU a
  // view of `values` (from_blob, no copy: valid while they live). On a CUDA device (with CUDA
  // events in this build) a non-blocking copy from the pinned staging tensor `pinned`; the caller
  // calls staging.copied.synchronize() before the first and records it after the last copy.
  template <class T>
  torch::Tensor ToDevice(const std::vector<T>& values, const std::vector<int64_t>& shape,
                         torch::Dtype dtype, [[maybe_unused]] torch::Tensor& pinned) {
#if defined(VZ_TORCH_CUDA_EVENTS)
    if (device_.is_cuda()) {
      const int64_t count = int64_t(values.size());
      if (!pinned.defined() || pinned.numel() < count) {
        pinned = torch::empty({count}, torch::TensorOptions().dtype(dtype).pinned_memory(true));
      }
      std::memcpy(pinned.data_ptr(), values.data(), values.size() * sizeof(T));
      return pinned.narrow(0, 0, count).view(shape).to(device_, dtype, /*non_blocking=*/true);
    }
#endif
    return torch::from_blob(const_cast<T*>(values.data()), shape, dtype).to(device_);
  }

  // A batch on the trainer's device, as Loss reads it:
  //   input [n][planes][height][width] float32, policy_target [n][num_actions] float32,
  //   wdl_target [n][3] float32, legal [n][num_actions] bool (undefined: no mask),
  //   material_target [n][material_outputs] float32 (undefined: none),
  //   ownership_target [n][height][width] uint8 classes (undefined: none).
  struct DeviceBatch {
    torch::Tensor input, policy_target, wdl_target, legal, material_target, ownership_target;
    // Samples [first, first + count).
    DeviceBatch Slice(int64_t first, int64_t count) const {
      const auto part = [&](const torch::Tensor& t) {
        return t.defined() ? t.narrow(0, first, count) : torch::Tensor();
      };
      return {input.narrow(0, first, count),
              policy_target.narrow(0, first, count),
              wdl_target.narrow(0, first, count),
              part(legal),
              part(material_target),
              part(ownership_target)};
    }
  };

  // `batch` (checked) on the device.
  DeviceBatch Upload(const TrainingBatch& batch) {
    const NetArchitecture& a = header_.architecture;
    const int64_t n = batch.size;
#if defined(VZ_TORCH_CUDA_EVENTS)
    // The copies from the staging of the step before must be done before it is written again:
    // at once in the common case, where ReadMetrics's blocking copy to the host synchronised the
    // stream since; a wait after an exception cut a step short.
    if (device_.is_cuda()) staging_.copied.synchronize();
#endif
    DeviceBatch out;
    out.input = ToDevice(batch.planes, {n, a.input_planes, a.height, a.width}, torch::kFloat32,
                         staging_.planes);
    out.policy_target =
        ToDevice(batch.policy, {n, a.num_actions}, torch::kFloat32, staging_.policy);
    out.wdl_target = ToDevice(batch.wdl, {n, 3}, torch::kFloat32, staging_.wdl);
    out.material_target = MaterialOnDevice(batch.material, n);
    out.ownership_target = OwnershipOnDevice(batch.ownership, n);
    if (!batch.legal.empty()) {
      out.legal =
          ToDevice(batch.legal, {n, a.num_actions}, torch::kUInt8, staging_.legal).to(torch::kBool);
    }
#if defined(VZ_TORCH_CUDA_EVENTS)
    if (device_.is_cuda()) staging_.copied.record(c10::cuda::getCurrentCUDAStream(device_.index()));
#endif
    return out;
  }

  // `batch` (checked against the codec) expanded on the device into the dense batch that
  // ReplayWindow::Sample and AugmentBatch make of the same samples (nets/trainer.h
  // CompactBatch): the positions' planes and legal policy indices by the codec (the rule kernels
  // on a GPU), the sparse policy targets scattered, then each sample's symmetry applied to its
  // planes, target and mask through the codec's maps.
  DeviceBatch Expand(const CompactBatch& batch) {
    const NetArchitecture& a = header_.architecture;
    const SampleCodec& c = *codec_;
    const int64_t n = batch.size, actions = a.num_actions, area = int64_t(a.height) * a.width;
#if defined(VZ_TORCH_CUDA_EVENTS)
    // The codec's kernels launch on the current device: the trainer's.
    std::optional<c10::cuda::CUDAGuard> device_guard;
    if (device_.is_cuda()) {
      device_guard.emplace(device_.index());
      staging_.copied.synchronize();
    }
#endif
    // The codec reads the positions where it runs: on the device (the rule kernels) or in the
    // batch itself (the CPU twin).
    torch::Tensor positions, repetitions;
    if (!c.host) {
      positions = ToDevice(batch.positions, {int64_t(batch.positions.size())}, torch::kUInt8,
                           compact_staging_.positions);
      repetitions = ToDevice(batch.repetitions, {n}, torch::kInt32, compact_staging_.repetitions);
    }
    const torch::Tensor symmetries =
        ToDevice(batch.symmetries, {n}, torch::kInt32, compact_staging_.symmetries)
            .to(torch::kInt64);
    const int64_t total = int64_t(batch.target_indices.size());
    const torch::Tensor target_offsets =
        ToDevice(batch.target_offsets, {n + 1}, torch::kInt32, compact_staging_.offsets);
    const torch::Tensor target_indices =
        ToDevice(batch.target_indices, {total}, torch::kInt32, compact_staging_.indices);
    const torch::Tensor target_probabilities = ToDevice(
        batch.target_probabilities, {total}, torch::kFloat32, compact_staging_.probabilities);
    DeviceBatch out;
    out.wdl_target = ToDevice(batch.wdl, {n, 3}, torch::kFloat32, staging_.wdl);
    out.material_target = MaterialOnDevice(batch.material, n);
    const torch::Tensor ownership = OwnershipOnDevice(batch.ownership, n);
#if defined(VZ_TORCH_CUDA_EVENTS)
    if (device_.is_cuda()) staging_.copied.record(c10::cuda::getCurrentCUDAStream(device_.index()));
#endif
    const auto on_device = torch::TensorOptions().device(device_);
    const auto on_codec = c.host ? torch::TensorOptions() : on_device;
    const void* codec_positions = c.host ? batch.positions.data() : positions.data_ptr();
    void* stream = c.host ? nullptr : CurrentStream();
    torch::Tensor planes =
        torch::empty({n, a.input_planes, a.height, a.width}, on_codec.dtype(torch::kFloat32));
    c.encode(codec_positions, int(n),
             c.host ? batch.repetitions.data() : repetitions.data_ptr<int32_t>(),
             planes.data_ptr<float>(), stream);
    torch::Tensor counts = torch::empty({n}, on_codec.dtype(torch::kInt32));
    torch::Tensor legal_indices = torch::empty({n, c.max_moves}, on_codec.dtype(torch::kInt32));
    c.legal_indices(codec_positions, int(n), counts.data_ptr<int32_t>(),
                    legal_indices.data_ptr<int32_t>(), stream);
    if (c.host) {  // no copy on the CPU
      planes = planes.to(device_);
      counts = counts.to(device_);
      legal_indices = legal_indices.to(device_);
    }
    // The maps on the device, made once: [symmetries][area] and [symmetries][num_actions + 1]
    // (the extra column maps the "no move" slot to itself).
    if (!cell_maps_.defined()) {
      cell_maps_ = torch::tensor(c.cell_maps, torch::kInt64).view({c.symmetries, area}).to(device_);
      action_maps_ =
          torch::cat({torch::tensor(c.action_maps, torch::kInt64).view({c.symmetries, actions}),
                      torch::full({c.symmetries, 1}, actions, torch::kInt64)},
                     1)
              .to(device_);
    }
    const torch::Tensor sample_actions = action_maps_.index_select(0, symmetries);  // [n][A + 1]
    // Policy target: policy[i][map_i[index]] += probability, over every target entry.
    const torch::Tensor rows = torch::repeat_interleave(
        torch::arange(n, on_device.dtype(torch::kInt64)),
        (target_offsets.narrow(0, 1, n) - target_offsets.narrow(0, 0, n)).to(torch::kInt64),
        /*dim=*/0, /*output_size=*/total);
    const torch::Tensor columns = sample_actions.index({rows, target_indices.to(torch::kInt64)});
    out.policy_target = torch::zeros({n, actions}, on_device.dtype(torch::kFloat32));
    out.policy_target.index_put_({rows, columns}, target_probabilities, /*accumulate=*/true);
    // Legal mask: the legal moves' indices (slots past a position's count point to the extra
    // column, dropped at the end), moved by the symmetry.
    const torch::Tensor slots = torch::arange(c.max_moves, on_device.dtype(torch::kInt32));
    const torch::Tensor valid = slots.unsqueeze(0) < counts.unsqueeze(1);
    const torch::Tensor indices =
        torch::where(valid, legal_indices, torch::full_like(legal_indices, int32_t(actions)))
            .to(torch::kInt64);
    out.legal = torch::zeros({n, actions + 1}, on_device.dtype(torch::kBool))
                    .scatter_(1, sample_actions.gather(1, indices), true)
                    .narrow(1, 0, actions)
                    .contiguous();
    // Planes (and ownership targets): cell k of every plane of sample i moves to cell map_i[k].
    const torch::Tensor sample_cells = cell_maps_.index_select(0, symmetries);  // [n][area]
    const torch::Tensor cells =
        sample_cells.unsqueeze(1).expand({n, int64_t(a.input_planes), area});
    out.input = torch::zeros_like(planes)
                    .view({n, a.input_planes, area})
                    .scatter_(2, cells, planes.view({n, a.input_planes, area}))
                    .view({n, a.input_planes, a.height, a.width});
    if (ownership.defined()) {
      out.ownership_target = torch::zeros_like(ownership)
                                 .view({n, area})
                                 .scatter_(1, sample_cells, ownership.view({n, area}))
                                 .view({n, a.height, a.width});
    }
    return out;
  }

  // The current CUDA stream of the trainer's device (a cudaStream_t), nullptr on the CPU.
  void* CurrentStream() const {
#if defined(VZ_TORCH_CUDA_EVENTS)
    if (device_.is_cuda()) return c10::cuda::getCurrentCUDAStream(device_.index()).stream();
#endif
    return nullptr;
  }

  // Checks `batch` against the net and the codec (vz::Error naming the fault).
  void CheckCompact(const CompactBatch& batch) const {
    if (codec_ == nullptr) {
      throw Error("compact training batch: this trainer has no sample codec (set_sample_codec)");
    }
    const SampleCodec& c = *codec_;
    const size_t n = size_t(batch.size);
    auto check = [&](size_t actual, size_t expected, const char* what) {
      if (actual != expected) {
        throw Error(fmt::format("compact training batch of {}: {} has {} values, expected {}", n,
                                what, actual, expected));
      }
    };
    if (batch.size < 1) throw Error("compact training batch is empty");
    check(batch.positions.size(), n * size_t(c.position_bytes), "positions");
    check(batch.repetitions.size(), n, "repetitions");
    check(batch.symmetries.size(), n, "symmetries");
    check(batch.wdl.size(), n * 3, "wdl");
    check(batch.target_offsets.size(), n + 1, "target_offsets");
    const int32_t total = batch.target_offsets.back();
    if (batch.target_offsets.front() != 0 || total < 0 ||
        !std::is_sorted(batch.target_offsets.begin(), batch.target_offsets.end())) {
      throw Error("compact training batch: target_offsets do not rise from 0");
    }
    check(batch.target_indices.size(), size_t(total), "target_indices");
    check(batch.target_probabilities.size(), size_t(total), "target_probabilities");
    CheckMaterial(batch.material, n, "compact training batch");
    CheckOwnership(batch.ownership, n, "compact training batch");
    for (size_t i = 0; i < n; ++i) {
      if (batch.symmetries[i] < 0 || batch.symmetries[i] >= c.symmetries) {
        throw Error(
            fmt::format("compact training batch: sample {} has symmetry {}, outside [0, {})", i,
                        batch.symmetries[i], c.symmetries));
      }
      if (batch.repetitions[i] < 1) {
        throw Error(fmt::format("compact training batch: sample {} has repetition count {}", i,
                                batch.repetitions[i]));
      }
    }
    const int32_t actions = header_.architecture.num_actions;
    for (size_t k = 0; k < batch.target_indices.size(); ++k) {
      if (batch.target_indices[k] < 0 || batch.target_indices[k] >= actions) {
        throw Error(
            fmt::format("compact training batch: policy index {} of target entry {} is "
                        "outside [0, {})",
                        batch.target_indices[k], k, actions));
      }
    }
  }

  // Loss terms of `batch`: {the total loss, on the autograd graph; the metrics [kLossMetrics] on
  // the device, fp32, off the graph: policy loss, value loss, total loss, policy accuracy, value
  // accuracy, material loss, ownership loss (each 0 without its head or targets)}. Nothing is read
  // back to the host here (ReadMetrics does, once per step).
  std::pair<torch::Tensor, torch::Tensor> Loss(const DeviceBatch& batch) {
    const torch::Tensor& input = batch.input;
    const torch::Tensor& policy_target = batch.policy_target;
    const torch::Tensor& wdl_target = batch.wdl_target;
    const torch::Tensor& legal = batch.legal;
    torch::Tensor policy, value, policy_loss;
    // The training-only heads' outputs only when there is something to train them on.
    AuxiliaryOutputs auxiliary;
    AuxiliaryOutputs* auxiliary_out =
        batch.material_target.defined() || batch.ownership_target.defined() ? &auxiliary : nullptr;
    if (legal.defined() && options_.legal_policy && !device_.is_cuda()) {
      // The legal moves' logits alone, and the log-softmax over each sample's legal moves.
      const torch::Tensor pairs = legal.nonzero();  // [total, 2]: (sample, action)
      const torch::Tensor rows = pairs.select(1, 0).contiguous();
      const torch::Tensor actions = pairs.select(1, 1).contiguous();
      torch::Tensor logits;
      std::tie(logits, value) =
          InPrecision([&] { return net_->ForwardActions(input, rows, actions, auxiliary_out); });
      const int64_t n = input.size(0);
      const torch::Tensor row_max =
          torch::full({n}, -1e9, logits.options())
              .scatter_reduce(0, rows, logits.detach(), "amax", /*include_self=*/true);
      const torch::Tensor shifted = logits - row_max.index_select(0, rows);
      // A sample without a legal move (none in self-play data) sums to 0: clamped, so that no
      // log(0) is ever computed, though no row reads it.
      const torch::Tensor log_sum = torch::zeros({n}, logits.options())
                                        .index_add(0, rows, shifted.exp())
                                        .clamp_min(1e-30)
                                        .log();
      const torch::Tensor log_probability = shifted - log_sum.index_select(0, rows);
      const torch::Tensor target = policy_target.index({rows, actions});
      policy_loss = -(target * log_probability).sum() / double(n);
      // The metrics' dense view: every illegal logit at -1e9, as the dense head's.
      torch::NoGradGuard no_grad;
      policy = torch::full(policy_target.sizes(), -1e9, logits.options())
                   .index_put_({rows, actions}, logits.detach());
    } else {
      std::tie(policy, value) = InPrecision([&] { return net_->forward(input, auxiliary_out); });
      if (legal.defined()) {
        // A large finite number, not -inf: 0 * -inf would be NaN in the cross-entropy.
        policy = policy.masked_fill(legal.logical_not(), -1e9);
      }
      policy_loss = -(policy_target * torch::log_softmax(policy, 1)).sum(1).mean();
    }
    const torch::Tensor value_loss = -(wdl_target * torch::log_softmax(value, 1)).sum(1).mean();
    torch::Tensor loss = policy_loss + value_loss;
    torch::Tensor material_loss = torch::zeros({}, value_loss.options());
    if (auxiliary.material.defined() && batch.material_target.defined()) {
      material_loss =
          (auxiliary.material.to(torch::kFloat32) - batch.material_target).square().mean();
      loss = loss + options_.material_weight * material_loss;
    }
    torch::Tensor ownership_loss = torch::zeros({}, value_loss.options());
    if (auxiliary.ownership.defined() && batch.ownership_target.defined()) {
      // Cross-entropy per cell [n][height][width], averaged over the board's own cells.
      const torch::Tensor per_cell = torch::nn::functional::cross_entropy(
          auxiliary.ownership.to(torch::kFloat32), batch.ownership_target.to(torch::kInt64),
          torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
      const torch::Tensor mask = net_->board_mask.to(per_cell.device(), torch::kFloat32);
      ownership_loss = (per_cell * mask.view({1, per_cell.size(1), per_cell.size(2)})).sum() /
                       (double(per_cell.size(0)) * net_->board_cells);
      loss = loss + options_.ownership_weight * ownership_loss;
    }
    torch::NoGradGuard no_grad;
    const torch::Tensor metrics =
        torch::stack({policy_loss, value_loss, loss,
                      (policy.argmax(1) == policy_target.argmax(1)).to(torch::kFloat32).mean(),
                      (value.argmax(1) == wdl_target.argmax(1)).to(torch::kFloat32).mean(),
                      material_loss, ownership_loss})
            .detach();
    return {loss, metrics};
  }

  // `metrics` [kLossMetrics] (Loss, averaged over micro-batches and ranks) and the weight penalty,
  // read back to the host in one copy: one synchronisation per step.
  void ReadMetrics(const torch::Tensor& metrics, TrainMetrics& out) {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> squares;
    for (const torch::Tensor& parameter : net_->parameters()) {
      squares.push_back(parameter.square().sum());
    }
    const torch::Tensor host = torch::cat({metrics, torch::stack(squares).sum().reshape({1})})
                                   .to(torch::kCPU, torch::kFloat64);
    VZ_DCHECK(metrics.numel() == kLossMetrics);
    const double* v = host.data_ptr<double>();
    out.policy_loss = v[0];
    out.value_loss = v[1];
    out.loss = v[2];
    out.policy_accuracy = v[3];
    out.value_accuracy = v[4];
    out.material_loss = v[5];
    out.ownership_loss = v[6];
    out.weight_penalty = 0.5 * options_.weight_decay * v[kLossMetrics];
  }

  // The parameters and floating-point buffers (batch-norm running statistics): what every rank
  // must agree on.
  std::vector<torch::Tensor> State() const {
    std::vector<torch::Tensor> state = net_->parameters();
    for (const torch::Tensor& buffer : net_->buffers()) {
      if (buffer.is_floating_point()) state.push_back(buffer);
    }
    return state;
  }

  // Backward over `parts` consecutive micro-batches of `batch` (TrainerOptions::micro_batches):
  // each from the same running statistics, gradients of the mean loss, statistics and metrics
  // averaged. Returns the metrics [kLossMetrics] of Loss, averaged over the parts, on the device.
  torch::Tensor MicroBatchBackward(const DeviceBatch& batch, int64_t size, int parts) {
    const int64_t n = size / parts;
    const std::vector<torch::Tensor> buffers = net_->buffers();
    std::vector<torch::Tensor> start, sums;
    {
      torch::NoGradGuard no_grad;
      for (const torch::Tensor& buffer : buffers) {
        start.push_back(buffer.clone());
        sums.push_back(buffer.is_floating_point() ? torch::zeros_like(buffer) : torch::Tensor());
      }
    }
    torch::Tensor metrics;
    for (int k = 0; k < parts; ++k) {
      const DeviceBatch part = batch.Slice(k * n, n);
      {
        torch::NoGradGuard no_grad;
        for (size_t i = 0; i < buffers.size(); ++i) buffers[i].copy_(start[i]);
      }
      auto [loss, part_metrics] = Loss(part);
      (loss / double(parts)).backward();
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < buffers.size(); ++i) {
        if (sums[i].defined()) sums[i].add_(buffers[i]);
      }
      metrics = metrics.defined() ? metrics + part_metrics : part_metrics.clone();
    }
    // Floating buffers: the mean over the parts; counters (num_batches_tracked) as after one.
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (sums[i].defined()) buffers[i].copy_(sums[i].div_(double(parts)));
    }
    return metrics.div_(double(parts));
  }

  // Data parallelism: gradients, floating buffers and the metrics [kLossMetrics] of Loss (on the
  // device, averaged in place) averaged over the ranks in one all-reduce.
  void AllReduce(torch::Tensor& metrics) {
    std::vector<torch::Tensor> tensors;
    for (torch::Tensor& parameter : net_->parameters()) {
      if (!parameter.grad().defined()) parameter.mutable_grad() = torch::zeros_like(parameter);
      tensors.push_back(parameter.grad());
    }
    for (const torch::Tensor& buffer : net_->buffers()) {
      if (buffer.is_floating_point()) tensors.push_back(buffer);
    }
    tensors.push_back(metrics);
    AllReduceMean(*options_.process_group, tensors);
  }

  // Every rank takes rank 0's weights and running statistics.
  void BroadcastState() {
    if (options_.process_group != nullptr) BroadcastTensors(*options_.process_group, State(), 0);
  }

  NetFile header_;  // game, encodings, architecture (tensors cleared)
  TrainerOptions options_;
  torch::Device device_{torch::kCPU};
  PolicyValueNet net_{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  int64_t steps_ = 0;  // optimizer steps taken
  uint64_t random_state_ = 0;
  // A CUDA device's batch upload (ToDevice; unused on the CPU and in builds without CUDA
  // events): the host arrays staged in pinned CPU tensors (reused across steps, grown as needed)
  // and copied with non-blocking copies on the device's current stream; `copied` is recorded
  // after those copies, and waited for before the staging is written again.
  PinnedStaging staging_;
  CompactStaging compact_staging_;            // the same for the arrays of compact batches (Expand)
  std::shared_ptr<const SampleCodec> codec_;  // set_sample_codec; null: no compact batches
  torch::Tensor cell_maps_, action_maps_;     // the codec's maps on the device (Expand)
};

TorchTrainer::TorchTrainer(const NetFile& net, const TrainerOptions& options) {
  header_ = net;
  header_.tensors.clear();
  options_ = options;
  random_state_ = options.seed;
  if (!(options.learning_rate > 0)) {
    throw Error(fmt::format("learning rate {} must be positive", options.learning_rate));
  }
  if (options.schedule != "constant" && options.schedule != "cosine" &&
      options.schedule != "step") {
    throw Error(fmt::format("schedule '{}': expected constant, cosine or step", options.schedule));
  }
  if (options.schedule != "constant" && options.total_steps <= 0) {
    throw Error(fmt::format("schedule '{}' needs total_steps > 0", options.schedule));
  }
  if (options.micro_batches < 1) {
    throw Error(fmt::format("micro_batches {} must be at least 1", options.micro_batches));
  }
  if (!(options.material_weight >= 0) || !std::isfinite(options.material_weight)) {
    throw Error(fmt::format("material loss weight {} must be a finite number >= 0",
                            options.material_weight));
  }
  if (!(options.ownership_weight >= 0) || !std::isfinite(options.ownership_weight)) {
    throw Error(fmt::format("ownership loss weight {} must be a finite number >= 0",
                            options.ownership_weight));
  }
  if (options.precision != "auto" && options.precision != "fp32" && options.precision != "bf16") {
    throw Error(
        fmt::format("training precision '{}': expected auto, fp32 or bf16", options.precision));
  }
  device_ = ParseDevice(options.device);
  options_.precision = ResolvePrecision(options_.precision, device_.is_cuda());
  torch::manual_seed(options.seed);
  net_ = PolicyValueNet(net.architecture);
  ImportTensors(net_, net, "trainer start");
  net_->to(device_);
  if (options.optimizer == "sgd") {
    optimizer_ = std::make_unique<torch::optim::SGD>(net_->parameters(),
                                                     torch::optim::SGDOptions(options.learning_rate)
                                                         .momentum(options.momentum)
                                                         .weight_decay(options.weight_decay));
  } else if (options.optimizer == "adamw") {
    optimizer_ = std::make_unique<torch::optim::AdamW>(
        net_->parameters(),
        torch::optim::AdamWOptions(options.learning_rate).weight_decay(options.weight_decay));
  } else {
    throw Error(fmt::format("optimizer '{}': expected sgd or adamw", options.optimizer));
  }
  BroadcastState();
}

double TorchTrainer::LearningRate(int64_t step) const {
  const TrainerOptions& o = options_;
  if (o.schedule == "constant") return o.learning_rate;
  if (o.schedule == "step") {
    double rate = o.learning_rate;
    if (step >= o.total_steps / 2) rate *= 0.1;
    if (step >= o.total_steps * 3 / 4) rate *= 0.1;
    return rate;
  }
  if (step < o.warmup_steps) return o.learning_rate * double(step + 1) / double(o.warmup_steps);
  const double span = double(std::max<int64_t>(1, o.total_steps - o.warmup_steps));
  const double progress = std::min(1.0, double(step - o.warmup_steps) / span);
  const double floor = o.learning_rate * o.final_learning_rate_fraction;
  return floor + (o.learning_rate - floor) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
}

TrainMetrics TorchTrainer::Step(const TrainingBatch& batch) {
  CheckBatch(batch);
  const auto device_work = ShareDeviceWork(device_.is_cuda());
  return StepOn([&] { return Upload(batch); }, batch.size);
}

TrainMetrics TorchTrainer::Step(const CompactBatch& batch) {
  CheckCompact(batch);
  const auto device_work = ShareDeviceWork(device_.is_cuda());
  return StepOn([&] { return Expand(batch); }, batch.size);
}

TrainMetrics TorchTrainer::StepOn(const std::function<DeviceBatch()>& make, int size) {
  const int parts = options_.micro_batches;
  if (size % parts != 0) {
    throw Error(
        fmt::format("training batch of {} is not a multiple of micro_batches {}", size, parts));
  }
  TrainMetrics metrics;
  metrics.learning_rate = LearningRate(steps_);
  try {
    const DeviceBatch batch = make();
    for (auto& group : optimizer_->param_groups()) group.options().set_lr(metrics.learning_rate);
    net_->train();
    optimizer_->zero_grad();
    torch::Tensor values;
    if (parts == 1) {
      auto [loss, loss_metrics] = Loss(batch);
      loss.backward();
      values = loss_metrics;
    } else {
      values = MicroBatchBackward(batch, size, parts);
    }
    if (options_.process_group != nullptr) AllReduce(values);
    ReadMetrics(values, metrics);
    // Before the update: a non-finite loss (NaN weights from a corrupted net, or divergence) must
    // neither reach the weights nor a checkpoint. Every rank sees the same averaged loss.
    if (!std::isfinite(metrics.loss)) {
      throw Error(fmt::format(
          "training step {}: the loss is not finite ({}; policy {}, value {}, material {}, "
          "ownership {}): the network diverged or its weights are corrupted; training stops and "
          "nothing after step {} is checkpointed",
          steps_ + 1, metrics.loss, metrics.policy_loss, metrics.value_loss, metrics.material_loss,
          metrics.ownership_loss, steps_));
    }
    optimizer_->step();
  } catch (const c10::Error& error) {
    throw Error(
        fmt::format("training step {} failed: {}", steps_ + 1, error.what_without_backtrace()));
  }
  metrics.step = ++steps_;
  return metrics;
}

TrainMetrics TorchTrainer::Evaluate(const TrainingBatch& batch) {
  CheckBatch(batch);
  const auto device_work = ShareDeviceWork(device_.is_cuda());
  return EvaluateOn([&] { return Upload(batch); });
}

TrainMetrics TorchTrainer::Evaluate(const CompactBatch& batch) {
  CheckCompact(batch);
  const auto device_work = ShareDeviceWork(device_.is_cuda());
  return EvaluateOn([&] { return Expand(batch); });
}

TrainMetrics TorchTrainer::EvaluateOn(const std::function<DeviceBatch()>& make) {
  TrainMetrics metrics;
  try {
    torch::NoGradGuard no_grad;
    const DeviceBatch batch = make();
    net_->eval();
    ReadMetrics(Loss(batch).second, metrics);
  } catch (const c10::Error& error) {
    throw Error(
        fmt::format("evaluating a training batch failed: {}", error.what_without_backtrace()));
  }
  metrics.step = steps_;
  metrics.learning_rate = LearningRate(steps_);
  return metrics;
}

void TorchTrainer::SetSampleCodec(std::shared_ptr<const SampleCodec> new_codec) {
  const NetArchitecture& a = header_.architecture;
  if (new_codec == nullptr) throw Error("sample codec: none given");
  const SampleCodec& c = *new_codec;
  if (c.game != header_.game) {
    throw Error(
        fmt::format("sample codec of game '{}' for a trainer of '{}'", c.game, header_.game));
  }
  const size_t area = size_t(a.height) * size_t(a.width);
  if (c.symmetries < 1 || c.position_bytes < 1 || c.max_moves < 1 ||
      c.cell_maps.size() != size_t(c.symmetries) * area ||
      c.action_maps.size() != size_t(c.symmetries) * size_t(a.num_actions) || !c.encode ||
      !c.legal_indices) {
    throw Error(fmt::format("sample codec of '{}' does not fit the net's architecture ({})", c.game,
                            DescribeArchitecture(a)));
  }
  codec_ = std::move(new_codec);
  cell_maps_ = torch::Tensor();
  action_maps_ = torch::Tensor();
}

void TorchTrainer::Predict(const float* planes, int batch, float* policy, float* wdl) {
  const NetArchitecture& a = header_.architecture;
  const auto device_work = ShareDeviceWork(device_.is_cuda());
  torch::NoGradGuard no_grad;
  net_->eval();
  const torch::Tensor input =
      torch::from_blob(const_cast<float*>(planes), {batch, a.input_planes, a.height, a.width},
                       torch::kFloat32)
          .to(device_);
  auto [p, v] = net_->forward(input);
  const torch::Tensor ph = p.to(torch::kCPU).contiguous();
  const torch::Tensor vh = torch::softmax(v, 1).to(torch::kCPU).contiguous();
  std::memcpy(policy, ph.data_ptr<float>(), size_t(ph.numel()) * sizeof(float));
  std::memcpy(wdl, vh.data_ptr<float>(), size_t(vh.numel()) * sizeof(float));
}

void TorchTrainer::SaveCheckpoint(const std::string& path) const {
  std::ostringstream bytes;
  try {
    for (const torch::Tensor& tensor : State()) {
      if (!torch::isfinite(tensor).all().item<bool>()) {
        throw Error(fmt::format(
            "checkpoint {}: not written: the weights of step {} hold NaN or Inf (training "
            "diverged); the last checkpoint stays",
            path, steps_));
      }
    }
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive model, optimizer;
    net_->save(model);
    optimizer_->save(optimizer);
    archive.write("model", model);
    archive.write("optimizer", optimizer);
    archive.write("step", torch::tensor(steps_, torch::kInt64));
    archive.write("random_state", torch::tensor(int64_t(random_state_), torch::kInt64));
    archive.write("header", BytesTensor(HeaderBytes(header_)));
    auto generator = at::detail::getDefaultCPUGenerator();
    {
      std::lock_guard<std::mutex> lock(generator.mutex());
      archive.write("torch_cpu_rng", generator.get_state());
    }
    archive.save_to(bytes);
  } catch (const c10::Error& error) {
    throw Error(
        fmt::format("checkpoint {}: cannot serialize: {}", path, error.what_without_backtrace()));
  }
  WriteCheckpointFile(path, bytes.str());
}

CheckpointLoad TorchTrainer::LoadCheckpoint(const std::string& path) {
  const CheckpointLoad load =
      ReadNewestCheckpoint(path, [&](const std::string& bytes, const std::string& file) {
        try {
          torch::serialize::InputArchive archive;
          archive.load_from(bytes.data(), bytes.size(), device_);
          torch::Tensor header;
          archive.read("header", header);
          if (TensorBytes(header) != HeaderBytes(header_)) {
            throw Error(
                fmt::format("checkpoint {}: made for another game, encoding or architecture "
                            "than this trainer's ({})",
                            file, DescribeArchitecture(header_.architecture)));
          }
          torch::serialize::InputArchive model, optimizer;
          archive.read("model", model);
          archive.read("optimizer", optimizer);
          net_->load(model);
          optimizer_->load(optimizer);
          torch::Tensor step, random_state, rng;
          archive.read("step", step);
          archive.read("random_state", random_state);
          archive.read("torch_cpu_rng", rng);
          steps_ = step.item<int64_t>();
          random_state_ = uint64_t(random_state.item<int64_t>());
          auto generator = at::detail::getDefaultCPUGenerator();
          std::lock_guard<std::mutex> lock(generator.mutex());
          generator.set_state(rng);
        } catch (const c10::Error&) {
          // LibTorch's message ("failed finding central directory", a backtrace) means nothing to a
          // user; the file is what is wrong.
          throw Error(
              fmt::format("checkpoint {}: corrupted: its LibTorch archive does not load", file));
        }
      });
  if (options_.process_group != nullptr) {
    std::vector<double> steps = {double(steps_), -double(steps_)};
    options_.process_group->AllReduce(steps, ReduceOp::kMax);
    if (steps[0] != -steps[1]) {
      throw Error(fmt::format("checkpoint {}: the ranks loaded different steps ({} to {})", path,
                              -steps[1], steps[0]));
    }
    BroadcastState();
  }
  return load;
}

NetFile TorchTrainer::ExportNet(uint64_t games, const std::string& parent,
                                const std::string& source_revision) const {
  NetFile net = header_;
  net.tensors = ExportTensors(const_cast<PolicyValueNet&>(net_));
  net.provenance.training_steps = uint64_t(steps_);
  net.provenance.games = games;
  net.provenance.parent = parent;
  net.provenance.created = UtcNow();
  net.provenance.source_revision = source_revision;
  return net;
}

uint64_t TorchTrainer::NextRandom() {
  random_state_ += 0x9E3779B97F4A7C15ull;
  return SplitMix64(random_state_);
}

}  // namespace

std::unique_ptr<Trainer::Impl> NewTrainer(const NetFile& net, const TrainerOptions& options) {
  return std::make_unique<TorchTrainer>(net, options);
}

NetFile ExportCheckpoint(const std::string& path, uint64_t games,
                         std::vector<std::string>* warnings) {
  // Only the header, the weights and the step are read: the optimizer's state (SGD or AdamW)
  // does not matter for a net file.
  NetFile net;
  const CheckpointLoad load =
      ReadNewestCheckpoint(path, [&](const std::string& bytes, const std::string& file) {
        try {
          torch::serialize::InputArchive archive;
          archive.load_from(bytes.data(), bytes.size(), torch::kCPU);
          torch::Tensor header_tensor, step;
          if (!archive.try_read("header", header_tensor) || !archive.try_read("step", step)) {
            throw Error(fmt::format("checkpoint {}: not a vzero checkpoint (no net header)", file));
          }
          net = ParseNetFile(TensorBytes(header_tensor), file);
          PolicyValueNet model = MakeFreshNet(net.architecture, 0);
          torch::serialize::InputArchive weights;
          archive.read("model", weights);
          model->load(weights);
          net.tensors = ExportTensors(model);
          net.provenance = {};
          net.provenance.training_steps = uint64_t(step.item<int64_t>());
          net.provenance.games = games;
          net.provenance.created = UtcNow();
        } catch (const c10::Error&) {
          throw Error(
              fmt::format("checkpoint {}: corrupted: its LibTorch archive does not load", file));
        }
      });
  if (warnings != nullptr) *warnings = load.warnings;
  return net;
}

}  // namespace vz::nets::torch_impl
