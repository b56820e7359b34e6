// The LibTorch Trainer and ExportCheckpoint (nets/trainer.h), inside libvzero_nets.so.

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/autocast_mode.h>
#include <fmt/core.h>
#include <torch/optim.h>
#include <torch/serialize.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <sstream>

// CUDA events (LibTorch's own header) where this build has CUDA: the pinned batch upload.
#if defined(VZ_HAVE_CUDA) && __has_include(<c10/cuda/CUDAEvent.h>)
#include <c10/cuda/CUDAEvent.h>
#define VZ_TORCH_CUDA_EVENTS 1
#endif

#include "engine/core/error.h"
#include "engine/core/zobrist.h"
#include "nets/checkpoint_file.h"
#include "nets/distributed.h"
#include "nets/distributed_tensors.h"
#include "nets/fresh_net.h"
#include "nets/model.h"
#include "nets/torch_impl.h"

namespace vz::nets::torch_impl {
namespace {

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

struct TorchTrainer final : Trainer::Impl {
  TorchTrainer(const NetFile& net, const TrainerOptions& options);
  TrainMetrics Step(const TrainingBatch& batch) override;
  TrainMetrics Evaluate(const TrainingBatch& batch) override;
  void Predict(const float* planes, int batch, float* policy, float* wdl) override;
  void SaveCheckpoint(const std::string& path) const override;
  CheckpointLoad LoadCheckpoint(const std::string& path) override;
  NetFile ExportNet(uint64_t games, const std::string& parent,
                    const std::string& source_revision) const override;
  int64_t step() const override { return steps; }
  std::string precision() const override { return options.precision; }
  double LearningRate(int64_t step) const override;
  uint64_t NextRandom() override;

  NetFile header;  // game, encodings, architecture (tensors cleared)
  TrainerOptions options;
  torch::Device device{torch::kCPU};
  PolicyValueNet net{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  int64_t steps = 0;  // optimizer steps taken
  uint64_t random_state = 0;
  // A CUDA device's batch upload (ToDevice; unused on the CPU and in builds without CUDA
  // events): the host arrays staged in pinned CPU tensors (reused across steps, grown as needed)
  // and copied with non-blocking copies on the device's current stream; `copied` is recorded
  // after those copies, and waited for before the staging is written again.
  struct PinnedStaging {
    torch::Tensor planes, policy, wdl, legal;
#if defined(VZ_TORCH_CUDA_EVENTS)
    c10::cuda::CUDAEvent copied;
#endif
  } staging;

  void CheckBatch(const TrainingBatch& batch) const {
    const NetArchitecture& a = header.architecture;
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
  }

  // The net's {policy logits, WDL logits} of `input`, in fp32: under bf16 mixed precision
  // (TrainerOptions::precision "bf16") the forward pass runs in LibTorch's autocast on the
  // device's type (convolutions and matrix products in bf16, weights and gradients in fp32).
  std::pair<torch::Tensor, torch::Tensor> ForwardInPrecision(const torch::Tensor& input) {
    if (options.precision != "bf16") return net->forward(input);
    const c10::DeviceType type = device.type();
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
    auto [policy, value] = net->forward(input);
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
    if (device.is_cuda()) {
      const int64_t count = int64_t(values.size());
      if (!pinned.defined() || pinned.numel() < count) {
        pinned = torch::empty({count}, torch::TensorOptions().dtype(dtype).pinned_memory(true));
      }
      std::memcpy(pinned.data_ptr(), values.data(), values.size() * sizeof(T));
      return pinned.narrow(0, 0, count).view(shape).to(device, dtype, /*non_blocking=*/true);
    }
#endif
    return torch::from_blob(const_cast<T*>(values.data()), shape, dtype).to(device);
  }

  // Loss terms of `batch`: {the total loss, on the autograd graph; the metrics [5] on the
  // device, fp32, off the graph: policy loss, value loss, total loss, policy accuracy, value
  // accuracy}. Nothing is read back to the host here (ReadMetrics does, once per step).
  std::pair<torch::Tensor, torch::Tensor> Loss(const TrainingBatch& batch) {
    const NetArchitecture& a = header.architecture;
    const int64_t n = batch.size;
#if defined(VZ_TORCH_CUDA_EVENTS)
    // The copies from the staging of the step (or micro-batch) before must be done before it is
    // written again: at once in the common case, where ReadMetrics's blocking copy to the host
    // synchronised the stream since; a wait after an exception cut a step short, and between the
    // micro-batches of a step (MicroBatchBackward).
    if (device.is_cuda()) staging.copied.synchronize();
#endif
    const torch::Tensor input = ToDevice(batch.planes, {n, a.input_planes, a.height, a.width},
                                         torch::kFloat32, staging.planes);
    const torch::Tensor policy_target =
        ToDevice(batch.policy, {n, a.num_actions}, torch::kFloat32, staging.policy);
    const torch::Tensor wdl_target = ToDevice(batch.wdl, {n, 3}, torch::kFloat32, staging.wdl);
    torch::Tensor legal;
    if (!batch.legal.empty()) {
      legal =
          ToDevice(batch.legal, {n, a.num_actions}, torch::kUInt8, staging.legal).to(torch::kBool);
    }
#if defined(VZ_TORCH_CUDA_EVENTS)
    if (device.is_cuda()) staging.copied.record(c10::cuda::getCurrentCUDAStream(device.index()));
#endif
    auto [policy, value] = ForwardInPrecision(input);
    if (legal.defined()) {
      // A large finite number, not -inf: 0 * -inf would be NaN in the cross-entropy.
      policy = policy.masked_fill(legal.logical_not(), -1e9);
    }
    const torch::Tensor policy_loss =
        -(policy_target * torch::log_softmax(policy, 1)).sum(1).mean();
    const torch::Tensor value_loss = -(wdl_target * torch::log_softmax(value, 1)).sum(1).mean();
    const torch::Tensor loss = policy_loss + value_loss;
    torch::NoGradGuard no_grad;
    const torch::Tensor metrics =
        torch::stack({policy_loss, value_loss, loss,
                      (policy.argmax(1) == policy_target.argmax(1)).to(torch::kFloat32).mean(),
                      (value.argmax(1) == wdl_target.argmax(1)).to(torch::kFloat32).mean()})
            .detach();
    return {loss, metrics};
  }

  // `metrics` [5] (Loss, averaged over micro-batches and ranks) and the weight penalty, read
  // back to the host in one copy: one synchronisation per step.
  void ReadMetrics(const torch::Tensor& metrics, TrainMetrics& out) {
    torch::NoGradGuard no_grad;
    std::vector<torch::Tensor> squares;
    for (const torch::Tensor& parameter : net->parameters()) {
      squares.push_back(parameter.square().sum());
    }
    const torch::Tensor host = torch::cat({metrics, torch::stack(squares).sum().reshape({1})})
                                   .to(torch::kCPU, torch::kFloat64);
    const double* v = host.data_ptr<double>();
    out.policy_loss = v[0];
    out.value_loss = v[1];
    out.loss = v[2];
    out.policy_accuracy = v[3];
    out.value_accuracy = v[4];
    out.weight_penalty = 0.5 * options.weight_decay * v[5];
  }

  // The parameters and floating-point buffers (batch-norm running statistics): what every rank
  // must agree on.
  std::vector<torch::Tensor> State() const {
    std::vector<torch::Tensor> state = net->parameters();
    for (const torch::Tensor& buffer : net->buffers()) {
      if (buffer.is_floating_point()) state.push_back(buffer);
    }
    return state;
  }

  // Backward over `parts` consecutive micro-batches of `batch` (TrainerOptions::micro_batches):
  // each from the same running statistics, gradients of the mean loss, statistics and metrics
  // averaged. Returns the metrics [5] of Loss, averaged over the parts, on the device.
  torch::Tensor MicroBatchBackward(const TrainingBatch& batch, int parts) {
    const NetArchitecture& a = header.architecture;
    const size_t n = size_t(batch.size / parts);
    const size_t input = size_t(a.input_planes) * a.height * a.width;
    const size_t actions = size_t(a.num_actions);
    const std::vector<torch::Tensor> buffers = net->buffers();
    std::vector<torch::Tensor> start, sums;
    {
      torch::NoGradGuard no_grad;
      for (const torch::Tensor& buffer : buffers) {
        start.push_back(buffer.clone());
        sums.push_back(buffer.is_floating_point() ? torch::zeros_like(buffer) : torch::Tensor());
      }
    }
    TrainingBatch part;
    part.size = int(n);
    torch::Tensor metrics;
    auto slice = [&](const auto& values, size_t width, int k, auto& out) {
      out.assign(values.begin() + ptrdiff_t(size_t(k) * n * width),
                 values.begin() + ptrdiff_t(size_t(k + 1) * n * width));
    };
    for (int k = 0; k < parts; ++k) {
      slice(batch.planes, input, k, part.planes);
      slice(batch.policy, actions, k, part.policy);
      slice(batch.wdl, 3, k, part.wdl);
      if (batch.legal.empty()) {
        part.legal.clear();
      } else {
        slice(batch.legal, actions, k, part.legal);
      }
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

  // Data parallelism: gradients, floating buffers and the metrics [5] of Loss (on the device,
  // averaged in place) averaged over the ranks in one all-reduce.
  void AllReduce(torch::Tensor& metrics) {
    std::vector<torch::Tensor> tensors;
    for (torch::Tensor& parameter : net->parameters()) {
      if (!parameter.grad().defined()) parameter.mutable_grad() = torch::zeros_like(parameter);
      tensors.push_back(parameter.grad());
    }
    for (const torch::Tensor& buffer : net->buffers()) {
      if (buffer.is_floating_point()) tensors.push_back(buffer);
    }
    tensors.push_back(metrics);
    AllReduceMean(*options.process_group, tensors);
  }

  // Every rank takes rank 0's weights and running statistics.
  void BroadcastState() {
    if (options.process_group != nullptr) BroadcastTensors(*options.process_group, State(), 0);
  }
};

TorchTrainer::TorchTrainer(const NetFile& net, const TrainerOptions& options) {
  TorchTrainer& s = *this;
  s.header = net;
  s.header.tensors.clear();
  s.options = options;
  s.random_state = options.seed;
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
  if (options.precision != "auto" && options.precision != "fp32" && options.precision != "bf16") {
    throw Error(
        fmt::format("training precision '{}': expected auto, fp32 or bf16", options.precision));
  }
  s.device = ParseDevice(options.device);
  if (s.options.precision == "auto") s.options.precision = s.device.is_cuda() ? "bf16" : "fp32";
  torch::manual_seed(options.seed);
  s.net = PolicyValueNet(net.architecture);
  ImportTensors(s.net, net, "trainer start");
  s.net->to(s.device);
  if (options.optimizer == "sgd") {
    s.optimizer = std::make_unique<torch::optim::SGD>(
        s.net->parameters(), torch::optim::SGDOptions(options.learning_rate)
                                 .momentum(options.momentum)
                                 .weight_decay(options.weight_decay));
  } else if (options.optimizer == "adamw") {
    s.optimizer = std::make_unique<torch::optim::AdamW>(
        s.net->parameters(),
        torch::optim::AdamWOptions(options.learning_rate).weight_decay(options.weight_decay));
  } else {
    throw Error(fmt::format("optimizer '{}': expected sgd or adamw", options.optimizer));
  }
  s.BroadcastState();
}

double TorchTrainer::LearningRate(int64_t step) const {
  const TrainerOptions& o = options;
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
  TorchTrainer& s = *this;
  s.CheckBatch(batch);
  const int parts = s.options.micro_batches;
  if (batch.size % parts != 0) {
    throw Error(fmt::format("training batch of {} is not a multiple of micro_batches {}",
                            batch.size, parts));
  }
  TrainMetrics metrics;
  metrics.learning_rate = LearningRate(s.steps);
  try {
    for (auto& group : s.optimizer->param_groups()) group.options().set_lr(metrics.learning_rate);
    s.net->train();
    s.optimizer->zero_grad();
    torch::Tensor values;
    if (parts == 1) {
      auto [loss, loss_metrics] = s.Loss(batch);
      loss.backward();
      values = loss_metrics;
    } else {
      values = s.MicroBatchBackward(batch, parts);
    }
    if (s.options.process_group != nullptr) s.AllReduce(values);
    s.ReadMetrics(values, metrics);
    // Before the update: a non-finite loss (NaN weights from a corrupted net, or divergence) must
    // neither reach the weights nor a checkpoint. Every rank sees the same averaged loss.
    if (!std::isfinite(metrics.loss)) {
      throw Error(fmt::format(
          "training step {}: the loss is not finite ({}; policy {}, value {}): the network "
          "diverged or its weights are corrupted; training stops and nothing after step {} is "
          "checkpointed",
          s.steps + 1, metrics.loss, metrics.policy_loss, metrics.value_loss, s.steps));
    }
    s.optimizer->step();
  } catch (const c10::Error& error) {
    throw Error(
        fmt::format("training step {} failed: {}", s.steps + 1, error.what_without_backtrace()));
  }
  metrics.step = ++s.steps;
  return metrics;
}

TrainMetrics TorchTrainer::Evaluate(const TrainingBatch& batch) {
  TorchTrainer& s = *this;
  s.CheckBatch(batch);
  TrainMetrics metrics;
  torch::NoGradGuard no_grad;
  s.net->eval();
  s.ReadMetrics(s.Loss(batch).second, metrics);
  metrics.step = s.steps;
  metrics.learning_rate = LearningRate(s.steps);
  return metrics;
}

void TorchTrainer::Predict(const float* planes, int batch, float* policy, float* wdl) {
  TorchTrainer& s = *this;
  const NetArchitecture& a = s.header.architecture;
  torch::NoGradGuard no_grad;
  s.net->eval();
  const torch::Tensor input =
      torch::from_blob(const_cast<float*>(planes), {batch, a.input_planes, a.height, a.width},
                       torch::kFloat32)
          .to(s.device);
  auto [p, v] = s.net->forward(input);
  const torch::Tensor ph = p.to(torch::kCPU).contiguous();
  const torch::Tensor vh = torch::softmax(v, 1).to(torch::kCPU).contiguous();
  std::memcpy(policy, ph.data_ptr<float>(), size_t(ph.numel()) * sizeof(float));
  std::memcpy(wdl, vh.data_ptr<float>(), size_t(vh.numel()) * sizeof(float));
}

void TorchTrainer::SaveCheckpoint(const std::string& path) const {
  const TorchTrainer& s = *this;
  std::ostringstream bytes;
  try {
    for (const torch::Tensor& tensor : s.State()) {
      if (!torch::isfinite(tensor).all().item<bool>()) {
        throw Error(fmt::format(
            "checkpoint {}: not written: the weights of step {} hold NaN or Inf (training "
            "diverged); the last checkpoint stays",
            path, s.steps));
      }
    }
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive model, optimizer;
    s.net->save(model);
    s.optimizer->save(optimizer);
    archive.write("model", model);
    archive.write("optimizer", optimizer);
    archive.write("step", torch::tensor(s.steps, torch::kInt64));
    archive.write("random_state", torch::tensor(int64_t(s.random_state), torch::kInt64));
    archive.write("header", BytesTensor(HeaderBytes(s.header)));
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
  TorchTrainer& s = *this;
  const CheckpointLoad load =
      ReadNewestCheckpoint(path, [&](const std::string& bytes, const std::string& file) {
        try {
          torch::serialize::InputArchive archive;
          archive.load_from(bytes.data(), bytes.size(), s.device);
          torch::Tensor header;
          archive.read("header", header);
          if (TensorBytes(header) != HeaderBytes(s.header)) {
            throw Error(
                fmt::format("checkpoint {}: made for another game, encoding or architecture "
                            "than this trainer's ({})",
                            file, DescribeArchitecture(s.header.architecture)));
          }
          torch::serialize::InputArchive model, optimizer;
          archive.read("model", model);
          archive.read("optimizer", optimizer);
          s.net->load(model);
          s.optimizer->load(optimizer);
          torch::Tensor step, random_state, rng;
          archive.read("step", step);
          archive.read("random_state", random_state);
          archive.read("torch_cpu_rng", rng);
          s.steps = step.item<int64_t>();
          s.random_state = uint64_t(random_state.item<int64_t>());
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
  if (s.options.process_group != nullptr) {
    std::vector<double> steps = {double(s.steps), -double(s.steps)};
    s.options.process_group->AllReduce(steps, ReduceOp::kMax);
    if (steps[0] != -steps[1]) {
      throw Error(fmt::format("checkpoint {}: the ranks loaded different steps ({} to {})", path,
                              -steps[1], steps[0]));
    }
    s.BroadcastState();
  }
  return load;
}

NetFile TorchTrainer::ExportNet(uint64_t games, const std::string& parent,
                                const std::string& source_revision) const {
  const TorchTrainer& s = *this;
  NetFile net = s.header;
  net.tensors = ExportTensors(const_cast<PolicyValueNet&>(s.net));
  net.provenance.training_steps = uint64_t(s.steps);
  net.provenance.games = games;
  net.provenance.parent = parent;
  net.provenance.created = UtcNow();
  net.provenance.source_revision = source_revision;
  return net;
}

uint64_t TorchTrainer::NextRandom() {
  random_state += 0x9E3779B97F4A7C15ull;
  return SplitMix64(random_state);
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
