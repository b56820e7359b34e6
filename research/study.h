#pragma once

// The numbers of a strategy study, computed from finished games (research/research.h plays them
// and writes the report, research/report.h): balance (White's score and how games end, per
// search budget), piece values (logistic regression of the result on material differences,
// research/statistics.h), openings (the tree of first plies with the net's prior and value, the
// most frequent lines, the entropy of the first-N-ply distribution) and game shape (lengths,
// material over the game, captures and promotions per piece kind).
//
// Games come from matches (arena/match.h: MatchGame) or from a training run's record chunks
// (records/game_record.h: proto::GameRecord) and are held as StudyGame, which keeps what every
// table needs: the start, the moves, the result, how the game ended and the searches' values.
// Functions over StudyGame are templates over the game type where they replay moves.
// Thread-safety: none shared; the functions are pure apart from the evaluator they are given.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "arena/match.h"
#include "engine/alphabeta/evaluation.h"
#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/search/evaluator.h"
#include "proto/train.pb.h"
#include "records/pgn_record.h"
#include "research/pieces.h"
#include "research/statistics.h"

namespace vz::research {

// One finished game of the study.
struct StudyGame {
  std::string label;              // its group in the tables: "16 sims", "run records", ...
  int budget = 0;                 // simulations a move (0 for run records)
  int64_t index = 0;              // game number within its source
  std::string start;              // start position string (G::FormatPosition)
  bool from_initial = true;       // `start` is the game's initial position
  std::vector<Move> moves;        // [ply] from `start`
  std::vector<float> values;      // [ply] the mover's search value, White's view; NaN where unknown
  Status status = Status::kDraw;  // the final result
  // How it ended: a rule (ReasonName: "checkmate", "stalemate", "no-legal-move",
  // "threefold-repetition", "twenty-move-rule", ...), "adjudication" or "resignation".
  std::string ending;
  std::string termination;  // the full text ("adjudication: material +400 after 100 plies")
  std::string record;       // PGN / PDN of the game

  // 1, 1/2 or 0.
  double WhiteScore() const {
    return status == Status::kWhiteWins ? 1.0 : status == Status::kDraw ? 0.5 : 0.0;
  }
};

// A game of a match. `label` and `budget` name its group.
template <Game G>
StudyGame StudyGameFromMatch(const MatchGame& game, const std::string& label, int budget) {
  StudyGame study;
  study.label = label;
  study.budget = budget;
  study.index = game.index;
  study.start = game.start;
  study.from_initial = game.start == G::FormatPosition(G::InitialPosition());
  study.moves = game.moves;
  study.values = game.values;
  study.status = game.outcome.status;
  study.ending = ReasonName(game.outcome.reason);
  study.termination = game.termination;
  study.record = game.record;
  return study;
}

// A game of a training run's record chunks, replayed (values from the records' root WDL, the
// PGN / PDN written here). Throws vz::Error naming the game for a record of another game, a bad
// start position or an illegal move.
template <Game G>
StudyGame StudyGameFromRecord(const proto::GameRecord& record, const std::string& label) {
  const std::string name = fmt::format("run record game {}", record.index());
  if (record.game() != G::kName) {
    throw Error(name + ": a game of '" + record.game() + "', not " + std::string(G::kName));
  }
  StudyGame study;
  study.label = label;
  study.index = int64_t(record.index());
  GameState<G> state;
  try {
    state = record.start_fen().empty() ? GameState<G>()
                                       : GameState<G>(G::ParsePosition(record.start_fen()));
    for (const proto::MoveRecord& move : record.moves()) {
      const Color mover = G::SideToMove(state.position());
      state.Play(move.move());
      float value = std::numeric_limits<float>::quiet_NaN();
      if (move.root_wdl_size() == 3) {
        value = move.root_wdl(0) - move.root_wdl(2);
        if (mover == Color::kBlack) value = -value;
      }
      study.values.push_back(value);
    }
  } catch (const Error& e) {
    throw Error(name + ": " + e.what());
  }
  study.start = G::FormatPosition(state.start_position());
  study.from_initial = study.start == G::FormatPosition(G::InitialPosition());
  study.moves = state.moves();
  study.status = record.result() > 0   ? Status::kWhiteWins
                 : record.result() < 0 ? Status::kBlackWins
                                       : Status::kDraw;
  study.termination = record.reason();
  study.ending = record.resigned()      ? "resignation"
                 : record.adjudicated() ? "adjudication"
                                        : record.reason();
  RecordInfo info;
  info.event = "vzero self-play (" + record.net_id() + ")";
  info.white = info.black = record.net_id();
  info.round = int(record.index()) + 1;
  info.outcome = {study.status, Reason::kNone};
  info.termination = record.reason();
  study.record = WriteRecord(state, info);
  return study;
}

// The games of `games` whose label is `label`, in order.
std::vector<const StudyGame*> GamesLabelled(const std::vector<StudyGame>& games,
                                            const std::string& label);
// The distinct labels of `games`, in order of first appearance.
std::vector<std::string> Labels(const std::vector<StudyGame>& games);

// --- balance -------------------------------------------------------------------------------

struct BalanceRow {
  std::string label;
  int budget = 0;
  int64_t games = 0, white_wins = 0, draws = 0, black_wins = 0;
  Interval white_score;  // ScoreInterval of White's results
  double mean_plies = 0.0;
  std::map<std::string, int64_t> endings;  // StudyGame::ending -> games
};

// One row per label, in order of first appearance.
std::vector<BalanceRow> BalanceTable(const std::vector<StudyGame>& games);

// --- piece values --------------------------------------------------------------------------

struct PieceValueRow {
  std::string kind;
  bool estimated = false;  // false: the difference never varied in the data
  double coefficient = 0;  // logit of White's score per piece of difference
  double standard_error = 0;
  Interval relative;             // coefficient / the reference kind's, with its 95% interval
  int baseline = 0;              // alpha-beta value, centipawns
  double baseline_relative = 0;  // baseline / the reference kind's baseline
};

struct PieceValueFit {
  std::string data;       // what it was fitted on
  int64_t games = 0;      // games with at least one position used
  int64_t positions = 0;  // rows
  std::string reference;  // the kind values are relative to (the weakest estimated)
  double intercept = 0, intercept_error = 0;  // White's edge at equal material, logit
  bool converged = false;
  std::string error;                // why there is no fit ("" when there is one)
  std::vector<PieceValueRow> rows;  // [kind]
};

// The material feature rows of the quiet positions of `games`: a position counts when the piece
// counts do not change over the next two plies (no exchange under way); its features are the
// differences White minus Black per kind and its outcome White's score of the game.
struct MaterialData {
  std::vector<std::array<int, kMaxPieceKinds>> differences;  // [row][kind]
  std::vector<double> scores;                                // [row]
  std::vector<int64_t> game_ids;                             // [row] position in `games`
};

template <Game G>
MaterialData QuietMaterial(const std::vector<const StudyGame*>& games) {
  MaterialData data;
  for (size_t g = 0; g < games.size(); ++g) {
    const StudyGame& game = *games[g];
    typename G::Position position = G::ParsePosition(game.start);
    std::vector<PieceCounts> counts = {PieceTraits<G>::Count(position)};
    for (Move move : game.moves) {
      G::ApplyMove(position, move);
      counts.push_back(PieceTraits<G>::Count(position));
    }
    for (size_t t = 0; t < counts.size(); ++t) {
      const bool quiet = (t + 1 >= counts.size() || counts[t + 1] == counts[t]) &&
                         (t + 2 >= counts.size() || counts[t + 2] == counts[t]);
      if (!quiet) continue;
      std::array<int, kMaxPieceKinds> difference{};
      for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) {
        difference[size_t(kind)] = counts[t].count[0][kind] - counts[t].count[1][kind];
      }
      data.differences.push_back(difference);
      data.scores.push_back(game.WhiteScore());
      data.game_ids.push_back(int64_t(g));
    }
  }
  return data;
}

// Fits the piece values of `data` for kinds named `names` with baseline values `baselines`
// (kind 0 the weakest): kinds whose difference never varies are left out (estimated = false), the
// reference is the estimated kind of lowest index. A failed fit (singular, no data) is reported
// in `error`, not thrown.
PieceValueFit FitPieceValues(const MaterialData& data, const std::vector<std::string>& names,
                             const std::vector<int>& baselines, const std::string& description);

template <Game G>
PieceValueFit PieceValuesOf(const std::vector<const StudyGame*>& games,
                            const std::string& description) {
  std::vector<std::string> names;
  std::vector<int> baselines;
  for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) {
    names.push_back(PieceTraits<G>::kNames[kind]);
    baselines.push_back(PieceTraits<G>::Baseline(kind));
  }
  return FitPieceValues(QuietMaterial<G>(games), names, baselines, description);
}

// --- game shape ----------------------------------------------------------------------------

struct ShapeRow {
  std::string label;
  int64_t games = 0;
  std::vector<int> lengths;                       // [game] plies
  std::array<double, kMaxPieceKinds> captured{};  // [kind] per game
  std::array<double, kMaxPieceKinds> promoted{};  // [kind] per game
};

// Mean material at each ply over the games still running then.
struct MaterialCurve {
  std::vector<int> games_running;                          // [ply]
  std::vector<std::array<double, kMaxPieceKinds>> pieces;  // [ply][kind] both colours
  std::vector<double> white, black;                        // [ply] baseline material, centipawns
};

template <Game G>
ShapeRow ShapeOf(const std::vector<const StudyGame*>& games, const std::string& label,
                 MaterialCurve* curve = nullptr) {
  ShapeRow row;
  row.label = label;
  row.games = int64_t(games.size());
  for (const StudyGame* game : games) {
    row.lengths.push_back(int(game->moves.size()));
    typename G::Position position = G::ParsePosition(game->start);
    PieceCounts before = PieceTraits<G>::Count(position);
    auto add_to_curve = [&](size_t ply, const PieceCounts& counts) {
      if (curve == nullptr) return;
      if (curve->games_running.size() <= ply) {
        curve->games_running.resize(ply + 1, 0);
        curve->pieces.resize(ply + 1, {});
        curve->white.resize(ply + 1, 0.0);
        curve->black.resize(ply + 1, 0.0);
      }
      ++curve->games_running[ply];
      for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) {
        curve->pieces[ply][size_t(kind)] += counts.count[0][kind] + counts.count[1][kind];
        curve->white[ply] += counts.count[0][kind] * PieceTraits<G>::Baseline(kind);
        curve->black[ply] += counts.count[1][kind] * PieceTraits<G>::Baseline(kind);
      }
    };
    add_to_curve(0, before);
    for (size_t ply = 0; ply < game->moves.size(); ++ply) {
      const int mover = G::SideToMove(position) == Color::kWhite ? 0 : 1;
      G::ApplyMove(position, game->moves[ply]);
      const PieceCounts after = PieceTraits<G>::Count(position);
      const PlyMaterial change = MaterialChange<G>(before, after, mover);
      for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) {
        row.captured[size_t(kind)] += change.captured[size_t(kind)];
        row.promoted[size_t(kind)] += change.promoted[size_t(kind)];
      }
      add_to_curve(ply + 1, after);
      before = after;
    }
  }
  if (row.games > 0) {
    for (int kind = 0; kind < kMaxPieceKinds; ++kind) {
      row.captured[size_t(kind)] /= double(row.games);
      row.promoted[size_t(kind)] /= double(row.games);
    }
  }
  return row;
}

// Turns the sums of ShapeOf's curve into means (call once, after the last ShapeOf).
void FinishMaterialCurve(MaterialCurve& curve);

// --- openings ------------------------------------------------------------------------------

struct OpeningNode {
  int parent = -1;           // index in OpeningTables::nodes; -1 for a first ply
  int depth = 1;             // plies from the start
  std::string move;          // display form
  std::string line;          // the whole line in display form, numbered ("1. e2-e4 e7-e5")
  int64_t count = 0;         // games through this node
  double white_score = 0.5;  // their mean White score
  double prior = std::numeric_limits<double>::quiet_NaN();  // the net's prior of the move
  double value = std::numeric_limits<double>::quiet_NaN();  // the net's value after it, White's
};

struct OpeningLine {
  std::string line;
  int64_t count = 0;
  double white_score = 0.5;
};

struct EntropyRow {
  std::string label;
  int64_t games = 0;              // games with at least one ply
  std::vector<double> bits;       // [N - 1] entropy of the N-ply prefixes of games >= N plies
  std::vector<int64_t> distinct;  // [N - 1] distinct N-ply prefixes
};

struct OpeningTables {
  int depth = 0;
  int64_t games = 0;
  double root_value = std::numeric_limits<double>::quiet_NaN();  // net value of the start
  std::vector<OpeningNode> nodes;   // depth-first, children by decreasing count
  std::vector<OpeningLine> lines;   // the most frequent `depth`-ply lines
  std::vector<EntropyRow> entropy;  // per label, then "all"
};

// A numbered line of display moves from the start position: "1. a b 2. c" (or "1... b 2. c" when
// Black moves first).
template <Game G>
std::string DisplayLine(typename G::Position position, const std::vector<Move>& moves) {
  std::string line;
  for (size_t i = 0; i < moves.size(); ++i) {
    const bool white = G::SideToMove(position) == Color::kWhite;
    const int number = int(i / 2) + 1;
    if (white) {
      line += (line.empty() ? "" : " ") + std::to_string(number) + ". ";
    } else if (i == 0) {
      line += std::to_string(number) + "... ";
    } else {
      line += " ";
    }
    line += G::FormatDisplayMove(position, moves[i]);
    G::ApplyMove(position, moves[i]);
  }
  return line;
}

// The opening tables of the games of `games` that start from the initial position, up to
// `depth` plies; the tree shows at most `max_children` children per node and nodes played at
// least `min_count` times (first plies: all). When `evaluator` is given, every node's position is
// evaluated (in batches of up to 256) for its prior and value. Throws what the evaluator throws.
template <Game G>
OpeningTables AnalyzeOpenings(const std::vector<StudyGame>& games, int depth,
                              Evaluator<G>* evaluator, int max_children = 6, int min_count = 2,
                              int max_lines = 12) {
  OpeningTables tables;
  tables.depth = depth;
  struct Stats {
    int64_t count = 0;
    double score = 0;
  };
  std::map<std::vector<uint64_t>, Stats> prefixes;  // move raw values -> stats
  std::map<std::string, std::map<std::vector<uint64_t>, int64_t>> per_label;
  std::vector<std::string> labels;
  for (const StudyGame& game : games) {
    if (!game.from_initial || game.moves.empty()) continue;
    ++tables.games;
    if (!per_label.count(game.label)) labels.push_back(game.label);
    std::vector<uint64_t> prefix;
    for (int d = 0; d < depth && d < int(game.moves.size()); ++d) {
      prefix.push_back(game.moves[size_t(d)].raw);
      Stats& stats = prefixes[prefix];
      ++stats.count;
      stats.score += game.WhiteScore();
      ++per_label[game.label][prefix];
    }
  }
  // Entropy of the N-ply prefix distribution, per label and over all.
  labels.push_back("all");
  for (const std::string& label : labels) {
    EntropyRow row;
    row.label = label;
    for (int n = 1; n <= depth; ++n) {
      std::vector<int64_t> counts;
      if (label == "all") {
        for (const auto& [prefix, stats] : prefixes) {
          if (int(prefix.size()) == n) counts.push_back(stats.count);
        }
      } else {
        for (const auto& [prefix, count] : per_label[label]) {
          if (int(prefix.size()) == n) counts.push_back(count);
        }
      }
      if (n == 1) {
        for (int64_t c : counts) row.games += c;
      }
      row.bits.push_back(EntropyBits(counts));
      row.distinct.push_back(int64_t(counts.size()));
    }
    tables.entropy.push_back(row);
  }
  // The most frequent full-depth lines.
  std::vector<std::pair<std::vector<uint64_t>, Stats>> full;
  for (const auto& [prefix, stats] : prefixes) {
    if (int(prefix.size()) == depth) full.emplace_back(prefix, stats);
  }
  std::stable_sort(full.begin(), full.end(),
                   [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  auto to_moves = [](const std::vector<uint64_t>& raw) {
    std::vector<Move> moves;
    for (uint64_t r : raw) moves.push_back(Move{r});
    return moves;
  };
  for (size_t i = 0; i < full.size() && int(i) < max_lines; ++i) {
    tables.lines.push_back({DisplayLine<G>(G::InitialPosition(), to_moves(full[i].first)),
                            full[i].second.count,
                            full[i].second.score / double(full[i].second.count)});
  }
  // The tree, depth first.
  std::vector<std::vector<uint64_t>> node_prefixes;
  auto add_children = [&](auto&& self, const std::vector<uint64_t>& prefix, int parent) -> void {
    if (int(prefix.size()) >= depth) return;
    std::vector<std::pair<std::vector<uint64_t>, Stats>> children;
    auto it = prefixes.lower_bound(prefix);
    for (; it != prefixes.end(); ++it) {
      const std::vector<uint64_t>& p = it->first;
      if (p.size() < prefix.size() || !std::equal(prefix.begin(), prefix.end(), p.begin())) break;
      if (p.size() == prefix.size() + 1) children.emplace_back(p, it->second);
    }
    std::stable_sort(children.begin(), children.end(),
                     [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
    for (size_t c = 0; c < children.size() && int(c) < max_children; ++c) {
      if (!prefix.empty() && children[c].second.count < min_count) break;
      OpeningNode node;
      node.parent = parent;
      node.depth = int(children[c].first.size());
      const std::vector<Move> moves = to_moves(children[c].first);
      typename G::Position position = G::InitialPosition();
      for (size_t i = 0; i + 1 < moves.size(); ++i) G::ApplyMove(position, moves[i]);
      node.move = G::FormatDisplayMove(position, moves.back());
      node.line = DisplayLine<G>(G::InitialPosition(), moves);
      node.count = children[c].second.count;
      node.white_score = children[c].second.score / double(node.count);
      tables.nodes.push_back(node);
      node_prefixes.push_back(children[c].first);
      self(self, children[c].first, int(tables.nodes.size()) - 1);
    }
  };
  add_children(add_children, {}, -1);
  if (evaluator == nullptr) return tables;
  // The net's view: the start and every node's position, evaluated in batches.
  std::vector<GameState<G>> states(1);
  for (const std::vector<uint64_t>& prefix : node_prefixes) {
    GameState<G> state;
    for (uint64_t raw : prefix) state.Play(Move{raw});
    states.push_back(state);
  }
  std::vector<Wdl> values(states.size());
  std::vector<std::vector<std::pair<uint64_t, float>>> priors(states.size());
  EvalBatch<G> batch;
  for (size_t begin = 0; begin < states.size(); begin += 256) {
    batch.Clear();
    std::vector<size_t> indices;
    for (size_t i = begin; i < std::min(states.size(), begin + 256); ++i) {
      if (states[i].outcome().IsTerminal()) continue;
      const auto& legal = states[i].legal_moves();
      batch.Add(states[i].position(), legal.moves, legal.size, states[i].RepetitionCount());
      indices.push_back(i);
    }
    if (batch.size() == 0) continue;
    evaluator->Evaluate(batch);
    for (size_t k = 0; k < indices.size(); ++k) {
      const size_t i = indices[k];
      values[i] = batch.value(int(k));
      const auto moves = batch.moves(int(k));
      const auto p = std::as_const(batch).priors(int(k));
      for (size_t m = 0; m < moves.size(); ++m) priors[i].emplace_back(moves[m].raw, p[m]);
    }
  }
  auto white_value = [&](size_t i) {
    if (states[i].outcome().IsTerminal()) {
      const Status s = states[i].outcome().status;
      return s == Status::kWhiteWins ? 1.0 : s == Status::kBlackWins ? -1.0 : 0.0;
    }
    const double v = values[i].Value();
    return G::SideToMove(states[i].position()) == Color::kWhite ? v : -v;
  };
  tables.root_value = white_value(0);
  for (size_t n = 0; n < tables.nodes.size(); ++n) {
    OpeningNode& node = tables.nodes[n];
    node.value = white_value(n + 1);
    const size_t parent_state = node.parent < 0 ? 0 : size_t(node.parent) + 1;
    for (const auto& [raw, prior] : priors[parent_state]) {
      if (raw == node_prefixes[n].back()) node.prior = prior;
    }
  }
  return tables;
}

}  // namespace vz::research
