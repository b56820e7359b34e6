// The c10d process group (nets/distributed.h) and the tensor collectives
// (nets/distributed_tensors.h), inside libvzero_nets.so.

#include <c10/util/Exception.h>
#include <fmt/core.h>
#include <torch/cuda.h>
#include <torch/types.h>

#include <cstdlib>
#include <exception>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <utility>

// Gloo: the wheel ships gloo inside libtorch_cpu.so without its headers; nets/c10d_gloo/ declares
// the few gloo names that ProcessGroupGloo.hpp mentions (see the comment there).
#if defined(USE_C10D_GLOO)
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#define VZ_HAVE_GLOO 1
#endif
// NCCL: c10d's backend for CUDA tensors, compiled when LibTorch has it and nccl.h is found (CMake
// prefers the header of the wheel's own nvidia-nccl package, the version LibTorch was built with,
// since the backend's option struct embeds NCCL's config struct).
#if defined(USE_C10D_NCCL) && __has_include(<nccl.h>) && __has_include(<c10/cuda/CUDAFunctions.h>)
#include <c10/cuda/CUDAFunctions.h>

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define VZ_HAVE_NCCL 1
#endif

#include "engine/core/error.h"
#include "nets/distributed_tensors.h"
#include "nets/torch_impl.h"

namespace vz::nets::torch_impl {
namespace {

// The message of a c10d, c10 or gloo exception, without LibTorch's C++ backtrace.
std::string ErrorText(const std::exception& error) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&error)) {
    return c10_error->what_without_backtrace();
  }
  return error.what();
}

bool IsLoopback(const std::string& address) {
  return address == "localhost" || address.rfind("127.", 0) == 0 || address == "::1";
}

// "cpu" -> -1, "cuda" -> `local_rank`, "cuda:N" -> N; throws vz::Error otherwise.
int CudaIndex(const std::string& device, int local_rank) {
  if (device == "cpu") return -1;
  if (device == "cuda") return local_rank;
  if (device.rfind("cuda:", 0) == 0) {
    const std::string digits = device.substr(5);
    if (!digits.empty() && digits.size() <= 4 &&
        digits.find_first_not_of("0123456789") == std::string::npos) {
      return std::stoi(digits);
    }
  }
  throw Error(fmt::format("process group device '{}': expected cpu, cuda or cuda:N", device));
}

struct TorchProcessGroup final : ProcessGroup::Impl {
  TorchProcessGroup(const DistributedEnv& env, const std::string& device,
                    std::chrono::milliseconds timeout);
  const DistributedEnv& env() const override { return env_; }
  std::string backend() const override { return accelerator ? "gloo+nccl" : "gloo"; }
  void AllReduce(std::vector<double>& values, ReduceOp op) override;
  void Broadcast(std::string& bytes, int root) override;
  void Barrier() override;

  DistributedEnv env_;
  std::string device;
  std::chrono::milliseconds timeout{0};
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::Backend> host;         // Gloo: host memory, CPU tensors
  c10::intrusive_ptr<c10d::Backend> accelerator;  // NCCL for CUDA tensors (null on the CPU)

  ~TorchProcessGroup() override {
    // NCCL wants an orderly shutdown of its communicators before the backend goes.
    if (accelerator) {
      try {
        accelerator->shutdown();
      } catch (const std::exception&) {
      }
    }
  }

  // Where an error happened, for messages.
  std::string Where() const {
    return env_.distributed() ? fmt::format("rank {} of {} (master {}:{})", env_.rank,
                                            env_.world_size, env_.master_addr, env_.master_port)
                              : std::string("a single-process group");
  }

  c10::intrusive_ptr<c10d::Backend>& BackendFor(const torch::Device& device) {
    if (device.is_cuda() && accelerator) return accelerator;
    return host;
  }

  // Waits for `work`, turning a c10d or gloo failure into vz::Error naming `what`.
  void Wait(const c10::intrusive_ptr<c10d::Work>& work, const char* what) const {
    try {
      work->wait(timeout);
    } catch (const std::exception& error) {
      throw Error(fmt::format("{} on {} failed: {}", what, Where(), ErrorText(error)));
    }
  }
};

TorchProcessGroup::TorchProcessGroup(const DistributedEnv& env, const std::string& device,
                                     std::chrono::milliseconds timeout) {
  TorchProcessGroup& s = *this;
  s.env_ = env;
  s.device = device;
  s.timeout = timeout;
  if (env.world_size < 1 || env.rank < 0 || env.rank >= env.world_size) {
    throw Error(fmt::format("process group: rank {} of world size {} is out of range", env.rank,
                            env.world_size));
  }
  const int cuda_index = CudaIndex(device, env.local_rank);
  try {
    if (env.world_size == 1) {
      s.store = c10::make_intrusive<c10d::HashStore>();
    } else {
      if (env.master_addr.empty()) {
        throw Error("process group: no master address (MASTER_ADDR) for a world of " +
                    std::to_string(env.world_size));
      }
      c10d::TCPStoreOptions options;
      options.port = uint16_t(env.master_port);
      options.isServer = env.rank == 0;
      options.numWorkers = size_t(env.world_size);
      options.waitWorkers = true;
      options.timeout = timeout;
      s.store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, options);
    }
#if defined(VZ_HAVE_GLOO)
    auto gloo_options = c10d::ProcessGroupGloo::Options::create(timeout);
    if (const char* interfaces = std::getenv("GLOO_SOCKET_IFNAME");
        interfaces != nullptr && *interfaces != '\0') {
      std::string list = interfaces;
      size_t start = 0;
      while (start <= list.size()) {
        size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        if (comma > start) {
          gloo_options->devices.push_back(
              c10d::ProcessGroupGloo::createDeviceForInterface(list.substr(start, comma - start)));
        }
        start = comma + 1;
      }
    } else if (env.world_size == 1 || IsLoopback(env.master_addr)) {
      gloo_options->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    } else {
      gloo_options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    s.host = c10::make_intrusive<c10d::ProcessGroupGloo>(
        c10::make_intrusive<c10d::PrefixStore>("vzero/gloo", s.store), env.rank, env.world_size,
        gloo_options);
#else
    throw Error("process group: this LibTorch has no Gloo backend (USE_C10D_GLOO)");
#endif
    if (cuda_index >= 0) {
#if defined(VZ_HAVE_NCCL)
      const int64_t devices = int64_t(torch::cuda::device_count());
      if (cuda_index >= devices) {
        throw Error(
            fmt::format("process group device '{}': {} CUDA device(s) present", device, devices));
      }
      c10::cuda::set_device(c10::DeviceIndex(cuda_index));
      auto nccl_options = c10d::ProcessGroupNCCL::Options::create();
      nccl_options->timeout = timeout;
      s.accelerator = c10::make_intrusive<c10d::ProcessGroupNCCL>(
          c10::make_intrusive<c10d::PrefixStore>("vzero/nccl", s.store), env.rank, env.world_size,
          nccl_options);
#else
      throw Error(fmt::format(
          "process group device '{}': this build has no NCCL backend (LibTorch without "
          "USE_C10D_NCCL, or nccl.h not found at build time); train on the CPU with Gloo",
          device));
#endif
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& error) {
    throw Error(
        fmt::format("process group rendezvous of {} failed: {}", s.Where(), ErrorText(error)));
  }
}

void TorchProcessGroup::AllReduce(std::vector<double>& values, ReduceOp op) {
  TorchProcessGroup& s = *this;
  if (values.empty()) return;
  std::vector<at::Tensor> tensors = {
      torch::from_blob(values.data(), {int64_t(values.size())}, torch::kFloat64)};
  c10d::AllreduceOptions options;
  options.reduceOp = op == ReduceOp::kMin   ? c10d::ReduceOp::MIN
                     : op == ReduceOp::kMax ? c10d::ReduceOp::MAX
                                            : c10d::ReduceOp::SUM;
  options.timeout = s.timeout;
  try {
    s.Wait(s.host->allreduce(tensors, options), "all-reduce");
  } catch (const c10::Error& error) {
    throw Error(fmt::format("all-reduce on {} failed: {}", s.Where(), ErrorText(error)));
  }
  if (op == ReduceOp::kAverage) {
    for (double& value : values) value /= double(s.env_.world_size);
  }
}

void TorchProcessGroup::Broadcast(std::string& bytes, int root) {
  TorchProcessGroup& s = *this;
  if (root < 0 || root >= s.env_.world_size) {
    throw Error(fmt::format("broadcast: root {} is not a rank of {}", root, s.env_.world_size));
  }
  c10d::BroadcastOptions options;
  options.rootRank = root;
  options.timeout = s.timeout;
  try {
    int64_t size = int64_t(bytes.size());
    std::vector<at::Tensor> length = {torch::from_blob(&size, {1}, torch::kInt64)};
    s.Wait(s.host->broadcast(length, options), "broadcast");
    bytes.resize(size_t(size));
    if (size == 0) return;
    std::vector<at::Tensor> data = {torch::from_blob(bytes.data(), {size}, torch::kUInt8)};
    s.Wait(s.host->broadcast(data, options), "broadcast");
  } catch (const c10::Error& error) {
    throw Error(fmt::format("broadcast on {} failed: {}", s.Where(), ErrorText(error)));
  }
}

void TorchProcessGroup::Barrier() {
  TorchProcessGroup& s = *this;
  c10d::BarrierOptions options;
  options.timeout = s.timeout;
  try {
    s.Wait(s.host->barrier(options), "barrier");
  } catch (const c10::Error& error) {
    throw Error(fmt::format("barrier on {} failed: {}", s.Where(), ErrorText(error)));
  }
}

}  // namespace

std::unique_ptr<ProcessGroup::Impl> NewProcessGroup(const DistributedEnv& env,
                                                    const std::string& device,
                                                    std::chrono::milliseconds timeout) {
  return std::make_unique<TorchProcessGroup>(env, device, timeout);
}

}  // namespace vz::nets::torch_impl

namespace vz::nets {

using torch_impl::ErrorText;
using torch_impl::TorchProcessGroup;

namespace {

// The defined tensors of `tensors`, checked to share one device and one floating dtype.
std::vector<torch::Tensor> Defined(const std::vector<torch::Tensor>& tensors, const char* what) {
  std::vector<torch::Tensor> defined;
  for (const torch::Tensor& t : tensors) {
    if (!t.defined()) continue;
    if (!defined.empty() && (t.device() != defined.front().device() ||
                             t.scalar_type() != defined.front().scalar_type())) {
      throw Error(fmt::format("{}: tensors on {} ({}) and {} ({}) cannot share one collective",
                              what, defined.front().device().str(),
                              c10::toString(defined.front().scalar_type()), t.device().str(),
                              c10::toString(t.scalar_type())));
    }
    if (!at::isFloatingType(t.scalar_type())) {
      throw Error(fmt::format("{}: tensor of {} is not floating point", what,
                              c10::toString(t.scalar_type())));
    }
    defined.push_back(t);
  }
  return defined;
}

torch::Tensor Pack(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> flat;
  flat.reserve(tensors.size());
  for (const torch::Tensor& t : tensors) flat.push_back(t.detach().reshape({-1}));
  return torch::cat(flat);
}

void Unpack(const torch::Tensor& flat, const std::vector<torch::Tensor>& tensors) {
  int64_t offset = 0;
  for (const torch::Tensor& t : tensors) {
    const int64_t n = t.numel();
    t.detach().copy_(flat.narrow(0, offset, n).view(t.sizes()));
    offset += n;
  }
}

}  // namespace

void AllReduceMean(ProcessGroup& group, const std::vector<torch::Tensor>& tensors) {
  auto& s = static_cast<TorchProcessGroup&>(group.impl());
  torch::NoGradGuard no_grad;
  const std::vector<torch::Tensor> defined = Defined(tensors, "all-reduce");
  if (defined.empty()) return;
  std::vector<at::Tensor> flat = {Pack(defined)};
  c10d::AllreduceOptions options;
  options.reduceOp = c10d::ReduceOp::SUM;
  options.timeout = s.timeout;
  try {
    s.Wait(s.BackendFor(flat[0].device())->allreduce(flat, options), "all-reduce");
  } catch (const c10::Error& error) {
    throw Error(fmt::format("all-reduce on {} failed: {}", s.Where(), ErrorText(error)));
  }
  flat[0].div_(double(s.env_.world_size));
  Unpack(flat[0], defined);
}

void BroadcastTensors(ProcessGroup& group, const std::vector<torch::Tensor>& tensors, int root) {
  auto& s = static_cast<TorchProcessGroup&>(group.impl());
  if (root < 0 || root >= s.env_.world_size) {
    throw Error(fmt::format("broadcast: root {} is not a rank of {}", root, s.env_.world_size));
  }
  torch::NoGradGuard no_grad;
  const std::vector<torch::Tensor> defined = Defined(tensors, "broadcast");
  if (defined.empty()) return;
  std::vector<at::Tensor> flat = {Pack(defined)};
  c10d::BroadcastOptions options;
  options.rootRank = root;
  options.timeout = s.timeout;
  try {
    s.Wait(s.BackendFor(flat[0].device())->broadcast(flat, options), "broadcast");
  } catch (const c10::Error& error) {
    throw Error(fmt::format("broadcast on {} failed: {}", s.Where(), ErrorText(error)));
  }
  Unpack(flat[0], defined);
}

}  // namespace vz::nets
