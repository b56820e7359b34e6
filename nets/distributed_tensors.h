#pragma once

// Tensor collectives over a ProcessGroup (nets/distributed.h), for nets/*.cc only (includes
// LibTorch): what DistributedDataParallel does each step, in a few calls. The tensors are packed
// into one flat buffer per call (one collective, like DDP's gradient buckets), reduced or
// broadcast by the backend of their device (Gloo for CPU tensors, NCCL for CUDA tensors), and
// copied back in place.

#include <torch/types.h>

#include <vector>

#include "nets/distributed.h"

namespace vz::nets {

// Replaces every tensor by its mean over the ranks. All tensors must be floating point, on the
// same device, and have the same shapes in the same order on every rank. Undefined tensors are
// skipped. Throws vz::Error on mixed devices or dtypes and on a failed collective.
void AllReduceMean(ProcessGroup& group, const std::vector<torch::Tensor>& tensors);

// Replaces every tensor by rank `root`'s. The same conditions as AllReduceMean.
void BroadcastTensors(ProcessGroup& group, const std::vector<torch::Tensor>& tensors, int root = 0);

}  // namespace vz::nets
