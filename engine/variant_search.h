#pragma once

// The command glue of `vzero search` and `vzero bench` behind the type-erased registry
// (engine/registry.h): runs Mcts<G> for a text request and reports in text, and the fixed bench
// workload. Instantiated once per registered game in engine/registry.cc; it lives beside the
// registry, not in engine/search/, which stays the search alone.

#include <time.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/search/evaluator_registry.h"
#include "engine/search/mcts.h"
#include "engine/search/quiescence_evaluator.h"
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
  if (request.leaf_quiescence) {
    evaluator = std::make_unique<QuiescenceEvaluator<G>>(std::move(evaluator));
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

  std::vector<SearchMoveReport> moves;
  for (const RootMoveStats& stats : result.moves) {
    moves.push_back({.move = G::FormatMove(root, stats.move),
                     .display = G::FormatDisplayMove(root, stats.move),
                     .action = stats.action,
                     .visits = stats.visits,
                     .prior = stats.prior,
                     .q = stats.q,
                     .wdl = stats.wdl,
                     .policy_target = stats.policy_target,
                     .proven = ProvenName(stats.proven, side),
                     .proven_plies = stats.proven_plies});
  }
  std::vector<std::string> pv, pv_display;
  typename G::Position position = root;
  for (Move move : result.pv) {
    pv.push_back(G::FormatMove(position, move));
    pv_display.push_back(G::FormatDisplayMove(position, move));
    G::ApplyMove(position, move);
  }
  const bool has_move = result.best_move != kNullMove;
  return SearchReport{
      .fen = G::FormatPosition(root),
      .side_to_move = side,
      .outcome = result.root_outcome,
      .best_move = has_move ? G::FormatMove(root, result.best_move) : "",
      .best_move_display = has_move ? G::FormatDisplayMove(root, result.best_move) : "",
      .moves = std::move(moves),
      .pv = std::move(pv),
      .pv_display = std::move(pv_display),
      .root_visits = result.root_visits,
      .root_q = result.root_q,
      .root_wdl = result.root_wdl,
      .proven = ProvenName(result.proven, side),
      .proven_plies = result.proven_plies,
      .simulations = result.simulations,
      .nodes = result.nodes,
      .node_cap_reached = result.node_cap_reached,
      .tree_full = result.tree_full,
      .seconds = seconds};
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
