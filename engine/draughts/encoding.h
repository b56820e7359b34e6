#pragma once

// Network input planes and policy index of Portuguese draughts (see engine/input_encoding.h).
//
// Frame: the board seen from the side to move. For White the grid is the board as drawn in
// engine/draughts/tables.h with row = rank - 1 and column = file (a = 0); for Black it is turned
// half a turn (row -> 7 - row, column -> 7 - column, i.e. square bit s -> 31 - s), so the side to
// move always plays up the board from row 0. Setup and rules are point-symmetric, so a position
// and its half-turned colour swap are the same position for the player to move.
//
// Planes, float[8][8][8] ([plane][row][column]); light squares are 0 in piece planes:
//   0  own men              1 on the square
//   1  own kings
//   2  opponent's men
//   3  opponent's kings
//   4  constant 1           every cell (lets the convolutions find the board edge)
//   5  twenty-move counter  plies without man move or capture / 40, every cell
//   6  three-kings counter  stronger side's moves under three kings against one / 12, every cell
//   7  repetition           1 on every cell if the position occurred before (count >= 2)
//
// Policy index: the game's from * 32 + to with both squares in the side to move's frame, i.e.
// DraughtsGame::ActionIndex for White and 1023 - ActionIndex for Black (31 - s on both squares).
// Captures with equal start and end squares keep sharing one index.
//
// Convolutional policy layout (PolicyPlane): cell = the from square's grid cell, plane = the
// displacement (d_row, d_column) from the from to the to square, both in [-7, 7] with an even
// sum (dark squares), numbered ((d_row + 7) * 15 + d_column + 7) / 2: 113 planes, plane 56 the
// capture that ends on its start square.
//
// Symmetries for augmentation: none besides the identity. A left-right mirror moves the dark
// squares onto light ones, a diagonal reflection turns forward into sideways; the half-turn with
// the colour swap is already the frame.

#include "engine/draughts/game.h"
#include "engine/input_encoding.h"

namespace vz {

// Shape {planes, height, width}, input id, action id, symmetries (layout above).
inline constexpr EncodingSpec kDraughtsEncoding = {
    {8, 8, 8}, {"portuguese-draughts/planes", 1}, {"portuguese-draughts/from-to", 1}, 1};

template <>
struct InputEncoding<draughts::DraughtsGame>
    : EncodingConstants<draughts::DraughtsGame, kDraughtsEncoding> {
  static constexpr int kPolicyPlanes = (15 * 15 + 1) / 2;

  // Plane numbers (layout above).
  static constexpr int kOwnMen = 0, kOwnKings = 1, kTheirMen = 2, kTheirKings = 3, kOnes = 4,
                       kTwentyMove = 5, kThreeKings = 6, kRepetition = 7;

  // Writes planes[kSize] for `p` (layout above); repetition_count >= 1.
  VZ_HD static void Encode(const Position& p, int repetition_count, float* planes) {
    for (int i = 0; i < kSize; ++i) planes[i] = 0.0f;
    const bool black = p.side_to_move == Color::kBlack;
    const uint32_t us = black ? p.black : p.white;
    for (uint32_t b = p.white | p.black; b; b &= b - 1) {
      const int s = draughts::LowestBit(b);
      const bool king = (p.kings >> s) & 1;
      const int plane =
          ((us >> s) & 1) ? (king ? kOwnKings : kOwnMen) : (king ? kTheirKings : kTheirMen);
      planes[plane * kHeight * kWidth + CellOffset(black, s)] = 1.0f;
    }
    Fill(planes, kOnes, 1.0f);
    Fill(planes, kTwentyMove, float(p.twenty_move_plies) / float(draughts::kTwentyMovePlies));
    Fill(planes, kThreeKings, float(p.three_kings_moves) / float(draughts::kThreeKingsMoves));
    Fill(planes, kRepetition, repetition_count >= 2 ? 1.0f : 0.0f);
  }

  // Writes cells[kHeight * kWidth] (engine/input_encoding.h Occupancy): each square's occupant
  // seen by `view`, in view's frame (Black's turned half a turn, as Encode's).
  VZ_HD static void Occupancy(const Position& p, Color view, uint8_t* cells) {
    for (int i = 0; i < kHeight * kWidth; ++i) cells[i] = kEmptyCell;
    const bool black = view == Color::kBlack;
    const uint32_t viewers = black ? p.black : p.white;
    for (uint32_t b = p.white | p.black; b; b &= b - 1) {
      const int s = draughts::LowestBit(b);
      cells[CellOffset(black, s)] = ((viewers >> s) & 1) ? kViewersPiece : kOpponentsPiece;
    }
  }

  // Policy index of legal move `m` of `p` in the side to move's frame, in [0, 1024).
  VZ_HD static int PolicyIndex(const Position& p, Move m) { return draughts::ActionIndex(p, m); }

  // Convolutional policy slot of `action` in [0, kNumActions) (layout above).
  VZ_HD static PolicySlot PolicyPlane(int action) {
    const int from = action / draughts::kNumSquares, to = action % draughts::kNumSquares;
    const int row = draughts::RowOf(from), column = draughts::ColumnOf(from);
    const int d_row = draughts::RowOf(to) - row, d_column = draughts::ColumnOf(to) - column;
    return {((d_row + 7) * 15 + d_column + 7) / 2, row * kWidth + column};
  }

  VZ_HD static void SymmetricCell(int, int row, int column, int& out_row, int& out_column) {
    out_row = row;
    out_column = column;
  }
  VZ_HD static int SymmetricAction(int, int action) { return action; }

 private:
  // The grid offset row * kWidth + column of square bit `s` in Black's frame (turned half a turn:
  // s -> 31 - s) when `black`, else White's: the frame of Encode and Occupancy.
  VZ_HD static int CellOffset(bool black, int s) {
    const int seen = black ? 31 - s : s;
    return draughts::RowOf(seen) * kWidth + draughts::ColumnOf(seen);
  }
  VZ_HD static void Fill(float* planes, int plane, float value) {
    for (int i = 0; i < kHeight * kWidth; ++i) planes[plane * kHeight * kWidth + i] = value;
  }
};

}  // namespace vz
