#pragma once

// The engine behind `vzero uci`: the UCI protocol (the published Universal Chess Interface
// specification of Stefan Meyer-Kahlen) with Fairy-Stockfish's variant extension, over streams, so
// that tests drive it in-process. The game is chosen by the UCI_Variant combo option and announced
// with `info string variant NAME startpos FEN`. Supported commands, options, move notation, the
// score mapping and time management are listed in docs/uci.md.
//
// Threads: the caller hands input lines to Handle one at a time (one thread); `go` starts the
// search on a thread of the engine, so that `stop`, `isready` and `quit` are handled while it
// runs. The search is Mcts<G> run round by round by the search driver (the per-game session,
// serve/uci_session.h), so that `stop` and the time manager (engine/search/time_manager.h) take
// effect between two rounds. Commands that change the engine's state (position, setoption,
// ucinewgame, go, d) and the end of the input (Finish) first wait for a running search with
// limits to end, or stop one that would run until `stop` (go infinite, go ponder); `quit` stops
// it. Output lines come from both threads through one locked writer, each line whole and flushed.
//
// Bad input never throws out of Handle: a malformed command, an unknown option, an illegal move
// or a bad position string is answered with one `info string error: ...` line and the engine's
// state is unchanged; a `go` always ends with a `bestmove` line.

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

#include "engine/search/search_params.h"

namespace vz {

// The UCI options at start (the command line's values, listed as defaults by `uci`).
struct UciOptions {
  std::string variant = "chaco-rex";  // registry name
  std::string net_file;  // empty: the shipped net of the variant; "<none>"/"none": rollouts
  std::string device = "cpu";         // LibTorch device of the net
  int threads = 1;                    // rollout threads; LibTorch CPU threads with a net
  int hash_mib = 256;                 // tree memory in MiB
  int64_t nodes = 800;                // simulations of a `go` without nodes or time limits
  int minibatch = 0;                  // leaves per round; 0: automatic
  int multipv = 1;
  bool show_wdl = false;
  bool gumbel = false;
  int64_t move_overhead_ms = 50;
  // With a net: leaf quiescence (engine/search/quiescence_evaluator.h), the configuration the
  // shipped nets are measured in (models/README.md).
  bool leaf_quiescence = true;
};

// Ranges of the options (the `uci` listing's min and max).
inline constexpr int kUciMaxThreads = 256;
inline constexpr int kUciMaxHashMib = 65536;
inline constexpr int kUciMaxMinibatch = 1024;
inline constexpr int kUciMaxMultiPv = 500;
inline constexpr int64_t kUciMaxMoveOverheadMs = 5000;
inline constexpr int64_t kUciMaxNodes = kMaxSimulations;

class UciEngine {
 public:
  // Writes protocol lines to `out` (which must outlive the engine). `threads_given`: the Threads
  // option was given at start, so it is applied to LibTorch's CPU threads at once. Throws
  // vz::Error listing the games if options.variant is not a registered game.
  UciEngine(const UciOptions& options, std::ostream& out, bool threads_given = false);
  // Stops a running search (its bestmove is written) and joins its thread.
  ~UciEngine();
  UciEngine(const UciEngine&) = delete;
  UciEngine& operator=(const UciEngine&) = delete;

  // Handles one input line (without its line break). Returns false after `quit`. Never throws; a
  // line over kMaxLineBytes (serve/line_io.h) is answered with an `info string error` and ignored.
  bool Handle(std::string_view line);

  // At the end of the input: waits for a search with limits, stops an open-ended one.
  void Finish();

  // Handles the lines of `in` (read with ReadLine: bounded memory per line) until `quit` or the
  // end of the input (then Finish).
  void Run(std::istream& in);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vz
