#pragma once

// Data-parallel training across processes and machines with LibTorch's c10d (the collective layer
// under torch.distributed; PyTorch's DistributedDataParallel, Li et al., VLDB 2020, minus the
// Python): where a rank comes from, and a process group for the few collectives the trainer needs.
// Torch-free header (pimpl); nets/distributed_tensors.h adds the tensor collectives for nets/*.cc.
//
// Rendezvous variables, the first complete set wins:
//   torchrun style   RANK, WORLD_SIZE, LOCAL_RANK (default 0), MASTER_ADDR, MASTER_PORT
//                    (torchrun, a Kubernetes Job or any launcher that sets them)
//   Slurm            SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID (default 0); MASTER_ADDR, else the
//                    first host of SLURM_JOB_NODELIST (else SLURM_NODELIST), e.g. node[01-04],gpu7
//                    -> node01; MASTER_PORT, else kDefaultMasterPort (srun)
//   Open MPI         OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK
//                    (default 0); MASTER_ADDR required, MASTER_PORT else kDefaultMasterPort
//                    (mpirun)
//   none of them     one process: rank 0 of 1
// A set is chosen when its rank variable or its size variable is set; the other one must be set
// too.
//
// The process group: a c10d TCPStore served by rank 0 at MASTER_ADDR:MASTER_PORT (every rank
// connects to it), then c10d's Gloo backend for host memory and CPU tensors, and c10d's NCCL
// backend for CUDA tensors when the group's device is a CUDA device (NCCL needs a GPU per rank;
// this build compiles it when LibTorch has it). GLOO_SOCKET_IFNAME (comma-separated interfaces)
// picks Gloo's network interfaces as in PyTorch; otherwise Gloo binds to loopback when
// MASTER_ADDR is a loopback address, else to the address this host's name resolves to.
// Every collective blocks until all ranks have called it, in the same order on every rank.
// Not thread-safe: one thread per process group.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vz::nets {

inline constexpr int kDefaultMasterPort = 29500;

// Where this process sits in a distributed job.
struct DistributedEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;       // index among the ranks of this machine (picks the GPU)
  std::string master_addr;  // rank 0's host ("" for a single process)
  int master_port = kDefaultMasterPort;
  std::string source = "single process";  // "torchrun", "slurm", "openmpi" or "single process"

  bool distributed() const { return world_size > 1; }
  // "rank 1 of 4 (local rank 1, slurm, master node01:29500)".
  std::string Describe() const;
};

// Looks an environment variable up: its value, or nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// The rendezvous from `lookup` (see the top of this file). Throws vz::Error naming the variable
// and its value when a number is not a non-negative decimal integer (or out of range: world size
// >= 1, rank < world size, port 1..65535), when a set's partner variable is missing, when
// MASTER_ADDR is missing for Open MPI or for a torchrun-style set with world size > 1, and when a
// Slurm node list cannot be read.
DistributedEnv ReadDistributedEnv(const EnvLookup& lookup);

// ReadDistributedEnv over the process environment (getenv).
DistributedEnv ReadDistributedEnv();

// Every host of a Slurm node list, in order: "node[01-03],gpu7" -> node01 node02 node03 gpu7;
// "a[1-2]-b[7,9]" -> a1-b7 a1-b9 a2-b7 a2-b9; zero padding follows the lower bound's digits.
// Throws vz::Error naming `variable` and the list when it is empty, a bracket is unbalanced or
// empty, a range is not "N" or "N-M" with N <= M, or it names more than 1,000,000 hosts.
std::vector<std::string> ExpandSlurmNodeList(std::string_view nodelist,
                                             std::string_view variable = "SLURM_JOB_NODELIST");

enum class ReduceOp { kSum, kAverage, kMin, kMax };

// A c10d process group of env.world_size ranks.
class ProcessGroup {
 public:
  // Joins the group: rank 0 serves the TCPStore, all ranks connect and create the backends
  // (Gloo; plus NCCL when `device` is "cuda" or "cuda:N"). Blocks until every rank has joined or
  // `timeout` passes (also the timeout of each later collective). Throws vz::Error naming the
  // master address and the rank when the rendezvous fails or times out, on a `device` that is
  // neither "cpu" nor "cuda[:N]", and for a CUDA device when LibTorch has no NCCL or no CUDA
  // device is present.
  ProcessGroup(const DistributedEnv& env, const std::string& device,
               std::chrono::milliseconds timeout = std::chrono::minutes(10));
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const;
  int world_size() const;
  const DistributedEnv& env() const;
  // "gloo" or "gloo+nccl".
  std::string backend() const;

  // Element-wise reduction of `values` (the same length on every rank) into every rank's
  // `values`. kAverage is the sum divided by the world size. Throws vz::Error on a failed
  // collective (a rank gone, a timeout).
  void AllReduce(std::vector<double>& values, ReduceOp op);
  // Every rank's `bytes` become root's. Throws vz::Error on a failed collective or a bad root.
  void Broadcast(std::string& bytes, int root = 0);
  // Returns when every rank has called it. Throws vz::Error on a failed collective.
  void Barrier();

  // The LibTorch side's interface (nets/torch_backend.h); nets/distributed_tensors.h downcasts it.
  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace vz::nets
