// The runner's forward-pass options (nets/net_runner.h): the padded batch sizes of the GPU path,
// the legal-moves policy and the CPU blocks, which must give the dense head's outputs, the choice
// of bf16 from the CPU's flags, and the channels-last layout, which must give the NCHW outputs
// (checked here on the CPU, where LibTorch runs the same layouts; the CUDA graphs have their own
// check at capture time). And the parts of the GPU path that need no device: a CPU runner (and the
// GPU evaluator on the CPU) refusing the device-only calls by name, a missing device, the capture
// lock that cannot starve a capture, and the CUDA graphs' process-wide failure rule.

#include "nets/net_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "engine/chaco_rex/encoding.h"
#include "engine/cuarenta/encoding.h"
#include "engine/draughts/encoding.h"
#include "nets/fresh_net.h"
#include "tests/nets/reference_net.h"
#include "tests/test_util.h"
#if defined(VZ_HAVE_CUDA)
#include "nets/cuda_evaluator.h"
#endif

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
  // Global pooling in the trunk and a pooled value head (the shipped nets' architecture), and the
  // demo presets' 1x16 one: channels-last pools by gathering the board's cells, NCHW by masking.
  ExpectChannelsLastMatchesNchw<chaco_rex::ChacoRexGame>("small-gpool-vpool");
  ExpectChannelsLastMatchesNchw<chaco_rex::ChacoRexGame>("tiny-gpool-vpool");
  ExpectChannelsLastMatchesNchw<cuarenta::CuarentaGame>("tiny-gpool-vpool");
}

TEST(NetRunnerLayoutTest, TuningNamesTheLayout) {
  const NetFile net = FreshNetForGame<draughts::DraughtsGame>("tiny", 1);
  // kAuto on the CPU: channels-last for the plain tiny net; its 16 channels give blocks of 64
  // (AutoCpuBlock).
  EXPECT_EQ(NetRunner(net, "n", "cpu", "fp32").tuning(),
            "channels-last, policy at legal moves, blocks of 64");
  // NCHW for the pooled 1x16 net of the demo presets in fp32 (channels-last in bf16),
  // channels-last for the pooled 4x32 one.
  EXPECT_EQ(
      NetRunner(FreshNetForGame<draughts::DraughtsGame>("tiny-gpool-vpool", 1), "n", "cpu", "fp32")
          .tuning(),
      "NCHW, policy at legal moves, blocks of 64");
  EXPECT_EQ(NetRunner(FreshNetForGame<draughts::DraughtsGame>("tiny-gpool-vpool", 1), "n", "cpu",
                      "bf16", {.fuse_convolutions = false})
                .tuning(),
            "channels-last, policy at legal moves, blocks of 64");
  EXPECT_EQ(
      NetRunner(FreshNetForGame<draughts::DraughtsGame>("small-gpool-vpool", 1), "n", "cpu", "fp32")
          .tuning(),
      "channels-last, policy at legal moves, blocks of 32");
  EXPECT_EQ(NetRunner(net, "n", "cpu", "fp32", {.layout = RunnerOptions::Layout::kNchw}).tuning(),
            "NCHW, policy at legal moves, blocks of 64");
  EXPECT_EQ(
      NetRunner(
          net, "n", "cpu", "fp32",
          {.layout = RunnerOptions::Layout::kChannelsLast, .legal_policy = false, .cpu_block = 3})
          .tuning(),
      "channels-last, dense policy, blocks of 3");
  EXPECT_EQ(ErrorOf([&] { NetRunner(net, "n", "cpu", "fp32", {.cpu_block = -1}); }),
            "CPU block size -1 is negative");
}

TEST(NetRunnerDeviceTest, ACpuRunnerRefusesTheDeviceOnlyCallsByName) {
  const NetFile net = FreshNetForGame<draughts::DraughtsGame>("tiny", 1);
  NetRunner runner(net, "n", "cpu", "fp32");
  EXPECT_EQ(runner.CudaDeviceIndex(), -1);
  EXPECT_EQ(runner.device(), "cpu");
  using E = InputEncoding<draughts::DraughtsGame>;
  std::vector<float> planes(E::kSize), logits(E::kNumActions), wdl(3);
  EXPECT_EQ(ErrorOf([&] {
              runner.RunDevice(planes.data(), NetRunner::DeviceInput::kFloat32, 1, logits.data(),
                               wdl.data());
            }),
            "RunDevice: runner is on cpu, not on a CUDA device");
  EXPECT_EQ(ErrorOf([&] { runner.CudaStream(); }), "runner is on cpu, which has no CUDA stream");
  // No CUDA graphs part on the CPU, whatever the options say.
  EXPECT_EQ(NetRunner(net, "n", "cpu", "fp32", {.cuda_graphs = true}).tuning(),
            "channels-last, policy at legal moves, blocks of 64");
}

TEST(NetRunnerDeviceTest, AMissingDeviceIsRefusedByName) {
  const NetFile net = FreshNetForGame<draughts::DraughtsGame>("tiny", 1);
  const int devices = CudaDeviceCount();
  const std::string absent = "cuda:" + std::to_string(devices);
  EXPECT_EQ(ErrorOf([&] { NetRunner(net, "n", absent); }),
            devices == 0 ? "device 'cuda:0': no CUDA device is present"
                         : "device '" + absent + "': only " + std::to_string(devices) +
                               " CUDA device(s) present");
}

#if defined(VZ_HAVE_CUDA)
TEST(NetRunnerDeviceTest, TheGpuEvaluatorRefusesTheCpu) {
  using G = draughts::DraughtsGame;
  const NetFile net = FreshNetForGame<G>("tiny", 1);
  EXPECT_EQ(ErrorOf([&] { CudaEvaluator<G>(net, "n", "cpu", "fp32", 0); }),
            "cuda evaluator: device 'cpu' is not a CUDA device");
  EXPECT_EQ(ErrorOf([&] { CudaEvaluator<chad::ChadGame>(net, "n.vznet", "cpu", "fp32", 0); }),
            "net file n.vznet: made for game 'portuguese-draughts', not 'chad'");
}
#endif

// Run's outputs for `batch` entries asking for the actions `offsets`/`actions`: logits then WDL.
std::vector<float> RunOutputs(const NetFile& net, const RunnerOptions& options,
                              const std::vector<float>& planes, int batch,
                              const std::vector<int32_t>& offsets,
                              const std::vector<int32_t>& actions) {
  NetRunner runner(net, "net", "cpu", "fp32", options);
  std::vector<float> logits(actions.size()), wdl(size_t(batch) * 3);
  runner.Run(planes.data(), batch, offsets.data(), actions.data(), logits.data(), wdl.data());
  logits.insert(logits.end(), wdl.begin(), wdl.end());
  return logits;
}

// The legal-moves policy (RunnerOptions::legal_policy) against the dense head, at block sizes
// that split the batch evenly, unevenly and not at all, for a net of `preset`.
template <class G>
void ExpectLegalPolicyMatchesDense(const std::string& preset) {
  using E = InputEncoding<G>;
  NetFile net = FreshNetForGame<G>(preset, 11);
  testing::ShiftBatchNorms(net, 11);
  constexpr int kBatch = 37;
  std::mt19937 random(23);
  std::vector<float> planes(size_t(kBatch) * E::kSize);
  for (float& x : planes) x = float(random() % 2);
  // Each entry asks for 0 to 40 distinct actions, first and last among them sometimes.
  std::vector<int32_t> offsets = {0}, actions;
  for (int i = 0; i < kBatch; ++i) {
    const int count = int(random() % 41);
    for (int k = 0; k < count; ++k) {
      const int action = k == 0 && i % 5 == 0   ? 0
                         : k == 1 && i % 7 == 0 ? E::kNumActions - 1
                                                : int(random() % E::kNumActions);
      actions.push_back(action);
    }
    offsets.push_back(int32_t(actions.size()));
  }
  const std::vector<float> dense = RunOutputs(net, {.legal_policy = false, .cpu_block = kBatch},
                                              planes, kBatch, offsets, actions);
  float spread = 0.0f;
  for (const float x : dense) spread = std::max(spread, std::abs(x - dense[0]));
  EXPECT_GT(spread, 1e-3f);  // the outputs differ among themselves: the comparison means something
  for (const auto& [legal, block] : std::vector<std::pair<bool, int>>{
           {true, kBatch}, {true, 1}, {true, 8}, {true, 0}, {false, 5}}) {
    const std::vector<float> got = RunOutputs(net, {.legal_policy = legal, .cpu_block = block},
                                              planes, kBatch, offsets, actions);
    ASSERT_EQ(got.size(), dense.size());
    for (size_t i = 0; i < got.size(); ++i) {
      ASSERT_NEAR(got[i], dense[i], 1e-4f * (1.0f + std::abs(dense[i])))
          << preset << " legal " << legal << " block " << block << " output " << i;
    }
  }
}

TEST(NetRunnerLegalPolicyTest, TheLegalMovesLogitsAreTheDenseHeadsAtEveryBlockSize) {
  // The conv head with global pooling and the pooled value head, with squeeze-excitation, and
  // the fc head.
  ExpectLegalPolicyMatchesDense<chaco_rex::ChacoRexGame>("tiny-gpool-vpool");
  ExpectLegalPolicyMatchesDense<chaco_rex::ChacoRexGame>("small");
  ExpectLegalPolicyMatchesDense<draughts::DraughtsGame>("tiny-fc");
}

// Whether a runner's forward pass uses the fused convolutions, by its tuning line.
bool Fused(const NetRunner& runner) {
  return runner.tuning().find("oneDNN fused convolutions") != std::string::npos;
}

// Whether this LibTorch has oneDNN's fused convolution ops: a bf16 channels-last runner fuses
// exactly then.
bool FusionAvailable() {
  return Fused(NetRunner(FreshNetForGame<draughts::DraughtsGame>("tiny", 1), "n", "cpu", "bf16",
                         {.layout = RunnerOptions::Layout::kChannelsLast}));
}

// RunAll's and Run's outputs (all logits, then the requested ones, then both WDLs) of `net` in
// bf16, channels-last, with or without the fused convolutions.
template <class G>
std::vector<float> Bf16Outputs(const NetFile& net, bool fuse, const std::vector<float>& planes,
                               int batch, const std::vector<int32_t>& offsets,
                               const std::vector<int32_t>& actions) {
  NetRunner runner(net, "net", "cpu", "bf16",
                   {.layout = RunnerOptions::Layout::kChannelsLast, .fuse_convolutions = fuse});
  EXPECT_EQ(Fused(runner), fuse) << runner.tuning();
  std::vector<float> policy(size_t(batch) * G::kNumActions), wdl(size_t(batch) * 3);
  runner.RunAll(planes.data(), batch, policy.data(), wdl.data());
  std::vector<float> logits(actions.size()), run_wdl(size_t(batch) * 3);
  runner.Run(planes.data(), batch, offsets.data(), actions.data(), logits.data(), run_wdl.data());
  for (const auto* part : {&wdl, &logits, &run_wdl}) {
    policy.insert(policy.end(), part->begin(), part->end());
  }
  return policy;
}

// The fused convolutions (RunnerOptions::fuse_convolutions) against the plain ops, in bf16, for a
// net of `preset`, at batch 1 and at a batch of several positions: the same outputs up to bf16
// rounding (a fused skip addition rounds its sum once, the plain ops twice).
template <class G>
void ExpectFusedMatchesPlain(const std::string& preset) {
  using E = InputEncoding<G>;
  NetFile net = FreshNetForGame<G>(preset, 7);
  testing::ShiftBatchNorms(net, 7);
  std::mt19937 random(29);
  for (const int batch : {1, 5}) {
    std::vector<float> planes(size_t(batch) * E::kSize);
    for (float& x : planes) x = float(random() % 2);
    std::vector<int32_t> offsets = {0}, actions;
    for (int i = 0; i < batch; ++i) {
      for (int k = 0; k < 20; ++k) actions.push_back(int32_t(random() % E::kNumActions));
      offsets.push_back(int32_t(actions.size()));
    }
    const std::vector<float> plain = Bf16Outputs<G>(net, false, planes, batch, offsets, actions);
    const std::vector<float> fused = Bf16Outputs<G>(net, true, planes, batch, offsets, actions);
    ASSERT_EQ(fused.size(), plain.size());
    float spread = 0.0f, largest = 0.0f;
    for (size_t i = 0; i < plain.size(); ++i) {
      spread = std::max(spread, std::abs(plain[i] - plain[0]));
      largest = std::max(largest, std::abs(fused[i] - plain[i]) / (1.0f + std::abs(plain[i])));
    }
    EXPECT_GT(spread, 1e-2f) << preset;  // the outputs differ among themselves
    EXPECT_LE(largest, 0.03f) << preset << " batch " << batch;
  }
}

TEST(NetRunnerFusionTest, FusedConvolutionsGiveThePlainOutputsInBf16) {
  if (!FusionAvailable()) GTEST_SKIP() << "this LibTorch has no oneDNN fused convolutions";
  // Blocks without squeeze-excitation (the skip addition fused), with it (not fused), with the
  // global pooling bias, and the fully connected policy head's 1x1 convolution.
  ExpectFusedMatchesPlain<chaco_rex::ChacoRexGame>("tiny");
  ExpectFusedMatchesPlain<chaco_rex::ChacoRexGame>("small");
  ExpectFusedMatchesPlain<chaco_rex::ChacoRexGame>("small-gpool-vpool");
  ExpectFusedMatchesPlain<cuarenta::CuarentaGame>("tiny-gpool-vpool");
  ExpectFusedMatchesPlain<draughts::DraughtsGame>("tiny-fc");
}

TEST(NetRunnerFusionTest, OnlyBf16ChannelsLastFoldedRunnersFuse) {
  if (!FusionAvailable()) GTEST_SKIP() << "this LibTorch has no oneDNN fused convolutions";
  const NetFile net = FreshNetForGame<draughts::DraughtsGame>("tiny", 1);
  using Layout = RunnerOptions::Layout;
  const auto fused = [&](const std::string& precision, const RunnerOptions& options) {
    return Fused(NetRunner(net, "n", "cpu", precision, options));
  };
  EXPECT_TRUE(fused("bf16", {}));  // kAuto: channels-last for this net
  EXPECT_FALSE(fused("fp32", {.layout = Layout::kChannelsLast}));
  EXPECT_FALSE(fused("bf16", {.layout = Layout::kNchw}));
  EXPECT_FALSE(fused("bf16", {.fold_batch_norm = false, .layout = Layout::kChannelsLast}));
  EXPECT_FALSE(fused("bf16", {.layout = Layout::kChannelsLast, .fuse_convolutions = false}));
}

TEST(NetRunnerLegalPolicyTest, AnEntryWithoutRequestsStillGetsItsValue) {
  using G = draughts::DraughtsGame;
  const NetFile net = FreshNetForGame<G>("tiny", 3);
  std::vector<float> planes(2 * InputEncoding<G>::kSize, 1.0f);
  const std::vector<int32_t> offsets = {0, 0, 0};
  const std::vector<float> legal = RunOutputs(net, {}, planes, 2, offsets, {});
  const std::vector<float> dense = RunOutputs(net, {.legal_policy = false}, planes, 2, offsets, {});
  ASSERT_EQ(legal.size(), 6u);
  for (size_t i = 0; i < legal.size(); ++i) EXPECT_NEAR(legal[i], dense[i], 1e-5f) << i;
}

TEST(AutoCpuBlockTest, ADoublingOfChannelsHalvesTheBlock) {
  NetArchitecture a;
  for (const auto& [channels, block] : std::vector<std::pair<int, int>>{{1, 256},
                                                                        {4, 256},
                                                                        {8, 128},
                                                                        {16, 64},
                                                                        {24, 32},
                                                                        {32, 32},
                                                                        {128, 8},
                                                                        {256, 4},
                                                                        {1024, 1}}) {
    a.channels = channels;
    EXPECT_EQ(AutoCpuBlock(a), block) << channels;
  }
}

TEST(CpuPrefersBf16Test, AmxOrAvx512Bf16OnAmdAndTheFirstCpuDecides) {
  const std::string amd = "processor : 0\nvendor_id\t: AuthenticAMD\n";
  const std::string intel = "processor : 0\nvendor_id\t: GenuineIntel\n";
  EXPECT_TRUE(CpuInfoPrefersBf16(amd + "flags\t\t: fpu avx2 avx512f avx512_bf16 x\n"));
  EXPECT_TRUE(CpuInfoPrefersBf16(amd + "flags : avx512_bf16"));  // last word, no newline
  // Intel's AVX-512 BF16 alone runs bf16 slower than fp32; AMX runs it faster.
  EXPECT_FALSE(CpuInfoPrefersBf16(intel + "flags\t\t: fpu avx2 avx512f avx512_bf16 x\n"));
  EXPECT_TRUE(CpuInfoPrefersBf16(intel + "flags : fpu avx512_bf16 amx_bf16 amx_tile\n"));
  EXPECT_TRUE(CpuInfoPrefersBf16("flags : fpu amx_bf16 amx_tile\nflags : fpu\n"));
  EXPECT_FALSE(CpuInfoPrefersBf16("flags : fpu avx512_bf16\n"));  // no vendor_id line
  EXPECT_FALSE(CpuInfoPrefersBf16(amd + "flags : fpu avx avx2 fma\nflags : avx512_bf16\n"));
  EXPECT_FALSE(CpuInfoPrefersBf16(
      "vendor_id : GenuineIntel\nflags : fpu\nvendor_id : AuthenticAMD\nflags : avx512_bf16\n"));
  EXPECT_FALSE(CpuInfoPrefersBf16(amd + "flags : fpu avx512_bf16x avx512_bf amx_bf\n"));
  EXPECT_FALSE(CpuInfoPrefersBf16(amd + "model name : avx512_bf16 amx_bf16\n"));  // not flags
  EXPECT_FALSE(CpuInfoPrefersBf16(""));
  // Whatever this machine says, "auto" on the CPU follows it.
  const NetFile net = FreshNetForGame<draughts::DraughtsGame>("tiny", 1);
  EXPECT_EQ(NetRunner(net, "n", "cpu", "auto").precision(), CpuPrefersBf16() ? "bf16" : "fp32");
}

// The one rule of "auto", for the runner and the trainer: bf16 on a GPU, on the CPU what
// CpuPrefersBf16 says; a named precision, valid or not, passes through for the caller to check.
TEST(ResolvePrecisionTest, AutoFollowsTheDeviceAndANamedPrecisionPassesThrough) {
  EXPECT_EQ(ResolvePrecision("auto", /*cuda=*/true), "bf16");
  EXPECT_EQ(ResolvePrecision("auto", /*cuda=*/false), CpuPrefersBf16() ? "bf16" : "fp32");
  EXPECT_EQ(ResolvePrecision("fp32", /*cuda=*/true), "fp32");
  EXPECT_EQ(ResolvePrecision("bf16", /*cuda=*/false), "bf16");
  EXPECT_EQ(ResolvePrecision("fp64", /*cuda=*/false), "fp64");
}

// Readers that overlap without a gap (each takes the lock shared before the other lets go) keep a
// reader-preferring lock held forever; the writer must still get it, and then no reader holds it.
TEST(DeviceWorkLockTest, BackToBackSharedHoldersDoNotStarveACapture) {
  DeviceWorkLock lock;
  std::atomic<bool> written{false}, stop{false};
  std::atomic<int> holding{0};
  std::atomic<bool> overlap_seen{false};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        std::shared_lock<DeviceWorkLock> shared(lock);
        if (holding.fetch_add(1) > 0) overlap_seen.store(true);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        holding.fetch_sub(1);
      }
    });
  }
  while (!overlap_seen.load()) std::this_thread::yield();
  std::thread writer([&] {
    std::unique_lock<DeviceWorkLock> exclusive(lock);
    EXPECT_EQ(holding.load(), 0);  // no shared holder inside
    written.store(true);
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!written.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(written.load()) << "the exclusive request waited 10 s behind shared holders";
  stop.store(true);
  for (std::thread& reader : readers) reader.join();
  writer.join();  // readers gone: a starved writer gets the lock now
}

TEST(DeviceWorkLockTest, ShareDeviceWorkLocksOnlyForCuda) {
  EXPECT_FALSE(ShareDeviceWork(false).owns_lock());
  auto shared = ShareDeviceWork(true);
  EXPECT_TRUE(shared.owns_lock());
  EXPECT_EQ(shared.mutex(), &CudaCaptureMutex());
}

// Last in this program: it turns the graphs off for the process.
TEST(CudaGraphsFailureTest, TheFirstFailureTurnsThemOffForTheProcessWithOneWarning) {
  EXPECT_EQ(CudaGraphsFailure(), "");
  ::testing::internal::CaptureStderr();
  FailCudaGraphs("capture of batch 8 failed: first");
  FailCudaGraphs("capture of batch 16 failed: second");
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(warnings,
            "warning: CUDA graphs off for this process (capture of batch 8 failed: first); "
            "evaluating eagerly\n");
  EXPECT_EQ(CudaGraphsFailure(), "capture of batch 8 failed: first");
}

}  // namespace
}  // namespace vz::nets
