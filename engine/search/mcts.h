#pragma once

// Monte Carlo tree search over any vz::Game, on the flat-array tree of engine/search/tree.h.
//
// - Selection: PUCT in the AlphaZero form (engine/search/search_params.h) with first-play urgency
//   as a reduction from the parent's value; or, with SearchParams::gumbel, Gumbel root search
//   (Gumbel-top-k, sequential halving, completed-Q improved policy) with the deterministic
//   improved-policy selection below the root (Danihelka et al., ICLR 2022; mctx).
// - Values: WDL from the side to move's point of view at the evaluator, stored from White's view
//   in the tree (no turn order assumed).
// - Batching: a search hands out up to SearchParams::leaves_per_round leaves per round under
//   virtual loss (GatherLeaves), an evaluator fills the batch, ApplyEvaluations backs them up.
//   LockstepRunner (engine/search/lockstep_runner.h) puts many searches in one batch per round.
// - Terminal positions come from the rules (G::LocalOutcome); threefold repetition inside the
//   tree counts the game history of the root and the path (games with kHasRepetitionDraw). The
//   MCTS-solver propagates proven results; a proven root ends the search, so a found mate is
//   played at once.
// - Moves sharing an action index (G::kActionsMayCollide) are separate children; the evaluator
//   gives each its own prior (PriorsFromActionLogits in engine/search/policy.h shares one
//   action's probability among its moves; PolicyTargetByAction adds their targets back up).
//
// A "simulation" is one descent from an expanded root that ends in an evaluated leaf or a
// terminal/proven node; the root's own first evaluation is not counted. Visit counts are 32-bit:
// one search runs at most kMaxSimulations simulations (fewer on a reused tree).
//
// A node is expanded (has children) once an evaluation of it arrives together with its new
// children: the children get their priors from that evaluation. At the node cap (the tree is
// full) a new leaf is still evaluated once and backed up without children, but a descent that
// reaches a leaf already evaluated, which could only be expanded by allocating nodes, ends the
// search (Done() is true, Result().tree_full says so): evaluating that leaf again would count
// one estimate many times over (with a fixed evaluator, thousands of identical backups drive
// the root to a false +1). This is the stop of Lc0's memory limit; the best move so far is
// played. A later search starts anew: tree reuse may have made room, and the first descent that
// then reaches such a leaf allocates its children, whose priors come from that new evaluation.
//
// Before the first simulation every root move is applied once and its position checked for an
// immediate end by the rules (and repetition): a move that ends the game is marked proven, so a
// move that wins at once is always played (the search ends there, solver or not) and a move
// that loses at once never is, however many root moves the priors spread over.
//
// Evaluations are checked: a non-finite value or prior (a broken network) cancels the round and
// throws vz::Error, so that nothing non-finite enters the tree and no selection loop can spin.
//
// Not thread-safe: one search belongs to one thread (parallelism comes from batching many games).

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game.h"
#include "engine/core/game_state.h"
#include "engine/search/evaluator.h"
#include "engine/search/gumbel.h"
#include "engine/search/search_params.h"
#include "engine/search/search_result.h"
#include "engine/search/tree.h"

namespace vz {

template <Game G>
class Mcts {
 public:
  using Position = typename G::Position;
  using MoveList = typename G::MoveList;
  static constexpr int32_t kRoot = SearchTree::kRoot;
  static constexpr size_t kBytesPerNode = SearchTree::kBytesPerNode;
  static_assert(G::kMaxMoves < 65536, "children counts are 16-bit");
  // The smallest node cap: the root and a full set of children, so that the root can always be
  // expanded and the search has a move to play.
  static constexpr int64_t kMinNodes = 1 + int64_t{G::kMaxMoves};

  // `params.max_nodes` is clamped to [kMinNodes, SearchTree::kMaxNodes] (params() returns the
  // clamped value).
  explicit Mcts(const SearchParams& params = {}) : params_(params), rng_(params.seed) {
    params_.max_nodes = std::clamp(params_.max_nodes, kMinNodes, SearchTree::kMaxNodes);
    scratch_q_.resize(G::kMaxMoves);
    scratch_visits_.resize(G::kMaxMoves);
    scratch_priors_.resize(G::kMaxMoves);
    scratch_sigma_.resize(G::kMaxMoves);
    SetRoot(GameState<G>());
  }

  // The node cap that fits in `mib` MiB of tree memory (the live tree; tree reuse's copy buffer
  // holds at most the kept subtree on top): SearchTree::NodesForMiB, at least kMinNodes.
  static int64_t NodesForMiB(double mib) {
    return std::max(kMinNodes, SearchTree::NodesForMiB(mib));
  }

  const SearchParams& params() const { return params_; }

  // Sets the root to the game's current position, with its history for repetition. When `state`
  // continues the game of the current root (same start, the current moves as a prefix), the tree
  // is kept and advanced by the extra moves; otherwise it is cleared. No search may be running.
  void SetRoot(const GameState<G>& state) {
    VZ_CHECK(pending_.empty());
    const bool continues = SamePosition(start_, state.start_position()) &&
                           state.moves().size() >= moves_.size() &&
                           std::equal(moves_.begin(), moves_.end(), state.moves().begin());
    if (has_root_ && continues) {
      for (size_t i = moves_.size(); i < state.moves().size(); ++i) Advance(state.moves()[i]);
      return;
    }
    has_root_ = true;
    start_ = state.start_position();
    moves_ = state.moves();
    history_counts_.clear();
    Position position = start_;
    AddHistoryKey(G::RepetitionKey(position));
    for (Move move : moves_) {
      G::ApplyMove(position, move);
      AddHistoryKey(G::RepetitionKey(position));
    }
    SetRootPosition(state.position());
    ClearTree();
  }

  // Sets the root to `position` with no history.
  void SetRoot(const Position& position) {
    has_root_ = false;
    SetRoot(GameState<G>(position));
  }

  // Plays `move` at the root, keeping its subtree as the new tree. Throws vz::Error if the move
  // is not legal at the root. No search may be running.
  void Advance(Move move) {
    VZ_CHECK(pending_.empty());
    if (root_outcome_.IsTerminal() || !root_legal_.Contains(move)) {
      throw Error("move is not legal at the search root " + G::FormatPosition(root_position_));
    }
    int32_t kept = SearchTree::kNone;
    if (tree_.first_child[kRoot] != SearchTree::kNone) {
      for (int i = 0; i < tree_.num_children[kRoot]; ++i) {
        const int32_t child = tree_.first_child[kRoot] + i;
        if (tree_.move[child] == move) kept = child;
      }
    }
    Position next = root_position_;
    G::ApplyMove(next, move);
    moves_.push_back(move);
    AddHistoryKey(G::RepetitionKey(next));
    SetRootPosition(next);
    if (kept == SearchTree::kNone) {
      ClearTree();
    } else {
      KeepSubtree(kept);
    }
  }

  // Restricts the searches from the current root to `moves` (UCI's `go searchmoves`); empty
  // lifts the restriction. A change of the restriction clears the tree (the root's children are
  // the allowed moves only). Throws vz::Error naming the move if one is not legal at the root.
  // The restriction ends when the root changes (Advance, or SetRoot to another position). No
  // search may be running.
  void RestrictRootMoves(std::span<const Move> moves) {
    VZ_CHECK(pending_.empty());
    std::vector<Move> filter(moves.begin(), moves.end());
    for (Move move : filter) {
      if (!root_legal_.Contains(move)) {
        throw Error("searchmoves: move is not legal at the search root " +
                    G::FormatPosition(root_position_));
      }
    }
    std::sort(filter.begin(), filter.end(), [](Move a, Move b) { return a.raw < b.raw; });
    filter.erase(std::unique(filter.begin(), filter.end()), filter.end());
    if (filter == root_filter_) return;
    root_filter_ = std::move(filter);
    ClearTree();
  }
  // The moves the root is restricted to, sorted; empty when all legal moves are searched.
  const std::vector<Move>& root_move_restriction() const { return root_filter_; }

  const Position& root_position() const { return root_position_; }
  // Outcome of the root position (rules and repetition with the game history).
  Outcome root_outcome() const { return root_outcome_; }
  const typename G::MoveList& root_legal_moves() const { return root_legal_; }

  // Starts a search of `num_simulations` new simulations on the current tree (negative: none).
  // Throws vz::Error if the root's 32-bit visit count cannot take them (more than
  // kMaxSimulations on a fresh tree, fewer on a reused one).
  void StartSearch(int64_t num_simulations) {
    VZ_CHECK(pending_.empty());
    const int64_t room = SearchTree::kMaxVisits - std::max<int32_t>(1, tree_.visits[kRoot]);
    if (num_simulations > room) {
      throw Error("simulations " + std::to_string(num_simulations) + " is above " +
                  std::to_string(room) + ", what the root's 32-bit visit count can still take");
    }
    target_ = std::max<int64_t>(0, num_simulations);
    simulations_ = 0;
    // Room for the expected growth at once (untouched capacity costs no memory), so that the
    // arrays are not copied over and over while the tree grows.
    const int64_t expected = int64_t(tree_.size) + (target_ + 1) * std::max(1, root_legal_.size);
    tree_.Reserve(
        size_t(std::min<int64_t>(int64_t(std::bit_ceil(uint64_t(expected))), params_.max_nodes)));
    node_cap_reached_ = false;
    tree_full_ = false;
    gumbel_ready_ = false;
    if (tree_.first_child[kRoot] != SearchTree::kNone) MarkRootChildrenThatEndTheGame();
    if (RootExpanded()) OnRootExpanded();
  }

  // True when the search started by StartSearch has nothing more to do: the budget is spent, the
  // root is terminal or proven (a root move that wins at once proves it, solver or not), or the
  // tree is full. Always false while leaves are in flight.
  bool Done() const {
    if (!pending_.empty()) return false;
    if (RootDone() || tree_full_) return true;
    return simulations_ >= target_;
  }

  // Descends from the root up to leaves_per_round times and appends the leaves that need an
  // evaluation to `batch` (which may hold other searches' entries). Terminal and proven leaves
  // are backed up at once. Returns the number of entries appended. Every appended entry must be
  // evaluated and handed back through ApplyEvaluations before the next call.
  int GatherLeaves(EvalBatch<G>& batch) {
    int added = 0;
    int collisions = 0;
    while (!RootDone() && !tree_full_ && added < params_.leaves_per_round &&
           collisions < std::max(1, params_.max_collisions)) {
      if (RootExpanded() && simulations_ >= target_) break;
      switch (GatherOne(batch)) {
        case Gathered::kLeaf: ++added; break;
        case Gathered::kTerminal: break;
        case Gathered::kCollision: ++collisions; break;
        case Gathered::kFull: break;
      }
    }
    return added;
  }

  // Reads this search's entries of `batch` (evaluated), expands the leaves and backs up values.
  // Throws vz::Error, with the leaves cancelled as by CancelPending and nothing applied, if an
  // entry's value or a prior is not finite.
  void ApplyEvaluations(const EvalBatch<G>& batch) {
    for (const Pending& pending : pending_) {
      const Wdl& wdl = batch.value(pending.batch_index);
      bool finite = std::isfinite(wdl.win) && std::isfinite(wdl.draw) && std::isfinite(wdl.loss);
      for (float prior : batch.priors(pending.batch_index)) finite = finite && std::isfinite(prior);
      if (!finite) {
        const std::string position = G::FormatPosition(batch.position(pending.batch_index));
        CancelPending();
        throw Error("the evaluator returned a non-finite value or prior for position " + position);
      }
    }
    for (const Pending& pending : pending_) {
      const int32_t node = pending.node;
      const Wdl wdl = batch.value(pending.batch_index);
      const bool white = Color(tree_.side[node]) == Color::kWhite;
      const float value_white = white ? wdl.Value() : -wdl.Value();
      if (tree_.visits[node] == 0) tree_.raw_value[node] = value_white;
      if (pending.new_children) SetPriors(node, batch.priors(pending.batch_index));
      Backup(node, value_white, wdl.draw);
      if (node == kRoot) OnRootExpanded();
    }
    pending_.clear();
  }

  // Forgets the leaves in flight (after an evaluator failure): their virtual loss is removed,
  // the children allocated for them are dropped (they would have no priors) and they count as not
  // visited; the tree stays valid and the search can go on or be restarted.
  void CancelPending() {
    // Newest first: the children of the leaves in flight are the last blocks of the tree, in the
    // order of pending_.
    for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
      const int32_t node = it->node;
      UndoVirtualLoss(node);
      if (it->new_children) {
        VZ_CHECK(tree_.first_child[node] + tree_.num_children[node] == tree_.size);
        tree_.size = tree_.first_child[node];
        tree_.first_child[node] = SearchTree::kNone;
        tree_.num_children[node] = 0;
      }
      if (node != kRoot || tree_.visits[kRoot] > 0) --simulations_;
    }
    pending_.clear();
  }

  // Runs a whole search with its own batches: StartSearch, then rounds until Done. If the
  // evaluator throws, the leaves in flight are cancelled and the exception propagates.
  void Search(Evaluator<G>& evaluator, int64_t num_simulations) {
    StartSearch(num_simulations);
    while (!Done()) {
      batch_.Clear();
      GatherLeaves(batch_);
      try {
        if (batch_.size() > 0) evaluator.Evaluate(batch_);
      } catch (...) {
        CancelPending();
        throw;
      }
      ApplyEvaluations(batch_);
    }
  }

  // The move to play at temperature 0: a proven win (shortest), else the sequential-halving
  // winner (Gumbel) or the most visited move not proven lost. kNullMove if the root is terminal or
  // unexpanded.
  Move BestMove() const {
    const int32_t child = BestChild(kRoot);
    return child == SearchTree::kNone ? kNullMove : tree_.move[child];
  }

  // The move to play: BestMove at temperature <= 0, for a proven root, and with Gumbel (the
  // Gumbel sample already explores); otherwise sampled with probability proportional to
  // visits^(1 / temperature) among moves not proven lost, with the search's generator.
  Move ChooseMove(float temperature) {
    const Move best = BestMove();
    if (best == kNullMove || temperature <= 0.0f || params_.gumbel || RootProven()) return best;
    const int32_t first = tree_.first_child[kRoot];
    const int n = tree_.num_children[kRoot];
    const Color side = Color(tree_.side[kRoot]);
    std::vector<double> weights(static_cast<size_t>(n), 0.0);
    double total = 0.0;
    for (int i = 0; i < n; ++i) {
      const int32_t child = first + i;
      if (IsLossFor(child, side)) continue;
      weights[size_t(i)] = std::pow(double(tree_.visits[child]), 1.0 / double(temperature));
      total += weights[size_t(i)];
    }
    if (total <= 0.0) return best;
    double pick = std::uniform_real_distribution<double>(0.0, total)(rng_);
    for (int i = 0; i < n; ++i) {
      pick -= weights[size_t(i)];
      if (pick < 0.0 && weights[size_t(i)] > 0.0) return tree_.move[first + i];
    }
    return best;
  }

  // Statistics of the root after the last search. A finished game at the root (no legal move, or
  // an outcome by the rules or repetition) reports its result as proven in 0 plies.
  SearchResult Result() const {
    SearchResult result;
    result.root_outcome = root_outcome_;
    result.simulations = simulations_;
    result.nodes = tree_.size;
    result.node_cap_reached = node_cap_reached_;
    result.tree_full = tree_full_;
    result.root_visits = tree_.visits[kRoot];
    const Color side = G::SideToMove(root_position_);
    const float sign = side == Color::kWhite ? 1.0f : -1.0f;
    if (tree_.visits[kRoot] > 0) {
      result.root_q = sign * tree_.value_sum[kRoot] / float(tree_.visits[kRoot]) + 0.0f;
      result.root_wdl =
          Wdl::FromValueAndDraw(result.root_q, tree_.draw_sum[kRoot] / float(tree_.visits[kRoot]));
    }
    if (RootProven()) {
      result.proven = Status(tree_.proven[kRoot]);
      result.proven_plies = tree_.proven_plies[kRoot];
      result.root_wdl = ExactWdl(result.proven, side);
      result.root_q = result.root_wdl.Value();
    }
    if (root_outcome_.IsTerminal() || root_legal_.size == 0) {
      // As ExpandLeaf scores a terminal node: no legal move without an outcome is a draw.
      result.proven = root_outcome_.IsTerminal() ? root_outcome_.status : Status::kDraw;
      result.proven_plies = 0;
      result.root_wdl = ExactWdl(result.proven, side);
      result.root_q = result.root_wdl.Value();
    }
    if (!RootExpanded()) return result;
    const int32_t first = tree_.first_child[kRoot];
    const int n = tree_.num_children[kRoot];
    int64_t total_visits = 0;
    for (int i = 0; i < n; ++i) total_visits += tree_.visits[first + i];
    const Move best_move = BestMove();
    if (params_.gumbel) {
      RootSigma();
      ImprovedPolicy(std::span<const float>(scratch_priors_.data(), size_t(n)),
                     std::span<const float>(scratch_sigma_.data(), size_t(n)),
                     std::span<float>(scratch_q_.data(), size_t(n)));
    }
    for (int i = 0; i < n; ++i) {
      const int32_t child = first + i;
      RootMoveStats stats;
      stats.move = tree_.move[child];
      stats.action = G::ActionIndex(root_position_, stats.move);
      stats.visits = tree_.visits[child];
      stats.prior = tree_.prior[child];
      if (stats.visits > 0) {
        stats.q = sign * tree_.value_sum[child] / float(stats.visits) + 0.0f;  // no -0
        stats.wdl = Wdl::FromValueAndDraw(stats.q, tree_.draw_sum[child] / float(stats.visits));
      }
      stats.proven = Status(tree_.proven[child]);
      if (stats.proven != Status::kOngoing) {
        stats.proven_plies = 1 + tree_.proven_plies[child];
        stats.wdl = ExactWdl(stats.proven, side);
        stats.q = stats.wdl.Value();
      }
      if (RootProven() && result.proven == WinFor(side)) {
        // A proven win: the target is the shortest win, not the visits spent before the proof.
        stats.policy_target = stats.move == best_move ? 1.0f : 0.0f;
      } else if (params_.gumbel) {
        stats.policy_target = scratch_q_[size_t(i)];
      } else {
        stats.policy_target =
            total_visits > 0 ? float(double(stats.visits) / double(total_visits)) : stats.prior;
      }
      result.moves.push_back(stats);
    }
    result.best_move = best_move;
    for (int32_t node = kRoot;;) {
      const int32_t child = BestChild(node);
      if (child == SearchTree::kNone) break;
      if (tree_.visits[child] == 0 && tree_.proven[child] == uint8_t(Status::kOngoing)) break;
      result.pv.push_back(tree_.move[child]);
      node = child;
    }
    return result;
  }

  // Read-only view of the tree (tests, analysis tools).
  const SearchTree& tree() const { return tree_; }
  int64_t num_nodes() const { return tree_.size; }
  bool node_cap_reached() const { return node_cap_reached_; }
  // The last search ended because the tree was full (see the file comment).
  bool tree_full() const { return tree_full_; }
  int64_t simulations() const { return simulations_; }
  // Bytes held by the tree arrays of both halves (the live tree and the copy buffer of reuse).
  size_t MemoryBytes() const { return tree_.MemoryBytes() + spare_.MemoryBytes(); }
  // Occurrences of the root position in the game history (1 = first time).
  int root_repetition_count() const { return root_repetition_; }

 private:
  enum class Gathered { kLeaf, kTerminal, kCollision, kFull };

  struct Pending {
    int32_t node;
    int batch_index;
    bool new_children;  // children were allocated with this descent: they take its priors
  };

  // Equal positions. Bytewise only where that is exact: padding bytes (Chad's Position has some)
  // may differ between equal positions, and the hash leaves out the move counters; the position
  // string is the whole state (it round-trips through ParsePosition).
  static bool SamePosition(const Position& a, const Position& b) {
    if constexpr (std::has_unique_object_representations_v<Position>) {
      return std::memcmp(&a, &b, sizeof(Position)) == 0;
    } else {
      return G::Hash(a) == G::Hash(b) && G::FormatPosition(a) == G::FormatPosition(b);
    }
  }

  static Wdl ExactWdl(Status status, Color side) {
    if (status == Status::kDraw) return Wdl{0.0f, 1.0f, 0.0f};
    return status == WinFor(side) ? Wdl{1.0f, 0.0f, 0.0f} : Wdl{0.0f, 0.0f, 1.0f};
  }

  bool RootExpanded() const {
    return tree_.visits[kRoot] > 0 && tree_.first_child[kRoot] != SearchTree::kNone;
  }
  // Proven by the solver, or (solver or not) by a root move that wins at once.
  bool RootProven() const {
    return tree_.proven[kRoot] != uint8_t(Status::kOngoing) &&
           (params_.solver || root_wins_at_once_);
  }
  bool RootDone() const {
    return root_outcome_.IsTerminal() || root_legal_.size == 0 || RootProven();
  }
  // A move into `node` loses for `side`: proven by the solver, or (solver or not) the rules end
  // the game there at once.
  bool IsLossFor(int32_t node, Color side) const {
    return tree_.proven[node] == uint8_t(WinFor(Opponent(side))) &&
           (params_.solver || tree_.proven_plies[node] == 0);
  }

  void AddHistoryKey(uint64_t key) {
    auto it = std::lower_bound(history_counts_.begin(), history_counts_.end(),
                               std::pair<uint64_t, int32_t>(key, 0));
    if (it != history_counts_.end() && it->first == key) {
      ++it->second;
    } else {
      history_counts_.insert(it, {key, 1});
    }
  }

  int HistoryCount(uint64_t key) const {
    auto it = std::lower_bound(history_counts_.begin(), history_counts_.end(),
                               std::pair<uint64_t, int32_t>(key, 0));
    return it != history_counts_.end() && it->first == key ? it->second : 0;
  }

  void SetRootPosition(const Position& position) {
    root_position_ = position;
    root_legal_.Clear();
    G::GenerateMoves(root_position_, root_legal_);
    root_outcome_ = G::LocalOutcome(root_position_, root_legal_.size);
    root_repetition_ = 1;
    if constexpr (G::kHasRepetitionDraw) {
      root_repetition_ = std::max(1, HistoryCount(G::RepetitionKey(root_position_)));
      if (!root_outcome_.IsTerminal() && root_repetition_ >= 3) {
        root_outcome_ = {Status::kDraw, Reason::kRepetition};
      }
    }
    root_noise_applied_ = false;
    root_filter_.clear();
  }

  void ClearTree() {
    root_wins_at_once_ = false;
    tree_.Reserve(1);
    tree_.size = 1;
    tree_.InitNode(kRoot, kNullMove, SearchTree::kNone);
    tree_.side[kRoot] = uint8_t(G::SideToMove(root_position_));
  }

  // Makes node `kept` the root of a compacted copy of its subtree (breadth-first, so children
  // stay contiguous), then swaps the copy in.
  void KeepSubtree(int32_t kept) {
    spare_.Reserve(1);
    spare_.size = 1;
    spare_.CopyNode(kRoot, tree_, kept);
    spare_.parent[kRoot] = SearchTree::kNone;
    spare_.prior[kRoot] = 0.0f;
    spare_.side[kRoot] = uint8_t(G::SideToMove(root_position_));
    old_ids_.assign(1, kept);
    for (int32_t i = 0; i < spare_.size; ++i) {
      const int32_t old = old_ids_[size_t(i)];
      const int32_t old_first = tree_.first_child[old];
      if (old_first == SearchTree::kNone) continue;
      const int n = tree_.num_children[old];
      const int32_t first = spare_.size;
      if (size_t(first + n) > spare_.capacity()) {
        spare_.Reserve(std::max(size_t(first + n), spare_.capacity() * 2));
      }
      spare_.first_child[i] = first;
      for (int k = 0; k < n; ++k) {
        spare_.CopyNode(first + k, tree_, old_first + k);
        spare_.parent[first + k] = i;
        old_ids_.push_back(old_first + k);
      }
      spare_.size += n;
    }
    std::swap(tree_, spare_);
    spare_.size = 0;
    root_wins_at_once_ = false;
  }

  bool AllocateChildren(int32_t node, const MoveList& moves) {
    const int64_t needed = int64_t(tree_.size) + moves.size;
    if (needed > params_.max_nodes) {
      node_cap_reached_ = true;
      return false;
    }
    if (size_t(needed) > tree_.capacity()) {
      const int64_t grown = std::max<int64_t>({needed, int64_t(tree_.capacity()) * 2, 4096});
      tree_.Reserve(size_t(std::min<int64_t>(grown, std::max(needed, params_.max_nodes))));
    }
    tree_.AppendChildren(node, moves.moves, moves.size);
    return true;
  }

  void SetPriors(int32_t node, std::span<const float> priors) {
    float* out = tree_.prior.data() + tree_.first_child[node];
    const int n = tree_.num_children[node];
    VZ_CHECK(int(priors.size()) == n);
    float total = 0.0f;
    for (int i = 0; i < n; ++i) total += priors[size_t(i)] > 0.0f ? priors[size_t(i)] : 0.0f;
    if (!(total > 0.0f) || !std::isfinite(total)) {
      std::fill_n(out, n, 1.0f / float(n));
      return;
    }
    const float scale = 1.0f / total;
    for (int i = 0; i < n; ++i) {
      out[i] = priors[size_t(i)] > 0.0f ? priors[size_t(i)] * scale : 0.0f;
    }
  }

  // Root noise and Gumbel sampling, once the root has children with priors.
  void OnRootExpanded() {
    if (!RootExpanded()) return;
    const int32_t first = tree_.first_child[kRoot];
    const int n = tree_.num_children[kRoot];
    if (!root_noise_applied_ && params_.dirichlet_epsilon > 0.0f &&
        params_.dirichlet_alpha > 0.0f) {
      root_noise_applied_ = true;
      std::gamma_distribution<double> gamma(params_.dirichlet_alpha, 1.0);
      std::vector<double> noise(static_cast<size_t>(n));
      double total = 0.0;
      for (double& x : noise) total += (x = gamma(rng_));
      if (total > 0.0) {
        const float epsilon = params_.dirichlet_epsilon;
        for (int i = 0; i < n; ++i) {
          tree_.prior[first + i] =
              (1.0f - epsilon) * tree_.prior[first + i] + epsilon * float(noise[size_t(i)] / total);
        }
      }
    }
    if (params_.gumbel && !gumbel_ready_) {
      gumbel_ready_ = true;
      gumbel_noise_.resize(size_t(n));
      gumbel_base_visits_.resize(size_t(n));
      std::uniform_real_distribution<double> uniform(1e-12, 1.0);
      for (int i = 0; i < n; ++i) {
        gumbel_noise_[size_t(i)] = float(-std::log(-std::log(uniform(rng_))));
        gumbel_base_visits_[size_t(i)] = tree_.visits[first + i];
      }
      gumbel_considered_ = std::min(std::max(1, params_.gumbel_max_considered), n);
      gumbel_budget_ = std::max<int64_t>(target_ - simulations_, 1);
      gumbel_simulation_ = 0;
    }
  }

  // One descent. Applies virtual loss along the path as it goes.
  Gathered GatherOne(EvalBatch<G>& batch) {
    Position position = root_position_;
    int32_t node = kRoot;
    path_keys_.clear();
    ++tree_.in_flight[kRoot];
    for (;;) {
      if (node != kRoot && tree_.proven[node] != uint8_t(Status::kOngoing)) {
        BackupExact(node, Status(tree_.proven[node]));
        ++simulations_;
        return Gathered::kTerminal;
      }
      const bool expanded = tree_.visits[node] > 0 && tree_.first_child[node] != SearchTree::kNone;
      if (!expanded) {
        if (tree_.in_flight[node] > 1) {
          UndoVirtualLoss(node);
          // The root's sequential-halving step was not used: hand it out again.
          if (node != kRoot && params_.gumbel && gumbel_ready_) --gumbel_simulation_;
          return Gathered::kCollision;
        }
        return ExpandLeaf(node, position, batch);
      }
      const bool white = G::SideToMove(position) == Color::kWhite;
      if (node == kRoot) {
        node = params_.gumbel && gumbel_ready_ ? SelectGumbelRoot() : SelectPuct(node, white);
      } else {
        node = params_.gumbel ? SelectGumbelInterior(node, white) : SelectPuct(node, white);
      }
      G::ApplyMove(position, tree_.move[node]);
      ++tree_.in_flight[node];
      if constexpr (G::kHasRepetitionDraw) path_keys_.push_back(G::RepetitionKey(position));
    }
  }

  Gathered ExpandLeaf(int32_t node, const Position& position, EvalBatch<G>& batch) {
    moves_buffer_.Clear();
    G::GenerateMoves(position, moves_buffer_);
    Outcome outcome = G::LocalOutcome(position, moves_buffer_.size);
    int repetition = 1;
    if constexpr (G::kHasRepetitionDraw) {
      if (node == kRoot) {
        repetition = root_repetition_;
      } else {
        const uint64_t key = path_keys_.back();
        repetition = HistoryCount(key);
        for (uint64_t k : path_keys_) repetition += k == key;
        if (!outcome.IsTerminal() && repetition >= 3)
          outcome = {Status::kDraw, Reason::kRepetition};
      }
    }
    tree_.side[node] = uint8_t(G::SideToMove(position));
    if (outcome.IsTerminal() || moves_buffer_.size == 0) {
      const Status status = outcome.IsTerminal() ? outcome.status : Status::kDraw;
      tree_.proven[node] = uint8_t(status);
      tree_.proven_plies[node] = 0;
      BackupExact(node, status);
      if (params_.solver) PropagateProof(tree_.parent[node]);
      ++simulations_;
      return Gathered::kTerminal;
    }
    if (node == kRoot && !root_filter_.empty()) {
      int kept = 0;
      for (int i = 0; i < moves_buffer_.size; ++i) {
        const Move move = moves_buffer_.moves[i];
        if (std::binary_search(root_filter_.begin(), root_filter_.end(), move,
                               [](Move a, Move b) { return a.raw < b.raw; })) {
          moves_buffer_.moves[kept++] = move;
        }
      }
      moves_buffer_.size = kept;
    }
    bool new_children = false;
    if (tree_.first_child[node] == SearchTree::kNone) {
      new_children = AllocateChildren(node, moves_buffer_);
      if (!new_children && tree_.visits[node] > 0) {
        // The tree is full and this leaf's value is already in it: end the search.
        tree_full_ = true;
        UndoVirtualLoss(node);
        if (node != kRoot && params_.gumbel && gumbel_ready_) --gumbel_simulation_;
        return Gathered::kFull;
      }
      if (new_children && node == kRoot) MarkRootChildrenThatEndTheGame();
    }
    const int index = batch.Add(position, moves_buffer_.moves, moves_buffer_.size, repetition);
    pending_.push_back({node, index, new_children});
    if (node != kRoot || tree_.visits[kRoot] > 0) ++simulations_;
    return Gathered::kLeaf;
  }

  // Applies every root move once and marks the children whose position ends the game (rules and
  // repetition with the game history) as proven in 0 plies; then proves the root as the solver
  // would, or, without the solver, only by a move that wins at once.
  void MarkRootChildrenThatEndTheGame() {
    root_wins_at_once_ = false;
    const int32_t first = tree_.first_child[kRoot];
    const int n = tree_.num_children[kRoot];
    const Color side = G::SideToMove(root_position_);
    bool wins = false;
    for (int i = 0; i < n; ++i) {
      const int32_t child = first + i;
      if (tree_.proven[child] != uint8_t(Status::kOngoing)) {
        wins = wins ||
               (tree_.proven[child] == uint8_t(WinFor(side)) && tree_.proven_plies[child] == 0);
        continue;
      }
      Position next = root_position_;
      G::ApplyMove(next, tree_.move[child]);
      replies_.Clear();
      G::GenerateMoves(next, replies_);
      Outcome outcome = G::LocalOutcome(next, replies_.size);
      if constexpr (G::kHasRepetitionDraw) {
        if (!outcome.IsTerminal() && HistoryCount(G::RepetitionKey(next)) + 1 >= 3) {
          outcome = {Status::kDraw, Reason::kRepetition};
        }
      }
      if (!outcome.IsTerminal() && replies_.size > 0) continue;
      const Status status = outcome.IsTerminal() ? outcome.status : Status::kDraw;
      tree_.side[child] = uint8_t(G::SideToMove(next));
      tree_.proven[child] = uint8_t(status);
      tree_.proven_plies[child] = 0;
      wins = wins || status == WinFor(side);
    }
    if (params_.solver) {
      PropagateProof(kRoot);
    } else if (wins && tree_.proven[kRoot] == uint8_t(Status::kOngoing)) {
      tree_.proven[kRoot] = uint8_t(WinFor(side));
      tree_.proven_plies[kRoot] = 1;
    }
    root_wins_at_once_ = wins;
  }

  void Backup(int32_t node, float value_white, float draw) {
    for (int32_t n = node; n != SearchTree::kNone; n = tree_.parent[n]) {
      ++tree_.visits[n];
      tree_.value_sum[n] += value_white;
      tree_.draw_sum[n] += draw;
      --tree_.in_flight[n];
    }
  }

  void BackupExact(int32_t node, Status status) {
    const float value_white = status == Status::kWhiteWins   ? 1.0f
                              : status == Status::kBlackWins ? -1.0f
                                                             : 0.0f;
    Backup(node, value_white, status == Status::kDraw ? 1.0f : 0.0f);
  }

  void UndoVirtualLoss(int32_t node) {
    for (int32_t n = node; n != SearchTree::kNone; n = tree_.parent[n]) --tree_.in_flight[n];
  }

  // Proves `node` and its ancestors while their children allow it: a child won for the side to
  // move proves a win; all children proven prove a draw (if any draw) or a loss.
  void PropagateProof(int32_t node) {
    for (int32_t n = node; n != SearchTree::kNone; n = tree_.parent[n]) {
      if (tree_.proven[n] != uint8_t(Status::kOngoing)) return;
      const int32_t first = tree_.first_child[n];
      if (first == SearchTree::kNone) return;
      const Color side = Color(tree_.side[n]);
      const uint8_t win = uint8_t(WinFor(side));
      const uint8_t draw = uint8_t(Status::kDraw);
      int win_plies = std::numeric_limits<int>::max();
      int draw_plies = std::numeric_limits<int>::max();
      int loss_plies = 0;
      bool all_proven = true;
      for (int i = 0; i < tree_.num_children[n]; ++i) {
        const uint8_t proven = tree_.proven[first + i];
        const int plies = tree_.proven_plies[first + i];
        if (proven == uint8_t(Status::kOngoing)) {
          all_proven = false;
        } else if (proven == win) {
          win_plies = std::min(win_plies, plies);
        } else if (proven == draw) {
          draw_plies = std::min(draw_plies, plies);
        } else {
          loss_plies = std::max(loss_plies, plies);
        }
      }
      Status result;
      int plies;
      if (win_plies != std::numeric_limits<int>::max()) {
        result = WinFor(side);
        plies = win_plies;
      } else if (!all_proven) {
        return;
      } else if (draw_plies != std::numeric_limits<int>::max()) {
        result = Status::kDraw;
        plies = draw_plies;
      } else {
        result = WinFor(Opponent(side));
        plies = loss_plies;
      }
      tree_.proven[n] = uint8_t(result);
      tree_.proven_plies[n] = uint16_t(std::min(plies + 1, 65535));
    }
  }

  // One pass over the children: unvisited children all share the first-play urgency value, so
  // only the best prior among them matters, and FPU is applied once the visited policy is known.
  int32_t SelectPuct(int32_t node, bool white) const {
    const int32_t first = tree_.first_child[node];
    const int n = tree_.num_children[node];
    const float sign = white ? 1.0f : -1.0f;
    const uint8_t win = uint8_t(white ? Status::kWhiteWins : Status::kBlackWins);
    const uint8_t loss = uint8_t(white ? Status::kBlackWins : Status::kWhiteWins);
    const float parent_visits = float(tree_.visits[node] + tree_.in_flight[node]);
    const float c_puct =
        params_.c_puct_init +
        std::log((parent_visits + params_.c_puct_base + 1.0f) / params_.c_puct_base);
    const float factor = c_puct * std::sqrt(parent_visits);
    const int32_t* visits = tree_.visits.data() + first;
    const int32_t* in_flight = tree_.in_flight.data() + first;
    const float* value_sum = tree_.value_sum.data() + first;
    const float* prior = tree_.prior.data() + first;
    const uint8_t* proven = tree_.proven.data() + first;
    const float virtual_loss = params_.virtual_loss;
    float visited_policy = 0.0f;
    int best = -1;
    float best_score = -std::numeric_limits<float>::infinity();
    int best_unvisited = -1;
    float best_unvisited_prior = -1.0f;
    for (int i = 0; i < n; ++i) {
      const int32_t count = visits[i] + in_flight[i];
      if (params_.solver && proven[i] != uint8_t(Status::kOngoing)) {
        if (proven[i] == win) return first + i;
        if (count > 0) visited_policy += prior[i];
        const float score =
            proven[i] == loss ? -1e6f + prior[i] : factor * prior[i] / float(1 + count);
        if (score > best_score) {
          best_score = score;
          best = i;
        }
        continue;
      }
      const float effective = float(visits[i]) + virtual_loss * float(in_flight[i]);
      if (count == 0 || effective <= 0.0f) {
        if (prior[i] > best_unvisited_prior) {
          best_unvisited_prior = prior[i];
          best_unvisited = i;
        }
        continue;
      }
      visited_policy += prior[i];
      const float q = (sign * value_sum[i] - virtual_loss * float(in_flight[i])) / effective;
      const float score = q + factor * prior[i] / float(1 + count);
      if (score > best_score) {
        best_score = score;
        best = i;
      }
    }
    if (best_unvisited >= 0) {
      const float parent_q = sign * tree_.value_sum[node] / float(tree_.visits[node]);
      const float reduction = node == kRoot ? params_.fpu_reduction_root : params_.fpu_reduction;
      const float fpu = parent_q - reduction * std::sqrt(visited_policy);
      const float score = fpu + factor * best_unvisited_prior;
      if (best < 0 || score > best_score || (score == best_score && best_unvisited < best)) {
        best = best_unvisited;
      }
    }
    return first + best;
  }

  // Fills scratch_{q,visits,priors}_ for the children of `node` (Q for the side `sign` to move,
  // exact for proven children) and scratch_sigma_ with sigma(completed Q).
  void ChildrenSigma(int32_t node, float sign) const {
    const int32_t first = tree_.first_child[node];
    const int n = tree_.num_children[node];
    for (int i = 0; i < n; ++i) {
      const int32_t child = first + i;
      const uint8_t proven = tree_.proven[child];
      scratch_visits_[size_t(i)] = tree_.visits[child];
      scratch_priors_[size_t(i)] = tree_.prior[child];
      if (params_.solver && proven != uint8_t(Status::kOngoing)) {
        scratch_q_[size_t(i)] = proven == uint8_t(Status::kDraw)                        ? 0.0f
                                : (proven == uint8_t(Status::kWhiteWins)) == (sign > 0) ? 1.0f
                                                                                        : -1.0f;
        scratch_visits_[size_t(i)] = std::max(scratch_visits_[size_t(i)], 1);
      } else if (tree_.visits[child] > 0) {
        scratch_q_[size_t(i)] = sign * tree_.value_sum[child] / float(tree_.visits[child]);
      } else {
        scratch_q_[size_t(i)] = 0.0f;
      }
    }
    CompletedQSigma(std::span<const float>(scratch_q_.data(), size_t(n)),
                    std::span<const int32_t>(scratch_visits_.data(), size_t(n)),
                    std::span<const float>(scratch_priors_.data(), size_t(n)),
                    sign * tree_.raw_value[node], params_.gumbel_c_visit, params_.gumbel_c_scale,
                    std::span<float>(scratch_sigma_.data(), size_t(n)));
  }

  void RootSigma() const {
    const bool white = G::SideToMove(root_position_) == Color::kWhite;
    ChildrenSigma(kRoot, white ? 1.0f : -1.0f);
  }

  // Gumbel root selection (mctx's gumbel_muzero_root_action_selection): the move whose visits
  // this search equal the considered visit count of the current simulation, with the highest
  // g + logit + sigma(completed Q).
  int32_t SelectGumbelRoot() {
    const int32_t first = tree_.first_child[kRoot];
    const int n = tree_.num_children[kRoot];
    RootSigma();
    const int32_t considered = ConsideredVisits(gumbel_considered_, gumbel_budget_,
                                                std::min(gumbel_simulation_, gumbel_budget_ - 1));
    ++gumbel_simulation_;
    int best = -1;
    int fallback = 0;
    float best_score = -std::numeric_limits<float>::infinity();
    float fallback_score = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < n; ++i) {
      const int32_t child = first + i;
      const float score =
          gumbel_noise_[size_t(i)] + PriorLogit(tree_.prior[child]) + scratch_sigma_[size_t(i)];
      const int32_t count =
          tree_.visits[child] + tree_.in_flight[child] - gumbel_base_visits_[size_t(i)];
      // Without an exact match (leaves in flight), the least visited of the best-scoring moves.
      const float fallback_value = score - 1e4f * float(count);
      if (fallback_value > fallback_score) {
        fallback_score = fallback_value;
        fallback = i;
      }
      if (count == considered && score > best_score) {
        best_score = score;
        best = i;
      }
    }
    return first + (best >= 0 ? best : fallback);
  }

  // Deterministic selection below the root (mctx's gumbel_muzero_interior_action_selection):
  // argmax of improved_policy(a) - N(a) / (1 + sum N).
  int32_t SelectGumbelInterior(int32_t node, bool white) const {
    const int32_t first = tree_.first_child[node];
    const int n = tree_.num_children[node];
    const float sign = white ? 1.0f : -1.0f;
    const uint8_t win = uint8_t(white ? Status::kWhiteWins : Status::kBlackWins);
    ChildrenSigma(node, sign);
    std::span<float> policy(scratch_q_.data(), size_t(n));
    ImprovedPolicy(std::span<const float>(scratch_priors_.data(), size_t(n)),
                   std::span<const float>(scratch_sigma_.data(), size_t(n)), policy);
    float total = 0.0f;
    for (int i = 0; i < n; ++i)
      total += float(tree_.visits[first + i] + tree_.in_flight[first + i]);
    int best = 0;
    float best_score = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < n; ++i) {
      const int32_t child = first + i;
      if (params_.solver && tree_.proven[child] == win) return child;
      const float count = float(tree_.visits[child] + tree_.in_flight[child]);
      const float score = policy[size_t(i)] - count / (1.0f + total);
      if (score > best_score) {
        best_score = score;
        best = i;
      }
    }
    return first + best;
  }

  // The child played from `node`: proven results first, then Gumbel's final choice at the root,
  // then the most visited child not proven lost (ties: higher Q). kNone if unexpanded.
  int32_t BestChild(int32_t node) const {
    const int32_t first = tree_.first_child[node];
    if (first == SearchTree::kNone || tree_.visits[node] == 0) return SearchTree::kNone;
    const int n = tree_.num_children[node];
    const Color side = Color(tree_.side[node]);
    const float sign = side == Color::kWhite ? 1.0f : -1.0f;
    const uint8_t win = uint8_t(WinFor(side));
    const bool proven_node =
        node == kRoot ? RootProven()
                      : params_.solver && tree_.proven[node] != uint8_t(Status::kOngoing);
    if (proven_node) {
      const uint8_t target = tree_.proven[node];
      int32_t best = SearchTree::kNone;
      for (int i = 0; i < n; ++i) {
        const int32_t child = first + i;
        if (tree_.proven[child] != target) continue;
        if (best == SearchTree::kNone) {
          best = child;
          continue;
        }
        // Win: shortest; loss: longest; draw: most visited.
        const int plies = tree_.proven_plies[child], best_plies = tree_.proven_plies[best];
        if (target == win                      ? plies < best_plies
            : target == uint8_t(Status::kDraw) ? tree_.visits[child] > tree_.visits[best]
                                               : plies > best_plies) {
          best = child;
        }
      }
      if (best != SearchTree::kNone) return best;
    }
    if (node == kRoot && params_.gumbel && gumbel_ready_ && gumbel_noise_.size() == size_t(n)) {
      RootSigma();
      int32_t max_count = 0;
      for (int i = 0; i < n; ++i) {
        if (IsLossFor(first + i, side)) continue;
        max_count = std::max(max_count, tree_.visits[first + i] - gumbel_base_visits_[size_t(i)]);
      }
      int best = -1;
      float best_score = -std::numeric_limits<float>::infinity();
      for (int i = 0; i < n; ++i) {
        const int32_t child = first + i;
        if (IsLossFor(child, side)) continue;
        if (tree_.visits[child] - gumbel_base_visits_[size_t(i)] != max_count) continue;
        const float score =
            gumbel_noise_[size_t(i)] + PriorLogit(tree_.prior[child]) + scratch_sigma_[size_t(i)];
        if (score > best_score) {
          best_score = score;
          best = i;
        }
      }
      if (best >= 0) return first + best;
    }
    int32_t best = SearchTree::kNone;
    auto key = [&](int32_t child) {
      const bool lost = IsLossFor(child, side);
      const float q = tree_.visits[child] > 0
                          ? sign * tree_.value_sum[child] / float(tree_.visits[child])
                          : -2.0f;
      return std::tuple<bool, int32_t, float, float>(!lost, tree_.visits[child], q,
                                                     tree_.prior[child]);
    };
    for (int i = 0; i < n; ++i) {
      const int32_t child = first + i;
      if (best == SearchTree::kNone || key(child) > key(best)) best = child;
    }
    return best;
  }

  SearchParams params_;
  std::mt19937_64 rng_;

  // The game: start position and moves (for tree reuse), repetition keys of every position so far
  // as sorted (key, count) pairs, and the root.
  bool has_root_ = false;
  Position start_{};
  std::vector<Move> moves_;
  std::vector<std::pair<uint64_t, int32_t>> history_counts_;  // [distinct key] sorted by key
  Position root_position_{};
  typename G::MoveList root_legal_;
  Outcome root_outcome_;
  int root_repetition_ = 1;
  bool root_noise_applied_ = false;
  std::vector<Move> root_filter_;   // [allowed root move] sorted by raw; empty = all legal moves
  bool root_wins_at_once_ = false;  // a root child ends the game with the root side's win

  SearchTree tree_;
  SearchTree spare_;              // the copy target of KeepSubtree
  std::vector<int32_t> old_ids_;  // [new node] old id, during KeepSubtree

  // The running search.
  int64_t target_ = 0;
  int64_t simulations_ = 0;
  bool node_cap_reached_ = false;
  bool tree_full_ = false;
  std::vector<Pending> pending_;     // [leaf in flight]
  std::vector<uint64_t> path_keys_;  // [ply below the root] repetition keys of the descent
  typename G::MoveList moves_buffer_;
  typename G::MoveList replies_;  // the moves after a root move (MarkRootChildrenThatEndTheGame)
  EvalBatch<G> batch_;

  // Gumbel root state of the running search.
  bool gumbel_ready_ = false;
  std::vector<float> gumbel_noise_;          // [root child] Gumbel(0, 1) sample g(a)
  std::vector<int32_t> gumbel_base_visits_;  // [root child] visits before this search
  int gumbel_considered_ = 1;                // m: root moves sampled by Gumbel-top-k
  int64_t gumbel_budget_ = 1;                // simulations of sequential halving
  int64_t gumbel_simulation_ = 0;            // root selections handed out so far

  // Per-node scratch for the Gumbel arithmetic: [child].
  mutable std::vector<float> scratch_q_;
  mutable std::vector<int32_t> scratch_visits_;
  mutable std::vector<float> scratch_priors_;
  mutable std::vector<float> scratch_sigma_;
};

}  // namespace vz
