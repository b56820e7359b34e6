// Device names of the network evaluator factory (nets/net_evaluator.h).

#include "nets/net_evaluator.h"

#include <fmt/core.h>

#include "engine/core/macros.h"
#include "nets/net_runner.h"

namespace vz::nets {

std::string ResolveDevice(const std::string& device, int local_rank) {
  VZ_CHECK(local_rank >= 0);
  if (device == "auto" || device == "cuda") {
    // "cuda" for rank 0 needs no count (and no LibTorch start-up).
    const int count = device == "auto" || local_rank > 0 ? CudaDeviceCount() : 1;
    if (count == 0) return device == "auto" ? "cpu" : "cuda:0";
    return "cuda:" + std::to_string(local_rank % count);
  }
  if (device == "cpu") return "cpu";
  if (device.starts_with("cuda:")) {
    const std::string digits = device.substr(5);
    if (!digits.empty() && digits.size() <= 3 &&
        digits.find_first_not_of("0123456789") == std::string::npos) {
      return "cuda:" + std::to_string(std::stoi(digits));
    }
  }
  throw Error(fmt::format("device '{}': expected auto, cpu, cuda or cuda:N", device));
}

bool UsesCudaEvaluator(const std::string& resolved) {
#if defined(VZ_HAVE_CUDA)
  return resolved.starts_with("cuda");
#else
  (void)resolved;
  return false;
#endif
}

}  // namespace vz::nets
