#pragma once

// Host-only text I/O for Cuarenta: square names, position strings, moves in protocol and display
// form, and the board picture. Every parser throws vz::Error with a one-line message that names the
// input and the fault (a dark square is named as such).

#include <string>
#include <string_view>

#include "engine/core/error.h"
#include "engine/core/types.h"
#include "engine/cuarenta/rules.h"

namespace vz::cuarenta {

inline constexpr const char* kStartPosition = "cffb/vgkgv/pppp/5/4/5/PPPP/VGKGV/BFFC w wb 0 1";

// "b1" .. "h9" for square 0..39.
std::string SquareName(int square);

// Square 0..39 named by `text` ("e2"). Throws vz::Error for a malformed name, a square off the
// board or a dark square; `context` (the whole input) is quoted in the message.
int ParseSquare(std::string_view text, std::string_view context);

// Parses the position string `cffb/vgkgv/pppp/5/4/5/PPPP/VGKGV/BFFC w wb 0 1`: ranks 9 to 1 listing
// only existing squares (4 on odd ranks, 5 on even ranks), side to move (w/b), castling rights
// (w, b, wb or -), forty-move count in plies, move number (>= 1). Checks: exactly one king per
// side, at most 13 pieces and 4 pawns per side (no move adds material), no pawn on its own first
// rank, castling rights only with king and camel on their start squares, side not to move not in
// check. Throws vz::Error naming the string and the failed condition.
Position ParsePosition(std::string_view text);

// The position string of p (round-trips through ParsePosition).
std::string FormatPosition(const Position& p);

// Protocol form: `d1g4`, `h7g8c` (promotion letter c f g v b), `d9d9f` (in place), `e2h1`
// (castling). `move` must be legal in p.
std::string FormatMove(const Position& p, Move move);

// Display form: `Fd1-d5`, `Vi2xc8`, `h7-g8=C`, `d9=F`, `Ke2-h1`, with `+` / `#` for check / mate.
std::string FormatDisplayMove(const Position& p, Move move);

// Reads either form and returns the legal move it names. In display form the piece letter, the
// `-`/`x` separator and any `+`/`#` claim must be right (a missing claim is accepted). Throws
// vz::Error for malformed text, a dark square, a wrong claim, or a move that is not legal (the
// message lists the legal moves).
Move ParseMove(const Position& p, std::string_view text);

// The 9x9 grid with rank and file labels; existing squares show a piece letter or '.', dark
// squares stay blank. Lines end in '\n'.
std::string BoardPicture(const Position& p);

}  // namespace vz::cuarenta
