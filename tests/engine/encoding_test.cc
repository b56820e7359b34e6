// The input encodings and policy indices of every game (engine/<game>/encoding.h, gathered by
// engine/encodings.h), typed over engine/games.h like the conformance suite: the properties every
// encoding owes (every entry written, the policy index is the game's action index, symmetries
// permute the indices and map planes and legal moves), then each game's plane layout checked on
// hand-placed positions listed per game in EncodingCases<G>.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/encodings.h"
#include "engine/games.h"
#include "engine/piece_types.h"
#include "tests/engine/game_types.h"
#include "tests/test_util.h"

namespace vz {
namespace {

using testing::EncodePlanes;
using testing::PlaneAt;
using testing::PlaneSum;

// One expected entry planes[plane][row][column] (sum: the sum over the whole plane instead) of
// position `fen` seen `repetitions` times; `what` says where the piece stands on the board.
struct PlaneCase {
  std::string fen;
  int repetitions = 1;
  int plane = 0;
  int row = -1;  // -1: the case is about PlaneSum(plane)
  int column = -1;
  float value = 0;
  const char* what = "";
};

// Two positions whose planes are equal (the side to move's frame makes them look the same).
struct SamePlanesCase {
  std::string a;
  std::string b;
};

// The policy index of a move written in protocol form.
struct MoveIndexCase {
  std::string fen;
  std::string move;
  int index = 0;
};

// `fen` with the side-to-move field "w" turned to "b".
std::string BlackToMove(std::string fen) {
  const size_t at = fen.find(" w ");
  if (at != std::string::npos) fen[at + 1] = 'b';
  return fen;
}

template <class G>
std::string StartFen() {
  return G::FormatPosition(G::InitialPosition());
}

// Per game: the plane facts, and for each non-identity symmetry s (1..kNumSymmetries-1) the
// image of a position under s; ColourSwap, where the game has one, turns the board half a turn
// and swaps the colours and the side to move (a position that must look the same).
template <class G>
struct EncodingCases;

template <>
struct EncodingCases<chaco_rex::ChacoRexGame> {
  using G = chaco_rex::ChacoRexGame;
  using E = InputEncoding<G>;
  static constexpr bool kHasColourSwap = false;
  // The opponent's piece planes start here (the own pieces' are the planes before).
  static constexpr int kTheirPieces = E::kTheirPawns;
  static G::Position WithSideToMove(G::Position p, Color side) {
    p.side_to_move = uint8_t(side);
    return p;
  }

  static std::vector<PlaneCase> Planes() {
    using namespace chaco_rex;
    const std::string start = StartFen<G>();
    // Black king m9, White king m1, a White pawn that just double-stepped c2-e4 (passed d3) and a
    // Black pawn on f5 (x 5, y 5); Black to move.
    const std::string en_passant = "5k3/10/9/10/2p6/2P7/9/10/5K3 b d3 0 1";
    return {
        {start, 1, E::kOwnPawns + kKing - 1, 0, 11, 1, "m1"},
        {start, 1, E::kOwnPawns + kQueen - 1, 0, 7, 1, "h1"},
        {start, 1, E::kTheirPawns + kKing - 1, 8, 11, 1, "m9"},
        {start, 1, E::kOwnPawns, -1, -1, 15, "15 pawns"},
        {start, 1, E::kRealCells, -1, -1, 85, "85 cells"},
        {start, 1, E::kRealCells, 0, 1, 1, "b1 exists"},
        {start, 1, E::kRealCells, 0, 0, 0, "no a1"},
        {start, 1, E::kEnPassant, -1, -1, 0, "no en-passant cell"},
        {en_passant, 2, E::kOwnPawns + kKing - 1, 0, 11, 1, "m9 -> m1"},
        {en_passant, 2, E::kTheirPawns + kKing - 1, 8, 11, 1, "m1 -> m9"},
        {en_passant, 2, E::kOwnPawns, 4, 5, 1, "f5 stays on rank 5"},
        {en_passant, 2, E::kTheirPawns, 5, 4, 1, "e4 -> e6"},
        {en_passant, 2, E::kEnPassant, 6, 3, 1, "d3 -> d7"},
        {en_passant, 2, E::kEnPassant, -1, -1, 1, "one en-passant cell"},
        {en_passant, 2, E::kRepetition, -1, -1, 85, "seen twice"},
    };
  }
  // The setup is mirror-symmetric across rank 5.
  static std::vector<SamePlanesCase> SamePlanes() {
    return {{StartFen<G>(), BlackToMove(StartFen<G>())}};
  }
  static std::vector<MoveIndexCase> MoveIndices() { return {}; }

  // Symmetry 1: the position mirrored left-right (x -> 18 - x).
  static G::Position Image(int /*symmetry*/, const G::Position& p) {
    using namespace chaco_rex;
    const Geometry& g = CellGeometry();
    auto mirror = [&](int cell) { return CellIndex(kNumFiles - 1 - g.x[cell], g.y[cell]); };
    Position q = EmptyPosition();
    for (int cell = 0; cell < kNumCells; ++cell) {
      if (p.board[cell]) PutPiece(q, p.board[cell], mirror(cell));
    }
    q.side_to_move = p.side_to_move;
    q.halfmove_clock = p.halfmove_clock;
    q.fullmove_number = p.fullmove_number;
    q.en_passant_cell = p.en_passant_cell < 0 ? int8_t(-1) : int8_t(mirror(p.en_passant_cell));
    q.hash = ComputeHash(q);
    return q;
  }
  static G::Position ColourSwap(const G::Position& p) { return p; }
};

template <>
struct EncodingCases<chad::ChadGame> {
  using G = chad::ChadGame;
  using E = InputEncoding<G>;
  static constexpr bool kHasColourSwap = false;
  static constexpr int kTheirPieces = E::kTheirRooks;
  static G::Position WithSideToMove(G::Position p, Color side) {
    p.side = side;
    return p;
  }

  static std::vector<PlaneCase> Planes() {
    std::vector<PlaneCase> cases;
    // The start from both sides: d4 (White) or i9 turned (Black) is the own king's square.
    for (const std::string& start : {StartFen<G>(), BlackToMove(StartFen<G>())}) {
      const std::vector<PlaneCase> facts = {
          {start, 1, E::kOwnKing, 3, 3, 1, "own king d4"},
          {start, 1, E::kTheirKing, 8, 8, 1, "their king i9"},
          {start, 1, E::kOwnRooks, -1, -1, 8, "8 rooks"},
          {start, 1, E::kOwnQueens, -1, -1, 0, "no queen"},
          {start, 1, E::kOwnCastle, -1, -1, 9, "9 castle squares"},
          {start, 1, E::kOwnWall, -1, -1, 12, "12 wall squares"},
          {start, 1, E::kOwnCastle, 2, 2, 1, "c3"},
          {start, 1, E::kOwnWall, 1, 2, 1, "c2"},
          {start, 1, E::kTheirCastle, 9, 9, 1, "j10"},
          {start, 1, E::kOnes, -1, -1, 144, "ones"},
      };
      cases.insert(cases.end(), facts.begin(), facts.end());
    }
    // White king d4, White queen b2 (queen by promotion is fine for the encoder), Black king i9,
    // Black rook h12; Black to move.
    const std::string turned = "7r4/12/12/8k3/12/12/12/12/3K8/12/1Q10/12 b 3 20";
    const std::vector<PlaneCase> facts = {
        {turned, 2, E::kOwnKing, 3, 3, 1, "i9 -> d4"},
        {turned, 2, E::kOwnRooks, 0, 4, 1, "h12 (file 7, rank 11) -> (0, 4)"},
        {turned, 2, E::kTheirKing, 8, 8, 1, "d4 -> i9"},
        {turned, 2, E::kTheirQueens, 10, 10, 1, "b2 -> k11"},
        {turned, 2, E::kOwnRooks, -1, -1, 1, "one rook"},
        {turned, 2, E::kRepetition, -1, -1, 144, "seen twice"},
    };
    cases.insert(cases.end(), facts.begin(), facts.end());
    return cases;
  }
  static std::vector<SamePlanesCase> SamePlanes() { return {}; }
  static std::vector<MoveIndexCase> MoveIndices() { return {}; }

  // Symmetry 1: the position reflected in the a1-l12 diagonal.
  static G::Position Image(int /*symmetry*/, const G::Position& p) {
    using namespace chad;
    auto transpose = [](const Bitboard& b) {
      Bitboard out;
      ForEachSquare(b, [&](int s) { out.Set(FileOf(s) * kBoardSize + RankOf(s)); });
      return out;
    };
    Position q = p;
    q.pieces[0] = transpose(p.pieces[0]);
    q.pieces[1] = transpose(p.pieces[1]);
    q.queens = transpose(p.queens);
    for (int c = 0; c < 2; ++c) {
      q.king[c] = uint8_t(FileOf(p.king[c]) * kBoardSize + RankOf(p.king[c]));
    }
    q.hash = ComputeHash(q);
    return q;
  }
  static G::Position ColourSwap(const G::Position& p) { return p; }
};

template <>
struct EncodingCases<cuarenta::CuarentaGame> {
  using G = cuarenta::CuarentaGame;
  using E = InputEncoding<G>;
  static constexpr bool kHasColourSwap = false;
  static constexpr int kTheirPieces = E::kTheirKing;
  static G::Position WithSideToMove(G::Position p, Color side) {
    p.side_to_move = uint8_t(side);
    return p;
  }

  static std::vector<PlaneCase> Planes() {
    using namespace cuarenta;
    const std::string start = StartFen<G>();
    // Black king e8, bishop c6; White king e2, vao a4; only White may castle; 40 plies without
    // capture; Black to move.
    const std::string turned = "4/2k2/4/1b3/4/V4/4/2K2/3C b w 40 30";
    return {
        {start, 1, E::kOwnKing, 1, 4, 1, "e2"},
        {start, 1, E::kOwnKing + kCamel - 1, 0, 7, 1, "h1"},
        {start, 1, E::kOwnKing + kBishop - 1, 0, 1, 1, "b1"},
        {start, 1, E::kTheirKing, 7, 4, 1, "e8"},
        {start, 1, E::kTheirKing + kCamel - 1, 8, 1, 1, "b9"},
        {start, 1, E::kOwnKing + kPawn - 1, -1, -1, 4, "4 pawns"},
        {start, 1, E::kRealSquares, -1, -1, 40, "40 squares"},
        {start, 1, E::kRealSquares, 0, 0, 0, "a1 is dark"},
        {start, 1, E::kOwnCastling, -1, -1, 40, "may castle"},
        {start, 1, E::kTheirCastling, -1, -1, 40, "they may castle"},
        {start, 1, E::kWhiteToMove, -1, -1, 40, "White to move"},
        {start, 1, E::kFortyMove, -1, -1, 0, "no forty-move count"},
        {turned, 1, E::kOwnKing, 1, 4, 1, "e8 -> e2"},
        {turned, 1, E::kOwnKing + kBishop - 1, 3, 6, 1, "c6 -> g4"},
        {turned, 1, E::kTheirKing, 7, 4, 1, "e2 -> e8"},
        {turned, 1, E::kTheirKing + kVao - 1, 5, 8, 1, "a4 -> i6"},
        {turned, 1, E::kOwnCastling, -1, -1, 0, "Black may not castle"},
        {turned, 1, E::kTheirCastling, -1, -1, 40, "White may castle"},
        {turned, 1, E::kFortyMove, 1, 4, 0.5f, "40 of 80 plies"},
        {turned, 1, E::kWhiteToMove, -1, -1, 0, "Black to move"},
    };
  }
  static std::vector<SamePlanesCase> SamePlanes() { return {}; }
  static std::vector<MoveIndexCase> MoveIndices() { return {}; }
  static G::Position Image(int /*symmetry*/, const G::Position& p) { return p; }
  static G::Position ColourSwap(const G::Position& p) { return p; }
};

template <>
struct EncodingCases<draughts::DraughtsGame> {
  using G = draughts::DraughtsGame;
  using E = InputEncoding<G>;
  static constexpr bool kHasColourSwap = true;
  static constexpr int kTheirPieces = E::kTheirMen;
  static G::Position WithSideToMove(G::Position p, Color side) {
    p.side_to_move = side;
    return p;
  }

  static std::vector<PlaneCase> Planes() {
    // Square 1 = a man on h1 (row 0, column 7); K9 on h3; 32 on a8; K21 on g6.
    const std::string white = "W:W1,K9:B32,K21:H4";
    const std::string black = "B:W1,K9:B32,K21:H4";
    const std::string three_kings = "W:WK1,K2,K3:BK30:H10:T6";
    std::vector<PlaneCase> cases = {
        {white, 1, E::kOwnMen, 0, 7, 1, "1 on h1"},
        {white, 1, E::kOwnKings, 2, 7, 1, "K9 on h3"},
        {white, 1, E::kTheirMen, 7, 0, 1, "32 on a8"},
        {white, 1, E::kTheirKings, 5, 6, 1, "K21 on g6"},
        {white, 1, E::kOnes, -1, -1, 64, "ones"},
        {white, 1, E::kTwentyMove, 3, 3, 0.1f, "4 of 40 plies"},
        {white, 1, E::kThreeKings, -1, -1, 0, "no three kings"},
        {white, 1, E::kRepetition, -1, -1, 0, "first time"},
        {black, 1, E::kOwnMen, 0, 7, 1, "32 (a8) turned to h1"},
        {black, 1, E::kOwnKings, 2, 1, 1, "21 (g6) turned to b3"},
        {black, 1, E::kTheirMen, 7, 0, 1, "1 (h1) turned to a8"},
        {black, 1, E::kTheirKings, 5, 0, 1, "9 (h3) turned to a6"},
        {three_kings, 2, E::kTwentyMove, 7, 7, 0.25f, "10 of 40 plies"},
        {three_kings, 2, E::kThreeKings, 0, 0, 0.5f, "6 of 12 moves"},
        {three_kings, 2, E::kRepetition, -1, -1, 64, "seen twice"},
    };
    for (const std::string& fen : {white, black}) {
      for (int plane = 0; plane < 4; ++plane) cases.push_back({fen, 1, plane, -1, -1, 1, "one"});
    }
    return cases;
  }
  static std::vector<SamePlanesCase> SamePlanes() { return {}; }
  // White 9-13 (bits 8 -> 12) and Black's mirror image 24-20 (bits 23 -> 19) share an index.
  static std::vector<MoveIndexCase> MoveIndices() {
    return {{StartFen<G>(), "9-13", 8 * 32 + 12}, {"B:W1-12:B21-32", "24-20", 8 * 32 + 12}};
  }
  static G::Position Image(int /*symmetry*/, const G::Position& p) { return p; }

  static G::Position ColourSwap(const G::Position& p) {
    auto turn = [](uint32_t bits) {
      uint32_t out = 0;
      for (int s = 0; s < 32; ++s) out |= ((bits >> s) & 1u) << (31 - s);
      return out;
    };
    G::Position q = p;
    q.white = turn(p.black);
    q.black = turn(p.white);
    q.kings = turn(p.kings);
    q.side_to_move = Opponent(p.side_to_move);
    q.hash = draughts::ComputeHash(q);
    return q;
  }
};

template <class G>
class EncodingTest : public ::testing::Test {};

TYPED_TEST_SUITE(EncodingTest, testing::AllGameTypes, testing::GameNames);

TYPED_TEST(EncodingTest, EveryEntryIsWrittenAndFinite) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  static_assert(E::kNumActions == G::kNumActions);
  const int checked = testing::ForRandomPositions<G>(4, 60, 11, [](const auto& p, const auto&) {
    for (int repetitions : {1, 2, 3}) {
      for (float value : EncodePlanes<E>(p, repetitions)) {
        ASSERT_TRUE(std::isfinite(value) && value >= 0.0f) << G::FormatPosition(p);
      }
    }
  });
  EXPECT_GT(checked, 100);
}

TYPED_TEST(EncodingTest, PolicyIndexIsTheActionIndex) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  testing::ForRandomPositions<G>(4, 60, 13, [](const auto& p, const auto& moves) {
    for (Move m : moves) ASSERT_EQ(E::PolicyIndex(p, m), G::ActionIndex(p, m));
  });
  for (const MoveIndexCase& c : EncodingCases<G>::MoveIndices()) {
    const typename G::Position p = G::ParsePosition(c.fen);
    EXPECT_EQ(E::PolicyIndex(p, G::ParseMove(p, c.move)), c.index) << c.fen << " " << c.move;
  }
}

TYPED_TEST(EncodingTest, SymmetriesPermuteTheIndicesAndMapPlanesAndLegalMoves) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  for (int symmetry = 0; symmetry < E::kNumSymmetries; ++symmetry) {
    std::vector<bool> hit(E::kNumActions, false);
    for (int action = 0; action < E::kNumActions; ++action) {
      const int image = E::SymmetricAction(symmetry, action);
      ASSERT_TRUE(image >= 0 && image < E::kNumActions) << symmetry << " " << action;
      ASSERT_FALSE(hit[image]) << "symmetry " << symmetry << " maps two indices to " << image;
      hit[image] = true;
      if (symmetry == 0) {
        ASSERT_EQ(image, action);
      }
    }
  }
  for (int symmetry = 1; symmetry < E::kNumSymmetries; ++symmetry) {
    const auto image = [symmetry](const typename G::Position& p) {
      return EncodingCases<G>::Image(symmetry, p);
    };
    const int checked =
        testing::ExpectSymmetryOverRandomGames<G, E>(image, symmetry, 6, 60, uint64_t(symmetry));
    if (this->HasFatalFailure()) return;
    EXPECT_GT(checked, 200);
  }
}

TYPED_TEST(EncodingTest, ColourSwappedPositionsLookTheSameAndKeepTheirPolicyIndices) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  if (!EncodingCases<G>::kHasColourSwap) GTEST_SKIP() << "no colour-swap symmetry in this game";
  const int checked =
      testing::ForRandomPositions<G>(20, 80, 7, [](const auto& p, const auto& moves) {
        const typename G::Position q = EncodingCases<G>::ColourSwap(p);
        ASSERT_EQ(EncodePlanes<E>(p), EncodePlanes<E>(q));
        typename G::MoveList swapped;
        G::GenerateMoves(q, swapped);
        std::multiset<int> a, b;
        for (Move m : moves) a.insert(E::PolicyIndex(p, m));
        for (Move m : swapped) b.insert(E::PolicyIndex(q, m));
        ASSERT_EQ(a, b);
      });
  EXPECT_GT(checked, 500);
}

// Occupancy (the ownership head's target) seen by either side is the piece planes of Encode with
// that side to move: a cell holds the viewer's piece where an own-piece plane is 1, the
// opponent's where one of theirs is, and nothing elsewhere (off-board grid points included).
TYPED_TEST(EncodingTest, OccupancyIsThePiecePlanesSeenByEitherSide) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  using Cases = EncodingCases<G>;
  constexpr int kArea = E::kHeight * E::kWidth;
  const int checked = testing::ForRandomPositions<G>(4, 60, 17, [](const auto& p, const auto&) {
    for (const Color view : {Color::kWhite, Color::kBlack}) {
      const std::vector<float> planes = EncodePlanes<E>(Cases::WithSideToMove(p, view));
      std::vector<uint8_t> cells(kArea, 99);
      E::Occupancy(p, view, cells.data());
      int pieces = 0;
      for (int cell = 0; cell < kArea; ++cell) {
        bool own = false, theirs = false;
        for (int plane = 0; plane < 2 * Cases::kTheirPieces; ++plane) {
          const bool set = planes[size_t(plane * kArea + cell)] != 0.0f;
          (plane < Cases::kTheirPieces ? own : theirs) |= set;
        }
        const uint8_t expected = own ? kViewersPiece : theirs ? kOpponentsPiece : kEmptyCell;
        ASSERT_EQ(int(cells[size_t(cell)]), int(expected))
            << G::FormatPosition(p) << " view " << int(view) << " cell " << cell;
        pieces += cells[size_t(cell)] != kEmptyCell;
      }
      int counts[PieceTypes<G>::kNumTypes];
      int total = 0;
      for (const Color side : {Color::kWhite, Color::kBlack}) {
        PieceTypes<G>::Count(p, side, counts);
        for (int count : counts) total += count;
      }
      const int kings = std::is_same_v<G, draughts::DraughtsGame> ? 0 : 2;  // not counted there
      ASSERT_EQ(pieces, total + kings) << G::FormatPosition(p);
    }
  });
  EXPECT_GT(checked, 100);
}

TYPED_TEST(EncodingTest, PlanesOfHandPlacedPositions) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  for (const PlaneCase& c : EncodingCases<G>::Planes()) {
    const std::vector<float> planes = EncodePlanes<E>(G::ParsePosition(c.fen), c.repetitions);
    const float actual =
        c.row < 0 ? PlaneSum<E>(planes, c.plane) : PlaneAt<E>(planes, c.plane, c.row, c.column);
    EXPECT_FLOAT_EQ(actual, c.value) << c.fen << " plane " << c.plane << ": " << c.what;
  }
  for (const SamePlanesCase& c : EncodingCases<G>::SamePlanes()) {
    EXPECT_EQ(EncodePlanes<E>(G::ParsePosition(c.a)), EncodePlanes<E>(G::ParsePosition(c.b)))
        << c.a << " / " << c.b;
  }
}

}  // namespace
}  // namespace vz
