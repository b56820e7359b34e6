// The net diagnostics of research/net_diagnostics.h: piece removal in every game's position
// strings (hand-written expectations), the correlation statistics (worked by hand), and the
// diagnostics of two stand-in evaluators whose answers are known: one whose value is the
// material balance, which must rank the pieces and agree with alpha-beta, and the uniform one,
// which knows nothing.

#include "research/net_diagnostics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/alphabeta/evaluation.h"
#include "engine/games.h"
#include "engine/search/uniform_evaluator.h"
#include "tests/test_util.h"

namespace vz::research {
namespace {

using ChacoRex = chaco_rex::ChacoRexGame;
using vz::testing::ErrorOf;

TEST(NetDiagnosticsTest, WithoutPieceEditsEachGamesPositionString) {
  const std::string chaco =
      "rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR w - 0 1";
  EXPECT_EQ(WithoutPiece<ChacoRex>(chaco, 0, 4, 0),
            "rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNB1BKBNR w - 0 1");
  EXPECT_EQ(WithoutPiece<ChacoRex>(chaco, 0, 0, 0),
            "rnbqbkbnr/pppppppppp/2ppppp2/10/9/10/3PPPP2/PPPPPPPPPP/RNBQBKBNR w - 0 1");
  EXPECT_EQ(WithoutPiece<ChacoRex>(chaco, 1, 1, 1),
            "rnbqbkb1r/pppppppppp/2ppppp2/10/9/10/2PPPPP2/PPPPPPPPPP/RNBQBKBNR w - 0 1");
  EXPECT_EQ(WithoutPiece<ChacoRex>(chaco, 1, 4, 1), "");  // one black queen only
  const std::string chad = "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w 0 1";
  EXPECT_EQ(WithoutPiece<chad::ChadGame>(chad, 0, 0, 4),
            "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RK8/2RRR7/12/12 w 0 1");
  EXPECT_EQ(WithoutPiece<chad::ChadGame>(chad, 0, 1, 0), "");  // no queen yet
  const std::string cuarenta = "cffb/vgkgv/pppp/5/4/5/PPPP/VGKGV/BFFC w wb 0 1";
  EXPECT_EQ(WithoutPiece<cuarenta::CuarentaGame>(cuarenta, 0, 5, 0),
            "cffb/vgkgv/pppp/5/4/5/PPPP/VGKGV/1FFC w wb 0 1");
  EXPECT_EQ(WithoutPiece<cuarenta::CuarentaGame>(cuarenta, 1, 1, 1),
            "cffb/vgk1v/pppp/5/4/5/PPPP/VGKGV/BFFC w wb 0 1");
  const std::string draughts = "W:W1,2,3:BK21,22";
  EXPECT_EQ(WithoutPiece<draughts::DraughtsGame>(draughts, 1, 1, 0), "W:W1,2,3:B22");
  EXPECT_EQ(WithoutPiece<draughts::DraughtsGame>(draughts, 0, 0, 1), "W:W1,3:BK21,22");
  EXPECT_EQ(WithoutPiece<draughts::DraughtsGame>(draughts, 0, 1, 0), "");
}

TEST(NetDiagnosticsTest, CorrelationsAndMeansAreTheTextbooks) {
  const std::vector<double> x = {1, 2, 3, 4, 5}, y = {2, 4, 5, 4, 5};
  // r = 6 / sqrt(10 * 6); Fisher: tanh(atanh(r) -+ 1.96 / sqrt(2)).
  const Interval r = PearsonInterval(x, y);
  EXPECT_NEAR(r.value, 0.7745967, 1e-6);
  EXPECT_NEAR(r.low, -0.34013, 1e-4);
  EXPECT_NEAR(r.high, 0.98430, 1e-4);
  // Ranks of y: 1, 2.5, 4.5, 2.5, 4.5: r = 7 / sqrt(10 * 9).
  EXPECT_NEAR(SpearmanCorrelation(x, y), 0.7378648, 1e-6);
  const std::vector<double> constant = {3, 3, 3, 3, 3}, short_y = {1, 2};
  EXPECT_TRUE(std::isnan(PearsonInterval(x, constant).value));
  EXPECT_EQ(ErrorOf([&] { PearsonInterval(x, short_y); }),
            "correlation: 5 x values but 2 y values");
  const std::vector<double> values = {1, 2, 3};
  const Interval mean = MeanInterval(values);
  EXPECT_DOUBLE_EQ(mean.value, 2.0);
  EXPECT_NEAR(mean.low, 2.0 - 1.959964 / std::sqrt(3.0), 1e-6);
  EXPECT_NEAR(mean.high, 2.0 + 1.959964 / std::sqrt(3.0), 1e-6);
}

// Uniform priors; the value is the material balance of the side to move, squashed like an
// expected score (tanh(cp / 400)).
template <Game G>
class MaterialEvaluator final : public Evaluator<G> {
 public:
  void Evaluate(EvalBatch<G>& batch) override {
    for (int i = 0; i < batch.size(); ++i) {
      for (float& p : batch.priors(i)) p = 1.0f / float(batch.num_moves(i));
      const auto& p = batch.position(i);
      const int white = EvalTraits<G>::Material(p);
      const double value = std::tanh((G::SideToMove(p) == Color::kWhite ? white : -white) / 400.0);
      batch.value(i) = Wdl{float(std::max(0.0, value)), float(1 - std::abs(value)),
                           float(std::max(0.0, -value))};
    }
  }
};

TEST(NetDiagnosticsTest, AMaterialValueRanksThePiecesAndAgreesWithAlphaBeta) {
  NetDiagnosticsConfig config;
  config.positions = 40;
  config.opening_plies = 8;
  MaterialEvaluator<ChacoRex> evaluator;
  const NetDiagnostics d = DiagnoseNet<ChacoRex>(evaluator, config);
  EXPECT_EQ(d.positions, 40);
  EXPECT_EQ(d.judged_moves, 40);
  ASSERT_EQ(d.removal.size(), 5u);
  EXPECT_EQ(d.removal[0].piece, "pawn");
  EXPECT_EQ(d.removal[4].piece, "queen");
  for (const PieceRemoval& row : d.removal) EXPECT_GT(row.positions, 0) << row.piece;
  // tanh's slope is at most 1/400 a centipawn: a pawn drops it by at most 0.25, a queen by
  // more than a rook, a rook by more than a knight, a knight by more than a pawn.
  EXPECT_GT(d.removal[0].drop.low, 0.0);
  EXPECT_LT(d.removal[0].drop.high, 0.26);
  EXPECT_GT(d.removal[4].drop.value, d.removal[3].drop.value);
  EXPECT_GT(d.removal[3].drop.value, d.removal[1].drop.value);
  EXPECT_GT(d.removal[1].drop.value, d.removal[0].drop.value);
  EXPECT_GT(d.pearson.value, 0.5);
  EXPECT_GT(d.spearman, 0.5);

  UniformEvaluator<ChacoRex> uniform;
  const NetDiagnostics none = DiagnoseNet<ChacoRex>(uniform, config);
  for (const PieceRemoval& row : none.removal) EXPECT_EQ(row.drop.value, 0.0) << row.piece;
  EXPECT_TRUE(std::isnan(none.pearson.value));  // a constant value correlates with nothing
  // Same seed, same positions: the openings do not depend on the evaluator.
  EXPECT_EQ(none.removal[0].positions, d.removal[0].positions);
}

TEST(NetDiagnosticsTest, BadSettingsAreNamed) {
  UniformEvaluator<ChacoRex> uniform;
  NetDiagnosticsConfig config;
  config.positions = 1;
  EXPECT_EQ(ErrorOf([&] { DiagnoseNet<ChacoRex>(uniform, config); }),
            "net diagnose: positions = 1 is outside 2..1000000");
  config = {};
  config.judge_depth = 1;
  EXPECT_EQ(ErrorOf([&] { DiagnoseNet<ChacoRex>(uniform, config); }),
            "net diagnose: judge depth = 1 is outside 2..5");
}

}  // namespace
}  // namespace vz::research
