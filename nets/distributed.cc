#include "nets/distributed.h"

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

namespace vz::nets {
namespace {

// The message of a c10d, c10 or gloo exception, without LibTorch's C++ backtrace.
std::string ErrorText(const std::exception& error) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&error)) {
    return c10_error->what_without_backtrace();
  }
  return error.what();
}

std::optional<std::string> Lookup(const EnvLookup& lookup, const std::string& name) {
  std::optional<std::string> value = lookup(name);
  if (value && value->empty()) return std::nullopt;  // set but empty counts as unset
  return value;
}

// A non-negative decimal integer <= `max`; throws vz::Error naming the variable otherwise.
int ParseInt(const std::string& name, const std::string& value, int64_t max) {
  bool ok = !value.empty() && value.size() <= 10;
  int64_t number = 0;
  for (char c : value) {
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    number = number * 10 + (c - '0');
  }
  if (!ok) {
    throw Error(
        fmt::format("environment variable {}='{}' is not a non-negative integer", name, value));
  }
  if (number > max) {
    throw Error(fmt::format("environment variable {}={} is out of range 0..{}", name, value, max));
  }
  return int(number);
}

// Reads a rank variable set: rank, size, local rank. Returns false when neither the rank nor the
// size variable is set.
bool ReadSet(const EnvLookup& lookup, const char* rank_name, const char* size_name,
             const char* local_name, DistributedEnv& env) {
  const std::optional<std::string> rank = Lookup(lookup, rank_name);
  const std::optional<std::string> size = Lookup(lookup, size_name);
  if (!rank && !size) return false;
  if (!rank) {
    throw Error(fmt::format("environment variable {} is set but {} is not", size_name, rank_name));
  }
  if (!size) {
    throw Error(fmt::format("environment variable {} is set but {} is not", rank_name, size_name));
  }
  env.world_size = ParseInt(size_name, *size, 1 << 20);
  if (env.world_size < 1) {
    throw Error(fmt::format("environment variable {}={}: the world size must be at least 1",
                            size_name, *size));
  }
  env.rank = ParseInt(rank_name, *rank, 1 << 20);
  if (env.rank >= env.world_size) {
    throw Error(fmt::format("environment variable {}={} is not below {}={}", rank_name, *rank,
                            size_name, *size));
  }
  env.local_rank = 0;
  if (const std::optional<std::string> local = Lookup(lookup, local_name)) {
    env.local_rank = ParseInt(local_name, *local, 1 << 20);
  }
  return true;
}

void ReadPort(const EnvLookup& lookup, DistributedEnv& env) {
  env.master_port = kDefaultMasterPort;
  if (const std::optional<std::string> port = Lookup(lookup, "MASTER_PORT")) {
    env.master_port = ParseInt("MASTER_PORT", *port, 65535);
    if (env.master_port == 0) {
      throw Error("environment variable MASTER_PORT=0 is out of range 1..65535");
    }
  }
}

// Appends the cartesian expansion of one node-list item ("a[1-2]-b[7,9]") to `hosts`.
void ExpandItem(std::string_view item, std::string_view whole, std::string_view variable,
                std::vector<std::string>& hosts) {
  auto fail = [&](const std::string& what) {
    return Error(fmt::format("environment variable {}='{}': {}", variable, whole, what));
  };
  constexpr size_t kMaxHosts = 1000000;
  std::vector<std::string> partial = {""};
  size_t i = 0;
  while (i < item.size()) {
    if (item[i] == ']') throw fail("unbalanced ']'");
    if (item[i] != '[') {
      const size_t next = std::min(item.find('[', i), item.find(']', i));
      const std::string_view text =
          item.substr(i, next == std::string_view::npos ? item.npos : next - i);
      for (std::string& host : partial) host += text;
      i += text.size();
      continue;
    }
    const size_t close = item.find(']', i);
    if (close == std::string_view::npos) throw fail("unbalanced '['");
    const std::string_view ranges = item.substr(i + 1, close - i - 1);
    if (ranges.empty()) throw fail("empty brackets");
    if (ranges.find('[') != std::string_view::npos) throw fail("nested '['");
    std::vector<std::string> values;
    size_t start = 0;
    while (start <= ranges.size()) {
      size_t comma = ranges.find(',', start);
      if (comma == std::string_view::npos) comma = ranges.size();
      const std::string_view range = ranges.substr(start, comma - start);
      const size_t dash = range.find('-');
      const std::string_view low = range.substr(0, dash);
      const std::string_view high = dash == std::string_view::npos ? low : range.substr(dash + 1);
      auto digits = [](std::string_view s) {
        return !s.empty() && s.size() <= 9 &&
               s.find_first_not_of("0123456789") == std::string_view::npos;
      };
      if (!digits(low) || !digits(high)) {
        throw fail(fmt::format("range '{}' is not N or N-M", range));
      }
      const int64_t a = std::stoll(std::string(low)), b = std::stoll(std::string(high));
      if (a > b) throw fail(fmt::format("range '{}' runs backwards", range));
      if (values.size() + size_t(b - a + 1) > kMaxHosts) throw fail("more than 1000000 hosts");
      for (int64_t v = a; v <= b; ++v) {
        values.push_back(fmt::format("{:0{}d}", v, int(low.size())));
      }
      start = comma + 1;
    }
    if (partial.size() * values.size() > kMaxHosts) throw fail("more than 1000000 hosts");
    std::vector<std::string> next;
    next.reserve(partial.size() * values.size());
    for (const std::string& prefix : partial) {
      for (const std::string& value : values) next.push_back(prefix + value);
    }
    partial = std::move(next);
    i = close + 1;
  }
  if (hosts.size() + partial.size() > kMaxHosts) throw fail("more than 1000000 hosts");
  for (std::string& host : partial) {
    if (host.empty()) throw fail("an empty host name");
    hosts.push_back(std::move(host));
  }
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

}  // namespace

std::string DistributedEnv::Describe() const {
  if (!distributed()) return fmt::format("a single process ({})", source);
  return fmt::format("rank {} of {} (local rank {}, {}, master {}:{})", rank, world_size,
                     local_rank, source, master_addr, master_port);
}

std::vector<std::string> ExpandSlurmNodeList(std::string_view nodelist, std::string_view variable) {
  if (nodelist.empty()) {
    throw Error(fmt::format("environment variable {} is empty", variable));
  }
  std::vector<std::string> hosts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= nodelist.size(); ++i) {
    const char c = i < nodelist.size() ? nodelist[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) {
      throw Error(fmt::format("environment variable {}='{}': unbalanced ']'", variable, nodelist));
    }
    if (c == ',' && depth == 0) {
      ExpandItem(nodelist.substr(start, i - start), nodelist, variable, hosts);
      start = i + 1;
    }
  }
  if (depth != 0) {
    throw Error(fmt::format("environment variable {}='{}': unbalanced '['", variable, nodelist));
  }
  return hosts;
}

DistributedEnv ReadDistributedEnv(const EnvLookup& lookup) {
  DistributedEnv env;
  const std::optional<std::string> master = Lookup(lookup, "MASTER_ADDR");
  if (ReadSet(lookup, "RANK", "WORLD_SIZE", "LOCAL_RANK", env)) {
    env.source = "torchrun";
    if (master) {
      env.master_addr = *master;
    } else if (env.world_size > 1) {
      throw Error("environment variable MASTER_ADDR is not set (RANK and WORLD_SIZE are)");
    }
    ReadPort(lookup, env);
    return env;
  }
  if (ReadSet(lookup, "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", env)) {
    env.source = "slurm";
    if (master) {
      env.master_addr = *master;
    } else {
      const char* name = "SLURM_JOB_NODELIST";
      std::optional<std::string> nodelist = Lookup(lookup, name);
      if (!nodelist) {
        name = "SLURM_NODELIST";
        nodelist = Lookup(lookup, name);
      }
      if (nodelist) {
        env.master_addr = ExpandSlurmNodeList(*nodelist, name).front();
      } else if (env.world_size > 1) {
        throw Error(
            "environment variables MASTER_ADDR, SLURM_JOB_NODELIST and SLURM_NODELIST are all "
            "unset (SLURM_PROCID and SLURM_NTASKS are set)");
      }
    }
    ReadPort(lookup, env);
    return env;
  }
  if (ReadSet(lookup, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
              env)) {
    env.source = "openmpi";
    if (master) {
      env.master_addr = *master;
    } else if (env.world_size > 1) {
      throw Error(
          "environment variable MASTER_ADDR is not set (Open MPI sets OMPI_COMM_WORLD_RANK but no "
          "rendezvous address: export MASTER_ADDR=<rank 0's host> to mpirun -x MASTER_ADDR)");
    }
    ReadPort(lookup, env);
    return env;
  }
  env.source = "single process";
  return env;
}

DistributedEnv ReadDistributedEnv() {
  return ReadDistributedEnv([](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
}

struct ProcessGroup::Impl {
  DistributedEnv env;
  std::string device;
  std::chrono::milliseconds timeout{0};
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::Backend> host;         // Gloo: host memory, CPU tensors
  c10::intrusive_ptr<c10d::Backend> accelerator;  // NCCL for CUDA tensors (null on the CPU)

  ~Impl() {
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
    return env.distributed() ? fmt::format("rank {} of {} (master {}:{})", env.rank, env.world_size,
                                           env.master_addr, env.master_port)
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

ProcessGroup::ProcessGroup(const DistributedEnv& env, const std::string& device,
                           std::chrono::milliseconds timeout)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.env = env;
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

ProcessGroup::~ProcessGroup() = default;

int ProcessGroup::rank() const { return impl_->env.rank; }
int ProcessGroup::world_size() const { return impl_->env.world_size; }
const DistributedEnv& ProcessGroup::env() const { return impl_->env; }
std::string ProcessGroup::backend() const { return impl_->accelerator ? "gloo+nccl" : "gloo"; }

void ProcessGroup::AllReduce(std::vector<double>& values, ReduceOp op) {
  Impl& s = *impl_;
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
    for (double& value : values) value /= double(s.env.world_size);
  }
}

void ProcessGroup::Broadcast(std::string& bytes, int root) {
  Impl& s = *impl_;
  if (root < 0 || root >= s.env.world_size) {
    throw Error(fmt::format("broadcast: root {} is not a rank of {}", root, s.env.world_size));
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

void ProcessGroup::Barrier() {
  Impl& s = *impl_;
  c10d::BarrierOptions options;
  options.timeout = s.timeout;
  try {
    s.Wait(s.host->barrier(options), "barrier");
  } catch (const c10::Error& error) {
    throw Error(fmt::format("barrier on {} failed: {}", s.Where(), ErrorText(error)));
  }
}

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
  ProcessGroup::Impl& s = group.impl();
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
  flat[0].div_(double(s.env.world_size));
  Unpack(flat[0], defined);
}

void BroadcastTensors(ProcessGroup& group, const std::vector<torch::Tensor>& tensors, int root) {
  ProcessGroup::Impl& s = group.impl();
  if (root < 0 || root >= s.env.world_size) {
    throw Error(fmt::format("broadcast: root {} is not a rank of {}", root, s.env.world_size));
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
