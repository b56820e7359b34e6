// The LibTorch NetRunner (nets/net_runner.h), inside libvzero_nets.so.

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
#include "nets/torch_impl.h"

namespace vz::nets::torch_impl {
namespace {

class TorchNetRunner final : public NetRunner::Impl {
 public:
  TorchNetRunner(const NetFile& file, std::string_view source, const std::string& device,
                 const std::string& precision, bool fold_batch_norm) {
    ValidateArchitecture(file.architecture, fmt::format("net file {}", source));
    device_ = ParseDevice(device);
    const bool cuda = device_.is_cuda();
    std::string chosen = precision == "auto" ? (cuda ? "bf16" : "fp32") : precision;
    if (chosen == "fp32") {
      dtype_ = torch::kFloat32;
    } else if (chosen == "fp16") {
      dtype_ = torch::kFloat16;
    } else if (chosen == "bf16") {
      dtype_ = torch::kBFloat16;
    } else {
      throw Error(fmt::format("precision '{}': expected auto, fp32, fp16 or bf16", precision));
    }
    precision_ = chosen;
    source_ = std::string(source);
    try {
      torch::NoGradGuard no_grad;
      net_ = PolicyValueNet(file.architecture);
      ImportTensors(net_, file, source);
      net_->eval();
      if (fold_batch_norm) FoldBatchNorm(net_);
      net_->to(device_, dtype_);
    } catch (const c10::Error& error) {
      throw Error(fmt::format("net file {}: cannot load it on {}: {}", source, device,
                              error.what_without_backtrace()));
    }
  }

  void Run(const float* planes, int batch, const int32_t* action_offsets, const int32_t* actions,
           float* logits, float* wdl) override {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      torch::InferenceMode inference;
      auto [policy, value] = Forward(planes, batch);
      const int64_t total = action_offsets[batch];
      const int64_t num_actions = net_->architecture.num_actions;
      // Flat indices row * num_actions + action, gathered on the device.
      std::vector<int64_t> flat(static_cast<size_t>(total));
      for (int i = 0; i < batch; ++i) {
        for (int32_t k = action_offsets[i]; k < action_offsets[i + 1]; ++k) {
          flat[size_t(k)] = int64_t(i) * num_actions + actions[k];
        }
      }
      const torch::Tensor index = torch::from_blob(flat.data(), {total}, torch::kInt64).to(device_);
      const torch::Tensor gathered = policy.reshape({-1}).index_select(0, index).to(torch::kCPU);
      const torch::Tensor values = value.to(torch::kCPU).contiguous();
      std::memcpy(logits, gathered.data_ptr<float>(), size_t(total) * sizeof(float));
      std::memcpy(wdl, values.data_ptr<float>(), size_t(batch) * 3 * sizeof(float));
    } catch (const c10::Error& error) {
      throw Error(fmt::format("network evaluation on {} failed: {}", device(),
                              error.what_without_backtrace()));
    }
    CheckFiniteOutputs(source_, batch, action_offsets, logits, wdl);
  }

  void RunAll(const float* planes, int batch, float* policy_out, float* wdl) override {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      torch::InferenceMode inference;
      auto [policy, value] = Forward(planes, batch);
      const torch::Tensor p = policy.to(torch::kCPU).contiguous();
      const torch::Tensor v = value.to(torch::kCPU).contiguous();
      std::memcpy(policy_out, p.data_ptr<float>(), size_t(p.numel()) * sizeof(float));
      std::memcpy(wdl, v.data_ptr<float>(), size_t(v.numel()) * sizeof(float));
    } catch (const c10::Error& error) {
      throw Error(fmt::format("network evaluation on {} failed: {}", device(),
                              error.what_without_backtrace()));
    }
    const int32_t actions = net_->architecture.num_actions;
    std::vector<int32_t> offsets(size_t(batch) + 1);
    for (int i = 0; i <= batch; ++i) offsets[size_t(i)] = i * actions;
    CheckFiniteOutputs(source_, batch, offsets.data(), policy_out, wdl);
  }

  void WarmUp(int batch) override {
    const NetArchitecture& a = net_->architecture;
    std::vector<float> planes(size_t(batch) * a.input_planes * a.height * a.width, 0.0f);
    std::vector<int32_t> offsets(size_t(batch) + 1);
    for (int i = 0; i <= batch; ++i) offsets[size_t(i)] = i;
    std::vector<int32_t> actions(size_t(batch), 0);
    std::vector<float> logits(static_cast<size_t>(batch)), wdl(static_cast<size_t>(batch) * 3);
    for (int i = 0; i < 3; ++i) {
      Run(planes.data(), batch, offsets.data(), actions.data(), logits.data(), wdl.data());
    }
    if (device_.is_cuda()) torch::cuda::synchronize(device_.index());
  }

  void RunDevice(const void* planes, NetRunner::DeviceInput type, int batch, float* policy_logits,
                 float* wdl_logits) override {
    if (!device_.is_cuda()) {
      throw Error(fmt::format("RunDevice: runner is on {}, not on a CUDA device", device()));
    }
    if (batch < 1) throw Error(fmt::format("RunDevice: batch {} is not positive", batch));
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      torch::InferenceMode inference;
      const NetArchitecture& a = net_->architecture;
      const auto on_device = torch::TensorOptions().device(device_);
      torch::Tensor input = torch::from_blob(
          const_cast<void*>(planes), {batch, a.input_planes, a.height, a.width},
          on_device.dtype(type == NetRunner::DeviceInput::kBFloat16 ? torch::kBFloat16
                                                                    : torch::kFloat32));
      if (input.scalar_type() != dtype_) input = input.to(dtype_);
      auto [policy, value] = net_->forward(input);
      torch::from_blob(policy_logits, {batch, int64_t(a.num_actions)},
                       on_device.dtype(torch::kFloat32))
          .copy_(policy);
      torch::from_blob(wdl_logits, {batch, 3}, on_device.dtype(torch::kFloat32)).copy_(value);
    } catch (const c10::Error& error) {
      throw Error(fmt::format("network evaluation on {} failed: {}", device(),
                              error.what_without_backtrace()));
    }
  }

  void* CudaStream() const override {
    if (!device_.is_cuda()) {
      throw Error(fmt::format("runner is on {}, which has no CUDA stream", device()));
    }
#if defined(VZ_TORCH_CUDA_STREAMS)
    return c10::cuda::getCurrentCUDAStream(device_.index()).stream();
#else
    throw Error("this vzero was built without CUDA: no CUDA stream");
#endif
  }

  int CudaDeviceIndex() const override { return device_.is_cuda() ? int(device_.index()) : -1; }
  const NetArchitecture& architecture() const override { return net_->architecture; }
  std::string device() const override { return device_.str(); }
  std::string precision() const override { return precision_; }
  const std::string& source() const override { return source_; }

 private:
  // Returns {policy logits [batch, A] float32, wdl probabilities [batch, 3] float32} on device.
  std::pair<torch::Tensor, torch::Tensor> Forward(const float* planes, int batch) {
    const NetArchitecture& a = net_->architecture;
    torch::Tensor input = torch::from_blob(
        const_cast<float*>(planes), {batch, a.input_planes, a.height, a.width}, torch::kFloat32);
    input = input.to(device_, dtype_, /*non_blocking=*/false, /*copy=*/false);
    auto [policy, value] = net_->forward(input);
    return {policy.to(torch::kFloat32), torch::softmax(value.to(torch::kFloat32), 1)};
  }

  PolicyValueNet net_{nullptr};
  torch::Device device_{torch::kCPU};
  torch::ScalarType dtype_ = torch::kFloat32;
  std::string precision_;
  std::string source_;
  std::mutex mutex_;
};

}  // namespace

std::unique_ptr<NetRunner::Impl> NewNetRunner(const NetFile& net, std::string_view source,
                                              const std::string& device,
                                              const std::string& precision, bool fold_batch_norm) {
  return std::make_unique<TorchNetRunner>(net, source, device, precision, fold_batch_norm);
}

}  // namespace vz::nets::torch_impl
