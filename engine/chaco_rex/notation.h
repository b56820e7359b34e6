#pragma once

// Host-only text I/O for Chaco Rex: cell names, position strings, moves in protocol and display
// form, and the hex board picture. Every parser throws vz::Error with a one-line message that
// quotes the input and says what is wrong; nothing here is used by the device rule core.

#include <string>
#include <string_view>

#include "engine/chaco_rex/position.h"
#include "engine/core/types.h"

namespace vz::chaco_rex {

// "h5", "t8", ... for a cell index 0..84.
std::string CellName(int cell);

// The cell named `text` (file letter a..t without k, rank digit 1..9, x + y even). Throws
// vz::Error naming `text` (bad file such as `k`, bad rank, or a file that has no cell on that
// rank).
int ParseCell(std::string_view text);

// Parses a position string: ranks 9..1 separated by '/', each rank left to right with piece
// letters KQRBNP (White) / kqrbnp (Black) and counts of empty cells (1..10); then side to move
// (w/b), en-passant cell or '-', half-move clock, move number. Throws vz::Error quoting `text` and
// naming the failed condition: syntax (field count, rank count, rank length naming the rank,
// unknown piece letter, bad cell, bad number) or validity (exactly one king per side, no pawn on
// rank 1 or 9, at most 15 pawns and no more promoted pieces than missing pawns per side, the side
// not to move not in check, an en-passant cell only where the last move could have been that
// double step).
Position ParsePosition(std::string_view text);

// The position string of `p` (the inverse of ParsePosition).
std::string FormatPosition(const Position& p);

// Empty if `p` satisfies the validity conditions listed at ParsePosition, else a message
// naming the first condition that fails.
std::string ValidityProblem(const Position& p);

// Protocol form: from cell, to cell, promotion letter q/r/b/n in lower case ("h3i4", "a8b9q").
std::string FormatMove(const Position& p, Move m);

// Display form of the original articles: piece letter (R king, D queen, T rook, B bishop,
// C knight, none for a pawn), from, '-' or 'x' (en passant: 'x'), to, "=D"/"=T"/"=B"/"=C" for a
// promotion, '+' for check, "++" for mate ("Cq1-p4", "m5xn6", "a8-b9=D", "Dh1-h9++").
std::string FormatDisplayMove(const Position& p, Move m);

// The legal move of `p` written as `text` in protocol or display form. A display move's claims
// are checked: a missing '+'/"++" is accepted (and '+' on a mate), but a wrong piece letter, 'x'
// on a move that captures nothing, '-' on a capture, '+' without check or "++" without mate throws
// vz::Error saying so. An illegal or malformed move throws vz::Error quoting `text` and listing
// the legal moves.
Move ParseMove(const Position& p, std::string_view text);

// ASCII picture in the hex layout of the rules page: ranks 9..1, each cell in the column of its
// file (odd ranks shifted by one), '.' for an empty cell, the rank number on the left and the
// file letters "abcdefghijlmnopqrst" under the board. Lines end in '\n'.
std::string BoardPicture(const Position& p);

}  // namespace vz::chaco_rex
