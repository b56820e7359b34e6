#include "nets/net_runner.h"

#include <fmt/core.h>
#include <torch/cuda.h>
#include <torch/utils.h>

#include <cmath>
#include <cstring>
#include <mutex>

// The CUDA stream API (LibTorch's own header) where this build has CUDA.
#if defined(VZ_HAVE_CUDA) && __has_include(<c10/cuda/CUDAStream.h>)
#include <c10/cuda/CUDAStream.h>
#define VZ_TORCH_CUDA_STREAMS 1
#endif

#include "engine/core/error.h"
#include "nets/model.h"

namespace vz::nets {

int CudaDeviceCount() { return int(torch::cuda::device_count()); }

void SetCpuThreads(int threads) { torch::set_num_threads(std::max(1, threads)); }

void CheckFiniteOutputs(std::string_view source, int batch, const int32_t* offsets,
                        const float* policy, const float* wdl) {
  for (int i = 0; i < batch; ++i) {
    const char* what = nullptr;
    for (int32_t k = offsets[i]; k < offsets[i + 1] && what == nullptr; ++k) {
      if (!std::isfinite(policy[k])) what = "policy";
    }
    for (int k = 0; k < 3 && what == nullptr; ++k) {
      if (!std::isfinite(wdl[3 * i + k])) what = "WDL";
    }
    if (what != nullptr) {
      throw Error(fmt::format(
          "net file {}: non-finite {} output (NaN or Inf) for batch entry {}: the net's weights "
          "are corrupted or diverged; it cannot be used for search",
          source, what, i));
    }
  }
}

struct NetRunner::Impl {
  PolicyValueNet net{nullptr};
  torch::Device device{torch::kCPU};
  torch::ScalarType dtype = torch::kFloat32;
  std::string precision;
  std::string source;
  std::mutex mutex;

  // Returns {policy logits [batch, A] float32, wdl probabilities [batch, 3] float32} on device.
  std::pair<torch::Tensor, torch::Tensor> Forward(const float* planes, int batch) {
    const NetArchitecture& a = net->architecture;
    torch::Tensor input = torch::from_blob(
        const_cast<float*>(planes), {batch, a.input_planes, a.height, a.width}, torch::kFloat32);
    input = input.to(device, dtype, /*non_blocking=*/false, /*copy=*/false);
    auto [policy, value] = net->forward(input);
    return {policy.to(torch::kFloat32), torch::softmax(value.to(torch::kFloat32), 1)};
  }
};

NetRunner::NetRunner(const NetFile& file, std::string_view source, const std::string& device,
                     const std::string& precision, bool fold_batch_norm)
    : impl_(std::make_unique<Impl>()) {
  ValidateArchitecture(file.architecture, fmt::format("net file {}", source));
  impl_->device = ParseDevice(device);
  const bool cuda = impl_->device.is_cuda();
  std::string chosen = precision == "auto" ? (cuda ? "bf16" : "fp32") : precision;
  if (chosen == "fp32") {
    impl_->dtype = torch::kFloat32;
  } else if (chosen == "fp16") {
    impl_->dtype = torch::kFloat16;
  } else if (chosen == "bf16") {
    impl_->dtype = torch::kBFloat16;
  } else {
    throw Error(fmt::format("precision '{}': expected auto, fp32, fp16 or bf16", precision));
  }
  impl_->precision = chosen;
  impl_->source = std::string(source);
  try {
    torch::NoGradGuard no_grad;
    impl_->net = PolicyValueNet(file.architecture);
    ImportTensors(impl_->net, file, source);
    impl_->net->eval();
    if (fold_batch_norm) FoldBatchNorm(impl_->net);
    impl_->net->to(impl_->device, impl_->dtype);
  } catch (const c10::Error& error) {
    throw Error(fmt::format("net file {}: cannot load it on {}: {}", source, device,
                            error.what_without_backtrace()));
  }
}

NetRunner::~NetRunner() = default;

void NetRunner::Run(const float* planes, int batch, const int32_t* action_offsets,
                    const int32_t* actions, float* logits, float* wdl) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  try {
    torch::InferenceMode inference;
    auto [policy, value] = impl_->Forward(planes, batch);
    const int64_t total = action_offsets[batch];
    const int64_t num_actions = impl_->net->architecture.num_actions;
    // Flat indices row * num_actions + action, gathered on the device.
    std::vector<int64_t> flat(static_cast<size_t>(total));
    for (int i = 0; i < batch; ++i) {
      for (int32_t k = action_offsets[i]; k < action_offsets[i + 1]; ++k) {
        flat[size_t(k)] = int64_t(i) * num_actions + actions[k];
      }
    }
    const torch::Tensor index =
        torch::from_blob(flat.data(), {total}, torch::kInt64).to(impl_->device);
    const torch::Tensor gathered = policy.reshape({-1}).index_select(0, index).to(torch::kCPU);
    const torch::Tensor values = value.to(torch::kCPU).contiguous();
    std::memcpy(logits, gathered.data_ptr<float>(), size_t(total) * sizeof(float));
    std::memcpy(wdl, values.data_ptr<float>(), size_t(batch) * 3 * sizeof(float));
  } catch (const c10::Error& error) {
    throw Error(fmt::format("network evaluation on {} failed: {}", device(),
                            error.what_without_backtrace()));
  }
  CheckFiniteOutputs(impl_->source, batch, action_offsets, logits, wdl);
}

void NetRunner::RunAll(const float* planes, int batch, float* policy_out, float* wdl) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  try {
    torch::InferenceMode inference;
    auto [policy, value] = impl_->Forward(planes, batch);
    const torch::Tensor p = policy.to(torch::kCPU).contiguous();
    const torch::Tensor v = value.to(torch::kCPU).contiguous();
    std::memcpy(policy_out, p.data_ptr<float>(), size_t(p.numel()) * sizeof(float));
    std::memcpy(wdl, v.data_ptr<float>(), size_t(v.numel()) * sizeof(float));
  } catch (const c10::Error& error) {
    throw Error(fmt::format("network evaluation on {} failed: {}", device(),
                            error.what_without_backtrace()));
  }
  const int32_t actions = impl_->net->architecture.num_actions;
  std::vector<int32_t> offsets(size_t(batch) + 1);
  for (int i = 0; i <= batch; ++i) offsets[size_t(i)] = i * actions;
  CheckFiniteOutputs(impl_->source, batch, offsets.data(), policy_out, wdl);
}

void NetRunner::WarmUp(int batch) {
  const NetArchitecture& a = impl_->net->architecture;
  std::vector<float> planes(size_t(batch) * a.input_planes * a.height * a.width, 0.0f);
  std::vector<int32_t> offsets(size_t(batch) + 1);
  for (int i = 0; i <= batch; ++i) offsets[size_t(i)] = i;
  std::vector<int32_t> actions(size_t(batch), 0);
  std::vector<float> logits(static_cast<size_t>(batch)), wdl(static_cast<size_t>(batch) * 3);
  for (int i = 0; i < 3; ++i) {
    Run(planes.data(), batch, offsets.data(), actions.data(), logits.data(), wdl.data());
  }
  if (impl_->device.is_cuda()) torch::cuda::synchronize(impl_->device.index());
}

void NetRunner::RunDevice(const void* planes, DeviceInput type, int batch, float* policy_logits,
                          float* wdl_logits) {
  if (!impl_->device.is_cuda()) {
    throw Error(fmt::format("RunDevice: runner is on {}, not on a CUDA device", device()));
  }
  if (batch < 1) throw Error(fmt::format("RunDevice: batch {} is not positive", batch));
  std::lock_guard<std::mutex> lock(impl_->mutex);
  try {
    torch::InferenceMode inference;
    const NetArchitecture& a = impl_->net->architecture;
    const auto on_device = torch::TensorOptions().device(impl_->device);
    torch::Tensor input = torch::from_blob(
        const_cast<void*>(planes), {batch, a.input_planes, a.height, a.width},
        on_device.dtype(type == DeviceInput::kBFloat16 ? torch::kBFloat16 : torch::kFloat32));
    if (input.scalar_type() != impl_->dtype) input = input.to(impl_->dtype);
    auto [policy, value] = impl_->net->forward(input);
    torch::from_blob(policy_logits, {batch, int64_t(a.num_actions)},
                     on_device.dtype(torch::kFloat32))
        .copy_(policy);
    torch::from_blob(wdl_logits, {batch, 3}, on_device.dtype(torch::kFloat32)).copy_(value);
  } catch (const c10::Error& error) {
    throw Error(fmt::format("network evaluation on {} failed: {}", device(),
                            error.what_without_backtrace()));
  }
}

void* NetRunner::CudaStream() const {
  if (!impl_->device.is_cuda()) {
    throw Error(fmt::format("runner is on {}, which has no CUDA stream", device()));
  }
#if defined(VZ_TORCH_CUDA_STREAMS)
  return c10::cuda::getCurrentCUDAStream(impl_->device.index()).stream();
#else
  throw Error("this vzero was built without CUDA: no CUDA stream");
#endif
}

int NetRunner::CudaDeviceIndex() const {
  return impl_->device.is_cuda() ? int(impl_->device.index()) : -1;
}

const NetArchitecture& NetRunner::architecture() const { return impl_->net->architecture; }

std::string NetRunner::device() const { return impl_->device.str(); }

std::string NetRunner::precision() const { return impl_->precision; }

const std::string& NetRunner::source() const { return impl_->source; }

}  // namespace vz::nets
