#pragma once

// A slow, from-scratch Chad move generator written only for tests, sharing no code or tables with
// engine/chad: a 12x12 character board, castles and walls spelled out as square names from the
// rules page, moves found by walking the board, legality by playing each move on a copy and
// scanning every enemy rook and queen for a clear line to the king (the opposite direction of
// the engine, which looks outwards from the king and uses pins). Used to establish and check the
// perft numbers and to compare exact move lists on random positions.

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tests/engine/game_test_util.h"

namespace vz::chad::reference {

struct Board {
  char cell[12][12];  // [rank 0..11][file 0..11]; '.' empty, K Q R white, k q r black
  int side = 0;       // 0 White, 1 Black
};

struct RefMove {
  int fx, fy, tx, ty;
  std::string Text() const {
    return std::string(1, char('a' + fx)) + std::to_string(fy + 1) + char('a' + tx) +
           std::to_string(ty + 1);
  }
};

inline bool InList(const char* names, int x, int y) {
  std::istringstream stream(names);
  std::string name;
  const std::string wanted = std::string(1, char('a' + x)) + std::to_string(y + 1);
  while (stream >> name) {
    if (name == wanted) return true;
  }
  return false;
}

// The rules page, word for word.
inline bool InCastle(int color, int x, int y) {
  return InList(color == 0 ? "c3 c4 c5 d3 d4 d5 e3 e4 e5" : "h8 h9 h10 i8 i9 i10 j8 j9 j10", x, y);
}
inline bool OnWall(int color, int x, int y) {
  return InList(color == 0 ? "c2 d2 e2 b3 b4 b5 f3 f4 f5 c6 d6 e6"
                           : "h7 i7 j7 g8 g9 g10 k8 k9 k10 h11 i11 j11",
                x, y);
}

// Precomputed once, because InList is very slow.
struct Zones {
  bool castle[2][12][12];
  bool wall[2][12][12];
  Zones() {
    for (int c = 0; c < 2; ++c) {
      for (int x = 0; x < 12; ++x) {
        for (int y = 0; y < 12; ++y) {
          castle[c][y][x] = InCastle(c, x, y);
          wall[c][y][x] = OnWall(c, x, y);
        }
      }
    }
  }
};
inline const Zones& GetZones() {
  static const Zones zones;
  return zones;
}

inline int ColorOf(char c) { return c == '.' ? -1 : (c >= 'a' ? 1 : 0); }
inline char Upper(char c) { return c >= 'a' ? char(c - 'a' + 'A') : c; }

// Parses only the board and side fields (the test feeds it valid strings).
inline Board FromFen(const std::string& fen) {
  Board b;
  std::istringstream stream(fen);
  std::string rows, side;
  stream >> rows >> side;
  int y = 11, x = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const char c = rows[i];
    if (c == '/') {
      --y;
      x = 0;
    } else if (c >= '0' && c <= '9') {
      int n = c - '0';
      if (i + 1 < rows.size() && rows[i + 1] >= '0' && rows[i + 1] <= '9')
        n = n * 10 + (rows[++i] - '0');
      for (int k = 0; k < n; ++k) b.cell[y][x++] = '.';
    } else {
      b.cell[y][x++] = c;
    }
  }
  b.side = side == "b" ? 1 : 0;
  return b;
}

inline bool KingAttacked(const Board& b, int color) {
  int kx = -1, ky = -1;
  for (int y = 0; y < 12; ++y) {
    for (int x = 0; x < 12; ++x) {
      if (b.cell[y][x] == (color == 0 ? 'K' : 'k')) kx = x, ky = y;
    }
  }
  for (int y = 0; y < 12; ++y) {
    for (int x = 0; x < 12; ++x) {
      const char c = b.cell[y][x];
      if (ColorOf(c) != 1 - color || Upper(c) == 'K') continue;
      for (int dx = -1; dx <= 1; ++dx) {
        for (int dy = -1; dy <= 1; ++dy) {
          if (dx == 0 && dy == 0) continue;
          if (dx != 0 && dy != 0 && Upper(c) != 'Q') continue;
          for (int px = x + dx, py = y + dy; px >= 0 && px < 12 && py >= 0 && py < 12;
               px += dx, py += dy) {
            if (px == kx && py == ky) return true;
            if (b.cell[py][px] != '.') break;
          }
        }
      }
    }
  }
  return false;
}

inline Board Play(const Board& b, const RefMove& m) {
  Board next = b;
  char piece = b.cell[m.fy][m.fx];
  const int color = ColorOf(piece);
  if (Upper(piece) == 'R' && GetZones().castle[1 - color][m.ty][m.tx]) {
    piece = color == 0 ? 'Q' : 'q';
  }
  next.cell[m.fy][m.fx] = '.';
  next.cell[m.ty][m.tx] = piece;
  next.side = 1 - b.side;
  return next;
}

inline std::vector<RefMove> LegalMoves(const Board& b) {
  const Zones& z = GetZones();
  const int us = b.side, them = 1 - us;
  std::vector<RefMove> pseudo;
  for (int y = 0; y < 12; ++y) {
    for (int x = 0; x < 12; ++x) {
      const char c = b.cell[y][x];
      if (ColorOf(c) != us) continue;
      if (Upper(c) == 'K') {
        const int steps[16][2] = {{1, 0},   {1, 1},   {0, 1},  {-1, 1}, {-1, 0}, {-1, -1},
                                  {0, -1},  {1, -1},  {1, 2},  {2, 1},  {2, -1}, {1, -2},
                                  {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
        for (const auto& s : steps) {
          const int tx = x + s[0], ty = y + s[1];
          if (tx < 0 || tx >= 12 || ty < 0 || ty >= 12) continue;
          if (!z.castle[us][ty][tx]) continue;
          if (ColorOf(b.cell[ty][tx]) == us) continue;
          pseudo.push_back({x, y, tx, ty});
        }
        continue;
      }
      for (int dx = -1; dx <= 1; ++dx) {
        for (int dy = -1; dy <= 1; ++dy) {
          if (dx == 0 && dy == 0) continue;
          if (dx != 0 && dy != 0 && Upper(c) != 'Q') continue;
          for (int tx = x + dx, ty = y + dy; tx >= 0 && tx < 12 && ty >= 0 && ty < 12;
               tx += dx, ty += dy) {
            const char target = b.cell[ty][tx];
            if (target == '.') {
              pseudo.push_back({x, y, tx, ty});
              continue;
            }
            if (ColorOf(target) == them && Upper(target) != 'K') {
              const bool rule_a = z.wall[them][y][x] && z.castle[them][ty][tx];
              const bool rule_b = z.castle[us][y][x] && z.wall[us][ty][tx];
              if (rule_a || rule_b) pseudo.push_back({x, y, tx, ty});
            }
            break;
          }
        }
      }
    }
  }
  std::vector<RefMove> legal;
  for (const RefMove& m : pseudo) {
    if (!KingAttacked(Play(b, m), us)) legal.push_back(m);
  }
  return legal;
}

inline std::vector<std::string> LegalMoveTexts(const Board& b) {
  std::vector<std::string> out;
  for (const RefMove& m : LegalMoves(b)) out.push_back(m.Text());
  std::sort(out.begin(), out.end());
  return out;
}

inline uint64_t Perft(const Board& b, int depth) {
  return testing::ReferencePerft(
      b, depth, [](const Board& board) { return LegalMoves(board); },
      [](const Board& board, const RefMove& m) { return Play(board, m); });
}

}  // namespace vz::chad::reference
