#pragma once

// The GPU evaluator of the search (vz::Evaluator<G>): the whole leaf batch is evaluated on a CUDA
// device, the CPU only packs the positions and unpacks priors and values. Per Evaluate call, all
// on the runner's own CUDA stream (NetRunner::CudaStream), in order:
//   1. one host-to-device copy from pinned memory of the batch's inputs:
//        positions [n] G::Position | repetition counts [n] int32 | prior offsets [n + 1] int32
//        | (host move source) policy indices [total] int32, the host's, at the prior offsets
//   2. (device move source only) LaunchLegalMoves<G>: moves [n][kMaxMoves], counts [n], policy
//      indices [n][kMaxMoves]
//   3. LaunchEncodeBf16<G> (bf16 nets) or LaunchEncodeFloat<G> (fp32/fp16 nets): planes
//      [n][kPlanes][kHeight][kWidth] written straight into the network's input tensor memory
//   4. NetRunner::RunDevice: policy logits [n][kNumActions], WDL logits [n][3] (float32), at the
//      padded batch size, by a CUDA graph when they are on
//   5. the priors, compact at the prior offsets, and the WDL softmax: LaunchGatherCompactPriors
//      (host move source) or LaunchGatherPriors plus LaunchMoveDigests (device move source), into
//      one output region:  wdl [n][3] float | priors [total] float | (device source) counts [n]
//      int32 | digests [n] uint64
//   6. one device-to-host copy of that region into pinned memory; the thread then waits on an
//      event recorded after it (only this evaluator's work, never the device).
// Each evaluator has its own stream, so the evaluators of the actor groups (one each) overlap:
// one group's forward pass runs while another's threads do their tree work.
// The moves are generated once: with the host move source (the default) the search's own moves
// give the policy indices and the device only encodes and gathers; the device source generates
// them again on the device and checks them against the batch (counts and move-list digests; a
// mismatch throws vz::Error), the mode of the kernels' tests and the other side of the
// benchmark bench/batched_rules_gpu_bench.cc (Evaluator/<game>/cuda-device-moves).
// The priors are those of TorchEvaluator (nets/torch_evaluator.h): a softmax over the distinct
// policy indices of the legal moves, indices shared by several moves split equally; values are
// the WDL softmax from the side to move's point of view. Each batch entry's moves must be the
// legal moves (as the search adds them). A NaN or infinite prior or value throws vz::Error,
// naming the net (CheckFiniteOutputs).
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
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/batched_kernels.h"
#include "cuda/batched_rules.h"
#include "cuda/device_buffer.h"
#include "engine/core/error.h"
#include "engine/encodings.h"
#include "engine/search/evaluator.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"

namespace vz::nets {

// Where the GPU evaluator takes the policy indices of a batch's moves from (see the file comment).
enum class GpuMoveSource {
  kHost,    // the search's moves, indexed on the host: no second move generation
  kDevice,  // generated again by the rule kernels, and checked against the batch
};

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
                GpuMoveSource moves = GpuMoveSource::kHost, const RunnerOptions& options = {})
      : move_source_(moves) {
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
    moves_ = {};
    policy_indices_ = {};
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
    const bool host_moves = move_source_ == GpuMoveSource::kHost;

    // Input region: positions | repetition counts | prior offsets | (host moves) indices.
    const size_t positions_at = 0;
    const size_t repetitions_at = Align(positions_at + sizeof(Position) * size_t(n));
    const size_t offsets_at = Align(repetitions_at + sizeof(int32_t) * size_t(n));
    const size_t indices_at = Align(offsets_at + sizeof(int32_t) * size_t(n + 1));
    const size_t input_bytes = indices_at + (host_moves ? sizeof(int32_t) * size_t(total) : 0);
    // Output region: wdl | priors | (device moves) counts | digests.
    const size_t wdl_at = 0;
    const size_t priors_at = Align(wdl_at + sizeof(float) * 3 * size_t(n));
    const size_t counts_at = Align(priors_at + sizeof(float) * size_t(total));
    const size_t digests_at = Align(counts_at + sizeof(int32_t) * size_t(n));
    const size_t output_bytes = host_moves ? counts_at : digests_at + sizeof(uint64_t) * size_t(n);
    // Growing the buffers frees device memory (cudaFree syncs the device), and the launches may
    // sync it the first time (the stack limit, local memory): not during another runner's graph
    // capture. Released around RunDevice, which takes the lock itself.
    std::shared_lock<std::shared_mutex> device_work = ShareDeviceWork(/*cuda=*/true);
    Reserve(n, input_bytes, output_bytes);

    std::byte* staging = host_input_.data();
    std::memcpy(staging + positions_at, batch.positions().data(), sizeof(Position) * size_t(n));
    std::memcpy(staging + repetitions_at, batch.repetition_counts().data(),
                sizeof(int32_t) * size_t(n));
    std::memcpy(staging + offsets_at, offsets.data(), sizeof(int32_t) * size_t(n + 1));
    if (host_moves) {
      auto* indices = reinterpret_cast<int32_t*>(staging + indices_at);
      for (int i = 0; i < n; ++i) {
        const Position& position = batch.position(i);
        int32_t* out = indices + offsets[size_t(i)];
        for (Move move : batch.moves(i)) *out++ = Encoding::PolicyIndex(position, move);
      }
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
    auto* counts = reinterpret_cast<int32_t*>(output + counts_at);
    auto* digests = reinterpret_cast<uint64_t*>(output + digests_at);

    cuda::CopyToDeviceAsync(input, staging, input_bytes, stream);
    if (!host_moves) {
      cuda::LaunchLegalMoves<G>(positions, n, moves_.data(), counts, policy_indices_.data(),
                                stream);
    }
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
    if (host_moves) {
      cuda::LaunchGatherCompactPriors(policy_logits_.data(), G::kNumActions, host_indices,
                                      prior_offsets, n, G::kActionsMayCollide, priors,
                                      wdl_logits_.data(), wdl, stream);
    } else {
      cuda::LaunchGatherPriors(policy_logits_.data(), G::kNumActions, policy_indices_.data(),
                               G::kMaxMoves, counts, n, G::kActionsMayCollide, prior_offsets,
                               priors, wdl_logits_.data(), wdl, stream);
      cuda::LaunchMoveDigests(moves_.data(), G::kMaxMoves, counts, n, digests, stream);
    }
    cuda::CopyToHostAsync(host_output_.data(), output, output_bytes, stream);
    done_->Record(stream);
    device_work.unlock();
    done_->Synchronize();

    const std::byte* result = host_output_.data();
    const auto* host_wdl = reinterpret_cast<const float*>(result + wdl_at);
    const auto* host_priors = reinterpret_cast<const float*>(result + priors_at);
    if (!host_moves) CheckDeviceMoves(batch, result + counts_at, result + digests_at);
    CheckFiniteOutputs(runner_->source(), n, offsets.data(), host_priors, host_wdl);
    std::span<float> all_priors = batch.all_priors();
    std::copy(host_priors, host_priors + total, all_priors.begin());
    for (int i = 0; i < n; ++i) {
      batch.value(i) = Wdl{host_wdl[3 * i], host_wdl[3 * i + 1], host_wdl[3 * i + 2]};
    }
  }

  const NetRunner& runner() const { return *runner_; }
  GpuMoveSource move_source() const { return move_source_; }

 private:
  static size_t Align(size_t offset) { return (offset + 255) / 256 * 256; }

  // The device move source's check: every entry lists the rule core's legal moves in order.
  void CheckDeviceMoves(const EvalBatch<G>& batch, const std::byte* counts_bytes,
                        const std::byte* digests_bytes) const {
    const auto* counts = reinterpret_cast<const int32_t*>(counts_bytes);
    const auto* digests = reinterpret_cast<const uint64_t*>(digests_bytes);
    for (int i = 0; i < batch.size(); ++i) {
      const std::span<const Move> moves = batch.moves(i);
      if (counts[i] != int(moves.size()) ||
          digests[i] != cuda::MoveListDigest(moves.data(), int(moves.size()))) {
        throw Error("cuda evaluator: batch entry " + std::to_string(i) + " lists " +
                    std::to_string(moves.size()) + " moves, not the " + std::to_string(counts[i]) +
                    " legal moves the rule core generates for " +
                    G::FormatPosition(batch.position(i)) +
                    " (entries must list every legal move in generation order)");
      }
    }
  }

  // Grows the buffers for `n` entries and the given region sizes (by doubling).
  void Reserve(int n, size_t input_bytes, size_t output_bytes) {
    const size_t entries = size_t(n);
    host_input_.Reserve(input_bytes);
    device_input_.Reserve(input_bytes);
    host_output_.Reserve(output_bytes);
    device_output_.Reserve(output_bytes);
    if (move_source_ == GpuMoveSource::kDevice) {
      moves_.Reserve(entries * G::kMaxMoves);
      policy_indices_.Reserve(entries * G::kMaxMoves);
    }
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

  GpuMoveSource move_source_;
  std::unique_ptr<NetRunner> runner_;
  int device_index_ = -1;
  bool bf16_input_ = false;
  std::mutex mutex_;
  cuda::PinnedBuffer<std::byte> host_input_;     // input region (layout in Evaluate)
  cuda::DeviceBuffer<std::byte> device_input_;   // its device copy
  cuda::DeviceBuffer<std::byte> device_output_;  // output region (layout in Evaluate)
  cuda::PinnedBuffer<std::byte> host_output_;    // its host copy
  std::optional<cuda::Event> done_;              // recorded after the output copy
  cuda::DeviceBuffer<Move> moves_;               // [n][kMaxMoves] (device move source)
  cuda::DeviceBuffer<int32_t> policy_indices_;   // [n][kMaxMoves] (device move source)
  cuda::DeviceBuffer<std::byte> planes_;         // [n][kPlanes][kHeight][kWidth] float or bf16
  cuda::DeviceBuffer<float> policy_logits_;      // [n][kNumActions]
  cuda::DeviceBuffer<float> wdl_logits_;         // [n][3]
};

}  // namespace vz::nets
