#pragma once

// Batched, gradient-free inference of a net file on one device, behind a torch-free interface
// (pimpl), so that evaluators, the CLI and tests include no LibTorch header.
//
// Precision: "fp32" (float32), "fp16", "bf16", or "auto" = fp32 on the CPU and bf16 on a GPU.
// Thread-safety: Run may be called from several threads; calls are serialised by a mutex.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "nets/net_architecture.h"
#include "nets/net_file.h"

namespace vz::nets {

// Number of CUDA devices LibTorch sees (0 without a GPU or driver).
int CudaDeviceCount();

// Sets LibTorch's intra-op CPU threads for the whole process (`threads` >= 1). On a loaded
// machine fewer threads than cores avoid OpenMP's busy waiting (tests use 1).
void SetCpuThreads(int threads);

// Throws vz::Error naming the net `source` when a value of a batch's outputs is NaN or infinite
// (a corrupted or diverged net: a search fed such values cannot rank its moves):
//   offsets  [batch + 1]   entry i's policy values are policy[offsets[i], offsets[i + 1])
//   policy   [offsets[batch]]  policy logits or priors
//   wdl      [batch][3]        WDL probabilities
// Used by every network evaluator on its host outputs (NetRunner::Run and RunAll, the GPU
// evaluator's priors and values).
void CheckFiniteOutputs(std::string_view source, int batch, const int32_t* offsets,
                        const float* policy, const float* wdl);

class NetRunner {
 public:
  // Builds the network of `net` on `device` ("cpu", "cuda", "cuda:N") in `precision` and loads
  // its weights. `source` names the net in errors. Throws vz::Error on a bad device or precision
  // string, a missing device, or missing, unexpected or mis-shaped tensors. The batch norms are
  // folded into their convolutions (nets/model.h FoldBatchNorm) unless `fold_batch_norm` is false
  // (the unfolded net is the reference the fold is tested against).
  NetRunner(const NetFile& net, std::string_view source, const std::string& device,
            const std::string& precision = "auto", bool fold_batch_norm = true);
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
  // >= 1 positions whose planes are already in this runner's CUDA device memory. Enqueued on
  // CudaStream() and not synchronised: outputs are valid once that stream has run.
  //   planes         [batch][input_planes][height][width]  device, float32 or bf16 (`type`)
  //   policy_logits  [batch][num_actions]   device output, float32 policy logits
  //   wdl_logits     [batch][3]             device output, float32 WDL logits (no softmax)
  // Throws vz::Error on a CPU runner or a device failure.
  void RunDevice(const void* planes, DeviceInput type, int batch, float* policy_logits,
                 float* wdl_logits);

  // LibTorch's current CUDA stream on this runner's device (a cudaStream_t; the calling thread's
  // current stream, so ask before each batch). Throws vz::Error on a CPU runner or in a build
  // without CUDA.
  void* CudaStream() const;

  // The runner's CUDA device index, -1 on the CPU.
  int CudaDeviceIndex() const;

  const NetArchitecture& architecture() const;
  std::string device() const;     // e.g. "cuda:0"
  std::string precision() const;  // "fp32", "fp16" or "bf16"
  const std::string& source() const;  // the net's name in errors (its file)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vz::nets
