#pragma once

// The one factory of network evaluators for the search, the players and the training loop: the
// GPU evaluator (nets/cuda_evaluator.h: encoding and prior gathering on the device) when the
// device is a CUDA device and this build has the CUDA kernels, the LibTorch evaluator
// (nets/torch_evaluator.h: encoding and priors on the host) otherwise. Both give the
// same priors and values (to float tolerance). Torch-free header.

#include <memory>
#include <string>
#include <string_view>

#include "engine/core/error.h"
#include "engine/search/evaluator.h"
#include "nets/net_file.h"
#include "nets/torch_evaluator.h"
#if defined(VZ_HAVE_CUDA)
#include "nets/cuda_evaluator.h"
#endif

namespace vz::nets {

// The device `device` names for the process of local rank `local_rank` (nets/distributed.h; 0
// outside a distributed job), normalised: "auto" and "cuda" -> "cuda:<local_rank mod the number
// of CUDA devices LibTorch sees>" (each rank its own GPU, whether it sees all of its machine's GPUs
// or only its own), except that "auto" is "cpu" and "cuda" is "cuda:0" when LibTorch sees none;
// "cpu" -> "cpu"; "cuda:N" -> "cuda:N" (N without leading zeros, whatever the rank). Whether that
// CUDA device exists is checked when a net is loaded on it (NetRunner). Throws vz::Error naming
// the string for anything else; `local_rank` must be >= 0 (VZ_CHECK).
std::string ResolveDevice(const std::string& device, int local_rank = 0);

// True when MakeNetEvaluator uses the GPU evaluator for the resolved device `resolved`.
bool UsesCudaEvaluator(const std::string& resolved);

// The evaluator of `net` (`source` names it in errors) on `device` ("auto", "cpu", "cuda",
// "cuda:N") in `precision` ("auto", "fp32", "fp16", "bf16"), warmed up with `warmup_batch`
// positions (0: none), with the runner's `options` (nets/net_runner.h: layout, CUDA graphs): a
// CudaEvaluator<G> when the resolved device is CUDA and the build has the CUDA kernels
// (VZ_HAVE_CUDA), else a TorchEvaluator<G>. Throws vz::Error if the net does not fit G,
// on a bad device or precision string, or a missing device.
template <Game G>
std::unique_ptr<Evaluator<G>> MakeNetEvaluator(const NetFile& net, std::string_view source,
                                               const std::string& device,
                                               const std::string& precision = "auto",
                                               int warmup_batch = 16,
                                               const RunnerOptions& options = {}) {
  const std::string resolved = ResolveDevice(device);
#if defined(VZ_HAVE_CUDA)
  if (UsesCudaEvaluator(resolved)) {
    return std::make_unique<CudaEvaluator<G>>(net, source, resolved, precision, warmup_batch,
                                              options);
  }
#endif
  return std::make_unique<TorchEvaluator<G>>(net, source, resolved, precision, warmup_batch,
                                             options);
}

// The network runner inside an evaluator from MakeNetEvaluator (device, precision,
// architecture). Throws vz::Error if `evaluator` is not one of the network evaluators.
template <Game G>
const NetRunner& RunnerOf(const Evaluator<G>& evaluator) {
  if (const auto* torch = dynamic_cast<const TorchEvaluator<G>*>(&evaluator)) {
    return torch->runner();
  }
#if defined(VZ_HAVE_CUDA)
  if (const auto* gpu = dynamic_cast<const CudaEvaluator<G>*>(&evaluator)) return gpu->runner();
#endif
  throw Error("evaluator is not a network evaluator (no net runner)");
}

}  // namespace vz::nets
