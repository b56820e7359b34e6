// ForwardFlops (nets/net_architecture.h), the operation count of nnbench's roofline, against an
// independent count from a net's own tensors: every convolution weight does one multiply-add per
// cell of the grid, every linear weight one per position.

#include "nets/net_architecture.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/encodings.h"
#include "nets/fresh_net.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"

namespace vz::nets {
namespace {

const bool kSingleThread = (SetCpuThreads(1), true);

// 2 x (convolution weights x cells + linear weights) of `net`, the dense policy head included.
double FlopsFromTensors(const NetFile& net) {
  const double area = double(net.architecture.height) * net.architecture.width;
  double flops = 0;
  for (const NetTensor& tensor : net.tensors) {
    if (!tensor.name.ends_with("weight") || tensor.name.find(".bn.") != std::string::npos) continue;
    double weights = 1;
    for (const int64_t size : tensor.shape) weights *= double(size);
    flops += 2 * weights * (tensor.shape.size() == 4 ? area : 1.0);
  }
  return flops;
}

template <class G>
void ExpectTheTensorsCount(const std::string& preset) {
  const NetFile net = FreshNetForGame<G>(preset, 1);
  const NetArchitecture& a = net.architecture;
  EXPECT_DOUBLE_EQ(ForwardFlops(a), FlopsFromTensors(net)) << preset;
  // The legal-moves head: the last layer's dense work replaced by one row per requested action.
  const double area = double(a.height) * a.width;
  const double dense_last = a.policy_head == PolicyHead::kConv
                                ? 2.0 * a.policy_channels * a.policy_planes * area
                                : 2.0 * a.policy_channels * area * a.num_actions;
  const double per_action =
      a.policy_head == PolicyHead::kConv ? 2.0 * a.policy_channels : 2.0 * a.policy_channels * area;
  EXPECT_DOUBLE_EQ(ForwardFlops(a, 30), ForwardFlops(a) - dense_last + 30 * per_action) << preset;
  EXPECT_DOUBLE_EQ(ForwardFlops(a, 0), ForwardFlops(a) - dense_last) << preset;
}

TEST(ForwardFlopsTest, CountsEveryWeightOfTheNetOncePerUse) {
  ExpectTheTensorsCount<chaco_rex::ChacoRexGame>("tiny");
  ExpectTheTensorsCount<chaco_rex::ChacoRexGame>("small");     // squeeze-excitation
  ExpectTheTensorsCount<chad::ChadGame>("b3c16-gpool-vpool");  // global pooling, pooled value
  ExpectTheTensorsCount<draughts::DraughtsGame>("tiny-fc");
  ExpectTheTensorsCount<cuarenta::CuarentaGame>("small-fc");
}

TEST(ForwardFlopsTest, TheTinyChacoRexNetIsAboutFiveMegaflops) {
  // The figure issue 32 worked out by hand for the tiny Chaco Rex net: ~4.9 MFLOP, a third of it
  // in the policy head's last layer (16 x 321 x 171 x 2).
  const NetArchitecture a = PresetArchitectureFor<chaco_rex::ChacoRexGame>("tiny");
  EXPECT_NEAR(ForwardFlops(a) / 1e6, 4.88, 0.01);
  EXPECT_NEAR(ForwardFlops(a) - ForwardFlops(a, 0), 16.0 * 321 * 171 * 2, 1.0);
}

}  // namespace
}  // namespace vz::nets
