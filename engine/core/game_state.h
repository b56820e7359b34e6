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

  // Plays a legal move. Throws vz::Error if the game is already over or the move is not legal.
  void Play(Move move) {
    const Outcome current = outcome();
    if (current.IsTerminal()) {
      throw Error(std::string("the game is over (") + ReasonName(current.reason) + ")");
    }
    if (!legal_.Contains(move)) throw Error("move is not legal in " + G::FormatPosition(position_));
    G::ApplyMove(position_, move);
    moves_.push_back(move);
    keys_.push_back(G::RepetitionKey(position_));
    Refresh();
  }

  // Parses `text` (protocol or display form) and plays it. Throws vz::Error naming the move.
  Move Play(std::string_view text) {
    const Outcome current = outcome();
    if (current.IsTerminal()) {
      throw Error("'" + std::string(text) + "': the game is over (" + ReasonName(current.reason) +
                  ")");
    }
    const Move move = G::ParseMove(position_, text);
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

// Plays `moves` (protocol or display form, as G::ParseMove reads them) on `game` and returns the
// display form of each played move. Throws vz::Error "move <n>: <reason>" (n counted from 1) for
// the first move that is unparsable, illegal, or given after the game ended; `game` then holds the
// moves before it.
template <Game G>
std::vector<std::string> PlayMoveStrings(GameState<G>& game,
                                         const std::vector<std::string>& moves) {
  std::vector<std::string> display;
  display.reserve(moves.size());
  for (size_t i = 0; i < moves.size(); ++i) {
    const typename G::Position before = game.position();
    try {
      const Move move = game.Play(moves[i]);
      display.push_back(G::FormatDisplayMove(before, move));
    } catch (const Error& error) {
      throw Error("move " + std::to_string(i + 1) + ": " + error.what());
    }
  }
  return display;
}

}  // namespace vz
