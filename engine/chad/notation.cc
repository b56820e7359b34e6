#include "engine/chad/notation.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/position_text.h"

namespace vz::chad {
namespace {

constexpr const char* kColorWord[2] = {"White", "Black"};
constexpr char kPieceLetter[2][3] = {{'R', 'Q', 'K'}, {'r', 'q', 'k'}};
constexpr const char* kKindWord[3] = {"rook", "queen", "king"};

using List = vz::MoveList<kMaxMoves>;

[[noreturn]] void PositionError(std::string_view text, const std::string& what) {
  throw Error("position " + Quote(text) + ": " + what);
}

// Reads a square ("a1".."l12") at text[pos]; advances pos. Returns -1 (pos unchanged) if there
// is none.
int ReadSquare(std::string_view text, size_t& pos) {
  if (pos >= text.size() || text[pos] < 'a' || text[pos] > 'l') return -1;
  const int file = text[pos] - 'a';
  size_t i = pos + 1;
  int rank = 0, digits = 0;
  while (i < text.size() && digits < 2 && text[i] >= '0' && text[i] <= '9') {
    rank = rank * 10 + (text[i] - '0');
    ++i;
    ++digits;
  }
  if (digits == 0 || text[pos + 1] == '0' || rank < 1 || rank > kBoardSize) return -1;
  pos = i;
  return SquareOf(file, rank - 1);
}

// The counter `field` of position string `text` in [minimum, kMaxCounter]; throws naming it.
uint32_t ReadCounter(std::string_view text, std::string_view field, const char* name,
                     uint32_t minimum) {
  const std::optional<uint32_t> value = ParseCounter(field, minimum, kMaxCounter);
  if (!value) {
    PositionError(text, std::string(name) + " " + Quote(field) + " is not a number in " +
                            std::to_string(minimum) + ".." + std::to_string(kMaxCounter));
  }
  return *value;
}

std::string LegalMoveList(const Position& position) {
  List moves;
  GenerateMoves(position, moves);
  if (moves.size == 0) return "none";
  std::string out;
  for (Move m : moves) out += (out.empty() ? "" : " ") + FormatMove(position, m);
  return out;
}

[[noreturn]] void MoveError(const Position& position, std::string_view text,
                            const std::string& what) {
  throw Error("move " + Quote(text) + " in " + FormatPosition(position) + ": " + what);
}

Move FindLegal(const Position& position, std::string_view text, int from, int to) {
  List moves;
  GenerateMoves(position, moves);
  for (Move m : moves) {
    if (MoveFrom(m) == from && MoveTo(m) == to) return m;
  }
  MoveError(position, text, "not a legal move; legal moves: " + LegalMoveList(position));
}

// Check and mate status of the position after `move`.
void CheckAndMate(const Position& position, Move move, bool& check, bool& mate) {
  Position child = position;
  ApplyMove(child, move);
  check = InCheck(child);
  mate = false;
  if (check) {
    List replies;
    GenerateMoves(child, replies);
    mate = replies.size == 0;
  }
}

Move ParseProtocolMove(const Position& position, std::string_view text) {
  size_t pos = 0;
  const int from = ReadSquare(text, pos);
  const int to = from < 0 ? -1 : ReadSquare(text, pos);
  if (from < 0 || to < 0) {
    MoveError(position, text, "expected from and to squares a1..l12 such as c5c11 or Rc5-c11");
  }
  const bool suffix_q = pos < text.size() && text[pos] == 'q';
  if (suffix_q) ++pos;
  if (pos != text.size()) {
    MoveError(position, text, "unexpected " + Quote(text.substr(pos)) + " after the squares");
  }
  const Move move = FindLegal(position, text, from, to);
  if (suffix_q && !IsPromotion(move)) {
    MoveError(position, text, "trailing q is only allowed on a promoting move");
  }
  return move;
}

Move ParseDisplayMove(const Position& position, std::string_view text) {
  const char letter = text[0];
  size_t pos = 1;
  const int from = ReadSquare(text, pos);
  if (from < 0) MoveError(position, text, "expected a from square a1..l12 after the piece letter");
  if (pos >= text.size() || (text[pos] != '-' && text[pos] != 'x')) {
    MoveError(position, text, "expected '-' or 'x' after the from square");
  }
  const bool claims_capture = text[pos] == 'x';
  ++pos;
  const int to = ReadSquare(text, pos);
  if (to < 0) MoveError(position, text, "expected a to square a1..l12");
  bool claims_promotion = false, claims_check = false, claims_mate = false;
  if (text.substr(pos, 2) == "=Q") {
    claims_promotion = true;
    pos += 2;
  }
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '#')) {
    claims_check = text[pos] == '+';
    claims_mate = text[pos] == '#';
    ++pos;
  }
  if (pos != text.size()) {
    MoveError(position, text, "unexpected " + Quote(text.substr(pos)) + " at the end");
  }
  const Move move = FindLegal(position, text, from, to);
  const int kind = MoveKind(move);
  if (letter != kPieceLetter[0][kind]) {
    MoveError(position, text,
              std::string("the piece on ") + SquareName(from) + " is a " + kKindWord[kind] + " (" +
                  kPieceLetter[0][kind] + "), not " + letter);
  }
  if (claims_capture && !IsCapture(move)) MoveError(position, text, "'x' but it is no capture");
  if (!claims_capture && IsCapture(move)) MoveError(position, text, "'-' but it is a capture");
  if (claims_promotion && !IsPromotion(move)) {
    MoveError(position, text, "'=Q' but the move does not promote");
  }
  if (claims_check || claims_mate) {
    bool check = false, mate = false;
    CheckAndMate(position, move, check, mate);
    if (claims_check && !check) MoveError(position, text, "'+' but the move gives no check");
    if (claims_mate && !mate) MoveError(position, text, "'#' but the move is not checkmate");
  }
  return move;
}

}  // namespace

std::string SquareName(int square) {
  return std::string(1, char('a' + FileOf(square))) + std::to_string(RankOf(square) + 1);
}

Position ParsePosition(std::string_view text) {
  const std::vector<std::string_view> fields = SplitBlanks(text);
  if (fields.size() != 4) {
    PositionError(text,
                  "expected 4 fields (board, side to move, half-move count, move number), "
                  "got " +
                      std::to_string(fields.size()));
  }
  const ChadTableSet& t = ChadTables();
  Position p;
  p.pieces[0] = p.pieces[1] = p.queens = Bitboard{};
  int num_kings[2] = {0, 0}, num_others[2] = {0, 0};

  const std::string_view board = fields[0];
  int rank = kBoardSize - 1, file = 0;
  for (size_t i = 0; i <= board.size(); ++i) {
    const std::string rank_name = "rank " + std::to_string(rank + 1);
    if (i == board.size() || board[i] == '/') {
      if (file != kBoardSize) {
        PositionError(text, rank_name + " has " + std::to_string(file) + " squares, expected 12");
      }
      if (i == board.size()) break;
      if (--rank < 0) PositionError(text, "more than 12 ranks");
      file = 0;
      continue;
    }
    const char c = board[i];
    if (c >= '0' && c <= '9') {
      if (c == '0') PositionError(text, rank_name + ": empty-square count must be 1..12");
      int count = 0;
      while (i < board.size() && board[i] >= '0' && board[i] <= '9' && count <= kBoardSize) {
        count = count * 10 + (board[i] - '0');
        ++i;
      }
      --i;
      if (count < 1 || count > kBoardSize) {
        PositionError(text, rank_name + ": empty-square count must be 1..12");
      }
      file += count;
      if (file > kBoardSize) PositionError(text, rank_name + " has more than 12 squares");
      continue;
    }
    int color = -1, kind = -1;
    for (int co = 0; co < 2; ++co) {
      for (int k = 0; k < 3; ++k) {
        if (kPieceLetter[co][k] == c) color = co, kind = k;
      }
    }
    if (color < 0) {
      PositionError(text, rank_name + ": unknown piece letter " + Quote(std::string(1, c)) +
                              " (expected K Q R k q r or a digit)");
    }
    if (file >= kBoardSize) PositionError(text, rank_name + " has more than 12 squares");
    const int square = SquareOf(file, rank);
    p.pieces[color].Set(square);
    if (kind == kKing) {
      ++num_kings[color];
      p.king[color] = uint8_t(square);
    } else {
      ++num_others[color];
      if (kind == kQueen) p.queens.Set(square);
      if (kind == kRook && t.castle[1 - color].Test(square)) {
        PositionError(text, std::string(kColorWord[color]) + " rook on " + SquareName(square) +
                                " stands inside " + kColorWord[1 - color] +
                                "'s castle, where it would have promoted");
      }
    }
    ++file;
  }
  if (rank != 0) {
    PositionError(text, "has " + std::to_string(kBoardSize - rank) + " ranks, expected 12");
  }
  for (int color = 0; color < 2; ++color) {
    const std::string who = kColorWord[color];
    if (num_kings[color] != 1) {
      PositionError(
          text, who + " has " + std::to_string(num_kings[color]) + " kings, expected exactly 1");
    }
    if (!t.castle[color].Test(p.king[color])) {
      PositionError(text, who + "'s king on " + SquareName(p.king[color]) + " is outside " + who +
                              "'s castle (" + (color == 0 ? "c3-e5" : "h8-j10") + ")");
    }
    if (num_others[color] > kMaxRooksPerSide) {
      PositionError(text, who + " has " + std::to_string(num_others[color]) +
                              " rooks and queens, at most 8 are possible");
    }
  }

  if (fields[1] == "w") {
    p.side = Color::kWhite;
  } else if (fields[1] == "b") {
    p.side = Color::kBlack;
  } else {
    PositionError(text, "side to move " + Quote(fields[1]) + " must be w or b");
  }
  p.halfmove_clock = ReadCounter(text, fields[2], "half-move count", 0);
  p.move_number = ReadCounter(text, fields[3], "move number", 1);

  const int waiting = 1 - int(p.side);
  if (SquareAttacked(p, p.king[waiting], p.pieces[0] | p.pieces[1], int(p.side))) {
    PositionError(text, std::string(kColorWord[waiting]) + " (not to move) is in check");
  }
  p.hash = ComputeHash(p);
  return p;
}

std::string FormatPosition(const Position& p) {
  std::string out;
  for (int rank = kBoardSize - 1; rank >= 0; --rank) {
    int empty = 0;
    for (int file = 0; file < kBoardSize; ++file) {
      const int square = SquareOf(file, rank);
      int color = p.pieces[0].Test(square) ? 0 : p.pieces[1].Test(square) ? 1 : -1;
      if (color < 0) {
        ++empty;
        continue;
      }
      if (empty) out += std::to_string(empty);
      empty = 0;
      out += kPieceLetter[color][KindAt(p, color, square)];
    }
    if (empty) out += std::to_string(empty);
    if (rank) out += '/';
  }
  out += p.side == Color::kWhite ? " w " : " b ";
  out += std::to_string(p.halfmove_clock) + " " + std::to_string(p.move_number);
  return out;
}

Move ParseMove(const Position& position, std::string_view text) {
  if (text.empty()) MoveError(position, text, "empty move");
  if (text[0] == 'K' || text[0] == 'Q' || text[0] == 'R') return ParseDisplayMove(position, text);
  return ParseProtocolMove(position, text);
}

std::string FormatMove(const Position&, Move move) {
  return SquareName(MoveFrom(move)) + SquareName(MoveTo(move));
}

std::string FormatDisplayMove(const Position& position, Move move) {
  std::string out(1, kPieceLetter[0][MoveKind(move)]);
  out += SquareName(MoveFrom(move));
  out += IsCapture(move) ? 'x' : '-';
  out += SquareName(MoveTo(move));
  if (IsPromotion(move)) out += "=Q";
  bool check = false, mate = false;
  CheckAndMate(position, move, check, mate);
  if (mate) {
    out += '#';
  } else if (check) {
    out += '+';
  }
  return out;
}

std::string BoardPicture(const Position& p) {
  const ChadTableSet& t = ChadTables();
  std::string out;
  for (int rank = kBoardSize - 1; rank >= 0; --rank) {
    out += (rank + 1 < 10 ? " " : "") + std::to_string(rank + 1);
    for (int file = 0; file < kBoardSize; ++file) {
      const int s = SquareOf(file, rank);
      char c = '.';
      if (p.pieces[0].Test(s)) {
        c = kPieceLetter[0][KindAt(p, 0, s)];
      } else if (p.pieces[1].Test(s)) {
        c = kPieceLetter[1][KindAt(p, 1, s)];
      } else if (t.wall[0].Test(s)) {
        c = 'W';
      } else if (t.wall[1].Test(s)) {
        c = 'w';
      } else if (t.castle[0].Test(s)) {
        c = 'C';
      } else if (t.castle[1].Test(s)) {
        c = 'c';
      }
      out += ' ';
      out += c;
    }
    out += '\n';
  }
  out += "   a b c d e f g h i j k l\n";
  out += "W/w empty White/Black wall, C/c empty White/Black castle square; ";
  out += p.side == Color::kWhite ? "White" : "Black";
  out += " to move\n";
  return out;
}

}  // namespace vz::chad
