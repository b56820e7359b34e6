#pragma once

// Host-side game wrapper: a position plus the history the rule core does not keep (repetition keys
// of every earlier position and the moves played), giving the full-game outcome. Not thread-safe;
// copy it to branch.

#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game.h"

namespace vz {

template <Game G>
class GameState {
 public:
  using Position = typename G::Position;

  GameState() : GameState(G::InitialPosition()) {}
  explicit GameState(const Position& start) : start_(start), position_(start) {
    keys_.push_back(G::RepetitionKey(position_));
    Refresh();
  }

  const Position& position() const { return position_; }
  const Position& start_position() const { return start_; }
  const typename G::MoveList& legal_moves() const { return legal_; }
  const std::vector<Move>& moves() const { return moves_; }

  // Number of times the current position occurred so far (1 = first time).
  int RepetitionCount() const {
    int count = 0;
    for (uint64_t key : keys_) count += key == keys_.back();
    return count;
  }

  // Outcome of the game: the position-local outcome (mate, stalemate, counters) first, then
  // threefold repetition for games that have it.
  Outcome outcome() const {
    Outcome local = G::LocalOutcome(position_, legal_.size);
    if (local.IsTerminal()) return local;
    if constexpr (G::kHasRepetitionDraw) {
      if (RepetitionCount() >= 3) return {Status::kDraw, Reason::kRepetition};
    }
    return local;
  }

  // Plays a legal move. Throws vz::Error if the move is not legal here or the game is over.
  void Play(Move move) {
    if (!legal_.Contains(move)) throw Error("move is not legal in " + G::FormatPosition(position_));
    G::ApplyMove(position_, move);
    moves_.push_back(move);
    keys_.push_back(G::RepetitionKey(position_));
    Refresh();
  }

  // Parses `text` (protocol or display form) and plays it. Throws vz::Error naming the move.
  Move Play(std::string_view text) {
    Move move = G::ParseMove(position_, text);
    Play(move);
    return move;
  }

 private:
  void Refresh() {
    legal_.Clear();
    G::GenerateMoves(position_, legal_);
  }

  Position start_;
  Position position_;
  typename G::MoveList legal_;
  std::vector<Move> moves_;
  std::vector<uint64_t> keys_;  // [ply + 1] repetition key of each position, start included
};

}  // namespace vz
