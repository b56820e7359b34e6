// NetRunner, CudaDeviceCount and CpuThreads forward to the LibTorch side (nets/torch_backend.h);
// CheckFiniteOutputs is torch-free.

#include "nets/net_runner.h"

#include <fmt/core.h>

#include <cmath>

#include "engine/core/error.h"
#include "nets/torch_backend.h"

namespace vz::nets {

int CudaDeviceCount() { return Torch().CudaDeviceCount(); }

int CpuThreads() { return Torch().CpuThreads(); }

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

std::shared_mutex& CudaCaptureMutex() {
  static std::shared_mutex mutex;
  return mutex;
}

std::shared_lock<std::shared_mutex> ShareDeviceWork(bool cuda) {
  return cuda ? std::shared_lock<std::shared_mutex>(CudaCaptureMutex())
              : std::shared_lock<std::shared_mutex>(CudaCaptureMutex(), std::defer_lock);
}

int PaddedBatchSize(int batch) {
  if (batch < 1) throw Error(fmt::format("batch size {} is not positive", batch));
  constexpr int kStep = 512;
  if (batch > kStep) return (batch + kStep - 1) / kStep * kStep;
  int padded = 1;
  while (padded < batch) padded *= 2;
  return padded;
}

NetRunner::NetRunner(const NetFile& net, std::string_view source, const std::string& device,
                     const std::string& precision, const RunnerOptions& options)
    : impl_(Torch().NewNetRunner(net, source, device, precision, options)) {}

NetRunner::~NetRunner() = default;

void NetRunner::Run(const float* planes, int batch, const int32_t* action_offsets,
                    const int32_t* actions, float* logits, float* wdl) {
  impl_->Run(planes, batch, action_offsets, actions, logits, wdl);
}

void NetRunner::RunAll(const float* planes, int batch, float* policy, float* wdl) {
  impl_->RunAll(planes, batch, policy, wdl);
}

void NetRunner::WarmUp(int batch) { impl_->WarmUp(batch); }

void NetRunner::RunDevice(const void* planes, DeviceInput type, int batch, float* policy_logits,
                          float* wdl_logits) {
  impl_->RunDevice(planes, type, batch, policy_logits, wdl_logits);
}

void* NetRunner::CudaStream() const { return impl_->CudaStream(); }

int NetRunner::CudaDeviceIndex() const { return impl_->CudaDeviceIndex(); }

std::string NetRunner::tuning() const { return impl_->tuning(); }

const NetArchitecture& NetRunner::architecture() const { return impl_->architecture(); }

std::string NetRunner::device() const { return impl_->device(); }

std::string NetRunner::precision() const { return impl_->precision(); }

const std::string& NetRunner::source() const { return impl_->source(); }

}  // namespace vz::nets
