#pragma once

// The engine of one game behind the UCI protocol (serve/uci_engine.h): the position, the search
// tree kept between moves, the evaluator (a net, or random rollouts on the Threads option's
// threads) and one search at a time, run by the search driver (engine/search/search_driver.h)
// round by round so that `stop` and the time manager (engine/search/time_manager.h) take effect
// between two rounds.

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "engine/search/time_manager.h"
#include "serve/uci_engine.h"
#include "serve/uci_output.h"

namespace vz {

// The limits of one `go`.
struct GoLimits {
  TimeControl time;
  int64_t nodes = 0;  // 0: not given
  bool ponder = false;
  std::vector<std::string> search_moves;  // `searchmoves`: the root moves to search (empty: all)
};

// Leaves per search round: MinibatchSize when set; else kNetLeavesPerRound (16) with a net (batches
// for the network), 1 with rollouts on one thread (plain sequential MCTS) and 4 per thread with
// several.
int LeavesPerRound(const UciOptions& options, bool has_net);

// Position, search tree and evaluator of the game being played. The protocol's thread and the
// search thread never use it at the same time (the protocol joins the search first).
class UciSession {
 public:
  virtual ~UciSession() = default;
  // Sets the position to `fen` (empty: the start position) followed by `moves` (protocol or
  // display form). Throws vz::Error naming the bad FEN or the bad move; the position is then
  // unchanged.
  virtual void SetPosition(const std::string& fen, const std::vector<std::string>& moves) = 0;
  // Forgets the tree (and the position).
  virtual void NewGame() = 0;
  // The `d` listing: board picture, FEN, side to move, legal moves.
  virtual std::string Describe() const = 0;
  // Searches the current position under `limits` until done or `stop`, printing info lines and
  // then `bestmove` on `out`. Never throws on an evaluator failure (reported in an info string;
  // the move found so far is played).
  virtual void Go(const GoLimits& limits, const UciOptions& options, const std::atomic<bool>& stop,
                  UciOutput& out) = 0;
};

// The session of game options.variant: loads options.net_file (if any) for it, or, on failure or
// without a net, plays with rollouts, and says which in an info string on `out`. Throws vz::Error
// listing the games for an unknown variant.
std::unique_ptr<UciSession> MakeUciSession(const UciOptions& options, UciOutput& out);

}  // namespace vz
