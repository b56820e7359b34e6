#pragma once

// The game behind a search's root: the start position and the moves played (so that a later
// position of the same game can reuse the tree), the repetition keys of every position so far (for
// threefold repetition inside the tree, games with G::kHasRepetitionDraw), and the root itself:
// position, legal moves, outcome by the rules and repetition, and an optional restriction of the
// root moves (UCI's `go searchmoves`). Part of Mcts<G> (engine/search/mcts.h), which calls Reset
// before anything else. Not thread-safe.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game.h"
#include "engine/core/game_state.h"

namespace vz {

template <Game G>
class SearchRoot {
 public:
  using Position = typename G::Position;

  // True when `state` continues the game of this root: the same start, and the root's moves as a
  // prefix of its moves. False after Forget.
  bool Continues(const GameState<G>& state) const {
    return has_game_ && SamePosition(start_, state.start_position()) &&
           state.moves().size() >= moves_.size() &&
           std::equal(moves_.begin(), moves_.end(), state.moves().begin());
  }

  // The next Continues is false (a root set from a bare position has no game to continue).
  void Forget() { has_game_ = false; }

  // The root becomes the game's current position, with its history; no restriction.
  void Reset(const GameState<G>& state) {
    has_game_ = true;
    start_ = state.start_position();
    moves_ = state.moves();
    history_counts_.clear();
    Position position = start_;
    AddHistoryKey(G::RepetitionKey(position));
    for (Move move : moves_) {
      G::ApplyMove(position, move);
      AddHistoryKey(G::RepetitionKey(position));
    }
    SetPosition(state.position());
  }

  // Plays `move` at the root (the restriction ends). Throws vz::Error, changing nothing, if the
  // move is not legal at the root.
  void Play(Move move) {
    if (outcome_.IsTerminal() || !legal_.Contains(move)) {
      throw Error("move is not legal at the search root " + G::FormatPosition(position_));
    }
    Position next = position_;
    G::ApplyMove(next, move);
    moves_.push_back(move);
    AddHistoryKey(G::RepetitionKey(next));
    SetPosition(next);
  }

  // Restricts the root to `moves` (empty: every legal move). Returns true when the restriction
  // changed. Throws vz::Error, changing nothing, if a move is not legal at the root.
  bool Restrict(std::span<const Move> moves) {
    std::vector<Move> filter(moves.begin(), moves.end());
    for (Move move : filter) {
      if (!legal_.Contains(move)) {
        throw Error("searchmoves: move is not legal at the search root " +
                    G::FormatPosition(position_));
      }
    }
    std::sort(filter.begin(), filter.end(), ByRaw);
    filter.erase(std::unique(filter.begin(), filter.end()), filter.end());
    if (filter == restriction_) return false;
    restriction_ = std::move(filter);
    return true;
  }

  // Keeps in `moves` (the root's legal moves, generation order) only the allowed ones.
  void FilterRootMoves(typename G::MoveList& moves) const {
    if (restriction_.empty()) return;
    int kept = 0;
    for (int i = 0; i < moves.size; ++i) {
      const Move move = moves.moves[i];
      if (std::binary_search(restriction_.begin(), restriction_.end(), move, ByRaw)) {
        moves.moves[kept++] = move;
      }
    }
    moves.size = kept;
  }

  // The allowed root moves, sorted by raw value; empty when every legal move is allowed.
  const std::vector<Move>& restriction() const { return restriction_; }
  const Position& position() const { return position_; }
  // Outcome of the root position (rules, and repetition with the game history).
  Outcome outcome() const { return outcome_; }
  const typename G::MoveList& legal_moves() const { return legal_; }
  // Occurrences of the root position in the game history (1 = first time).
  int repetition() const { return repetition_; }
  // Moves played from the start.
  size_t num_moves() const { return moves_.size(); }
  // Occurrences of repetition key `key` in the game history up to the root.
  int HistoryCount(uint64_t key) const {
    auto it = std::lower_bound(history_counts_.begin(), history_counts_.end(),
                               std::pair<uint64_t, int32_t>(key, 0));
    return it != history_counts_.end() && it->first == key ? it->second : 0;
  }

 private:
  static bool ByRaw(Move a, Move b) { return a.raw < b.raw; }

  // Equal positions. Bytewise only where that is exact: padding bytes (Chad's Position has some)
  // may differ between equal positions, and the hash leaves out the move counters; the position
  // string is the whole state (it round-trips through ParsePosition).
  static bool SamePosition(const Position& a, const Position& b) {
    if constexpr (std::has_unique_object_representations_v<Position>) {
      return std::memcmp(&a, &b, sizeof(Position)) == 0;
    } else {
      return G::Hash(a) == G::Hash(b) && G::FormatPosition(a) == G::FormatPosition(b);
    }
  }

  void AddHistoryKey(uint64_t key) {
    auto it = std::lower_bound(history_counts_.begin(), history_counts_.end(),
                               std::pair<uint64_t, int32_t>(key, 0));
    if (it != history_counts_.end() && it->first == key) {
      ++it->second;
    } else {
      history_counts_.insert(it, {key, 1});
    }
  }

  void SetPosition(const Position& position) {
    position_ = position;
    legal_.Clear();
    G::GenerateMoves(position_, legal_);
    outcome_ = G::LocalOutcome(position_, legal_.size);
    repetition_ = 1;
    if constexpr (G::kHasRepetitionDraw) {
      repetition_ = std::max(1, HistoryCount(G::RepetitionKey(position_)));
      if (!outcome_.IsTerminal() && repetition_ >= 3) {
        outcome_ = {Status::kDraw, Reason::kRepetition};
      }
    }
    restriction_.clear();
  }

  bool has_game_ = false;
  Position start_{};
  std::vector<Move> moves_;
  std::vector<std::pair<uint64_t, int32_t>> history_counts_;  // [distinct key] sorted by key
  Position position_{};
  typename G::MoveList legal_;
  Outcome outcome_;
  int repetition_ = 1;
  std::vector<Move> restriction_;  // [allowed root move] sorted by raw; empty = all legal moves
};

}  // namespace vz
