#pragma once

// Batched, gradient-free inference of a net file on one device, behind a torch-free interface
// (pimpl), so that evaluators, the CLI and tests include no LibTorch header.
//
// Precision: "fp32" (float32), "fp16", "bf16", or "auto" = bf16 on a GPU, and on the CPU bf16
// where bf16 is the faster precision (CpuPrefersBf16), fp32 elsewhere.
// Thread-safety: Run may be called from several threads; calls are serialised by a mutex.

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "nets/net_architecture.h"
#include "nets/net_file.h"

namespace vz::nets {

// The CPU's measured matrix-product speed, the peak of nnbench's roofline: GFLOP/s of LibTorch's
// `size` x `size` products in `precision` ("fp32", "bf16" or "fp16") on the calling thread's
// intra-op threads (SetCpuThreads), timed over at least `seconds` after one warm-up product.
// Loads LibTorch. Throws vz::Error naming the value on another precision, a size outside
// 1..8192 or seconds outside [0, 60].
double MatmulGflops(const std::string& precision, int size = 512, double seconds = 0.5);

// Number of CUDA devices LibTorch sees (0 without a GPU or driver). Loads LibTorch.
int CudaDeviceCount();

// True when LibTorch (oneDNN) computes bf16 faster than fp32 on this CPU, as /proc/cpuinfo says
// (the first "flags" line, the instruction sets the kernel enabled, and the first "vendor_id"):
// flag amx_bf16 (AMX tiles), or avx512_bf16 on an AMD CPU (one thread of an EPYC: a 1024x1024
// matrix product at 197 GFLOP/s in bf16, 79 in fp32, issue 32). Not avx512_bf16 on an Intel CPU
// without AMX: its bf16 dot product runs no faster than two fp32 FMAs (a Xeon, family 6 model 207,
// AMX not enabled, one thread: 84-101 GFLOP/s in bf16, 143-178 in fp32; nets 0.27-0.46x as fast at
// batch 1, 0.57-1.03x above; docs/performance.md). Without AVX-512 BF16 LibTorch emulates bf16
// (an AVX2 EPYC: 0.96 GFLOP/s in bf16, 84 in fp32). "auto" precision is bf16 on the CPU exactly
// when this is true. False when /proc/cpuinfo cannot be read. Torch-free.
bool CpuPrefersBf16();

// CpuPrefersBf16's test on the text of a /proc/cpuinfo.
bool CpuInfoPrefersBf16(std::string_view cpuinfo);

// The precision that `precision` stands for on a GPU (`cuda` true) or on this CPU: "auto" is
// "bf16" on a GPU or where CpuPrefersBf16, else "fp32"; any other name is returned unchanged (the
// caller validates it). The one rule of "auto" for inference (NetRunner) and training (Trainer).
// Never throws; thread-safe; torch-free.
std::string ResolvePrecision(std::string_view precision, bool cuda);

// Sets LibTorch's intra-op CPU threads (`threads` >= 1) of the calling thread and of the threads
// that have not yet run a parallel LibTorch operation (OpenMP keeps the count per thread, so each
// thread of `vzero train` sets its own). On a loaded machine fewer threads than cores avoid
// OpenMP's busy waiting (tests use 1). Before LibTorch is loaded (nets/torch_backend.h) the value
// is kept and applied, in the loading thread, when it loads: this call alone never loads it.
void SetCpuThreads(int threads);

// LibTorch's intra-op CPU threads of the calling thread. Loads LibTorch.
int CpuThreads();

// Throws vz::Error naming the net `source` when a value of a batch's outputs is NaN or infinite
// (a corrupted or diverged net: a search fed such values cannot rank its moves):
//   offsets  [batch + 1]   entry i's policy values are policy[offsets[i], offsets[i + 1])
//   policy   [offsets[batch]]  policy logits or priors
//   wdl      [batch][3]        WDL probabilities
// Used by every network evaluator on its host outputs (NetRunner::Run and RunAll, the GPU
// evaluator's priors and values).
void CheckFiniteOutputs(std::string_view source, int batch, const int32_t* offsets,
                        const float* policy, const float* wdl);

// The lock that keeps CUDA graph captures apart from the other CUDA work of this process
// (LibTorch 2.11 keeps the CUDA random generator's capture state unlocked, and a device-wide
// sync, as cuDNN's autotuning and cudaFree do, breaks a capture in flight). A runner holds it
// exclusively while it captures a graph or destroys its graphs; the device jobs that may sync the
// device hold it shared: the runners' loading and evaluations, the GPU evaluator's buffer growth
// and kernel launches, the trainer's steps, evaluations and predictions (its checkpoints and
// exports copy to the host only).
// Writer-preferring, so that a capture cannot starve: once an exclusive request waits, new shared
// requests wait behind it until it has been granted and released (libstdc++'s std::shared_mutex,
// on glibc's reader-preferring rwlock, lets back-to-back shared holders keep it forever). Hence a
// shared holder must never request it again, nor wait for a thread that may request it, while
// it holds it. Meets the standard's SharedMutex requirements used by std::unique_lock and
// std::shared_lock (no try_ members). Thread-safe; not recursive.
class DeviceWorkLock {
 public:
  void lock();
  void unlock();
  void lock_shared();
  void unlock_shared();

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int readers_ = 0;          // shared holders
  int waiting_writers_ = 0;  // exclusive requests not yet granted
  bool writer_ = false;      // held exclusively
};

// The process's one DeviceWorkLock.
DeviceWorkLock& CudaCaptureMutex();

// A shared hold of CudaCaptureMutex for device work on a CUDA device (`cuda` true), none (an
// unlocked lock) on the CPU.
std::shared_lock<DeviceWorkLock> ShareDeviceWork(bool cuda);

// The failure rule of the CUDA graphs: the first capture in this process that throws, or whose
// graph then disagrees with the eager forward pass, calls FailCudaGraphs(reason), which turns the
// graphs off for every runner of the process from then on (they run the eager forward pass) and
// prints one warning line on stderr with the reason. Later calls change nothing and print
// nothing. Thread-safe (one process-wide atomic flag).
void FailCudaGraphs(const std::string& reason);

// The reason given to the first FailCudaGraphs of this process; "" while the graphs have not
// failed. Thread-safe.
std::string CudaGraphsFailure();

// The batch size a CUDA runner's RunDevice evaluates `batch` >= 1 positions at: the next power of
// two up to 512, then the next multiple of 512 (at most 1/8 padding above 4096). A few fixed
// shapes let cuDNN's autotuner and the CUDA graphs see every size once. Throws vz::Error when
// `batch` < 1.
int PaddedBatchSize(int batch);

// How a runner lays out its tensors and runs its forward pass (the defaults are the fast ones).
struct RunnerOptions {
  // Fold the batch norms into their convolutions at load (nets/model.h FoldBatchNorm); false
  // keeps the unfolded net, the reference the fold is tested against.
  bool fold_batch_norm = true;
  // Memory layout of the convolution weights and inputs: kAuto = channels-last (NHWC, the layout
  // of the tensor cores' convolution kernels) on a CUDA device, and on the CPU where
  // CpuPrefersChannelsLast says so for the net and its precision, NCHW otherwise. The outputs are
  // the same in either layout up to float rounding.
  enum class Layout { kAuto, kNchw, kChannelsLast };
  Layout layout = Layout::kAuto;
  // On a CUDA device, RunDevice replays a CUDA graph captured once per padded batch size
  // (PaddedBatchSize) instead of launching the forward pass's kernels one by one. Off by default
  // until scripts/gpu-check.sh measures a gain (`vzero nnbench --cuda-graphs true` turns them
  // on). Each graph is checked against the eager forward pass right after its capture; a capture
  // that fails or disagrees turns the graphs off for the whole process (FailCudaGraphs) and the
  // eager path runs. Ignored on the CPU.
  bool cuda_graphs = false;
  // On the CPU, Run computes the policy logits of the requested actions only
  // (PolicyValueNetImpl::ForwardActions: the head's last layer at the legal moves' cells) instead
  // of every action's logit and a gather (the dense head, the reference it is tested against).
  // Same weights, same net files, same logits up to float rounding. RunAll, RunDevice and CUDA
  // runners are always dense.
  bool legal_policy = true;
  // On the CPU, Run evaluates a batch in blocks of at most this many positions, so that the
  // working set of the forward pass stays in the core's caches whatever batch the search hands
  // over (0: AutoCpuBlock of the architecture; negative: the constructor throws vz::Error).
  // Ignored on a GPU (one pass per batch).
  int cpu_block = 0;
  // On the CPU in bf16 and channels-last, with the batch norms folded: each convolution runs as
  // oneDNN's with its weight packed once at load and the ReLU and skip addition after it fused
  // (nets/model.h PackConvolutions). The same outputs up to bf16 rounding. Measured faster than the
  // plain ops in bf16 on an AMX Xeon, not in fp32, so fp32 and NCHW runners ignore it, as do GPU
  // runners (docs/performance.md, *Fused convolutions in bf16*).
  bool fuse_convolutions = true;
};

// The CPU block size Run uses for `architecture` when RunnerOptions::cpu_block is 0: 1024 /
// channels rounded down to a power of two, in 1..256 (64 for the tiny nets, 32 for small, 8 for
// medium), the best block measured with `vzero nnbench --cpu-block` (docs/performance.md).
int AutoCpuBlock(const NetArchitecture& architecture);

// Whether the CPU runs `architecture` in `precision` ("fp32", "fp16" or "bf16", as resolved by
// ResolvePrecision) faster in channels-last (NHWC) than in NCHW, the layout
// RunnerOptions::Layout::kAuto takes there: true unless the precision is fp32 and the tower has
// global pooling (-gpool) and fewer than 32 channels. Measured with `vzero nnbench --layout`,
// docs/performance.md: on an AMD EPYC (AVX2) and an Intel Xeon (AVX-512) in fp32, channels-last
// -7% to +61% (mostly +5-30%) for the plain tiny and small nets and the shipped 4x32 gpool nets,
// 8-26% slower at batch 32-256 for the 1x16 gpool net of the chess-like demo presets
// (tiny-gpool-vpool); on the AMX Xeon in bf16, with the pooling of 2026-12-06, that net 1.12-1.44x
// faster in channels-last at batch 16 and 32 in all four games (and in fp32 there even in Chaco
// Rex, 8-17% slower in Chad).
bool CpuPrefersChannelsLast(const NetArchitecture& architecture, std::string_view precision);

class NetRunner {
 public:
  // Builds the network of `net` on `device` ("cpu", "cuda", "cuda:N") in `precision` and loads
  // its weights. `source` names the net in errors. Throws vz::Error on a bad device or precision
  // string, a missing device, or missing, unexpected or mis-shaped tensors. On a CUDA device it
  // turns on cuDNN's autotuner (process-wide) and runs on a stream of LibTorch's pool.
  NetRunner(const NetFile& net, std::string_view source, const std::string& device,
            const std::string& precision = "auto", const RunnerOptions& options = {});
  ~NetRunner();
  NetRunner(const NetRunner&) = delete;
  NetRunner& operator=(const NetRunner&) = delete;

  // Evaluates `batch` >= 1 positions.
  //   planes          [batch][input_planes * height * width]  input
  //   action_offsets  [batch + 1]   entry i asks for actions[action_offsets[i], [i + 1])
  //   actions         [total]       policy indices in [0, num_actions)
  //   logits          [total]       output: policy logit of each requested action
  //   wdl             [batch][3]    output: win/draw/loss probabilities of the side to move
  // Only the requested logits come back from the device. Throws vz::Error on a device failure,
  // and naming the net when an output is NaN or infinite (CheckFiniteOutputs).
  void Run(const float* planes, int batch, const int32_t* action_offsets, const int32_t* actions,
           float* logits, float* wdl);

  // As Run, but every policy logit: policy [batch][num_actions], wdl [batch][3] probabilities
  // (the same errors).
  void RunAll(const float* planes, int batch, float* policy, float* wdl);

  // Runs a few batches of zeros of size `batch` (kernel selection, allocator warm-up).
  void WarmUp(int batch);

  // Element type of RunDevice's planes.
  enum class DeviceInput { kFloat32, kBFloat16 };

  // The device-input entry point of the GPU evaluator (nets/cuda_evaluator.h): evaluates `batch`
  // >= 1 positions whose planes are already in this runner's CUDA device memory, at the padded
  // size PaddedBatchSize(batch) (by a CUDA graph when they are on; the padding rows' outputs are
  // dropped). Enqueued on CudaStream() and not synchronised: outputs are valid once that stream
  // has run. The first batch of a padded size autotunes cuDNN (and captures its graph when they
  // are on): slower.
  //   planes         [batch][input_planes][height][width]  device, float32 or bf16 (`type`)
  //   policy_logits  [batch][num_actions]   device output, float32 policy logits
  //   wdl_logits     [batch][3]             device output, float32 WDL logits (no softmax)
  // Throws vz::Error naming the runner's device on a CPU runner, naming the batch when `batch`
  // < 1, and on a device failure.
  void RunDevice(const void* planes, DeviceInput type, int batch, float* policy_logits,
                 float* wdl_logits);

  // This runner's CUDA stream, a non-blocking cudaStream_t from LibTorch's pool
  // (c10::cuda::getStreamFromPool: 32 per device, handed out in turn), fixed for the runner's
  // life: Run, RunAll and RunDevice enqueue their work on it, so that runners of different
  // threads (the actor groups' evaluators) overlap on one device. Runners beyond the pool's size
  // share streams: their work is serialised, not wrong (a capture holds CudaCaptureMutex
  // exclusively, so no other work enters its stream). Throws vz::Error naming the runner's device
  // on a CPU runner, or in a build without CUDA.
  void* CudaStream() const;

  // One line on how the forward pass runs: the layout ("NCHW" or "channels-last"), then on the
  // CPU ", policy at legal moves" or ", dense policy" and ", blocks of N", on a CUDA device ", CUDA
  // graphs (N captured)" or ", CUDA graphs off: <why>" (why: "not turned on", or the process's
  // CudaGraphsFailure()); for logs and `vzero nnbench`.
  std::string tuning() const;

  // The runner's CUDA device index, -1 on the CPU.
  int CudaDeviceIndex() const;

  const NetArchitecture& architecture() const;
  std::string device() const;         // e.g. "cuda:0"
  std::string precision() const;      // "fp32", "fp16" or "bf16"
  const std::string& source() const;  // the net's name in errors (its file)

  // The LibTorch side's interface (nets/torch_backend.h).
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace vz::nets
