#pragma once

// The statistics of a strategy study (research/study.h): a logistic regression fitted by Newton's
// method (iteratively reweighted least squares) with cluster-robust standard errors, the ratio of
// two of its coefficients with a delta-method interval, a score interval and the entropy of a
// distribution. Plain C++ over flat arrays; no state, thread-safe.
//
// The regression is the piece-value model of the AlphaZero chess-variants study (Tomasev, Paquet,
// Hassabis, Kramnik 2020): the probability that White wins a game, given a position of it, is
// logistic in the material difference per piece type, P(y = 1 | x) = 1 / (1 + exp(-x . beta)).
// A draw enters as y = 1/2 (the fractional-response logit of Papke and Wooldridge 1996, which the
// same Newton iterations maximise). Positions of one game share its result, so they are not
// independent: the standard errors are the sandwich (Huber-White) form clustered by game,
// H^-1 (sum over games g of u_g u_g^T) H^-1 * G / (G - 1), with H the Fisher information
// X^T diag(p (1 - p)) X and u_g the score sum_{i in g} x_i (y_i - p_i) of game g's rows.

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace vz::research {

struct LogisticFit {
  int features = 0;
  int64_t rows = 0;
  int64_t clusters = 0;
  std::vector<double> coefficients;     // [feature] beta
  std::vector<double> covariance;       // [feature][feature] cluster-robust, row-major
  std::vector<double> standard_errors;  // [feature] sqrt of covariance's diagonal
  std::vector<double> model_errors;     // [feature] from the inverse Fisher information alone
  double deviance = 0.0;                // -2 log-likelihood at beta
  int iterations = 0;
  // False when the iterations hit their limit, e.g. under complete separation (a feature that
  // predicts the result perfectly), where the coefficients grow without bound.
  bool converged = false;

  // Covariance of coefficients i and j.
  double Covariance(int i, int j) const { return covariance[size_t(i) * features + j]; }
};

// Fits P(y = 1 | x) = sigmoid(x . beta) by Newton's method from beta = 0, halving a step that
// does not lower the deviance, until the largest step is below 1e-9 (or `max_iterations`).
//   x         [rows][features] row-major (include a column of ones for an intercept)
//   y         [rows] in [0, 1]
//   clusters  [rows] cluster (game) id of each row, or empty: every row its own cluster
// Throws vz::Error on mismatched sizes, no rows, a y outside [0, 1] or not finite, a non-finite x,
// or a singular information matrix (a feature that never varies, or features that are linear
// combinations of others), naming the feature.
LogisticFit FitLogistic(std::span<const double> x, int features, std::span<const double> y,
                        std::span<const int64_t> clusters, int max_iterations = 100);

// An estimate with its 95% interval.
struct Interval {
  double value = 0.0;
  double low = 0.0;
  double high = 0.0;
};

// beta_numerator / beta_denominator with the delta-method 95% interval from the fit's covariance:
// var(r) = (var(a) - 2 r cov(a, b) + r^2 var(b)) / b^2. NaN fields when the denominator is 0.
Interval CoefficientRatio(const LogisticFit& fit, int numerator, int denominator);

// The mean score (win 1, draw 1/2, loss 0) of `wins + draws + losses` games with its 95% Wilson
// score interval, a draw counted as half a win (conservative when there are draws: a draw has less
// variance than half a win and half a loss). All 0.5 with no games.
Interval ScoreInterval(int64_t wins, int64_t draws, int64_t losses);

// The mean of `values` with its 95% interval (normal approximation, sample standard deviation:
// mean +- 1.96 s / sqrt(n)). All NaN with no values; the interval collapses to the mean with one.
Interval MeanInterval(std::span<const double> values);

// Pearson's correlation of x and y (equal sizes) with the 95% interval of Fisher's z transform,
// tanh(atanh(r) +- 1.96 / sqrt(n - 3)). NaN where it is undefined (fewer than 4 pairs for the
// interval, fewer than 2 for r, or a constant x or y). Throws vz::Error on unequal sizes.
Interval PearsonInterval(std::span<const double> x, std::span<const double> y);

// Spearman's rank correlation of x and y (Pearson's of their ranks, ties given their mean rank).
// NaN as PearsonInterval. Throws vz::Error on unequal sizes.
double SpearmanCorrelation(std::span<const double> x, std::span<const double> y);

// True when both intervals are finite and do not overlap: the two estimates differ beyond their
// 95% intervals.
bool IntervalsDisjoint(const Interval& a, const Interval& b);

// The statistic of `units` units (games) with its 95% percentile-bootstrap interval: `statistic`
// gets the indices of a sample of the units (the original sample first, then `resamples` drawn
// with replacement by a generator seeded with `seed`) and returns a number; non-finite
// resamples are dropped. All NaN with no units. Throws vz::Error for resamples < 100.
Interval BootstrapInterval(int64_t units,
                           const std::function<double(std::span<const int64_t>)>& statistic,
                           int resamples, uint64_t seed);

// Shannon entropy in bits of the distribution proportional to `counts` (0 when empty).
double EntropyBits(std::span<const int64_t> counts);

}  // namespace vz::research
