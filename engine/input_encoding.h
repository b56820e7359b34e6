#pragma once

// The network's view of a position (AlphaZero's input planes and policy index), one
// specialisation of InputEncoding<G> per game in engine/<game>/encoding.h; engine/encodings.h
// includes them all. Everything here is VZ_HD (host and CUDA device), with no heap and no std
// containers, so that a kernel encodes the very planes the host does; nets/ only consumes them.
//
// A specialisation derives from EncodingConstants<its EncodingSpec> and provides:
//   kPlanes, kHeight, kWidth   shape of one position's input: float[kPlanes][kHeight][kWidth],
//                              row-major (index (plane * kHeight + row) * kWidth + column);
//                              row 0 is the side to move's own back rank in its frame
//   kEncodingName, kVersion    input encoding id and version, stored in net files; bump the
//                              version whenever a plane's meaning changes
//   kActionName, kActionVersion  the policy index's id and version (PolicyIndex below)
//   kNumActions                policy size (= the game's kNumActions)
//   kNumSymmetries             board symmetries of the rules used for training augmentation
//                              (1 = identity only)
//   Encode(p, repetition_count, planes)
//                              writes every entry of planes[kPlanes * kHeight * kWidth], seen
//                              from the side to move; repetition_count >= 1 is how often the
//                              position occurred in the game's history (1 = first time), an
//                              explicit input because the position does not know its history
//   PolicyIndex(p, m)          the policy-head index of legal move m of p, in [0, kNumActions),
//                              in the side to move's frame (the same frame as the planes); every
//                              game's G::ActionIndex is already in that frame, so this equals it
//   Occupancy(p, view, cells)  writes cells[kHeight * kWidth] (uint8_t), the occupant of every
//                              grid cell of p seen by `view` in view's frame (the frame Encode
//                              draws p in when `view` is to move): kViewersPiece, kOpponentsPiece
//                              or kEmptyCell (also every grid cell that is no board cell); the
//                              ownership head's target (nets/net_architecture.h; KataGo's
//                              ownership, Wu 2019 section 4.1)
//   kPolicyPlanes, PolicyPlane(action)
//                              the convolutional policy head's layout (nets/model.h): action
//                              index -> PolicySlot {plane in [0, kPolicyPlanes), cell = row *
//                              kWidth + column of the grid}, one-to-one, with the move's from
//                              cell as its cell wherever the move has one and its kind of move
//                              (direction and distance, leap, promotion piece) as its plane, as
//                              AlphaZero's 73 move planes for chess (net files with such heads
//                              store the layout, and a net with another one is refused)
//   SymmetricCell(s, row, column, out_row, out_column)  image of a grid cell under symmetry s
//   SymmetricAction(s, action) image of a policy index under symmetry s (a permutation of the
//                              indices of legal moves; indices no move uses map to themselves)
// Symmetry 0 is always the identity.

#include <cstdint>

namespace vz {

template <class G>
struct InputEncoding;

// The classes of InputEncoding<G>::Occupancy, one per grid cell.
inline constexpr uint8_t kEmptyCell = 0;       // no piece (or no board cell)
inline constexpr uint8_t kViewersPiece = 1;    // a piece of the side the cells are seen by
inline constexpr uint8_t kOpponentsPiece = 2;  // a piece of its opponent
inline constexpr int kOccupancyClasses = 3;

// The identity of one game's encoding: the input shape float[planes][height][width], the ids and
// versions of the input planes and of the policy index (stored in net files) and the number of
// symmetries (meanings above). The policy size is the game's kNumActions.
struct EncodingSpec {
  struct Shape {
    int planes = 0;
    int height = 0;
    int width = 0;
  };
  struct Id {
    const char* name = "";
    int version = 0;
  };
  Shape shape;
  Id input;
  Id action;
  int num_symmetries = 1;
};

// Position and the constants of the contract above for game G, derived from `spec` (a constexpr
// EncodingSpec with static storage): kPlanes, kHeight, kWidth, kSize = kPlanes * kHeight * kWidth,
// kEncodingName, kVersion, kActionName, kActionVersion, kNumActions = G::kNumActions,
// kNumSymmetries.
template <class G, const EncodingSpec& spec>
struct EncodingConstants {
  using Position = typename G::Position;
  static constexpr int kPlanes = spec.shape.planes;
  static constexpr int kHeight = spec.shape.height;
  static constexpr int kWidth = spec.shape.width;
  static constexpr int kSize = kPlanes * kHeight * kWidth;
  static constexpr const char* kEncodingName = spec.input.name;
  static constexpr int kVersion = spec.input.version;
  static constexpr const char* kActionName = spec.action.name;
  static constexpr int kActionVersion = spec.action.version;
  static constexpr int kNumActions = G::kNumActions;
  static constexpr int kNumSymmetries = spec.num_symmetries;
};

// Where the convolutional policy head reads one action's logit: output plane `plane`, grid cell
// `cell` = row * kWidth + column (InputEncoding<G>::PolicyPlane).
struct PolicySlot {
  int plane = 0;
  int cell = 0;
};

}  // namespace vz
