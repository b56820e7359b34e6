#pragma once

// Monte Carlo tree search over any vz::Game, on the flat-array tree of engine/search/tree.h: the
// facade every client uses. Its parts, one concern per header:
//   engine/search/search_root.h     the game behind the root (history, repetition, restriction)
//   engine/search/tree.h            the flat tree, tree reuse (KeepSubtree) and backup
//   engine/search/puct.h            PUCT selection with virtual loss (AlphaZero, Silver 2018)
//   engine/search/gumbel_root.h     Gumbel root search (Gumbel MuZero, Danihelka 2022)
//   engine/search/solver.h          the MCTS-solver and the game-ending root moves
//   engine/search/result_builder.h  SearchResult and the principal variation
//   engine/search/search_driver.h   the round driver (gather, evaluate, apply) of many searches
//
// - Selection: PUCT in the AlphaZero form (engine/search/search_params.h) with first-play urgency
//   as a reduction from the parent's value; or, with SearchParams::gumbel, Gumbel root search
//   (Gumbel-top-k, sequential halving, completed-Q improved policy) with the deterministic
//   improved-policy selection below the root (Danihelka et al., ICLR 2022; mctx).
// - Values: WDL from the side to move's point of view at the evaluator, stored from White's view
//   in the tree (no turn order assumed).
// - Batching: a search hands out up to SearchParams::leaves_per_round leaves per round under
//   virtual loss (GatherLeaves), an evaluator fills the batch, ApplyEvaluations backs them up.
//   SearchDriver (engine/search/search_driver.h) puts many searches in one batch per round.
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
// children: the children get their priors from that evaluation. An evaluator with deferred
// priors (Evaluator::DefersPriors; the driver's batches defer them) has its second stage
// called for a node just before the search first selects among the node's children, and for the
// root as soon as it is expanded (or at StartSearch, for a root kept by tree reuse): the
// selections see the same priors as without the deferral, and the leaves that are never
// descended from never pay for the second stage.
//
// At the node cap (the tree is full) a new leaf is still evaluated once and backed up without
// children, but a descent that reaches a leaf already evaluated, which could only be expanded by
// allocating nodes, ends the search (Done() is true, Result().tree_full says so): evaluating that
// leaf again would count one estimate many times over (with a fixed evaluator, thousands of
// identical backups drive the root to a false +1). This is the stop of Lc0's memory limit; the
// best move so far is played. A later search starts anew: tree reuse may have made room, and the
// first descent that then reaches such a leaf allocates its children, whose priors come from
// that new evaluation.
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
#include <random>
#include <span>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game.h"
#include "engine/core/game_state.h"
#include "engine/search/evaluator.h"
#include "engine/search/gumbel_root.h"
#include "engine/search/puct.h"
#include "engine/search/result_builder.h"
#include "engine/search/search_driver.h"
#include "engine/search/search_params.h"
#include "engine/search/search_result.h"
#include "engine/search/search_root.h"
#include "engine/search/solver.h"
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
  explicit Mcts(const SearchParams& params = {})
      : params_(params), rng_(params.seed), gumbel_(G::kMaxMoves), driver_(/*timed=*/false) {
    params_.max_nodes = std::clamp(params_.max_nodes, kMinNodes, SearchTree::kMaxNodes);
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
    if (root_.Continues(state)) {
      for (size_t i = root_.num_moves(); i < state.moves().size(); ++i) Advance(state.moves()[i]);
      return;
    }
    root_.Reset(state);
    root_noise_applied_ = false;
    ClearTree();
  }

  // Sets the root to `position` with no history.
  void SetRoot(const Position& position) {
    root_.Forget();
    SetRoot(GameState<G>(position));
  }

  // Plays `move` at the root, keeping its subtree as the new tree. Throws vz::Error if the move
  // is not legal at the root. No search may be running.
  void Advance(Move move) {
    VZ_CHECK(pending_.empty());
    const int32_t kept = tree_.ChildByMove(kRoot, move);
    root_.Play(move);
    root_noise_applied_ = false;
    if (kept == SearchTree::kNone) {
      ClearTree();
    } else {
      tree_.KeepSubtree(kept, uint8_t(G::SideToMove(root_.position())), spare_, old_ids_);
      root_wins_at_once_ = false;
    }
  }

  // Restricts the searches from the current root to `moves` (UCI's `go searchmoves`); empty
  // lifts the restriction. A change of the restriction clears the tree (the root's children are
  // the allowed moves only). Throws vz::Error naming the move if one is not legal at the root.
  // The restriction ends when the root changes (Advance, or SetRoot to another position). No
  // search may be running.
  void RestrictRootMoves(std::span<const Move> moves) {
    VZ_CHECK(pending_.empty());
    if (root_.Restrict(moves)) ClearTree();
  }
  // The moves the root is restricted to, sorted; empty when all legal moves are searched.
  const std::vector<Move>& root_move_restriction() const { return root_.restriction(); }

  const Position& root_position() const { return root_.position(); }
  // Outcome of the root position (rules and repetition with the game history).
  Outcome root_outcome() const { return root_.outcome(); }
  const MoveList& root_legal_moves() const { return root_.legal_moves(); }

  // Starts a search of `num_simulations` new simulations on the current tree (negative: none),
  // whose rounds will use `evaluator`: a root kept by tree reuse whose priors are still deferred
  // gets them from it here (Evaluator::CompletePriors), before its noise and Gumbel sample.
  // `root_noise` false makes this search a quiet one (KataGo's cheap searches of playout cap
  // randomisation): no Gumbel sample (g = 0, so Gumbel-top-k takes the moves of highest prior and
  // the chosen move is deterministic) and no Dirichlet noise added to the root priors.
  // Throws vz::Error if the root's 32-bit visit count cannot take them (more than
  // kMaxSimulations on a fresh tree, fewer on a reused one), and what the completion throws
  // (the search is then not started; a later StartSearch tries again).
  void StartSearch(int64_t num_simulations, Evaluator<G>& evaluator, bool root_noise = true) {
    VZ_CHECK(pending_.empty());
    const int64_t room = SearchTree::kMaxVisits - std::max<int32_t>(1, tree_.visits[kRoot]);
    if (num_simulations > room) {
      throw Error("simulations " + std::to_string(num_simulations) + " is above " +
                  std::to_string(room) + ", what the root's 32-bit visit count can still take");
    }
    target_ = std::max<int64_t>(0, num_simulations);
    root_noise_ = root_noise;
    progress_ = {};
    // Room for the expected growth at once (untouched capacity costs no memory), so that the
    // arrays are not copied over and over while the tree grows.
    const int64_t expected =
        int64_t(tree_.size) + (target_ + 1) * std::max(1, root_.legal_moves().size);
    // A hint: where the host cannot give that much at once the tree grows on demand.
    tree_.TryReserve(
        size_t(std::min<int64_t>(int64_t(std::bit_ceil(uint64_t(expected))), params_.max_nodes)));
    gumbel_.Reset();
    if (tree_.first_child[kRoot] != SearchTree::kNone) MarkRootChildren();
    OnRootExpanded(evaluator);
  }

  // True when the search started by StartSearch has nothing more to do: the budget is spent, the
  // root is terminal or proven (a root move that wins at once proves it, solver or not), or the
  // tree is full. Always false while leaves are in flight.
  bool Done() const {
    if (!pending_.empty()) return false;
    if (RootDone() || progress_.tree_full) return true;
    return progress_.simulations >= target_;
  }

  // Descends from the root up to leaves_per_round times and appends the leaves that need an
  // evaluation to `batch` (which may hold other searches' entries). Terminal and proven leaves
  // are backed up at once. Returns the number of entries appended. Every appended entry must be
  // evaluated by `evaluator` and handed back through ApplyEvaluations before the next call;
  // `evaluator` also completes the deferred priors of the nodes descended from (the file comment).
  // Throws what its CompletePriors throws, or vz::Error on a non-finite completed prior, with the
  // descent in progress undone (the leaves already gathered stay in flight).
  int GatherLeaves(EvalBatch<G>& batch, Evaluator<G>& evaluator) {
    int added = 0;
    int collisions = 0;
    while (!RootDone() && !progress_.tree_full && added < params_.leaves_per_round &&
           collisions < std::max(1, params_.max_collisions)) {
      if (tree_.Expanded(kRoot) && progress_.simulations >= target_) break;
      switch (GatherOne(batch, evaluator)) {
        case Gathered::kLeaf: ++added; break;
        case Gathered::kTerminal: break;
        case Gathered::kCollision: ++collisions; break;
        case Gathered::kFull: break;
      }
    }
    return added;
  }

  // Reads this search's entries of `batch` (evaluated by `evaluator`), expands the leaves and backs
  // up values; new children's priors are marked deferred when the batch deferred them and the
  // evaluator completes priors (the root's are completed at once). Throws vz::Error, with the
  // leaves cancelled as by CancelPending and nothing applied, if an entry's value or a prior is not
  // finite. A throw of the root's completion (what CompletePriors throws, or vz::Error on a
  // non-finite prior) leaves the values applied and the root's priors deferred, to be completed
  // by the next StartSearch.
  void ApplyEvaluations(const EvalBatch<G>& batch, Evaluator<G>& evaluator) {
    const bool deferred = batch.defer_priors() && evaluator.DefersPriors();
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
    bool root_applied = false;
    for (const Pending& pending : pending_) {
      const int32_t node = pending.node;
      const Wdl wdl = batch.value(pending.batch_index);
      const bool white = Color(tree_.side[node]) == Color::kWhite;
      const float value_white = white ? wdl.Value() : -wdl.Value();
      if (tree_.visits[node] == 0) tree_.raw_value[node] = value_white;
      if (pending.new_children) {
        if (deferred) {
          // Kept as the evaluator gave them until CompleteDeferredPriors: its result is then the
          // very priors an eager evaluator gives (the same floats), normalised once by SetPriors.
          const std::span<const float> given = batch.priors(pending.batch_index);
          std::copy(given.begin(), given.end(), tree_.prior.data() + tree_.first_child[node]);
        } else {
          SetPriors(node, batch.priors(pending.batch_index));
        }
        tree_.priors_pending[node] = deferred;
      }
      tree_.Backup(node, value_white, wdl.draw);
      root_applied = root_applied || node == kRoot;
    }
    pending_.clear();
    if (root_applied) OnRootExpanded(evaluator);
  }

  // Forgets the leaves in flight (after an evaluator failure): their virtual loss is removed,
  // the children allocated for them are dropped (they would have no priors) and they count as not
  // visited; the tree stays valid and the search can go on or be restarted.
  void CancelPending() {
    // Newest first: the children of the leaves in flight are the last blocks of the tree, in the
    // order of pending_.
    for (auto it = pending_.rbegin(); it != pending_.rend(); ++it) {
      const int32_t node = it->node;
      UndoVirtualLoss(tree_, node);
      // The root's sequential-halving step of this descent was not used: hand it out again.
      if (node != kRoot && params_.gumbel && gumbel_.ready()) gumbel_.Unselect();
      if (it->new_children) {
        VZ_CHECK(tree_.first_child[node] + tree_.num_children[node] == tree_.size);
        tree_.size = tree_.first_child[node];
        tree_.first_child[node] = SearchTree::kNone;
        tree_.num_children[node] = 0;
        if (node == kRoot) {
          // The marks of the dropped children (a move that ends the game, a proof) go with them.
          tree_.proven[kRoot] = uint8_t(Status::kOngoing);
          tree_.proven_plies[kRoot] = 0;
          root_wins_at_once_ = false;
          gumbel_.Reset();
        }
      }
      if (node != kRoot || tree_.visits[kRoot] > 0) --progress_.simulations;
    }
    pending_.clear();
  }

  // Runs a whole search alone: StartSearch, then rounds of the search driver until Done. If the
  // evaluator throws, the leaves in flight are cancelled and the exception propagates.
  void Search(Evaluator<G>& evaluator, int64_t num_simulations) {
    StartSearch(num_simulations, evaluator);
    Mcts* self = this;
    driver_.Run(evaluator, std::span<Mcts* const>(&self, 1));
  }

  // The move to play at temperature 0: a proven win (shortest), else the sequential-halving
  // winner (Gumbel) or the most visited move not proven lost. kNullMove if the root is terminal or
  // unexpanded.
  Move BestMove() const {
    const int32_t child = BestRootChild();
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
      if (IsLossFor(tree_, child, side, params_.solver)) continue;
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

  // Statistics of the root after the last search (engine/search/result_builder.h). A finished
  // game at the root (no legal move, or an outcome by the rules or repetition) reports its result
  // as proven in 0 plies.
  SearchResult Result() const {
    std::span<const float> improved_policy;
    if (params_.gumbel && tree_.Expanded(kRoot)) {
      improved_policy_.resize(size_t(tree_.num_children[kRoot]));
      gumbel_.RootImprovedPolicy(tree_, params_, improved_policy_);
      improved_policy = improved_policy_;
    }
    return BuildResult<G>(tree_, root_, params_, RootProven(), BestRootChild(), improved_policy,
                          progress_);
  }

  // The principal variation through root move `move`: the move, then the search's choice at each
  // node below it (result_builder.h's PrincipalVariation); Result().pv for the best move. Just
  // {move} if `move` is not a root child.
  std::vector<Move> PrincipalVariation(Move move) const {
    const int32_t child = tree_.ChildByMove(kRoot, move);
    if (child == SearchTree::kNone) return {move};
    return vz::PrincipalVariation(tree_, child, params_.solver);
  }

  // Read-only view of the tree (tests, analysis tools).
  const SearchTree& tree() const { return tree_; }
  int64_t num_nodes() const { return tree_.size; }
  bool node_cap_reached() const { return progress_.node_cap_reached; }
  // The last search ended because the tree was full (see the file comment).
  bool tree_full() const { return progress_.tree_full; }
  int64_t simulations() const { return progress_.simulations; }
  // Bytes held by the tree arrays of both halves (the live tree and the copy buffer of reuse).
  size_t MemoryBytes() const { return tree_.MemoryBytes() + spare_.MemoryBytes(); }
  // Occurrences of the root position in the game history (1 = first time).
  int root_repetition_count() const { return root_.repetition(); }

 private:
  enum class Gathered { kLeaf, kTerminal, kCollision, kFull };

  struct Pending {
    int32_t node;
    int batch_index;
    bool new_children;  // children were allocated with this descent: they take its priors
  };

  // Proven by the solver, or (solver or not) by a root move that wins at once.
  bool RootProven() const {
    return tree_.proven[kRoot] != uint8_t(Status::kOngoing) &&
           (params_.solver || root_wins_at_once_);
  }
  bool RootDone() const {
    return root_.outcome().IsTerminal() || root_.legal_moves().size == 0 || RootProven();
  }

  // The root child played: the proof's child of a proven root, else Gumbel's sequential-halving
  // winner, else the most visited child not lost. kNone if the root is unexpanded.
  int32_t BestRootChild() const {
    if (tree_.first_child[kRoot] == SearchTree::kNone || tree_.visits[kRoot] == 0) {
      return SearchTree::kNone;
    }
    if (RootProven()) {
      const int32_t proven = ProvenChild(tree_, kRoot);
      if (proven != SearchTree::kNone) return proven;
    }
    if (params_.gumbel) {
      const int32_t chosen = gumbel_.FinalChild(tree_, params_);
      if (chosen != SearchTree::kNone) return chosen;
    }
    return MostVisitedChild(tree_, kRoot, params_.solver);
  }

  void ClearTree() {
    root_wins_at_once_ = false;
    tree_.Clear(uint8_t(G::SideToMove(root_.position())));
  }

  void MarkRootChildren() {
    root_wins_at_once_ = MarkRootChildrenThatEndTheGame(tree_, root_, params_.solver, replies_);
  }

  bool AllocateChildren(int32_t node, const MoveList& moves) {
    const int64_t needed = int64_t(tree_.size) + moves.size;
    if (needed > params_.max_nodes) {
      progress_.node_cap_reached = true;
      return false;
    }
    if (size_t(needed) > tree_.capacity()) {
      const int64_t grown = std::max<int64_t>({needed, int64_t(tree_.capacity()) * 2, 4096});
      if (!tree_.TryReserve(
              size_t(std::min<int64_t>(grown, std::max(needed, params_.max_nodes)))) &&
          !tree_.TryReserve(size_t(needed))) {
        progress_.node_cap_reached = true;  // the host's memory is the cap
        return false;
      }
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

  // Once the root has children: their deferred priors completed with `evaluator` (throws as
  // CompleteDeferredPriors, before any noise), then root noise and Gumbel sampling.
  void OnRootExpanded(Evaluator<G>& evaluator) {
    if (!tree_.Expanded(kRoot)) return;
    if (tree_.priors_pending[kRoot]) CompleteDeferredPriors(kRoot, root_.position(), evaluator);
    const int32_t first = tree_.first_child[kRoot];
    const int n = tree_.num_children[kRoot];
    if (root_noise_ && !root_noise_applied_ && params_.dirichlet_epsilon > 0.0f &&
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
    if (params_.gumbel && !gumbel_.ready()) {
      gumbel_.Begin(tree_, params_, std::max<int64_t>(target_ - progress_.simulations, 1),
                    root_noise_, rng_);
    }
  }

  // Completes the deferred priors of the expanded `node`, whose position is `position`, with
  // `evaluator` (Evaluator::CompletePriors, from the first-stage priors as the evaluator gave
  // them), normalises them and clears its mark. Throws what CompletePriors throws, or vz::Error on
  // a non-finite prior, with the node left as it was.
  void CompleteDeferredPriors(int32_t node, const Position& position, Evaluator<G>& evaluator) {
    const int32_t first = tree_.first_child[node];
    const int n = tree_.num_children[node];
    completion_priors_.assign(tree_.prior.data() + first, tree_.prior.data() + first + n);
    evaluator.CompletePriors(position, {tree_.move.data() + first, size_t(n)}, completion_priors_);
    for (float prior : completion_priors_) {
      if (!std::isfinite(prior)) {
        throw Error("the evaluator completed the priors of position " +
                    G::FormatPosition(position) + " with a non-finite prior");
      }
    }
    SetPriors(node, completion_priors_);
    tree_.priors_pending[node] = 0;
  }

  // Takes back the descent in progress that reached `node`: its virtual loss, and the root's
  // sequential-halving step it used (handed out again).
  void AbandonDescent(int32_t node) {
    UndoVirtualLoss(tree_, node);
    if (node != kRoot && params_.gumbel && gumbel_.ready()) gumbel_.Unselect();
  }

  // One descent. Applies virtual loss along the path as it goes.
  Gathered GatherOne(EvalBatch<G>& batch, Evaluator<G>& evaluator) {
    Position position = root_.position();
    int32_t node = kRoot;
    path_keys_.clear();
    ++tree_.in_flight[kRoot];
    for (;;) {
      if (node != kRoot && tree_.proven[node] != uint8_t(Status::kOngoing)) {
        tree_.BackupExact(node, Status(tree_.proven[node]));
        ++progress_.simulations;
        return Gathered::kTerminal;
      }
      if (!tree_.Expanded(node)) {
        if (tree_.in_flight[node] > 1) {
          AbandonDescent(node);
          return Gathered::kCollision;
        }
        return ExpandLeaf(node, position, batch);
      }
      if (tree_.priors_pending[node]) {
        try {
          CompleteDeferredPriors(node, position, evaluator);
        } catch (...) {
          AbandonDescent(node);
          throw;
        }
      }
      const bool white = G::SideToMove(position) == Color::kWhite;
      if (node == kRoot) {
        node = params_.gumbel && gumbel_.ready() ? gumbel_.SelectRoot(tree_, params_)
                                                 : SelectPuct(tree_, node, white, params_);
      } else {
        node = params_.gumbel ? gumbel_.SelectInterior(tree_, node, white, params_)
                              : SelectPuct(tree_, node, white, params_);
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
        repetition = root_.repetition();
      } else {
        const uint64_t key = path_keys_.back();
        repetition = root_.HistoryCount(key);
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
      tree_.BackupExact(node, status);
      if (params_.solver) PropagateProof(tree_, tree_.parent[node]);
      ++progress_.simulations;
      return Gathered::kTerminal;
    }
    // A restricted root's entry carries the allowed moves, and says so (EvalBatch::restricted).
    const bool restricted = node == kRoot && !root_.restriction().empty();
    if (restricted) root_.FilterRootMoves(moves_buffer_);
    bool new_children = false;
    if (tree_.first_child[node] == SearchTree::kNone) {
      new_children = AllocateChildren(node, moves_buffer_);
      if (!new_children && tree_.visits[node] > 0) {
        // The tree is full and this leaf's value is already in it: end the search.
        progress_.tree_full = true;
        AbandonDescent(node);
        return Gathered::kFull;
      }
      if (new_children && node == kRoot) MarkRootChildren();
    }
    const int index =
        batch.Add(position, moves_buffer_.moves, moves_buffer_.size, repetition, restricted);
    pending_.push_back({node, index, new_children});
    if (node != kRoot || tree_.visits[kRoot] > 0) ++progress_.simulations;
    return Gathered::kLeaf;
  }

  SearchParams params_;
  std::mt19937_64 rng_;

  SearchRoot<G> root_;
  bool root_noise_applied_ = false;  // Dirichlet noise is in the root priors
  bool root_wins_at_once_ = false;   // a root child ends the game with the root side's win

  SearchTree tree_;
  SearchTree spare_;              // the copy target of KeepSubtree
  std::vector<int32_t> old_ids_;  // [new node] old id, during KeepSubtree

  // The running search.
  int64_t target_ = 0;
  bool root_noise_ = true;  // Gumbel sample and Dirichlet noise at the root (StartSearch)
  SearchProgress progress_;
  std::vector<Pending> pending_;     // [leaf in flight]
  std::vector<uint64_t> path_keys_;  // [ply below the root] repetition keys of the descent
  MoveList moves_buffer_;
  MoveList replies_;  // the moves after a root move (MarkRootChildrenThatEndTheGame)
  std::vector<float> completion_priors_;  // [child] of CompleteDeferredPriors
  GumbelRoot gumbel_;
  mutable std::vector<float> improved_policy_;  // [root child] Result's Gumbel policy target
  SearchDriver<G> driver_;                      // of Search, the lone search
};

}  // namespace vz
