// The entry point of libvzero_nets.so: the TorchBackend (nets/torch_backend.h) over the LibTorch
// implementations of nets/torch_*.cc and nets/model.cc.

#include <torch/cuda.h>
#include <torch/utils.h>

#include <algorithm>
#include <chrono>

#include "nets/model.h"
#include "nets/torch_impl.h"

namespace vz::nets::torch_impl {
namespace {

class LibTorchBackend final : public TorchBackend {
 public:
  int CudaDeviceCount() override { return int(torch::cuda::device_count()); }

  void SetCpuThreads(int threads) override { torch::set_num_threads(std::max(1, threads)); }

  int CpuThreads() override { return torch::get_num_threads(); }

  double MatmulGflops(const std::string& precision, int size, double seconds) override {
    // The name was checked by nets::MatmulGflops (fp32, bf16 or fp16).
    const torch::Dtype dtype = PrecisionDtype(precision).value_or(torch::kFloat32);
    torch::InferenceMode inference;
    const torch::Tensor a = torch::rand({size, size}).to(dtype);
    const torch::Tensor b = torch::rand({size, size}).to(dtype);
    torch::mm(a, b);  // warm-up: kernel selection, the allocator
    int products = 0;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    do {
      torch::mm(a, b);
      ++products;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    } while (elapsed < seconds);
    return 2.0 * double(size) * size * size * products / elapsed / 1e9;
  }

  std::unique_ptr<NetRunner::Impl> NewNetRunner(const NetFile& net, std::string_view source,
                                                const std::string& device,
                                                const std::string& precision,
                                                const RunnerOptions& options) override {
    return torch_impl::NewNetRunner(net, source, device, precision, options);
  }

  std::unique_ptr<Trainer::Impl> NewTrainer(const NetFile& net,
                                            const TrainerOptions& options) override {
    return torch_impl::NewTrainer(net, options);
  }

  std::unique_ptr<ProcessGroup::Impl> NewProcessGroup(const DistributedEnv& env,
                                                      const std::string& device,
                                                      std::chrono::milliseconds timeout) override {
    return torch_impl::NewProcessGroup(env, device, timeout);
  }

  NetFile FreshNet(const NetFile& header, uint64_t seed) override {
    return torch_impl::FreshNet(header, seed);
  }

  NetFile ExportCheckpoint(const std::string& path, uint64_t games,
                           std::vector<std::string>* warnings) override {
    return torch_impl::ExportCheckpoint(path, games, warnings);
  }
};

}  // namespace
}  // namespace vz::nets::torch_impl

// The library's one entry point (nets::kTorchEntryPoint), found by dlsym: the process-wide
// backend, alive until exit.
extern "C" __attribute__((visibility("default"))) vz::nets::TorchBackend*
vzero_nets_torch_backend() {
  static vz::nets::torch_impl::LibTorchBackend backend;
  return &backend;
}
