#pragma once

// Plain C++ pieces of a net's forward pass from its net-file tensors, and net files framed by
// hand: the independent references the network tests (tests/nets/) check LibTorch against.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "nets/net_file.h"
#include "proto/net.pb.h"

namespace vz::testing {

// The tensor `name` of `net`; throws vz::Error when it has none.
inline const nets::NetTensor& TensorOf(const nets::NetFile& net, const std::string& name) {
  const nets::NetTensor* tensor = net.Find(name);
  if (tensor == nullptr) throw Error("test: no tensor " + name);
  return *tensor;
}

// Moves every batch norm of `net` off the identity (weights, biases and running variances uniform
// in [0.5, 2], running means in [-0.75, 0.75], from `seed`), so that a reference that skipped one
// would differ.
inline void ShiftBatchNorms(nets::NetFile& net, uint64_t seed) {
  std::mt19937 random{uint32_t(seed)};
  std::uniform_real_distribution<float> uniform(0.5f, 2.0f);
  for (nets::NetTensor& tensor : net.tensors) {
    if (tensor.name.find(".bn.") == std::string::npos) continue;
    for (float& x : tensor.data) {
      x = tensor.name.ends_with("running_mean") ? uniform(random) - 1.25f : uniform(random);
    }
  }
}

// Batch norm (eval mode, eps 1e-5) of the k x k convolution `unit` (zero padding, its size from
// its weight) of x [in][height][width], ReLU'd when `relu`: [out][height][width].
inline std::vector<double> ReferenceConvBn(const nets::NetFile& net, const std::string& unit,
                                           const std::vector<double>& x, int height, int width,
                                           bool relu) {
  const nets::NetTensor& weight = TensorOf(net, unit + ".conv.weight");
  const int out = int(weight.shape[0]), in = int(weight.shape[1]), k = int(weight.shape[2]);
  const std::vector<float>& gamma = TensorOf(net, unit + ".bn.weight").data;
  const std::vector<float>& beta = TensorOf(net, unit + ".bn.bias").data;
  const std::vector<float>& mean = TensorOf(net, unit + ".bn.running_mean").data;
  const std::vector<float>& var = TensorOf(net, unit + ".bn.running_var").data;
  std::vector<double> y(static_cast<size_t>(out * height * width));
  for (int o = 0; o < out; ++o) {
    for (int r = 0; r < height; ++r) {
      for (int c = 0; c < width; ++c) {
        double sum = 0;
        for (int i = 0; i < in; ++i) {
          for (int dr = 0; dr < k; ++dr) {
            for (int dc = 0; dc < k; ++dc) {
              const int rr = r + dr - k / 2, cc = c + dc - k / 2;
              if (rr < 0 || rr >= height || cc < 0 || cc >= width) continue;
              sum += double(weight.data[size_t(((o * in + i) * k + dr) * k + dc)]) *
                     x[size_t((i * height + rr) * width + cc)];
            }
          }
        }
        const double bn =
            (sum - mean[size_t(o)]) / std::sqrt(double(var[size_t(o)]) + 1e-5) * gamma[size_t(o)] +
            beta[size_t(o)];
        y[size_t((o * height + r) * width + c)] = relu ? std::max(0.0, bn) : bn;
      }
    }
  }
  return y;
}

// The net file of `message` framed as nets/net_file.h lays it out (magic, payload length, FNV-1a
// checksum, payload), as an older or a hostile writer would produce it.
inline std::string FrameNetMessage(const proto::Net& message) {
  std::string payload;
  message.SerializeToString(&payload);
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : payload) hash = (hash ^ c) * 0x100000001b3ull;
  std::string out("VZNET\0\0\1", 8);
  for (uint64_t value : {uint64_t(payload.size()), hash}) {
    for (int i = 0; i < 8; ++i) out.push_back(char((value >> (8 * i)) & 0xff));
  }
  return out + payload;
}

}  // namespace vz::testing
