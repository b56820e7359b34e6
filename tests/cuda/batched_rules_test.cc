// The CPU twin of the batched rules interface (cuda/batched_rules.h) equals each game's own
// functions on positions of random games (terminal ones and ones without legal moves included),
// its bf16 rounding is round-to-nearest-even, and its compact prior gather is the distinct-index
// masked softmax of nets/torch_evaluator.h. Plain C++: runs without a GPU (label unit).

#include "cuda/batched_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "engine/encodings.h"
#include "tests/cuda/random_positions.h"
#include "tests/engine/game_types.h"

namespace vz {
namespace {

using cuda::Bf16BitsToFloat;
using cuda::FloatToBf16Bits;

template <class G>
class BatchedRulesTest : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedRulesTest, testing::AllGameTypes, testing::GameNames);

TYPED_TEST(BatchedRulesTest, TwinEqualsTheGameOnRandomPositions) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  using Position = typename G::Position;
  testing::PositionBatch<G> batch = testing::PositionsFromRandomGames<G>(1500, 17);
  const int n = batch.size();
  // Repetition counts 1..3 on some entries too, so the repetition planes vary.
  std::mt19937 rng(5);
  for (int i = 0; i < n; i += 7) batch.repetition_counts[size_t(i)] = 1 + int(rng() % 3);

  std::vector<Move> moves(size_t(n) * G::kMaxMoves);
  std::vector<int32_t> counts(static_cast<size_t>(n)), indices(size_t(n) * G::kMaxMoves);
  cuda::CpuLegalMoves<G>(batch.positions.data(), n, moves.data(), counts.data(), indices.data());
  std::vector<float> planes(size_t(n) * E::kSize, -7.0f);
  cuda::CpuEncodeFloat<G>(batch.positions.data(), n, batch.repetition_counts.data(), planes.data());
  std::vector<uint16_t> bf16(size_t(n) * E::kSize, 0xFFFF);
  cuda::CpuEncodeBf16<G>(batch.positions.data(), n, batch.repetition_counts.data(), bf16.data());

  int zero_moves = 0, terminal = 0;
  for (int i = 0; i < n; ++i) {
    const Position& p = batch.positions[size_t(i)];
    SCOPED_TRACE(G::FormatPosition(p));
    typename G::MoveList expected;
    G::GenerateMoves(p, expected);
    ASSERT_EQ(counts[size_t(i)], expected.size);
    for (int k = 0; k < expected.size; ++k) {
      ASSERT_EQ(moves[size_t(i) * G::kMaxMoves + k], expected[k]);
      ASSERT_EQ(indices[size_t(i) * G::kMaxMoves + k], E::PolicyIndex(p, expected[k]));
    }
    std::vector<float> reference(E::kSize);
    E::Encode(p, batch.repetition_counts[size_t(i)], reference.data());
    for (int k = 0; k < E::kSize; ++k) {
      ASSERT_EQ(planes[size_t(i) * E::kSize + k], reference[size_t(k)]) << "entry " << k;
      ASSERT_EQ(bf16[size_t(i) * E::kSize + k], FloatToBf16Bits(reference[size_t(k)]));
    }
    zero_moves += expected.size == 0;
    terminal += G::LocalOutcome(p, expected.size).IsTerminal();
  }
  // The batch really covers the edge cases.
  EXPECT_GT(zero_moves, 0);
  EXPECT_GT(terminal, 0);
}

TEST(Bf16Test, RoundsToNearestEven) {
  auto bits = [](uint32_t pattern) {
    float value;
    std::memcpy(&value, &pattern, sizeof(value));
    return FloatToBf16Bits(value);
  };
  EXPECT_EQ(FloatToBf16Bits(0.0f), 0x0000);
  EXPECT_EQ(FloatToBf16Bits(-0.0f), 0x8000);
  EXPECT_EQ(FloatToBf16Bits(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBf16Bits(1.0f / 3.0f), 0x3EAB);  // 0x3EAAAAAB rounds up
  EXPECT_EQ(FloatToBf16Bits(0.025f), 0x3CCD);       // 0x3CCCCCCD rounds up
  EXPECT_EQ(bits(0x3F808000u), 0x3F80);             // tie, even stays
  EXPECT_EQ(bits(0x3F818000u), 0x3F82);             // tie, odd rounds up to even
  EXPECT_EQ(bits(0x3F808001u), 0x3F81);             // above the tie
  EXPECT_EQ(bits(0x7F7FFFFFu), 0x7F80);             // largest float rounds to infinity
  EXPECT_EQ(FloatToBf16Bits(INFINITY), 0x7F80);
  EXPECT_TRUE(std::isnan(Bf16BitsToFloat(FloatToBf16Bits(NAN))));
  for (float value : {0.0f, 1.0f, -2.5f, 0.5f, 0.125f}) {
    EXPECT_EQ(Bf16BitsToFloat(FloatToBf16Bits(value)), value);  // exactly representable
  }
}

// Reference priors: softmax over the distinct legal indices in double, each index's probability
// split among the moves that share it; invalid indices get 0.
std::vector<double> ReferencePriors(const std::vector<float>& logits,
                                    const std::vector<int32_t>& indices) {
  std::map<int32_t, int> sharers;
  for (int32_t index : indices) {
    if (index >= 0 && index < int32_t(logits.size())) ++sharers[index];
  }
  double max_logit = -INFINITY, sum = 0;
  for (const auto& [index, count] : sharers) max_logit = std::max<double>(max_logit, logits[index]);
  for (const auto& [index, count] : sharers) sum += std::exp(logits[size_t(index)] - max_logit);
  std::vector<double> priors;
  for (int32_t index : indices) {
    const auto it = sharers.find(index);
    priors.push_back(
        it == sharers.end() ? 0.0 : std::exp(logits[size_t(index)] - max_logit) / sum / it->second);
  }
  return priors;
}

TEST(GatherPriorsTest, DistinctIndexSoftmaxSharedEqually) {
  constexpr int kActions = 40, kMaxMoves = 12, kBatch = 64;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> logits(size_t(kBatch) * kActions), wdl_logits(size_t(kBatch) * 3);
  for (float& x : logits) x = normal(rng);
  for (float& x : wdl_logits) x = normal(rng);
  // The host's compact layout: entry i's indices at [offsets[i], offsets[i + 1]).
  std::vector<int32_t> indices, offsets(1, 0);
  for (int i = 0; i < kBatch; ++i) {
    const int count = i % 9 == 0 ? 0 : 1 + int(rng() % kMaxMoves);  // some with no moves
    for (int k = 0; k < count; ++k) {
      // Few distinct indices, so collisions are common; now and then an invalid one.
      int32_t index = int32_t(rng() % 8) * 5;
      if (rng() % 25 == 0) index = kActions + 3;
      indices.push_back(index);
    }
    offsets.push_back(int32_t(indices.size()));
  }
  std::vector<float> priors(indices.size(), -1.0f), wdl(size_t(kBatch) * 3);
  cuda::CpuGatherCompactPriors(logits.data(), kActions, indices.data(), offsets.data(), kBatch,
                               true, priors.data(), wdl_logits.data(), wdl.data());
  for (int i = 0; i < kBatch; ++i) {
    const std::vector<float> row(logits.begin() + i * kActions,
                                 logits.begin() + (i + 1) * kActions);
    const std::vector<int32_t> entry(indices.begin() + offsets[size_t(i)],
                                     indices.begin() + offsets[size_t(i) + 1]);
    const std::vector<double> expected = ReferencePriors(row, entry);
    double sum = 0;
    for (size_t k = 0; k < entry.size(); ++k) {
      EXPECT_NEAR(priors[size_t(offsets[size_t(i)]) + k], expected[k], 1e-6);
      sum += priors[size_t(offsets[size_t(i)]) + k];
    }
    bool any_valid = false;
    for (int32_t index : entry) any_valid |= index < kActions;
    if (any_valid) {
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
    const float* v = &wdl_logits[size_t(i) * 3];
    const double m = std::max({v[0], v[1], v[2]});
    const double z = std::exp(v[0] - m) + std::exp(v[1] - m) + std::exp(v[2] - m);
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(wdl[size_t(i) * 3 + j], std::exp(v[j] - m) / z, 1e-6);
    }
  }
}

TEST(GatherPriorsTest, ANonFiniteLegalLogitMakesEveryPriorNaN) {
  const std::vector<int32_t> indices = {0, 2}, offsets = {0, 2};
  for (float bad : {NAN, INFINITY}) {
    const std::vector<float> logits = {0.5f, bad, bad, 1.0f};
    std::vector<float> priors(2, 0.0f);
    cuda::CpuGatherCompactPriors(logits.data(), 4, indices.data(), offsets.data(), 1, false,
                                 priors.data(), nullptr, nullptr);
    EXPECT_TRUE(std::isnan(priors[0]) && std::isnan(priors[1])) << bad;
  }
  // Off the legal indices it does not matter.
  const std::vector<float> logits = {0.5f, NAN, 0.0f, NAN};
  std::vector<float> priors(2, 0.0f);
  cuda::CpuGatherCompactPriors(logits.data(), 4, indices.data(), offsets.data(), 1, false,
                               priors.data(), nullptr, nullptr);
  EXPECT_NEAR(priors[0] + priors[1], 1.0f, 1e-6f);
}

}  // namespace
}  // namespace vz
