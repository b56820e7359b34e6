#pragma once

// The JSON-lines analysis engine behind `vzero analysis`, in the style of KataGo's analysis engine
// (KataGo docs/Analysis_Engine.md): each input line is one JSON object, a query or an action; each
// output line is one JSON object answering one analysed turn of a query, an action, or reporting
// an error or a warning. The query and response format is documented in docs/analysis.md.
//
// Batching: every analysed turn is its own Mcts<G> search, and all active searches of one game
// advance in lockstep through the search driver (engine/search/search_driver.h): one round gathers
// the leaves of every active search of that game into ONE evaluator batch (up to
// AnalysisConfig::max_batch positions, the searches taking turns when they do not all fit) and
// makes one evaluator call. A search's descents depend only on its own tree, and the evaluators
// used here (the network, the position-seeded rollouts) give a position the same result whatever
// else shares its batch, so a query's answer does not depend on the other queries in flight.
//
// Errors in a query (bad JSON, a missing or mistyped field, an unknown variant, a bad position
// string, an illegal move, a turn outside the game) answer that query with one error line
// {"id": ..., "error": "...", "field": "..."} and never stop the engine.
//
// Not thread-safe: one thread calls HandleLine and RunRound (the command's reader thread only
// queues lines for it).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace vz {

struct AnalysisConfig {
  // Simulations of a query that gives neither `maxVisits` nor `simulations`.
  int64_t default_simulations = 200;
  // Positions in one evaluator call at most (a search adds up to leaves_per_search at a time, so
  // one call may exceed it by less than that).
  int max_batch = 256;
  // Turn analyses searched at once; the others wait, first come first served.
  int max_active = 64;
  // Leaves one search hands out per round (virtual loss): 0 chooses 8 for a net and 1 (plain
  // sequential MCTS) for the rollout evaluator.
  int leaves_per_search = 0;
  // Tree node cap of each search (engine/search/search_params.h).
  int64_t max_nodes = int64_t{1} << 22;
  // Net file per variant (registry name -> path); variants without one use random rollouts.
  std::map<std::string, std::string> nets;
  // Device of the nets: "cpu", "cuda", "cuda:N".
  std::string device = "cpu";
  // With a net, each leaf value corrected by a bounded capture search and the priors informed by
  // it (engine/search/quiescence_evaluator.h): how the shipped nets are measured (models/).
  bool leaf_quiescence = true;
  // The variant of a query that names none; "" makes `variant` required.
  std::string default_variant;
  // Reported by the query_version action.
  std::string version = "unknown";
  std::string git_revision = "unknown";
};

class AnalysisEngine {
 public:
  // Each output line (one JSON object, no newline) is handed to `sink` as soon as it is made.
  // Loads every net of config.nets (through the net-evaluator slots of
  // engine/search/evaluator_registry.h). Throws vz::Error on an unknown variant in config.nets, a
  // net file that cannot be loaded or fits another game, or a config value out of range.
  AnalysisEngine(const AnalysisConfig& config, std::function<void(const std::string&)> sink);
  ~AnalysisEngine();
  AnalysisEngine(const AnalysisEngine&) = delete;
  AnalysisEngine& operator=(const AnalysisEngine&) = delete;

  // Handles one input line: answers actions and errors at once, queues a valid query's turns for
  // analysis. Blank lines are ignored; a line over kMaxLineBytes (serve/line_io.h) is answered
  // with an error line. Never throws on bad input.
  void HandleLine(std::string_view line);

  // True while some turn analysis is queued or running.
  bool Busy() const;

  // One lockstep round per game with active searches (one evaluator call each), then answers the
  // finished turns, emits the due during-search reports and starts waiting turns. An evaluator
  // failure answers the turns of that round's game with error lines and drops them.
  void RunRound();

  // "net" or "rollout": the evaluator that serves `variant` (a registry name).
  std::string EvaluatorKind(std::string_view variant) const;

  // Evaluator calls so far, the positions they evaluated and the largest batch of one call (for
  // tests of the batching).
  int64_t evaluator_calls() const;
  int64_t positions_evaluated() const;
  int largest_batch() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vz
