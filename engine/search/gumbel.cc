#include "engine/search/gumbel.h"

#include <algorithm>
#include <cmath>

namespace vz {

int32_t ConsideredVisits(int max_num_considered, int64_t num_simulations, int64_t simulation) {
  if (max_num_considered <= 1) return int32_t(simulation);
  // In every phase the remaining moves have the same visit count `visits` (they are a prefix of
  // the considered moves, all visited alike), so an entry is `visits` plus its offset within the
  // phase divided by the number of remaining moves.
  const int64_t log2max = int64_t(std::ceil(std::log2(double(max_num_considered))));
  int64_t num_considered = max_num_considered;
  int64_t visits = 0;
  int64_t offset = simulation;
  for (;;) {
    const int64_t extra = std::max<int64_t>(1, num_simulations / (log2max * num_considered));
    const int64_t length = extra * num_considered;
    if (num_considered == 2) {
      // Phases of 2 repeat to the end: skip the whole ones at once.
      visits += offset / length * extra;
      offset %= length;
    }
    if (offset < length) return int32_t(visits + offset / num_considered);
    offset -= length;
    visits += extra;
    num_considered = std::max<int64_t>(2, num_considered / 2);
  }
}

std::vector<int> ConsideredVisitSequence(int max_num_considered, int num_simulations) {
  std::vector<int> sequence(size_t(std::max(num_simulations, 0)));
  for (int s = 0; s < num_simulations; ++s) {
    sequence[size_t(s)] = ConsideredVisits(max_num_considered, num_simulations, s);
  }
  return sequence;
}

float PriorLogit(float prior) { return std::log(std::max(prior, 1e-30f)); }

void CompletedQSigma(std::span<const float> q, std::span<const int32_t> visits,
                     std::span<const float> priors, float raw_value, float c_visit, float c_scale,
                     std::span<float> sigma) {
  const size_t n = q.size();
  double sum_visits = 0.0, sum_probs = 0.0, weighted = 0.0;
  int32_t max_visits = 0;
  for (size_t i = 0; i < n; ++i) {
    if (visits[i] <= 0) continue;
    const double prior = std::max(double(priors[i]), 1e-30);
    sum_visits += visits[i];
    sum_probs += prior;
    weighted += prior * q[i];
    max_visits = std::max(max_visits, visits[i]);
  }
  const double mixed = sum_probs > 0.0
                           ? (raw_value + sum_visits * (weighted / sum_probs)) / (sum_visits + 1.0)
                           : double(raw_value);
  float low = 0.0f, high = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    sigma[i] = visits[i] > 0 ? q[i] : float(mixed);
    low = i == 0 ? sigma[i] : std::min(low, sigma[i]);
    high = i == 0 ? sigma[i] : std::max(high, sigma[i]);
  }
  const float range = std::max(high - low, 1e-8f);
  const float scale = (c_visit + float(max_visits)) * c_scale;
  for (size_t i = 0; i < n; ++i) sigma[i] = scale * (sigma[i] - low) / range;
}

void ImprovedPolicy(std::span<const float> priors, std::span<const float> sigma,
                    std::span<float> policy) {
  const size_t n = priors.size();
  float high = -1e30f;
  for (size_t i = 0; i < n; ++i) {
    policy[i] = PriorLogit(priors[i]) + sigma[i];
    high = std::max(high, policy[i]);
  }
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) {
    policy[i] = std::exp(policy[i] - high);
    total += policy[i];
  }
  for (size_t i = 0; i < n; ++i) policy[i] = float(policy[i] / total);
}

}  // namespace vz
