#pragma once

// Network input planes and policy index of Cuarenta (see engine/input_encoding.h).
//
// Grid: the 9x9 board with row = rank - 1 and column = file (a = 0); only the 40 light squares
// (file + rank odd, engine/cuarenta/tables.h) are real, and plane 14 marks them.
//
// Frame: the board seen from the side to move. For White as above; for Black turned half a turn
// (square i -> 39 - i, (row, column) -> (8 - row, 8 - column)), so the side to move always
// plays up the board; the setup is point-symmetric.
//
// Planes, float[19][9][9] ([plane][row][column]):
//   0..6   own king, bishops, vaos, guards, camels, frogs, pawns   (PieceType - 1)
//   7..13  opponent's king, bishops, vaos, guards, camels, frogs, pawns
//   14     real square          1 on the 40 light squares
//   15     own castling right   1 on every real square if the side to move may still castle
//   16     opponent's castling right
//   17     forty-move counter   plies without capture or promotion / 80, on every real square
//   18     White to move        1 on every real square when the side to move is White: castling
//                               is not colour-symmetric (White may castle only once Black can no
//                               longer), so the colour is an input
// Cuarenta has no repetition rule: the repetition count is accepted and not encoded.
//
// Policy index: CuarentaGame::ActionIndex, already in the side to move's frame
// (engine/cuarenta/rules.h).
//
// Convolutional policy layout (PolicyPlane): plane = the action's plane (0..71, engine/cuarenta/
// rules.h: direction and distance, leap, promotion), cell = the grid cell of its from square.
//
// Symmetries for augmentation: none besides the identity. The left-right mirror keeps the light
// squares and the piece moves, but not the castling squares (king e2 with camel h1) nor the
// colour rule of castling.

#include "engine/cuarenta/game.h"
#include "engine/input_encoding.h"

namespace vz {

// Shape {planes, height, width}, input id, action id, symmetries (layout above).
inline constexpr EncodingSpec kCuarentaEncoding = {
    {19, 9, 9}, {"cuarenta/planes", 1}, {"cuarenta/from-plane", 1}, 1};

template <>
struct InputEncoding<cuarenta::CuarentaGame>
    : EncodingConstants<cuarenta::CuarentaGame, kCuarentaEncoding> {
  static constexpr int kPolicyPlanes = cuarenta::kNumPlanes;

  // Plane numbers (layout above); kOwnKing: + PieceType - 1 for the own pieces; kTheirKing: +
  // PieceType - 1 for the opponent's pieces.
  static constexpr int kOwnKing = 0, kTheirKing = 7, kRealSquares = 14, kOwnCastling = 15,
                       kTheirCastling = 16, kFortyMove = 17, kWhiteToMove = 18;

  // Writes planes[kSize] for `p` (layout above); repetition_count is ignored.
  VZ_HD static void Encode(const Position& p, int /*repetition_count*/, float* planes) {
    for (int i = 0; i < kSize; ++i) planes[i] = 0.0f;
    constexpr int kArea = kHeight * kWidth;
    const int us = p.side_to_move, them = 1 - us;
    const float own_castling = (p.castling >> us) & 1 ? 1.0f : 0.0f;
    const float their_castling = (p.castling >> them) & 1 ? 1.0f : 0.0f;
    const float forty = float(p.forty_count) / float(cuarenta::kFortyMovePlies);
    const float white = us == 0 ? 1.0f : 0.0f;
    for (int square = 0; square < cuarenta::kNumSquares; ++square) {
      const int offset = CellOffset(us, square);
      planes[kRealSquares * kArea + offset] = 1.0f;
      planes[kOwnCastling * kArea + offset] = own_castling;
      planes[kTheirCastling * kArea + offset] = their_castling;
      planes[kFortyMove * kArea + offset] = forty;
      planes[kWhiteToMove * kArea + offset] = white;
      const uint8_t piece = p.board[square];
      if (!piece) continue;
      const int base = cuarenta::PieceColor(piece) == us ? kOwnKing : kTheirKing;
      planes[(base + cuarenta::PieceTypeOf(piece) - 1) * kArea + offset] = 1.0f;
    }
  }

  // Writes cells[kHeight * kWidth] (engine/input_encoding.h Occupancy): each square's occupant
  // seen by `view`, in view's frame (Black's rotated, as Encode's).
  VZ_HD static void Occupancy(const Position& p, Color view, uint8_t* cells) {
    for (int i = 0; i < kHeight * kWidth; ++i) cells[i] = kEmptyCell;
    const int us = int(view);
    for (int square = 0; square < cuarenta::kNumSquares; ++square) {
      const uint8_t piece = p.board[square];
      if (!piece) continue;
      cells[CellOffset(us, square)] =
          cuarenta::PieceColor(piece) == us ? kViewersPiece : kOpponentsPiece;
    }
  }

  // Policy index of legal move `m` of `p` (already in the side to move's frame).
  VZ_HD static int PolicyIndex(const Position& p, Move m) { return cuarenta::ActionIndex(p, m); }

  // Convolutional policy slot of `action` in [0, kNumActions) (layout above).
  VZ_HD static PolicySlot PolicyPlane(int action) {
    const int from = action / cuarenta::kNumPlanes;
    return {action % cuarenta::kNumPlanes,
            cuarenta::RankOf(from) * kWidth + cuarenta::FileOf(from)};
  }

  VZ_HD static void SymmetricCell(int, int row, int column, int& out_row, int& out_column) {
    out_row = row;
    out_column = column;
  }
  VZ_HD static int SymmetricAction(int, int action) { return action; }

 private:
  // The grid offset rank * kWidth + file of `square` in the frame of `side` (0 White, 1 Black:
  // the board rotated), the frame of Encode and Occupancy.
  VZ_HD static int CellOffset(int side, int square) {
    const int seen = side ? cuarenta::Rotate(square) : square;
    return cuarenta::RankOf(seen) * kWidth + cuarenta::FileOf(seen);
  }
};

}  // namespace vz
