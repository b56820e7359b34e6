#pragma once

// Match statistics: pentanomial pair counts, the Elo difference with its 95% interval, the
// sequential probability ratio test (SPRT) of fishtest, and maximum-likelihood ratings of a round
// robin (Bradley-Terry with the logistic Elo scale).
//
// Games come in pairs (one opening, each player once with each colour), so the unit of
// observation is the pair: its score for player 1 is 0, 1/2, 1, 3/2 or 2 points, counted in the
// five pentanomial bins. Pairs remove most of the opening's bias from the variance; this is what
// fishtest reports and tests on.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace vz {

// Expected score in [0, 1] for an Elo difference, and back. EloFromScore clamps the score to
// (0, 1) by 1e-6 so that a whitewash gives a large finite number instead of infinity.
double ScoreFromElo(double elo);
double EloFromScore(double score);

// Pentanomial counts: bin k holds the pairs in which player 1 scored k/2 points (k = 0..4).
struct Pentanomial {
  std::array<int64_t, 5> bins{};

  int64_t pairs() const;
  // Adds one pair; `points` is player 1's total over both games, in half points (0..4).
  void AddPair(int half_points);
  // Mean score per game in [0, 1] (0.5 when empty).
  double MeanScore() const;
  // Variance of the per-game score of one pair, i.e. of (pair points / 2), over the pairs.
  double PairVariance() const;
};

struct EloEstimate {
  double score = 0.5;    // mean score per game of player 1
  double elo = 0.0;      // Elo difference player 1 - player 2
  double elo_low = 0.0;  // 95% interval (score +- 1.96 standard errors, mapped to Elo)
  double elo_high = 0.0;
  // False when the interval says nothing: fewer than 2 pairs, or every pair scored the same
  // (zero sample variance, e.g. a whitewash), where the formula gives a zero-width interval.
  bool interval_defined = false;
};

// Elo difference with its 95% interval from pentanomial counts. With no pairs: all zero.
EloEstimate EstimateElo(const Pentanomial& pentanomial);

struct SprtParams {
  double elo0 = 0.0;    // H0: Elo difference = elo0 (logistic Elo)
  double elo1 = 5.0;    // H1: Elo difference = elo1
  double alpha = 0.05;  // false positive rate
  double beta = 0.05;   // false negative rate

  // Parses "elo0,elo1,alpha,beta". Throws vz::Error naming `text` on a bad field, alpha or beta
  // outside (0, 0.5), or elo0 >= elo1.
  static SprtParams Parse(const std::string& text);
  double LowerBound() const;  // log(beta / (1 - alpha)): accept H0 at or below
  double UpperBound() const;  // log((1 - beta) / alpha): accept H1 at or above
};

enum class SprtVerdict { kContinue, kAcceptH0, kAcceptH1 };

// Log-likelihood ratio of H1 against H0 for the pentanomial counts: the generalised SPRT of
// fishtest in its normal approximation, LLR = N (s1 - s0) (2 m - s0 - s1) / (2 v), with N pairs,
// m the mean per-game score, v the variance of a pair's per-game score and s0, s1 the expected
// scores of elo0, elo1. The variance is taken with a prior of one pseudo-pair spread evenly over
// the five bins (0.2 each), so that a short run of identical pairs (zero sample variance) cannot
// end the test after two pairs; its weight fades as pairs accumulate. 0 with fewer than 2 pairs.
double SprtLlr(const Pentanomial& pentanomial, const SprtParams& params);
SprtVerdict SprtDecide(double llr, const SprtParams& params);
const char* SprtVerdictName(SprtVerdict verdict);

// One pairing of a round robin: games between player i and player j, and i's points (win 1,
// draw 1/2).
struct PairingResult {
  int i = 0;
  int j = 0;
  int games = 0;
  double points_i = 0.0;
};

struct Rating {
  double elo = 0.0;
  double error = 0.0;  // standard error (1 sigma) from the inverse Fisher information
};

// Maximum-likelihood Bradley-Terry ratings on the Elo scale (P(i beats j) = ScoreFromElo(r_i -
// r_j), a draw counted as half a win and half a loss), anchored at ratings[anchor] = 0 (error 0).
// To keep a whitewash finite, every played pairing gets one virtual draw (a weak prior that pulls
// ratings together by at most about one game's worth). Newton iterations until the step is below
// 1e-6 Elo. Throws vz::Error on an index outside [0, num_players) or when some player is not
// connected to the anchor by played games.
std::vector<Rating> MaximumLikelihoodRatings(int num_players,
                                             const std::vector<PairingResult>& results, int anchor);

}  // namespace vz
