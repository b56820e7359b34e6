#pragma once

// Playing the games of a match (arena/match.h): one game alone, or many games at once in
// lockstep so that the searches of all of them share one evaluator batch per player per round
// (the search driver, engine/search/search_driver.h).

#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "arena/match.h"
#include "arena/player.h"
#include "engine/alphabeta/evaluation.h"
#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/search/search_driver.h"
#include "records/pgn_record.h"

namespace vz {

// The seed of game `index` of a match seeded with `match_seed` (white's; black gets its
// SplitMix64).
inline uint64_t GameSeed(uint64_t match_seed, int index) {
  return SplitMix64(match_seed * 1000003u + uint64_t(index));
}

// The result and record of `game` (played from `opening_plies` plies), ended by the rules or, when
// still running, adjudicated as `config` says. `values` holds the searches' root values of the
// plies after the opening (MatchGame::values; NaN where no search chose the move).
template <Game G>
MatchGame FinishGame(const GameState<G>& game, size_t opening_plies, const MatchConfig& config,
                     bool player1_white, int index, const std::vector<float>& values = {}) {
  MatchGame result;
  result.index = index;
  result.player1_white = player1_white;
  result.plies = int(game.moves().size() - opening_plies);
  result.outcome = game.outcome();
  result.start = G::FormatPosition(game.start_position());
  result.moves = game.moves();
  result.values.assign(game.moves().size(), std::numeric_limits<float>::quiet_NaN());
  for (size_t i = 0; i < values.size() && opening_plies + i < result.values.size(); ++i) {
    result.values[opening_plies + i] = values[i];
  }
  if (result.outcome.IsTerminal()) {
    result.termination = ReasonName(result.outcome.reason);
  } else {
    result.adjudicated = true;
    result.outcome.reason = Reason::kAdjudication;
    if (config.adjudication == Adjudication::kDraw) {
      result.outcome.status = Status::kDraw;
      result.termination = fmt::format("adjudication: draw after {} plies", config.max_plies);
    } else {
      const int material = MaterialBalance<G>(game.position());
      result.outcome.status = MaterialAdjudication<G>(game.position(), config.material_margin);
      result.termination = fmt::format("adjudication: material {:+d} after {} plies (margin {})",
                                       material, config.max_plies, config.material_margin);
    }
  }
  RecordInfo info;
  info.outcome = result.outcome;
  info.termination = result.termination;
  info.white = player1_white ? config.player1 : config.player2;
  info.black = player1_white ? config.player2 : config.player1;
  info.round = index + 1;
  result.record = WriteRecord(game, info);
  return result;
}

// True when `game`, started from `opening_plies` plies, is over or due for adjudication.
template <Game G>
bool GameOver(const GameState<G>& game, size_t opening_plies, const MatchConfig& config) {
  return game.outcome().IsTerminal() ||
         int(game.moves().size() - opening_plies) >= config.max_plies;
}

// Plays game `index` of a match from `opening`, each player searching alone.
template <Game G>
MatchGame PlayGame(const GameState<G>& opening, Player<G>& white, Player<G>& black,
                   const MatchConfig& config, bool player1_white, int index) {
  GameState<G> game = opening;
  const uint64_t seed = GameSeed(config.seed, index);
  white.NewGame(seed);
  black.NewGame(SplitMix64(seed));
  const size_t opening_plies = opening.moves().size();
  std::vector<float> values;
  while (!GameOver(game, opening_plies, config)) {
    if (config.stop != nullptr && config.stop->load()) throw MatchStopped();
    Player<G>& mover = G::SideToMove(game.position()) == Color::kWhite ? white : black;
    const Move move = mover.ChooseMove(game);
    values.push_back(mover.LastValue());
    game.Play(move);
  }
  return FinishGame(game, opening_plies, config, player1_white, index, values);
}

// One of the two players of a lockstep match.
template <Game G>
struct LockstepSide {
  // A fresh player for one game slot (each slot plays its games one after the other).
  std::function<std::unique_ptr<Player<G>>()> make;
  // Evaluates the leaves of this side's searches in all the slots, one call per round; must be
  // set when `make` gives MCTS players (Player::AsSearchPlayer), and outlive the match. When both
  // sides have the same evaluator, their leaves go to it together, in one call per round.
  Evaluator<G>* evaluator = nullptr;
};

// Counts of a lockstep match.
struct LockstepStats {
  int64_t rounds = 0;  // evaluation rounds
  // Per side (player 1, player 2); a shared evaluator's calls count for player 1.
  int64_t evaluator_calls[2] = {};  // rounds with leaves
  int64_t evaluated[2] = {};        // positions evaluated
  int max_batch[2] = {};            // largest batch
};

// Plays the pairs [0, num_pairs) of a match with up to `concurrency` games in flight, in lockstep
// (numbered from config.first_pair: the pairs, openings, seeds and game indices below are offset
// by it): games are started in index order (game 2k: pair k, player 1 White; game 2k+1: colours
// reversed), moves of non-MCTS players are played at once, and each round every game whose side
// to move is an MCTS player adds its leaves to the batch of that side; each side's batch is
// evaluated with ONE call of its evaluator, the results are backed up, and a search that has spent
// its budget plays its move (sides sharing one evaluator: one call for both). Game `index` gets
// the same seeds as in PlayGame, so with evaluators
// whose results do not depend on the rest of the batch every game is the same as when played
// alone. `opening(pair)` gives a pair's start; `on_pair(pair, games)` is called when both games
// of a pair have ended (in order of completion) and returns false to start no further pairs (the
// games in flight are finished and reported). Single-threaded (a second thread for the other
// player's half of a round would clash with LibTorch's per-thread CPU thread setting) and
// deterministic. Throws what the players and evaluators throw.
template <Game G>
LockstepStats PlayLockstep(const MatchConfig& config, int num_pairs, LockstepSide<G> (&sides)[2],
                           const std::function<GameState<G>(int pair)>& opening,
                           const std::function<bool(int pair, MatchGame (&games)[2])>& on_pair) {
  struct Slot {
    std::unique_ptr<Player<G>> players[2];  // [side]
    bool active = false;
    int index = 0;
    GameState<G> game;
    size_t opening_plies = 0;
    bool searching = false;     // the mover's search of this move has begun
    std::vector<float> values;  // [ply after the opening] root value, White's view
  };
  struct PairState {
    MatchGame games[2];
    int finished = 0;
    std::optional<GameState<G>> opening;
  };
  const int num_games = 2 * num_pairs;
  std::vector<Slot> slots(size_t(std::clamp(config.concurrency, 1, num_games)));
  for (Slot& slot : slots) {
    for (int side = 0; side < 2; ++side) slot.players[side] = sides[side].make();
  }
  std::vector<PairState> pairs(static_cast<size_t>(num_pairs));
  int next_game = 0;
  bool stopping = false;
  LockstepStats stats;

  // The side (0: player 1) whose move it is in `slot`.
  auto mover_side = [](const Slot& slot) {
    const bool white_to_move = G::SideToMove(slot.game.position()) == Color::kWhite;
    const bool player1_white = slot.index % 2 == 0;
    return white_to_move == player1_white ? 0 : 1;
  };
  auto start_next = [&](Slot& slot) {
    // After a stop only the second games of pairs already begun are started.
    if (next_game >= num_games || (stopping && next_game % 2 == 0)) return false;
    const int index = next_game++;
    PairState& pair = pairs[size_t(index / 2)];
    if (index % 2 == 0) pair.opening = opening(config.first_pair + index / 2);
    slot.active = true;
    slot.index = index;
    slot.game = *pair.opening;
    slot.opening_plies = slot.game.moves().size();
    slot.searching = false;
    slot.values.clear();
    const uint64_t seed = GameSeed(config.seed, 2 * config.first_pair + index);
    const bool player1_white = index % 2 == 0;
    slot.players[player1_white ? 0 : 1]->NewGame(seed);
    slot.players[player1_white ? 1 : 0]->NewGame(SplitMix64(seed));
    return true;
  };
  auto finish = [&](Slot& slot) {
    slot.active = false;
    const int pair_index = slot.index / 2;
    PairState& pair = pairs[size_t(pair_index)];
    pair.games[slot.index % 2] =
        FinishGame(slot.game, slot.opening_plies, config, slot.index % 2 == 0,
                   2 * config.first_pair + slot.index, slot.values);
    if (++pair.finished == 2) {
      pair.opening.reset();
      if (!on_pair(config.first_pair + pair_index, pair.games)) stopping = true;
    }
  };
  // Plays `slot` on until its mover waits for an evaluation round, or no game is left for it.
  auto advance = [&](Slot& slot) {
    for (;;) {
      if (!slot.active && !start_next(slot)) return;
      if (GameOver(slot.game, slot.opening_plies, config)) {
        finish(slot);
        continue;
      }
      Player<G>& mover = *slot.players[mover_side(slot)];
      SearchPlayer<G>* search = mover.AsSearchPlayer();
      if (search == nullptr) {
        slot.game.Play(mover.ChooseMove(slot.game));
        slot.values.push_back(mover.LastValue());
        continue;
      }
      if (!slot.searching) {
        search->BeginMove(slot.game, *sides[mover_side(slot)].evaluator);
        slot.searching = true;
      }
      if (!search->Done()) return;
      const Move move = search->EndMove(slot.game);
      slot.values.push_back(search->LastValue());
      slot.game.Play(move);
      slot.searching = false;
    }
  };

  // One search driver per evaluator (a shared evaluator's driver serves both sides and counts
  // for player 1).
  SearchDriver<G, SearchPlayer<G>> drivers[2];
  std::vector<SearchPlayer<G>*> searches;  // [game of this part of the round]
  const bool shared = sides[0].evaluator != nullptr && sides[0].evaluator == sides[1].evaluator;
  // A part of a round for the sides with bit s of `side_mask`, which share one evaluator: one
  // driver round over their games' searches.
  auto run_sides = [&](int side_mask) {
    const int side = side_mask == 2 && !shared ? 1 : 0;  // whose driver and counters
    searches.clear();
    for (Slot& slot : slots) {
      if (slot.active && ((side_mask >> mover_side(slot)) & 1) != 0) {
        searches.push_back(slot.players[mover_side(slot)]->AsSearchPlayer());
      }
    }
    VZ_CHECK(sides[side].evaluator != nullptr);
    drivers[side].RunRound(*sides[side].evaluator, searches);
    stats.evaluator_calls[side] = drivers[side].stats().evaluator_calls;
    stats.evaluated[side] = drivers[side].stats().evaluated;
    stats.max_batch[side] = drivers[side].stats().max_batch;
  };
  for (;;) {
    if (config.stop != nullptr && config.stop->load()) throw MatchStopped();
    for (Slot& slot : slots) advance(slot);
    bool waiting[2] = {false, false};  // some game waits for this side's round
    for (const Slot& slot : slots) {
      if (slot.active) waiting[mover_side(slot)] = true;
    }
    if (!waiting[0] && !waiting[1]) return stats;
    ++stats.rounds;
    if (shared) {
      run_sides(int(waiting[0]) | int(waiting[1]) << 1);
    } else {
      for (int side = 0; side < 2; ++side) {
        if (waiting[side]) run_sides(1 << side);
      }
    }
  }
}

}  // namespace vz
