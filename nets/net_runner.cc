// NetRunner, CudaDeviceCount and CpuThreads forward to the LibTorch side (nets/torch_backend.h);
// CheckFiniteOutputs, the device-work lock and the CUDA graphs' failure flag are torch-free.

#include "nets/net_runner.h"

#include <fmt/core.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "engine/core/error.h"
#include "engine/core/position_text.h"
#include "nets/torch_backend.h"

namespace vz::nets {

int CudaDeviceCount() { return Torch().CudaDeviceCount(); }

int CpuThreads() { return Torch().CpuThreads(); }

double MatmulGflops(const std::string& precision, int size, double seconds) {
  if (precision != "fp32" && precision != "bf16" && precision != "fp16") {
    throw Error(
        fmt::format("matrix product precision '{}': expected fp32, bf16 or fp16", precision));
  }
  if (size < 1 || size > 8192) {
    throw Error(fmt::format("matrix product size {} is outside 1..8192", size));
  }
  if (!(seconds >= 0 && seconds <= 60)) {
    throw Error(fmt::format("matrix product time {} s is outside [0, 60]", seconds));
  }
  return Torch().MatmulGflops(precision, size, seconds);
}

bool CpuInfoPrefersBf16(std::string_view cpuinfo) {
  // The first CPU's "vendor_id" and "flags" lines decide.
  std::optional<std::string_view> vendor, flags;
  for (const std::string_view line : SplitAt(cpuinfo, '\n')) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (!vendor && line.starts_with("vendor_id")) vendor = TrimBlanks(line.substr(colon + 1));
    if (!flags && line.starts_with("flags")) flags = line.substr(colon + 1);
  }
  if (!flags) return false;
  bool avx512_bf16 = false;
  for (const std::string_view flag : SplitBlanks(*flags)) {
    if (flag == "amx_bf16") return true;
    if (flag == "avx512_bf16") avx512_bf16 = true;
  }
  return avx512_bf16 && vendor == "AuthenticAMD";
}

bool CpuPrefersBf16() {
  static const bool prefers = [] {
    std::ifstream file("/proc/cpuinfo");
    if (!file) return false;
    std::ostringstream text;
    text << file.rdbuf();
    return CpuInfoPrefersBf16(text.str());
  }();
  return prefers;
}

std::string ResolvePrecision(std::string_view precision, bool cuda) {
  if (precision != "auto") return std::string(precision);
  return cuda || CpuPrefersBf16() ? "bf16" : "fp32";
}

bool CpuPrefersChannelsLast(const NetArchitecture& architecture, std::string_view precision) {
  return precision != "fp32" || architecture.global_pooling_channels == 0 ||
         architecture.channels >= 32;
}

int AutoCpuBlock(const NetArchitecture& architecture) {
  // 1024 / channels as a power of two in 1..256: 64 for 16 channels, 32 for 32 (measured best or
  // within noise of it for tiny, small and tiny-gpool-vpool of the four games at batch 256,
  // docs/performance.md); a tower's activations of a block then stay within about 1 MiB.
  int block = 1;
  while (block < 256 && 2 * block * architecture.channels <= 1024) block *= 2;
  return block;
}

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

void DeviceWorkLock::lock() {
  std::unique_lock<std::mutex> hold(mutex_);
  ++waiting_writers_;
  changed_.wait(hold, [this] { return !writer_ && readers_ == 0; });
  --waiting_writers_;
  writer_ = true;
}

void DeviceWorkLock::unlock() {
  {
    const std::lock_guard<std::mutex> hold(mutex_);
    writer_ = false;
  }
  changed_.notify_all();
}

void DeviceWorkLock::lock_shared() {
  std::unique_lock<std::mutex> hold(mutex_);
  changed_.wait(hold, [this] { return !writer_ && waiting_writers_ == 0; });
  ++readers_;
}

void DeviceWorkLock::unlock_shared() {
  bool last = false;
  {
    const std::lock_guard<std::mutex> hold(mutex_);
    last = --readers_ == 0;
  }
  if (last) changed_.notify_all();
}

DeviceWorkLock& CudaCaptureMutex() {
  static DeviceWorkLock lock;
  return lock;
}

std::shared_lock<DeviceWorkLock> ShareDeviceWork(bool cuda) {
  return cuda ? std::shared_lock<DeviceWorkLock>(CudaCaptureMutex())
              : std::shared_lock<DeviceWorkLock>(CudaCaptureMutex(), std::defer_lock);
}

namespace {

std::atomic<bool> graphs_failed{false};

// The first failure's reason, written once before graphs_failed is set.
std::mutex& GraphsFailureMutex() {
  static std::mutex mutex;
  return mutex;
}
std::string& GraphsFailureReason() {
  static std::string reason;
  return reason;
}

}  // namespace

void FailCudaGraphs(const std::string& reason) {
  const std::lock_guard<std::mutex> hold(GraphsFailureMutex());
  if (graphs_failed.load(std::memory_order_relaxed)) return;
  GraphsFailureReason() = reason;
  graphs_failed.store(true, std::memory_order_release);
  fmt::print(stderr, "warning: CUDA graphs off for this process ({}); evaluating eagerly\n",
             reason);
}

std::string CudaGraphsFailure() {
  if (!graphs_failed.load(std::memory_order_acquire)) return "";
  const std::lock_guard<std::mutex> hold(GraphsFailureMutex());
  return GraphsFailureReason();
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
