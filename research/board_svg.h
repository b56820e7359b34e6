#pragma once

// Board diagrams as inline SVG for the research report (research/report.h): every game's board
// in its own shape, White at the bottom. Chaco Rex's 85 hexagons (pointy-top, in 9 horizontal
// ranks of 9 and 10 cells, three shades as on a hexagonal chess board), Chad's 12 x 12 squares
// with the castles and walls tinted, Cuarenta's 40 squares (the missing dark squares drawn dark),
// the 32 dark squares of Portuguese draughts with their numbers. Pieces are discs with the
// engine's letter (position strings' letters: K Q R B N P in Chaco Rex and Chad, K B V G C F P in
// Cuarenta; a draughts king is marked K), light discs for White and dark ones for Black. Cells
// whose content differs from a previous position (the last move) are outlined.
// Host only; no state, thread-safe.

#include <string>
#include <vector>

#include "engine/core/game.h"
#include "engine/games.h"

namespace vz::research {

// One cell of a diagram, in board units (a square or the width of a hexagon is 1).
struct DiagramCell {
  double x = 0.0;        // centre, rightwards
  double y = 0.0;        // centre, downwards (White's first rank at the bottom)
  bool hexagon = false;  // a pointy-top hexagon of width 1, else a unit square
  int shade = 0;         // 0..3: fill of the cell (game-specific meaning, see above)
  int owner = -1;        // piece owner: -1 none, 0 White, 1 Black
  std::string glyph;     // text on the piece ("" for a draughts man)
  std::string name;      // the cell's name in the game's notation ("j5", "c3", "17")
};

// The cells of `position`; specialised for every registered game (research/board_svg.cc).
template <Game G>
std::vector<DiagramCell> DiagramCells(const typename G::Position& position);
template <>
std::vector<DiagramCell> DiagramCells<chaco_rex::ChacoRexGame>(const chaco_rex::Position& position);
template <>
std::vector<DiagramCell> DiagramCells<chad::ChadGame>(const chad::Position& position);
template <>
std::vector<DiagramCell> DiagramCells<cuarenta::CuarentaGame>(const cuarenta::Position& position);
template <>
std::vector<DiagramCell> DiagramCells<draughts::DraughtsGame>(const draughts::Position& position);

// An SVG element (no XML prologue, to be inlined in HTML) of `width_px` pixels drawing `cells`,
// with `caption` under the board (escaped). When `previous` is given (the cells of the position
// before, same layout), the cells that changed are outlined.
std::string DiagramSvg(const std::vector<DiagramCell>& cells,
                       const std::vector<DiagramCell>* previous, const std::string& caption,
                       int width_px = 360);

// DiagramSvg of a position of G, optionally marking the change from `previous`.
template <Game G>
std::string BoardSvg(const typename G::Position& position, const std::string& caption,
                     const typename G::Position* previous = nullptr, int width_px = 360) {
  const std::vector<DiagramCell> cells = DiagramCells<G>(position);
  if (previous == nullptr) return DiagramSvg(cells, nullptr, caption, width_px);
  const std::vector<DiagramCell> before = DiagramCells<G>(*previous);
  return DiagramSvg(cells, &before, caption, width_px);
}

// `text` with &, <, >, " and ' escaped for HTML and SVG.
std::string EscapeXml(const std::string& text);

}  // namespace vz::research
