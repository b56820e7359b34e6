#pragma once

// Host-only text I/O for Portuguese draughts: PDN FEN position strings, move strings and the ASCII
// board. Every parser throws vz::Error with a one-line message naming the input and the fault.
//
// Position string (PDN FEN): `<side>:W<pieces>:B<pieces>[:H<plies>][:T<moves>]`, side `W` or `B`,
// pieces a comma-separated list of square numbers 1-32 in any order, a king prefixed with `K`
// (`K5`), a run of men also as a range (`1-12`); a colour's list may be empty (`W:W:B5`).
// `:H` is the twenty-move count (plies since the last man move or capture), `:T` the stronger
// side's moves under three kings against one; each is written only when nonzero.
// Start: `W:W1,2,3,4,5,6,7,8,9,10,11,12:B21,22,23,24,25,26,27,28,29,30,31,32`.
//
// Moves: `11-15` (plain), `15x22` (capture, start and final square). When two legal captures
// share both squares, FormatMove writes every landing square, `6x15x24`; when a king could take
// the same pieces along several landing paths it writes the path whose list of landing squares is
// smallest (lexicographically, comparing square numbers). ParseMove reads both forms, any valid
// landing path included. The display form is the protocol form (PDN uses this notation).

#include <string>
#include <string_view>
#include <vector>

#include "engine/core/types.h"
#include "engine/draughts/rules.h"

namespace vz::draughts {

// Parses a position string. Throws vz::Error on bad syntax, a square outside 1-32, a square
// given twice, more than 12 pieces a side, a White man on 29-32, a Black man on 1-4, a missing or
// repeated field, a counter outside 0..9999, or :T without three kings against one king.
Position ParsePosition(std::string_view text);

// The position string of `p` (counters written only when nonzero).
std::string FormatPosition(const Position& p);

// The protocol form of `move`, which must be legal in `p` (short unless another legal capture
// has the same start and final squares).
std::string FormatMove(const Position& p, Move move);

// Square numbers (1-32) of the capture path of `move` in `p`: the start square, then each landing
// square; of several paths, the numerically smallest list. {from, to} for a plain move.
std::vector<int> CapturePath(const Position& p, Move move);

// Every landing path of `move` in `p` (square numbers, start first), in increasing order.
std::vector<std::vector<int>> CapturePaths(const Position& p, Move move);

// Parses `text` in short or long form and returns the legal move it names. Throws vz::Error on
// bad syntax or an unknown square, on an illegal move (listing the legal moves) and on a short
// form that fits several legal moves (listing the candidates).
Move ParseMove(const Position& p, std::string_view text);

// Every legal move of `p` in protocol form, separated by spaces ("(none)" when there is none).
std::string LegalMovesText(const Position& p);

// 8x8 picture from White's side: `w`/`b` men, `W`/`B` kings, `.` empty dark squares, blanks for
// light squares, rank digits and file letters, and each rank's square numbers on the right.
std::string BoardPicture(const Position& p);

}  // namespace vz::draughts
