#pragma once

// Two tiny games satisfying vz::Game, for testing the search on its own (the real games live in
// engine/<game>/ and are tested by tests/engine/search/search_games_test.cc).
//
// TicTacToeGame: 3x3, "x" moves first; three in a row wins, a full board draws. Move raw = cell
//   0..8 (row-major, a1 = 0 bottom-left .. c3 = 8); action = cell. Position string: 9 cells of
//   'x', 'o', '.' from cell 0, a space, the side to move 'x' or 'o'. Moves: "0".."8" (protocol) or
//   "a1".."c3" (display).
// PassNimGame: a pile of stones; a move takes 1, 2 or 3 stones or passes; the player who cannot
//   move (empty pile) loses; threefold repetition draws (so the side facing a multiple of 4 draws
//   by passing; only a pile of 1 to 3 is a win). Move raw = stones taken (0 = pass); action = raw.
//   Position string: "<pile> <w|b>". Moves: "pass", "1".."3" (protocol) or "p", "t1".."t3"
//   (display).
// CountedTicTacToeGame: TicTacToeGame with a ply counter that, like the move counters of the real
//   games, is left out of the hash, in a Position with padding bytes (as Chad's): two equal
//   positions may differ bytewise, two different ones may share a hash. Position string: the
//   tic-tac-toe string, a space, the counter ("x........ o 1").

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "engine/core/error.h"
#include "engine/core/game.h"
#include "engine/core/zobrist.h"

namespace vz::search_testing {

// What the tiny games share (Derived is the game, CRTP): a move list of `kMoves` moves and one
// action per raw move value (no two moves share one), CountMoves as the generated list's size,
// no check, the stored `hash` as hash and repetition key, the side to move from `side`, and
// ParseMove accepting the protocol or display text of a legal move (vz::Error "illegal <kName>
// move '<text>'" otherwise). A game whose
// Position differs hides the members that do not fit with its own.
template <class Derived, int kMoves>
struct TinyGame {
  static constexpr int kMaxMoves = kMoves;
  using MoveList = vz::MoveList<kMoves>;
  static constexpr int kNumActions = kMoves;
  static constexpr bool kHasCheck = false;
  static constexpr bool kActionsMayCollide = false;

  template <class Position>
  static uint64_t Hash(const Position& p) {
    return p.hash;
  }
  template <class Position>
  static uint64_t RepetitionKey(const Position& p) {
    return p.hash;
  }
  template <class Position>
  static Color SideToMove(const Position& p) {
    return Color(p.side);
  }
  template <class Position>
  static int ActionIndex(const Position&, Move m) {
    return int(m.raw);
  }
  template <class Position>
  static bool InCheck(const Position&) {
    return false;
  }
  template <class Position>
  static int CountMoves(const Position& p) {
    MoveList moves;
    Derived::GenerateMoves(p, moves);
    return moves.size;
  }
  template <class Position>
  static Move ParseMove(const Position& p, std::string_view text) {
    MoveList moves;
    Derived::GenerateMoves(p, moves);
    for (Move m : moves) {
      if (text == Derived::FormatMove(p, m) || text == Derived::FormatDisplayMove(p, m)) return m;
    }
    throw Error("illegal " + std::string(Derived::kName) + " move '" + std::string(text) + "'");
  }
};

struct TicTacToeGame : TinyGame<TicTacToeGame, 9> {
  struct Position {
    uint16_t cells[2] = {0, 0};  // [color] bitmask of occupied cells
    uint8_t side = 0;            // Color to move
    uint8_t padding[3] = {0, 0, 0};
    uint64_t hash = 0;
  };
  static constexpr std::string_view kName = "tic-tac-toe";
  static constexpr bool kHasRepetitionDraw = false;

  static uint64_t Key(int color, int cell) { return SplitMix64(uint64_t(color * 9 + cell + 1)); }
  static constexpr uint64_t kSideKey = 0x5bd1e9955bd1e995ull;

  static bool HasLine(uint16_t mask) {
    static constexpr uint16_t kLines[8] = {0007, 0070, 0700, 0111, 0222, 0444, 0421, 0124};
    for (uint16_t line : kLines) {
      if ((mask & line) == line) return true;
    }
    return false;
  }

  static Position InitialPosition() { return Position{}; }
  static void GenerateMoves(const Position& p, MoveList& moves) {
    moves.Clear();
    if (HasLine(p.cells[0]) || HasLine(p.cells[1])) return;
    const uint16_t occupied = p.cells[0] | p.cells[1];
    for (int cell = 0; cell < 9; ++cell) {
      if (!(occupied >> cell & 1)) moves.Push(Move{uint64_t(cell)});
    }
  }
  static void ApplyMove(Position& p, Move m) {
    p.cells[p.side] |= uint16_t(1u << m.raw);
    p.hash ^= Key(p.side, int(m.raw)) ^ kSideKey;
    p.side ^= 1;
  }
  static Outcome LocalOutcome(const Position& p, int num_legal) {
    if (HasLine(p.cells[0])) return {Status::kWhiteWins, Reason::kNoLegalMove};
    if (HasLine(p.cells[1])) return {Status::kBlackWins, Reason::kNoLegalMove};
    if (num_legal == 0) return {Status::kDraw, Reason::kStalemate};
    return {};
  }
  static uint64_t ComputeHash(const Position& p) {
    uint64_t hash = p.side ? kSideKey : 0;
    for (int color = 0; color < 2; ++color) {
      for (int cell = 0; cell < 9; ++cell) {
        if (p.cells[color] >> cell & 1) hash ^= Key(color, cell);
      }
    }
    return hash;
  }
  static Position ParsePosition(std::string_view text) {
    if (text.size() != 11 || text[9] != ' ' || (text[10] != 'x' && text[10] != 'o')) {
      throw Error("bad tic-tac-toe position '" + std::string(text) + "'");
    }
    Position p;
    for (int cell = 0; cell < 9; ++cell) {
      if (text[cell] == 'x') {
        p.cells[0] |= uint16_t(1u << cell);
      } else if (text[cell] == 'o') {
        p.cells[1] |= uint16_t(1u << cell);
      } else if (text[cell] != '.') {
        throw Error("bad tic-tac-toe cell in '" + std::string(text) + "'");
      }
    }
    p.side = text[10] == 'o';
    p.hash = ComputeHash(p);
    return p;
  }
  static std::string FormatPosition(const Position& p) {
    std::string text;
    for (int cell = 0; cell < 9; ++cell) {
      text += (p.cells[0] >> cell & 1) ? 'x' : (p.cells[1] >> cell & 1) ? 'o' : '.';
    }
    return text + (p.side ? " o" : " x");
  }
  static std::string FormatMove(const Position&, Move m) { return std::to_string(m.raw); }
  static std::string FormatDisplayMove(const Position&, Move m) {
    return std::string(1, char('a' + m.raw % 3)) + char('1' + m.raw / 3);
  }
  static std::string BoardPicture(const Position& p) {
    const std::string text = FormatPosition(p);
    return text.substr(6, 3) + "\n" + text.substr(3, 3) + "\n" + text.substr(0, 3) + "\n";
  }
};

struct PassNimGame : TinyGame<PassNimGame, 4> {
  struct Position {
    uint16_t pile = 0;
    uint8_t side = 0;  // Color to move
    uint8_t padding[5] = {0, 0, 0, 0, 0};
    uint64_t hash = 0;
  };
  static constexpr std::string_view kName = "pass-nim";
  static constexpr bool kHasRepetitionDraw = true;
  static constexpr uint16_t kInitialPile = 21;

  static uint64_t ComputeHashOf(uint16_t pile, uint8_t side) {
    return SplitMix64(uint64_t(pile) * 2 + side + 77);
  }

  static Position Make(uint16_t pile, Color side) {
    Position p;
    p.pile = pile;
    p.side = uint8_t(side);
    p.hash = ComputeHashOf(p.pile, p.side);
    return p;
  }
  static Position InitialPosition() { return Make(kInitialPile, Color::kWhite); }
  static void GenerateMoves(const Position& p, MoveList& moves) {
    moves.Clear();
    if (p.pile == 0) return;
    moves.Push(Move{0});
    for (int take = 1; take <= 3 && take <= p.pile; ++take) moves.Push(Move{uint64_t(take)});
  }
  static void ApplyMove(Position& p, Move m) {
    p.pile = uint16_t(p.pile - m.raw);
    p.side ^= 1;
    p.hash = ComputeHashOf(p.pile, p.side);
  }
  static Outcome LocalOutcome(const Position& p, int num_legal) {
    if (num_legal == 0) return {WinFor(Opponent(Color(p.side))), Reason::kNoLegalMove};
    return {};
  }
  static uint64_t ComputeHash(const Position& p) { return ComputeHashOf(p.pile, p.side); }

  static Position ParsePosition(std::string_view text) {
    const size_t space = text.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 2 != text.size() ||
        (text.back() != 'w' && text.back() != 'b')) {
      throw Error("bad pass-nim position '" + std::string(text) + "'");
    }
    int pile = 0;
    for (size_t i = 0; i < space; ++i) {
      if (text[i] < '0' || text[i] > '9' || pile > 6000) {
        throw Error("bad pass-nim pile in '" + std::string(text) + "'");
      }
      pile = pile * 10 + (text[i] - '0');
    }
    return Make(uint16_t(pile), text.back() == 'w' ? Color::kWhite : Color::kBlack);
  }
  static std::string FormatPosition(const Position& p) {
    return std::to_string(p.pile) + (p.side ? " b" : " w");
  }
  static std::string FormatMove(const Position&, Move m) {
    return m.raw == 0 ? "pass" : std::to_string(m.raw);
  }
  static std::string FormatDisplayMove(const Position&, Move m) {
    return m.raw == 0 ? "p" : "t" + std::to_string(m.raw);
  }
  static std::string BoardPicture(const Position& p) { return FormatPosition(p) + "\n"; }
};

struct CountedTicTacToeGame : TinyGame<CountedTicTacToeGame, TicTacToeGame::kMaxMoves> {
  using Inner = TicTacToeGame;
  struct Position {
    Inner::Position inner;
    uint8_t plies = 0;  // moves played since the start; not hashed; followed by padding bytes
  };
  static_assert(!std::has_unique_object_representations_v<Position>);
  static constexpr std::string_view kName = "counted-tic-tac-toe";
  static constexpr bool kHasRepetitionDraw = false;

  static Position InitialPosition() { return Position{}; }
  static void GenerateMoves(const Position& p, MoveList& moves) {
    Inner::GenerateMoves(p.inner, moves);
  }
  static void ApplyMove(Position& p, Move m) {
    Inner::ApplyMove(p.inner, m);
    ++p.plies;
  }
  static Outcome LocalOutcome(const Position& p, int num_legal) {
    return Inner::LocalOutcome(p.inner, num_legal);
  }
  static uint64_t Hash(const Position& p) { return Inner::Hash(p.inner); }
  static uint64_t ComputeHash(const Position& p) { return Inner::ComputeHash(p.inner); }
  static uint64_t RepetitionKey(const Position& p) { return Inner::RepetitionKey(p.inner); }
  static Color SideToMove(const Position& p) { return Inner::SideToMove(p.inner); }

  static Position ParsePosition(std::string_view text) {
    const size_t space = text.rfind(' ');
    if (space == std::string_view::npos || space + 1 == text.size() ||
        text.substr(space + 1).find_first_not_of("0123456789") != std::string_view::npos ||
        text.size() - space > 4) {
      throw Error("bad counted tic-tac-toe position '" + std::string(text) + "'");
    }
    Position p;
    p.inner = Inner::ParsePosition(text.substr(0, space));
    const int plies = std::stoi(std::string(text.substr(space + 1)));
    if (plies > 255) throw Error("bad counted tic-tac-toe plies in '" + std::string(text) + "'");
    p.plies = uint8_t(plies);
    return p;
  }
  static std::string FormatPosition(const Position& p) {
    return Inner::FormatPosition(p.inner) + " " + std::to_string(p.plies);
  }
  static std::string FormatMove(const Position& p, Move m) { return Inner::FormatMove(p.inner, m); }
  static std::string FormatDisplayMove(const Position& p, Move m) {
    return Inner::FormatDisplayMove(p.inner, m);
  }
  static std::string BoardPicture(const Position& p) { return Inner::BoardPicture(p.inner); }
};

// MisereNimGame: PassNimGame where the player who takes the last stone loses (the side to move
//   at an empty pile wins), so that a move can lose at once.
struct MisereNimGame : PassNimGame {
  static constexpr std::string_view kName = "misere-nim";
  static Outcome LocalOutcome(const Position& p, int num_legal) {
    if (num_legal == 0) return {WinFor(Color(p.side)), Reason::kNoLegalMove};
    return {};
  }
};

static_assert(Game<TicTacToeGame>);
static_assert(Game<PassNimGame>);
static_assert(Game<MisereNimGame>);
static_assert(Game<CountedTicTacToeGame>);

}  // namespace vz::search_testing
