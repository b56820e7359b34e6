// Piece counts by type (engine/piece_counts.h), the material head's target: zero at the start of
// every game, the opponent's view the negation of one's own, and, over positions of random games
// with captures and promotions, the same material as the alpha-beta evaluation counts with its
// own code (engine/alphabeta/evaluation.h: its piece values times the counted differences).

#include "engine/piece_counts.h"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "engine/alphabeta/evaluation.h"
#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "tests/engine/game_types.h"

namespace vz {
namespace {

template <class G>
class PieceCountsTest : public ::testing::Test {};
TYPED_TEST_SUITE(PieceCountsTest, testing::AllGameTypes, testing::GameNames);

// The centipawn value of each counted type in EvalTraits<G> (engine/alphabeta/evaluation.h), in
// PieceCounts<G>'s order.
template <class G>
std::vector<int> EvaluationValues() {
  if constexpr (std::is_same_v<G, chaco_rex::ChacoRexGame>) {
    return {100, 300, 300, 500, 900};
  } else if constexpr (std::is_same_v<G, chad::ChadGame>) {
    return {500, 900};
  } else if constexpr (std::is_same_v<G, cuarenta::CuarentaGame>) {
    return {350, 300, 250, 300, 250, 100};
  } else {
    return {};  // draughts: its material adds a tempo term per man (compared below otherwise)
  }
}

TYPED_TEST(PieceCountsTest, CountsAgreeWithTheEvaluationsMaterial) {
  using G = TypeParam;
  constexpr int kTypes = PieceCounts<G>::kTypes;
  int own[kTypes], other[kTypes];
  PieceCounts<G>::Difference(G::InitialPosition(), Color::kWhite, own);
  for (int k = 0; k < kTypes; ++k) EXPECT_EQ(own[k], 0) << PieceCounts<G>::kNames[k];

  const std::vector<int> values = EvaluationValues<G>();
  int changed = 0;  // positions whose counts are not all zero
  uint64_t seed = 17;
  for (int game_number = 0; game_number < 40; ++game_number) {
    GameState<G> game(G::InitialPosition());
    for (int ply = 0; ply < 150 && !game.outcome().IsTerminal(); ++ply) {
      const typename G::Position& p = game.position();
      PieceCounts<G>::Difference(p, Color::kWhite, own);
      PieceCounts<G>::Difference(p, Color::kBlack, other);
      int material = 0;
      bool zero = true;
      for (int k = 0; k < kTypes; ++k) {
        ASSERT_EQ(own[k], -other[k]) << PieceCounts<G>::kNames[k] << " at ply " << ply;
        zero = zero && own[k] == 0;
        if (!values.empty()) material += values[size_t(k)] * own[k];
      }
      changed += !zero;
      if constexpr (!std::is_same_v<G, draughts::DraughtsGame>) {
        ASSERT_EQ(material, EvalTraits<G>::Material(p))
            << "game " << game_number << " ply " << ply << ": " << G::FormatPosition(p);
      } else {
        // Draughts: the evaluation's material less its tempo term is 100 per man, 300 per king.
        int tempo = 0;
        for (int color = 0; color < 2; ++color) {
          const uint32_t men = (color == 0 ? p.white : p.black) & ~p.kings;
          for (uint32_t m = men; m != 0; m &= m - 1) {
            const int row = draughts::RowOf(__builtin_ctz(m));
            tempo +=
                (color == 0 ? 1 : -1) * EvalTraits<G>::kTempoPerRow * (color == 0 ? row : 7 - row);
          }
        }
        ASSERT_EQ(100 * own[0] + 300 * own[1], EvalTraits<G>::Material(p) - tempo)
            << G::FormatPosition(p);
      }
      const auto& moves = game.legal_moves();
      game.Play(moves[int((seed = SplitMix64(seed)) % uint64_t(moves.size))]);
    }
  }
  // Random games capture: most of these positions have unequal material.
  EXPECT_GT(changed, 100);
}

}  // namespace
}  // namespace vz
