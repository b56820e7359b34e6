#pragma once

// The registry of games by name (OpenSpiel's game registry): one binary serves every game through
// this type-erased interface, while the hot paths stay templates over the game type (see
// engine/core/game.h). Names: "chaco-rex", "chad", "cuarenta", "portuguese-draughts".
// Thread-safety: every method is const and safe to call from several threads.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/types.h"
#include "engine/search/search_report.h"

namespace vz {

// What `vzero show` reports about a position.
struct PositionReport {
  std::string fen;    // position string after the moves
  std::string board;  // ASCII picture, lines ending in '\n'
  Color side_to_move = Color::kWhite;
  bool has_check = false;                        // the game has check (chess-like)
  bool in_check = false;                         // side to move in check (false if !has_check)
  Outcome outcome;                               // full-game outcome (repetition included)
  std::vector<std::string> legal_moves;          // protocol form, generation order
  std::vector<std::string> legal_moves_display;  // display form, same order
  std::vector<std::string> played_display;       // the played moves in display form
};

class Variant {
 public:
  virtual ~Variant() = default;

  // The registry name, e.g. "chaco-rex".
  virtual std::string_view name() const = 0;
  // The start position in the game's position-string form.
  virtual std::string StartFen() const = 0;

  // Perft from `fen` (empty: the start position) to `depth` >= 0 plies.
  // Throws vz::Error on a bad position string or a negative depth.
  virtual uint64_t Perft(std::string_view fen, int depth) const = 0;

  // Perft per legal first move: (protocol move, leaves at depth - 1). depth >= 1.
  virtual std::vector<std::pair<std::string, uint64_t>> PerftDivide(std::string_view fen,
                                                                    int depth) const = 0;

  // Plays `moves` (protocol or display form) from `fen` (empty: start) and reports the result.
  // Throws vz::Error naming the move, its index in `moves` and the legal moves if one is
  // illegal or unparsable, or a move is given after the game ended.
  virtual PositionReport Show(std::string_view fen,
                              const std::vector<std::string>& moves) const = 0;

  // Searches the position after request.moves from request.fen (see engine/search/search_report.h).
  // Throws vz::Error on a bad position string, an illegal move (naming it), an unknown evaluator,
  // a net file that cannot be loaded (evaluator "net"), or a simulation count outside
  // [0, kMaxSimulations].
  virtual SearchReport Search(const SearchRequest& request) const = 0;

  // `vzero bench`: `simulations` uniform-evaluator PUCT simulations on each of the game's fixed
  // bench positions; the report's signature is deterministic. Throws vz::Error for `simulations`
  // outside [1, kMaxSimulations].
  virtual BenchReport Bench(int64_t simulations) const = 0;
};

// Every registered game, in name order.
const std::vector<const Variant*>& AllVariants();

// The game called `name` (looked up by GameIndex, engine/games.h). Throws its vz::Error listing
// the known names if there is none.
const Variant& FindVariant(std::string_view name);

}  // namespace vz
