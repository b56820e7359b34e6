// The evaluator factory (nets/net_evaluator.h) and the prior gather of the GPU evaluator (the CPU
// twin, cuda/batched_rules.h): device names resolve or are refused by name; on the CPU the factory
// gives the LibTorch evaluator; and the twin's compact gather of the network's full policy at the
// policy indices the GPU evaluator's host lists reproduces TorchEvaluator's priors and values —
// the same semantics the CUDA kernel runs. Runs without a GPU (label unit).

#include "nets/net_evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cuda/batched_rules.h"
#include "engine/encodings.h"
#include "nets/fresh_net.h"
#include "nets/net_runner.h"
#include "tests/engine/game_types.h"
#include "tests/nets/net_test_util.h"
#include "tests/test_util.h"

namespace vz::nets {
namespace {

using vz::testing::ErrorOf;

TEST(ResolveDeviceTest, NamesResolveOrAreRefusedByName) {
  EXPECT_EQ(ResolveDevice("cpu"), "cpu");
  EXPECT_EQ(ResolveDevice("cuda"), "cuda:0");
  EXPECT_EQ(ResolveDevice("cuda:1"), "cuda:1");
  EXPECT_EQ(ResolveDevice("cuda:007"), "cuda:7");
  EXPECT_EQ(ResolveDevice("auto"), CudaDeviceCount() > 0 ? "cuda:0" : "cpu");
  // Ranks of a distributed job: each its own GPU modulo the visible ones; a named device stays.
  const int gpus = CudaDeviceCount();
  EXPECT_EQ(ResolveDevice("cpu", 3), "cpu");
  EXPECT_EQ(ResolveDevice("cuda:1", 2), "cuda:1");
  EXPECT_EQ(ResolveDevice("auto", 3), gpus == 0 ? "cpu" : "cuda:" + std::to_string(3 % gpus));
  EXPECT_EQ(ResolveDevice("cuda", 3), gpus == 0 ? "cuda:0" : "cuda:" + std::to_string(3 % gpus));
  for (const char* bad : {"", "gpu", "cuda:", "cuda:x", "cuda:-1", "cuda:1234", "CPU", "auto "}) {
    EXPECT_EQ(ErrorOf([&] { ResolveDevice(bad); }),
              std::string("device '") + bad + "': expected auto, cpu, cuda or cuda:N");
  }
  EXPECT_FALSE(UsesCudaEvaluator("cpu"));
#if defined(VZ_HAVE_CUDA)
  EXPECT_TRUE(UsesCudaEvaluator("cuda:0"));
#else
  EXPECT_FALSE(UsesCudaEvaluator("cuda:0"));
#endif
}

TEST(MakeNetEvaluatorTest, CpuGivesTheTorchEvaluatorAndMissingDevicesAreErrors) {
  using G = cuarenta::CuarentaGame;
  const NetFile net = FreshNetForGame<G>("tiny", 4);
  auto evaluator = MakeNetEvaluator<G>(net, "fresh", "cpu", "auto", 0);
  ASSERT_NE(dynamic_cast<TorchEvaluator<G>*>(evaluator.get()), nullptr);
  EXPECT_EQ(RunnerOf(*evaluator).device(), "cpu");
  EXPECT_EQ(RunnerOf(*evaluator).precision(), CpuPrefersBf16() ? "bf16" : "fp32");
  EXPECT_EQ(ErrorOf([&] { MakeNetEvaluator<G>(net, "fresh", "tpu"); }),
            "device 'tpu': expected auto, cpu, cuda or cuda:N");
  EXPECT_EQ(ErrorOf([&] { MakeNetEvaluator<chad::ChadGame>(net, "n.vznet", "cpu"); }),
            "net file n.vznet: made for game 'cuarenta', not 'chad'");
  if (CudaDeviceCount() == 0) {
    EXPECT_EQ(ErrorOf([&] { MakeNetEvaluator<G>(net, "fresh", "cuda"); }),
              "device 'cuda:0': no CUDA device is present");
    auto automatic = MakeNetEvaluator<G>(net, "fresh", "auto", "auto", 0);
    EXPECT_EQ(RunnerOf(*automatic).device(), "cpu");
  }
}

template <class G>
class PriorGatherTest : public ::testing::Test {};
TYPED_TEST_SUITE(PriorGatherTest, vz::testing::AllGameTypes, vz::testing::GameNames);

// TorchEvaluator's priors = the twin's compact gather of RunAll's full policy at the policy
// indices of the batch's moves (as the GPU evaluator lists them, at the batch's move offsets);
// its values = the twin's WDL softmax of the logits log(wdl). The twin's legal moves equal the
// batch's (the indices the device would generate are the host's).
TYPED_TEST(PriorGatherTest, TwinGatherEqualsTorchEvaluator) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  testing::CpuEvaluatorAndRunner<G> cpu(8);
  EvalBatch<G> batch;
  testing::FillEvalBatch(batch, 12, 21, /*max_plies=*/150, /*keep_one_in=*/2);
  cpu.evaluator.Evaluate(batch);
  const int n = batch.size();
  std::vector<float> planes(size_t(n) * E::kSize), policy(size_t(n) * E::kNumActions);
  std::vector<float> wdl(size_t(n) * 3);
  cuda::CpuEncodeFloat<G>(batch.positions().data(), n, batch.repetition_counts().data(),
                          planes.data());
  cpu.runner.RunAll(planes.data(), n, policy.data(), wdl.data());
  std::vector<Move> moves(size_t(n) * G::kMaxMoves);
  std::vector<int32_t> counts(static_cast<size_t>(n)), indices(size_t(n) * G::kMaxMoves);
  cuda::CpuLegalMoves<G>(batch.positions().data(), n, moves.data(), counts.data(), indices.data());
  std::vector<float> wdl_logits(size_t(n) * 3), twin_wdl(size_t(n) * 3);
  for (size_t k = 0; k < wdl.size(); ++k) wdl_logits[k] = std::log(wdl[k]);
  const std::vector<int32_t>& offsets = batch.move_offsets();
  std::vector<int32_t> compact(static_cast<size_t>(offsets[size_t(n)]));
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < batch.num_moves(i); ++k) {
      compact[size_t(offsets[size_t(i)] + k)] =
          E::PolicyIndex(batch.position(i), batch.moves(i)[size_t(k)]);
    }
  }
  std::vector<float> priors(static_cast<size_t>(offsets[size_t(n)]));
  cuda::CpuGatherCompactPriors(policy.data(), E::kNumActions, compact.data(), offsets.data(), n,
                               G::kActionsMayCollide, priors.data(), wdl_logits.data(),
                               twin_wdl.data());
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(counts[size_t(i)], batch.num_moves(i));
    for (int k = 0; k < batch.num_moves(i); ++k) {
      ASSERT_EQ(indices[size_t(i) * G::kMaxMoves + k], compact[size_t(offsets[size_t(i)] + k)]);
      EXPECT_NEAR(priors[size_t(offsets[size_t(i)] + k)], batch.priors(i)[size_t(k)], 2e-6);
    }
    EXPECT_NEAR(twin_wdl[size_t(i) * 3 + 0], batch.value(i).win, 2e-6);
    EXPECT_NEAR(twin_wdl[size_t(i) * 3 + 1], batch.value(i).draw, 2e-6);
    EXPECT_NEAR(twin_wdl[size_t(i) * 3 + 2], batch.value(i).loss, 2e-6);
  }
}

TEST(PriorGatherDraughtsTest, MovesSharingAnIndexShareItsPriorAsInTorchEvaluator) {
  using G = draughts::DraughtsGame;
  using E = InputEncoding<G>;
  // The man on 3 takes 7 and 15 or 6 and 14, both ways ending on 19: two moves, one index.
  const G::Position position = G::ParsePosition("W:W3:B6,7,14,15");
  testing::CpuEvaluatorAndRunner<G> cpu(5);
  G::MoveList list;
  G::GenerateMoves(position, list);
  EvalBatch<G> batch;
  batch.Add(position, list.moves, list.size, 1);
  cpu.evaluator.Evaluate(batch);
  std::vector<float> planes(E::kSize), policy(E::kNumActions), wdl(3);
  cuda::CpuEncodeFloat<G>(&position, 1, nullptr, planes.data());
  cpu.runner.RunAll(planes.data(), 1, policy.data(), wdl.data());
  std::vector<Move> moves(G::kMaxMoves);
  std::vector<int32_t> counts(1), indices(G::kMaxMoves);
  cuda::CpuLegalMoves<G>(&position, 1, moves.data(), counts.data(), indices.data());
  ASSERT_EQ(counts[0], 2);
  ASSERT_EQ(indices[0], indices[1]);
  const std::vector<int32_t> offsets = {0, 2};
  std::vector<float> priors(2);
  cuda::CpuGatherCompactPriors(policy.data(), E::kNumActions, indices.data(), offsets.data(), 1,
                               G::kActionsMayCollide, priors.data(), nullptr, nullptr);
  EXPECT_FLOAT_EQ(priors[0], 0.5f);
  EXPECT_FLOAT_EQ(priors[1], 0.5f);
  EXPECT_FLOAT_EQ(priors[0], batch.priors(0)[0]);
  EXPECT_FLOAT_EQ(priors[1], batch.priors(0)[1]);
}

}  // namespace
}  // namespace vz::nets
