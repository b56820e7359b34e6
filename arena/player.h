#pragma once

// Players of matches and ladders behind one interface, each described by a spec string:
//   random              uniformly random legal move (seeded)
//   rollout:SIMS        MCTS (PUCT) with the random-rollout evaluator, SIMS simulations a move
//   alphabeta:DEPTH     iterative-deepening alpha-beta to DEPTH plies (engine/alphabeta/)
//   net:FILE:SIMS       MCTS (PUCT) with the network evaluator of net file FILE (on the first CUDA
//                       device when there is one, else the CPU), SIMS simulations a move; only in
//                       builds with LibTorch (VZ_HAVE_TORCH). FILE `default`: the shipped net of
//                       the game (nets/shipped_nets.h); `net:default` alone: 800 simulations
//   ...:movetime=MS     instead of SIMS or DEPTH (rollout, alphabeta, net): MS milliseconds a
//                       move, less kPlayerMoveOverheadMs, by the clock: the MCTS players under
//                       UCI's time manager (engine/search/time_manager.h; a net player
//                       hands out kNetLeavesPerRound leaves a round, as `vzero uci`), alpha-beta by
//                       iterative deepening to depth 64 stopped by the clock (its deepest
//                       completed iteration's move). A match with a timed player plays on
//                       `concurrency` threads, each playing whole pairs with its own players (no
//                       shared batches); keep concurrency at or below the cores for fair clocks.
//   ...:qs              (after rollout:SIMS or net:FILE:SIMS) each leaf value corrected by a
//                       capture search (engine/search/quiescence_evaluator.h): tactical safety,
//                       not zero-knowledge
//   ...:fp32, ...:bf16  (net players only, last) the net's precision; default `auto`
//                       (nets/net_runner.h: bf16 on a GPU and on a CPU where it is the faster)
// `uci:COMMAND` is not available yet: its spec is rejected with a message saying so.
//
// A player plays one game at a time and belongs to one thread. The MCTS players (rollout, net)
// share one evaluator among all the games a match plays at once (MakePlayerEvaluator: the net is
// loaded once per player), so that a driver can evaluate the leaves of all those games in one batch
// (arena/match_games.h). Players are deterministic given their seed and the game; the seed of a
// player in a match is derived from the match seed and the game index.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/alphabeta/alphabeta.h"
#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/search/mcts.h"
#include "engine/search/quiescence_evaluator.h"
#include "engine/search/rollout_evaluator.h"
#include "engine/search/search_driver.h"
#include "engine/search/search_params.h"
#include "engine/search/time_manager.h"
#if VZ_HAVE_TORCH
#include "nets/net_evaluator.h"
#include "nets/shipped_nets.h"
#endif

namespace vz {

template <Game G>
class SearchPlayer;

template <Game G>
class Player {
 public:
  virtual ~Player() = default;
  // Called before each game with a seed for that game.
  virtual void NewGame(uint64_t seed) = 0;
  // The move to play in `state` (not terminal). Never throws on a legal, ongoing state.
  virtual Move ChooseMove(const GameState<G>& state) = 0;
  // This player as an MCTS player whose search can be driven step by step; null for the others.
  virtual SearchPlayer<G>* AsSearchPlayer() { return nullptr; }
  // The value its search gave the position of the last ChooseMove, White's view, W - L in
  // [-1, 1]; NaN for a player without one (random). The MCTS players answer RootValue().
  virtual float LastValue() const { return std::numeric_limits<float>::quiet_NaN(); }
};

// The budgets of the spec grammar: `net:default` alone (the UCI engine's default Nodes), the
// caps of timed players, and the longest time a move.
inline constexpr int kDefaultNetSimulations = 800;
inline constexpr int kMaxTimedDepth = 64;
inline constexpr int kMaxTimedSimulations = 1 << 30;
inline constexpr int64_t kMaxMoveTimeMs = 3600 * 1000;

// A parsed spec string: kind and its integer parameter (0 for `random`).
struct PlayerSpec {
  std::string kind;              // "random", "rollout", "alphabeta", "net"
  int value = 0;                 // simulations or depth (the cap when move_time_ms is set)
  int64_t move_time_ms = 0;      // movetime=MS: time a move in ms; 0 = the budget is `value`
  std::string file;              // net file of `net:FILE:SIMS`; "default": the shipped net
  bool leaf_quiescence = false;  // the `:qs` option of MCTS players
  std::string text;              // the spec as given
  // The net player's precision: "auto" (bf16 on a GPU and on a CPU where it is the faster, else
  // fp32; nets/net_runner.h), or "fp32" / "bf16" from the spec's last option `:fp32` / `:bf16`.
  std::string precision = "auto";

  // Throws vz::Error naming `text` on an unknown kind or a bad number.
  static PlayerSpec Parse(std::string_view text);
};

template <Game G>
class RandomPlayer final : public Player<G> {
 public:
  void NewGame(uint64_t seed) override { state_ = seed; }
  Move ChooseMove(const GameState<G>& state) override {
    state_ = SplitMix64(state_);
    const auto& moves = state.legal_moves();
    return moves[int((state_ >> 32) * uint64_t(moves.size) >> 32)];
  }

 private:
  uint64_t state_ = 0;
};

// Kept from a timed player's time a move for what happens outside its search (ms).
inline constexpr int64_t kPlayerMoveOverheadMs = 10;

// The budget of a player with `move_time_ms` a move: UCI's `go movetime` with the player overhead.
inline TimeBudget PlayerMoveBudget(int64_t move_time_ms, Color side) {
  TimeControl control;
  control.move_time_ms = move_time_ms;
  return AllocateTime(control, side, TimeOptions{kPlayerMoveOverheadMs});
}

template <Game G>
class AlphaBetaPlayer final : public Player<G> {
 public:
  // `depth` plies, or, with `move_time_ms` > 0, iterative deepening (at most `depth` plies)
  // stopped by the clock.
  explicit AlphaBetaPlayer(int depth, int64_t move_time_ms = 0)
      : depth_(depth), move_time_ms_(move_time_ms) {}
  void NewGame(uint64_t) override { search_.Clear(); }
  Move ChooseMove(const GameState<G>& state) override {
    AlphaBetaResult result;
    if (move_time_ms_ > 0) {
      const TimeBudget budget = PlayerMoveBudget(move_time_ms_, G::SideToMove(state.position()));
      const SteadyClock clock;
      const int64_t deadline = clock.NowMicros() + budget.hard_ms * 1000;
      result = search_.Search(state, depth_, [&] { return clock.NowMicros() >= deadline; });
    } else {
      result = search_.Search(state, depth_);
    }
    // The score is the mover's: alpha-beta's centipawns as a value (ScoreToValue); none when the
    // clock stopped the first iteration.
    const float value =
        result.depth > 0 ? ScoreToValue(result.score) : std::numeric_limits<float>::quiet_NaN();
    last_value_ = G::SideToMove(state.position()) == Color::kWhite ? value : -value;
    return result.best_move == kNullMove ? state.legal_moves()[0] : result.best_move;
  }
  float LastValue() const override { return last_value_; }

 private:
  int depth_;
  int64_t move_time_ms_;
  float last_value_ = std::numeric_limits<float>::quiet_NaN();
  AlphaBeta<G> search_{int64_t{1} << 17};
};

// An MCTS player: PUCT, one leaf per search round (a timed net player kNetLeavesPerRound), the most
// visited move played (or, for the first plies of a game, one sampled from the visit counts:
// SetSampling), the tree kept between the moves of a game (Mcts::SetRoot). A move is searched
// either alone (ChooseMove, with the player's evaluator) or step by step by the search driver
// (engine/search/search_driver.h, which drives any search with Done, GatherLeaves, ApplyEvaluations
// and CancelPending) that puts the leaves of many games into one batch of the evaluator all of them
// share (arena/match_games.h): BeginMove(state, evaluator); driver rounds until Done();
// move = EndMove(state).
// Both ways give the same move when the evaluator's result for a position does not depend on the
// rest of the batch. Not thread-safe; the evaluator may be shared with other players.
template <Game G>
class SearchPlayer : public Player<G> {
 public:
  // `evaluator` (not null) serves ChooseMove; `max_nodes` caps each search's tree. With
  // `move_time_ms` > 0, ChooseMove searches by the clock (simulations is then a cap).
  // `leaves_per_round`: SearchParams::leaves_per_round of each move's search (1: sequential
  // MCTS; the timed net players use kNetLeavesPerRound, as `vzero uci`).
  SearchPlayer(std::shared_ptr<Evaluator<G>> evaluator, int simulations, int64_t max_nodes,
               int64_t move_time_ms = 0, int leaves_per_round = 1)
      : evaluator_(std::move(evaluator)),
        simulations_(simulations),
        max_nodes_(max_nodes),
        move_time_ms_(move_time_ms),
        leaves_per_round_(leaves_per_round) {}

  void NewGame(uint64_t seed) override {
    round_estimate_micros_ = 0;
    SearchParams params;
    params.seed = seed;
    params.max_nodes = max_nodes_;
    params.leaves_per_round = leaves_per_round_;
    search_ = std::make_unique<Mcts<G>>(params);
  }
  Move ChooseMove(const GameState<G>& state) override {
    SearchPlayer* self = this;
    const std::span<SearchPlayer* const> searches(&self, 1);
    ++lone_moves_;
    if (move_time_ms_ <= 0) {
      BeginMove(state, *evaluator_);
      driver_.Run(*evaluator_, searches);
      return EndMove(state);
    }
    // By the clock, as `vzero uci` under `go movetime` (soft = hard: no round starts that the
    // longest recent round says would end after the limit). The clock runs from here, so that
    // reusing the tree is part of the move's time; the first round (the root) always runs.
    const TimeBudget budget = PlayerMoveBudget(move_time_ms_, G::SideToMove(state.position()));
    // An estimate carried over from a slow move (a first net call, a busy machine) must not stop
    // every later move after one round: at most a quarter of this move's time.
    TimeManager manager(budget, clock_, std::min(round_estimate_micros_, budget.hard_ms * 250));
    BeginMove(state, *evaluator_);
    for (bool first = true; !Done(); first = false) {
      if (!manager.ShouldStartRound() && !first) break;
      driver_.RunRound(*evaluator_, searches);
    }
    round_estimate_micros_ = manager.NextRoundEstimateMicros();
    return EndMove(state);
  }
  SearchPlayer<G>* AsSearchPlayer() override { return this; }
  float LastValue() const override { return RootValue(); }

  // Starts the search of the move in `state` (ongoing; NewGame was called), whose rounds will use
  // `evaluator` (Mcts::StartSearch).
  void BeginMove(const GameState<G>& state, Evaluator<G>& evaluator) {
    search_->SetRoot(state);
    search_->StartSearch(simulations_, evaluator);
  }
  // The time a move of a timed player (ms; 0: untimed, the budget is simulations).
  int64_t move_time_ms() const { return move_time_ms_; }
  // The leaves each move's search hands out per round (SearchParams::leaves_per_round).
  int leaves_per_round() const { return leaves_per_round_; }
  // The moves searched alone (ChooseMove) and the rounds of their driver: evaluator calls and
  // positions evaluated (a timed player's searches; the match driver counts the others).
  int64_t lone_moves() const { return lone_moves_; }
  const SearchDriverStats& lone_stats() const { return driver_.stats(); }
  bool Done() const { return search_->Done(); }
  // Appends this search's leaves to `batch`, which may hold other searches' entries (see
  // Mcts::GatherLeaves); returns how many.
  virtual int GatherLeaves(EvalBatch<G>& batch, Evaluator<G>& evaluator) {
    return search_->GatherLeaves(batch, evaluator);
  }
  // Backs up this search's entries of the evaluated `batch`.
  void ApplyEvaluations(const EvalBatch<G>& batch, Evaluator<G>& evaluator) {
    search_->ApplyEvaluations(batch, evaluator);
  }
  // Forgets the leaves in flight (after an evaluator failure).
  void CancelPending() { search_->CancelPending(); }
  // The move found in `state`, the state given to BeginMove (Done() must hold): sampled
  // while the game is in its first sampled plies (SetSampling), else the most visited.
  Move EndMove(const GameState<G>& state) {
    const Move move = int(state.moves().size()) < sample_plies_ ? search_->ChooseMove(temperature_)
                                                                : search_->BestMove();
    return move == kNullMove ? state.legal_moves()[0] : move;
  }
  // The moves of plies [0, plies) of every game (counted in the GameState, so the plies of a
  // random opening count) are sampled with probability proportional to visits^(1 / temperature)
  // (Mcts::ChooseMove, with the search's generator seeded by NewGame), for varied self-play
  // games; 0 plies (the default) or temperature <= 0: always the most visited move.
  void SetSampling(int plies, float temperature) {
    sample_plies_ = plies;
    temperature_ = temperature;
  }
  // The value of the root of the last search, White's view: W - L in [-1, 1] (exact for a proven
  // or finished root; 0 before any evaluation).
  float RootValue() const {
    const SearchResult result = search_->Result();
    return G::SideToMove(search_->root_position()) == Color::kWhite ? result.root_q
                                                                    : -result.root_q;
  }

 private:
  std::shared_ptr<Evaluator<G>> evaluator_;
  int simulations_;
  int64_t max_nodes_;
  int64_t move_time_ms_;
  int leaves_per_round_;
  int64_t lone_moves_ = 0;
  SteadyClock clock_;                  // of the timed ChooseMove
  int64_t round_estimate_micros_ = 0;  // the previous timed move's NextRoundEstimateMicros
  std::unique_ptr<Mcts<G>> search_;
  SearchDriver<G, SearchPlayer> driver_{/*timed=*/false};  // of ChooseMove
  int sample_plies_ = 0;
  float temperature_ = 1.0f;
};

// MCTS with random playouts (one playout per leaf, at most 400 plies), seeded per game: the
// rollout evaluator all the games of the player share plays out each game's leaves with that
// game's seed (RolloutEvaluator::SeedEntries), so a game keeps its own playouts whichever games
// share its batch.
template <Game G>
class RolloutPlayer final : public SearchPlayer<G> {
 public:
  // `evaluator` is `rollouts` or a decorator of it (QuiescenceEvaluator) that owns it.
  RolloutPlayer(std::shared_ptr<Evaluator<G>> evaluator, RolloutEvaluator<G>& rollouts,
                int simulations, int64_t move_time_ms = 0)
      : SearchPlayer<G>(
            std::move(evaluator), simulations,
            move_time_ms > 0 ? SearchParams().max_nodes : int64_t(simulations) * 256 + 4096,
            move_time_ms),
        rollouts_(rollouts) {}
  void NewGame(uint64_t seed) override {
    seed_ = seed;
    SearchPlayer<G>::NewGame(seed);
  }
  int GatherLeaves(EvalBatch<G>& batch, Evaluator<G>& evaluator) override {
    const int begin = batch.size();
    const int added = SearchPlayer<G>::GatherLeaves(batch, evaluator);
    rollouts_.SeedEntries(begin, batch.size(), seed_);
    return added;
  }

 private:
  RolloutEvaluator<G>& rollouts_;  // owned by the evaluator of SearchPlayer
  uint64_t seed_ = 0;
};

// What all the games of one player share: the evaluator of an MCTS player (a net is loaded once
// per player, not per game), wrapped in a QuiescenceEvaluator with the `:qs` option; null for the
// other kinds. Throws vz::Error on an unreadable net file or one built for another game.
template <Game G>
std::shared_ptr<Evaluator<G>> MakePlayerEvaluator(const PlayerSpec& spec) {
  std::shared_ptr<Evaluator<G>> evaluator;
  if (spec.kind == "rollout") evaluator = std::make_shared<RolloutEvaluator<G>>(/*seed=*/0);
#if VZ_HAVE_TORCH
  if (spec.kind == "net") {
    const std::string file = spec.file == "default" ? nets::RequireShippedNet(G::kName) : spec.file;
    evaluator = nets::MakeNetEvaluator<G>(nets::ReadNetFile(file), file, "auto", spec.precision);
  }
#endif
  if (evaluator && spec.leaf_quiescence) {
    evaluator = std::make_shared<QuiescenceEvaluator<G>>(std::move(evaluator));
  }
  return evaluator;
}

// Builds the player of `spec` (see PlayerSpec::Parse) for one game at a time, sharing `evaluator`
// (MakePlayerEvaluator(spec); required for rollout and net players) with the other players of the
// same spec. Throws vz::Error on an unknown kind or a missing or unfit evaluator.
template <Game G>
std::unique_ptr<Player<G>> MakePlayer(const PlayerSpec& spec,
                                      std::shared_ptr<Evaluator<G>> evaluator) {
  if (spec.kind == "random") return std::make_unique<RandomPlayer<G>>();
  if (spec.kind == "alphabeta") {
    return std::make_unique<AlphaBetaPlayer<G>>(spec.value, spec.move_time_ms);
  }
  if (spec.kind == "rollout") {
    Evaluator<G>* inner = evaluator.get();
    if (auto* quiescence = dynamic_cast<QuiescenceEvaluator<G>*>(inner))
      inner = &quiescence->inner();
    auto* rollouts = dynamic_cast<RolloutEvaluator<G>*>(inner);
    if (!rollouts) throw Error("player '" + spec.text + "': needs its rollout evaluator");
    return std::make_unique<RolloutPlayer<G>>(std::move(evaluator), *rollouts, spec.value,
                                              spec.move_time_ms);
  }
  if (spec.kind == "net") {
    if (!evaluator) throw Error("player '" + spec.text + "': needs its net evaluator");
    // By the clock the net is batched as `vzero uci` batches it; by simulations one leaf a
    // round, the games of a lockstep match filling the batch together (arena/match_games.h; in a
    // match with a timed player each game searches alone).
    return std::make_unique<SearchPlayer<G>>(std::move(evaluator), spec.value,
                                             SearchParams().max_nodes, spec.move_time_ms,
                                             spec.move_time_ms > 0 ? kNetLeavesPerRound : 1);
  }
  throw Error("player '" + spec.text + "': unknown kind");
}

// The player of `spec` with an evaluator of its own. Throws as MakePlayerEvaluator and MakePlayer.
template <Game G>
std::unique_ptr<Player<G>> MakePlayer(const PlayerSpec& spec) {
  return MakePlayer<G>(spec, MakePlayerEvaluator<G>(spec));
}

}  // namespace vz
