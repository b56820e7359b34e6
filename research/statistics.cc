#include "research/statistics.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <unordered_map>
#include <vector>

#include "engine/core/error.h"

namespace vz::research {
namespace {

constexpr double kZ95 = 1.959963984540054;

// The inverse of the symmetric positive definite n x n matrix `a` (row-major) by Gauss-Jordan
// elimination with partial pivoting. Throws vz::Error naming the feature of a pivot that vanishes
// (relative to the matrix's largest diagonal entry).
std::vector<double> Inverse(std::vector<double> a, int n) {
  std::vector<double> inverse(size_t(n) * n, 0.0);
  for (int i = 0; i < n; ++i) inverse[size_t(i) * n + i] = 1.0;
  double scale = 0.0;
  for (int i = 0; i < n; ++i) scale = std::max(scale, std::fabs(a[size_t(i) * n + i]));
  for (int column = 0; column < n; ++column) {
    int pivot = column;
    for (int row = column + 1; row < n; ++row) {
      if (std::fabs(a[size_t(row) * n + column]) > std::fabs(a[size_t(pivot) * n + column])) {
        pivot = row;
      }
    }
    if (!(std::fabs(a[size_t(pivot) * n + column]) > 1e-12 * scale)) {
      throw Error(fmt::format(
          "logistic regression: feature {} never varies or is a combination of the others",
          column));
    }
    if (pivot != column) {
      for (int k = 0; k < n; ++k) {
        std::swap(a[size_t(pivot) * n + k], a[size_t(column) * n + k]);
        std::swap(inverse[size_t(pivot) * n + k], inverse[size_t(column) * n + k]);
      }
    }
    const double d = a[size_t(column) * n + column];
    for (int k = 0; k < n; ++k) {
      a[size_t(column) * n + k] /= d;
      inverse[size_t(column) * n + k] /= d;
    }
    for (int row = 0; row < n; ++row) {
      if (row == column) continue;
      const double f = a[size_t(row) * n + column];
      if (f == 0.0) continue;
      for (int k = 0; k < n; ++k) {
        a[size_t(row) * n + k] -= f * a[size_t(column) * n + k];
        inverse[size_t(row) * n + k] -= f * inverse[size_t(column) * n + k];
      }
    }
  }
  return inverse;
}

double Sigmoid(double t) { return 1.0 / (1.0 + std::exp(-t)); }

// -2 log-likelihood of fractional outcomes y under beta.
double Deviance(std::span<const double> x, int features, std::span<const double> y,
                const std::vector<double>& beta) {
  double deviance = 0.0;
  for (size_t i = 0; i < y.size(); ++i) {
    double eta = 0.0;
    for (int f = 0; f < features; ++f) eta += x[i * size_t(features) + f] * beta[size_t(f)];
    // log p = -log(1 + e^-eta), log(1 - p) = -log(1 + e^eta), computed without overflow.
    const double log_p = -std::log1p(std::exp(-std::fabs(eta))) - std::max(0.0, -eta);
    const double log_q = -std::log1p(std::exp(-std::fabs(eta))) - std::max(0.0, eta);
    deviance -= 2.0 * (y[i] * log_p + (1.0 - y[i]) * log_q);
  }
  return deviance;
}

}  // namespace

LogisticFit FitLogistic(std::span<const double> x, int features, std::span<const double> y,
                        std::span<const int64_t> clusters, int max_iterations) {
  if (features < 1) throw Error("logistic regression: no features");
  const size_t rows = y.size();
  if (rows == 0) throw Error("logistic regression: no rows");
  if (x.size() != rows * size_t(features)) {
    throw Error(fmt::format("logistic regression: {} values of x for {} rows of {} features",
                            x.size(), rows, features));
  }
  if (!clusters.empty() && clusters.size() != rows) {
    throw Error(
        fmt::format("logistic regression: {} cluster ids for {} rows", clusters.size(), rows));
  }
  for (size_t i = 0; i < rows; ++i) {
    if (!(y[i] >= 0.0 && y[i] <= 1.0)) {
      throw Error(fmt::format("logistic regression: row {} has y = {}, not in [0, 1]", i, y[i]));
    }
  }
  for (size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      throw Error(fmt::format("logistic regression: row {} feature {} is not finite",
                              i / size_t(features), i % size_t(features)));
    }
  }
  const int n = features;
  LogisticFit fit;
  fit.features = n;
  fit.rows = int64_t(rows);
  std::vector<double> beta(size_t(n), 0.0);
  double deviance = Deviance(x, n, y, beta);
  std::vector<double> information(size_t(n) * n);
  std::vector<double> gradient(static_cast<size_t>(n));
  // Fills `information` (X^T W X) and `gradient` (X^T (y - p)) at `beta`.
  auto accumulate = [&](const std::vector<double>& b) {
    std::fill(information.begin(), information.end(), 0.0);
    std::fill(gradient.begin(), gradient.end(), 0.0);
    for (size_t i = 0; i < rows; ++i) {
      const double* row = &x[i * size_t(n)];
      double eta = 0.0;
      for (int f = 0; f < n; ++f) eta += row[f] * b[size_t(f)];
      const double p = Sigmoid(eta);
      const double w = p * (1.0 - p);
      for (int f = 0; f < n; ++f) {
        gradient[size_t(f)] += row[f] * (y[i] - p);
        for (int g = 0; g <= f; ++g) information[size_t(f) * n + g] += w * row[f] * row[g];
      }
    }
    for (int f = 0; f < n; ++f) {
      for (int g = 0; g < f; ++g) information[size_t(g) * n + f] = information[size_t(f) * n + g];
    }
  };
  for (fit.iterations = 0; fit.iterations < max_iterations;) {
    accumulate(beta);
    const std::vector<double> inverse = Inverse(information, n);
    std::vector<double> step(size_t(n), 0.0);
    double largest = 0.0;
    for (int f = 0; f < n; ++f) {
      for (int g = 0; g < n; ++g)
        step[size_t(f)] += inverse[size_t(f) * n + g] * gradient[size_t(g)];
      largest = std::max(largest, std::fabs(step[size_t(f)]));
    }
    ++fit.iterations;
    // Newton's step on a concave log-likelihood; halved while it does not lower the deviance
    // (far from the optimum a full step can overshoot).
    std::vector<double> next(beta);
    double next_deviance = deviance;
    for (double scale = 1.0; scale > 1e-6; scale *= 0.5) {
      for (int f = 0; f < n; ++f) next[size_t(f)] = beta[size_t(f)] + scale * step[size_t(f)];
      next_deviance = Deviance(x, n, y, next);
      if (next_deviance <= deviance + 1e-12 * std::max(1.0, deviance)) break;
    }
    beta = next;
    deviance = next_deviance;
    if (largest < 1e-9) {
      fit.converged = true;
      break;
    }
  }
  accumulate(beta);
  const std::vector<double> inverse = Inverse(information, n);
  // Sandwich: the scores summed per cluster.
  std::unordered_map<int64_t, std::vector<double>> scores;
  for (size_t i = 0; i < rows; ++i) {
    const double* row = &x[i * size_t(n)];
    double eta = 0.0;
    for (int f = 0; f < n; ++f) eta += row[f] * beta[size_t(f)];
    const double residual = y[i] - Sigmoid(eta);
    std::vector<double>& u = scores[clusters.empty() ? int64_t(i) : clusters[i]];
    u.resize(size_t(n), 0.0);
    for (int f = 0; f < n; ++f) u[size_t(f)] += row[f] * residual;
  }
  std::vector<double> meat(size_t(n) * n, 0.0);
  for (const auto& [id, u] : scores) {
    for (int f = 0; f < n; ++f) {
      for (int g = 0; g < n; ++g) meat[size_t(f) * n + g] += u[size_t(f)] * u[size_t(g)];
    }
  }
  const double groups = double(scores.size());
  const double correction = groups > 1 ? groups / (groups - 1) : 1.0;
  fit.covariance.assign(size_t(n) * n, 0.0);
  for (int f = 0; f < n; ++f) {
    for (int g = 0; g < n; ++g) {
      double sum = 0.0;
      for (int a = 0; a < n; ++a) {
        for (int b = 0; b < n; ++b) {
          sum += inverse[size_t(f) * n + a] * meat[size_t(a) * n + b] * inverse[size_t(b) * n + g];
        }
      }
      fit.covariance[size_t(f) * n + g] = correction * sum;
    }
  }
  fit.coefficients = beta;
  fit.clusters = int64_t(scores.size());
  fit.deviance = deviance;
  for (int f = 0; f < n; ++f) {
    fit.standard_errors.push_back(std::sqrt(std::max(0.0, fit.Covariance(f, f))));
    fit.model_errors.push_back(std::sqrt(std::max(0.0, inverse[size_t(f) * n + f])));
  }
  return fit;
}

Interval CoefficientRatio(const LogisticFit& fit, int numerator, int denominator) {
  const double a = fit.coefficients.at(size_t(numerator));
  const double b = fit.coefficients.at(size_t(denominator));
  if (b == 0.0) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan};
  }
  const double r = a / b;
  const double variance =
      (fit.Covariance(numerator, numerator) - 2.0 * r * fit.Covariance(numerator, denominator) +
       r * r * fit.Covariance(denominator, denominator)) /
      (b * b);
  const double half = kZ95 * std::sqrt(std::max(0.0, variance));
  return {r, r - half, r + half};
}

Interval ScoreInterval(int64_t wins, int64_t draws, int64_t losses) {
  const double n = double(wins + draws + losses);
  if (n <= 0) return {0.5, 0.5, 0.5};
  const double p = (double(wins) + 0.5 * double(draws)) / n;
  const double z2 = kZ95 * kZ95;
  const double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = kZ95 * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n);
  return {p, std::max(0.0, centre - half), std::min(1.0, centre + half)};
}

Interval MeanInterval(std::span<const double> values) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (values.empty()) return {nan, nan, nan};
  const double n = double(values.size());
  double sum = 0.0;
  for (double v : values) sum += v;
  const double mean = sum / n;
  if (values.size() == 1) return {mean, mean, mean};
  double squares = 0.0;
  for (double v : values) squares += (v - mean) * (v - mean);
  const double half = kZ95 * std::sqrt(squares / (n - 1) / n);
  return {mean, mean - half, mean + half};
}

Interval PearsonInterval(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) {
    throw Error(fmt::format("correlation: {} x values but {} y values", x.size(), y.size()));
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const size_t n = x.size();
  if (n < 2) return {nan, nan, nan};
  double mx = 0.0, my = 0.0;
  for (size_t i = 0; i < n; ++i) mx += x[i], my += y[i];
  mx /= double(n), my /= double(n);
  double sxy = 0.0, sxx = 0.0, syy = 0.0;
  for (size_t i = 0; i < n; ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  if (sxx <= 0 || syy <= 0) return {nan, nan, nan};
  const double r = std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
  if (n < 4 || std::abs(r) >= 1.0) return {r, n < 4 ? nan : r, n < 4 ? nan : r};
  const double z = std::atanh(r), half = kZ95 / std::sqrt(double(n) - 3.0);
  return {r, std::tanh(z - half), std::tanh(z + half)};
}

namespace {

// Ranks 1..n of `values`, ties given their mean rank.
std::vector<double> Ranks(std::span<const double> values) {
  std::vector<size_t> order(values.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double rank = (double(i) + double(j)) / 2.0 + 1.0;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

}  // namespace

double SpearmanCorrelation(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) {
    throw Error(fmt::format("correlation: {} x values but {} y values", x.size(), y.size()));
  }
  const std::vector<double> rx = Ranks(x), ry = Ranks(y);
  return PearsonInterval(rx, ry).value;
}

bool IntervalsDisjoint(const Interval& a, const Interval& b) {
  for (double x : {a.low, a.high, b.low, b.high}) {
    if (!std::isfinite(x)) return false;
  }
  return a.high < b.low || b.high < a.low;
}

Interval BootstrapInterval(int64_t units,
                           const std::function<double(std::span<const int64_t>)>& statistic,
                           int resamples, uint64_t seed) {
  if (resamples < 100) {
    throw Error(fmt::format("bootstrap: {} resamples are too few (at least 100)", resamples));
  }
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  if (units <= 0) return {kNan, kNan, kNan};
  std::vector<int64_t> sample(size_t(units), 0);
  std::iota(sample.begin(), sample.end(), int64_t{0});
  Interval result;
  result.value = statistic(sample);
  std::mt19937_64 generator(seed);
  std::uniform_int_distribution<int64_t> pick(0, units - 1);
  std::vector<double> values;
  values.reserve(size_t(resamples));
  for (int r = 0; r < resamples; ++r) {
    for (int64_t& unit : sample) unit = pick(generator);
    const double value = statistic(sample);
    if (std::isfinite(value)) values.push_back(value);
  }
  if (values.empty()) return {result.value, kNan, kNan};
  std::sort(values.begin(), values.end());
  const auto quantile = [&](double q) {
    const double at = q * double(values.size() - 1);
    const size_t below = size_t(std::floor(at));
    const size_t above = std::min(values.size() - 1, below + 1);
    return values[below] + (at - double(below)) * (values[above] - values[below]);
  };
  result.low = quantile(0.025);
  result.high = quantile(0.975);
  return result;
}

double EntropyBits(std::span<const int64_t> counts) {
  double total = 0.0;
  for (int64_t c : counts) total += double(c);
  if (total <= 0) return 0.0;
  double entropy = 0.0;
  for (int64_t c : counts) {
    if (c > 0) entropy -= double(c) / total * std::log2(double(c) / total);
  }
  return entropy;
}

}  // namespace vz::research
