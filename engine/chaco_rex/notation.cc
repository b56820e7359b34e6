#include "engine/chaco_rex/notation.h"

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/chaco_rex/rules.h"
#include "engine/core/error.h"
#include "engine/core/position_text.h"

namespace vz::chaco_rex {
namespace {

using Moves = vz::MoveList<kMaxMoves>;

constexpr char kFenLetters[] = " pnbrqk";      // indexed by PieceType, Black (lower case)
constexpr char kDisplayLetters[] = "  CBTDR";  // indexed by PieceType (pawn: none)
constexpr const char* kTypeNames[] = {"", "pawn", "knight", "bishop", "rook", "queen", "king"};
constexpr const char* kColorNames[] = {"White", "Black"};

int FileIndex(char letter) {
  for (int x = 0; x < kNumFiles; ++x) {
    if (kFileLetters[x] == letter) return x;
  }
  return -1;
}

bool IsCellText(std::string_view text) {
  return text.size() == 2 && FileIndex(text[0]) >= 0 && text[1] >= '1' && text[1] <= '9' &&
         CellExists(FileIndex(text[0]), text[1] - '0');
}

char FenLetter(uint8_t piece) {
  const char letter = kFenLetters[PieceTypeOf(piece)];
  return PieceColorOf(piece) == 0 ? char(std::toupper(letter)) : letter;
}

Moves LegalMoves(const Position& p) {
  Moves moves;
  GenerateMoves(p, moves);
  return moves;
}

std::string LegalMovesText(const Position& p) {
  const Moves moves = LegalMoves(p);
  if (moves.size == 0) return "none";
  std::string text;
  for (Move m : moves) text += (text.empty() ? "" : " ") + FormatMove(p, m);
  return text;
}

bool IsCapture(const Position& p, Move m) { return IsEnPassant(m) || p.board[MoveTo(m)] != 0; }

// 0: no check, 1: check, 2: mate, after `m` is played on `p`.
int CheckState(const Position& p, Move m) {
  Position child = p;
  ApplyMove(child, m);
  if (!InCheck(child)) return 0;
  Moves replies;
  GenerateMoves(child, replies);
  return replies.size == 0 ? 2 : 1;
}

}  // namespace

std::string CellName(int cell) {
  const Geometry& g = CellGeometry();
  return std::string(1, kFileLetters[g.x[cell]]) + char('0' + g.y[cell]);
}

int ParseCell(std::string_view text) {
  const std::string quoted = "'" + std::string(text) + "'";
  if (text.size() != 2) throw Error("cell " + quoted + " is not a file letter and a rank digit");
  if (text[0] == 'k') throw Error("cell " + quoted + ": there is no file k (files a..t skip k)");
  const int x = FileIndex(text[0]);
  if (x < 0) throw Error("cell " + quoted + ": unknown file '" + text[0] + "' (files a..t, no k)");
  if (text[1] < '1' || text[1] > '9') throw Error("cell " + quoted + ": rank must be 1..9");
  const int y = text[1] - '0';
  if (!CellExists(x, y)) {
    throw Error("cell " + quoted + " does not exist: file " + text[0] + " has cells only on " +
                (x % 2 == 0 ? "even" : "odd") + " ranks");
  }
  return CellIndex(x, y);
}

std::string ValidityProblem(const Position& p) {
  for (int color = 0; color < 2; ++color) {
    const int kings = PopCount(p.by_color[color] & p.by_type[kKing]);
    if (kings != 1) {
      return std::string(kColorNames[color]) + " has " + std::to_string(kings) +
             " kings (exactly one king per side)";
    }
  }
  const Bitboard edge_pawns = p.by_type[kPawn] & (Steps().rank[1] | Steps().rank[9]);
  if (edge_pawns) {
    const int cell = LowestBit(edge_pawns);
    return std::string(kColorNames[PieceColorOf(p.board[cell])]) + " pawn on " + CellName(cell) +
           " (no pawn may stand on rank 1 or 9)";
  }
  for (int color = 0; color < 2; ++color) {
    int count[kNumPieceTypes];
    for (int type = kPawn; type <= kKing; ++type) {
      count[type] = PopCount(p.by_color[color] & p.by_type[type]);
    }
    if (count[kPawn] > 15) {
      return std::string(kColorNames[color]) + " has " + std::to_string(count[kPawn]) +
             " pawns (at most 15)";
    }
    auto extra = [](int have, int initial) { return have > initial ? have - initial : 0; };
    const int promoted = extra(count[kQueen], 1) + extra(count[kRook], 2) +
                         extra(count[kBishop], 3) + extra(count[kKnight], 2);
    if (promoted > 15 - count[kPawn]) {
      return std::string(kColorNames[color]) +
             " has an impossible piece count: " + std::to_string(promoted) +
             " pieces beyond the initial 1 queen, 2 rooks, 3 bishops, " + "2 knights but only " +
             std::to_string(15 - count[kPawn]) + " missing pawns";
    }
  }
  const int mover = p.side_to_move;
  if (KingAttacked(p, mover ^ 1)) {
    return std::string(kColorNames[mover ^ 1]) + " (not to move) is in check";
  }
  if (p.en_passant_cell >= 0) {
    const int cell = p.en_passant_cell;
    const Geometry& g = CellGeometry();
    const int mover_of_step = mover ^ 1;  // the side that would have made the double step
    const int passed_rank = mover_of_step == 0 ? 3 : 7;
    const int dy = mover_of_step == 0 ? 1 : -1;
    const std::string name = CellName(cell);
    if (g.y[cell] != passed_rank) {
      return "en-passant cell " + name + " is not on rank " + std::to_string(passed_rank) +
             " (where a " + kColorNames[mover_of_step] + " double step passes)";
    }
    if (p.board[cell]) return "en-passant cell " + name + " is occupied";
    bool possible = false;
    for (int dx = -1; dx <= 1; dx += 2) {
      const int x = g.x[cell], y = g.y[cell];
      if (!CellExists(x + dx, y + dy) || !CellExists(x - dx, y - dy)) continue;
      const int landed = CellIndex(x + dx, y + dy), origin = CellIndex(x - dx, y - dy);
      if (p.board[landed] == MakePiece(mover_of_step, kPawn) && p.board[origin] == 0) {
        possible = true;
      }
    }
    if (!possible) {
      return "en-passant cell " + name + ": no " + kColorNames[mover_of_step] +
             " pawn can have just passed it with a double step (a pawn beyond it and its start "
             "cell empty)";
    }
  }
  return "";
}

Position ParsePosition(std::string_view text) {
  const std::string quoted = "position '" + std::string(text) + "'";
  std::vector<std::string> fields;
  for (std::string_view field : SplitBlanks(text)) fields.emplace_back(field);
  if (fields.size() != 5) {
    throw Error(quoted + ": expected 5 fields (ranks, side, en-passant cell, half-move clock, " +
                "move number), got " + std::to_string(fields.size()));
  }
  Position p = EmptyPosition();
  const std::string& ranks = fields[0];
  int y = kNumRanks;
  int filled = 0;  // cells of rank y described so far
  auto finish_rank = [&]() {
    if (filled != CellsInRank(y)) {
      throw Error(quoted + ": rank " + std::to_string(y) + " describes " + std::to_string(filled) +
                  " cells, but has " + std::to_string(CellsInRank(y)));
    }
  };
  for (size_t i = 0; i < ranks.size(); ++i) {
    const char c = ranks[i];
    if (c == '/') {
      finish_rank();
      if (--y < 1) throw Error(quoted + ": more than 9 ranks");
      filled = 0;
    } else if (c >= '0' && c <= '9') {
      size_t end = i;
      while (end < ranks.size() && ranks[end] >= '0' && ranks[end] <= '9') ++end;
      const std::optional<uint32_t> count =
          ParseCounter(std::string_view(ranks).substr(i, end - i), 1, uint32_t(CellsInRank(y)));
      if (!count || ranks[i] == '0' || int(*count) > CellsInRank(y) - filled) {
        throw Error(quoted + ": rank " + std::to_string(y) + " has a bad empty-cell count '" +
                    ranks.substr(i, end - i) + "' (rank " + std::to_string(y) + " has " +
                    std::to_string(CellsInRank(y)) + " cells)");
      }
      filled += int(*count);
      i = end - 1;
    } else {
      const char lower = char(std::tolower(static_cast<unsigned char>(c)));
      int type = 0;
      for (int t = kPawn; t <= kKing; ++t) {
        if (kFenLetters[t] == lower) type = t;
      }
      if (type == 0) {
        throw Error(quoted + ": unknown piece letter '" + std::string(1, c) + "' in rank " +
                    std::to_string(y) + " (KQRBNP White, kqrbnp Black)");
      }
      if (filled >= CellsInRank(y)) {
        throw Error(quoted + ": rank " + std::to_string(y) + " describes more than " +
                    std::to_string(CellsInRank(y)) + " cells");
      }
      const int color = std::isupper(static_cast<unsigned char>(c)) ? 0 : 1;
      PutPiece(p, MakePiece(color, type), RankStart(y) + filled);
      ++filled;
    }
  }
  finish_rank();
  if (y != 1) throw Error(quoted + ": " + std::to_string(10 - y) + " ranks given, 9 needed");

  if (fields[1] != "w" && fields[1] != "b") {
    throw Error(quoted + ": side to move '" + fields[1] + "' is not w or b");
  }
  p.side_to_move = fields[1] == "w" ? 0 : 1;
  if (fields[2] != "-") {
    try {
      p.en_passant_cell = int8_t(ParseCell(fields[2]));
    } catch (const Error& error) {
      throw Error(quoted + ": en-passant field: " + error.what());
    }
  }
  const std::optional<uint32_t> halfmove = ParseCounter(fields[3], 0, kMaxCounter);
  if (!halfmove) {
    throw Error(quoted + ": half-move clock '" + fields[3] + "' is not a number 0..999999999");
  }
  const std::optional<uint32_t> fullmove = ParseCounter(fields[4], 1, kMaxCounter);
  if (!fullmove) {
    throw Error(quoted + ": move number '" + fields[4] + "' is not a number 1..999999999");
  }
  p.halfmove_clock = *halfmove;
  p.fullmove_number = *fullmove;
  p.hash = ComputeHash(p);
  const std::string problem = ValidityProblem(p);
  if (!problem.empty()) throw Error(quoted + " is not valid: " + problem);
  return p;
}

std::string FormatPosition(const Position& p) {
  std::string text;
  for (int y = kNumRanks; y >= 1; --y) {
    int empty = 0;
    for (int cell = RankStart(y); cell < RankStart(y + 1); ++cell) {
      if (!p.board[cell]) {
        ++empty;
        continue;
      }
      if (empty) text += std::to_string(empty);
      empty = 0;
      text += FenLetter(p.board[cell]);
    }
    if (empty) text += std::to_string(empty);
    if (y > 1) text += '/';
  }
  text += p.side_to_move == 0 ? " w " : " b ";
  text += p.en_passant_cell >= 0 ? CellName(p.en_passant_cell) : "-";
  text += " " + std::to_string(p.halfmove_clock) + " " + std::to_string(p.fullmove_number);
  return text;
}

std::string FormatMove(const Position&, Move m) {
  std::string text = CellName(MoveFrom(m)) + CellName(MoveTo(m));
  if (MovePromotion(m)) text += kFenLetters[MovePromotion(m)];
  return text;
}

std::string FormatDisplayMove(const Position& p, Move m) {
  std::string text;
  const int type = PieceTypeOf(p.board[MoveFrom(m)]);
  if (type != kPawn) text += kDisplayLetters[type];
  text += CellName(MoveFrom(m));
  text += IsCapture(p, m) ? 'x' : '-';
  text += CellName(MoveTo(m));
  if (MovePromotion(m)) text += std::string("=") + kDisplayLetters[MovePromotion(m)];
  const int check = CheckState(p, m);
  if (check == 1) text += "+";
  if (check == 2) text += "++";
  return text;
}

Move ParseMove(const Position& p, std::string_view text) {
  const std::string quoted = "move '" + std::string(text) + "'";
  const std::string s(text);
  const std::string form_help =
      " is neither protocol form (h3i4, a8b9q) nor display form (Cq1-p4, m5xn6, a8-b9=D, "
      "Dh1-h9++)";
  const Moves legal = LegalMoves(p);
  auto illegal = [&](const std::string& why) {
    return Error(quoted + why + " in " + FormatPosition(p) + "; legal moves: " + LegalMovesText(p));
  };

  // Protocol form: from, to, optional promotion letter.
  if ((s.size() == 4 || s.size() == 5) && std::islower(static_cast<unsigned char>(s[0])) &&
      s[2] != '-' && s[2] != 'x') {
    try {
      ParseCell(s.substr(0, 2));
      ParseCell(s.substr(2, 2));
    } catch (const Error& error) {
      throw Error(quoted + ": " + error.what());
    }
  }
  if ((s.size() == 4 || s.size() == 5) && IsCellText(s.substr(0, 2)) &&
      IsCellText(s.substr(2, 2))) {
    const int from = ParseCell(s.substr(0, 2)), to = ParseCell(s.substr(2, 2));
    int promotion = 0;
    if (s.size() == 5) {
      for (int t = kKnight; t <= kQueen; ++t) {
        if (kFenLetters[t] == s[4]) promotion = t;
      }
      if (!promotion) throw Error(quoted + ": promotion letter must be q, r, b or n");
    }
    bool promotes = false;
    for (Move m : legal) {
      if (MoveFrom(m) != from || MoveTo(m) != to) continue;
      if (MovePromotion(m) == promotion) return m;
      promotes = promotes || MovePromotion(m) != 0;
    }
    if (promotes && !promotion) {
      throw Error(quoted + " is a promotion: add the new piece's letter (q, r, b or n)");
    }
    throw illegal(" is not legal");
  }

  // Display form: [RDTBC] from ('-'|'x') to ['=' DTBC] ['+'|'++'].
  size_t i = 0;
  int claimed_type = kPawn;
  if (!s.empty() && std::isupper(static_cast<unsigned char>(s[0]))) {
    claimed_type = 0;
    for (int t = kKnight; t <= kKing; ++t) {
      if (kDisplayLetters[t] == s[0]) claimed_type = t;
    }
    if (!claimed_type) {
      throw Error(quoted + ": unknown piece letter '" + s[0] +
                  "' (R king, D queen, T rook, B bishop, C knight, none for a pawn)");
    }
    ++i;
  }
  if (s.size() < i + 5 || !IsCellText(s.substr(i, 2)) || (s[i + 2] != '-' && s[i + 2] != 'x') ||
      !IsCellText(s.substr(i + 3, 2))) {
    // Name a bad cell precisely when the shape is otherwise right.
    if (s.size() >= i + 5 && (s[i + 2] == '-' || s[i + 2] == 'x')) {
      try {
        ParseCell(s.substr(i, 2));
        ParseCell(s.substr(i + 3, 2));
      } catch (const Error& error) {
        throw Error(quoted + ": " + error.what());
      }
    }
    throw Error(quoted + form_help);
  }
  const int from = ParseCell(s.substr(i, 2)), to = ParseCell(s.substr(i + 3, 2));
  const bool claims_capture = s[i + 2] == 'x';
  i += 5;
  int promotion = 0;
  if (i < s.size() && s[i] == '=') {
    if (i + 1 >= s.size()) throw Error(quoted + ": '=' must be followed by D, T, B or C");
    for (int t = kKnight; t <= kQueen; ++t) {
      if (kDisplayLetters[t] == s[i + 1]) promotion = t;
    }
    if (!promotion) throw Error(quoted + ": promotion piece must be D, T, B or C");
    i += 2;
  }
  int claimed_check = 0;
  if (s.substr(i) == "+") {
    claimed_check = 1;
  } else if (s.substr(i) == "++") {
    claimed_check = 2;
  } else if (i != s.size()) {
    throw Error(quoted + form_help);
  }

  Move found = kNullMove;
  bool promotes = false;
  for (Move m : legal) {
    if (MoveFrom(m) != from || MoveTo(m) != to) continue;
    if (MovePromotion(m) == promotion) found = m;
    promotes = promotes || MovePromotion(m) != 0;
  }
  if (found == kNullMove) {
    if (promotes && !promotion) {
      throw Error(quoted + " is a promotion: add =D, =T, =B or =C");
    }
    throw illegal(" is not legal");
  }
  const int type = PieceTypeOf(p.board[from]);
  if (type != claimed_type) {
    const std::string written =
        type == kPawn ? "no letter" : "letter " + std::string(1, kDisplayLetters[type]);
    throw Error(quoted + ": the piece on " + CellName(from) + " is a " + kTypeNames[type] +
                " (written with " + written + "), not a " + kTypeNames[claimed_type]);
  }
  const bool capture = IsCapture(p, found);
  if (claims_capture && !capture) {
    throw Error(quoted + ": 'x' marks a capture, but the move captures nothing (write '-')");
  }
  if (!claims_capture && capture) {
    throw Error(quoted + ": the move captures, so it is written with 'x', not '-'");
  }
  if (claimed_check) {
    const int check = CheckState(p, found);
    if (claimed_check == 1 && check == 0) {
      throw Error(quoted + ": '+' claims check, but the move gives no check");
    }
    if (claimed_check == 2 && check != 2) {
      throw Error(quoted + ": '++' claims mate, but the move " +
                  (check == 1 ? "gives check without mate" : "gives no check"));
    }
  }
  return found;
}

std::string BoardPicture(const Position& p) {
  std::string picture;
  for (int y = kNumRanks; y >= 1; --y) {
    std::string line(2 + kNumFiles, ' ');
    line[0] = char('0' + y);
    for (int cell = RankStart(y); cell < RankStart(y + 1); ++cell) {
      line[2 + CellGeometry().x[cell]] = p.board[cell] ? FenLetter(p.board[cell]) : '.';
    }
    while (line.back() == ' ') line.pop_back();
    picture += line + "\n";
  }
  picture += "  " + std::string(kFileLetters) + "\n";
  return picture;
}

}  // namespace vz::chaco_rex
