#include "research/imbalance.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>

#include "engine/core/position_text.h"
#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "research/net_diagnostics.h"

namespace vz::research {
namespace {

constexpr int kOpeningTries = 1000;

// A uniform draw in [0, n) from the SplitMix64 stream `state`.
int Draw(uint64_t& state, int n) {
  state = SplitMix64(state);
  return int((state >> 32) * uint64_t(n) >> 32);
}

// `text` parsed and formatted; when it is not a position of the rules only because of a castling
// right whose piece was taken off (the chess-likes' third field), with such rights dropped one at a
// time. "" with the parser's reason in `why` when neither parses.
template <Game G>
std::string Normalised(const std::string& text, std::string& why) {
  try {
    return G::FormatPosition(G::ParsePosition(text));
  } catch (const Error& e) {
    why = e.what();
  }
  std::vector<std::string> fields;
  for (std::string_view field : SplitBlanks(text)) fields.emplace_back(field);
  if (fields.size() < 3 || fields[2] == "-") return "";
  for (size_t c = 0; c < fields[2].size(); ++c) {
    std::vector<std::string> fewer = fields;
    fewer[2].erase(c, 1);
    if (fewer[2].empty()) fewer[2] = "-";
    std::string joined;
    for (const std::string& field : fewer) joined += (joined.empty() ? "" : " ") + field;
    std::string inner_why;
    const std::string parsed = Normalised<G>(joined, inner_why);
    if (!parsed.empty()) return parsed;
  }
  return "";
}

// `fen` without one piece of `kind` of `color` (chosen at random); "" with the reason in `why`
// when there is none or the string it gives is not a position of the rules.
template <Game G>
std::string TakeOff(const std::string& fen, int color, int kind, uint64_t& random,
                    std::string& why) {
  const int count = PieceTraits<G>::Count(G::ParsePosition(fen)).count[size_t(color)][size_t(kind)];
  const std::string text = count == 0 ? "" : WithoutPiece<G>(fen, color, kind, Draw(random, count));
  if (text.empty()) {
    why = "no such piece in " + fen;
    return "";
  }
  return Normalised<G>(text, why);
}

}  // namespace

template <Game G>
std::vector<std::string> ImbalanceOpenings(const Imbalance& imbalance, int count, int random_plies,
                                           uint64_t seed) {
  const std::string name = ImbalanceName<G>(imbalance);
  const PieceCounts start = PieceTraits<G>::Count(G::InitialPosition());
  for (int kind : {imbalance.kind, imbalance.for_kind}) {
    if (kind >= PieceTraits<G>::kKinds)
      throw Error("imbalance: no piece kind " + std::to_string(kind));
    if (kind >= 0 && (start.count[0][size_t(kind)] == 0 || start.count[1][size_t(kind)] == 0)) {
      throw Error(fmt::format("imbalance '{}': a side has no {} at the start to take off", name,
                              PieceTraits<G>::kNames[kind]));
    }
  }
  std::vector<std::string> openings;
  uint64_t random = SplitMix64(seed ^ 0x1a2b3c4dull);
  const std::string initial = G::FormatPosition(G::InitialPosition());
  for (int i = 0; i < count; ++i) {
    const int advantaged = i % 2;
    std::string found, why;
    for (int attempt = 0; attempt < kOpeningTries && found.empty(); ++attempt) {
      std::string fen = TakeOff<G>(initial, 1 - advantaged, imbalance.kind, random, why);
      if (!fen.empty() && imbalance.for_kind >= 0) {
        fen = TakeOff<G>(fen, advantaged, imbalance.for_kind, random, why);
      }
      if (fen.empty()) continue;
      GameState<G> state(G::ParsePosition(fen));
      const PieceCounts counts = PieceTraits<G>::Count(state.position());
      if (state.outcome().IsTerminal()) {
        why = fen + " is a finished game";
        continue;
      }
      bool ok = true;
      for (int ply = 0; ply < random_plies && ok; ++ply) {
        const typename G::MoveList& moves = state.legal_moves();
        state.Play(moves.moves[Draw(random, moves.size)]);
        ok = !state.outcome().IsTerminal() && PieceTraits<G>::Count(state.position()) == counts;
      }
      if (ok) {
        found = G::FormatPosition(state.position());
      } else {
        why = "the random plies captured or ended the game";
      }
    }
    if (found.empty()) {
      throw Error(fmt::format("imbalance '{}': no opening in {} tries (the last: {})", name,
                              kOpeningTries, why));
    }
    openings.push_back(found);
  }
  return openings;
}

PieceValueFit FitImbalanceValues(MaterialData data,
                                 const std::vector<std::array<int, kMaxPieceKinds>>& pseudo_draws,
                                 const std::vector<std::string>& names,
                                 const std::vector<int>& baselines,
                                 const std::string& description) {
  const int64_t positions = int64_t(data.scores.size());
  int64_t cluster = 0;
  for (int64_t id : data.game_ids) cluster = std::max(cluster, id + 1);
  std::vector<int64_t> ids = data.game_ids;
  std::sort(ids.begin(), ids.end());
  const int64_t pairs = int64_t(std::unique(ids.begin(), ids.end()) - ids.begin());
  for (const auto& difference : pseudo_draws) {
    data.differences.push_back(difference);
    data.scores.push_back(0.5);
    data.game_ids.push_back(cluster++);
  }
  PieceValueFit fit = FitPieceValues(data, names, baselines, description);
  fit.positions = positions;  // the games; the pseudo-draws are the prior, not data
  fit.games = pairs;
  return fit;
}

template <Game G>
ImbalanceStudy StudyImbalances(const std::vector<Imbalance>& imbalances,
                               const std::vector<const StudyGame*>& games,
                               const std::string& player) {
  ImbalanceStudy study;
  study.player = player;
  MaterialData data;
  std::vector<std::array<int, kMaxPieceKinds>> pseudo_draws;
  int64_t next_cluster = 0;
  for (const Imbalance& imbalance : imbalances) {
    ImbalanceRow row;
    row.name = ImbalanceName<G>(imbalance);
    row.imbalance = imbalance;
    std::map<int64_t, std::vector<double>> pairs;  // pair -> the advantaged side's scores
    std::map<int64_t, int64_t> clusters;
    for (const StudyGame* game : games) {
      if (game->label != row.name && !game->label.ends_with(": " + row.name)) continue;
      PieceCounts counts;
      try {
        counts = PieceTraits<G>::Count(G::ParsePosition(game->start));
      } catch (const Error& e) {
        throw Error(
            fmt::format("imbalance game {} ({}): {}", game->index + 1, game->label, e.what()));
      }
      std::array<int, kMaxPieceKinds> difference{};
      for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) {
        difference[size_t(kind)] = counts.count[0][size_t(kind)] - counts.count[1][size_t(kind)];
      }
      // The advantaged side has one more of `kind` than its opponent (and one `for_kind` less).
      const int sign = difference[size_t(imbalance.kind)];
      const bool matches =
          (sign == 1 || sign == -1) &&
          (imbalance.for_kind < 0 || difference[size_t(imbalance.for_kind)] == -sign);
      if (!matches) {
        throw Error(fmt::format("imbalance game {} ({}): its start '{}' is not a position of '{}'",
                                game->index + 1, game->label, game->start, row.name));
      }
      const bool white = sign > 0;
      const double score = white ? game->WhiteScore() : 1.0 - game->WhiteScore();
      ++row.games;
      row.wins += score == 1.0;
      row.draws += score == 0.5;
      row.losses += score == 0.0;
      const int64_t pair = game->index / 2;
      pairs[pair].push_back(score);
      if (!clusters.count(pair)) clusters[pair] = next_cluster++;
      data.differences.push_back(difference);
      data.scores.push_back(game->WhiteScore());
      data.game_ids.push_back(clusters[pair]);
    }
    std::vector<double> pair_scores;
    for (const auto& [pair, scores] : pairs) {
      double sum = 0;
      for (double s : scores) sum += s;
      pair_scores.push_back(sum / double(scores.size()));
    }
    row.score = MeanInterval(pair_scores);
    row.sweep = row.games > 0 && (row.wins == row.games || row.losses == row.games);
    // The prior: one drawn game in each orientation.
    std::array<int, kMaxPieceKinds> difference{};
    difference[size_t(imbalance.kind)] = 1;
    if (imbalance.for_kind >= 0) difference[size_t(imbalance.for_kind)] = -1;
    pseudo_draws.push_back(difference);
    for (int& d : difference) d = -d;
    pseudo_draws.push_back(difference);
    study.rows.push_back(row);
  }
  std::vector<std::string> names;
  std::vector<int> baselines;
  for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) {
    names.push_back(PieceTraits<G>::kNames[kind]);
    baselines.push_back(PieceTraits<G>::Baseline(kind));
  }
  study.fit =
      FitImbalanceValues(data, pseudo_draws, names, baselines, "imbalance matches of " + player);
  return study;
}

std::vector<ValueComparison> CompareValues(const PieceValueFit& first,
                                           const PieceValueFit& second) {
  std::vector<ValueComparison> rows;
  const bool comparable =
      first.error.empty() && second.error.empty() && first.reference == second.reference;
  for (const PieceValueRow& a : first.rows) {
    ValueComparison row;
    row.kind = a.kind;
    row.first_estimated = first.error.empty() && a.estimated;
    row.first = a.relative;
    row.baseline_relative = a.baseline_relative;
    for (const PieceValueRow& b : second.rows) {
      if (b.kind != a.kind) continue;
      row.second_estimated = second.error.empty() && b.estimated;
      row.second = b.relative;
    }
    row.differs = comparable && row.first_estimated && row.second_estimated &&
                  IntervalsDisjoint(row.first, row.second);
    rows.push_back(row);
  }
  return rows;
}

#define VZ_INSTANTIATE(G)                                                                       \
  template std::vector<std::string> ImbalanceOpenings<G>(const Imbalance&, int, int, uint64_t); \
  template ImbalanceStudy StudyImbalances<G>(                                                   \
      const std::vector<Imbalance>&, const std::vector<const StudyGame*>&, const std::string&);
VZ_FOR_EACH_GAME(VZ_INSTANTIATE)
#undef VZ_INSTANTIATE

}  // namespace vz::research
