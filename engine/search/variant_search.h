#pragma once

// The search behind the type-erased registry: runs Mcts<G> for a text request and reports in
// text, and the fixed `vzero bench` workload. Instantiated once per registered game in
// engine/registry.cc.

#include <time.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/search/evaluator_registry.h"
#include "engine/search/mcts.h"
#include "engine/search/rollout_evaluator.h"
#include "engine/search/search_report.h"
#include "engine/search/uniform_evaluator.h"

namespace vz {

// Runs the search described by `request` (see SearchRequest). Throws vz::Error on a bad position
// string, an illegal or unparsable move (naming it and its index), an unknown evaluator name, or
// a simulation count outside [0, kMaxSimulations].
template <Game G>
SearchReport RunVariantSearch(const SearchRequest& request) {
  if (request.simulations < 0) {
    throw Error("simulations " + std::to_string(request.simulations) + " is negative");
  }
  if (request.simulations > kMaxSimulations) {
    throw Error("simulations " + std::to_string(request.simulations) + " is above the maximum " +
                std::to_string(kMaxSimulations) + " (visit counts are 32-bit)");
  }
  GameState<G> game(request.fen.empty() ? G::InitialPosition() : G::ParsePosition(request.fen));
  PlayMoveStrings(game, request.moves);
  std::unique_ptr<Evaluator<G>> evaluator;
  if (request.evaluator == "uniform") {
    evaluator = std::make_unique<UniformEvaluator<G>>();
  } else if (request.evaluator == "rollout") {
    evaluator = std::make_unique<RolloutEvaluator<G>>(request.params.seed, request.rollout_playouts,
                                                      request.rollout_max_plies);
  } else if (request.evaluator == "net") {
    evaluator = LoadNetEvaluator<G>(request.net, request.device);
  } else {
    throw Error("unknown evaluator '" + request.evaluator + "' (known: uniform, rollout, net)");
  }
  auto search = std::make_unique<Mcts<G>>(request.params);
  search->SetRoot(game);
  const auto start = std::chrono::steady_clock::now();
  search->Search(*evaluator, request.simulations);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const SearchResult result = search->Result();
  const typename G::Position& root = game.position();
  const Color side = G::SideToMove(root);

  SearchReport report;
  report.fen = G::FormatPosition(root);
  report.side_to_move = side;
  report.outcome = result.root_outcome;
  if (result.best_move != kNullMove) {
    report.best_move = G::FormatMove(root, result.best_move);
    report.best_move_display = G::FormatDisplayMove(root, result.best_move);
  }
  for (const RootMoveStats& stats : result.moves) {
    SearchMoveReport move;
    move.move = G::FormatMove(root, stats.move);
    move.display = G::FormatDisplayMove(root, stats.move);
    move.action = stats.action;
    move.visits = stats.visits;
    move.prior = stats.prior;
    move.q = stats.q;
    move.wdl = stats.wdl;
    move.policy_target = stats.policy_target;
    move.proven = ProvenName(stats.proven, side);
    move.proven_plies = stats.proven_plies;
    report.moves.push_back(move);
  }
  typename G::Position position = root;
  for (Move move : result.pv) {
    report.pv.push_back(G::FormatMove(position, move));
    report.pv_display.push_back(G::FormatDisplayMove(position, move));
    G::ApplyMove(position, move);
  }
  report.root_visits = result.root_visits;
  report.root_q = result.root_q;
  report.root_wdl = result.root_wdl;
  report.proven = ProvenName(result.proven, side);
  report.proven_plies = result.proven_plies;
  report.simulations = result.simulations;
  report.nodes = result.nodes;
  report.node_cap_reached = result.node_cap_reached;
  report.tree_full = result.tree_full;
  report.seconds = seconds;
  return report;
}

// The bench positions of a game: the start position and the positions after 10, 20 and 40 plies
// of one fixed pseudo-random game (SplitMix64 from seed 1), those the game reaches.
template <Game G>
std::vector<typename G::Position> BenchPositions() {
  std::vector<typename G::Position> positions;
  GameState<G> game;
  positions.push_back(game.position());
  uint64_t state = 1;
  for (int ply = 1; ply <= 40 && !game.outcome().IsTerminal(); ++ply) {
    state = SplitMix64(state);
    const auto& moves = game.legal_moves();
    game.Play(moves[int((state >> 32) * uint64_t(moves.size) >> 32)]);
    if ((ply == 10 || ply == 20 || ply == 40) && !game.outcome().IsTerminal()) {
      positions.push_back(game.position());
    }
  }
  return positions;
}

// CPU time of the calling thread in seconds.
inline double ThreadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return double(now.tv_sec) + 1e-9 * double(now.tv_nsec);
}

// Runs `simulations` PUCT simulations (uniform evaluator, seed 0) on each bench position. Throws
// vz::Error if `simulations` is outside [1, kMaxSimulations].
template <Game G>
BenchReport RunVariantBench(int64_t simulations) {
  if (simulations < 1 || simulations > kMaxSimulations) {
    throw Error("bench simulations " + std::to_string(simulations) + " is outside [1, " +
                std::to_string(kMaxSimulations) + "]");
  }
  BenchReport report;
  UniformEvaluator<G> evaluator;
  SearchParams params;
  auto search = std::make_unique<Mcts<G>>(params);
  uint64_t signature = kSignatureBasis;  // over the visit counts
  for (const typename G::Position& position : BenchPositions<G>()) {
    search->SetRoot(position);
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = ThreadCpuSeconds();
    search->Search(evaluator, simulations);
    report.cpu_seconds += ThreadCpuSeconds() - cpu_start;
    report.seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const SearchResult result = search->Result();
    ++report.positions;
    report.simulations += result.simulations;
    report.nodes += result.nodes;
    signature = MixSignature(signature, uint64_t(report.positions));
    for (const RootMoveStats& stats : result.moves) {
      signature = MixSignature(signature, uint64_t(stats.visits));
    }
  }
  report.signature = signature;
  return report;
}

}  // namespace vz
