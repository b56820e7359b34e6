#include "arena/stats.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "engine/core/error.h"

namespace vz {

double ScoreFromElo(double elo) { return 1.0 / (1.0 + std::pow(10.0, -elo / 400.0)); }

double EloFromScore(double score) {
  const double s = std::clamp(score, 1e-6, 1.0 - 1e-6);
  return -400.0 * std::log10(1.0 / s - 1.0);
}

int64_t Pentanomial::pairs() const {
  int64_t n = 0;
  for (int64_t count : bins) n += count;
  return n;
}

void Pentanomial::AddPair(int half_points) {
  if (half_points < 0 || half_points > 4) throw Error("pair score outside 0..4 half points");
  ++bins[size_t(half_points)];
}

double Pentanomial::MeanScore() const {
  const int64_t n = pairs();
  if (n == 0) return 0.5;
  double sum = 0.0;
  for (int k = 0; k < 5; ++k) sum += double(bins[size_t(k)]) * (k / 4.0);
  return sum / double(n);
}

double Pentanomial::PairVariance() const {
  const int64_t n = pairs();
  if (n == 0) return 0.0;
  const double mean = MeanScore();
  double sum = 0.0;
  for (int k = 0; k < 5; ++k) {
    const double d = k / 4.0 - mean;
    sum += double(bins[size_t(k)]) * d * d;
  }
  return sum / double(n);
}

EloEstimate EstimateElo(const Pentanomial& pentanomial) {
  EloEstimate estimate;
  const int64_t n = pentanomial.pairs();
  if (n == 0) return estimate;
  estimate.score = pentanomial.MeanScore();
  const double standard_error = std::sqrt(pentanomial.PairVariance() / double(n));
  estimate.elo = EloFromScore(estimate.score);
  estimate.elo_low = EloFromScore(estimate.score - 1.959963985 * standard_error);
  estimate.elo_high = EloFromScore(estimate.score + 1.959963985 * standard_error);
  estimate.interval_defined = n >= 2 && standard_error > 0.0;
  return estimate;
}

SprtParams SprtParams::Parse(const std::string& text) {
  SprtParams params;
  double values[4];
  std::stringstream stream(text);
  std::string field;
  int count = 0;
  while (std::getline(stream, field, ',')) {
    if (count == 4) throw Error("--sprt '" + text + "': expected 4 fields elo0,elo1,alpha,beta");
    try {
      size_t used = 0;
      values[count] = std::stod(field, &used);
      if (used != field.size() || !std::isfinite(values[count])) throw Error("");
    } catch (const std::exception&) {
      throw Error("--sprt '" + text + "': field '" + field + "' is not a finite number");
    }
    ++count;
  }
  if (count != 4) throw Error("--sprt '" + text + "': expected 4 fields elo0,elo1,alpha,beta");
  params.elo0 = values[0];
  params.elo1 = values[1];
  params.alpha = values[2];
  params.beta = values[3];
  if (!(params.elo0 < params.elo1)) throw Error("--sprt '" + text + "': elo0 must be below elo1");
  if (!(params.alpha > 0 && params.alpha < 0.5 && params.beta > 0 && params.beta < 0.5)) {
    throw Error("--sprt '" + text + "': alpha and beta must lie in (0, 0.5)");
  }
  return params;
}

double SprtParams::LowerBound() const { return std::log(beta / (1.0 - alpha)); }
double SprtParams::UpperBound() const { return std::log((1.0 - beta) / alpha); }

double SprtLlr(const Pentanomial& pentanomial, const SprtParams& params) {
  const int64_t n = pentanomial.pairs();
  if (n < 2) return 0.0;
  // The variance gets a prior worth one pair spread evenly over the five bins: without it a
  // short run of identical pairs has zero variance and ends the test at once.
  double weight = 1.0, sum = 0.0, sum_squares = 0.0;
  for (int k = 0; k < 5; ++k) {
    const double count = double(pentanomial.bins[size_t(k)]) + 0.2;
    sum += count * (k / 4.0);
    sum_squares += count * (k / 4.0) * (k / 4.0);
    weight += double(pentanomial.bins[size_t(k)]);
  }
  const double prior_mean = sum / weight;
  const double variance = sum_squares / weight - prior_mean * prior_mean;
  const double mean = pentanomial.MeanScore();
  const double s0 = ScoreFromElo(params.elo0);
  const double s1 = ScoreFromElo(params.elo1);
  return double(n) * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * variance);
}

SprtVerdict SprtDecide(double llr, const SprtParams& params) {
  if (llr >= params.UpperBound()) return SprtVerdict::kAcceptH1;
  if (llr <= params.LowerBound()) return SprtVerdict::kAcceptH0;
  return SprtVerdict::kContinue;
}

const char* SprtVerdictName(SprtVerdict verdict) {
  switch (verdict) {
    case SprtVerdict::kAcceptH0: return "H0 accepted";
    case SprtVerdict::kAcceptH1: return "H1 accepted";
    case SprtVerdict::kContinue: break;
  }
  return "inconclusive";
}

namespace {

// Solves the symmetric positive definite system a x = b in place (Gauss-Jordan, small n).
std::vector<std::vector<double>> Inverse(std::vector<std::vector<double>> a) {
  const size_t n = a.size();
  std::vector<std::vector<double>> inv(n, std::vector<double>(n, 0.0));
  for (size_t i = 0; i < n; ++i) inv[i][i] = 1.0;
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    for (size_t r = col + 1; r < n; ++r) {
      if (std::abs(a[r][col]) > std::abs(a[pivot][col])) pivot = r;
    }
    if (std::abs(a[pivot][col]) < 1e-12)
      throw Error("ratings: players not connected to the anchor");
    std::swap(a[col], a[pivot]);
    std::swap(inv[col], inv[pivot]);
    const double d = a[col][col];
    for (size_t c = 0; c < n; ++c) {
      a[col][c] /= d;
      inv[col][c] /= d;
    }
    for (size_t r = 0; r < n; ++r) {
      if (r == col || a[r][col] == 0.0) continue;
      const double f = a[r][col];
      for (size_t c = 0; c < n; ++c) {
        a[r][c] -= f * a[col][c];
        inv[r][c] -= f * inv[col][c];
      }
    }
  }
  return inv;
}

}  // namespace

std::vector<Rating> MaximumLikelihoodRatings(int num_players,
                                             const std::vector<PairingResult>& results,
                                             int anchor) {
  if (num_players < 1 || anchor < 0 || anchor >= num_players) {
    throw Error("ratings: anchor outside the players");
  }
  for (const PairingResult& r : results) {
    if (r.i < 0 || r.i >= num_players || r.j < 0 || r.j >= num_players || r.i == r.j) {
      throw Error("ratings: pairing with a player index outside the players");
    }
  }
  // Natural-log scale internally: P(i beats j) = 1 / (1 + exp(-(x_i - x_j))).
  const double kEloPerUnit = 400.0 / std::log(10.0);
  std::vector<double> x(size_t(num_players), 0.0);
  // Free parameters: every player but the anchor.
  std::vector<int> free_index(size_t(num_players), -1);
  int num_free = 0;
  for (int p = 0; p < num_players; ++p) {
    if (p != anchor) free_index[size_t(p)] = num_free++;
  }
  std::vector<Rating> ratings(static_cast<size_t>(num_players));
  if (num_free == 0) return ratings;
  std::vector<std::vector<double>> fisher;
  for (int iteration = 0; iteration < 200; ++iteration) {
    std::vector<double> gradient(size_t(num_free), 0.0);
    fisher.assign(size_t(num_free), std::vector<double>(size_t(num_free), 0.0));
    for (const PairingResult& r : results) {
      if (r.games <= 0) continue;
      const double games = r.games + 1.0;  // one virtual draw per played pairing
      const double points = r.points_i + 0.5;
      const double p = 1.0 / (1.0 + std::exp(-(x[size_t(r.i)] - x[size_t(r.j)])));
      const double g = points - games * p;     // d loglik / d x_i
      const double h = games * p * (1.0 - p);  // information
      const int fi = free_index[size_t(r.i)];
      const int fj = free_index[size_t(r.j)];
      if (fi >= 0) {
        gradient[size_t(fi)] += g;
        fisher[size_t(fi)][size_t(fi)] += h;
      }
      if (fj >= 0) {
        gradient[size_t(fj)] -= g;
        fisher[size_t(fj)][size_t(fj)] += h;
      }
      if (fi >= 0 && fj >= 0) {
        fisher[size_t(fi)][size_t(fj)] -= h;
        fisher[size_t(fj)][size_t(fi)] -= h;
      }
    }
    const auto inverse = Inverse(fisher);
    double largest_step = 0.0;
    for (int p = 0; p < num_players; ++p) {
      const int f = free_index[size_t(p)];
      if (f < 0) continue;
      double step = 0.0;
      for (int c = 0; c < num_free; ++c)
        step += inverse[size_t(f)][size_t(c)] * gradient[size_t(c)];
      x[size_t(p)] += step;
      largest_step = std::max(largest_step, std::abs(step) * kEloPerUnit);
    }
    if (largest_step < 1e-6) break;
  }
  const auto inverse = Inverse(fisher);
  for (int p = 0; p < num_players; ++p) {
    ratings[size_t(p)].elo = x[size_t(p)] * kEloPerUnit;
    const int f = free_index[size_t(p)];
    ratings[size_t(p)].error = f < 0 ? 0.0 : std::sqrt(inverse[size_t(f)][size_t(f)]) * kEloPerUnit;
  }
  return ratings;
}

}  // namespace vz
