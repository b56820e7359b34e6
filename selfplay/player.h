#pragma once

// Players of matches and ladders behind one interface, each described by a spec string:
//   random              uniformly random legal move (seeded)
//   rollout:SIMS        MCTS (PUCT) with the random-rollout evaluator, SIMS simulations a move
//   alphabeta:DEPTH     iterative-deepening alpha-beta to DEPTH plies (engine/alphabeta/)
//   net:FILE:SIMS       MCTS (PUCT) with the LibTorch evaluator of net file FILE on the CPU, SIMS
//                       simulations a move; only in builds with LibTorch (VZ_HAVE_TORCH)
// `uci:COMMAND` is not available yet: its spec is rejected with a message saying so.
//
// A player belongs to one thread. Players are deterministic given their seed and the game; the
// seed of a player in a match is derived from the match seed and the game index, so a match is
// reproducible for a fixed concurrency-independent assignment of games.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/alphabeta/alphabeta.h"
#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/search/mcts.h"
#include "engine/search/rollout_evaluator.h"
#if VZ_HAVE_TORCH
#include "nets/torch_evaluator.h"
#endif

namespace vz {

template <Game G>
class Player {
 public:
  virtual ~Player() = default;
  // Called before each game with a seed for that game.
  virtual void NewGame(uint64_t seed) = 0;
  // The move to play in `state` (not terminal). Never throws on a legal, ongoing state.
  virtual Move ChooseMove(const GameState<G>& state) = 0;
};

// A parsed spec string: kind and its integer parameter (0 for `random`).
struct PlayerSpec {
  std::string kind;  // "random", "rollout", "alphabeta", "net"
  int value = 0;     // simulations or depth
  std::string file;  // net file of `net:FILE:SIMS`
  std::string text;  // the spec as given

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

// MCTS with random playouts (one playout per leaf, at most 400 plies). Plays the most visited
// move; a fresh tree every move (rollout values are too noisy for reuse to matter).
template <Game G>
class RolloutPlayer final : public Player<G> {
 public:
  explicit RolloutPlayer(int simulations) : simulations_(simulations) {}
  void NewGame(uint64_t seed) override {
    SearchParams params;
    params.seed = seed;
    params.max_nodes = int64_t(simulations_) * 256 + 4096;  // children of every expansion
    search_ = std::make_unique<Mcts<G>>(params);
    evaluator_ = std::make_unique<RolloutEvaluator<G>>(seed);
  }
  Move ChooseMove(const GameState<G>& state) override {
    search_->SetRoot(state);
    search_->Search(*evaluator_, simulations_);
    const Move move = search_->BestMove();
    return move == kNullMove ? state.legal_moves()[0] : move;
  }

 private:
  int simulations_;
  std::unique_ptr<Mcts<G>> search_;
  std::unique_ptr<RolloutEvaluator<G>> evaluator_;
};

template <Game G>
class AlphaBetaPlayer final : public Player<G> {
 public:
  explicit AlphaBetaPlayer(int depth) : depth_(depth) {}
  void NewGame(uint64_t) override { search_.Clear(); }
  Move ChooseMove(const GameState<G>& state) override {
    const AlphaBetaResult result = search_.Search(state, depth_);
    return result.best_move == kNullMove ? state.legal_moves()[0] : result.best_move;
  }

 private:
  int depth_;
  AlphaBeta<G> search_{int64_t{1} << 17};
};

#if VZ_HAVE_TORCH
// MCTS with a network evaluator, tree kept between moves of a game (SetRoot reuses it). Network
// calls are one batch per search round of this game; batching across concurrent games (the
// lockstep runner) is not used by matches yet.
template <Game G>
class NetPlayer final : public Player<G> {
 public:
  NetPlayer(const std::string& path, int simulations)
      : simulations_(simulations), evaluator_(nets::MakeTorchEvaluator<G>(path, "cpu")) {}
  void NewGame(uint64_t seed) override {
    SearchParams params;
    params.seed = seed;
    search_ = std::make_unique<Mcts<G>>(params);
  }
  Move ChooseMove(const GameState<G>& state) override {
    search_->SetRoot(state);
    search_->Search(*evaluator_, simulations_);
    const Move move = search_->BestMove();
    return move == kNullMove ? state.legal_moves()[0] : move;
  }

 private:
  int simulations_;
  std::unique_ptr<Evaluator<G>> evaluator_;
  std::unique_ptr<Mcts<G>> search_;
};
#endif

// Builds the player of `spec` (see PlayerSpec::Parse). Throws vz::Error on a bad spec.
template <Game G>
std::unique_ptr<Player<G>> MakePlayer(const PlayerSpec& spec) {
  if (spec.kind == "random") return std::make_unique<RandomPlayer<G>>();
  if (spec.kind == "rollout") return std::make_unique<RolloutPlayer<G>>(spec.value);
  if (spec.kind == "alphabeta") return std::make_unique<AlphaBetaPlayer<G>>(spec.value);
#if VZ_HAVE_TORCH
  if (spec.kind == "net") return std::make_unique<NetPlayer<G>>(spec.file, spec.value);
#endif
  throw Error("player '" + spec.text + "': unknown kind");
}

}  // namespace vz
