// The LibTorch NetRunner (nets/net_runner.h), inside libvzero_nets.so.

#include <fmt/core.h>
#include <torch/cuda.h>
#include <torch/utils.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

// The CUDA stream and graph API (LibTorch's own headers) where this build has CUDA.
#if defined(VZ_HAVE_CUDA) && __has_include(<c10/cuda/CUDAStream.h>)
#include <ATen/Context.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#define VZ_TORCH_CUDA_STREAMS 1
#endif

#include <map>
#include <optional>
#include <vector>

#include "engine/core/error.h"
#include "nets/model.h"
#include "nets/torch_impl.h"

namespace vz::nets::torch_impl {
namespace {

class TorchNetRunner final : public NetRunner::Impl {
 public:
  TorchNetRunner(const NetFile& file, std::string_view source, const std::string& device,
                 const std::string& precision, const RunnerOptions& options) {
    ValidateArchitecture(file.architecture, fmt::format("net file {}", source));
    device_ = ParseDevice(device);
    const bool cuda = device_.is_cuda();
    const std::string chosen = ResolvePrecision(precision, cuda);
    const std::optional<torch::Dtype> dtype = PrecisionDtype(chosen);
    if (!dtype) {
      throw Error(fmt::format("precision '{}': expected auto, fp32, fp16 or bf16", precision));
    }
    dtype_ = *dtype;
    precision_ = chosen;
    source_ = std::string(source);
    legal_policy_ = options.legal_policy && !cuda;  // RunDevice and CUDA runners stay dense
    if (options.cpu_block < 0) {
      throw Error(fmt::format("CPU block size {} is negative", options.cpu_block));
    }
    cpu_block_ = cuda                    ? 0
                 : options.cpu_block > 0 ? options.cpu_block
                                         : AutoCpuBlock(file.architecture);
    // Loading allocates and copies on the device: not while another thread captures a graph.
    const auto device_work = ShareDeviceWork(cuda);
    try {
      torch::NoGradGuard no_grad;
      net_ = PolicyValueNet(file.architecture);
      ImportTensors(net_, file, source);
      net_->eval();
      if (options.fold_batch_norm) FoldBatchNorm(net_);
      net_->to(device_, dtype_);
      using Layout = RunnerOptions::Layout;
      channels_last_ = options.layout == Layout::kChannelsLast ||
                       (options.layout == Layout::kAuto &&
                        (cuda || CpuPrefersChannelsLast(file.architecture, precision_)));
      if (channels_last_) ToChannelsLast();
      fused_ = !cuda && options.fuse_convolutions && dtype_ == torch::kBFloat16 && channels_last_ &&
               PackConvolutions(net_);
#if defined(VZ_TORCH_CUDA_STREAMS)
      if (cuda) {
        // The weights were moved and converted on this thread's current stream; the runner's
        // own stream does not wait for it (non-blocking).
        c10::cuda::getCurrentCUDAStream(device_.index()).synchronize();
        at::globalContext().setBenchmarkCuDNN(true);
        stream_ = c10::cuda::getStreamFromPool(/*isHighPriority=*/false, device_.index());
        graphs_on_ = options.cuda_graphs;
        if (!graphs_on_) graphs_off_reason_ = "not turned on";
      }
#endif
    } catch (const c10::Error& error) {
      throw Error(fmt::format("net file {}: cannot load it on {}: {}", source, device,
                              error.what_without_backtrace()));
    }
    if (cuda && !graphs_on_ && graphs_off_reason_.empty()) {
      graphs_off_reason_ = "this build has no CUDA stream API";
    }
  }

  ~TorchNetRunner() override {
#if defined(VZ_TORCH_CUDA_STREAMS)
    // Destroying graphs edits LibTorch's shared capture state: not during another's capture.
    if (!graphs_.empty()) {
      const std::unique_lock<DeviceWorkLock> exclusive(CudaCaptureMutex());
      try {
        stream_->synchronize();  // the last replays still read the graphs' memory
      } catch (const c10::Error&) {
      }
      graphs_.clear();
    }
#endif
  }

  void Run(const float* planes, int batch, const int32_t* action_offsets, const int32_t* actions,
           float* logits, float* wdl) override {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      torch::InferenceMode inference;
      const auto device_work = ShareDeviceWork(device_.is_cuda());
      const StreamGuard on_stream(*this);
      const NetArchitecture& a = net_->architecture;
      const size_t plane_floats = size_t(a.input_planes) * a.height * a.width;
      const int block = cpu_block_ > 0 ? cpu_block_ : batch;
      for (int first = 0; first < batch; first += block) {
        const int count = std::min(block, batch - first);
        RunBlock(planes + size_t(first) * plane_floats, count, action_offsets + first, actions,
                 logits, wdl + size_t(first) * 3);
      }
    } catch (const c10::Error& error) {
      throw Error(fmt::format("network evaluation on {} failed: {}", device(),
                              error.what_without_backtrace()));
    }
    CheckFiniteOutputs(source_, batch, action_offsets, logits, wdl);
  }

  void RunAll(const float* planes, int batch, float* policy_out, float* wdl) override {
    std::lock_guard<std::mutex> lock(mutex_);
    try {
      torch::InferenceMode inference;
      const auto device_work = ShareDeviceWork(device_.is_cuda());
      const StreamGuard on_stream(*this);
      auto [policy, value] = Forward(planes, batch);
      const torch::Tensor p = policy.to(torch::kCPU).contiguous();
      const torch::Tensor v = value.to(torch::kCPU).contiguous();
      std::memcpy(policy_out, p.data_ptr<float>(), size_t(p.numel()) * sizeof(float));
      std::memcpy(wdl, v.data_ptr<float>(), size_t(v.numel()) * sizeof(float));
    } catch (const c10::Error& error) {
      throw Error(fmt::format("network evaluation on {} failed: {}", device(),
                              error.what_without_backtrace()));
    }
    const int32_t actions = net_->architecture.num_actions;
    std::vector<int32_t> offsets(size_t(batch) + 1);
    for (int i = 0; i <= batch; ++i) offsets[size_t(i)] = i * actions;
    CheckFiniteOutputs(source_, batch, offsets.data(), policy_out, wdl);
  }

  void WarmUp(int batch) override {
    const NetArchitecture& a = net_->architecture;
    std::vector<float> planes(size_t(batch) * a.input_planes * a.height * a.width, 0.0f);
    std::vector<int32_t> offsets(size_t(batch) + 1);
    for (int i = 0; i <= batch; ++i) offsets[size_t(i)] = i;
    std::vector<int32_t> actions(size_t(batch), 0);
    std::vector<float> logits(static_cast<size_t>(batch)), wdl(static_cast<size_t>(batch) * 3);
    for (int i = 0; i < 3; ++i) {
      Run(planes.data(), batch, offsets.data(), actions.data(), logits.data(), wdl.data());
    }
#if defined(VZ_TORCH_CUDA_STREAMS)
    if (stream_.has_value()) {  // this runner's work only, never a device-wide sync
      try {
        stream_->synchronize();
      } catch (const c10::Error& error) {
        throw Error(fmt::format("network warm-up on {} failed: {}", device(),
                                error.what_without_backtrace()));
      }
    }
#endif
  }

  void RunDevice(const void* planes, NetRunner::DeviceInput type, int batch, float* policy_logits,
                 float* wdl_logits) override {
    if (!device_.is_cuda()) {
      throw Error(fmt::format("RunDevice: runner is on {}, not on a CUDA device", device()));
    }
    if (batch < 1) throw Error(fmt::format("RunDevice: batch {} is not positive", batch));
    std::lock_guard<std::mutex> lock(mutex_);
    const int padded = PaddedBatchSize(batch);
    if (graphs_on_ && graphs_.count(padded) == 0 && CudaGraphsFailure().empty()) {
      torch::InferenceMode inference;
      const StreamGuard on_stream(*this);
      Capture(padded);  // or turns the graphs off for the process
    }
    try {
      torch::InferenceMode inference;
      const auto device_work = ShareDeviceWork(device_.is_cuda());
      const StreamGuard on_stream(*this);
      const NetArchitecture& a = net_->architecture;
      const auto on_device = torch::TensorOptions().device(device_);
      const torch::Tensor input = torch::from_blob(
          const_cast<void*>(planes), {batch, a.input_planes, a.height, a.width},
          on_device.dtype(type == NetRunner::DeviceInput::kBFloat16 ? torch::kBFloat16
                                                                    : torch::kFloat32));
      torch::Tensor policy_out = torch::from_blob(policy_logits, {batch, int64_t(a.num_actions)},
                                                  on_device.dtype(torch::kFloat32));
      torch::Tensor wdl_out =
          torch::from_blob(wdl_logits, {batch, 3}, on_device.dtype(torch::kFloat32));
#if defined(VZ_TORCH_CUDA_STREAMS)
      if (auto found = graphs_.find(padded);
          found != graphs_.end() && CudaGraphsFailure().empty()) {
        CapturedForward* graph = found->second.get();
        graph->input.narrow(0, 0, batch).copy_(input);
        graph->graph.replay();
        policy_out.copy_(graph->policy.narrow(0, 0, batch));
        wdl_out.copy_(graph->value.narrow(0, 0, batch));
        return;
      }
#endif
      torch::Tensor x = input;
      if (padded > batch) {  // the padded shape, so that cuDNN autotunes a few sizes only
        x = torch::zeros({padded, a.input_planes, a.height, a.width}, on_device.dtype(dtype_));
        x.narrow(0, 0, batch).copy_(input);
      }
      auto [policy, value] = net_->forward(Prepare(x));
      policy_out.copy_(policy.narrow(0, 0, batch));
      wdl_out.copy_(value.narrow(0, 0, batch));
    } catch (const c10::Error& error) {
      throw Error(fmt::format("network evaluation on {} failed: {}", device(),
                              error.what_without_backtrace()));
    }
  }

  void* CudaStream() const override {
    if (!device_.is_cuda()) {
      throw Error(fmt::format("runner is on {}, which has no CUDA stream", device()));
    }
#if defined(VZ_TORCH_CUDA_STREAMS)
    return stream_->stream();
#else
    throw Error("this vzero was built without CUDA: no CUDA stream");
#endif
  }

  std::string tuning() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::string line = channels_last_ ? "channels-last" : "NCHW";
    if (!device_.is_cuda()) {
      return fmt::format("{}{}, {}, blocks of {}", line,
                         fused_ ? ", oneDNN fused convolutions" : "",
                         legal_policy_ ? "policy at legal moves" : "dense policy", cpu_block_);
    }
    if (!graphs_on_) return fmt::format("{}, CUDA graphs off: {}", line, graphs_off_reason_);
    if (const std::string failure = CudaGraphsFailure(); !failure.empty()) {
      return fmt::format("{}, CUDA graphs off: {}", line, failure);
    }
    return fmt::format("{}, CUDA graphs ({} captured)", line, graphs_.size());
  }

  int CudaDeviceIndex() const override { return device_.is_cuda() ? int(device_.index()) : -1; }
  const NetArchitecture& architecture() const override { return net_->architecture; }
  std::string device() const override { return device_.str(); }
  std::string precision() const override { return precision_; }
  const std::string& source() const override { return source_; }

 private:
  // Run's work on `count` positions: planes [count][planes * height * width], their requests
  // offsets[0..count] into `actions` (offsets[0] need not be 0), outputs logits at the same
  // offsets and wdl [count][3]. Called with mutex_ held, in inference mode.
  void RunBlock(const float* planes, int count, const int32_t* offsets, const int32_t* actions,
                float* logits, float* wdl) {
    const int64_t base = offsets[0], total = offsets[count] - offsets[0];
    // Each request's batch entry (in the block) and action, on the device.
    std::vector<int64_t> rows(static_cast<size_t>(total)), wanted(static_cast<size_t>(total));
    for (int i = 0; i < count; ++i) {
      for (int32_t k = offsets[i]; k < offsets[i + 1]; ++k) {
        rows[size_t(k - base)] = i;
        wanted[size_t(k - base)] = actions[k];
      }
    }
    const torch::Tensor row_index =
        torch::from_blob(rows.data(), {total}, torch::kInt64).to(device_);
    const torch::Tensor action_index =
        torch::from_blob(wanted.data(), {total}, torch::kInt64).to(device_);
    torch::Tensor gathered, value;
    if (legal_policy_) {
      const auto [policy, wdl_logits] =
          net_->ForwardActions(Input(planes, count), row_index, action_index);
      gathered = policy.to(torch::kCPU, torch::kFloat32).contiguous();
      value = torch::softmax(wdl_logits.to(torch::kFloat32), 1).to(torch::kCPU).contiguous();
    } else {
      auto [policy, probabilities] = Forward(planes, count);
      gathered = policy.index({row_index, action_index}).to(torch::kCPU).contiguous();
      value = probabilities.to(torch::kCPU).contiguous();
    }
    std::memcpy(logits + base, gathered.data_ptr<float>(), size_t(total) * sizeof(float));
    std::memcpy(wdl, value.data_ptr<float>(), size_t(count) * 3 * sizeof(float));
  }

  // `batch` positions' planes [batch][planes * height * width] (host float32) as the forward
  // pass's input: on the device, in the runner's precision and layout.
  torch::Tensor Input(const float* planes, int batch) const {
    const NetArchitecture& a = net_->architecture;
    torch::Tensor input = torch::from_blob(
        const_cast<float*>(planes), {batch, a.input_planes, a.height, a.width}, torch::kFloat32);
    return Prepare(input.to(device_, dtype_, /*non_blocking=*/false, /*copy=*/false));
  }

  // Returns {policy logits [batch, A] float32, wdl probabilities [batch, 3] float32} on device.
  std::pair<torch::Tensor, torch::Tensor> Forward(const float* planes, int batch) {
    auto [policy, value] = net_->forward(Input(planes, batch));
    return {policy.to(torch::kFloat32), torch::softmax(value.to(torch::kFloat32), 1)};
  }

  // `input` in the runner's precision and layout.
  torch::Tensor Prepare(const torch::Tensor& input) const {
    torch::Tensor x = input.scalar_type() == dtype_ ? input : input.to(dtype_);
    return channels_last_ ? x.contiguous(torch::MemoryFormat::ChannelsLast) : x;
  }

  // The 4-D weights (and the folded ones, buffers) in channels-last memory order; the values and
  // shapes are unchanged (set_data keeps the tensors the modules hold).
  void ToChannelsLast() {
    for (torch::Tensor& tensor : net_->parameters()) {
      if (tensor.dim() == 4) tensor.set_data(tensor.contiguous(torch::MemoryFormat::ChannelsLast));
    }
    for (torch::Tensor& tensor : net_->buffers()) {
      if (tensor.dim() == 4) tensor.set_data(tensor.contiguous(torch::MemoryFormat::ChannelsLast));
    }
  }

  // Makes the runner's stream current (CUDA runners) for the guard's lifetime.
  class StreamGuard {
   public:
    explicit StreamGuard(const TorchNetRunner& runner) {
#if defined(VZ_TORCH_CUDA_STREAMS)
      if (runner.stream_.has_value()) guard_.emplace(*runner.stream_);
#else
      (void)runner;
#endif
    }

   private:
#if defined(VZ_TORCH_CUDA_STREAMS)
    std::optional<c10::cuda::CUDAStreamGuard> guard_;
#endif
  };

  // The forward pass at one padded batch size as a CUDA graph: its static input, captured once,
  // replayed with new contents; the outputs (float32 logits) land in the static outputs.
  struct CapturedForward {
#if defined(VZ_TORCH_CUDA_STREAMS)
    at::cuda::CUDAGraph graph;
#endif
    torch::Tensor input;   // [padded][planes][height][width], dtype_, the runner's layout
    torch::Tensor policy;  // [padded][num_actions] float32
    torch::Tensor value;   // [padded][3] float32 logits
  };

  // Captures and checks the graph of `padded` into graphs_, or turns the graphs off for the
  // process (FailCudaGraphs; the eager path runs from then on). Called with mutex_ held and the
  // runner's stream current; holds CudaCaptureMutex exclusively throughout: LibTorch 2.11 shares
  // the CUDA random generator's capture state between threads without a lock, and a device-wide
  // sync of another thread (cuDNN's autotuning, cudaFree) would break a capture in flight.
  void Capture(int padded) {
#if defined(VZ_TORCH_CUDA_STREAMS)
    const std::unique_lock<DeviceWorkLock> exclusive(CudaCaptureMutex());
    if (!CudaGraphsFailure().empty()) return;  // another runner's capture failed meanwhile
    const NetArchitecture& a = net_->architecture;
    auto graph = std::make_unique<CapturedForward>();
    bool begun = false, ended = false;
    // What is captured, and run eagerly before: the same kernels (lazy module loading).
    const auto forward = [&](const torch::Tensor& input) {
      auto [policy, value] = net_->forward(input);
      return std::make_pair(policy.to(torch::kFloat32), value.to(torch::kFloat32));
    };
    std::string failure;
    try {
      const auto options = torch::TensorOptions().device(device_).dtype(dtype_);
      graph->input = Prepare(torch::zeros({padded, a.input_planes, a.height, a.width}, options));
      // Eager passes first, outside the capture: cuDNN's autotuning and the allocator's pools.
      for (int i = 0; i < 3; ++i) forward(graph->input);
      stream_->synchronize();
      // All of a runner's graphs share one memory pool: they run one after another on its
      // stream, and each batch's outputs are copied out before the next replay.
      if (!graph_pool_.has_value()) graph_pool_ = at::cuda::graph_pool_handle();
      begun = true;
      graph->graph.capture_begin(*graph_pool_, cudaStreamCaptureModeThreadLocal);
      std::tie(graph->policy, graph->value) = forward(graph->input);
      graph->graph.capture_end();
      ended = true;
      // The check: a replay on varied planes (made on the CPU: no CUDA random numbers) against
      // the eager forward pass on the same planes.
      graph->input.copy_(
          torch::rand({padded, a.input_planes, a.height, a.width}, torch::kFloat32).round());
      graph->graph.replay();
      auto [policy, value] = forward(graph->input);
      const double tolerance = dtype_ == torch::kFloat32 ? 1e-3 : 3e-2;
      const auto differs = [&](const torch::Tensor& got, const torch::Tensor& want) {
        const double scale = 1.0 + want.abs().max().item<double>();
        return (got - want).abs().max().item<double>() > tolerance * scale;
      };
      if (differs(graph->policy, policy) || differs(graph->value, value)) {
        failure = fmt::format("the graph of batch {} of net {} on {} disagreed with the eager pass",
                              padded, source_, device());
      }
    } catch (const c10::Error& error) {
      if (begun && !ended) AbandonCapture(std::move(graph));
      failure = fmt::format("capture of batch {} of net {} on {} failed: {}", padded, source_,
                            device(), error.what_without_backtrace());
    }
    if (failure.empty()) {
      graphs_.emplace(padded, std::move(graph));
      return;
    }
    graph.reset();
    graphs_.clear();
    FailCudaGraphs(failure);
#else
    (void)padded;
#endif
  }

#if defined(VZ_TORCH_CUDA_STREAMS)
  // A capture that began and did not end (an error inside it): the stream leaves capture mode, so
  // that the eager path can use it, and the half-made graph is kept for the rest of the process,
  // never destroyed, because LibTorch 2.11's allocators keep a callback into it that only a
  // finished capture_end removes. This happens at most once per process: the graphs are off
  // afterwards (FailCudaGraphs).
  void AbandonCapture(std::unique_ptr<CapturedForward> graph) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream_->stream(), &status) == cudaSuccess &&
        status != cudaStreamCaptureStatusNone) {
      cudaGraph_t broken = nullptr;
      if (cudaStreamEndCapture(stream_->stream(), &broken) == cudaSuccess && broken != nullptr) {
        cudaGraphDestroy(broken);
      }
    }
    cudaGetLastError();  // clear the error the interrupted capture left behind
    (void)graph.release();
  }
#endif

  PolicyValueNet net_{nullptr};
  torch::Device device_{torch::kCPU};
  torch::ScalarType dtype_ = torch::kFloat32;
  std::string precision_;
  std::string source_;
  bool channels_last_ = false;
  bool fused_ = false;  // PackConvolutions ran (RunnerOptions::fuse_convolutions)
  bool legal_policy_ = true;
  int cpu_block_ = 0;  // positions per forward pass on the CPU; 0 on a GPU (the whole batch)
  bool graphs_on_ = false;
  std::string graphs_off_reason_;
#if defined(VZ_TORCH_CUDA_STREAMS)
  std::optional<c10::cuda::CUDAStream> stream_;  // from LibTorch's pool (CUDA runners)
  std::optional<c10::MempoolId_t> graph_pool_;   // the graphs' shared memory pool
#endif
  std::map<int, std::unique_ptr<CapturedForward>> graphs_;  // by padded batch size
  mutable std::mutex mutex_;
};

}  // namespace

std::unique_ptr<NetRunner::Impl> NewNetRunner(const NetFile& net, std::string_view source,
                                              const std::string& device,
                                              const std::string& precision,
                                              const RunnerOptions& options) {
  return std::make_unique<TorchNetRunner>(net, source, device, precision, options);
}

}  // namespace vz::nets::torch_impl
