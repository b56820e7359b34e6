// Priors from action logits and policy targets per action, with and without moves that share an
// action index.

#include <gtest/gtest.h>

#include <vector>

#include "engine/search/mcts.h"
#include "engine/search/policy.h"
#include "engine/search/uniform_evaluator.h"
#include "tests/engine/search/test_games.h"

namespace vz {
namespace {

using search_testing::TicTacToeGame;

// Tic-tac-toe whose action is the cell's column: three cells share each action.
struct ColumnTicTacToeGame : TicTacToeGame {
  static constexpr std::string_view kName = "column-tic-tac-toe";
  static constexpr int kNumActions = 3;
  static constexpr bool kActionsMayCollide = true;
  static int ActionIndex(const Position&, Move m) { return int(m.raw % 3); }
};
static_assert(Game<ColumnTicTacToeGame>);

TEST(SearchPolicyTest, PriorsFromLogitsWithoutCollisions) {
  const auto position = TicTacToeGame::ParsePosition("xx.oo.... x");
  TicTacToeGame::MoveList moves;
  TicTacToeGame::GenerateMoves(position, moves);
  std::vector<float> logits(9, 0.0f);
  logits[2] = std::log(3.0f);  // cell 2 three times as likely as each other legal cell
  logits[0] = 100.0f;          // an illegal action must not matter
  std::vector<float> priors(size_t(moves.size));
  PriorsFromActionLogits<TicTacToeGame>(
      position, std::span<const Move>(moves.moves, size_t(moves.size)), logits, priors);
  EXPECT_NEAR(priors[0], 3.0f / 7.0f, 1e-6f);  // moves: 2 5 6 7 8
  for (size_t i = 1; i < priors.size(); ++i) EXPECT_NEAR(priors[i], 1.0f / 7.0f, 1e-6f);
}

TEST(SearchPolicyTest, CollidingMovesShareTheirActionsPrior) {
  const auto position = ColumnTicTacToeGame::InitialPosition();
  ColumnTicTacToeGame::MoveList moves;
  ColumnTicTacToeGame::GenerateMoves(position, moves);
  std::vector<float> logits = {0.0f, std::log(2.0f), 0.0f};  // column b twice as likely
  std::vector<float> priors(9);
  PriorsFromActionLogits<ColumnTicTacToeGame>(position, std::span<const Move>(moves.moves, 9),
                                              logits, priors);
  for (int cell = 0; cell < 9; ++cell) {
    EXPECT_NEAR(priors[size_t(cell)], cell % 3 == 1 ? 0.5f / 3.0f : 0.25f / 3.0f, 1e-6f);
  }
  // The search keeps the nine moves as children and folds the target into three actions.
  Mcts<ColumnTicTacToeGame> search;
  UniformEvaluator<ColumnTicTacToeGame> evaluator;
  search.Search(evaluator, 300);
  const SearchResult result = search.Result();
  ASSERT_EQ(result.moves.size(), 9u);
  const auto target = PolicyTargetByAction(result);
  ASSERT_EQ(target.size(), 3u);
  double total = 0.0;
  for (int action = 0; action < 3; ++action) {
    EXPECT_EQ(target[size_t(action)].first, action);
    float expected = 0.0f;
    for (const RootMoveStats& stats : result.moves) {
      if (stats.action == action) expected += stats.policy_target;
    }
    EXPECT_NEAR(target[size_t(action)].second, expected, 1e-6f);
    total += target[size_t(action)].second;
  }
  EXPECT_NEAR(total, 1.0, 1e-5);
}

}  // namespace
}  // namespace vz
