#pragma once

// The terminal play session of `vzero play`: a person plays the engine. The board is drawn after
// every move with the game's own picture (G::BoardPicture: the hex layout of Chaco Rex, castles
// and walls of Chad); moves are typed in protocol or display form (G::ParseMove reads both);
// commands undo, hint, fen, moves, board, help, quit (any case). At the end (game over, quit or
// end of input) the game is saved as PGN, or PDN for Portuguese draughts (records/pgn_record.h),
// and the result printed. Reads its input line by line, so it can be scripted through a pipe or
// driven by a test over string streams. Not thread-safe: one thread runs a session.

#include <cstdint>
#include <iosfwd>
#include <string>

namespace vz {

struct PlayOptions {
  std::string variant;  // registry name (engine/registry.h)
  // Net file of the engine; "" = the shipped net of the variant (nets/shipped_nets.h), or random
  // rollouts (weak) in a build without nets or when there is none; "none" = random rollouts.
  std::string net;
  std::string device = "cpu";
  bool leaf_quiescence = true;  // with a net: engine/search/quiescence_evaluator.h
  int64_t simulations = 200;    // engine simulations a move, also for hints
  std::string color = "white";  // the person's colour: "white" or "black"
  std::string save;   // record written at the end; "" = vzero-<variant>-<UTC time>.pgn/.pdn
  std::string fen;    // start position; "" = the initial position
  uint64_t seed = 0;  // seed of the engine's search and rollouts
};

class PlaySession {
 public:
  // A session reading the person's lines from `in`, writing the board, moves and results to
  // `out` and notes (the weak-engine warning) to `notes`; the streams must outlive it.
  PlaySession(PlayOptions options, std::istream& in, std::ostream& out, std::ostream& notes);

  // Plays the game to its end, quit or the end of `in`, then writes the record (atomically).
  // Throws vz::Error on an unknown variant, a malformed --fen, a net that does not load, or a
  // record that cannot be written; an illegal or unreadable move, or a line over kMaxLineBytes
  // (serve/line_io.h, read in bounded memory), is answered on `out` and the session goes on.
  void Run();

 private:
  PlayOptions options_;
  std::istream& in_;
  std::ostream& out_;
  std::ostream& notes_;
};

}  // namespace vz
