#include "research/board_svg.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace vz::research {
namespace {

// Fills per shade: light, dark, and two tints (a hexagon board's third colour; Chad's castles).
constexpr const char* kShadeFill[4] = {"#f0d9b5", "#b58863", "#d8b07e", "#9fb8c9"};
constexpr const char* kChadWallFill = "#8d9aa6";

// Piece letters by type index as in each game's position strings.
constexpr char kChacoRexLetters[] = " PNBRQK";   // chaco_rex::PieceType
constexpr char kCuarentaLetters[] = " KBVGCFP";  // cuarenta::PieceType

// The cell at (file, rank) of a square board with `ranks` ranks, both 0-based from a1 at the
// bottom left: its centre, the checkered shade (a1 dark) and its name ("c5").
DiagramCell SquareCell(int file, int rank, int ranks) {
  DiagramCell c;
  c.x = file + 0.5;
  c.y = ranks - 1 - rank + 0.5;
  c.shade = (file + rank) % 2 == 0 ? 1 : 0;
  c.name = std::string(1, char('a' + file)) + std::to_string(rank + 1);
  return c;
}

}  // namespace

std::string EscapeXml(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

template <>
std::vector<DiagramCell> DiagramCells<chaco_rex::ChacoRexGame>(const chaco_rex::Position& p) {
  using namespace chaco_rex;
  std::vector<DiagramCell> cells;
  const double row_height = std::sqrt(3.0) / 2.0;  // 1.5 circumradii of a width-1 hexagon
  for (int cell = 0; cell < kNumCells; ++cell) {
    const int x = CellGeometry().x[cell], y = CellGeometry().y[cell];
    DiagramCell c;
    c.x = 0.5 * x + 0.5;
    c.y = (kNumRanks - y) * row_height + 0.6;
    c.hexagon = true;
    // Three shades so that no two neighbours share one: axial q - r = (x - 3y) / 2 (mod 3).
    c.shade = (((x - 3 * y) / 2) % 3 + 3) % 3;
    if (p.board[cell] != 0) {
      c.owner = PieceColorOf(p.board[cell]);
      c.glyph = std::string(1, kChacoRexLetters[PieceTypeOf(p.board[cell])]);
    }
    c.name = std::string(1, kFileLetters[x]) + std::to_string(y);
    cells.push_back(c);
  }
  return cells;
}

template <>
std::vector<DiagramCell> DiagramCells<chad::ChadGame>(const chad::Position& p) {
  using namespace chad;
  std::vector<DiagramCell> cells;
  const ChadTableSet& t = ChadTables();
  for (int s = 0; s < kBoardSize * kBoardSize; ++s) {
    DiagramCell c = SquareCell(FileOf(s), RankOf(s), kBoardSize);
    if (t.castle[0].Test(s) || t.castle[1].Test(s)) c.shade = 3;
    if (t.wall[0].Test(s) || t.wall[1].Test(s)) c.shade = 2;
    for (int color = 0; color < 2; ++color) {
      if (p.pieces[color].Test(s)) {
        c.owner = color;
        const int kind = KindAt(p, color, s);
        c.glyph = kind == kKing ? "K" : kind == kQueen ? "Q" : "R";
      }
    }
    cells.push_back(c);
  }
  return cells;
}

template <>
std::vector<DiagramCell> DiagramCells<cuarenta::CuarentaGame>(const cuarenta::Position& p) {
  using namespace cuarenta;
  std::vector<DiagramCell> cells;
  for (int rank = 0; rank < 9; ++rank) {
    for (int file = 0; file < 9; ++file) {
      DiagramCell c = SquareCell(file, rank, 9);
      const int square = SquareAt(file, rank);
      c.shade = square == kNoSquare ? 1 : 0;  // the board's cut-off corners
      if (square != kNoSquare && p.board[square] != 0) {
        c.owner = PieceColor(p.board[square]);
        c.glyph = std::string(1, kCuarentaLetters[PieceTypeOf(p.board[square])]);
      }
      cells.push_back(c);
    }
  }
  return cells;
}

template <>
std::vector<DiagramCell> DiagramCells<draughts::DraughtsGame>(const draughts::Position& p) {
  using namespace draughts;
  std::vector<DiagramCell> cells;
  for (int row = 0; row < 8; ++row) {
    for (int column = 0; column < 8; ++column) {
      DiagramCell c = SquareCell(column, row, 8);
      const int s = SquareAt(row, column);
      c.shade = s < 0 ? 0 : 1;
      if (s >= 0) {
        if ((p.white >> s) & 1) c.owner = 0;
        if ((p.black >> s) & 1) c.owner = 1;
        if (c.owner >= 0 && ((p.kings >> s) & 1)) c.glyph = "K";
        c.name = std::to_string(s + 1);  // the square's number, as in PDN
      }
      cells.push_back(c);
    }
  }
  return cells;
}

std::string DiagramSvg(const std::vector<DiagramCell>& cells,
                       const std::vector<DiagramCell>* previous, const std::string& caption,
                       int width_px) {
  double width = 0, height = 0;
  for (const DiagramCell& c : cells) {
    width = std::max(width, c.x + 0.5);
    height = std::max(height, c.y + (c.hexagon ? 0.6 : 0.5));
  }
  const double scale = double(width_px) / width;
  const double caption_px = caption.empty() ? 0 : 22;
  const double height_px = height * scale + caption_px;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{:.0f}\" "
      "viewBox=\"0 0 {} {:.1f}\" font-family=\"sans-serif\">\n",
      width_px, height_px, width_px, height_px);
  const double radius = 1.0 / std::sqrt(3.0);  // circumradius of a width-1 hexagon
  for (size_t i = 0; i < cells.size(); ++i) {
    const DiagramCell& c = cells[i];
    const double cx = c.x * scale, cy = c.y * scale;
    const bool chad_wall = c.shade == 2 && !c.hexagon;
    const char* fill = chad_wall ? kChadWallFill : kShadeFill[std::clamp(c.shade, 0, 3)];
    const bool changed = previous != nullptr && i < previous->size() &&
                         ((*previous)[i].owner != c.owner || (*previous)[i].glyph != c.glyph);
    const std::string stroke = changed ? "stroke=\"#d62728\" stroke-width=\"3\""
                                       : "stroke=\"#6b5440\" stroke-width=\"0.6\"";
    svg += "<g><title>" + EscapeXml(c.name) + "</title>";
    if (c.hexagon) {
      std::string points;
      for (int k = 0; k < 6; ++k) {
        const double angle = (30.0 + 60.0 * k) * M_PI / 180.0;
        points += fmt::format("{:.1f},{:.1f} ", cx + radius * scale * std::cos(angle),
                              cy - radius * scale * std::sin(angle));
      }
      svg += fmt::format("<polygon points=\"{}\" fill=\"{}\" {}/>", points, fill, stroke);
    } else {
      svg += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" {}/>",
          cx - 0.5 * scale, cy - 0.5 * scale, scale, scale, fill, stroke);
    }
    if (c.owner >= 0) {
      const bool white = c.owner == 0;
      svg += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" stroke=\"#222\" "
          "stroke-width=\"1\"/>",
          cx, cy, 0.36 * scale, white ? "#fdfdfd" : "#2b2b2b");
      if (!c.glyph.empty()) {
        svg += fmt::format(
            "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"{:.1f}\" font-weight=\"bold\" "
            "text-anchor=\"middle\" fill=\"{}\">{}</text>",
            cx, cy + 0.16 * scale, 0.44 * scale, white ? "#111" : "#f4f4f4", EscapeXml(c.glyph));
      }
    }
    svg += "</g>\n";
  }
  if (!caption.empty()) {
    svg += fmt::format(
        "<text x=\"{}\" y=\"{:.1f}\" font-size=\"13\" text-anchor=\"middle\">{}</text>\n",
        width_px / 2, height_px - 6, EscapeXml(caption));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace vz::research
