// The runner's forward-pass options (nets/net_runner.h): the padded batch sizes of the GPU path
// and the channels-last layout, which must give the NCHW outputs (checked here on the CPU, where
// LibTorch runs the same layouts; the CUDA graphs have their own check at capture time).

#include "nets/net_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/chaco_rex/encoding.h"
#include "engine/draughts/encoding.h"
#include "nets/fresh_net.h"
#include "tests/test_util.h"

namespace vz::nets {
namespace {

using testing::ErrorOf;

// One CPU thread: the tests run next to others on a shared machine.
const bool kSingleThread = (SetCpuThreads(1), true);

TEST(PaddedBatchSizeTest, PowersOfTwoThenMultiplesOf512) {
  EXPECT_EQ(PaddedBatchSize(1), 1);
  EXPECT_EQ(PaddedBatchSize(2), 2);
  EXPECT_EQ(PaddedBatchSize(3), 4);
  EXPECT_EQ(PaddedBatchSize(33), 64);
  EXPECT_EQ(PaddedBatchSize(512), 512);
  EXPECT_EQ(PaddedBatchSize(513), 1024);
  EXPECT_EQ(PaddedBatchSize(1025), 1536);
  EXPECT_EQ(PaddedBatchSize(4097), 4608);
  for (int batch = 1; batch <= 9000; ++batch) {
    const int padded = PaddedBatchSize(batch);
    ASSERT_GE(padded, batch);
    ASSERT_EQ(PaddedBatchSize(padded), padded) << batch;  // a padded size is its own padding
    if (batch > 4096) {
      ASSERT_LE(padded - batch, batch / 8) << batch;
    }
  }
  EXPECT_EQ(ErrorOf([] { PaddedBatchSize(0); }), "batch size 0 is not positive");
}

// Outputs of `net` on `planes` [batch][kSize] with the given layout: policy then WDL.
template <class G>
std::vector<float> Outputs(const NetFile& net, RunnerOptions::Layout layout,
                           const std::vector<float>& planes, int batch) {
  NetRunner runner(net, "net", "cpu", "fp32", {.layout = layout});
  std::vector<float> policy(size_t(batch) * G::kNumActions), wdl(size_t(batch) * 3);
  runner.RunAll(planes.data(), batch, policy.data(), wdl.data());
  policy.insert(policy.end(), wdl.begin(), wdl.end());
  return policy;
}

template <class G>
void ExpectChannelsLastMatchesNchw(const std::string& preset) {
  const NetFile net = FreshNetForGame<G>(preset, 5);
  constexpr int kBatch = 3;
  std::mt19937 random(17);
  std::vector<float> planes(size_t(kBatch) * InputEncoding<G>::kSize);
  for (float& x : planes) x = float(random() % 2);
  using Layout = RunnerOptions::Layout;
  const std::vector<float> nchw = Outputs<G>(net, Layout::kNchw, planes, kBatch);
  const std::vector<float> last = Outputs<G>(net, Layout::kChannelsLast, planes, kBatch);
  ASSERT_EQ(nchw.size(), last.size());
  float spread = 0.0f;
  for (size_t i = 0; i < nchw.size(); ++i) {
    ASSERT_NEAR(last[i], nchw[i], 1e-4f * (1.0f + std::abs(nchw[i]))) << preset << " " << i;
    spread = std::max(spread, std::abs(nchw[i] - nchw[0]));
  }
  EXPECT_GT(spread, 1e-4f);  // the outputs differ among themselves: the comparison means something
}

TEST(NetRunnerLayoutTest, ChannelsLastGivesTheNchwOutputs) {
  // A convolutional policy head with squeeze-excitation, and a fully connected one.
  ExpectChannelsLastMatchesNchw<chaco_rex::ChacoRexGame>("small");
  ExpectChannelsLastMatchesNchw<draughts::DraughtsGame>("tiny-fc");
}

TEST(NetRunnerLayoutTest, TuningNamesTheLayout) {
  const NetFile net = FreshNetForGame<draughts::DraughtsGame>("tiny", 1);
  EXPECT_EQ(NetRunner(net, "n", "cpu", "fp32").tuning(), "NCHW");  // kAuto on the CPU
  EXPECT_EQ(
      NetRunner(net, "n", "cpu", "fp32", {.layout = RunnerOptions::Layout::kChannelsLast}).tuning(),
      "channels-last");
}

}  // namespace
}  // namespace vz::nets
