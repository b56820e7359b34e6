// Piece counting (research/pieces.h) and board diagrams (research/board_svg.h) over every game:
// over random games, captures and promotions account for every change of the piece counts, and a
// diagram shows one disc per piece.

#include <gtest/gtest.h>

#include "engine/core/zobrist.h"
#include "research/board_svg.h"
#include "research/pieces.h"
#include "tests/engine/game_types.h"

namespace vz::research {
namespace {

template <class G>
class ResearchPiecesTest : public ::testing::Test {};
TYPED_TEST_SUITE(ResearchPiecesTest, testing::AllGameTypes, testing::GameNames);

TYPED_TEST(ResearchPiecesTest, CapturesAndPromotionsAccountForEveryCountChange) {
  using G = TypeParam;
  using T = PieceTraits<G>;
  ASSERT_LE(T::kKinds, kMaxPieceKinds);
  for (int kind = 1; kind < T::kKinds; ++kind) {
    EXPECT_GE(T::Baseline(kind), T::Baseline(0)) << "kind 0 must be the weakest";
  }
  uint64_t state = 17;
  int64_t captures = 0;
  for (int game = 0; game < 30; ++game) {
    typename G::Position p = G::InitialPosition();
    const PieceCounts start = T::Count(p);
    PieceCounts expected = start;
    for (int ply = 0; ply < 300; ++ply) {
      typename G::MoveList moves;
      G::GenerateMoves(p, moves);
      if (moves.size == 0 || G::LocalOutcome(p, moves.size).IsTerminal()) break;
      const int mover = G::SideToMove(p) == Color::kWhite ? 0 : 1;
      const PieceCounts before = T::Count(p);
      state = SplitMix64(state);
      G::ApplyMove(p, moves[int(state % uint64_t(moves.size))]);
      const PieceCounts after = T::Count(p);
      const PlyMaterial change = MaterialChange<G>(before, after, mover);
      int promotions = 0;
      for (int kind = 0; kind < T::kKinds; ++kind) {
        expected.count[1 - mover][kind] -= change.captured[size_t(kind)];
        expected.count[mover][kind] += change.promoted[size_t(kind)];
        promotions += change.promoted[size_t(kind)];
        captures += change.captured[size_t(kind)];
      }
      expected.count[mover][T::kPromotedFrom] -= promotions;
      ASSERT_EQ(expected, after) << "game " << game << " ply " << ply;
    }
  }
  EXPECT_GT(captures, 0);
}

TYPED_TEST(ResearchPiecesTest, DiagramShowsEveryPiece) {
  using G = TypeParam;
  const typename G::Position start = G::InitialPosition();
  const PieceCounts counts = PieceTraits<G>::Count(start);
  int pieces = 0;
  for (int color = 0; color < 2; ++color) {
    for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) pieces += counts.count[color][kind];
  }
  const std::vector<DiagramCell> cells = DiagramCells<G>(start);
  int discs = 0, kings = 0;
  for (const DiagramCell& cell : cells) {
    discs += cell.owner >= 0;
    kings += cell.owner >= 0 && cell.glyph == "K";
  }
  // Chess-like games draw the two kings, which PieceCounts leaves out.
  EXPECT_EQ(discs - (std::string_view(G::kName) == "portuguese-draughts" ? 0 : kings), pieces);
  const std::string svg = BoardSvg<G>(start, "start <position>");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("start &lt;position&gt;"), std::string::npos);
  // A move outlines the cells it changed.
  typename G::MoveList moves;
  G::GenerateMoves(start, moves);
  typename G::Position next = start;
  G::ApplyMove(next, moves[0]);
  const std::string moved = BoardSvg<G>(next, "", &start);
  EXPECT_NE(moved.find("#d62728"), std::string::npos);
}

}  // namespace
}  // namespace vz::research
