// Imbalance matches (research/imbalance.h): the imbalances and their openings, the fit that
// recovers known piece values from synthetic scores, the rows' counts from the advantaged side,
// and the comparison of the two methods that flags a planted disagreement.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "engine/games.h"
#include "research/imbalance.h"

namespace vz::research {
namespace {

using chaco_rex::ChacoRexGame;
using draughts::DraughtsGame;

double Sigmoid(double t) { return 1.0 / (1.0 + std::exp(-t)); }

TEST(ResearchImbalance, TheDefaultImbalancesAreOddsAndNeighbours) {
  std::set<std::string> names;
  for (const Imbalance& imbalance : DefaultImbalances<ChacoRexGame>()) {
    names.insert(ImbalanceName<ChacoRexGame>(imbalance));
  }
  EXPECT_EQ(names, (std::set<std::string>{
                       "pawn against nothing", "knight against nothing", "bishop against nothing",
                       "rook against nothing", "queen against nothing", "knight against pawn",
                       "bishop against knight", "rook against bishop", "queen against rook"}))
      << "(assumes the baseline orders pawn < knight < bishop < rook < queen)";
  const std::vector<Imbalance> draughts = DefaultImbalances<DraughtsGame>();
  ASSERT_EQ(draughts.size(), 1u);
  EXPECT_EQ(ImbalanceName<DraughtsGame>(draughts[0]), "man against nothing");
}

template <class G>
void CheckOpenings(const Imbalance& imbalance, int random_plies) {
  const std::vector<std::string> openings = ImbalanceOpenings<G>(imbalance, 6, random_plies, 3);
  ASSERT_EQ(openings.size(), 6u);
  const PieceCounts start = PieceTraits<G>::Count(G::InitialPosition());
  for (size_t i = 0; i < openings.size(); ++i) {
    const typename G::Position position = G::ParsePosition(openings[i]);
    EXPECT_FALSE(GameState<G>(position).outcome().IsTerminal());
    const PieceCounts counts = PieceTraits<G>::Count(position);
    const int advantaged = int(i % 2), other = 1 - advantaged;
    for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) {
      const int lost_by_other = kind == imbalance.kind;
      const int lost_by_advantaged = kind == imbalance.for_kind;
      EXPECT_EQ(counts.count[size_t(other)][size_t(kind)],
                start.count[size_t(other)][size_t(kind)] - lost_by_other)
          << openings[i];
      EXPECT_EQ(counts.count[size_t(advantaged)][size_t(kind)],
                start.count[size_t(advantaged)][size_t(kind)] - lost_by_advantaged)
          << openings[i];
    }
    if (random_plies == 0) {
      EXPECT_EQ(G::SideToMove(position), G::SideToMove(G::InitialPosition()));
    }
  }
  EXPECT_EQ(openings, ImbalanceOpenings<G>(imbalance, 6, random_plies, 3));  // reproducible
}

TEST(ResearchImbalance, OpeningsLackExactlyTheImbalancesPieces) {
  for (const Imbalance& imbalance : DefaultImbalances<ChacoRexGame>()) {
    CheckOpenings<ChacoRexGame>(imbalance, 2);
  }
  CheckOpenings<ChacoRexGame>({3, 2}, 0);
  CheckOpenings<DraughtsGame>({0, -1}, 3);
  for (const Imbalance& imbalance : DefaultImbalances<chad::ChadGame>()) {
    CheckOpenings<chad::ChadGame>(imbalance, 2);
  }
  for (const Imbalance& imbalance : DefaultImbalances<cuarenta::CuarentaGame>()) {
    CheckOpenings<cuarenta::CuarentaGame>(imbalance, 2);
  }
  // Draughts has no king at the start to take off.
  EXPECT_THROW(ImbalanceOpenings<DraughtsGame>({1, -1}, 2, 0, 1), Error);
}

// Synthetic imbalance games with known logit values per kind (pawn 0.4, knight 1.2, rook 2.0:
// values 1 : 3 : 5), in pairs of two games from one orientation, with draws; White's edge 0.1.
TEST(ResearchImbalance, TheFitRecoversKnownValuesFromSyntheticScores) {
  const double beta[3] = {0.4, 1.2, 2.0};
  const std::vector<Imbalance> imbalances = {{0, -1}, {1, -1}, {2, -1}, {1, 0}, {2, 1}};
  std::mt19937_64 generator(11);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  MaterialData data;
  std::vector<std::array<int, kMaxPieceKinds>> pseudo;
  int64_t pair = 0;
  for (const Imbalance& imbalance : imbalances) {
    for (int p = 0; p < 4000; ++p, ++pair) {
      std::array<int, kMaxPieceKinds> d{};
      const int sign = p % 2 ? -1 : 1;  // the advantaged side: White, then Black
      d[size_t(imbalance.kind)] = sign;
      if (imbalance.for_kind >= 0) d[size_t(imbalance.for_kind)] = -sign;
      double eta = 0.1;
      for (int k = 0; k < 3; ++k) eta += beta[k] * d[size_t(k)];
      const double win = Sigmoid(eta);
      const double draw = 0.5 * std::min(win, 1.0 - win);
      for (int g = 0; g < 2; ++g) {
        const double u = uniform(generator);
        data.differences.push_back(d);
        data.scores.push_back(u < win - draw / 2 ? 1.0 : u < win + draw / 2 ? 0.5 : 0.0);
        data.game_ids.push_back(pair);
      }
    }
    std::array<int, kMaxPieceKinds> d{};
    d[size_t(imbalance.kind)] = 1;
    if (imbalance.for_kind >= 0) d[size_t(imbalance.for_kind)] = -1;
    pseudo.push_back(d);
    for (int& x : d) x = -x;
    pseudo.push_back(d);
  }
  const PieceValueFit fit =
      FitImbalanceValues(data, pseudo, {"pawn", "knight", "rook"}, {100, 300, 500}, "synthetic");
  ASSERT_EQ(fit.error, "");
  EXPECT_TRUE(fit.converged);
  EXPECT_EQ(fit.positions, 40000);
  EXPECT_EQ(fit.games, 20000);
  EXPECT_EQ(fit.reference, "pawn");
  EXPECT_NEAR(fit.intercept, 0.1, 0.1);
  for (int k = 1; k < 3; ++k) {
    const PieceValueRow& row = fit.rows[size_t(k)];
    const double truth = beta[k] / beta[0];
    EXPECT_LT(row.relative.low, truth) << row.kind;
    EXPECT_GT(row.relative.high, truth) << row.kind;
    EXPECT_NEAR(row.relative.value, truth, 0.15 * truth) << row.kind;
  }
}

TEST(ResearchImbalance, RowsCountFromTheAdvantagedSideAndFlagSweeps) {
  const Imbalance odds{1, -1};  // knight odds
  const std::vector<std::string> openings = ImbalanceOpenings<ChacoRexGame>(odds, 4, 0, 1);
  // Pairs 0 and 1 (games 0-3): opening 0 (White advantaged) then opening 1 (Black advantaged);
  // the advantaged side wins games 0, 1, 2 and draws game 3.
  std::vector<StudyGame> games(4);
  const Status statuses[4] = {Status::kWhiteWins, Status::kWhiteWins, Status::kBlackWins,
                              Status::kDraw};
  for (int g = 0; g < 4; ++g) {
    games[size_t(g)].label = ImbalanceName<ChacoRexGame>(odds);
    games[size_t(g)].index = g;
    games[size_t(g)].start = openings[size_t(g / 2)];
    games[size_t(g)].status = statuses[g];
  }
  // Another imbalance whose every game the advantaged side wins.
  const Imbalance queen{4, -1};
  const std::vector<std::string> queen_openings = ImbalanceOpenings<ChacoRexGame>(queen, 2, 0, 1);
  for (int g = 0; g < 4; ++g) {
    StudyGame game;
    game.label = ImbalanceName<ChacoRexGame>(queen);
    game.index = g;
    game.start = queen_openings[size_t(g / 2)];
    game.status = g / 2 == 0 ? Status::kWhiteWins : Status::kBlackWins;
    games.push_back(game);
  }
  std::vector<const StudyGame*> pointers;
  for (const StudyGame& game : games) pointers.push_back(&game);
  const ImbalanceStudy study = StudyImbalances<ChacoRexGame>({odds, queen}, pointers, "p");
  ASSERT_EQ(study.rows.size(), 2u);
  const ImbalanceRow& row = study.rows[0];
  EXPECT_EQ(row.name, "knight against nothing");
  EXPECT_EQ(row.games, 4);
  EXPECT_EQ(row.wins, 3);
  EXPECT_EQ(row.draws, 1);
  EXPECT_EQ(row.losses, 0);
  EXPECT_NEAR(row.score.value, (1.0 + 0.75) / 2, 1e-12);  // the mean of the pairs' means
  EXPECT_FALSE(row.sweep);
  EXPECT_TRUE(study.rows[1].sweep);
  EXPECT_EQ(study.fit.positions, 8);
  EXPECT_EQ(study.fit.games, 4);
  // The pseudo-draws keep the sweep's value finite.
  EXPECT_TRUE(std::isfinite(study.fit.rows[4].coefficient)) << study.fit.error;
  EXPECT_GT(study.fit.rows[4].coefficient, 0);
}

TEST(ResearchImbalance, TheTwoMethodsComparisonFlagsAPlantedDisagreement) {
  PieceValueFit regression, imbalance;
  regression.reference = imbalance.reference = "pawn";
  for (const char* kind : {"pawn", "knight", "rook"}) {
    regression.rows.push_back({kind, true, 0, 0, {1, 1, 1}, 100, 1});
    imbalance.rows.push_back({kind, true, 0, 0, {1, 1, 1}, 100, 1});
  }
  regression.rows[1].relative = {3.0, 2.8, 3.2};
  imbalance.rows[1].relative = {5.0, 4.5, 5.5};  // disagrees
  regression.rows[2].relative = {5.0, 4.0, 6.0};
  imbalance.rows[2].relative = {5.5, 4.5, 6.5};  // agrees within the intervals
  const std::vector<ValueComparison> rows = CompareValues(regression, imbalance);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_TRUE(rows[1].first_estimated && rows[1].second_estimated);
  EXPECT_EQ(rows[1].first.value, 3.0);
  EXPECT_EQ(rows[1].second.value, 5.0);
  EXPECT_FALSE(rows[0].differs);  // the reference: both exactly 1
  EXPECT_TRUE(rows[1].differs);
  EXPECT_FALSE(rows[2].differs);
  imbalance.reference = "knight";  // other units: not compared
  EXPECT_FALSE(CompareValues(regression, imbalance)[1].differs);
}

}  // namespace
}  // namespace vz::research
