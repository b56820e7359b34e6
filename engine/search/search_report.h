#pragma once

// Search requests and reports in text form, for the type-erased registry (engine/registry.h) and
// the CLI: moves are strings in the game's notation, results are relative to the side to move.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/fnv.h"
#include "engine/core/types.h"
#include "engine/search/search_params.h"
#include "engine/search/wdl.h"

namespace vz {

struct SearchRequest {
  std::string fen;                    // position string; empty: the start position
  std::vector<std::string> moves;     // played from `fen` (protocol or display form)
  std::string evaluator = "uniform";  // "uniform", "rollout" or "net"
  std::string net;                    // net file (evaluator "net")
  std::string device = "cpu";         // "cpu", "cuda" or "cuda:N" (evaluator "net")
  int64_t simulations = 800;
  int rollout_playouts = 1;     // playouts per position (rollout evaluator)
  int rollout_max_plies = 400;  // playout length cap (rollout evaluator)
  bool leaf_quiescence = false;  // leaf values corrected by a capture search (QuiescenceEvaluator)
  SearchParams params;          // gumbel, seed, caps, ...
};

struct SearchMoveReport {
  std::string move;     // protocol form
  std::string display;  // display form
  int action = 0;
  int32_t visits = 0;
  float prior = 0.0f;
  float q = 0.0f;  // root side to move's view
  Wdl wdl;         // root side to move's view
  float policy_target = 0.0f;
  std::string proven;  // "win", "draw", "loss" for the root side to move, or "" unknown
  int proven_plies = 0;
};

struct SearchReport {
  std::string fen;  // the root position
  Color side_to_move = Color::kWhite;
  Outcome outcome;        // the root's outcome (terminal: no moves)
  std::string best_move;  // protocol form; "" if none
  std::string best_move_display;
  std::vector<SearchMoveReport> moves;  // generation order
  std::vector<std::string> pv;          // protocol form
  std::vector<std::string> pv_display;
  int32_t root_visits = 0;
  float root_q = 0.0f;
  Wdl root_wdl;
  std::string proven;  // as SearchMoveReport::proven, for the root
  int proven_plies = 0;
  int64_t simulations = 0;
  int64_t nodes = 0;
  bool node_cap_reached = false;
  bool tree_full = false;  // the search ended early: the tree was full (SearchResult::tree_full)
  double seconds = 0.0;    // wall time of the search
};

// `vzero bench` for one game: fixed positions, uniform evaluator, fixed seed.
struct BenchReport {
  int positions = 0;
  int64_t simulations = 0;   // total over the positions
  uint64_t signature = 0;    // hash of every root move's visit count, position by position
  int64_t nodes = 0;         // total tree nodes at the end of each search
  double seconds = 0.0;      // search time only, wall clock
  double cpu_seconds = 0.0;  // search time only, this thread's CPU time (robust to a busy machine)
};

// Bench signatures are FNV-1a hashes: start from kSignatureBasis (FNV-1a's 64-bit offset basis)
// and mix in each value with MixSignature, which hashes its 8 bytes, lowest first.
inline constexpr uint64_t kSignatureBasis = kFnv1aBasis;
inline uint64_t MixSignature(uint64_t signature, uint64_t value) {
  return Fnv1a64Word(value, signature);
}

// "win", "draw", "loss" for `side`, or "" for kOngoing.
inline std::string ProvenName(Status status, Color side) {
  if (status == Status::kOngoing) return "";
  if (status == Status::kDraw) return "draw";
  return status == WinFor(side) ? "win" : "loss";
}

}  // namespace vz
