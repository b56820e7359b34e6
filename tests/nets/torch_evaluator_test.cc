// The network evaluator (nets/torch_evaluator.h): priors only on legal moves and summing to 1,
// shared indices sharing their prior, batched == one-by-one, and thread safety.

#include "nets/torch_evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/encodings.h"
#include "nets/fresh_net.h"
#include "nets/net_runner.h"
#include "tests/engine/game_types.h"
#include "tests/nets/net_test_util.h"

namespace vz::nets {
namespace {

// `count` positions of fixed pseudo-random games (a third of the positions of games of at most
// 120 plies) with their legal moves and repetition counts.
template <Game G>
void FillBatch(EvalBatch<G>& batch, int count, uint64_t seed) {
  testing::FillEvalBatch(batch, count, seed, /*max_plies=*/120, /*keep_one_in=*/3);
}

template <class G>
class TorchEvaluatorTest : public ::testing::Test {};

TYPED_TEST_SUITE(TorchEvaluatorTest, vz::testing::AllGameTypes, vz::testing::GameNames);

TYPED_TEST(TorchEvaluatorTest, PriorsCoverOnlyLegalMovesAndBatchingChangesNothing) {
  using G = TypeParam;
  const NetFile net = FreshNetForGame<G>("tiny", 11);
  TorchEvaluator<G> evaluator(net, "fresh", "cpu", "fp32", 4);
  EXPECT_EQ(evaluator.runner().precision(), "fp32");
  EvalBatch<G> batch;
  FillBatch(batch, 24, 5);
  evaluator.Evaluate(batch);
  for (int i = 0; i < batch.size(); ++i) {
    double sum = 0;
    for (float prior : batch.priors(i)) {
      EXPECT_GT(prior, 0.0f);
      sum += prior;
    }
    // Nothing is left for illegal moves: the softmax ran over the legal moves' indices only.
    EXPECT_NEAR(sum, 1.0, 1e-5);
    const Wdl wdl = batch.value(i);
    EXPECT_NEAR(wdl.win + wdl.draw + wdl.loss, 1.0, 1e-5);
    EXPECT_TRUE(batch.cacheable(i));
  }
  // One by one gives the same numbers (batch norm runs in inference mode).
  for (int i = 0; i < batch.size(); ++i) {
    EvalBatch<G> single;
    const auto moves = batch.moves(i);
    single.Add(batch.position(i), moves.data(), int(moves.size()), batch.repetition_count(i));
    evaluator.Evaluate(single);
    for (size_t k = 0; k < moves.size(); ++k) {
      EXPECT_NEAR(single.priors(0)[k], batch.priors(i)[k], 1e-5);
    }
    EXPECT_NEAR(single.value(0).win, batch.value(i).win, 1e-5);
    EXPECT_NEAR(single.value(0).loss, batch.value(i).loss, 1e-5);
  }
}

TYPED_TEST(TorchEvaluatorTest, PriorsAreTheMaskedSoftmaxOfTheFullPolicy) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  testing::CpuEvaluatorAndRunner<G> cpu(3);
  EvalBatch<G> batch;
  FillBatch(batch, 3, 9);
  cpu.evaluator.Evaluate(batch);
  for (int i = 0; i < batch.size(); ++i) {
    std::vector<float> planes(E::kSize), policy(E::kNumActions), wdl(3);
    E::Encode(batch.position(i), batch.repetition_count(i), planes.data());
    cpu.runner.RunAll(planes.data(), 1, policy.data(), wdl.data());
    // Reference: every illegal index masked to -inf, softmax over all kNumActions outputs.
    std::vector<bool> legal(E::kNumActions, false);
    for (Move m : batch.moves(i)) legal[E::PolicyIndex(batch.position(i), m)] = true;
    double max_logit = -INFINITY, sum = 0;
    for (int a = 0; a < E::kNumActions; ++a) {
      if (legal[a]) max_logit = std::max<double>(max_logit, policy[a]);
    }
    std::vector<double> probability(E::kNumActions, 0.0);
    for (int a = 0; a < E::kNumActions; ++a) {
      probability[a] = legal[a] ? std::exp(policy[a] - max_logit) : 0.0;
      sum += probability[a];
    }
    int illegal_with_mass = 0;
    for (int a = 0; a < E::kNumActions; ++a) illegal_with_mass += !legal[a] && probability[a] != 0;
    EXPECT_EQ(illegal_with_mass, 0);
    for (size_t k = 0; k < batch.moves(i).size(); ++k) {
      const int a = E::PolicyIndex(batch.position(i), batch.moves(i)[k]);
      if (!G::kActionsMayCollide) {
        EXPECT_NEAR(batch.priors(i)[k], probability[a] / sum, 1e-5);
      }
    }
  }
}

// bf16 inference (the "auto" precision on CPUs where it is the faster, nets/net_runner.h) against
// fp32 on the game's shipped net (models/, the nets users play) over positions of random games:
// each prior moves by at most 0.03 and each value (win - loss, in [-1, 1]) by at most 0.05.
// Measured when it was written: at most 0.015 and 0.024 (Chad; docs/performance.md); with the
// fused convolutions (2026-12-06), at most 0.010 and 0.012 (Cuarenta, draughts).
TYPED_TEST(TorchEvaluatorTest, Bf16MovesPriorsAndValuesByLessThanTheTolerance) {
  using G = TypeParam;
  const std::filesystem::path net_path =
      std::filesystem::path(VZ_TEST_DATA_DIR).parent_path().parent_path() / "models" /
      (std::string(G::kName) + ".vznet");
  if (!std::filesystem::exists(net_path)) GTEST_SKIP() << "no " << net_path << " here";
  const NetFile net = ReadNetFile(net_path.string());
  TorchEvaluator<G> fp32(net, "shipped", "cpu", "fp32", 0);
  TorchEvaluator<G> bf16(net, "shipped", "cpu", "bf16", 0);
  EvalBatch<G> a, b;
  FillBatch(a, 48, 5);
  FillBatch(b, 48, 5);
  fp32.Evaluate(a);
  bf16.Evaluate(b);
  double prior_change = 0, value_change = 0;
  for (int i = 0; i < a.size(); ++i) {
    for (size_t k = 0; k < a.priors(i).size(); ++k) {
      prior_change = std::max<double>(prior_change, std::abs(a.priors(i)[k] - b.priors(i)[k]));
    }
    const auto score = [](const Wdl& v) { return double(v.win) - double(v.loss); };
    value_change = std::max(value_change, std::abs(score(a.value(i)) - score(b.value(i))));
  }
  this->RecordProperty("max_prior_change", std::to_string(prior_change));
  this->RecordProperty("max_value_change", std::to_string(value_change));
  std::printf("%s: bf16 moves priors by at most %.4f, values by at most %.4f\n",
              std::string(G::kName).c_str(), prior_change, value_change);
  EXPECT_LE(prior_change, 0.03);
  EXPECT_LE(value_change, 0.05);
  EXPECT_GT(prior_change, 0.0);  // bf16 really ran: some prior moved
}

TEST(TorchEvaluatorDraughtsTest, MovesSharingAnIndexShareItsPrior) {
  using G = draughts::DraughtsGame;
  // The man on 3 takes 7 and 15 or 6 and 14, both ways ending on 19: two moves, one index.
  const G::Position position = G::ParsePosition("W:W3:B6,7,14,15");
  G::MoveList moves;
  G::GenerateMoves(position, moves);
  ASSERT_EQ(moves.size, 2);
  ASSERT_EQ(G::ActionIndex(position, moves[0]), G::ActionIndex(position, moves[1]));
  const NetFile net = FreshNetForGame<G>("tiny", 5);
  TorchEvaluator<G> evaluator(net, "fresh", "cpu", "fp32", 0);
  EvalBatch<G> batch;
  batch.Add(position, moves.moves, moves.size, 1);
  // The same index next to another legal move (Black to move, 1 reply): each gets half of it.
  const G::Position other = G::ParsePosition("B:W3:B6,7,14,15");
  G::MoveList other_moves;
  G::GenerateMoves(other, other_moves);
  batch.Add(other, other_moves.moves, other_moves.size, 1);
  evaluator.Evaluate(batch);
  EXPECT_FLOAT_EQ(batch.priors(0)[0], 0.5f);
  EXPECT_FLOAT_EQ(batch.priors(0)[1], 0.5f);
  double sum = 0;
  for (float prior : batch.priors(1)) sum += prior;
  EXPECT_NEAR(sum, 1.0, 1e-5);
}

TEST(TorchEvaluatorThreadsTest, ConcurrentCallsGiveTheSameResults) {
  using G = cuarenta::CuarentaGame;
  const NetFile net = FreshNetForGame<G>("tiny", 2);
  TorchEvaluator<G> evaluator(net, "fresh", "cpu", "fp32", 0);
  EvalBatch<G> reference;
  FillBatch(reference, 8, 1);
  evaluator.Evaluate(reference);
  std::vector<EvalBatch<G>> batches(4);
  for (auto& batch : batches) FillBatch(batch, 8, 1);
  std::vector<std::thread> threads;
  for (auto& batch : batches) {
    threads.emplace_back([&evaluator, &batch] {
      for (int repeat = 0; repeat < 5; ++repeat) evaluator.Evaluate(batch);
    });
  }
  for (auto& thread : threads) thread.join();
  for (auto& batch : batches) {
    for (int i = 0; i < batch.size(); ++i) {
      for (size_t k = 0; k < batch.priors(i).size(); ++k) {
        EXPECT_EQ(batch.priors(i)[k], reference.priors(i)[k]);
      }
    }
  }
}

TEST(TorchEvaluatorFactoryTest, MakeTorchEvaluatorReadsAndChecksTheFile) {
  const std::string path = "/tmp/vz_torch_evaluator_test_" + std::to_string(::getpid()) + ".vznet";
  WriteNetFile(path, FreshNetForGame<chad::ChadGame>("tiny", 1));
  EXPECT_NE(MakeTorchEvaluator<chad::ChadGame>(path, "cpu"), nullptr);
  try {
    MakeTorchEvaluator<cuarenta::CuarentaGame>(path, "cpu");
    ADD_FAILURE() << "a chad net loaded for cuarenta";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "net file " + path + ": made for game 'chad', not 'cuarenta'");
  }
  std::remove(path.c_str());
}

// `net` with one value of tensor `name` set to `value` (NaN or Inf: a corrupted or diverged net).
NetFile Poisoned(NetFile net, const std::string& name, float value) {
  for (NetTensor& tensor : net.tensors) {
    if (tensor.name == name) tensor.data[0] = value;
  }
  return net;
}

// Fault 2 of issue 17: a net whose output is not finite is an error naming the net, never a
// prior or value that is not a number handed to the search.
TEST(TorchEvaluatorNonFiniteTest, NanOrInfOutputIsAnErrorNamingTheNet) {
  using G = draughts::DraughtsGame;
  const NetFile fresh = FreshNetForGame<G>("tiny", 3);
  ASSERT_NE(fresh.Find("value_fc2.bias"), nullptr);
  ASSERT_NE(fresh.Find("policy.conv.weight"), nullptr);
  ASSERT_NE(fresh.Find("input.conv.weight"), nullptr);
  EvalBatch<G> batch;
  FillBatch(batch, 4, 9);
  for (const auto& [name, value, what] : {std::tuple{"value_fc2.bias", INFINITY, "WDL"},
                                          std::tuple{"policy.conv.weight", NAN, "policy"},
                                          std::tuple{"input.conv.weight", NAN, ""}}) {
    TorchEvaluator<G> evaluator(Poisoned(fresh, name, value), "NAN.vznet", "cpu", "fp32", 0);
    std::string message;
    try {
      evaluator.Evaluate(batch);
    } catch (const Error& error) {
      message = error.what();
    }
    EXPECT_NE(message.find("NAN.vznet"), std::string::npos) << name << ": " << message;
    EXPECT_NE(message.find("non-finite " + std::string(what)), std::string::npos) << message;
  }
  // With a warm-up (as every caller makes it) the net is refused when it is loaded.
  EXPECT_THROW(TorchEvaluator<G>(Poisoned(fresh, "value_fc2.bias", NAN), "NAN.vznet", "cpu"),
               Error);
  // A sound net passes.
  TorchEvaluator<G> sound(fresh, "fresh", "cpu", "fp32", 0);
  EXPECT_NO_THROW(sound.Evaluate(batch));
}

}  // namespace
}  // namespace vz::nets
