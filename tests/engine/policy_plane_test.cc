// The convolutional policy layouts of every game (InputEncoding<G>::PolicyPlane,
// engine/input_encoding.h), typed over engine/games.h: one-to-one and in range, the from cell of
// every legal move holds a piece of the side to move, and each augmentation symmetry maps slots
// by a permutation of the planes and SymmetricCell on the grid.

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "engine/encodings.h"
#include "engine/games.h"
#include "tests/engine/game_types.h"
#include "tests/test_util.h"

namespace vz {
namespace {

// The planes [0, n) of the side to move's own pieces in each game's input layout.
template <class G>
int OwnPiecePlanes();
template <>
int OwnPiecePlanes<chad::ChadGame>() {
  return InputEncoding<chad::ChadGame>::kTheirRooks;
}
template <>
int OwnPiecePlanes<chaco_rex::ChacoRexGame>() {
  return InputEncoding<chaco_rex::ChacoRexGame>::kTheirPawns;
}
template <>
int OwnPiecePlanes<cuarenta::CuarentaGame>() {
  return InputEncoding<cuarenta::CuarentaGame>::kTheirKing;
}
template <>
int OwnPiecePlanes<draughts::DraughtsGame>() {
  return InputEncoding<draughts::DraughtsGame>::kTheirMen;
}

template <class G>
class PolicyPlaneTest : public ::testing::Test {};
TYPED_TEST_SUITE(PolicyPlaneTest, testing::AllGameTypes, testing::GameNames);

TYPED_TEST(PolicyPlaneTest, EveryActionHasItsOwnSlotInRange) {
  using E = InputEncoding<TypeParam>;
  constexpr int kArea = E::kHeight * E::kWidth;
  std::set<int> slots;
  for (int action = 0; action < E::kNumActions; ++action) {
    const PolicySlot slot = E::PolicyPlane(action);
    ASSERT_GE(slot.plane, 0) << action;
    ASSERT_LT(slot.plane, E::kPolicyPlanes) << action;
    ASSERT_GE(slot.cell, 0) << action;
    ASSERT_LT(slot.cell, kArea) << action;
    ASSERT_TRUE(slots.insert(slot.plane * kArea + slot.cell).second)
        << "action " << action << " shares plane " << slot.plane << " cell " << slot.cell;
  }
}

TYPED_TEST(PolicyPlaneTest, LegalMovesSitOnTheirFromCell) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  constexpr int kArea = E::kHeight * E::kWidth;
  std::vector<float> planes(E::kSize);
  const int checked = testing::ForRandomPositions<G>(
      8, 120, 17, [&](const typename G::Position& p, const typename G::MoveList& moves) {
        E::Encode(p, 1, planes.data());
        for (Move m : moves) {
          const PolicySlot slot = E::PolicyPlane(E::PolicyIndex(p, m));
          float own = 0;
          for (int plane = 0; plane < OwnPiecePlanes<G>(); ++plane) {
            own += planes[size_t(plane * kArea + slot.cell)];
          }
          ASSERT_EQ(own, 1.0f) << G::FormatPosition(p) << " move " << G::FormatMove(p, m)
                               << ": no own piece on cell " << slot.cell;
        }
      });
  EXPECT_GT(checked, 100);
}

TYPED_TEST(PolicyPlaneTest, SymmetriesPermuteThePlanesAndMapTheCells) {
  using E = InputEncoding<TypeParam>;
  for (int symmetry = 1; symmetry < E::kNumSymmetries; ++symmetry) {
    std::map<int, int> plane_image;
    for (int action = 0; action < E::kNumActions; ++action) {
      const PolicySlot slot = E::PolicyPlane(action);
      const PolicySlot image = E::PolicyPlane(E::SymmetricAction(symmetry, action));
      int row = 0, column = 0;
      E::SymmetricCell(symmetry, slot.cell / E::kWidth, slot.cell % E::kWidth, row, column);
      ASSERT_EQ(image.cell, row * E::kWidth + column) << "action " << action;
      const auto [it, fresh] = plane_image.emplace(slot.plane, image.plane);
      ASSERT_EQ(it->second, image.plane)
          << "plane " << slot.plane << " maps to two planes under symmetry " << symmetry;
    }
    std::set<int> images;
    for (const auto& [plane, image] : plane_image) images.insert(image);
    EXPECT_EQ(images.size(), plane_image.size()) << "not a permutation of the planes";
  }
}

}  // namespace
}  // namespace vz
