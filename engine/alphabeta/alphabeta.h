#pragma once

// The classic baseline player of every game: iterative-deepening alpha-beta in negamax form with
// a transposition table, quiescence search on noisy moves (captures, promotions), and the
// material-plus-mobility evaluation of engine/alphabeta/evaluation.h.
//
// - Scores are centipawns from the side to move's view. A won position scores
//   kMateScore - plies to the end, a lost one -(kMateScore - plies), so the shortest win and the
//   longest defence are preferred ("mate by distance").
// - Terminal positions come from the rules (G::LocalOutcome, draw counters included). For games
//   with threefold repetition, a position already seen on the game history or the search path is
//   scored a draw (the usual two-fold shortcut).
// - Move ordering: transposition-table move, noisy moves by material gained, then quiet moves by
//   the history heuristic (indexed by action index).
// - Quiescence: stand pat, then noisy moves only, with delta pruning, at most
//   kMaxQuiescencePlies deep; no stand pat while in check (every move is searched) or, in
//   draughts, while a capture is compulsory.
//
// Not thread-safe: one searcher per thread. Deterministic for a given position, history and depth.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "engine/alphabeta/evaluation.h"
#include "engine/core/game.h"
#include "engine/core/game_state.h"

namespace vz {

struct AlphaBetaResult {
  Move best_move = kNullMove;  // kNullMove when the root is terminal
  int score = 0;               // centipawns, side to move's view; mate scores by distance
  int depth = 0;               // deepest completed iteration (plies)
  int64_t nodes = 0;           // positions visited, quiescence included
  std::vector<Move> pv;        // principal variation from the transposition table
};

inline constexpr int kMateScore = 30000;
inline constexpr int kMaxPly = 128;
// Scores above this are wins found by the search (kMateScore - plies).
inline constexpr int kMateBound = kMateScore - 1000;
// Quiescence stops after this many plies (long capture chains on crowded boards explode).
inline constexpr int kMaxQuiescencePlies = 8;
// Delta-pruning margin of quiescence (centipawns) on top of a capture's material gain.
inline constexpr int kDeltaMargin = 150;

// A score in centipawns as an expected result W - L in [-1, 1] (the value scale of the nets), by
// the logistic curve of chess ratings: 2 / (1 + 10^(-cp / 400)) - 1; a mate score gives +-1.
inline float ScoreToValue(int centipawns) {
  if (centipawns >= kMateBound) return 1.0f;
  if (centipawns <= -kMateBound) return -1.0f;
  return float(2.0 / (1.0 + std::pow(10.0, -double(centipawns) / 400.0)) - 1.0);
}

template <Game G>
class AlphaBeta {
 public:
  using Position = typename G::Position;
  using Traits = EvalTraits<G>;

  // tt_entries: transposition-table size, rounded down to a power of two (>= 1024).
  explicit AlphaBeta(int64_t tt_entries = int64_t{1} << 18) {
    int64_t size = 1024;
    while (size * 2 <= tt_entries) size *= 2;
    table_.resize(size_t(size));
    history_.assign(size_t(G::kNumActions), 0);
  }

  // Forgets the transposition table and history (a new game).
  void Clear() {
    std::fill(table_.begin(), table_.end(), Entry{});
    std::fill(history_.begin(), history_.end(), 0);
  }

  // Searches the current position of `state` to `depth` >= 1 plies (plus quiescence) and
  // returns the best move with its score. A terminal root gives kNullMove.
  AlphaBetaResult Search(const GameState<G>& state, int depth) { return Search(state, depth, {}); }

  // The same, stopped by the clock or anything else: `should_stop` (may be empty: never) is
  // polled before every iteration after the first and every 1024 nodes inside them (in the first
  // iteration only once its first root move is searched), and once it returns true the iteration
  // in progress is abandoned and the result of the deepest completed one returned; a first
  // iteration stopped early gives the best of the root moves it finished, with depth 0. A move is
  // always found. Iterative deepening under a time per move.
  AlphaBetaResult Search(const GameState<G>& state, int depth,
                         const std::function<bool()>& should_stop) {
    AlphaBetaResult result;
    path_.clear();
    if constexpr (G::kHasRepetitionDraw) {
      Position replay = state.start_position();
      path_.push_back(G::RepetitionKey(replay));
      for (Move move : state.moves()) {
        G::ApplyMove(replay, move);
        path_.push_back(G::RepetitionKey(replay));
      }
      path_.pop_back();  // the root itself is pushed by Negamax
    }
    nodes_ = 0;
    if (state.outcome().IsTerminal()) return result;
    aborted_ = false;
    for (int d = 1; d <= std::max(depth, 1); ++d) {
      if (d > 1 && should_stop && should_stop()) break;  // no iteration starts after a stop
      stop_ = should_stop ? &should_stop : nullptr;
      first_iteration_ = d == 1;
      root_moves_searched_ = 0;
      const int score = Negamax(state.position(), d, 0, -kMateScore - 1, kMateScore + 1);
      stop_ = nullptr;
      if (aborted_) {
        if (d == 1) result.best_move = root_best_;  // the best of the root moves finished
        break;
      }
      result.score = score;
      result.depth = d;
      result.best_move = root_best_;
      if (score > kMateBound || score < -kMateBound) break;  // a forced result needs no more depth
    }
    aborted_ = false;
    result.nodes = nodes_;
    result.pv = PrincipalVariation(state.position(), result.best_move);
    return result;
  }

  // The quiescence search alone (no full-width ply) of `p` for the side to move, as at the leaves
  // of Search (centipawns; stand pat or the best line of noisy moves; a mate found on the way
  // scores +-(kMateScore - plies)), at most `max_plies` (<= kMaxQuiescencePlies) deep and, once
  // `max_nodes` positions are visited, with every further node scored by the static evaluation (a
  // bounded cost on crowded boards). `p` must not be terminal. Leaves the transposition table as
  // it is.
  int QuiescenceScore(const Position& p, int64_t max_nodes = INT64_MAX,
                      int max_plies = kMaxQuiescencePlies) {
    typename G::MoveList moves;
    G::GenerateMoves(p, moves);
    return QuiescenceScore(p, moves, max_nodes, max_plies);
  }
  // The same with the legal moves of `p` already generated (G::GenerateMoves order); `moves` is
  // reordered.
  int QuiescenceScore(const Position& p, typename G::MoveList& moves, int64_t max_nodes,
                      int max_plies) {
    nodes_ = 1;
    node_limit_ = max_nodes;
    plies_limit_ = std::min(max_plies, kMaxQuiescencePlies);
    const int score = Quiescence(p, moves, 0, 0, -kMateScore - 1, kMateScore + 1);
    node_limit_ = INT64_MAX;
    plies_limit_ = kMaxQuiescencePlies;
    return score;
  }

  // True when the side to move in `p` (not terminal; its legal moves `moves`) stands pat with
  // nothing to try: not in check and no noisy move among `moves`. The quiescence search of such a
  // position is its static evaluation, Evaluate(p, moves.size()), to the centipawn (Quiescence:
  // stand pat, and no move to search), so a caller may skip it.
  static bool IsQuiet(const Position& p, std::span<const Move> moves) {
    if (G::InCheck(p)) return false;
    for (const Move m : moves) {
      if (Traits::IsNoisy(p, m)) return false;
    }
    return true;
  }

  // Positions the last Search or QuiescenceScore visited (QuiescenceScore counts its root).
  int64_t nodes() const { return nodes_; }

  // Static evaluation of `p` for the side to move (centipawns): material plus mobility.
  static int Evaluate(const Position& p, int num_legal_moves) {
    const Color side = G::SideToMove(p);
    const int opponent_moves = G::CountMoves(Traits::WithSideToMove(p, Opponent(side)));
    const int material = Traits::Material(p);
    const int mobility = Traits::kMobilityWeight * (num_legal_moves - opponent_moves);
    return (side == Color::kWhite ? material : -material) + mobility;
  }

 private:
  enum Bound : uint8_t { kNone = 0, kExact, kLower, kUpper };
  struct Entry {
    uint64_t key = 0;
    Move move = kNullMove;
    int32_t score = 0;
    int16_t depth = -1;
    Bound bound = kNone;
  };

  static int TerminalScore(const Position& p, Outcome outcome, int ply) {
    if (outcome.status == Status::kDraw) return 0;
    return outcome.status == WinFor(G::SideToMove(p)) ? kMateScore - ply : -(kMateScore - ply);
  }
  // Mate scores are stored relative to the node so that they stay right at another ply.
  static int ToTable(int score, int ply) {
    return score > kMateBound ? score + ply : score < -kMateBound ? score - ply : score;
  }
  static int FromTable(int score, int ply) {
    return score > kMateBound ? score - ply : score < -kMateBound ? score + ply : score;
  }

  bool IsRepetition(uint64_t key) const {
    // Only positions with the same side to move can repeat: every second entry back.
    for (int i = int(path_.size()) - 2; i >= 0; i -= 2) {
      if (path_[size_t(i)] == key) return true;
    }
    return false;
  }

  // Material won by `m` for the mover (centipawns; promotions and multi-captures included);
  // `material` is Traits::Material(p), computed once per node by the caller.
  static int Gain(const Position& p, Move m, int material) {
    Position child = p;
    G::ApplyMove(child, m);
    const int gain = Traits::Material(child) - material;
    return G::SideToMove(p) == Color::kWhite ? gain : -gain;
  }

  // Orders `moves` in place: TT move, noisy moves by material gained, then quiet moves by history
  // score. Fills gains[i] for the noisy moves (0 for quiet ones).
  void OrderMoves(const Position& p, typename G::MoveList& moves, Move tt_move, int* gains) {
    int keys[G::kMaxMoves];
    std::optional<int> material;  // Traits::Material(p), once the first noisy move needs it
    for (int i = 0; i < moves.size; ++i) {
      const Move m = moves[i];
      int key = std::min(history_[size_t(G::ActionIndex(p, m))], (1 << 20) - 1);
      gains[i] = 0;
      if (Traits::IsNoisy(p, m)) {
        if (!material) material = Traits::Material(p);
        gains[i] = Gain(p, m, *material);
        key = (1 << 28) + std::clamp(gains[i], -4000, 60000) * 4096;
      }
      if (m == tt_move) key = 1 << 30;
      keys[i] = key;
    }
    for (int i = 1; i < moves.size; ++i) {  // insertion sort, descending
      const Move m = moves.moves[i];
      const int k = keys[i];
      const int g = gains[i];
      int j = i - 1;
      while (j >= 0 && keys[j] < k) {
        keys[j + 1] = keys[j];
        moves.moves[j + 1] = moves.moves[j];
        gains[j + 1] = gains[j];
        --j;
      }
      keys[j + 1] = k;
      moves.moves[j + 1] = m;
      gains[j + 1] = g;
    }
  }

  // True once the stop test of a stoppable Search said so; every node then returns at once and
  // nothing more is stored.
  bool Aborted() {
    if (stop_ == nullptr) return false;
    if (!aborted_ && (nodes_ & 1023) == 0 && (!first_iteration_ || root_moves_searched_ > 0)) {
      aborted_ = (*stop_)();
    }
    return aborted_;
  }

  int Negamax(const Position& p, int depth, int ply, int alpha, int beta) {
    ++nodes_;
    if (Aborted()) return 0;
    typename G::MoveList moves;
    G::GenerateMoves(p, moves);
    const Outcome outcome = G::LocalOutcome(p, moves.size);
    if (outcome.IsTerminal()) return TerminalScore(p, outcome, ply);
    const uint64_t key = G::RepetitionKey(p);
    if constexpr (G::kHasRepetitionDraw) {
      if (ply > 0 && IsRepetition(key)) return 0;
    }
    if (depth <= 0 || ply >= kMaxPly) return Quiescence(p, moves, ply, 0, alpha, beta);

    const uint64_t hash = G::Hash(p);
    Entry& entry = table_[size_t(hash & (table_.size() - 1))];
    Move tt_move = kNullMove;
    if (entry.key == hash && entry.bound != kNone) {
      tt_move = entry.move;
      if (ply > 0 && entry.depth >= depth) {
        const int score = FromTable(entry.score, ply);
        if (entry.bound == kExact || (entry.bound == kLower && score >= beta) ||
            (entry.bound == kUpper && score <= alpha)) {
          return score;
        }
      }
    }
    if (!moves.Contains(tt_move)) tt_move = kNullMove;
    int gains[G::kMaxMoves];
    OrderMoves(p, moves, tt_move, gains);

    if constexpr (G::kHasRepetitionDraw) path_.push_back(key);
    const int original_alpha = alpha;
    int best_score = -kMateScore - 1;
    Move best_move = moves[0];
    for (int i = 0; i < moves.size; ++i) {
      Position child = p;
      G::ApplyMove(child, moves[i]);
      const int score = -Negamax(child, depth - 1, ply + 1, -beta, -alpha);
      if (aborted_) break;
      if (ply == 0) ++root_moves_searched_;
      if (score > best_score) {
        best_score = score;
        best_move = moves[i];
      }
      if (score > alpha) alpha = score;
      if (alpha >= beta) {
        if (!Traits::IsNoisy(p, moves[i])) {
          history_[size_t(G::ActionIndex(p, moves[i]))] += depth * depth;
        }
        break;
      }
    }
    if constexpr (G::kHasRepetitionDraw) path_.pop_back();
    if (aborted_) {
      if (ply == 0 && root_moves_searched_ > 0) root_best_ = best_move;
      return 0;
    }

    entry.key = hash;
    entry.move = best_move;
    entry.score = ToTable(best_score, ply);
    entry.depth = int16_t(depth);
    entry.bound = best_score <= original_alpha ? kUpper : best_score >= beta ? kLower : kExact;
    if (ply == 0) root_best_ = best_move;
    return best_score;
  }

  // `moves` are the legal moves of p, already generated by the caller; `qdepth` counts the
  // quiescence plies so far. Beyond kMaxQuiescencePlies the static evaluation is returned.
  int Quiescence(const Position& p, typename G::MoveList& moves, int ply, int qdepth, int alpha,
                 int beta) {
    if (ply >= kMaxPly || qdepth >= plies_limit_ || nodes_ >= node_limit_) {
      return Evaluate(p, moves.size);
    }
    bool must_move = G::InCheck(p);
    if constexpr (Traits::kCapturesForced) {
      must_move = must_move || Traits::IsNoisy(p, moves[0]);
    }
    int stand_pat = 0;
    if (!must_move) {
      stand_pat = Evaluate(p, moves.size);
      if (stand_pat >= beta) return stand_pat;
      if (stand_pat > alpha) alpha = stand_pat;
    }
    int best_score = must_move ? -kMateScore - 1 : alpha;
    int gains[G::kMaxMoves];
    OrderMoves(p, moves, kNullMove, gains);
    for (int i = 0; i < moves.size; ++i) {
      if (!must_move) {
        if (!Traits::IsNoisy(p, moves[i])) continue;
        // Delta pruning: even the whole gain (plus a margin) cannot lift alpha.
        if (stand_pat + gains[i] + kDeltaMargin <= alpha) continue;
      }
      Position child = p;
      G::ApplyMove(child, moves[i]);
      ++nodes_;
      if (Aborted()) return 0;
      typename G::MoveList child_moves;
      G::GenerateMoves(child, child_moves);
      const Outcome outcome = G::LocalOutcome(child, child_moves.size);
      const int score = outcome.IsTerminal()
                            ? -TerminalScore(child, outcome, ply + 1)
                            : -Quiescence(child, child_moves, ply + 1, qdepth + 1, -beta, -alpha);
      if (score > best_score) best_score = score;
      if (score > alpha) alpha = score;
      if (alpha >= beta) break;
    }
    return best_score;
  }

  std::vector<Move> PrincipalVariation(Position p, Move first) const {
    std::vector<Move> pv;
    Move move = first;
    for (int i = 0; i < 32 && move != kNullMove; ++i) {
      typename G::MoveList moves;
      G::GenerateMoves(p, moves);
      if (!moves.Contains(move)) break;
      pv.push_back(move);
      G::ApplyMove(p, move);
      const Entry& entry = table_[size_t(G::Hash(p) & (table_.size() - 1))];
      move = entry.key == G::Hash(p) && entry.bound != kNone ? entry.move : kNullMove;
    }
    return pv;
  }

  std::vector<Entry> table_;
  std::vector<int> history_;    // [action index] cutoff credit of quiet moves
  std::vector<uint64_t> path_;  // repetition keys: game history, then the search path
  int64_t nodes_ = 0;
  int64_t node_limit_ = INT64_MAX;         // of QuiescenceScore; Search has none
  int plies_limit_ = kMaxQuiescencePlies;  // of QuiescenceScore; Search uses kMaxQuiescencePlies
  Move root_best_ = kNullMove;
  const std::function<bool()>* stop_ = nullptr;  // the stop test of the current iteration
  bool aborted_ = false;                         // the stop test said stop
  bool first_iteration_ = false;                 // the iteration in progress is depth 1
  int root_moves_searched_ = 0;                  // root moves finished in this iteration
};

}  // namespace vz
