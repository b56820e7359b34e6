#pragma once

// The LibTorch side of nets/ behind torch-free interfaces, loaded on first use.
//
// Every nets/ function that runs LibTorch (NetRunner, Trainer, ProcessGroup, FreshNet,
// ExportCheckpoint, CudaDeviceCount, SetCpuThreads) is a thin forwarder to the TorchBackend below.
// Its implementation lives in the shared library libvzero_nets.so (nets/torch_*.cc and
// nets/model.cc, the only sources that include LibTorch), which the vzero binary dlopen()s the
// first time a net is needed: commands that need no network never load LibTorch or the CUDA
// libraries (a 0.3-0.6 s start-up). The library binds to the binary's own copies of the
// torch-free code (vz_nets, vz_engine, vz_proto: the binary exports its symbols), so there is one
// copy of every global. Test executables load it the same way, from the build directory. Nets
// must not live in static storage: LibTorch's own statics are built after the executable's, so
// they are destroyed first at exit.
//
// Thread-safety: Torch() may be called from any thread; the first call loads the library once.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nets/checkpoint_file.h"
#include "nets/distributed.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"
#include "nets/trainer.h"

namespace vz::nets {

// File name of the LibTorch library, looked up beside the running executable.
inline constexpr const char* kTorchLibraryName = "libvzero_nets.so";
// Its one exported entry point: extern "C" vz::nets::TorchBackend* vzero_nets_torch_backend().
inline constexpr const char* kTorchEntryPoint = "vzero_nets_torch_backend";

// The methods of NetRunner, with the same contracts (nets/net_runner.h).
struct NetRunner::Impl {
  virtual ~Impl() = default;
  virtual void Run(const float* planes, int batch, const int32_t* action_offsets,
                   const int32_t* actions, float* logits, float* wdl) = 0;
  virtual void RunAll(const float* planes, int batch, float* policy, float* wdl) = 0;
  virtual void WarmUp(int batch) = 0;
  virtual void RunDevice(const void* planes, DeviceInput type, int batch, float* policy_logits,
                         float* wdl_logits) = 0;
  virtual void* CudaStream() const = 0;
  virtual std::string tuning() const = 0;
  virtual int CudaDeviceIndex() const = 0;
  virtual const NetArchitecture& architecture() const = 0;
  virtual std::string device() const = 0;
  virtual std::string precision() const = 0;
  virtual const std::string& source() const = 0;
};

// The methods of Trainer, with the same contracts (nets/trainer.h).
struct Trainer::Impl {
  virtual ~Impl() = default;
  virtual TrainMetrics Step(const TrainingBatch& batch) = 0;
  virtual TrainMetrics Evaluate(const TrainingBatch& batch) = 0;
  virtual TrainMetrics Step(const CompactBatch& batch) = 0;
  virtual TrainMetrics Evaluate(const CompactBatch& batch) = 0;
  virtual void SetSampleCodec(std::shared_ptr<const SampleCodec> codec) = 0;
  virtual void Predict(const float* planes, int batch, float* policy, float* wdl) = 0;
  virtual void SaveCheckpoint(const std::string& path) const = 0;
  virtual CheckpointLoad LoadCheckpoint(const std::string& path) = 0;
  virtual NetFile ExportNet(uint64_t games, const std::string& parent,
                            const std::string& source_revision) const = 0;
  virtual int64_t step() const = 0;
  virtual std::string precision() const = 0;
  virtual double LearningRate(int64_t step) const = 0;
  virtual uint64_t NextRandom() = 0;
};

// The methods of ProcessGroup, with the same contracts (nets/distributed.h). The LibTorch side
// downcasts it for the tensor collectives (nets/distributed_tensors.h).
struct ProcessGroup::Impl {
  virtual ~Impl() = default;
  virtual const DistributedEnv& env() const = 0;
  virtual std::string backend() const = 0;
  virtual void AllReduce(std::vector<double>& values, ReduceOp op) = 0;
  virtual void Broadcast(std::string& bytes, int root) = 0;
  virtual void Barrier() = 0;
};

// The factories and free functions of the LibTorch side, with the contracts of the headers that
// declare them (net_runner.h, trainer.h, distributed.h, fresh_net.h). Implemented once, by
// libvzero_nets.so (nets/torch_module.cc).
class TorchBackend {
 public:
  virtual ~TorchBackend() = default;
  virtual int CudaDeviceCount() = 0;
  virtual void SetCpuThreads(int threads) = 0;
  virtual int CpuThreads() = 0;
  virtual double MatmulGflops(const std::string& precision, int size, double seconds) = 0;
  virtual std::unique_ptr<NetRunner::Impl> NewNetRunner(const NetFile& net, std::string_view source,
                                                        const std::string& device,
                                                        const std::string& precision,
                                                        const RunnerOptions& options) = 0;
  virtual std::unique_ptr<Trainer::Impl> NewTrainer(const NetFile& net,
                                                    const TrainerOptions& options) = 0;
  virtual std::unique_ptr<ProcessGroup::Impl> NewProcessGroup(
      const DistributedEnv& env, const std::string& device, std::chrono::milliseconds timeout) = 0;
  virtual NetFile FreshNet(const NetFile& header, uint64_t seed) = 0;
  virtual NetFile ExportCheckpoint(const std::string& path, uint64_t games,
                                   std::vector<std::string>* warnings) = 0;
};

// The LibTorch backend: the one already in the process (if a program linked the library),
// else libvzero_nets.so from the running executable's directory, loaded on the first
// call. Throws vz::Error naming the file and dlerror()'s reason when it is missing or does not
// load (e.g. LibTorch's libraries not found), on this and every later call.
TorchBackend& Torch();

// True once the LibTorch backend is loaded into this process (for tests and diagnostics).
bool TorchLoaded();

}  // namespace vz::nets
