#include "engine/cuarenta/notation.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/position_text.h"

namespace vz::cuarenta {
namespace {

constexpr const char* kColorNames[2] = {"White", "Black"};
constexpr const char* kTypeNames[kNumPieceTypes] = {"",      "king",  "bishop", "vao",
                                                    "guard", "camel", "frog",   "pawn"};
constexpr char kTypeLetters[kNumPieceTypes + 1] = " KBVGCFP";

int TypeFromLetter(char upper) {
  for (int type = 1; type < kNumPieceTypes; ++type) {
    if (kTypeLetters[type] == upper) return type;
  }
  return kNoPiece;
}

char ToUpper(char c) { return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c; }
char ToLower(char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; }

// Square name at text[pos..pos+1], or throws naming `context`.
int ReadSquare(std::string_view text, size_t pos, std::string_view context) {
  if (pos + 2 > text.size()) {
    throw Error("move " + Quote(context) + ": expected a square at position " +
                std::to_string(pos + 1));
  }
  return ParseSquare(text.substr(pos, 2), context);
}

bool IsCapture(const Position& p, Move move) {
  return !MoveIsCastling(move) && MoveFrom(move) != MoveTo(move) && p.board[MoveTo(move)] != 0;
}

// "", "+" or "#" for the position after `move`.
std::string CheckSuffix(const Position& p, Move move) {
  Position child = p;
  ApplyMove(child, move);
  if (!InCheck(child)) return "";
  vz::MoveList<kMaxMoves> replies;
  GenerateMoves(child, replies);
  return replies.size == 0 ? "#" : "+";
}

std::string LegalMoveList(const Position& p) {
  vz::MoveList<kMaxMoves> moves;
  GenerateMoves(p, moves);
  if (moves.size == 0) return "none";
  std::string list;
  for (Move move : moves) list += (list.empty() ? "" : " ") + FormatMove(p, move);
  return list;
}

}  // namespace

std::string SquareName(int square) {
  return std::string{char('a' + FileOf(square)), char('1' + RankOf(square))};
}

int ParseSquare(std::string_view text, std::string_view context) {
  if (text.size() != 2 || text[0] < 'a' || text[0] > 'i' || text[1] < '1' || text[1] > '9') {
    throw Error(Quote(context) + ": " + Quote(text) + " is not a square (files a-i, ranks 1-9)");
  }
  const int square = SquareAt(text[0] - 'a', text[1] - '1');
  if (square == kNoSquare) {
    throw Error(Quote(context) + ": " + std::string(text) +
                " is a dark square, which does not exist on the Cuarenta board");
  }
  return square;
}

Position ParsePosition(std::string_view text) {
  const std::string where = "position " + Quote(text);
  const std::vector<std::string_view> fields = SplitBlanks(text);
  if (fields.size() != 5) {
    throw Error(where + ": expected 5 fields (ranks, side to move, castling, forty-move count, " +
                "move number), got " + std::to_string(fields.size()));
  }
  const std::vector<std::string_view> ranks = SplitAt(fields[0], '/');
  if (ranks.size() != 9) {
    throw Error(where + ": expected 9 ranks separated by '/', got " + std::to_string(ranks.size()));
  }
  Position p = EmptyPosition();
  int piece_count[2] = {0, 0};
  int type_count[2][kNumPieceTypes] = {};
  for (int k = 0; k < 9; ++k) {
    const int rank = 8 - k;
    const int first_file = (rank % 2 == 0) ? 1 : 0;
    const int expected = (rank % 2 == 0) ? 4 : 5;
    int count = 0;
    for (char c : ranks[k]) {
      if (c >= '1' && c <= '9') {
        count += c - '0';
      } else {
        const int type = TypeFromLetter(ToUpper(c));
        if (type == kNoPiece) {
          throw Error(where + ": unknown piece letter '" + std::string(1, c) + "' on rank " +
                      std::to_string(rank + 1) + " (expected K B V C F G P or a digit)");
        }
        if (count < expected) {
          const int color = (c >= 'a' && c <= 'z') ? 1 : 0;
          PutPiece(p, color, type, SquareAt(first_file + 2 * count, rank));
          ++piece_count[color];
          ++type_count[color][type];
        }
        ++count;
      }
      if (count > expected) break;
    }
    if (count != expected) {
      throw Error(where + ": rank " + std::to_string(rank + 1) + " describes " +
                  std::to_string(count) + " squares, but it has " + std::to_string(expected));
    }
  }
  if (fields[1] == "w") {
    p.side_to_move = 0;
  } else if (fields[1] == "b") {
    p.side_to_move = 1;
  } else {
    throw Error(where + ": side to move " + Quote(fields[1]) + " is not 'w' or 'b'");
  }
  if (fields[2] == "-") {
    p.castling = 0;
  } else if (fields[2] == "w") {
    p.castling = 1;
  } else if (fields[2] == "b") {
    p.castling = 2;
  } else if (fields[2] == "wb") {
    p.castling = 3;
  } else {
    throw Error(where + ": castling field " + Quote(fields[2]) + " is not 'w', 'b', 'wb' or '-'");
  }
  const std::optional<uint32_t> forty = ParseCounter(fields[3], 0, 0xFFFF);
  if (!forty) {
    throw Error(where + ": forty-move count " + Quote(fields[3]) +
                " is not a number of plies in 0..65535");
  }
  p.forty_count = uint16_t(*forty);
  const std::optional<uint32_t> move_number = ParseCounter(fields[4], 1, 0xFFFF);
  if (!move_number) {
    throw Error(where + ": move number " + Quote(fields[4]) + " is not a number in 1..65535");
  }
  p.move_number = uint16_t(*move_number);

  for (int color = 0; color < 2; ++color) {
    const std::string side = kColorNames[color];
    if (type_count[color][kKing] != 1) {
      throw Error(where + ": " + side + " has " + std::to_string(type_count[color][kKing]) +
                  " kings, expected exactly one");
    }
    if (piece_count[color] > 13) {
      throw Error(where + ": " + side + " has " + std::to_string(piece_count[color]) +
                  " pieces, more than the 13 a side starts with");
    }
    if (type_count[color][kPawn] > 4) {
      throw Error(where + ": " + side + " has " + std::to_string(type_count[color][kPawn]) +
                  " pawns, more than the 4 a side starts with");
    }
    const uint64_t first_rank = Tables().last_rank[color ^ 1];
    const uint64_t bad_pawns = p.by_type[kPawn] & p.by_color[color] & first_rank;
    if (bad_pawns) {
      throw Error(where + ": " + side + " pawn on " + SquareName(LowestBit(bad_pawns)) +
                  ", its own first rank");
    }
    if ((p.castling >> color) & 1) {
      const uint8_t king = uint8_t(color * 8 + kKing), camel = uint8_t(color * 8 + kCamel);
      if (p.board[KingStart(color)] != king || p.board[CamelStart(color)] != camel) {
        throw Error(where + ": castling right '" + std::string(color == 0 ? "w" : "b") +
                    "' needs the " + side + " king on " + SquareName(KingStart(color)) +
                    " and the " + side + " camel on " + SquareName(CamelStart(color)));
      }
    }
  }
  p.hash = ComputeHash(p);
  const int waiting = p.side_to_move ^ 1;
  if (SquareAttacked(p, p.king[waiting], waiting, p.by_color[0] | p.by_color[1],
                     p.by_color[p.side_to_move])) {
    throw Error(where + ": " + std::string(kColorNames[waiting]) +
                " is in check but it is not their turn");
  }
  return p;
}

std::string FormatPosition(const Position& p) {
  std::string text;
  for (int rank = 8; rank >= 0; --rank) {
    int empty = 0;
    for (int file = (rank % 2 == 0) ? 1 : 0; file < 9; file += 2) {
      const uint8_t piece = p.board[SquareAt(file, rank)];
      if (!piece) {
        ++empty;
        continue;
      }
      if (empty) text += char('0' + empty);
      empty = 0;
      const char letter = kTypeLetters[PieceTypeOf(piece)];
      text += PieceColor(piece) ? ToLower(letter) : letter;
    }
    if (empty) text += char('0' + empty);
    if (rank) text += '/';
  }
  text += p.side_to_move ? " b " : " w ";
  const char* castling[4] = {"-", "w", "b", "wb"};
  text += castling[p.castling & 3];
  text += " " + std::to_string(p.forty_count) + " " + std::to_string(p.move_number);
  return text;
}

std::string FormatMove(const Position&, Move move) {
  std::string text = SquareName(MoveFrom(move)) + SquareName(MoveTo(move));
  if (MovePromotion(move)) text += ToLower(kTypeLetters[MovePromotion(move)]);
  return text;
}

std::string FormatDisplayMove(const Position& p, Move move) {
  const int from = MoveFrom(move), to = MoveTo(move), promotion = MovePromotion(move);
  std::string text;
  if (promotion && from == to) {
    text = SquareName(from) + "=" + kTypeLetters[promotion];
  } else {
    const int type = PieceTypeOf(p.board[from]);
    if (type != kPawn) text += kTypeLetters[type];
    text += SquareName(from) + (IsCapture(p, move) ? "x" : "-") + SquareName(to);
    if (promotion) text += std::string("=") + kTypeLetters[promotion];
  }
  return text + CheckSuffix(p, move);
}

Move ParseMove(const Position& p, std::string_view text) {
  const std::string where = "move " + Quote(text);
  if (text.empty()) throw Error("empty move");
  size_t pos = 0;
  int letter_type = kNoPiece;  // display form piece letter; kPawn when none
  if (text[0] >= 'A' && text[0] <= 'Z') {
    letter_type = TypeFromLetter(text[0]);
    if (letter_type == kNoPiece || letter_type == kPawn) {
      throw Error(where + ": unknown piece letter '" + std::string(1, text[0]) +
                  "' (K B V C F G; none for a pawn)");
    }
    pos = 1;
  }
  const int from = ReadSquare(text, pos, text);
  pos += 2;
  const bool display =
      letter_type != kNoPiece ||
      (pos < text.size() && (text[pos] == '-' || text[pos] == 'x' || text[pos] == '='));
  int to = from, promotion = kNoPiece;
  char separator = 0, claim = 0;
  if (!display) {
    to = ReadSquare(text, pos, text);
    pos += 2;
    if (pos < text.size()) {
      promotion = TypeFromLetter(ToUpper(text[pos]));
      if (text[pos] < 'a' || text[pos] > 'z' || promotion == kNoPiece || promotion == kKing ||
          promotion == kPawn) {
        throw Error(where + ": bad promotion letter '" + std::string(1, text[pos]) +
                    "' (c f g v b)");
      }
      ++pos;
    }
  } else {
    if (letter_type == kNoPiece) letter_type = kPawn;
    if (pos < text.size() && (text[pos] == '-' || text[pos] == 'x')) {
      separator = text[pos++];
      to = ReadSquare(text, pos, text);
      pos += 2;
    }
    if (pos < text.size() && text[pos] == '=') {
      ++pos;
      if (pos >= text.size()) throw Error(where + ": missing promotion letter after '='");
      promotion = TypeFromLetter(text[pos]);
      if (promotion == kNoPiece || promotion == kKing || promotion == kPawn) {
        throw Error(where + ": bad promotion letter '" + std::string(1, text[pos]) +
                    "' (C F G V B)");
      }
      ++pos;
    }
    if (!separator && !promotion)
      throw Error(where + ": expected '-', 'x' or '=' after the square");
    if (pos < text.size() && (text[pos] == '+' || text[pos] == '#')) claim = text[pos++];
  }
  if (pos != text.size()) {
    throw Error(where + ": unexpected text " + Quote(text.substr(pos)));
  }

  vz::MoveList<kMaxMoves> moves;
  GenerateMoves(p, moves);
  Move found = kNullMove;
  for (Move move : moves) {
    if (MoveFrom(move) == from && MoveTo(move) == to && MovePromotion(move) == promotion) {
      found = move;
      break;
    }
  }
  if (found == kNullMove) {
    throw Error(where + " is not legal in " + FormatPosition(p) +
                "; legal moves: " + LegalMoveList(p));
  }
  if (display) {
    const int moving = MoveIsCastling(found) ? int(kKing) : PieceTypeOf(p.board[from]);
    const bool in_place = from == to;
    if (!in_place && moving != letter_type) {
      throw Error(where + ": the piece on " + SquareName(from) + " is a " + kTypeNames[moving] +
                  ", not a " + kTypeNames[letter_type]);
    }
    if (in_place && letter_type != kPawn) {
      throw Error(where + ": a promotion in place is written without a piece letter (" +
                  FormatDisplayMove(p, found) + ")");
    }
    if (!in_place && (separator == 'x') != IsCapture(p, found)) {
      throw Error(where + (separator == 'x' ? ": claims a capture but " + SquareName(to) +
                                                  " holds no enemy piece"
                                            : ": is a capture, write 'x'"));
    }
    const std::string suffix = CheckSuffix(p, found);
    if (claim && std::string(1, claim) != suffix) {
      throw Error(where + ": claims " + (claim == '#' ? "mate" : "check") + " but the move gives " +
                  (suffix.empty()  ? "no check"
                   : suffix == "+" ? "check, not mate"
                                   : "mate"));
    }
  }
  return found;
}

std::string BoardPicture(const Position& p) {
  std::string picture;
  for (int rank = 8; rank >= 0; --rank) {
    std::string line = std::to_string(rank + 1) + " ";
    for (int file = 0; file < 9; ++file) {
      const int square = SquareAt(file, rank);
      if (square == kNoSquare) {
        line += "  ";
        continue;
      }
      const uint8_t piece = p.board[square];
      char c = '.';
      if (piece) {
        c = kTypeLetters[PieceTypeOf(piece)];
        if (PieceColor(piece)) c = ToLower(c);
      }
      line += ' ';
      line += c;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    picture += line + "\n";
  }
  picture += "   a b c d e f g h i\n";
  return picture;
}

}  // namespace vz::cuarenta
