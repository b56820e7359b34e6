#pragma once

// Network input planes and policy index of Chad (see engine/input_encoding.h).
//
// Frame: the board seen from the side to move. For White row = rank - 1 and column = file
// (a = 0); for Black the board is turned half a turn (square s -> 143 - s), so the side to move
// always defends the castle c3-e5 and attacks h8-j10 (the setup is point-symmetric).
//
// Planes, float[12][12][12] ([plane][row][column]):
//   0  own rooks            1 on the square
//   1  own queens
//   2  own king
//   3  opponent's rooks
//   4  opponent's queens
//   5  opponent's king
//   6  own castle           the 9 castle squares (constant in this frame, kept for the rules'
//   7  own wall             zones: promotion, king moves, the two capture conditions)
//   8  opponent's castle
//   9  opponent's wall
//  10  constant 1           every cell
//  11  repetition           1 on every cell if the position occurred before (count >= 2)
// Chad has no move-count rule, so the half-move clock is not an input.
//
// Policy index: ChadGame::ActionIndex, already in the side to move's frame (engine/chad/rules.h).
//
// Convolutional policy layout (PolicyPlane): plane = offset (the 96 move kinds: slide direction
// and distance, knight leap), cell = from square: the action index read as [96][12][12].
//
// Symmetries for augmentation: identity and the reflection in the a1-l12 diagonal
// (file <-> rank). It maps each castle and wall onto itself and the rook, queen, king and knight
// moves onto moves of the same piece; there are no pawns or other directed rules. (A left-right
// mirror is not one: it moves the castles.)

#include "engine/chad/game.h"
#include "engine/input_encoding.h"

namespace vz {

// Shape {planes, height, width}, input id, action id, symmetries (layout above).
inline constexpr EncodingSpec kChadEncoding = {
    {12, 12, 12}, {"chad/planes", 1}, {"chad/from-slide-leap", 1}, 2};

template <>
struct InputEncoding<chad::ChadGame> : EncodingConstants<chad::ChadGame, kChadEncoding> {
  static constexpr int kPolicyPlanes = chad::kActionsPerSquare;

  // Plane numbers (layout above).
  static constexpr int kOwnRooks = 0, kOwnQueens = 1, kOwnKing = 2, kTheirRooks = 3,
                       kTheirQueens = 4, kTheirKing = 5, kOwnCastle = 6, kOwnWall = 7,
                       kTheirCastle = 8, kTheirWall = 9, kOnes = 10, kRepetition = 11;

  // Writes planes[kSize] for `p` (layout above); repetition_count >= 1.
  VZ_HD static void Encode(const Position& p, int repetition_count, float* planes) {
    for (int i = 0; i < kSize; ++i) planes[i] = 0.0f;
    const int us = int(p.side), them = 1 - us;
    const chad::ChadTableSet& t = chad::ChadTables();
    auto put = [&](int plane, const chad::Bitboard& squares) {
      chad::ForEachSquare(
          squares, [&](int s) { planes[plane * kHeight * kWidth + CellOffset(us, s)] = 1.0f; });
    };
    for (int side = 0; side < 2; ++side) {
      const int color = side == 0 ? us : them;
      chad::Bitboard rooks = p.pieces[color].AndNot(p.queens);
      rooks.Clear(p.king[color]);
      put(side * 3 + 0, rooks);
      put(side * 3 + 1, p.pieces[color] & p.queens);
      put(side * 3 + 2, chad::Bitboard::FromSquare(p.king[color]));
      put(kOwnCastle + side * 2, t.castle[color]);
      put(kOwnWall + side * 2, t.wall[color]);
    }
    for (int i = 0; i < kHeight * kWidth; ++i) {
      planes[kOnes * kHeight * kWidth + i] = 1.0f;
      planes[kRepetition * kHeight * kWidth + i] = repetition_count >= 2 ? 1.0f : 0.0f;
    }
  }

  // Writes cells[kHeight * kWidth] (engine/input_encoding.h Occupancy): each square's occupant
  // seen by `view`, in view's frame (Black's turned half a turn, as Encode's).
  VZ_HD static void Occupancy(const Position& p, Color view, uint8_t* cells) {
    for (int i = 0; i < kHeight * kWidth; ++i) cells[i] = kEmptyCell;
    for (int color = 0; color < 2; ++color) {
      const uint8_t value = color == int(view) ? kViewersPiece : kOpponentsPiece;
      chad::ForEachSquare(p.pieces[color], [&](int s) { cells[CellOffset(int(view), s)] = value; });
    }
  }

  // Policy index of legal move `m` of `p` (already in the side to move's frame).
  VZ_HD static int PolicyIndex(const Position& p, Move m) { return chad::ActionIndex(p, m); }

  // Convolutional policy slot of `action` in [0, kNumActions) (layout above).
  VZ_HD static PolicySlot PolicyPlane(int action) {
    return {action % chad::kActionsPerSquare, action / chad::kActionsPerSquare};
  }

  // Symmetry 1 swaps row and column.
  VZ_HD static void SymmetricCell(int symmetry, int row, int column, int& out_row,
                                  int& out_column) {
    out_row = symmetry == 0 ? row : column;
    out_column = symmetry == 0 ? column : row;
  }

  // Image of policy index `action` under `symmetry` (layout in engine/chad/rules.h): the from
  // square is transposed, orthogonal directions N<->E and S<->W swap, diagonal SE<->NW swap,
  // knight leaps (dx, dy) -> (dy, dx).
  VZ_HD static int SymmetricAction(int symmetry, int action) {
    if (symmetry == 0) return action;
    const int from = action / chad::kActionsPerSquare;
    const int offset = action % chad::kActionsPerSquare;
    const int new_from = chad::FileOf(from) * chad::kBoardSize + chad::RankOf(from);
    int new_offset;
    if (offset < 44) {
      constexpr int kOrthogonal[4] = {1, 0, 3, 2};
      new_offset = kOrthogonal[offset / 11] * 11 + offset % 11;
    } else if (offset < 88) {
      constexpr int kDiagonal[4] = {0, 3, 2, 1};
      new_offset = 44 + kDiagonal[(offset - 44) / 11] * 11 + (offset - 44) % 11;
    } else {
      constexpr int kLeap[8] = {1, 0, 7, 6, 5, 4, 3, 2};
      new_offset = 88 + kLeap[offset - 88];
    }
    return new_from * chad::kActionsPerSquare + new_offset;
  }

 private:
  // The grid offset row * 12 + column of square `s` in the frame of `side` (0 White, 1 Black:
  // the board turned half a turn), the frame of Encode and Occupancy.
  VZ_HD static int CellOffset(int side, int s) { return side ? chad::kNumSquares - 1 - s : s; }
};

}  // namespace vz
