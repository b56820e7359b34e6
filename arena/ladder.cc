#include "arena/ladder.h"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"

namespace vz {

namespace {

std::vector<int> ByRating(const std::vector<LadderRow>& rows) {
  std::vector<int> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&rows](int a, int b) {
    return rows[size_t(a)].rating.elo > rows[size_t(b)].rating.elo;
  });
  return order;
}

}  // namespace

std::string LadderResult::Table() const {
  std::string out = fmt::format("ladder {} (anchor {} = 0; error = 1 sigma, 95% = 1.96 sigma)\n",
                                variant, rows[size_t(anchor)].player);
  out += fmt::format("{:>4}  {:<16} {:>8} {:>8} {:>6} {:>7} {:>6}\n", "rank", "player", "Elo", "+-",
                     "games", "score", "adjud");
  int rank = 1;
  for (int i : ByRating(rows)) {
    const LadderRow& row = rows[size_t(i)];
    out += fmt::format("{:>4}  {:<16} {:>8.1f} {:>8.1f} {:>6} {:>6.1f}% {:>6}\n", rank++,
                       row.player, row.rating.elo, row.rating.error, row.games,
                       row.games ? 100.0 * row.points / row.games : 0.0, row.adjudicated);
  }
  out += "\npoints of the row player against the column player:\n";
  out += fmt::format("{:<16}", "");
  for (size_t j = 0; j < rows.size(); ++j) out += fmt::format(" {:>14}", rows[j].player);
  out += "\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    out += fmt::format("{:<16}", rows[i].player);
    for (size_t j = 0; j < rows.size(); ++j) {
      std::string cell = "-";
      for (const PairingResult& p : pairings) {
        if (size_t(p.i) == i && size_t(p.j) == j)
          cell = fmt::format("{:g}/{}", p.points_i, p.games);
        if (size_t(p.j) == i && size_t(p.i) == j) {
          cell = fmt::format("{:g}/{}", p.games - p.points_i, p.games);
        }
      }
      out += fmt::format(" {:>14}", cell);
    }
    out += "\n";
  }
  return out;
}

std::string LadderResult::Csv() const {
  std::string out = "player,elo,error,games,points,adjudicated\n";
  for (int i : ByRating(rows)) {
    const LadderRow& row = rows[size_t(i)];
    out += fmt::format("{},{:.1f},{:.1f},{},{:g},{}\n", row.player, row.rating.elo,
                       row.rating.error, row.games, row.points, row.adjudicated);
  }
  return out;
}

LadderResult RunLadder(std::string_view variant, const LadderConfig& config,
                       const std::function<void(const std::string&)>& progress) {
  const int n = int(config.players.size());
  if (n < 2) throw Error("ladder: need at least two players");
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (config.players[size_t(i)] == config.players[size_t(j)]) {
        throw Error("ladder: player '" + config.players[size_t(i)] + "' given twice");
      }
    }
  }
  if (!config.csv_path.empty()) CheckDirectoryOf(config.csv_path, "ladder: CSV file");
  LadderResult result;
  result.variant = std::string(variant);
  result.rows.resize(size_t(n));
  for (int i = 0; i < n; ++i) {
    result.rows[size_t(i)].player = config.players[size_t(i)];
    if (config.players[size_t(i)] == "random") result.anchor = i;
  }
  if (std::find(config.players.begin(), config.players.end(), "random") == config.players.end()) {
    result.anchor = 0;
  }
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      MatchConfig match = config.match;
      match.player1 = config.players[size_t(i)];
      match.player2 = config.players[size_t(j)];
      match.games = config.games_per_pair;
      match.sprt.reset();
      match.live = false;
      match.seed = config.match.seed + uint64_t(1000 * i + j);
      if (!config.match.out_dir.empty()) {
        match.out_dir =
            config.match.out_dir + "/" + std::to_string(i + 1) + "_vs_" + std::to_string(j + 1);
      }
      MatchSummary summary = RunMatch(variant, match);
      const int games = int(summary.wins + summary.draws + summary.losses);
      const double points = double(summary.wins) + 0.5 * double(summary.draws);
      result.pairings.push_back({i, j, games, points});
      for (int k : {i, j}) {
        result.rows[size_t(k)].games += games;
        result.rows[size_t(k)].adjudicated += summary.adjudicated;
      }
      result.rows[size_t(i)].points += points;
      result.rows[size_t(j)].points += games - points;
      if (progress) {
        progress(fmt::format("{} vs {}: +{} ={} -{} ({} adjudicated)", match.player1, match.player2,
                             summary.wins, summary.draws, summary.losses, summary.adjudicated));
      }
      result.matches.push_back(std::move(summary));
    }
  }
  const std::vector<Rating> ratings = MaximumLikelihoodRatings(n, result.pairings, result.anchor);
  for (int i = 0; i < n; ++i) result.rows[size_t(i)].rating = ratings[size_t(i)];
  if (!config.csv_path.empty()) WriteFileAtomically(config.csv_path, result.Csv());
  return result;
}

}  // namespace vz
