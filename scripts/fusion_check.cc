// The fusions LibTorch and oneDNN offer on the CPU, against the plain ops nets/model.cc runs
// (issue 32): a residual tower of B blocks of C channels (3x3 convolutions with bias, the batch
// norms folded as nets/model.cc FoldBatchNorm leaves them, ReLU, skip connection) on an HxW
// grid, fp32 and bf16 (the runner's two CPU precisions), channels-last, one thread, at batch 1 to
// 256. Variants:
//   eager      torch::conv2d, relu_, add_ (what the runner does)
//   pointwise  oneDNN's fused convolution + bias + ReLU and convolution + bias + add + ReLU
//              (mkldnn::_convolution_pointwise, the ops PyTorch's Inductor emits on the CPU)
//   packed     the same with each weight reordered once into oneDNN's blocked layout for the
//              batch's input shape (mkldnn::_reorder_convolution_weight, Inductor's freezing)
//   script     the same tower as a TorchScript module
//   frozen     torch::jit::freeze of it
//   optimized  torch::jit::optimize_for_inference of the frozen module (oneDNN layouts, fusions)
// Prints positions/s (the best of 5 rounds of 0.25 s of the thread's CPU time each, variants
// interleaved: CPU time, so that a machine busy with other work skews the ratios less) and each
// variant's ratio to eager, and the largest difference of its output from eager's.
// Build and run: bash scripts/fusion-check.sh (it compiles this file against the venv's LibTorch).
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/script.h>
#include <torch/torch.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using torch::Tensor;
using ScalarList = c10::List<std::optional<torch::Scalar>>;

// Seconds of CPU time of the calling thread.
double ThreadSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

void Check(int channels, int blocks, int height, int width, torch::ScalarType dtype) {
  torch::manual_seed(0);
  std::vector<Tensor> weights, biases;
  torch::jit::Module module("Tower");
  std::string source = "def forward(self, x):\n";
  for (int i = 0; i < 2 * blocks; ++i) {
    weights.push_back((torch::randn({channels, channels, 3, 3}) * 0.1)
                          .to(dtype)
                          .contiguous(torch::MemoryFormat::ChannelsLast));
    biases.push_back((torch::randn({channels}) * 0.1).to(dtype));
    module.register_parameter("w" + std::to_string(i), weights.back(), false);
    module.register_parameter("b" + std::to_string(i), biases.back(), false);
  }
  for (int i = 0; i < blocks; ++i) {
    const std::string a = std::to_string(2 * i), b = std::to_string(2 * i + 1);
    source += "    y = torch.relu(torch.conv2d(x, self.w" + a + ", self.b" + a + ", 1, 1))\n";
    source += "    x = torch.relu(torch.conv2d(y, self.w" + b + ", self.b" + b + ", 1, 1) + x)\n";
  }
  source += "    return x\n";
  module.define(source);
  module.eval();
  torch::jit::Module frozen = torch::jit::freeze(module);
  torch::jit::Module optimized = frozen.clone();
  optimized = torch::jit::optimize_for_inference(optimized);

  auto unary =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("mkldnn::_convolution_pointwise", "")
          .typed<Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&,
                        torch::IntArrayRef, torch::IntArrayRef, torch::IntArrayRef, int64_t,
                        c10::string_view, ScalarList, std::optional<c10::string_view>)>();
  auto binary = c10::Dispatcher::singleton()
                    .findSchemaOrThrow("mkldnn::_convolution_pointwise", "binary")
                    .typed<Tensor(const Tensor&, const Tensor&, const Tensor&,
                                  const std::optional<Tensor>&, torch::IntArrayRef,
                                  torch::IntArrayRef, torch::IntArrayRef, int64_t, c10::string_view,
                                  std::optional<torch::Scalar>, std::optional<c10::string_view>,
                                  ScalarList, std::optional<c10::string_view>)>();
  auto reorder = c10::Dispatcher::singleton()
                     .findSchemaOrThrow("mkldnn::_reorder_convolution_weight", "")
                     .typed<Tensor(const Tensor&, torch::IntArrayRef, torch::IntArrayRef,
                                   torch::IntArrayRef, int64_t, at::OptionalIntArrayRef)>();
  const std::vector<int64_t> one{1, 1};
  std::vector<Tensor> packed;  // the weights in oneDNN's layout for the current batch
  // The tower with oneDNN's fused ops, convolving with `w` (plain or packed weights).
  const auto fused = [&](const std::vector<Tensor>& w, Tensor x) {
    for (int i = 0; i < blocks; ++i) {
      Tensor y = unary.call(x, w[2 * i], biases[2 * i], one, one, one, 1, "relu", ScalarList(), "");
      x = binary.call(y, x, w[2 * i + 1], biases[2 * i + 1], one, one, one, 1, "add",
                      torch::Scalar(1.0), "relu", ScalarList(), "");
    }
    return x;
  };
  const std::vector<std::pair<std::string, std::function<Tensor(const Tensor&)>>> variants = {
      {"eager",
       [&](Tensor x) {
         for (int i = 0; i < blocks; ++i) {
           Tensor y = torch::conv2d(x, weights[2 * i], biases[2 * i], 1, 1).relu_();
           x = torch::conv2d(y, weights[2 * i + 1], biases[2 * i + 1], 1, 1).add_(x).relu_();
         }
         return x;
       }},
      {"pointwise", [&](const Tensor& x) { return fused(weights, x); }},
      {"packed", [&](const Tensor& x) { return fused(packed, x); }},
      {"script", [&](const Tensor& x) { return module.forward({x}).toTensor(); }},
      {"frozen", [&](const Tensor& x) { return frozen.forward({x}).toTensor(); }},
      {"optimized", [&](const Tensor& x) { return optimized.forward({x}).toTensor(); }},
  };
  torch::InferenceMode inference;
  for (int batch : {1, 4, 16, 64, 256}) {
    const Tensor x = torch::randn({batch, channels, height, width})
                         .to(dtype)
                         .contiguous(torch::MemoryFormat::ChannelsLast);
    packed.clear();
    const std::vector<int64_t> input_size{batch, channels, height, width};
    for (const Tensor& w : weights) packed.push_back(reorder.call(w, one, one, one, 1, input_size));
    const Tensor reference = variants[0].second(x);
    std::vector<double> best(variants.size(), 0), error(variants.size(), 0);
    for (size_t k = 0; k < variants.size(); ++k) {
      error[k] = (variants[k].second(x).to(torch::kFloat32) - reference.to(torch::kFloat32))
                     .abs()
                     .max()
                     .item<double>();
    }
    for (int round = 0; round < 5; ++round) {
      for (size_t k = 0; k < variants.size(); ++k) {
        for (int warm = 0; warm < 3; ++warm) variants[k].second(x);
        int runs = 0;
        double seconds = 0;
        const double start = ThreadSeconds();
        do {
          variants[k].second(x);
          ++runs;
          seconds = ThreadSeconds() - start;
        } while (seconds < 0.25);
        best[k] = std::max(best[k], runs * batch / seconds);
      }
    }
    std::printf("| %dx%d, %dx%d | %s | %d |", blocks, channels, height, width,
                dtype == torch::kBFloat16 ? "bf16" : "fp32", batch);
    for (size_t k = 0; k < variants.size(); ++k) {
      if (k == 0) {
        std::printf(" %.0f |", best[k]);
      } else {
        std::printf(" %.0f (%.2fx, %.0e) |", best[k], best[k] / best[0], error[k]);
      }
    }
    std::printf("\n");
  }
}

}  // namespace

int main() {
  at::set_num_threads(1);
  std::printf(
      "| tower, grid | precision | batch | eager | pointwise | packed | script | frozen | "
      "optimized |\n");
  std::printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const torch::ScalarType dtype : {torch::kFloat32, torch::kBFloat16}) {
    Check(16, 1, 9, 19, dtype);   // the chess-like demo nets' tower on Chaco Rex's grid
    Check(32, 4, 9, 19, dtype);   // the shipped nets' tower (without SE and pooling), Chaco Rex
    Check(32, 4, 12, 12, dtype);  // the same on Chad's grid
  }
  return 0;
}
