// The rendezvous variables (torch-free) and the ProcessGroup forwarders to the LibTorch side
// (nets/torch_backend.h; the group itself is nets/torch_distributed.cc).

#include "nets/distributed.h"

#include <fmt/core.h>

#include <cstdlib>
#include <utility>

#include "engine/core/error.h"
#include "nets/torch_backend.h"

namespace vz::nets {
namespace {

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

ProcessGroup::ProcessGroup(const DistributedEnv& env, const std::string& device,
                           std::chrono::milliseconds timeout)
    : impl_(Torch().NewProcessGroup(env, device, timeout)) {}

ProcessGroup::~ProcessGroup() = default;

int ProcessGroup::rank() const { return impl_->env().rank; }
int ProcessGroup::world_size() const { return impl_->env().world_size; }
const DistributedEnv& ProcessGroup::env() const { return impl_->env(); }
std::string ProcessGroup::backend() const { return impl_->backend(); }

void ProcessGroup::AllReduce(std::vector<double>& values, ReduceOp op) {
  impl_->AllReduce(values, op);
}

void ProcessGroup::Broadcast(std::string& bytes, int root) { impl_->Broadcast(bytes, root); }

void ProcessGroup::Barrier() { impl_->Barrier(); }

}  // namespace vz::nets
