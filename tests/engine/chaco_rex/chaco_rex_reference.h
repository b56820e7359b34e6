#pragma once

// A slow, independent Chaco Rex move generator written from the rules page for tests only: a
// mailbox over (file x, rank y) coordinates, moves generated naively by geometry, each move
// played on a copy and kept if no enemy piece can then reach the mover's king (every enemy piece
// is scanned). It shares no code with engine/chaco_rex except what it is compared through: the
// position strings and protocol move strings.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tests/engine/game_test_util.h"

namespace vz::chaco_rex::reference {

inline const std::string kFiles = "abcdefghijlmnopqrst";

inline bool Exists(int x, int y) {
  return x >= 0 && x < 19 && y >= 1 && y <= 9 && (x + y) % 2 == 0;
}

struct Board {
  char cell[19][10];  // [x][y], '.' empty, FEN letters (upper case White)
  int side = 0;       // 0 White, 1 Black
  int ep_x = -1, ep_y = -1;
  int halfmove = 0, fullmove = 1;
};

struct RefMove {
  int fx, fy, tx, ty;
  char promotion;  // 0 or q r b n
  bool en_passant;
  bool double_step;
};

inline int ColorOf(char piece) { return std::isupper(static_cast<unsigned char>(piece)) ? 0 : 1; }

inline Board FromFen(const std::string& fen) {
  Board b;
  for (auto& column : b.cell) std::fill(column, column + 10, '.');
  std::istringstream in(fen);
  std::string ranks, side, ep;
  in >> ranks >> side >> ep >> b.halfmove >> b.fullmove;
  int y = 9, x = -1;
  auto next_cell = [&]() {
    do ++x;
    while (!Exists(x, y));
  };
  for (size_t i = 0; i < ranks.size(); ++i) {
    const char c = ranks[i];
    if (c == '/') {
      --y;
      x = -1;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      int n = c - '0';
      if (i + 1 < ranks.size() && std::isdigit(static_cast<unsigned char>(ranks[i + 1]))) {
        n = n * 10 + (ranks[++i] - '0');
      }
      while (n--) next_cell();
    } else {
      next_cell();
      b.cell[x][y] = c;
    }
  }
  b.side = side == "w" ? 0 : 1;
  if (ep != "-") {
    b.ep_x = int(kFiles.find(ep[0]));
    b.ep_y = ep[1] - '0';
  }
  return b;
}

inline std::string CellText(int x, int y) { return std::string(1, kFiles[x]) + char('0' + y); }

inline std::string ToFen(const Board& b) {
  std::string fen;
  for (int y = 9; y >= 1; --y) {
    int empty = 0;
    for (int x = 0; x < 19; ++x) {
      if (!Exists(x, y)) continue;
      if (b.cell[x][y] == '.') {
        ++empty;
      } else {
        if (empty) fen += std::to_string(empty);
        empty = 0;
        fen += b.cell[x][y];
      }
    }
    if (empty) fen += std::to_string(empty);
    if (y > 1) fen += '/';
  }
  fen += b.side == 0 ? " w " : " b ";
  fen += b.ep_x >= 0 ? CellText(b.ep_x, b.ep_y) : "-";
  fen += " " + std::to_string(b.halfmove) + " " + std::to_string(b.fullmove);
  return fen;
}

inline std::string MoveText(const RefMove& m) {
  std::string text = CellText(m.fx, m.fy) + CellText(m.tx, m.ty);
  if (m.promotion) text += m.promotion;
  return text;
}

// The rules page's step sets.
inline const int kOrthogonal[6][2] = {{2, 0}, {-2, 0}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
inline const int kDiagonal[6][2] = {{0, 2}, {0, -2}, {3, 1}, {-3, 1}, {3, -1}, {-3, -1}};
inline const int kLeaps[12][2] = {{1, 3},  {-1, 3},  {1, -3}, {-1, -3}, {4, 2},  {-4, 2},
                                  {4, -2}, {-4, -2}, {5, 1},  {-5, 1},  {5, -1}, {-5, -1}};

// True if the piece on (sx, sy) could capture on (tx, ty).
inline bool Reaches(const Board& b, int sx, int sy, int tx, int ty) {
  const char piece = b.cell[sx][sy];
  const char kind = char(std::tolower(static_cast<unsigned char>(piece)));
  const int dx = tx - sx, dy = ty - sy;
  if (kind == 'p') {
    const int forward = ColorOf(piece) == 0 ? 1 : -1;
    return dy == forward && (dx == 1 || dx == -1);
  }
  if (kind == 'n') {
    for (const auto& leap : kLeaps) {
      if (leap[0] == dx && leap[1] == dy) return true;
    }
    return false;
  }
  if (kind == 'k') {
    for (const auto& step : kOrthogonal) {
      if (step[0] == dx && step[1] == dy) return true;
    }
    return false;
  }
  auto slides = [&](const int(*steps)[2]) {
    for (int i = 0; i < 6; ++i) {
      int x = sx + steps[i][0], y = sy + steps[i][1];
      while (Exists(x, y)) {
        if (x == tx && y == ty) return true;
        if (b.cell[x][y] != '.') break;
        x += steps[i][0];
        y += steps[i][1];
      }
    }
    return false;
  };
  if ((kind == 'r' || kind == 'q') && slides(kOrthogonal)) return true;
  if ((kind == 'b' || kind == 'q') && slides(kDiagonal)) return true;
  return false;
}

inline bool KingAttacked(const Board& b, int color) {
  const char king = color == 0 ? 'K' : 'k';
  int kx = -1, ky = -1;
  for (int x = 0; x < 19; ++x) {
    for (int y = 1; y <= 9; ++y) {
      if (Exists(x, y) && b.cell[x][y] == king) kx = x, ky = y;
    }
  }
  for (int x = 0; x < 19; ++x) {
    for (int y = 1; y <= 9; ++y) {
      if (Exists(x, y) && b.cell[x][y] != '.' && ColorOf(b.cell[x][y]) != color &&
          Reaches(b, x, y, kx, ky)) {
        return true;
      }
    }
  }
  return false;
}

inline Board Play(const Board& b, const RefMove& m) {
  Board c = b;
  const char piece = c.cell[m.fx][m.fy];
  const bool capture = c.cell[m.tx][m.ty] != '.' || m.en_passant;
  c.cell[m.fx][m.fy] = '.';
  c.cell[m.tx][m.ty] = piece;
  if (m.en_passant) c.cell[2 * m.tx - m.fx][m.fy] = '.';
  if (m.promotion) {
    c.cell[m.tx][m.ty] = b.side == 0 ? char(std::toupper(m.promotion)) : m.promotion;
  }
  c.ep_x = c.ep_y = -1;
  if (m.double_step) {
    c.ep_x = (m.fx + m.tx) / 2;
    c.ep_y = (m.fy + m.ty) / 2;
  }
  const bool pawn = piece == 'P' || piece == 'p';
  c.halfmove = (pawn || capture) ? 0 : b.halfmove + 1;
  if (b.side == 1) ++c.fullmove;
  c.side = 1 - b.side;
  return c;
}

inline std::vector<RefMove> LegalMoves(const Board& b) {
  std::vector<RefMove> pseudo;
  const int us = b.side;
  auto is_enemy = [&](int x, int y) { return b.cell[x][y] != '.' && ColorOf(b.cell[x][y]) != us; };
  auto add = [&](int fx, int fy, int tx, int ty) {
    if (b.cell[tx][ty] == '.' || is_enemy(tx, ty))
      pseudo.push_back({fx, fy, tx, ty, 0, false, false});
  };
  for (int x = 0; x < 19; ++x) {
    for (int y = 1; y <= 9; ++y) {
      if (!Exists(x, y) || b.cell[x][y] == '.' || ColorOf(b.cell[x][y]) != us) continue;
      const char kind = char(std::tolower(static_cast<unsigned char>(b.cell[x][y])));
      if (kind == 'p') {
        const int forward = us == 0 ? 1 : -1;
        const int last = us == 0 ? 9 : 1;
        const int first = us == 0 ? 2 : 8;
        for (int dx = -1; dx <= 1; dx += 2) {
          const int tx = x + dx, ty = y + forward;
          if (!Exists(tx, ty)) continue;
          if (tx == b.ep_x && ty == b.ep_y) {
            pseudo.push_back({x, y, tx, ty, 0, true, false});
          } else if (b.cell[tx][ty] == '.' || is_enemy(tx, ty)) {
            if (ty == last) {
              for (char promotion : std::string("qrbn")) {
                pseudo.push_back({x, y, tx, ty, promotion, false, false});
              }
            } else {
              pseudo.push_back({x, y, tx, ty, 0, false, false});
            }
          }
          if (y == first && b.cell[tx][ty] == '.' && Exists(x + 2 * dx, y + 2 * forward) &&
              b.cell[x + 2 * dx][y + 2 * forward] == '.') {
            pseudo.push_back({x, y, x + 2 * dx, y + 2 * forward, 0, false, true});
          }
        }
      } else if (kind == 'n') {
        for (const auto& leap : kLeaps) {
          if (Exists(x + leap[0], y + leap[1])) add(x, y, x + leap[0], y + leap[1]);
        }
      } else if (kind == 'k') {
        for (const auto& step : kOrthogonal) {
          if (Exists(x + step[0], y + step[1])) add(x, y, x + step[0], y + step[1]);
        }
      } else {
        auto slide = [&](const int(*steps)[2]) {
          for (int i = 0; i < 6; ++i) {
            int tx = x + steps[i][0], ty = y + steps[i][1];
            while (Exists(tx, ty)) {
              add(x, y, tx, ty);
              if (b.cell[tx][ty] != '.') break;
              tx += steps[i][0];
              ty += steps[i][1];
            }
          }
        };
        if (kind == 'r' || kind == 'q') slide(kOrthogonal);
        if (kind == 'b' || kind == 'q') slide(kDiagonal);
      }
    }
  }
  std::vector<RefMove> legal;
  for (const RefMove& m : pseudo) {
    if (!KingAttacked(Play(b, m), us)) legal.push_back(m);
  }
  return legal;
}

inline uint64_t Perft(const Board& b, int depth) {
  return testing::ReferencePerft(
      b, depth, [](const Board& board) { return LegalMoves(board); },
      [](const Board& board, const RefMove& m) { return Play(board, m); });
}

inline std::vector<std::string> SortedMoveTexts(const Board& b) {
  std::vector<std::string> texts;
  for (const RefMove& m : LegalMoves(b)) texts.push_back(MoveText(m));
  std::sort(texts.begin(), texts.end());
  return texts;
}

}  // namespace vz::chaco_rex::reference
