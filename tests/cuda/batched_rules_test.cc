// The CPU twin of the batched rules interface (cuda/batched_rules.h), checked against sources
// other than the calls it wraps: its move lists count the perft tables (tests/data/perft) and
// equal, as text, the legal moves of a GameState built from each position's text; its policy
// indices are the from square (and to square) read off each move's text, in the side to move's
// frame of the encoding headers; its planes at the start positions hold the piece counts of the
// rules pages plane by plane, worked out by hand; its bf16 rounding is round-to-nearest-even; and
// its compact prior gather is the distinct-index masked softmax of nets/torch_evaluator.h
// (computed in double here, and by hand on one entry). Positions of random games include terminal
// ones and ones without legal moves. Plain C++: runs without a GPU (label unit).

#include "cuda/batched_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/encodings.h"
#include "tests/cuda/random_positions.h"
#include "tests/engine/game_test_util.h"
#include "tests/engine/game_types.h"

namespace vz {
namespace {

using cuda::Bf16BitsToFloat;
using cuda::FloatToBf16Bits;

template <class G>
class BatchedRulesTest : public ::testing::Test {};
TYPED_TEST_SUITE(BatchedRulesTest, testing::AllGameTypes, testing::GameNames);

// Perft of `root` to `depth` >= 1 with every level's move lists from the twin (one batch per
// level) and the moves played by the game.
template <class G>
uint64_t TwinPerft(const typename G::Position& root, int depth) {
  std::vector<typename G::Position> level = {root};
  for (int ply = 1;; ++ply) {
    const int n = int(level.size());
    std::vector<Move> moves(size_t(n) * G::kMaxMoves);
    std::vector<int32_t> counts(static_cast<size_t>(n), -1);
    cuda::CpuLegalMoves<G>(level.data(), n, moves.data(), counts.data(), nullptr);
    if (ply == depth) {
      uint64_t total = 0;
      for (int32_t count : counts) total += uint64_t(count);
      return total;
    }
    std::vector<typename G::Position> next;
    for (int i = 0; i < n; ++i) {
      for (int k = 0; k < counts[size_t(i)]; ++k) {
        next.push_back(level[size_t(i)]);
        G::ApplyMove(next.back(), moves[size_t(i) * G::kMaxMoves + k]);
      }
    }
    level = std::move(next);
  }
}

TYPED_TEST(BatchedRulesTest, TwinMoveListsCountThePerftTables) {
  using G = TypeParam;
  int checked = 0;
  for (const testing::PerftEntry& entry : testing::ReadPerftTable(G::kName)) {
    if (entry.nodes > 100000) continue;
    const typename G::Position position =
        entry.fen == "startpos" ? G::InitialPosition() : G::ParsePosition(entry.fen);
    EXPECT_EQ(TwinPerft<G>(position, entry.depth), entry.nodes)
        << "depth " << entry.depth << " from " << entry.fen;
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

// The numbers in a text, in order ("c5c11" -> 5, 11; "6x15x24" -> 6, 15, 24).
std::vector<int> NumbersOf(const std::string& text) {
  std::vector<int> numbers;
  for (size_t i = 0; i < text.size();) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    int value = 0;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      value = value * 10 + (text[i] - '0');
    }
    numbers.push_back(value);
  }
  return numbers;
}

// The policy index that move text `text` must have, from the encoding headers' layouts:
// draughts: from * 32 + to (square number - 1), 1023 minus that for Black; the chess-like games:
// the policy layout's cell (PolicyPlane) is the from square's grid cell, row = rank - 1 and
// column = file, turned into the side to move's frame (Chad and Cuarenta: half a turn; Chaco
// Rex: mirrored across the middle rank), so this returns that cell and `IndexMatches` compares.
template <class G>
int ExpectedFromCell(const std::string& text, bool white) {
  using E = InputEncoding<G>;
  const char file = text.at(0);
  int column = file - 'a';
  if constexpr (std::is_same_v<G, chaco_rex::ChacoRexGame>) column -= file > 'k';  // no k file
  int row = NumbersOf(text).at(0) - 1;
  if (!white) {
    row = E::kHeight - 1 - row;
    if constexpr (!std::is_same_v<G, chaco_rex::ChacoRexGame>) column = E::kWidth - 1 - column;
  }
  return row * E::kWidth + column;
}

template <class G>
void ExpectIndexOfText(int32_t index, const std::string& text, bool white) {
  if constexpr (std::is_same_v<G, draughts::DraughtsGame>) {
    const std::vector<int> squares = NumbersOf(text);
    const int from_to = (squares.front() - 1) * 32 + (squares.back() - 1);
    EXPECT_EQ(index, white ? from_to : 1023 - from_to) << text;
  } else {
    EXPECT_EQ(InputEncoding<G>::PolicyPlane(index).cell, ExpectedFromCell<G>(text, white))
        << text << " index " << index;
  }
}

TYPED_TEST(BatchedRulesTest, TwinListsTheTextsLegalMovesWithTheirIndices) {
  using G = TypeParam;
  using Position = typename G::Position;
  testing::PositionBatch<G> batch = testing::PositionsFromRandomGames<G>(1500, 17);
  const int n = batch.size();
  std::vector<Move> moves(size_t(n) * G::kMaxMoves);
  std::vector<int32_t> counts(static_cast<size_t>(n)), indices(size_t(n) * G::kMaxMoves);
  cuda::CpuLegalMoves<G>(batch.positions.data(), n, moves.data(), counts.data(), indices.data());
  int zero_moves = 0;
  for (int i = 0; i < n; ++i) {
    const Position& p = batch.positions[size_t(i)];
    const std::string fen = G::FormatPosition(p);
    SCOPED_TRACE(fen);
    const GameState<G> game(G::ParsePosition(fen));
    const bool white = G::SideToMove(p) == Color::kWhite;
    ASSERT_EQ(counts[size_t(i)], game.legal_moves().size);
    std::set<int32_t> distinct;
    for (int k = 0; k < counts[size_t(i)]; ++k) {
      const Move move = moves[size_t(i) * G::kMaxMoves + k];
      const std::string text = G::FormatMove(p, move);
      ASSERT_EQ(text, G::FormatMove(game.position(), game.legal_moves()[k])) << "move " << k;
      const int32_t index = indices[size_t(i) * G::kMaxMoves + k];
      ASSERT_GE(index, 0);
      ASSERT_LT(index, G::kNumActions);
      ExpectIndexOfText<G>(index, text, white);
      distinct.insert(index);
    }
    if (!G::kActionsMayCollide) {
      EXPECT_EQ(int(distinct.size()), counts[size_t(i)]);
    }
    zero_moves += counts[size_t(i)] == 0;
  }
  EXPECT_GT(zero_moves, 0);  // the batch covers positions without moves
}

// Ones per input plane of the start position (repetition count 1; the repetition plane, if
// any, full with count 2), from the layout comments of engine/<game>/encoding.h and the setups of
// engine/<game>/game.h, by hand.
struct StartPlanes {
  std::vector<int> ones;  // [plane]
  int repetition_plane;   // -1: the repetition count is not an input
  int repetition_cells;   // cells of the repetition plane set with count 2
};

template <class G>
StartPlanes StartPlaneSums() {
  if constexpr (std::is_same_v<G, chaco_rex::ChacoRexGame>) {
    // rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR: 15 pawns, 2 knights,
    // 3 bishops, 2 rooks, a queen and a king each; 85 hexagons; no en passant.
    return {{15, 2, 3, 2, 1, 1, 15, 2, 3, 2, 1, 1, 85, 0, 0}, 14, 85};
  } else if constexpr (std::is_same_v<G, chad::ChadGame>) {
    // 8 rooks and a king each around the castles; castles of 9 squares, walls of 12; 144 cells.
    return {{8, 0, 1, 8, 0, 1, 9, 12, 9, 12, 144, 0}, 11, 144};
  } else if constexpr (std::is_same_v<G, cuarenta::CuarentaGame>) {
    // cffb/vgkgv/pppp/5/4/5/PPPP/VGKGV/BFFC w wb: a king, a bishop, 2 vaos, 2 guards, a camel,
    // 2 frogs, 4 pawns each; 40 real squares; both may castle; counter 0; White to move.
    return {{1, 1, 2, 2, 1, 2, 4, 1, 1, 2, 2, 1, 2, 4, 40, 40, 40, 0, 40}, -1, 0};
  } else {
    // 12 men each on the dark squares, 64 cells, counters 0.
    return {{12, 0, 12, 0, 64, 0, 0, 0}, 7, 64};
  }
}

TYPED_TEST(BatchedRulesTest, TwinPlanesOfTheStartPositionAreWorkedOutByHand) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  const StartPlanes expected = StartPlaneSums<G>();
  ASSERT_EQ(int(expected.ones.size()), E::kPlanes);
  const std::vector<typename G::Position> positions(2, G::InitialPosition());
  const std::vector<int32_t> repetitions = {1, 2};
  std::vector<float> planes(size_t(2) * E::kSize, -7.0f);
  cuda::CpuEncodeFloat<G>(positions.data(), 2, repetitions.data(), planes.data());
  std::vector<uint16_t> bf16(size_t(2) * E::kSize, 0xFFFF);
  cuda::CpuEncodeBf16<G>(positions.data(), 2, repetitions.data(), bf16.data());
  const int cells = E::kHeight * E::kWidth;
  for (int entry = 0; entry < 2; ++entry) {
    for (int plane = 0; plane < E::kPlanes; ++plane) {
      int ones = 0;
      for (int c = 0; c < cells; ++c) {
        const size_t at = size_t(entry) * E::kSize + size_t(plane) * cells + size_t(c);
        const float value = planes[at];
        ASSERT_TRUE(value == 0.0f || value == 1.0f) << "plane " << plane << " cell " << c;
        ASSERT_EQ(Bf16BitsToFloat(bf16[at]), value) << "plane " << plane << " cell " << c;
        ones += value == 1.0f;
      }
      const int want = entry == 1 && plane == expected.repetition_plane ? expected.repetition_cells
                                                                        : expected.ones[plane];
      EXPECT_EQ(ones, want) << "entry " << entry << " plane " << plane;
    }
  }
}

TYPED_TEST(BatchedRulesTest, TwinPlanesEqualTheTextsOnRandomPositions) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  testing::PositionBatch<G> batch = testing::PositionsFromRandomGames<G>(600, 23);
  const int n = batch.size();
  // Repetition counts 1..3 on some entries too, so the repetition planes vary.
  std::mt19937 rng(5);
  for (int i = 0; i < n; i += 7) batch.repetition_counts[size_t(i)] = 1 + int(rng() % 3);
  std::vector<float> planes(size_t(n) * E::kSize, -7.0f);
  cuda::CpuEncodeFloat<G>(batch.positions.data(), n, batch.repetition_counts.data(), planes.data());
  std::vector<uint16_t> bf16(size_t(n) * E::kSize, 0xFFFF);
  cuda::CpuEncodeBf16<G>(batch.positions.data(), n, batch.repetition_counts.data(), bf16.data());
  std::vector<float> reference(E::kSize);
  for (int i = 0; i < n; ++i) {
    const std::string fen = G::FormatPosition(batch.positions[size_t(i)]);
    SCOPED_TRACE(fen);
    E::Encode(G::ParsePosition(fen), batch.repetition_counts[size_t(i)], reference.data());
    for (int k = 0; k < E::kSize; ++k) {
      ASSERT_EQ(planes[size_t(i) * E::kSize + k], reference[size_t(k)]) << "entry " << k;
      ASSERT_EQ(bf16[size_t(i) * E::kSize + k], FloatToBf16Bits(reference[size_t(k)]));
    }
  }
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

TEST(GatherPriorsTest, CompactPriorsOfOneEntryByHand) {
  // Logits 0, ln 3, ln 6 at indices 0, 1, 3: exp gives 1, 3, 6, so the distinct indices get
  // 0.1, 0.3, 0.6; index 1 is shared by two moves (0.15 each); index 8 is past the policy (0).
  // Entry 1 has no moves, entry 2 one move (prior 1). WDL logits ln 1, ln 2, ln 7: 0.1, 0.2, 0.7.
  const float ln3 = std::log(3.0f), ln6 = std::log(6.0f);
  const std::vector<float> logits = {0.0f, ln3,  5.0f, ln6,  0.0f, 0.0f, 0.0f, 0.0f,  // entry 0
                                     1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f,  // entry 1
                                     9.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  const std::vector<int32_t> indices = {0, 1, 1, 3, 8, 0}, offsets = {0, 5, 5, 6};
  const std::vector<float> wdl_logits = {0.0f, std::log(2.0f), std::log(7.0f), 0.0f, 0.0f,
                                         0.0f, 0.0f,           0.0f,           0.0f};
  std::vector<float> priors(6, -1.0f), wdl(9, -1.0f);
  cuda::CpuGatherCompactPriors(logits.data(), 8, indices.data(), offsets.data(), 3, true,
                               priors.data(), wdl_logits.data(), wdl.data());
  const std::vector<float> expected = {0.1f, 0.15f, 0.15f, 0.6f, 0.0f, 1.0f};
  for (size_t k = 0; k < expected.size(); ++k) EXPECT_NEAR(priors[k], expected[k], 1e-6f) << k;
  EXPECT_NEAR(wdl[0], 0.1f, 1e-6f);
  EXPECT_NEAR(wdl[1], 0.2f, 1e-6f);
  EXPECT_NEAR(wdl[2], 0.7f, 1e-6f);
  for (size_t j = 3; j < 9; ++j) EXPECT_NEAR(wdl[j], 1.0f / 3.0f, 1e-6f) << j;
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
