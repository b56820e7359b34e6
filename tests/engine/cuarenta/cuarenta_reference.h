#pragma once

// A slow, from-scratch Cuarenta move generator written only for the tests, sharing no code with
// engine/cuarenta: a 9x9 character grid, pieces walked square by square in grid coordinates, and
// legality decided the naive way (play the move, then see whether any enemy move could take the
// king). It reads position strings with its own parser and names moves in protocol form, so that
// its move sets and perft counts can be compared with the engine's.

#include <cctype>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tests/engine/game_test_util.h"

namespace vz::cuarenta::reference {

struct RefMove {
  int fx, fy, tx, ty;
  char promotion;  // 0 or lower-case c f g v b
  bool castling;
};

struct RefPosition {
  char grid[9][9];  // [file][rank]; '.' empty; letters as in position strings
  bool white_to_move;
  bool castle[2];  // [0] White, [1] Black
};

inline bool Exists(int x, int y) { return x >= 0 && x < 9 && y >= 0 && y < 9 && (x + y) % 2 == 1; }
inline bool IsWhite(char c) { return c >= 'A' && c <= 'Z'; }
inline bool IsBlack(char c) { return c >= 'a' && c <= 'z'; }
inline bool Owns(bool white, char c) { return white ? IsWhite(c) : IsBlack(c); }
inline bool Enemy(bool white, char c) { return white ? IsBlack(c) : IsWhite(c); }

inline RefPosition ParseRef(const std::string& fen) {
  RefPosition p;
  for (auto& column : p.grid)
    for (char& c : column) c = '.';
  std::istringstream in(fen);
  std::string board, side, castling;
  in >> board >> side >> castling;
  int y = 8, x = -1;
  auto next_square = [&]() {
    do ++x;
    while (!Exists(x, y));
  };
  for (char c : board) {
    if (c == '/') {
      --y;
      x = -1;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      for (int k = 0; k < c - '0'; ++k) next_square();
    } else {
      next_square();
      p.grid[x][y] = c;
    }
  }
  p.white_to_move = side == "w";
  p.castle[0] = castling.find('w') != std::string::npos;
  p.castle[1] = castling.find('b') != std::string::npos;
  return p;
}

inline std::string RefSquare(int x, int y) { return std::string{char('a' + x), char('1' + y)}; }

inline std::string RefMoveText(const RefMove& m) {
  std::string text = RefSquare(m.fx, m.fy) + RefSquare(m.tx, m.ty);
  if (m.promotion) text += m.promotion;
  return text;
}

// Every move of the side `white` by the piece rules alone (no castling, no check test).
inline void PieceMoves(const RefPosition& p, bool white, std::vector<RefMove>& out,
                       bool with_promotions) {
  const int forward = white ? 1 : -1;
  auto add = [&](int fx, int fy, int tx, int ty) { out.push_back({fx, fy, tx, ty, 0, false}); };
  auto free_or_enemy = [&](int x, int y) { return Exists(x, y) && !Owns(white, p.grid[x][y]); };
  const int diag[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
  const int orth[4][2] = {{0, 2}, {0, -2}, {2, 0}, {-2, 0}};
  for (int x = 0; x < 9; ++x) {
    for (int y = 0; y < 9; ++y) {
      const char c = p.grid[x][y];
      if (!Exists(x, y) || !Owns(white, c)) continue;
      switch (std::toupper(static_cast<unsigned char>(c))) {
        case 'K':
          for (auto& d : diag)
            if (free_or_enemy(x + d[0], y + d[1])) add(x, y, x + d[0], y + d[1]);
          for (int dy : {2, -2})
            if (Exists(x, y + dy) && p.grid[x][y + dy] == '.') add(x, y, x, y + dy);
          break;
        case 'B':
          for (auto& d : diag) {
            for (int k = 1; Exists(x + k * d[0], y + k * d[1]); ++k) {
              const char t = p.grid[x + k * d[0]][y + k * d[1]];
              if (Owns(white, t)) break;
              add(x, y, x + k * d[0], y + k * d[1]);
              if (t != '.') break;
            }
          }
          break;
        case 'V':
          for (auto& d : diag) {
            int screens = 0;
            for (int k = 1; Exists(x + k * d[0], y + k * d[1]); ++k) {
              const char t = p.grid[x + k * d[0]][y + k * d[1]];
              if (t == '.') {
                if (screens == 0) add(x, y, x + k * d[0], y + k * d[1]);
                continue;
              }
              if (screens == 1) {
                if (Enemy(white, t)) add(x, y, x + k * d[0], y + k * d[1]);
                break;
              }
              ++screens;
            }
          }
          break;
        case 'G':
          for (auto& d : diag)
            for (int k = 1; k <= 2; ++k)
              if (free_or_enemy(x + k * d[0], y + k * d[1])) add(x, y, x + k * d[0], y + k * d[1]);
          break;
        case 'C':
          for (int a : {1, -1})
            for (int b : {3, -3}) {
              if (free_or_enemy(x + a, y + b)) add(x, y, x + a, y + b);
              if (free_or_enemy(x + b, y + a)) add(x, y, x + b, y + a);
            }
          break;
        case 'F':
          for (auto& d : orth)
            if (free_or_enemy(x + d[0], y + d[1])) add(x, y, x + d[0], y + d[1]);
          for (int dir = 0; dir < 8; ++dir) {
            const int dx = dir < 4 ? diag[dir][0] : orth[dir - 4][0];
            const int dy = dir < 4 ? diag[dir][1] : orth[dir - 4][1];
            int k = 1;
            while (Exists(x + k * dx, y + k * dy) && Owns(white, p.grid[x + k * dx][y + k * dy]))
              ++k;
            if (k >= 2 && Exists(x + k * dx, y + k * dy)) add(x, y, x + k * dx, y + k * dy);
          }
          break;
        case 'P': {
          const int last = white ? 8 : 0;
          auto in_zone = [&](int ty) { return white ? ty >= 6 : ty <= 2; };
          const int steps[3][2] = {{-1, forward}, {0, 2 * forward}, {1, forward}};
          for (auto& s : steps) {
            const int tx = x + s[0], ty = y + s[1];
            if (!Exists(tx, ty)) continue;
            const char t = p.grid[tx][ty];
            if (Owns(white, t) || std::toupper(static_cast<unsigned char>(t)) == 'P') continue;
            add(x, y, tx, ty);
            if (!with_promotions) continue;
            if (in_zone(ty)) out.push_back({x, y, tx, ty, 'c', false});
            if (ty == last)
              for (char q : {'f', 'g', 'v', 'b'}) out.push_back({x, y, tx, ty, q, false});
          }
          if (with_promotions && in_zone(y)) {
            out.push_back({x, y, x, y, 'c', false});
            if (y == last)
              for (char q : {'f', 'g', 'v', 'b'}) out.push_back({x, y, x, y, q, false});
          }
          break;
        }
      }
    }
  }
}

inline void ApplyRef(RefPosition& p, const RefMove& m) {
  const bool white = p.white_to_move;
  if (m.castling) {
    std::swap(p.grid[m.fx][m.fy], p.grid[m.tx][m.ty]);
  } else {
    char piece = p.grid[m.fx][m.fy];
    if (m.promotion) piece = white ? char(std::toupper(m.promotion)) : m.promotion;
    p.grid[m.fx][m.fy] = '.';
    p.grid[m.tx][m.ty] = piece;
  }
  auto touches = [&](int x, int y) { return (m.fx == x && m.fy == y) || (m.tx == x && m.ty == y); };
  if (touches(4, 1) || touches(7, 0)) p.castle[0] = false;
  if (touches(4, 7) || touches(1, 8)) p.castle[1] = false;
  p.white_to_move = !white;
}

// Whether the king of side `white` could be taken by a move of the other side.
inline bool KingCapturable(const RefPosition& p, bool white) {
  std::vector<RefMove> replies;
  PieceMoves(p, !white, replies, false);
  const char king = white ? 'K' : 'k';
  for (const RefMove& r : replies)
    if (p.grid[r.tx][r.ty] == king) return true;
  return false;
}

inline std::vector<RefMove> LegalRef(const RefPosition& p) {
  const bool white = p.white_to_move;
  std::vector<RefMove> pseudo, legal;
  PieceMoves(p, white, pseudo, true);
  for (const RefMove& m : pseudo) {
    RefPosition child = p;
    ApplyRef(child, m);
    if (!KingCapturable(child, white)) legal.push_back(m);
  }
  const int side = white ? 0 : 1;
  const int kx = 4, ky = white ? 1 : 7, cx = white ? 7 : 1, cy = white ? 0 : 8;
  if (p.castle[side] && (!white || !p.castle[1]) && p.grid[kx][ky] == (white ? 'K' : 'k') &&
      p.grid[cx][cy] == (white ? 'C' : 'c') && !KingCapturable(p, white)) {
    RefMove m{kx, ky, cx, cy, 0, true};
    RefPosition child = p;
    ApplyRef(child, m);
    if (!KingCapturable(child, white)) legal.push_back(m);
  }
  return legal;
}

inline uint64_t PerftRef(const RefPosition& p, int depth) {
  return testing::ReferencePerft(
      p, depth, [](const RefPosition& position) { return LegalRef(position); },
      [](const RefPosition& position, const RefMove& m) {
        RefPosition child = position;
        ApplyRef(child, m);
        return child;
      });
}

}  // namespace vz::cuarenta::reference
