// The CPU twin of the batched rules interface (cuda/batched_rules.h) equals each game's own
// functions on positions of random games (terminal ones and ones without legal moves included),
// its bf16 rounding is round-to-nearest-even, and its prior gather is the distinct-index masked
// softmax of nets/torch_evaluator.h. Plain C++: runs without a GPU (label unit).

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
  std::vector<Outcome> outcomes(static_cast<size_t>(n)), counted_outcomes(static_cast<size_t>(n));
  cuda::CpuOutcomes<G>(batch.positions.data(), n, counts.data(), outcomes.data());
  cuda::CpuOutcomes<G>(batch.positions.data(), n, nullptr, counted_outcomes.data());
  std::vector<uint64_t> hashes(static_cast<size_t>(n)), computed(static_cast<size_t>(n));
  cuda::CpuHashes<G>(batch.positions.data(), n, hashes.data(), computed.data());
  std::vector<float> planes(size_t(n) * E::kSize, -7.0f);
  cuda::CpuEncodeFloat<G>(batch.positions.data(), n, batch.repetition_counts.data(), planes.data());
  std::vector<uint16_t> bf16(size_t(n) * E::kSize, 0xFFFF);
  cuda::CpuEncodeBf16<G>(batch.positions.data(), n, batch.repetition_counts.data(), bf16.data());
  std::vector<int32_t> choices(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    // Mostly a random legal move; sometimes -1 or one past the end (position left unchanged).
    const int kind = int(rng() % 10);
    choices[size_t(i)] = kind == 0               ? -1
                         : kind == 1             ? counts[size_t(i)]
                         : counts[size_t(i)] > 0 ? int(rng() % uint32_t(counts[size_t(i)]))
                                                 : 0;
  }
  std::vector<Position> applied = batch.positions;
  cuda::CpuApplyMoves<G>(applied.data(), n, moves.data(), counts.data(), choices.data());

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
    const Outcome outcome = G::LocalOutcome(p, expected.size);
    ASSERT_EQ(outcomes[size_t(i)], outcome);
    ASSERT_EQ(counted_outcomes[size_t(i)], outcome);
    ASSERT_EQ(hashes[size_t(i)], G::Hash(p));
    ASSERT_EQ(computed[size_t(i)], G::ComputeHash(p));
    std::vector<float> reference(E::kSize);
    E::Encode(p, batch.repetition_counts[size_t(i)], reference.data());
    for (int k = 0; k < E::kSize; ++k) {
      ASSERT_EQ(planes[size_t(i) * E::kSize + k], reference[size_t(k)]) << "entry " << k;
      ASSERT_EQ(bf16[size_t(i) * E::kSize + k], FloatToBf16Bits(reference[size_t(k)]));
    }
    Position after = p;
    const int choice = choices[size_t(i)];
    if (choice >= 0 && choice < expected.size) G::ApplyMove(after, expected[choice]);
    ASSERT_EQ(G::FormatPosition(applied[size_t(i)]), G::FormatPosition(after));
    ASSERT_EQ(G::Hash(applied[size_t(i)]), G::Hash(after));
    ASSERT_EQ(G::ComputeHash(applied[size_t(i)]), G::ComputeHash(after));
    zero_moves += expected.size == 0;
    terminal += outcome.IsTerminal();
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

TEST(MoveListDigestTest, SeesOrderAndCount) {
  const Move a{1}, b{2};
  const Move ab[] = {a, b}, ba[] = {b, a};
  EXPECT_EQ(cuda::MoveListDigest(ab, 2), cuda::MoveListDigest(ab, 2));
  EXPECT_NE(cuda::MoveListDigest(ab, 2), cuda::MoveListDigest(ba, 2));
  EXPECT_NE(cuda::MoveListDigest(ab, 1), cuda::MoveListDigest(ab, 2));
  EXPECT_NE(cuda::MoveListDigest(ab, 0), cuda::MoveListDigest(ab, 1));
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

TEST(GatherPriorsTest, DistinctIndexSoftmaxSharedEquallyDenseAndCompact) {
  constexpr int kActions = 40, kMaxMoves = 12, kBatch = 64;
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> logits(size_t(kBatch) * kActions), wdl_logits(size_t(kBatch) * 3);
  for (float& x : logits) x = normal(rng);
  for (float& x : wdl_logits) x = normal(rng);
  std::vector<int32_t> indices(size_t(kBatch) * kMaxMoves, -5), counts(kBatch);
  std::vector<int32_t> offsets(1, 0);
  for (int i = 0; i < kBatch; ++i) {
    counts[size_t(i)] = i % 9 == 0 ? 0 : 1 + int(rng() % kMaxMoves);  // some with no moves
    for (int k = 0; k < counts[size_t(i)]; ++k) {
      // Few distinct indices, so collisions are common; now and then an invalid one.
      int32_t index = int32_t(rng() % 8) * 5;
      if (rng() % 25 == 0) index = kActions + 3;
      indices[size_t(i) * kMaxMoves + k] = index;
    }
    offsets.push_back(offsets.back() + counts[size_t(i)]);
  }
  std::vector<float> dense(size_t(kBatch) * kMaxMoves, -1.0f), compact(size_t(offsets.back()));
  std::vector<float> wdl(size_t(kBatch) * 3), wdl_compact(size_t(kBatch) * 3);
  cuda::CpuGatherPriors(logits.data(), kActions, indices.data(), kMaxMoves, counts.data(), kBatch,
                        true, nullptr, dense.data(), wdl_logits.data(), wdl.data());
  cuda::CpuGatherPriors(logits.data(), kActions, indices.data(), kMaxMoves, counts.data(), kBatch,
                        true, offsets.data(), compact.data(), wdl_logits.data(),
                        wdl_compact.data());
  // The host move source: the same indices compact at the offsets.
  std::vector<int32_t> host_indices;
  for (int i = 0; i < kBatch; ++i) {
    for (int k = 0; k < counts[size_t(i)]; ++k) {
      host_indices.push_back(indices[size_t(i) * kMaxMoves + k]);
    }
  }
  std::vector<float> host_priors(size_t(offsets.back()), -1.0f), wdl_host(size_t(kBatch) * 3);
  cuda::CpuGatherCompactPriors(logits.data(), kActions, host_indices.data(), offsets.data(), kBatch,
                               true, host_priors.data(), wdl_logits.data(), wdl_host.data());
  EXPECT_EQ(host_priors, compact);
  EXPECT_EQ(wdl_host, wdl);
  for (int i = 0; i < kBatch; ++i) {
    const std::vector<float> row(logits.begin() + i * kActions,
                                 logits.begin() + (i + 1) * kActions);
    const std::vector<int32_t> entry(indices.begin() + i * kMaxMoves,
                                     indices.begin() + i * kMaxMoves + counts[size_t(i)]);
    const std::vector<double> expected = ReferencePriors(row, entry);
    double sum = 0;
    for (int k = 0; k < counts[size_t(i)]; ++k) {
      EXPECT_NEAR(dense[size_t(i) * kMaxMoves + k], expected[size_t(k)], 1e-6);
      EXPECT_EQ(compact[size_t(offsets[size_t(i)] + k)], dense[size_t(i) * kMaxMoves + k]);
      sum += dense[size_t(i) * kMaxMoves + k];
    }
    bool any_valid = false;
    for (int32_t index : entry) any_valid |= index < kActions;
    if (any_valid) {
      EXPECT_NEAR(sum, 1.0, 1e-5);
    }
    // Untouched past the count.
    for (int k = counts[size_t(i)]; k < kMaxMoves; ++k) {
      EXPECT_EQ(dense[size_t(i) * kMaxMoves + k], -1.0f);
    }
    const float* v = &wdl_logits[size_t(i) * 3];
    const double m = std::max({v[0], v[1], v[2]});
    const double z = std::exp(v[0] - m) + std::exp(v[1] - m) + std::exp(v[2] - m);
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(wdl[size_t(i) * 3 + j], std::exp(v[j] - m) / z, 1e-6);
      EXPECT_EQ(wdl_compact[size_t(i) * 3 + j], wdl[size_t(i) * 3 + j]);
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

TEST(GatherPriorsTest, CompactWritesStayInsideTheirSlots) {
  // counts say 3 moves, the offsets leave room for 2: the third is not written.
  const std::vector<float> logits = {0.0f, 1.0f, 2.0f, 3.0f};
  const std::vector<int32_t> indices = {0, 1, 2}, counts = {3}, offsets = {0, 2};
  std::vector<float> priors = {-1.0f, -1.0f, -9.0f};
  cuda::CpuGatherPriors(logits.data(), 4, indices.data(), 3, counts.data(), 1, false,
                        offsets.data(), priors.data(), nullptr, nullptr);
  EXPECT_GT(priors[0], 0.0f);
  EXPECT_GT(priors[1], priors[0]);
  EXPECT_EQ(priors[2], -9.0f);
}

}  // namespace
}  // namespace vz
