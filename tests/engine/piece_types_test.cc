// The piece types of each game (engine/piece_types.h): over positions of random games with
// captures and promotions, each type's count is the number of its letters in the position string
// (FEN; in PDN, the numbered men and the K-marked kings), the difference is zero at the start and
// the opponent's view its negation, and the alpha-beta evaluation's material is the piece values
// stated in engine/alphabeta/evaluation.h's header times those counts. The names and letters are
// the rules pages' (../shared/rules/). That a rise of any other type comes with a fall of
// kPromotedFrom is tested over random games in tests/research/research_pieces_test.cc.

#include "engine/piece_types.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/alphabeta/evaluation.h"
#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "tests/engine/game_types.h"

namespace vz {
namespace {

template <class G>
class PieceTypesTest : public ::testing::Test {};
TYPED_TEST_SUITE(PieceTypesTest, testing::AllGameTypes, testing::GameNames);

constexpr bool kIsDraughts(std::string_view name) { return name == "portuguese-draughts"; }

// [colour][type] pieces counted in the position string `text`, by its own notation.
template <class G>
std::vector<std::vector<int>> CountsFromText(const std::string& text) {
  std::vector<std::vector<int>> counts(2, std::vector<int>(PieceTypes<G>::kNumTypes, 0));
  if constexpr (std::is_same_v<G, draughts::DraughtsGame>) {
    // "W:W1,2,K5:B21,...:H3" -- one number per piece, kings prefixed with K; other fields after.
    int colour = -1;
    for (size_t i = 1; i < text.size(); ++i) {
      if (text[i] == ':') {
        colour = text[i + 1] == 'W' ? 0 : text[i + 1] == 'B' ? 1 : -1;
        ++i;
      } else if (colour < 0) {
        continue;
      } else if (text[i] == 'K') {
        ++counts[size_t(colour)][1];
        while (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) ++i;
      } else if (std::isdigit(static_cast<unsigned char>(text[i]))) {
        ++counts[size_t(colour)][0];
        while (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]))) ++i;
      }
    }
  } else {
    const std::string placement = text.substr(0, text.find(' '));
    for (char c : placement) {
      for (int k = 0; k < PieceTypes<G>::kNumTypes; ++k) {
        if (c == PieceTypes<G>::kLetters[k]) ++counts[0][size_t(k)];
        if (c == PieceTypes<G>::kLetters[k] - 'A' + 'a') ++counts[1][size_t(k)];
      }
    }
  }
  return counts;
}

// Each type's name and FEN letter as the rules pages give them (draughts: no letters), and its
// centipawn value as evaluation.h's header comment states it, in ascending order of value.
struct StatedType {
  std::string name;
  char letter;
  int value;
};
template <class G>
std::vector<StatedType> StatedTypes() {
  if constexpr (std::is_same_v<G, chaco_rex::ChacoRexGame>) {
    return {{"pawn", 'P', 100},
            {"knight", 'N', 300},
            {"bishop", 'B', 300},
            {"rook", 'R', 500},
            {"queen", 'Q', 900}};
  } else if constexpr (std::is_same_v<G, chad::ChadGame>) {
    return {{"rook", 'R', 500}, {"queen", 'Q', 900}};
  } else if constexpr (std::is_same_v<G, cuarenta::CuarentaGame>) {
    return {{"pawn", 'P', 100},  {"guard", 'G', 250}, {"frog", 'F', 250},
            {"camel", 'C', 300}, {"vao", 'V', 300},   {"bishop", 'B', 350}};
  } else {
    return {{"man", 0, 100}, {"king", 0, 300}};
  }
}

TYPED_TEST(PieceTypesTest, NamesLettersAndValuesAreTheStatedOnes) {
  using G = TypeParam;
  using Types = PieceTypes<G>;
  const std::vector<StatedType> stated = StatedTypes<G>();
  ASSERT_EQ(size_t(Types::kNumTypes), stated.size());
  for (int k = 0; k < Types::kNumTypes; ++k) {
    EXPECT_EQ(Types::kNames[k], stated[size_t(k)].name) << k;
    EXPECT_EQ(EvalTraits<G>::kPieceValues[k], stated[size_t(k)].value) << stated[size_t(k)].name;
    if constexpr (!std::is_same_v<G, draughts::DraughtsGame>) {
      EXPECT_EQ(Types::kLetters[k], stated[size_t(k)].letter) << stated[size_t(k)].name;
    }
    if (k > 0) {
      EXPECT_GE(stated[size_t(k)].value, stated[size_t(k - 1)].value) << "ascending";
    }
  }
  EXPECT_EQ(Types::kPromotedFrom, 0);  // pawn, man, or Chad's rook
}

TYPED_TEST(PieceTypesTest, CountsAreThePositionStringsPiecesAndMaterialTheirValues) {
  using G = TypeParam;
  using Types = PieceTypes<G>;
  constexpr int kNumTypes = Types::kNumTypes;
  ASSERT_LE(kNumTypes, kMaxPieceTypes);
  int own[kNumTypes], other[kNumTypes];
  PieceCountDifference<G>(G::InitialPosition(), Color::kWhite, own);
  for (int k = 0; k < kNumTypes; ++k) EXPECT_EQ(own[k], 0) << Types::kNames[k];

  const std::vector<StatedType> stated = StatedTypes<G>();
  int unequal = 0, promoted = 0;  // positions with unequal material; with a promoted piece
  uint64_t seed = 17;
  for (int game_number = 0; game_number < 40; ++game_number) {
    GameState<G> game(G::InitialPosition());
    for (int ply = 0; ply < 150 && !game.outcome().IsTerminal(); ++ply) {
      const typename G::Position& p = game.position();
      const std::string text = G::FormatPosition(p);
      const std::vector<std::vector<int>> expected = CountsFromText<G>(text);
      for (int colour = 0; colour < 2; ++colour) {
        int counts[kNumTypes];
        Types::Count(p, Color(colour), counts);
        for (int k = 0; k < kNumTypes; ++k) {
          ASSERT_EQ(counts[k], expected[size_t(colour)][size_t(k)])
              << Types::kNames[k] << " of colour " << colour << " in " << text;
        }
      }
      PieceCountDifference<G>(p, Color::kWhite, own);
      PieceCountDifference<G>(p, Color::kBlack, other);
      int material = 0;
      bool zero = true;
      for (int k = 0; k < kNumTypes; ++k) {
        ASSERT_EQ(own[k], -other[k]) << Types::kNames[k] << " in " << text;
        zero = zero && own[k] == 0;
        material += stated[size_t(k)].value * own[k];
      }
      unequal += !zero;
      if constexpr (kIsDraughts(G::kName)) {
        // Draughts adds each man's tempo: kTempoPerRow per row advanced from its own back rank.
        for (int colour = 0; colour < 2; ++colour) {
          const uint32_t men = (colour == 0 ? p.white : p.black) & ~p.kings;
          for (uint32_t m = men; m != 0; m &= m - 1) {
            const int row = draughts::RowOf(__builtin_ctz(m));
            material += (colour == 0 ? 1 : -1) * EvalTraits<G>::kTempoPerRow *
                        (colour == 0 ? row : 7 - row);
          }
        }
      }
      ASSERT_EQ(material, EvalTraits<G>::Material(p)) << "game " << game_number << ": " << text;
      int start[kNumTypes], now[kNumTypes];
      for (int colour = 0; colour < 2; ++colour) {
        Types::Count(G::InitialPosition(), Color(colour), start);
        Types::Count(p, Color(colour), now);
        for (int k = 0; k < kNumTypes; ++k)
          promoted += k != Types::kPromotedFrom && now[k] > start[k];
      }
      const auto& moves = game.legal_moves();
      game.Play(moves[int((seed = SplitMix64(seed)) % uint64_t(moves.size))]);
    }
  }
  // Random games capture: most of these positions have unequal material.
  EXPECT_GT(unequal, 100);
  // Chaco Rex, Chad and draughts promote within 150 random plies; Cuarenta's pawns rarely do.
  if (!std::is_same_v<G, cuarenta::CuarentaGame>) {
    EXPECT_GT(promoted, 0);
  }
}

}  // namespace
}  // namespace vz
