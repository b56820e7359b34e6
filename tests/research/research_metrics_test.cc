// The game metrics of research/metrics.h on hand-built game sets with known answers, the
// bootstrap interval of research/statistics.h, and the two-player comparison that flags a
// planted difference.

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numeric>

#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "research/metrics.h"

namespace vz::research {
namespace {

using draughts::DraughtsGame;

// A draughts game of `plies` plies from the initial position, each ply the first legal move, with
// the given result, ending and values.
StudyGame MakeGame(int plies, Status status, std::string ending, std::vector<float> values = {}) {
  StudyGame game;
  game.label = "test";
  GameState<DraughtsGame> state;
  game.start = DraughtsGame::FormatPosition(state.position());
  for (int ply = 0; ply < plies; ++ply) {
    EXPECT_FALSE(state.outcome().IsTerminal());
    const Move move = state.legal_moves().moves[0];
    game.moves.push_back(move);
    state.Play(move);
  }
  game.status = status;
  game.ending = std::move(ending);
  game.values = std::move(values);
  return game;
}

std::vector<const StudyGame*> Pointers(const std::vector<StudyGame>& games) {
  std::vector<const StudyGame*> out;
  for (const StudyGame& game : games) out.push_back(&game);
  return out;
}

double Value(const GameMetrics& metrics, const std::string& key) {
  const Metric* metric = FindMetric(metrics, key);
  EXPECT_NE(metric, nullptr) << key;
  return metric == nullptr ? NAN : metric->value.value;
}

bool Contains(const Interval& interval, double x) {
  return interval.low <= x + 1e-12 && x <= interval.high + 1e-12;
}

TEST(ResearchMetrics, CountsOfAKnownGameSet) {
  // White moves first in Portuguese draughts: 6 wins, 2 draws (one by a rule, one at the ply
  // limit), 2 losses (one at the ply limit); lengths 2, 4, ..., 20 plies.
  ASSERT_EQ(DraughtsGame::SideToMove(DraughtsGame::InitialPosition()), Color::kWhite);
  std::vector<StudyGame> games;
  const Status statuses[10] = {Status::kWhiteWins, Status::kWhiteWins, Status::kWhiteWins,
                               Status::kWhiteWins, Status::kWhiteWins, Status::kWhiteWins,
                               Status::kDraw,      Status::kDraw,      Status::kBlackWins,
                               Status::kBlackWins};
  const char* endings[10] = {
      "no-legal-move", "no-legal-move",        "no-legal-move", "resignation",  "no-legal-move",
      "adjudication",  "threefold-repetition", "adjudication",  "adjudication", "no-legal-move"};
  for (int g = 0; g < 10; ++g) games.push_back(MakeGame(2 * (g + 1), statuses[g], endings[g]));
  MetricsConfig config;
  const GameMetrics m = MeasureGames<DraughtsGame>(Pointers(games), "test", config);
  EXPECT_EQ(m.games, 10);
  EXPECT_NEAR(Value(m, "first_mover_advantage"), (6 + 0.5 * 2) / 10.0 - 0.5, 1e-12);
  EXPECT_NEAR(Value(m, "balance"), 1.0 - (6 - 2) / 10.0, 1e-12);
  EXPECT_NEAR(Value(m, "completion"), 0.7, 1e-12);
  EXPECT_NEAR(Value(m, "timeouts"), 0.3, 1e-12);
  EXPECT_NEAR(Value(m, "decisiveness"), 0.8, 1e-12);
  EXPECT_NEAR(Value(m, "drawishness"), 0.2, 1e-12);
  EXPECT_NEAR(Value(m, "draws_by_rules"), 0.1, 1e-12);
  EXPECT_NEAR(Value(m, "duration"), 11.0, 1e-12);
  double squares = 0;
  for (int g = 0; g < 10; ++g) squares += std::pow(2.0 * (g + 1) - 11.0, 2);
  EXPECT_NEAR(Value(m, "duration_spread"), std::sqrt(squares / 9), 1e-9);
  for (const Metric& metric : m.metrics) {
    if (std::isfinite(metric.value.value) && metric.key != "stability" &&
        metric.key != "lead_changes") {
      EXPECT_TRUE(Contains(metric.value, metric.value.value)) << metric.key;
      EXPECT_LT(metric.value.low, metric.value.high) << metric.key;
    }
  }
  EXPECT_EQ(FindMetric(m, "decision_moves"), nullptr);  // decision_every = 0
}

TEST(ResearchMetrics, TheFirstMoverIsTheSideToMoveAtTheGamesStart) {
  // Games that start after one ply: Black moves first in them, and Black wins all three.
  std::vector<StudyGame> games;
  for (int g = 0; g < 3; ++g) {
    StudyGame game = MakeGame(3, Status::kBlackWins, "no-legal-move");
    typename DraughtsGame::Position start = DraughtsGame::ParsePosition(game.start);
    DraughtsGame::ApplyMove(start, game.moves[0]);
    game.start = DraughtsGame::FormatPosition(start);
    game.moves.erase(game.moves.begin());
    games.push_back(game);
  }
  const GameMetrics m = MeasureGames<DraughtsGame>(Pointers(games), "after a ply", {});
  EXPECT_NEAR(Value(m, "first_mover_advantage"), 0.5, 1e-12);
  EXPECT_NEAR(Value(m, "balance"), 0.0, 1e-12);
}

TEST(ResearchMetrics, BranchingFactorIsTheMeanOfTheGamesMeans) {
  std::vector<StudyGame> games = {MakeGame(3, Status::kDraw, "adjudication"),
                                  MakeGame(1, Status::kDraw, "adjudication")};
  // The legal moves of the positions before each ply, counted here directly.
  GameState<DraughtsGame> state;
  std::vector<int> counts;
  for (int ply = 0; ply < 3; ++ply) {
    counts.push_back(state.legal_moves().size);
    state.Play(state.legal_moves().moves[0]);
  }
  const double first = (counts[0] + counts[1] + counts[2]) / 3.0, second = counts[0];
  const GameMetrics m = MeasureGames<DraughtsGame>(Pointers(games), "test", {});
  EXPECT_NEAR(Value(m, "branching_factor"), (first + second) / 2, 1e-12);
  ASSERT_EQ(m.branching_by_plies.size(), 1u);
  EXPECT_NEAR(m.branching_by_plies[0], (counts[0] * 2 + counts[1] + counts[2]) / 4.0, 1e-12);
}

TEST(ResearchMetrics, LeadChangesAndStabilityFollowTheValues) {
  // Leaders: White (0.3), keeps (0.1), Black (-0.25), White (0.5), NaN skipped, White (0.21).
  EXPECT_EQ(LeadChanges({0.0f, 0.3f, 0.1f, -0.25f, -0.5f, 0.5f, NAN, 0.21f}, 0.2), 2);
  EXPECT_EQ(LeadChanges({0.1f, -0.1f, 0.15f}, 0.2), 0);  // nobody ever leads
  EXPECT_EQ(LeadChanges({}, 0.2), 0);
  EXPECT_NEAR(MeanValueChange({0.1f, NAN, 0.3f, 0.0f}), 0.25, 1e-6);
  EXPECT_TRUE(std::isnan(MeanValueChange({0.1f, NAN})));
  std::vector<StudyGame> games = {
      MakeGame(4, Status::kWhiteWins, "no-legal-move", {0.3f, -0.3f, 0.3f, -0.3f}),
      MakeGame(4, Status::kWhiteWins, "no-legal-move", {0.0f, 0.0f, 0.1f, 0.1f})};
  const GameMetrics m = MeasureGames<DraughtsGame>(Pointers(games), "test", {});
  EXPECT_NEAR(Value(m, "lead_changes"), (3 + 0) / 2.0, 1e-12);
  EXPECT_NEAR(Value(m, "stability"), (0.6 + 0.1 / 3) / 2, 1e-6);
}

TEST(ResearchMetrics, DecisionMovesCountJudgedPositions) {
  std::vector<StudyGame> games = {MakeGame(6, Status::kDraw, "adjudication")};
  MetricsConfig config;
  config.decision_every = 2;
  config.decision_margin = 1000000;  // every move keeps the result: no decision move
  const GameMetrics m = MeasureGames<DraughtsGame>(Pointers(games), "test", config);
  const Metric* decisions = FindMetric(m, "decision_moves");
  ASSERT_NE(decisions, nullptr);
  // Plies 0, 2 and 4 are judged when the position has more than one legal move.
  GameState<DraughtsGame> state;
  int judged = 0;
  for (int ply = 0; ply < 6; ++ply) {
    judged += ply % 2 == 0 && state.legal_moves().size > 1;
    state.Play(state.legal_moves().moves[0]);
  }
  EXPECT_EQ(decisions->samples, judged);
  EXPECT_EQ(decisions->value.value, 0.0);
}

// A position with a mate in one among other moves: the mate alone keeps the result, whatever the
// margin short of a mate's score; its positions found by random play in Cuarenta, each checked by
// the rules (the move ends the game by checkmate) rather than by the search that judges them.
TEST(ResearchMetrics, AMateInOneIsADecisionMove) {
  using G = cuarenta::CuarentaGame;
  uint64_t random = 12345;
  std::vector<StudyGame> found;
  for (int game = 0; game < 20000 && found.size() < 3; ++game) {
    GameState<G> state;
    for (int ply = 0; ply < 200 && !state.outcome().IsTerminal(); ++ply) {
      const typename G::MoveList& moves = state.legal_moves();
      int mates = 0;
      for (Move move : moves) {
        GameState<G> after = state;
        after.Play(move);
        mates += after.outcome().reason == Reason::kCheckmate;
      }
      if (mates == 1 && moves.size > 1) {
        StudyGame study;
        study.label = "mate in one";
        study.start = G::FormatPosition(state.position());
        for (Move move : moves) {
          GameState<G> after = state;
          after.Play(move);
          if (after.outcome().reason == Reason::kCheckmate) study.moves = {move};
        }
        study.status = G::SideToMove(state.position()) == Color::kWhite ? Status::kWhiteWins
                                                                        : Status::kBlackWins;
        study.ending = "checkmate";
        found.push_back(study);
        break;
      }
      random = SplitMix64(random);
      state.Play(moves.moves[(random >> 32) * uint64_t(moves.size) >> 32]);
    }
  }
  ASSERT_EQ(found.size(), 3u) << "no mate-in-one positions in the random games";
  MetricsConfig config;
  config.decision_every = 1;
  config.decision_margin = 2000;  // far below a mate's score, far above any material swing here
  const GameMetrics m = MeasureGames<G>(Pointers(found), "mate in one", config);
  const Metric* decisions = FindMetric(m, "decision_moves");
  ASSERT_NE(decisions, nullptr);
  EXPECT_EQ(decisions->samples, 3);
  EXPECT_EQ(decisions->value.value, 1.0);
}

TEST(ResearchMetrics, BadConfigsNameTheirField) {
  std::vector<StudyGame> games = {MakeGame(2, Status::kDraw, "adjudication")};
  const auto message = [&](MetricsConfig config) {
    try {
      MeasureGames<DraughtsGame>(Pointers(games), "test", config);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  MetricsConfig config;
  config.lead_threshold = 1.5;
  EXPECT_NE(message(config).find("lead threshold"), std::string::npos);
  config = {};
  config.decision_depth = 9;
  EXPECT_NE(message(config).find("decision depth"), std::string::npos);
  config = {};
  config.bootstrap = 10;
  EXPECT_NE(message(config).find("bootstrap"), std::string::npos);
  config = {};
  games[0].moves.push_back(games[0].moves[0]);  // a move that is not legal there
  EXPECT_NE(message(config).find("not a legal move"), std::string::npos);
}

TEST(ResearchMetrics, BootstrapIntervalCoversTheMeanAndIsReproducible) {
  std::vector<double> x(200);
  std::iota(x.begin(), x.end(), 0.0);
  const auto mean = [&](std::span<const int64_t> sample) {
    double sum = 0;
    for (int64_t i : sample) sum += x[size_t(i)];
    return sum / double(sample.size());
  };
  const Interval a = BootstrapInterval(200, mean, 2000, 5);
  EXPECT_NEAR(a.value, 99.5, 1e-9);
  // The mean of 200 draws of 0..199 has standard error 57.7 / sqrt(200) = 4.08.
  EXPECT_NEAR(a.high - a.low, 2 * 1.96 * 4.08, 2.5);
  EXPECT_TRUE(Contains(a, 99.5));
  const Interval b = BootstrapInterval(200, mean, 2000, 5);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_TRUE(std::isnan(BootstrapInterval(0, mean, 100, 1).value));
  EXPECT_THROW(BootstrapInterval(10, mean, 99, 1), Error);
}

TEST(ResearchMetrics, TheComparisonFlagsAPlantedDifference) {
  // Player A's games are all decisive, player B's all drawn; their lengths are the same.
  std::vector<StudyGame> a, b;
  for (int g = 0; g < 40; ++g) {
    a.push_back(
        MakeGame(4 + g % 3, g % 2 ? Status::kWhiteWins : Status::kBlackWins, "no-legal-move"));
    b.push_back(MakeGame(4 + g % 3, Status::kDraw, "threefold-repetition"));
  }
  const GameMetrics ma = MeasureGames<DraughtsGame>(Pointers(a), "A", {});
  const GameMetrics mb = MeasureGames<DraughtsGame>(Pointers(b), "B", {});
  std::map<std::string, bool> differs;
  for (const PlayerFinding& finding : CompareMetrics(ma, mb))
    differs[finding.finding] = finding.differs;
  EXPECT_TRUE(differs.at("decisiveness"));
  EXPECT_TRUE(differs.at("drawishness"));
  EXPECT_FALSE(differs.at("duration"));
  EXPECT_FALSE(differs.at("completion"));
  EXPECT_FALSE(differs.at("first-mover advantage"));
  EXPECT_TRUE(IntervalsDisjoint({0.5, 0.4, 0.6}, {0.8, 0.7, 0.9}));
  EXPECT_FALSE(IntervalsDisjoint({0.5, 0.4, 0.6}, {0.65, 0.55, 0.75}));
  EXPECT_FALSE(IntervalsDisjoint({0.5, 0.4, 0.6}, {NAN, NAN, NAN}));
}

}  // namespace
}  // namespace vz::research
