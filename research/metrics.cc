#include "research/metrics.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/alphabeta/alphabeta.h"
#include "engine/games.h"
#include "research/net_diagnostics.h"

namespace vz::research {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// A share of `n` as a metric: Wilson interval of `count` successes.
Metric Share(std::string key, std::string name, std::string definition, int64_t count, int64_t n) {
  Metric metric{std::move(key), std::move(name), std::move(definition), {kNan, kNan, kNan}, n};
  if (n > 0) metric.value = ScoreInterval(count, 0, n - count);
  return metric;
}

// What one game contributes to the metrics that replay it.
struct Replayed {
  double mean_branching = kNan;
  std::vector<int> branching;  // [ply] legal moves of the position before it
  int64_t decision_positions = 0, decisions = 0;
};

template <Game G>
Replayed Replay(const StudyGame& game, const MetricsConfig& config, AlphaBeta<G>& judge) {
  Replayed out;
  typename G::Position position;
  try {
    position = G::ParsePosition(game.start);
  } catch (const Error& e) {
    throw Error(fmt::format("metrics: {} game {}: {}", game.label, game.index + 1, e.what()));
  }
  double total = 0;
  for (size_t ply = 0; ply <= game.moves.size(); ++ply) {
    typename G::MoveList moves;
    G::GenerateMoves(position, moves);
    if (ply == game.moves.size()) break;  // the final position has no move played from it
    out.branching.push_back(int(moves.size));
    total += moves.size;
    if (config.decision_every > 0 && ply % size_t(config.decision_every) == 0 && moves.size > 1) {
      std::vector<int> scores;
      for (Move move : moves)
        scores.push_back(JudgeMove(judge, position, move, config.decision_depth - 1));
      const int best = *std::max_element(scores.begin(), scores.end());
      const auto keeping = std::count_if(scores.begin(), scores.end(), [&](int score) {
        return score >= best - config.decision_margin;
      });
      ++out.decision_positions;
      out.decisions += keeping == 1;
    }
    const Move move = game.moves[ply];
    if (std::find(moves.begin(), moves.end(), move) == moves.end()) {
      throw Error(fmt::format("metrics: {} game {}: ply {} is not a legal move", game.label,
                              game.index + 1, ply + 1));
    }
    G::ApplyMove(position, move);
  }
  if (!out.branching.empty()) out.mean_branching = total / double(out.branching.size());
  return out;
}

}  // namespace

void CheckMetricsConfig(const MetricsConfig& c) {
  if (!(c.lead_threshold > 0 && c.lead_threshold < 1)) {
    throw Error(fmt::format("metrics: lead threshold {} is outside (0, 1)", c.lead_threshold));
  }
  if (c.decision_every < 0) {
    throw Error(fmt::format("metrics: decision every {} plies is negative", c.decision_every));
  }
  if (c.decision_depth < 2 || c.decision_depth > 4) {
    throw Error(fmt::format("metrics: decision depth {} is outside 2..4", c.decision_depth));
  }
  if (c.decision_margin < 0) {
    throw Error(fmt::format("metrics: decision margin {} is negative", c.decision_margin));
  }
  if (c.bootstrap < 100) {
    throw Error(
        fmt::format("metrics: {} bootstrap resamples are too few (at least 100)", c.bootstrap));
  }
}

const Metric* FindMetric(const GameMetrics& metrics, const std::string& key) {
  for (const Metric& metric : metrics.metrics) {
    if (metric.key == key) return &metric;
  }
  return nullptr;
}

int LeadChanges(const std::vector<float>& values, double threshold) {
  int leader = 0, changes = 0;  // +1 White, -1 Black, 0 nobody yet
  for (float value : values) {
    if (!std::isfinite(value)) continue;
    const int now = value > threshold ? 1 : value < -threshold ? -1 : 0;
    if (now == 0) continue;
    if (leader != 0 && now != leader) ++changes;
    leader = now;
  }
  return changes;
}

double MeanValueChange(const std::vector<float>& values) {
  double total = 0, previous = kNan;
  int64_t steps = 0;
  for (float value : values) {
    if (!std::isfinite(value)) continue;
    if (std::isfinite(previous)) {
      total += std::fabs(double(value) - previous);
      ++steps;
    }
    previous = value;
  }
  return steps > 0 ? total / double(steps) : kNan;
}

template <Game G>
GameMetrics MeasureGames(const std::vector<const StudyGame*>& games, const std::string& label,
                         const MetricsConfig& config) {
  CheckMetricsConfig(config);
  GameMetrics result;
  result.label = label;
  const int64_t n = int64_t(games.size());
  result.games = n;
  // Per game: +1 / 0 / -1 for the first mover's win, draw, loss.
  std::vector<int> first_mover(games.size());
  std::vector<double> lengths, leads, changes;
  int64_t completed = 0, decisive = 0, draws = 0, rule_draws = 0, timeouts = 0;
  int64_t mover_wins = 0, mover_losses = 0;
  std::vector<Replayed> replayed;
  AlphaBeta<G> judge(int64_t{1} << 16);
  for (size_t g = 0; g < games.size(); ++g) {
    const StudyGame& game = *games[g];
    if (game.status == Status::kOngoing) {
      throw Error(fmt::format("metrics: {} game {} has no result", game.label, game.index + 1));
    }
    replayed.push_back(Replay<G>(game, config, judge));
    const Color mover = G::SideToMove(G::ParsePosition(game.start));
    const int white = game.status == Status::kWhiteWins ? 1 : game.status == Status::kDraw ? 0 : -1;
    first_mover[g] = mover == Color::kWhite ? white : -white;
    mover_wins += first_mover[g] > 0;
    mover_losses += first_mover[g] < 0;
    const bool adjudicated = game.ending == "adjudication";
    completed += !adjudicated;
    timeouts += adjudicated;
    decisive += game.status != Status::kDraw;
    draws += game.status == Status::kDraw;
    rule_draws += game.status == Status::kDraw && !adjudicated;
    lengths.push_back(double(game.moves.size()));
    if (std::any_of(game.values.begin(), game.values.end(),
                    [](float value) { return std::isfinite(value); })) {
      leads.push_back(LeadChanges(game.values, config.lead_threshold));
    }
    const double change = MeanValueChange(game.values);
    if (std::isfinite(change)) changes.push_back(change);
  }

  Metric advantage{"first_mover_advantage",
                   "first-mover advantage",
                   "score of the side that moves first, minus 1/2 (Wilson 95%)",
                   {kNan, kNan, kNan},
                   n};
  if (n > 0) {
    const Interval score = ScoreInterval(mover_wins, n - mover_wins - mover_losses, mover_losses);
    advantage.value = {score.value - 0.5, score.low - 0.5, score.high - 0.5};
  }
  result.metrics.push_back(advantage);
  result.metrics.push_back(
      {"balance", "balance",
       "1 - |first mover's wins - second mover's wins| / games (bootstrap 95%)",
       BootstrapInterval(
           n,
           [&](std::span<const int64_t> sample) {
             int64_t difference = 0;
             for (int64_t g : sample) difference += first_mover[size_t(g)];
             return 1.0 - std::fabs(double(difference)) / double(sample.size());
           },
           config.bootstrap, config.seed),
       n});
  result.metrics.push_back(Share("completion", "completion",
                                 "share of games ended by the rules or a resignation", completed,
                                 n));
  result.metrics.push_back(
      Share("decisiveness", "decisiveness", "share of games won by one side", decisive, n));
  result.metrics.push_back(Share("drawishness", "drawishness", "share of drawn games", draws, n));
  result.metrics.push_back(Share("draws_by_rules", "draws by the rules",
                                 "share of games drawn by a rule (not at the ply limit)",
                                 rule_draws, n));
  result.metrics.push_back(
      Share("timeouts", "timeouts", "share of games adjudicated at the ply limit", timeouts, n));
  result.metrics.push_back(
      {"duration", "duration", "plies a game, mean (normal 95%)", MeanInterval(lengths), n});
  result.metrics.push_back({"duration_spread", "duration spread",
                            "standard deviation of the plies a game (bootstrap 95%)",
                            BootstrapInterval(
                                n,
                                [&](std::span<const int64_t> sample) {
                                  if (sample.size() < 2) return kNan;
                                  double sum = 0, squares = 0;
                                  for (int64_t g : sample) sum += lengths[size_t(g)];
                                  const double mean = sum / double(sample.size());
                                  for (int64_t g : sample)
                                    squares += std::pow(lengths[size_t(g)] - mean, 2);
                                  return std::sqrt(squares / double(sample.size() - 1));
                                },
                                config.bootstrap, config.seed + 1),
                            n});
  std::vector<double> branching;
  for (const Replayed& r : replayed) {
    if (std::isfinite(r.mean_branching)) branching.push_back(r.mean_branching);
    for (size_t ply = 0; ply < r.branching.size(); ++ply) {
      const size_t bucket = ply / 10;
      if (result.branching_by_plies.size() <= bucket) result.branching_by_plies.resize(bucket + 1);
      result.branching_by_plies[bucket] += r.branching[ply];
    }
  }
  // Means per bucket: the positions there over all games.
  std::vector<int64_t> positions(result.branching_by_plies.size(), 0);
  for (const Replayed& r : replayed) {
    for (size_t ply = 0; ply < r.branching.size(); ++ply) ++positions[ply / 10];
  }
  for (size_t b = 0; b < positions.size(); ++b) {
    result.branching_by_plies[b] /= double(std::max<int64_t>(1, positions[b]));
  }
  result.metrics.push_back({"branching_factor", "branching factor",
                            "legal moves a position, mean of each game's mean (normal 95%)",
                            MeanInterval(branching), int64_t(branching.size())});
  result.metrics.push_back(
      {"lead_changes", "lead changes",
       fmt::format("times a game's leader changes (the search value passing +-{:.2f}), per game "
                   "(normal 95%)",
                   config.lead_threshold),
       MeanInterval(leads), int64_t(leads.size())});
  result.metrics.push_back(
      {"stability", "stability",
       "mean |change| of the search value (W - L, White's view) from one searched ply to the "
       "next, per game (lower: steadier; normal 95%)",
       MeanInterval(changes), int64_t(changes.size())});
  if (config.decision_every > 0) {
    int64_t judged = 0;
    for (const Replayed& r : replayed) judged += r.decision_positions;
    result.metrics.push_back(
        {"decision_moves", "decision moves",
         fmt::format("share of positions (every {} plies) where one move alone stays within {} "
                     "centipawns of the best by alphabeta:{} (bootstrap over games, 95%)",
                     config.decision_every, config.decision_margin, config.decision_depth),
         BootstrapInterval(
             n,
             [&](std::span<const int64_t> sample) {
               int64_t decisions = 0, positions_judged = 0;
               for (int64_t g : sample) {
                 decisions += replayed[size_t(g)].decisions;
                 positions_judged += replayed[size_t(g)].decision_positions;
               }
               return positions_judged > 0 ? double(decisions) / double(positions_judged) : kNan;
             },
             config.bootstrap, config.seed + 2),
         judged});
  }
  return result;
}

std::vector<PlayerFinding> CompareMetrics(const GameMetrics& a, const GameMetrics& b) {
  std::vector<PlayerFinding> findings;
  for (const Metric& metric : a.metrics) {
    const Metric* other = FindMetric(b, metric.key);
    if (other == nullptr) continue;
    findings.push_back(
        {metric.name, metric.value, other->value, IntervalsDisjoint(metric.value, other->value)});
  }
  return findings;
}

#define VZ_INSTANTIATE(G)                                                                        \
  template GameMetrics MeasureGames<G>(const std::vector<const StudyGame*>&, const std::string&, \
                                       const MetricsConfig&);
VZ_FOR_EACH_GAME(VZ_INSTANTIATE)
#undef VZ_INSTANTIATE

}  // namespace vz::research
