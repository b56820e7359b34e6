#pragma once

// The output side of the UCI engine (serve/uci_engine.h): one locked writer of whole protocol
// lines, and the text of the `info` fields (score, WDL, the search's lines of play) built from a
// search result.

#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

#include "engine/core/types.h"
#include "engine/search/search_result.h"
#include "engine/search/wdl.h"

namespace vz {

// Writes whole lines to `out` (which must outlive the writer), each flushed, from any thread.
class UciOutput {
 public:
  explicit UciOutput(std::ostream& out) : out_(out) {}

  // Writes `line` and a line break. Thread-safe.
  void Line(std::string_view line);
  // `info string TEXT`, with line breaks of TEXT turned into spaces (one protocol line).
  // Thread-safe.
  void InfoString(std::string text);

 private:
  std::ostream& out_;
  std::mutex mutex_;
};

// Lc0's mapping of the expected score q in [-1, 1] to centipawns: 90 * tan(1.5637541897 * q),
// 89 cp at q = 0.5, 272 cp at q = 0.8 and +-12780 cp at q = +-1 (q outside [-1, 1] is clamped).
int QToCentipawns(float q);

// `score ...` of a root move for `side` to move: `mate N` (moves, not plies; negative when the
// side to move is mated) for a proven win or loss, `cp 0` for a proven draw, else cp from Q.
std::string ScoreText(const RootMoveStats& stats, Color side);

// `wdl W D L` in per mille, summing to 1000 (the draw takes the rounding); inputs clamped to
// [0, 1].
std::string WdlText(const Wdl& wdl);

}  // namespace vz
