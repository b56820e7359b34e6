#include "research/net_diagnostics.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <type_traits>

#include "engine/alphabeta/alphabeta.h"
#include "engine/core/game_state.h"
#include "engine/core/position_text.h"
#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "nets/net_evaluator.h"
#include "nets/net_file.h"
#include "research/pieces.h"

namespace vz::research {
namespace {

constexpr int kBatch = 64;

void CheckConfig(const NetDiagnosticsConfig& c) {
  const auto check = [](bool ok, const char* field, int value, const char* range) {
    if (!ok) throw Error(fmt::format("net diagnose: {} = {} is outside {}", field, value, range));
  };
  check(c.positions >= 2 && c.positions <= 1000000, "positions", c.positions, "2..1000000");
  check(c.opening_plies >= 0 && c.opening_plies <= 1000, "opening plies", c.opening_plies,
        "0..1000");
  check(c.sample_every >= 1 && c.sample_every <= 1000, "sample every", c.sample_every, "1..1000");
  check(c.max_plies >= 1 && c.max_plies <= 100000, "max plies", c.max_plies, "1..100000");
  check(c.judge_depth >= 2 && c.judge_depth <= 5, "judge depth", c.judge_depth, "2..5");
  check(c.blunder_margin >= 0 && c.blunder_margin <= 100000, "blunder margin", c.blunder_margin,
        "0..100000");
}

// The board field of a chess-like position string without the `index`-th `letter`; "" when it
// has fewer.
std::string WithoutLetter(const std::string& fen, char letter, int index) {
  const size_t board_end = std::min(fen.find(' '), fen.size());
  std::string out, row;  // row: the current rank expanded, '.' for an empty cell
  int seen = 0;
  bool removed = false;
  const auto flush = [&] {
    int empty = 0;
    for (char c : row) {
      if (c == '.') {
        ++empty;
        continue;
      }
      if (empty > 0) out += std::to_string(empty);
      empty = 0;
      out += c;
    }
    if (empty > 0) out += std::to_string(empty);
    row.clear();
  };
  for (size_t i = 0; i < board_end; ++i) {
    const char c = fen[i];
    if (c == '/') {
      flush();
      out += '/';
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      int count = 0;
      while (i < board_end && std::isdigit(static_cast<unsigned char>(fen[i]))) {
        count = count * 10 + (fen[i++] - '0');
        if (count > 1000) return "";
      }
      --i;
      row.append(size_t(count), '.');
    } else if (c == letter && !removed && seen++ == index) {
      row += '.';
      removed = true;
    } else {
      row += c;
    }
  }
  flush();
  return removed ? out + fen.substr(board_end) : "";
}

// Draughts' "W:W1,K2:B3": the `color` list without its `index`-th man (kind 0) or king (kind 1).
static_assert(PieceTypes<draughts::DraughtsGame>::kNames[0][0] == 'm' &&
              PieceTypes<draughts::DraughtsGame>::kNames[1][0] == 'k');
std::string WithoutDraughtsPiece(const std::string& fen, int color, int kind, int index) {
  std::vector<std::string> fields;
  for (std::string_view field : SplitAt(fen, ':')) fields.emplace_back(field);
  const char side = color == 0 ? 'W' : 'B';
  bool removed = false;
  for (size_t f = 1; f < fields.size() && !removed; ++f) {
    if (fields[f].empty() || fields[f][0] != side) continue;
    std::vector<std::string> items;
    if (fields[f].size() > 1) {
      for (std::string_view item : SplitAt(std::string_view(fields[f]).substr(1), ',')) {
        items.emplace_back(item);
      }
    }
    int seen = 0;
    for (size_t k = 0; k < items.size(); ++k) {
      const bool king = !items[k].empty() && (items[k][0] == 'K' || items[k][0] == 'k');
      if (int(king) == kind && seen++ == index) {
        items.erase(items.begin() + long(k));
        removed = true;
        break;
      }
    }
    std::string rebuilt(1, side);
    for (size_t k = 0; k < items.size(); ++k) rebuilt += (k ? "," : "") + items[k];
    fields[f] = rebuilt;
  }
  if (!removed) return "";
  std::string out;
  for (size_t f = 0; f < fields.size(); ++f) out += (f ? ":" : "") + fields[f];
  return out;
}

template <Game G>
constexpr bool kIsDraughts = std::is_same_v<G, draughts::DraughtsGame>;

// The value of the side to move's view of each position, and its priors' first choice.
template <Game G>
struct Evaluated {
  std::vector<float> values;
  std::vector<Move> first_choice;
};

template <Game G>
Evaluated<G> EvaluateAll(Evaluator<G>& evaluator,
                         const std::vector<typename G::Position>& positions) {
  Evaluated<G> out;
  EvalBatch<G> batch;
  for (size_t begin = 0; begin < positions.size(); begin += kBatch) {
    batch.Clear();
    const size_t end = std::min(positions.size(), begin + kBatch);
    for (size_t i = begin; i < end; ++i) {
      typename G::MoveList moves;
      G::GenerateMoves(positions[i], moves);
      batch.Add(positions[i], moves.moves, moves.size, 1);
    }
    evaluator.Evaluate(batch);
    for (int i = 0; i < batch.size(); ++i) {
      out.values.push_back(batch.value(i).Value());
      const auto priors = batch.priors(i);
      const size_t best = size_t(std::max_element(priors.begin(), priors.end()) - priors.begin());
      out.first_choice.push_back(batch.moves(i)[best]);
    }
  }
  return out;
}

// Games of the evaluator's policy (random opening, then the highest prior), a position every
// sample_every plies after the opening.
template <Game G>
std::vector<typename G::Position> SamplePositions(Evaluator<G>& evaluator,
                                                  const NetDiagnosticsConfig& config) {
  std::vector<typename G::Position> positions;
  uint64_t random = config.seed;
  const int64_t max_games = int64_t(config.positions) * 4 + 100;
  for (int64_t games = 0; int(positions.size()) < config.positions; ++games) {
    if (games == max_games) {
      throw Error(
          fmt::format("net diagnose: {} games gave only {} of the {} positions asked for "
                      "(the games end in their openings: fewer opening plies)",
                      games, positions.size(), config.positions));
    }
    GameState<G> game;
    for (int ply = 0; ply < config.max_plies && int(positions.size()) < config.positions; ++ply) {
      if (game.outcome().IsTerminal()) break;
      const typename G::MoveList& moves = game.legal_moves();
      if (ply < config.opening_plies) {
        random = SplitMix64(random);
        game.Play(moves.moves[(random >> 32) * uint64_t(moves.size) >> 32]);
        continue;
      }
      const Evaluated<G> evaluated = EvaluateAll(evaluator, {game.position()});
      if ((ply - config.opening_plies) % config.sample_every == 0 && moves.size > 1) {
        positions.push_back(game.position());
      }
      game.Play(evaluated.first_choice[0]);
    }
  }
  return positions;
}

}  // namespace

template <Game G>
std::string WithoutPiece(const std::string& fen, int color, int kind, int index) {
  if constexpr (kIsDraughts<G>) {
    return WithoutDraughtsPiece(fen, color, kind, index);
  } else {
    const char upper = PieceTypes<G>::kLetters[kind];
    return WithoutLetter(fen, color == 0 ? upper : char(std::tolower(upper)), index);
  }
}

template <Game G>
NetDiagnostics DiagnoseNet(Evaluator<G>& evaluator, const NetDiagnosticsConfig& config) {
  using Position = typename G::Position;
  using Pieces = PieceTraits<G>;
  CheckConfig(config);
  NetDiagnostics result;
  result.game = std::string(G::kName);
  const std::vector<Position> positions = SamplePositions(evaluator, config);
  result.positions = int64_t(positions.size());

  // 1. Piece removal: for each position and kind, the side to move without one such piece.
  std::vector<Position> removed;
  std::vector<std::pair<size_t, int>> removed_from;  // [removed] (position, kind)
  uint64_t random = SplitMix64(config.seed ^ 0x5eedull);
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position& p = positions[i];
    const int color = G::SideToMove(p) == Color::kWhite ? 0 : 1;
    const PieceCounts counts = Pieces::Count(p);
    for (int kind = 0; kind < Pieces::kKinds; ++kind) {
      const int count = counts.count[size_t(color)][size_t(kind)];
      if (count == 0) continue;
      random = SplitMix64(random);
      const int index = int((random >> 32) * uint64_t(count) >> 32);
      const std::string text = WithoutPiece<G>(G::FormatPosition(p), color, kind, index);
      if (text.empty()) continue;
      Position after;
      try {
        after = G::ParsePosition(text);
      } catch (const Error&) {
        continue;  // not a position of the rules (say, a castling right without its piece)
      }
      if (GameState<G>(after).outcome().IsTerminal()) continue;
      removed.push_back(after);
      removed_from.push_back({i, kind});
    }
  }
  const Evaluated<G> before = EvaluateAll(evaluator, positions);
  const Evaluated<G> after = EvaluateAll(evaluator, removed);
  std::vector<std::vector<double>> drops(size_t(Pieces::kKinds));
  for (size_t r = 0; r < removed.size(); ++r) {
    const auto [i, kind] = removed_from[r];
    drops[size_t(kind)].push_back(double(before.values[i]) - double(after.values[r]));
  }
  for (int kind = 0; kind < Pieces::kKinds; ++kind) {
    result.removal.push_back({Pieces::kNames[kind], Pieces::Baseline(kind),
                              int64_t(drops[size_t(kind)].size()),
                              MeanInterval(drops[size_t(kind)])});
  }

  // 2 and 3. Alpha-beta's score of every legal move: its best is the position's score, and the
  // net's first choice is judged against it.
  AlphaBeta<G> search;
  std::vector<double> net_values, search_values;
  for (size_t i = 0; i < positions.size(); ++i) {
    const Position& p = positions[i];
    typename G::MoveList moves;
    G::GenerateMoves(p, moves);
    int best = -kMateScore - 1, chosen = 0;
    for (Move move : moves) {
      const int score = JudgeMove(search, p, move, config.judge_depth - 1);
      best = std::max(best, score);
      if (move == before.first_choice[i]) chosen = score;
    }
    result.losing_moves += chosen < best - config.blunder_margin;
    net_values.push_back(before.values[i]);
    search_values.push_back(ScoreToValue(best));
  }
  result.judged_moves = int64_t(positions.size());
  result.pearson = PearsonInterval(net_values, search_values);
  result.spearman = SpearmanCorrelation(net_values, search_values);
  const Interval share =
      ScoreInterval(result.losing_moves, 0, result.judged_moves - result.losing_moves);
  result.losing_share = share;
  return result;
}

NetDiagnostics DiagnoseNetFile(const std::string& net_file, const NetDiagnosticsConfig& config) {
  const nets::NetFile net = nets::ReadNetFile(net_file);
  NetDiagnostics result;
  WithGame(net.game, [&]<class G>() {
    const auto evaluator = nets::MakeNetEvaluator<G>(net, net_file, "cpu", "fp32", 0);
    result = DiagnoseNet<G>(*evaluator, config);
  });
  return result;
}

std::string FormatNetDiagnostics(const NetDiagnostics& d, const std::string& title,
                                 const NetDiagnosticsConfig& config) {
  const auto interval = [](const Interval& i, int digits) {
    return fmt::format("{:.{}f} [{:.{}f}, {:.{}f}]", i.value, digits, i.low, digits, i.high,
                       digits);
  };
  std::string text = fmt::format(
      "{}\n\n{} positions of {}: games of the net's policy against itself ({} random opening "
      "plies, then its highest prior), a position every {} plies; seed {}.\n\n",
      title, d.positions, d.game, config.opening_plies, config.sample_every, config.seed);
  text +=
      "Value drop when one of the side to move's pieces is removed (net value W - L in [-1, 1], "
      "mean with 95% interval):\n\n"
      "| piece | baseline (cp) | positions | value drop |\n| --- | ---: | ---: | ---: |\n";
  for (const PieceRemoval& row : d.removal) {
    text += fmt::format("| {} | {} | {} | {} |\n", row.piece, row.baseline_cp, row.positions,
                        row.positions > 0 ? interval(row.drop, 3) : "-");
  }
  text += fmt::format(
      "\nNet value against alphabeta:{}'s score (as an expected score 2 / (1 + 10^(-cp/400)) - "
      "1): Pearson r = {}, Spearman {:.3f}.\n",
      config.judge_depth, interval(d.pearson, 3), d.spearman);
  text += fmt::format(
      "Net's first choice (highest prior) at least {} centipawns below alphabeta:{}'s best "
      "move (each move scored by a {}-ply search and quiescence after it): {} of {}, share {}.\n",
      config.blunder_margin, config.judge_depth, config.judge_depth - 1, d.losing_moves,
      d.judged_moves, interval(d.losing_share, 3));
  return text;
}

#define VZ_INSTANTIATE(G)                                                  \
  template std::string WithoutPiece<G>(const std::string&, int, int, int); \
  template NetDiagnostics DiagnoseNet<G>(Evaluator<G>&, const NetDiagnosticsConfig&);
VZ_FOR_EACH_GAME(VZ_INSTANTIATE)
#undef VZ_INSTANTIATE

}  // namespace vz::research
