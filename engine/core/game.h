#pragma once

// What a game provides to the rest of vzero (the OpenSpiel idea of one interface for every game,
// but as a C++20 concept over static functions, so that hot paths are templates with no virtual
// calls and the rule core can be instantiated in CUDA kernels).
//
// A game type G is a struct of static members:
//   Position        fixed-size, trivially copyable position (pieces, side to move, counters, hash)
//   MoveList        vz::MoveList<kMaxMoves>
//   kName           registry name ("portuguese-draughts", "chaco-rex", ...)
//   kMaxMoves       upper bound on legal moves of any valid position
//   kNumActions     policy size: ActionIndex(p, m) is in [0, kNumActions)
//   kHasCheck       chess-like game with check (InCheck meaningful)
//   kHasRepetitionDraw  threefold repetition is a draw (the host GameState applies it)
//   kActionsMayCollide  two legal moves of one position may share an action index (draughts
//                       captures with equal start and end squares); false for the chess games
// Rule core (VZ_HD: host and device; no heap, no exceptions):
//   InitialPosition()                   -> Position
//   GenerateMoves(p, list)              fills list with every legal move of p (draw rules ignored)
//   CountMoves(p)       -> int          the size of that list, without writing it (mobility)
//   ApplyMove(p, m)                     plays legal move m on p, hash updated incrementally
//   LocalOutcome(p, num_legal_moves)    outcome decided by p alone (no history)
//   Hash(p)                             incremental Zobrist hash stored in p
//   ComputeHash(p)                      the same hash computed from scratch (for tests)
//   RepetitionKey(p)                    key for threefold repetition (equal keys = same position)
//   ActionIndex(p, m)                   dense policy index of legal move m in [0, kNumActions)
//   SideToMove(p), InCheck(p)
// Host-only text I/O (throws vz::Error with a one-line message naming the input on bad text):
//   ParsePosition(text) -> Position      the game's FEN-like string, validity checks included
//   FormatPosition(p)   -> std::string
//   ParseMove(p, text)  -> Move          protocol or display form; must be legal in p
//   FormatMove(p, m)    -> std::string   protocol form
//   FormatDisplayMove(p, m) -> std::string  display (record) form
//   BoardPicture(p)     -> std::string   ASCII board, several lines ending in '\n'
// Optional (outside the concept; records number their moves from 1 without it):
//   MoveNumber(p)       -> int           the full-move number of the position string (PGN's)

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "engine/core/types.h"

namespace vz {

template <class G>
concept Game = std::is_trivially_copyable_v<typename G::Position> &&
    std::same_as<typename G::MoveList, MoveList<G::kMaxMoves>> &&
    requires(const typename G::Position& position, typename G::Position& mutable_position,
             Move move, typename G::MoveList& moves, std::string_view text, int num_legal) {
  { G::kName } -> std::convertible_to<std::string_view>;
  { G::kNumActions } -> std::convertible_to<int>;
  { G::kHasCheck } -> std::convertible_to<bool>;
  { G::kHasRepetitionDraw } -> std::convertible_to<bool>;
  { G::kActionsMayCollide } -> std::convertible_to<bool>;
  { G::InitialPosition() } -> std::same_as<typename G::Position>;
  { G::GenerateMoves(position, moves) } -> std::same_as<void>;
  { G::CountMoves(position) } -> std::same_as<int>;
  { G::ApplyMove(mutable_position, move) } -> std::same_as<void>;
  { G::LocalOutcome(position, num_legal) } -> std::same_as<Outcome>;
  { G::Hash(position) } -> std::same_as<uint64_t>;
  { G::ComputeHash(position) } -> std::same_as<uint64_t>;
  { G::RepetitionKey(position) } -> std::same_as<uint64_t>;
  { G::ActionIndex(position, move) } -> std::same_as<int>;
  { G::SideToMove(position) } -> std::same_as<Color>;
  { G::InCheck(position) } -> std::same_as<bool>;
  { G::ParsePosition(text) } -> std::same_as<typename G::Position>;
  { G::FormatPosition(position) } -> std::same_as<std::string>;
  { G::ParseMove(position, text) } -> std::same_as<Move>;
  { G::FormatMove(position, move) } -> std::same_as<std::string>;
  { G::FormatDisplayMove(position, move) } -> std::same_as<std::string>;
  { G::BoardPicture(position) } -> std::same_as<std::string>;
};

}  // namespace vz
