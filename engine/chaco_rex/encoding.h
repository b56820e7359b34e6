#pragma once

// Network input planes and policy index of Chaco Rex (see engine/input_encoding.h).
//
// Grid: the 85 hexagons on a 9 x 19 rectangle, row = rank - 1, column = file index x (a = 0 ..
// t = 18, no k); cell (x, y) exists when x + y is even, and plane 12 marks those cells (the
// other 86 grid points are always 0 in every piece plane). Hexagons that touch along an edge are
// (+-2, 0) and (+-1, +-1) apart on this grid, so 3x3 convolutions see every neighbour.
//
// Frame: the board seen from the side to move. For White as above; for Black mirrored across the
// middle rank (x, y) -> (x, 10 - y) — a mirror, not a half-turn, because both kings start on file
// m (m1, m9): the setup is symmetric under this reflection, so Black's position looks like
// White's.
//
// Planes, float[15][9][19] ([plane][row][column]):
//   0..5   own pawns, knights, bishops, rooks, queens, king
//   6..11  opponent's pawns, knights, bishops, rooks, queens, king
//   12     real cell            1 on the 85 hexagons
//   13     en-passant cell      1 on the cell passed over by the last double step, if any
//   14     repetition           1 on every real cell if the position occurred before (count >= 2)
// There is no move-count rule (the half-move clock is only recorded), so it is not an input.
//
// Policy index: ChacoRexGame::ActionIndex, already in the side to move's (mirrored) frame
// (engine/chaco_rex/rules.h).
//
// Convolutional policy layout (PolicyPlane): cell = the grid cell of the from hexagon; plane =
// the displacement (dy, dx) to the to hexagon, dy in [-8, 8], dx in [-18, 18] with an even sum,
// numbered ((dy + 8) * 37 + dx + 18) / 2 (315 planes: every slide, leap and pawn move has one),
// and for an under-promotion 315 + right * 3 + k (layout in engine/chaco_rex/rules.h).
//
// Symmetries for augmentation: identity and the left-right mirror x -> 18 - x. It keeps the
// hexagons, maps every piece's steps, slides and leaps and the pawns' forward, double-step and
// en-passant moves onto themselves; there is no castling. The start position is not mirror
// symmetric (king m1, queen h1), but the rules are, which is what augmentation needs.

#include "engine/chaco_rex/game.h"
#include "engine/input_encoding.h"

namespace vz {

// Shape {planes, height, width}, input id, action id, symmetries (layout above).
inline constexpr EncodingSpec kChacoRexEncoding = {{15, chaco_rex::kNumRanks, chaco_rex::kNumFiles},
                                                   {"chaco-rex/planes", 1},
                                                   {"chaco-rex/from-to-underpromotion", 1},
                                                   2};

template <>
struct InputEncoding<chaco_rex::ChacoRexGame>
    : EncodingConstants<chaco_rex::ChacoRexGame, kChacoRexEncoding> {
  static constexpr int kDisplacementPlanes = (17 * 37 + 1) / 2;
  static constexpr int kPolicyPlanes = kDisplacementPlanes + 2 * 3;

  // Plane numbers (layout above); kOwnPawns: + type - 1 for the own pieces; kTheirPawns: + type - 1
  // for the opponent's pieces.
  static constexpr int kOwnPawns = 0, kTheirPawns = 6, kRealCells = 12, kEnPassant = 13,
                       kRepetition = 14;

  // Writes planes[kSize] for `p` (layout above); repetition_count >= 1.
  VZ_HD static void Encode(const Position& p, int repetition_count, float* planes) {
    for (int i = 0; i < kSize; ++i) planes[i] = 0.0f;
    const int us = p.side_to_move;
    const float repeated = repetition_count >= 2 ? 1.0f : 0.0f;
    for (int cell = 0; cell < chaco_rex::kNumCells; ++cell) {
      const int offset = CellOffset(us, cell);
      planes[kRealCells * kHeight * kWidth + offset] = 1.0f;
      planes[kRepetition * kHeight * kWidth + offset] = repeated;
      const uint8_t piece = p.board[cell];
      if (!piece) continue;
      const int base = chaco_rex::PieceColorOf(piece) == us ? kOwnPawns : kTheirPawns;
      planes[(base + chaco_rex::PieceTypeOf(piece) - 1) * kHeight * kWidth + offset] = 1.0f;
    }
    if (p.en_passant_cell >= 0) {
      planes[kEnPassant * kHeight * kWidth + CellOffset(us, p.en_passant_cell)] = 1.0f;
    }
  }

  // Writes cells[kHeight * kWidth] (engine/input_encoding.h Occupancy): each hexagon's occupant
  // seen by `view`, in view's frame.
  VZ_HD static void Occupancy(const Position& p, Color view, uint8_t* cells) {
    for (int i = 0; i < kHeight * kWidth; ++i) cells[i] = kEmptyCell;
    for (int cell = 0; cell < chaco_rex::kNumCells; ++cell) {
      const uint8_t piece = p.board[cell];
      if (!piece) continue;
      cells[CellOffset(int(view), cell)] =
          chaco_rex::PieceColorOf(piece) == int(view) ? kViewersPiece : kOpponentsPiece;
    }
  }

  // Policy index of legal move `m` of `p` (already in the side to move's frame).
  VZ_HD static int PolicyIndex(const Position& p, Move m) { return chaco_rex::ActionIndex(p, m); }

  // Convolutional policy slot of `action` in [0, kNumActions) (layout above).
  VZ_HD static PolicySlot PolicyPlane(int action) {
    constexpr int kCells = chaco_rex::kNumCells;
    const chaco_rex::Geometry& g = chaco_rex::CellGeometry();
    if (action < kCells * kCells) {
      const int from = action / kCells, to = action % kCells;
      const int dy = g.y[to] - g.y[from], dx = g.x[to] - g.x[from];
      return {((dy + 8) * 37 + dx + 18) / 2, (g.y[from] - 1) * kWidth + g.x[from]};
    }
    const int rest = action - kCells * kCells;
    const int from = chaco_rex::kFirstCellOfRank8 + rest / 6;
    return {kDisplacementPlanes + rest % 6, (g.y[from] - 1) * kWidth + g.x[from]};
  }

  // Symmetry 1 mirrors the columns (x -> 18 - x).
  VZ_HD static void SymmetricCell(int symmetry, int row, int column, int& out_row,
                                  int& out_column) {
    out_row = row;
    out_column = symmetry == 0 ? column : kWidth - 1 - column;
  }

  // Image of policy index `action` under `symmetry` (layout in engine/chaco_rex/rules.h): both
  // cells mirrored; an under-promotion's slot s on rank 8 becomes 9 - s and its side flips.
  VZ_HD static int SymmetricAction(int symmetry, int action) {
    if (symmetry == 0) return action;
    constexpr int kCells = chaco_rex::kNumCells;
    if (action < kCells * kCells) {
      return MirrorCell(action / kCells) * kCells + MirrorCell(action % kCells);
    }
    const int rest = action - kCells * kCells;
    const int k = rest % 3, right = (rest / 3) % 2, slot = rest / 6;
    return kCells * kCells + ((9 - slot) * 2 + (1 - right)) * 3 + k;
  }

 private:
  // The grid offset row * kWidth + column of `cell` in the frame of `side` (0 White, 1 Black).
  VZ_HD static int CellOffset(int side, int cell) {
    const chaco_rex::Geometry& g = chaco_rex::CellGeometry();
    const int y = side ? 10 - g.y[cell] : g.y[cell];
    return (y - 1) * kWidth + g.x[cell];
  }
  VZ_HD static int MirrorCell(int cell) {
    const chaco_rex::Geometry& g = chaco_rex::CellGeometry();
    return chaco_rex::CellIndex(chaco_rex::kNumFiles - 1 - g.x[cell], g.y[cell]);
  }
};

}  // namespace vz
