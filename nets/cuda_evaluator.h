#pragma once

// The GPU evaluator of the search (vz::Evaluator<G>): the whole leaf batch is evaluated on a CUDA
// device, the CPU only packs the positions with the policy indices of the moves the search
// generated, and unpacks priors and values. Per Evaluate call, all on the runner's CUDA stream
// (NetRunner::CudaStream), in order:
//   1. one host-to-device copy from pinned memory of the batch's inputs:
//        positions [n] G::Position | repetition counts [n] int32 | prior offsets [n + 1] int32
//        | policy indices [total] int32, the host's, at the prior offsets
//   2. LaunchEncodeBf16<G> (bf16 nets) or LaunchEncodeFloat<G> (fp32/fp16 nets): planes
//      [n][kPlanes][kHeight][kWidth] written straight into the network's input tensor memory
//   3. NetRunner::RunDevice: policy logits [n][kNumActions], WDL logits [n][3] (float32), at the
//      padded batch size (by a CUDA graph when they are on)
//   4. LaunchGatherCompactPriors: the priors, compact at the prior offsets, and the WDL softmax,
//      into one output region:  wdl [n][3] float | priors [total] float
//   5. one device-to-host copy of that region into pinned memory; the thread then waits on an
//      event recorded after it (only this evaluator's work, never the device).
// The evaluators of the actor groups (one each) have streams of their own where LibTorch's pool
// allows, so one group's forward pass runs while another's threads do their tree work.
// The moves are generated once, by the search: the device only encodes and gathers.
// The priors are those of TorchEvaluator (nets/torch_evaluator.h): a softmax over the distinct
// policy indices of the legal moves, indices shared by several moves split equally; values are
// the WDL softmax from the side to move's point of view. A NaN or infinite prior or value throws
// vz::Error, naming the net (CheckFiniteOutputs).
// Thread-safety: Evaluate may be called from several threads at once (serialised by a mutex).
// Torch-free header (the runner hides LibTorch); needs a build with the CUDA kernels
// (VZ_HAVE_CUDA). Source: ../shared/design/ARCHITECTURE.md ("Networks and the GPU path").

#if !defined(VZ_HAVE_CUDA)
#error "nets/cuda_evaluator.h needs a vzero built with the CUDA kernels (VZ_USE_CUDA)"
#endif

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/batched_kernels.h"
#include "cuda/device_buffer.h"
#include "engine/core/error.h"
#include "engine/encodings.h"
#include "engine/search/evaluator.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"

namespace vz::nets {

template <Game G>
class CudaEvaluator final : public Evaluator<G> {
 public:
  using Encoding = InputEncoding<G>;
  using Position = typename G::Position;

  // Loads `net` (checked against G's encodings; `source` names it in errors) on CUDA `device`
  // ("cuda" or "cuda:N") in `precision` (nets/net_runner.h: "auto" = bf16 on a GPU) with the
  // runner's `options` (layout, CUDA graphs), and warms it up with `warmup_batch` start
  // positions (0: none). Throws vz::Error if the net does not fit G, if `device` is not a present
  // CUDA device, or on the errors of NetRunner.
  CudaEvaluator(const NetFile& net, std::string_view source, const std::string& device,
                const std::string& precision = "auto", int warmup_batch = 16,
                const RunnerOptions& options = {}) {
    CheckNetForGame<G>(net, source);
    runner_ = std::make_unique<NetRunner>(net, source, device, precision, options);
    device_index_ = runner_->CudaDeviceIndex();
    if (device_index_ < 0) {
      throw Error("cuda evaluator: device '" + device + "' is not a CUDA device");
    }
    bf16_input_ = runner_->precision() == "bf16";
    {
      cuda::ScopedDevice device_guard(device_index_);  // an event belongs to its stream's device
      done_.emplace();
    }
    if (warmup_batch > 0) WarmUp(warmup_batch);
  }

  ~CudaEvaluator() override {
    // The buffers' cudaFree calls sync the device: not during another runner's graph capture.
    const auto device_work = ShareDeviceWork(/*cuda=*/true);
    host_input_ = {};
    device_input_ = {};
    device_output_ = {};
    host_output_ = {};
    planes_ = {};
    policy_logits_ = {};
    wdl_logits_ = {};
  }

  void Evaluate(EvalBatch<G>& batch) override {
    const int n = batch.size();
    if (n == 0) return;
    std::lock_guard<std::mutex> lock(mutex_);
    cuda::ScopedDevice device_guard(device_index_);
    const std::vector<int32_t>& offsets = batch.move_offsets();
    const int total = offsets[size_t(n)];

    // Input region: positions | repetition counts | prior offsets | policy indices.
    const size_t positions_at = 0;
    const size_t repetitions_at = Align(positions_at + sizeof(Position) * size_t(n));
    const size_t offsets_at = Align(repetitions_at + sizeof(int32_t) * size_t(n));
    const size_t indices_at = Align(offsets_at + sizeof(int32_t) * size_t(n + 1));
    const size_t input_bytes = indices_at + sizeof(int32_t) * size_t(total);
    // Output region: wdl | priors.
    const size_t wdl_at = 0;
    const size_t priors_at = Align(wdl_at + sizeof(float) * 3 * size_t(n));
    const size_t output_bytes = priors_at + sizeof(float) * size_t(total);
    // Growing the buffers frees device memory (cudaFree syncs the device), and the launches may
    // sync it the first time (the stack limit, local memory): not during another runner's graph
    // capture. Released around RunDevice, which takes the lock itself.
    auto device_work = ShareDeviceWork(/*cuda=*/true);
    Reserve(n, input_bytes, output_bytes);

    std::byte* staging = host_input_.data();
    std::memcpy(staging + positions_at, batch.positions().data(), sizeof(Position) * size_t(n));
    std::memcpy(staging + repetitions_at, batch.repetition_counts().data(),
                sizeof(int32_t) * size_t(n));
    std::memcpy(staging + offsets_at, offsets.data(), sizeof(int32_t) * size_t(n + 1));
    auto* indices = reinterpret_cast<int32_t*>(staging + indices_at);
    for (int i = 0; i < n; ++i) {
      const Position& position = batch.position(i);
      int32_t* out = indices + offsets[size_t(i)];
      for (Move move : batch.moves(i)) *out++ = Encoding::PolicyIndex(position, move);
    }

    const cuda::Stream stream = runner_->CudaStream();
    std::byte* input = device_input_.data();
    std::byte* output = device_output_.data();
    const auto* positions = reinterpret_cast<const Position*>(input + positions_at);
    const auto* repetitions = reinterpret_cast<const int32_t*>(input + repetitions_at);
    const auto* prior_offsets = reinterpret_cast<const int32_t*>(input + offsets_at);
    const auto* host_indices = reinterpret_cast<const int32_t*>(input + indices_at);
    auto* wdl = reinterpret_cast<float*>(output + wdl_at);
    auto* priors = reinterpret_cast<float*>(output + priors_at);

    cuda::CopyToDeviceAsync(input, staging, input_bytes, stream);
    if (bf16_input_) {
      cuda::LaunchEncodeBf16<G>(positions, n, repetitions,
                                reinterpret_cast<uint16_t*>(planes_.data()), stream);
    } else {
      cuda::LaunchEncodeFloat<G>(positions, n, repetitions,
                                 reinterpret_cast<float*>(planes_.data()), stream);
    }
    device_work.unlock();
    runner_->RunDevice(
        planes_.data(),
        bf16_input_ ? NetRunner::DeviceInput::kBFloat16 : NetRunner::DeviceInput::kFloat32, n,
        policy_logits_.data(), wdl_logits_.data());
    device_work.lock();
    cuda::LaunchGatherCompactPriors(policy_logits_.data(), G::kNumActions, host_indices,
                                    prior_offsets, n, G::kActionsMayCollide, priors,
                                    wdl_logits_.data(), wdl, stream);
    cuda::CopyToHostAsync(host_output_.data(), output, output_bytes, stream);
    done_->Record(stream);
    device_work.unlock();
    done_->Synchronize();

    const std::byte* result = host_output_.data();
    const auto* host_wdl = reinterpret_cast<const float*>(result + wdl_at);
    const auto* host_priors = reinterpret_cast<const float*>(result + priors_at);
    CheckFiniteOutputs(runner_->source(), n, offsets.data(), host_priors, host_wdl);
    std::span<float> all_priors = batch.all_priors();
    std::copy(host_priors, host_priors + total, all_priors.begin());
    for (int i = 0; i < n; ++i) {
      batch.value(i) = Wdl{host_wdl[3 * i], host_wdl[3 * i + 1], host_wdl[3 * i + 2]};
    }
  }

  const NetRunner& runner() const { return *runner_; }

 private:
  static size_t Align(size_t offset) { return (offset + 255) / 256 * 256; }

  // Grows the buffers for `n` entries and the given region sizes (by doubling).
  void Reserve(int n, size_t input_bytes, size_t output_bytes) {
    const size_t entries = size_t(n);
    host_input_.Reserve(input_bytes);
    device_input_.Reserve(input_bytes);
    host_output_.Reserve(output_bytes);
    device_output_.Reserve(output_bytes);
    planes_.Reserve(entries * Encoding::kSize * (bf16_input_ ? sizeof(uint16_t) : sizeof(float)));
    policy_logits_.Reserve(entries * G::kNumActions);
    wdl_logits_.Reserve(entries * 3);
  }

  void WarmUp(int batch_size) {
    const Position start = G::InitialPosition();
    typename G::MoveList moves;
    G::GenerateMoves(start, moves);
    EvalBatch<G> batch;
    for (int i = 0; i < batch_size; ++i) batch.Add(start, moves.moves, moves.size, 1);
    for (int repeat = 0; repeat < 3; ++repeat) Evaluate(batch);
  }

  std::unique_ptr<NetRunner> runner_;
  int device_index_ = -1;
  bool bf16_input_ = false;
  std::mutex mutex_;
  cuda::PinnedBuffer<std::byte> host_input_;     // input region (layout in Evaluate)
  cuda::DeviceBuffer<std::byte> device_input_;   // its device copy
  cuda::DeviceBuffer<std::byte> device_output_;  // output region (layout in Evaluate)
  cuda::PinnedBuffer<std::byte> host_output_;    // its host copy
  std::optional<cuda::Event> done_;              // recorded after the output copy
  cuda::DeviceBuffer<std::byte> planes_;         // [n][kPlanes][kHeight][kWidth] float or bf16
  cuda::DeviceBuffer<float> policy_logits_;      // [n][kNumActions]
  cuda::DeviceBuffer<float> wdl_logits_;         // [n][3]
};

}  // namespace vz::nets
