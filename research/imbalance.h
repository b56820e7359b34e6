#pragma once

// Piece values by imbalance matches (issue 30), after H. G. Muller's method for chess variants:
// games from the start position with pieces taken off, one side lacking piece X and the other
// piece Y (or nothing: X odds), played by one player against itself, each imbalance with either
// colour advantaged equally often. The scores give piece values through the same logistic model
// as the regression over positions of research/study.h (FitPieceValues): White's expected score
// of a game is sigmoid(intercept + sum over kinds of beta_kind * d_kind), with d the start's
// material difference White minus Black per kind; a value is beta_kind / beta_reference with its
// delta-method interval, standard errors clustered by opening pair (both games of a pair start
// from one position; a deterministic player plays the same game twice, which the clustering
// counts once).
//
// A sweep (the advantaged side wins every game) has no finite maximum-likelihood value: each
// imbalance adds one pseudo-draw in each orientation (a prior of one drawn game, as in the
// Agresti-Coull "add two" interval), so that its value stays finite and is a lower bound; such
// rows say so.
// Thread-safety: none shared; pure functions.

#include <cstdint>
#include <string>
#include <vector>

#include "research/pieces.h"
#include "research/statistics.h"
#include "research/study.h"

namespace vz::research {

// The side with the advantage keeps one piece of kind `kind` that its opponent lacks, and gives up
// one of kind `for_kind` that its opponent keeps (-1: gives up nothing, "X odds").
struct Imbalance {
  int kind = 0;
  int for_kind = -1;
};

// "knight against nothing" / "rook against bishop", with research/pieces.h names of G.
template <Game G>
std::string ImbalanceName(const Imbalance& imbalance) {
  const auto name = [](int kind) { return std::string(PieceTraits<G>::kNames[kind]); };
  return name(imbalance.kind) + " against " +
         (imbalance.for_kind < 0 ? std::string("nothing") : name(imbalance.for_kind));
}

// The imbalances a study plays for G: the odds of each kind both sides have at the start, and
// each such kind against the next weaker one by the baseline's values (kinds of equal baseline
// value too: Chaco Rex's bishop against knight). Draughts has only men at the start: man odds.
template <Game G>
std::vector<Imbalance> DefaultImbalances() {
  const PieceCounts start = PieceTraits<G>::Count(G::InitialPosition());
  std::vector<int> kinds;
  for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) {
    if (start.count[0][size_t(kind)] > 0 && start.count[1][size_t(kind)] > 0) kinds.push_back(kind);
  }
  std::stable_sort(kinds.begin(), kinds.end(), [](int a, int b) {
    return PieceTraits<G>::Baseline(a) < PieceTraits<G>::Baseline(b);
  });
  std::vector<Imbalance> imbalances;
  for (int kind : kinds) imbalances.push_back({kind, -1});
  for (size_t i = 1; i < kinds.size(); ++i) imbalances.push_back({kinds[i], kinds[i - 1]});
  return imbalances;
}

// `count` start positions of `imbalance` (position strings of G): opening i advantages White when
// i is even and Black when odd; the pieces taken off are chosen at random among their kind, then
// `random_plies` uniformly random plies are played that capture nothing and do not end the game
// (a fresh draw when they do). Throws vz::Error naming the imbalance when a side lacks the piece
// to take off, or when no such opening is found in 1000 tries (with the last try's reason).
template <Game G>
std::vector<std::string> ImbalanceOpenings(const Imbalance& imbalance, int count, int random_plies,
                                           uint64_t seed);

// The games of one imbalance, and the score of the advantaged side.
struct ImbalanceRow {
  std::string name;
  Imbalance imbalance;
  int64_t games = 0, wins = 0, draws = 0, losses = 0;  // of the advantaged side
  Interval score;      // its mean score over opening pairs (normal 95%); pairs are the unit
  bool sweep = false;  // it won (or lost) every game: the fit's value is a bound
};

struct ImbalanceStudy {
  std::string player;  // the player spec that played the games
  std::vector<ImbalanceRow> rows;
  PieceValueFit fit;  // the logistic model over all the games (rows: games, clusters: pairs)
};

// The study of `games` of one player, each labelled with its imbalance's name (StudyGame::label:
// the name, or any prefix, ": " and the name) and started from its opening (StudyGame::start);
// games 2k and 2k+1 of a label form a pair (arena/match.h). Rows in the order of `imbalances`.
// Throws vz::Error naming the game when its start does not parse or its material is not its
// imbalance's (one `kind` more and one `for_kind` less on one side).
template <Game G>
ImbalanceStudy StudyImbalances(const std::vector<Imbalance>& imbalances,
                               const std::vector<const StudyGame*>& games,
                               const std::string& player);

// The fit of the imbalance games' material and results: MaterialData with one row per game (the
// start's differences, White's score, the pair as cluster) and one pseudo-draw per imbalance and
// orientation (`pseudo_draws` differences, each its own cluster). Exposed for tests.
PieceValueFit FitImbalanceValues(MaterialData data,
                                 const std::vector<std::array<int, kMaxPieceKinds>>& pseudo_draws,
                                 const std::vector<std::string>& names,
                                 const std::vector<int>& baselines, const std::string& description);

// The piece values of two fits side by side (the regression's and the imbalance matches', or
// two players'): for each kind of `first`, both relative values; `differs` when both are
// estimated in the same units (the same reference kind, no fit error) and their 95% intervals
// do not overlap.
struct ValueComparison {
  std::string kind;
  bool first_estimated = false, second_estimated = false;
  Interval first, second;
  double baseline_relative = 0;
  bool differs = false;
};
std::vector<ValueComparison> CompareValues(const PieceValueFit& first, const PieceValueFit& second);

}  // namespace vz::research
