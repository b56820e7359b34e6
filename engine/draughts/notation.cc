#include "engine/draughts/notation.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/position_text.h"

namespace vz::draughts {
namespace {

// A square number or counter of at most 4 digits, or -1.
int ParseNumber(std::string_view text) {
  const std::optional<uint32_t> value = ParseCounter(text, 0, 9999);
  return value ? int(*value) : -1;
}

// ---- capture paths (host-side; slower and more general than the rule core) --------------------

struct Hop {
  int over;  // bit index of the jumped piece
  int land;  // bit index of the landing square
};

// Every single jump the mover (starting square `start`, now on `square`, having taken `taken`)
// can make next, following the rules of the core: men forwards only, kings flying, jumped pieces
// blocking and not jumpable again, the start square empty.
std::vector<Hop> NextHops(const Position& p, int start, int square, uint32_t taken) {
  const Geometry& g = GeometryTable();
  const bool white = (p.white >> start) & 1;
  const bool king = (p.kings >> start) & 1;
  const uint32_t them = white ? p.black : p.white;
  const uint32_t occupied = (p.white | p.black) & ~Bit(start);
  std::vector<Hop> hops;
  for (int d = 0; d < kNumDirections; ++d) {
    if (!king && (white ? d >= 2 : d < 2)) continue;
    int s = g.neighbour[square][d];
    if (king) {
      while (s >= 0 && !(occupied & Bit(s))) s = g.neighbour[s][d];
    }
    if (s < 0 || !(them & Bit(s)) || (taken & Bit(s))) continue;
    for (int land = g.neighbour[s][d]; land >= 0 && !(occupied & Bit(land));
         land = g.neighbour[land][d]) {
      hops.push_back({s, land});
      if (!king) break;
    }
  }
  return hops;
}

// Appends to `out` every landing path (bit indices, start first) from `path.back()` that takes
// exactly the pieces of `target` and ends on `to`.
void CollectPaths(const Position& p, int to, uint32_t target, uint32_t taken,
                  std::vector<int>& path, std::vector<std::vector<int>>& out) {
  if (taken == target) {
    if (path.back() == to) out.push_back(path);
    return;
  }
  for (const Hop& hop : NextHops(p, path.front(), path.back(), taken)) {
    if (!(target & Bit(hop.over))) continue;
    path.push_back(hop.land);
    CollectPaths(p, to, target, taken | Bit(hop.over), path, out);
    path.pop_back();
  }
}

std::string JoinSquares(const std::vector<int>& squares, char separator) {
  std::string text;
  for (size_t i = 0; i < squares.size(); ++i) {
    if (i) text += separator;
    text += std::to_string(squares[i]);
  }
  return text;
}

std::string LongForm(const Position& p, Move move) {
  return JoinSquares(CapturePath(p, move), 'x');
}

DraughtsMoveList LegalMoves(const Position& p) {
  DraughtsMoveList moves;
  GenerateMoves(p, moves);
  return moves;
}

[[noreturn]] void ThrowIllegal(const Position& p, std::string_view text, std::string_view why) {
  throw Error("illegal move '" + std::string(text) + "' in " + FormatPosition(p) + " (" +
              std::string(why) + "); legal moves: " + LegalMovesText(p));
}

void AddPieces(std::string_view text, std::string_view field, bool white, uint32_t& pieces,
               uint32_t& kings, uint32_t other) {
  const std::string where = "position string '" + std::string(text) + "'";
  const char* colour = white ? "White" : "Black";
  if (field.empty()) return;
  for (std::string_view token : SplitAt(field, ',')) {
    token = TrimBlanks(token);
    const std::string original(token);
    bool king = false;
    if (!token.empty() && (token[0] == 'K' || token[0] == 'k')) {
      king = true;
      token.remove_prefix(1);
    }
    int first = -1, last = -1;
    if (const size_t dash = token.find('-'); dash != std::string_view::npos && !king) {
      first = ParseNumber(token.substr(0, dash));
      last = ParseNumber(token.substr(dash + 1));
    } else {
      first = last = ParseNumber(token);
    }
    if (first < 0 || last < 0 || last < first) {
      throw Error(where + ": bad " + colour + " piece '" + original +
                  "' (expected a square number 1-32, K<square> for a king, or a range a-b)");
    }
    for (int number = first; number <= last; ++number) {
      if (number < 1 || number > kNumSquares) {
        throw Error(where + ": " + colour + " square " + std::to_string(number) +
                    " is outside 1-32");
      }
      const uint32_t bit = Bit(number - 1);
      if ((pieces | other) & bit) {
        throw Error(where + ": square " + std::to_string(number) + " is given twice");
      }
      pieces |= bit;
      if (king) kings |= bit;
    }
  }
}

}  // namespace

Position ParsePosition(std::string_view text) {
  const std::string where = "position string '" + std::string(text) + "'";
  const std::string_view trimmed = TrimBlanks(text);
  if (trimmed.empty()) throw Error(where + ": empty");
  const std::vector<std::string_view> fields = SplitAt(trimmed, ':');
  Position p;
  const std::string_view side = TrimBlanks(fields[0]);
  if (side == "W" || side == "w") {
    p.side_to_move = Color::kWhite;
  } else if (side == "B" || side == "b") {
    p.side_to_move = Color::kBlack;
  } else {
    throw Error(where + ": side to move must be W or B, got '" + std::string(side) + "'");
  }
  bool seen[4] = {false, false, false, false};  // W, B, H, T
  int counters[2] = {0, 0};
  for (size_t i = 1; i < fields.size(); ++i) {
    std::string_view field = TrimBlanks(fields[i]);
    if (i + 1 == fields.size() && !field.empty() && field.back() == '.') field.remove_suffix(1);
    if (field.empty()) throw Error(where + ": empty field " + std::to_string(i + 1));
    const char tag = field[0];
    const std::string_view body = TrimBlanks(field.substr(1));
    const char* tags = "WBHT";
    const int index = tag == 'W' ? 0 : tag == 'B' ? 1 : tag == 'H' ? 2 : tag == 'T' ? 3 : -1;
    if (index < 0) {
      throw Error(where + ": unknown field '" + std::string(field) +
                  "' (expected W<pieces>, B<pieces>, H<plies> or T<moves>)");
    }
    if (seen[index]) throw Error(where + ": field " + tags[index] + " given twice");
    seen[index] = true;
    if (index == 0) {
      AddPieces(text, body, true, p.white, p.kings, p.black);
    } else if (index == 1) {
      AddPieces(text, body, false, p.black, p.kings, p.white);
    } else {
      const int value = ParseNumber(body);
      if (value < 0 || value > kMaxCounter) {
        throw Error(where + ": counter " + tags[index] + " must be a number 0-" +
                    std::to_string(kMaxCounter) + ", got '" + std::string(body) + "'");
      }
      counters[index - 2] = value;
    }
  }
  if (!seen[0]) throw Error(where + ": missing White pieces field (W...)");
  if (!seen[1]) throw Error(where + ": missing Black pieces field (B...)");
  if (PopCount(p.white) > 12) {
    throw Error(where + ": White has " + std::to_string(PopCount(p.white)) +
                " pieces (at most 12)");
  }
  if (PopCount(p.black) > 12) {
    throw Error(where + ": Black has " + std::to_string(PopCount(p.black)) +
                " pieces (at most 12)");
  }
  if (const uint32_t bad = p.white & ~p.kings & kRow7) {
    throw Error(where + ": White man on square " + std::to_string(LowestBit(bad) + 1) +
                " (a White man on 29-32 would have been crowned)");
  }
  if (const uint32_t bad = p.black & ~p.kings & kRow0) {
    throw Error(where + ": Black man on square " + std::to_string(LowestBit(bad) + 1) +
                " (a Black man on 1-4 would have been crowned)");
  }
  p.twenty_move_plies = uint16_t(counters[0]);
  p.three_kings_moves = uint16_t(counters[1]);
  if (p.three_kings_moves > 0 && !IsThreeKingsAgainstOne(p)) {
    throw Error(where + ": counter T given but the material is not three kings against one king");
  }
  p.hash = ComputeHash(p);
  return p;
}

std::string FormatPosition(const Position& p) {
  std::string text = p.side_to_move == Color::kWhite ? "W" : "B";
  for (int colour = 0; colour < 2; ++colour) {
    text += colour == 0 ? ":W" : ":B";
    bool first = true;
    for (uint32_t b = colour == 0 ? p.white : p.black; b; b &= b - 1) {
      const int s = LowestBit(b);
      if (!first) text += ',';
      first = false;
      if (p.kings & Bit(s)) text += 'K';
      text += std::to_string(s + 1);
    }
  }
  if (p.twenty_move_plies) text += ":H" + std::to_string(p.twenty_move_plies);
  if (p.three_kings_moves) text += ":T" + std::to_string(p.three_kings_moves);
  return text;
}

std::vector<std::vector<int>> CapturePaths(const Position& p, Move move) {
  const int from = MoveFrom(move), to = MoveTo(move);
  if (!IsCapture(move)) return {{from + 1, to + 1}};
  std::vector<int> path = {from};
  std::vector<std::vector<int>> paths;
  CollectPaths(p, to, MoveCaptured(move), 0, path, paths);
  for (std::vector<int>& squares : paths) {
    for (int& square : squares) ++square;
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  return paths;
}

std::vector<int> CapturePath(const Position& p, Move move) {
  // Every path has the same length (one landing per captured piece), so the lexicographic
  // minimum is the numerically smallest list of landing squares.
  const std::vector<std::vector<int>> paths = CapturePaths(p, move);
  VZ_CHECK(!paths.empty());
  return paths.front();
}

std::string FormatMove(const Position& p, Move move) {
  const int from = MoveFrom(move), to = MoveTo(move);
  if (!IsCapture(move)) return std::to_string(from + 1) + "-" + std::to_string(to + 1);
  int sharing = 0;
  for (Move other : LegalMoves(p)) {
    sharing += MoveFrom(other) == from && MoveTo(other) == to;
  }
  if (sharing > 1) return LongForm(p, move);
  return std::to_string(from + 1) + "x" + std::to_string(to + 1);
}

std::string LegalMovesText(const Position& p) {
  const DraughtsMoveList moves = LegalMoves(p);
  if (moves.size == 0) return "(none)";
  std::string text;
  for (Move move : moves) {
    if (!text.empty()) text += ' ';
    text += FormatMove(p, move);
  }
  return text;
}

Move ParseMove(const Position& p, std::string_view text) {
  const std::string_view trimmed = TrimBlanks(text);
  const std::string quoted = "move '" + std::string(text) + "'";
  if (trimmed.empty()) throw Error("empty move string");
  const bool dash = trimmed.find('-') != std::string_view::npos;
  const bool cross = trimmed.find('x') != std::string_view::npos;
  if (dash == cross) {
    throw Error(quoted +
                ": expected <from>-<to> for a plain move or <from>x...x<to> for a capture");
  }
  std::vector<int> squares;
  for (std::string_view token : SplitAt(trimmed, dash ? '-' : 'x')) {
    const int number = ParseNumber(TrimBlanks(token));
    if (number < 1 || number > kNumSquares) {
      throw Error(quoted + ": unknown square '" + std::string(token) + "' (squares are 1-32)");
    }
    squares.push_back(number - 1);
  }
  if (squares.size() < 2 || (dash && squares.size() != 2)) {
    throw Error(quoted +
                ": expected <from>-<to> for a plain move or <from>x...x<to> for a capture");
  }
  const DraughtsMoveList moves = LegalMoves(p);
  const int from = squares.front(), to = squares.back();
  if (dash) {
    for (Move move : moves) {
      if (!IsCapture(move) && MoveFrom(move) == from && MoveTo(move) == to) return move;
    }
    ThrowIllegal(p, text, "no such plain move");
  }
  if (squares.size() == 2) {
    std::vector<Move> candidates;
    for (Move move : moves) {
      if (IsCapture(move) && MoveFrom(move) == from && MoveTo(move) == to) {
        candidates.push_back(move);
      }
    }
    if (candidates.empty()) ThrowIllegal(p, text, "no such capture");
    if (candidates.size() > 1) {
      std::string list;
      for (Move move : candidates) list += (list.empty() ? "" : " ") + LongForm(p, move);
      throw Error(quoted + " in " + FormatPosition(p) +
                  " is ambiguous: it fits several captures: " + list);
    }
    return candidates.front();
  }
  // Long form: follow the landing squares hop by hop.
  if (!((p.white | p.black) & Bit(from))) ThrowIllegal(p, text, "no piece on the start square");
  uint32_t taken = 0;
  for (size_t i = 1; i < squares.size(); ++i) {
    bool found = false;
    for (const Hop& hop : NextHops(p, from, squares[i - 1], taken)) {
      if (hop.land == squares[i]) {
        taken |= Bit(hop.over);
        found = true;
        break;
      }
    }
    if (!found) {
      ThrowIllegal(p, text,
                   "no capture from " + std::to_string(squares[i - 1] + 1) + " to " +
                       std::to_string(squares[i] + 1));
    }
  }
  for (Move move : moves) {
    if (MoveFrom(move) == from && MoveTo(move) == to && MoveCaptured(move) == taken) return move;
  }
  ThrowIllegal(p, text, "not a capture of the most pieces, then the most kings");
}

std::string BoardPicture(const Position& p) {
  std::string picture = "   a b c d e f g h\n";
  for (int row = 7; row >= 0; --row) {
    const char rank = char('1' + row);
    picture += rank;
    picture += "  ";
    std::string legend;
    for (int column = 0; column < 8; ++column) {
      const int s = SquareAt(row, column);
      char c = ' ';
      if (s >= 0) {
        const bool king = (p.kings >> s) & 1;
        if ((p.white >> s) & 1) {
          c = king ? 'W' : 'w';
        } else if ((p.black >> s) & 1) {
          c = king ? 'B' : 'b';
        } else {
          c = '.';
        }
        if (s + 1 < 10) legend += ' ';
        legend += ' ' + std::to_string(s + 1);
      }
      picture += c;
      picture += ' ';
    }
    picture += ' ';
    picture += rank;
    picture += "  " + legend + "\n";
  }
  picture += "   a b c d e f g h\n";
  return picture;
}

}  // namespace vz::draughts
