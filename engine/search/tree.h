#pragma once

// The search tree as flat arrays (structure of arrays, mctx's layout), indexed by node id. The root
// is node 0; the children of a node are contiguous, so a node stores only its first child and
// their number. The arrays are allocated once and reused: a search grows them (amortised
// growth, up to the node cap), later searches reuse the same memory, and tree reuse copies the
// kept subtree into a second SearchTree and swaps (no per-node heap allocation anywhere).
//
// Values are stored from White's point of view, so that no turn order is assumed: the search
// turns them to the side to move when it reads them.
//
// Tree reuse (KeepSubtree): after a move is played at the root, the subtree of that move becomes
// the new tree, its statistics kept (AlphaZero keeps the subtree of the played move). Backup adds
// one simulation's value to every node of a path. Not thread-safe.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/core/macros.h"
#include "engine/core/types.h"

namespace vz {

// A growable array of a trivially copyable type that, unlike std::vector, does not initialise
// new elements: untouched capacity costs no page faults, and growth copies only the used prefix.
template <class T>
class PodArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  size_t capacity() const { return capacity_; }

  // Grows to `capacity` elements (never shrinks), keeping the first `used` ones. Raw storage
  // (malloc: no constructor runs, not even a default member initializer); T is an
  // implicit-lifetime type. False, the array unchanged, if memory is exhausted.
  bool TryReserve(size_t capacity, size_t used) {
    if (capacity <= capacity_) return true;
    if (capacity > SIZE_MAX / sizeof(T)) return false;
    std::unique_ptr<T[], Free> grown(static_cast<T*>(std::malloc(capacity * sizeof(T))));
    if (grown == nullptr) return false;
    if (used > 0) std::memcpy(grown.get(), data_.get(), used * sizeof(T));
    data_ = std::move(grown);
    capacity_ = capacity;
    return true;
  }
  // The same; aborts if memory is exhausted (for the few elements a tree cannot do without).
  void Reserve(size_t capacity, size_t used) { VZ_CHECK(TryReserve(capacity, used)); }
  // Gives back the storage beyond `capacity` elements (>= the used ones), where the allocator
  // can shrink the block in place (it keeps the larger block otherwise).
  void ShrinkTo(size_t capacity) {
    if (capacity >= capacity_) return;
    if (capacity == 0) {
      data_.reset();
      capacity_ = 0;
      return;
    }
    T* shrunk = static_cast<T*>(std::realloc(data_.get(), capacity * sizeof(T)));
    if (shrunk == nullptr) return;
    (void)data_.release();
    data_.reset(shrunk);
    capacity_ = capacity;
  }

 private:
  struct Free {
    void operator()(T* data) const { std::free(data); }
  };
  std::unique_ptr<T[], Free> data_;
  size_t capacity_ = 0;
};

struct SearchTree {
  static constexpr int32_t kRoot = 0;
  static constexpr int32_t kNone = -1;
  // Node ids and visit counts are 32-bit.
  static constexpr int64_t kMaxNodes = std::numeric_limits<int32_t>::max();
  static constexpr int64_t kMaxVisits = std::numeric_limits<int32_t>::max();

  PodArray<Move> move;              // [node] the move from the parent (kNullMove at the root)
  PodArray<int32_t> parent;         // [node] parent id; kNone for the root
  PodArray<int32_t> first_child;    // [node] id of the first child; kNone while unexpanded
  PodArray<uint16_t> num_children;  // [node] number of children (legal moves)
  PodArray<int32_t> visits;         // [node] completed visits (backed-up simulations)
  PodArray<int32_t> in_flight;      // [node] simulations handed out, not yet backed up
  PodArray<float> value_sum;        // [node] sum of backed-up values W - L, White's view
  PodArray<float> draw_sum;         // [node] sum of backed-up draw probabilities
  PodArray<float> prior;            // [node] prior of the move into the node (noise included;
                                    // as the evaluator gave it while the parent's priors_pending)
  PodArray<float> raw_value;        // [node] the evaluator's W - L for the node, White's view
  PodArray<uint8_t> side;           // [node] Color to move, set when the node is first reached
  PodArray<uint8_t> proven;         // [node] Status under best play; kOngoing = not proven
  PodArray<uint16_t> proven_plies;  // [node] plies to the end of the game when proven
  // [node] 1 while the priors of the node's children are the evaluator's first stage, to be
  // completed (Evaluator::CompletePriors) before the search first selects among them.
  PodArray<uint8_t> priors_pending;
  int32_t size = 0;  // nodes in use: ids [0, size)

 private:
  size_t capacity_ = 0;  // nodes every array has room for (an array may have more)

 public:
  static constexpr size_t kBytesPerNode =
      sizeof(Move) + 4 + 4 + 2 + 4 + 4 + 4 + 4 + 4 + 4 + 1 + 1 + 2 + 1;

  // Nodes every array has room for.
  size_t capacity() const { return capacity_; }

  // The number of nodes whose arrays fit in `mib` MiB, in [1, kMaxNodes] (mib <= 0 or NaN: 1).
  // Mcts<G>::NodesForMiB raises it to the game's smallest cap.
  static int64_t NodesForMiB(double mib) {
    const double nodes = mib * 1024.0 * 1024.0 / double(kBytesPerNode);
    if (!(nodes >= 1.0)) return 1;
    return nodes >= double(kMaxNodes) ? kMaxNodes : int64_t(nodes);
  }

  // Grows the arrays to hold at least `nodes` nodes (never shrinks), keeping nodes [0, size).
  // Aborts if memory is exhausted: for the one root node and the copies of tree reuse, which
  // never outgrow the tree they copy.
  void Reserve(size_t nodes) { VZ_CHECK(TryReserve(nodes)); }
  // The same, but false if memory is exhausted (a search whose memory cap is more than the host
  // can give then grows no further, as at its node cap): the arrays that grew are shrunk back, so
  // that every array holds capacity() nodes and no grown block is left taking the memory.
  bool TryReserve(size_t nodes) {
    const size_t before = capacity_;
    if (nodes <= before) return true;
    const size_t used = size_t(size);
    bool ok = true;
    ForEachArray([&](auto array) { ok = ok && (this->*array).TryReserve(nodes, used); });
    if (!ok) {
      ForEachArray([&](auto array) { (this->*array).ShrinkTo(before); });
      return false;
    }
    capacity_ = nodes;
    return true;
  }

  // Appends `count` fresh children of `parent_node` with the given moves; capacity must suffice.
  // Returns the first child's id.
  int32_t AppendChildren(int32_t parent_node, const Move* moves, int count) {
    const int32_t first = size;
    std::memcpy(move.data() + first, moves, size_t(count) * sizeof(Move));
    std::fill_n(parent.data() + first, count, parent_node);
    std::fill_n(first_child.data() + first, count, kNone);
    std::fill_n(num_children.data() + first, count, uint16_t{0});
    std::fill_n(visits.data() + first, count, 0);
    std::fill_n(in_flight.data() + first, count, 0);
    std::fill_n(value_sum.data() + first, count, 0.0f);
    std::fill_n(draw_sum.data() + first, count, 0.0f);
    std::fill_n(prior.data() + first, count, 0.0f);
    std::fill_n(raw_value.data() + first, count, 0.0f);
    std::fill_n(side.data() + first, count, uint8_t{0});
    std::fill_n(proven.data() + first, count, uint8_t(Status::kOngoing));
    std::fill_n(proven_plies.data() + first, count, uint16_t{0});
    std::fill_n(priors_pending.data() + first, count, uint8_t{0});
    first_child[parent_node] = first;
    num_children[parent_node] = uint16_t(count);
    size += count;
    return first;
  }

  void InitNode(int32_t node, Move node_move, int32_t parent_node) {
    move[node] = node_move;
    parent[node] = parent_node;
    first_child[node] = kNone;
    num_children[node] = 0;
    visits[node] = 0;
    in_flight[node] = 0;
    value_sum[node] = 0.0f;
    draw_sum[node] = 0.0f;
    prior[node] = 0.0f;
    raw_value[node] = 0.0f;
    side[node] = 0;
    proven[node] = uint8_t(Status::kOngoing);
    proven_plies[node] = 0;
    priors_pending[node] = 0;
  }

  // Copies every field of `from`'s node `source` into node `target` (links included; the caller
  // fixes them).
  void CopyNode(int32_t target, const SearchTree& from, int32_t source) {
    ForEachArray([&](auto array) { (this->*array)[target] = (from.*array)[source]; });
  }

  // Calls `f` with a pointer to member of each per-node array, in declaration order.
  template <class F>
  static void ForEachArray(F&& f) {
    f(&SearchTree::move);
    f(&SearchTree::parent);
    f(&SearchTree::first_child);
    f(&SearchTree::num_children);
    f(&SearchTree::visits);
    f(&SearchTree::in_flight);
    f(&SearchTree::value_sum);
    f(&SearchTree::draw_sum);
    f(&SearchTree::prior);
    f(&SearchTree::raw_value);
    f(&SearchTree::side);
    f(&SearchTree::proven);
    f(&SearchTree::proven_plies);
    f(&SearchTree::priors_pending);
  }

  // Bytes reserved by the arrays (capacity, not size; untouched pages are not resident).
  size_t MemoryBytes() const { return capacity() * kBytesPerNode; }

  // A node is expanded once it has been evaluated and has its children.
  bool Expanded(int32_t node) const { return visits[node] > 0 && first_child[node] != kNone; }

  // The child of `node` reached by `child_move`; kNone if `node` has no children or no such child.
  int32_t ChildByMove(int32_t node, Move child_move) const {
    if (first_child[node] == kNone) return kNone;
    for (int i = 0; i < num_children[node]; ++i) {
      if (move[first_child[node] + i] == child_move) return first_child[node] + i;
    }
    return kNone;
  }

  // Backs up one simulation from `node` to the root: one more visit, `value_white` (W - L,
  // White's view) and `draw` (the draw probability) added, and the virtual loss of the descent
  // removed (one in-flight count per node of the path).
  void Backup(int32_t node, float value_white, float draw) {
    for (int32_t n = node; n != kNone; n = parent[n]) {
      ++visits[n];
      value_sum[n] += value_white;
      draw_sum[n] += draw;
      --in_flight[n];
    }
  }

  // Backup of a game result known exactly (a terminal or proven node).
  void BackupExact(int32_t node, Status status) {
    const float value_white = status == Status::kWhiteWins   ? 1.0f
                              : status == Status::kBlackWins ? -1.0f
                                                             : 0.0f;
    Backup(node, value_white, status == Status::kDraw ? 1.0f : 0.0f);
  }

  // Empties the tree down to a fresh root whose side to move is `root_side` (a Color).
  void Clear(uint8_t root_side) {
    Reserve(1);
    size = 1;
    InitNode(kRoot, kNullMove, kNone);
    side[kRoot] = root_side;
  }

  // Tree reuse: makes node `kept` the root of a compacted copy of its subtree (breadth first, so
  // children stay contiguous) in `spare`, then swaps the two trees (`spare` is left empty, its
  // memory kept for the next reuse). `root_side` is the new root's side to move; `old_ids` is
  // scratch ([new node] old id).
  void KeepSubtree(int32_t kept, uint8_t root_side, SearchTree& spare,
                   std::vector<int32_t>& old_ids) {
    spare.Reserve(1);
    spare.size = 1;
    spare.CopyNode(kRoot, *this, kept);
    spare.parent[kRoot] = kNone;
    spare.prior[kRoot] = 0.0f;
    spare.side[kRoot] = root_side;
    old_ids.assign(1, kept);
    for (int32_t i = 0; i < spare.size; ++i) {
      const int32_t old = old_ids[size_t(i)];
      const int32_t old_first = first_child[old];
      if (old_first == kNone) continue;
      const int n = num_children[old];
      const int32_t first = spare.size;
      if (size_t(first + n) > spare.capacity()) {
        spare.Reserve(std::max(size_t(first + n), spare.capacity() * 2));
      }
      spare.first_child[i] = first;
      for (int k = 0; k < n; ++k) {
        spare.CopyNode(first + k, *this, old_first + k);
        spare.parent[first + k] = i;
        old_ids.push_back(old_first + k);
      }
      spare.size += n;
    }
    std::swap(*this, spare);
    spare.size = 0;
  }
};

}  // namespace vz
