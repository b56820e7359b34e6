#pragma once

// Host-only text I/O for Chad: position strings, squares, moves in protocol and display form,
// and the board picture. Every parser throws vz::Error with a one-line message that quotes the
// input and names the fault; none of them crashes on any input.

#include <string>
#include <string_view>

#include "engine/chad/rules.h"
#include "engine/core/types.h"

namespace vz::chad {

// The start position string.
inline constexpr std::string_view kStartPosition =
    "12/12/7rrr2/7rkr2/7rrr2/12/12/2RRR7/2RKR7/2RRR7/12/12 w 0 1";

// "d4", "l12" for square 0..143.
std::string SquareName(int square);

// Parses a position string: ranks 12..1 separated by '/', files a..l within a rank, digits
// 1..12 counting empty squares, K Q R (White) and k q r (Black); then the side to move (w/b),
// the half-move count since the last capture or promotion (0..1000000) and the move number
// (1..1000000). Validity: exactly one king per side, each inside its own castle, at most 8 rooks
// and queens a side, no rook inside the enemy castle (it would have promoted), the side not to
// move not in check. Throws vz::Error naming the first failed condition.
Position ParsePosition(std::string_view text);

// Inverse of ParsePosition.
std::string FormatPosition(const Position& position);

// Parses a move of `position` in protocol form (`c5c11`, optional trailing `q` on a promoting
// move only) or display form (`Rc5-c11`, `Rg9xh9=Q`, `Kd4xc5`, `Qh10-h12#`; a missing `+`/`#`
// or `=Q` is accepted, a wrong piece letter, separator, promotion, check or mate claim is an
// error). Throws vz::Error if the text is malformed or the move is not legal (listing the legal
// moves).
Move ParseMove(const Position& position, std::string_view text);

// Protocol form of legal move `move`: from and to squares, no promotion suffix.
std::string FormatMove(const Position& position, Move move);

// Display form of legal move `move`: piece letter, from, '-' or 'x', to, "=Q" on promotion,
// '+' on check, '#' on checkmate.
std::string FormatDisplayMove(const Position& position, Move move);

// ASCII board, ranks 12..1 top to bottom, files a..l, followed by a legend line. Pieces show as
// K Q R / k q r; an empty wall square as W (White's wall) or w (Black's wall); an empty castle
// square as C (White's castle) or c (Black's castle); any other empty square as '.'.
std::string BoardPicture(const Position& position);

}  // namespace vz::chad
