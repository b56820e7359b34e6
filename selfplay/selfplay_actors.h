#pragma once

// The actors of the training loop: many self-play games of one network in one thread, advanced in
// lockstep by the search driver (engine/search/search_driver.h) so that every round is ONE batched
// evaluator call over the leaves of all the games in flight (AlphaZero's self-play, with KataGo's
// and Lc0's practice for resignation and over-long games).
//
// Each move is a Gumbel search (Danihelka et al., ICLR 2022) of SelfPlayConfig::simulations
// simulations with tree reuse; its improved policy is the move's policy target. Two exceptions,
// each switchable: with `forced_moves_unsearched`, a move that is the only legal one is played
// without a search and recorded without a target (its target would be trivial); with
// `cheap_simulations` > 0 (KataGo's playout cap randomisation, Wu 2019), a move is a full search
// with a target only with probability `full_search_fraction`, else a cheap search of
// cheap_simulations without root noise whose move is played but not recorded as a target (the
// game's value targets come from more games for the same compute). A game begins with
// `random_opening_plies` uniformly random plies (diversity; recorded without targets), then the
// first `temperature_plies` moves are sampled from the improved policy at `temperature`; after
// that the move is Gumbel's sequential-halving winner (which already explores through its Gumbel
// sample). A side resigns when the expected score (W + D/2) of its best root move stays below
// `resign_threshold` for `resign_consecutive_plies` of its own moves in a row (the record ends with
// the last move played), except in a `resign_disabled_fraction` share of games, which play on and
// record whether (and for which side) they would have resigned, so that wrong resignations are
// measured; with `resign_false_rate_target` > 0 those games also calibrate the threshold
// (selfplay/resign_calibration.h). A game still running after `max_plies` plies is
// adjudicated as configured (draw, or by material count) and recorded as such.
//
// Deterministic: game k's random choices come from the actor seed and k alone (its moves too when
// the evaluator's results do not depend on the rest of the batch). Not thread-safe.

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/alphabeta/evaluation.h"
#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/search/evaluator.h"
#include "engine/search/mcts.h"
#include "engine/search/policy.h"
#include "engine/search/search_driver.h"
#include "proto/train.pb.h"
#include "selfplay/adjudication.h"
#include "selfplay/resign_calibration.h"

namespace vz {

// Counts of the games an actor set finished (monotone; summed over the run by the caller).
struct ActorStats {
  int64_t games = 0;
  int64_t positions = 0;     // moves with a policy target (training samples)
  int64_t plies = 0;         // all moves, random opening plies included
  int64_t forced_moves = 0;  // moves played unsearched as the only legal move (no target)
  int64_t cheap_moves = 0;   // moves of a cheap search (playout cap randomisation; no target)
  int64_t rounds = 0;        // evaluator calls (mean batch: evaluated / rounds)
  int64_t evaluated = 0;     // positions evaluated
  // Wall seconds of the rounds' phases (SearchDriverStats): gathering leaves (the searches'
  // descents), the evaluator calls, and expansion and backup.
  double gather_seconds = 0.0;
  double evaluate_seconds = 0.0;
  double apply_seconds = 0.0;
  // Seconds the actor groups waited at the end of a round for the slowest group
  // (ConcurrentActors; 0 for one group): round wall time minus the group's own round time,
  // summed over groups and rounds.
  double wait_seconds = 0.0;
  int64_t white_wins = 0, draws = 0, black_wins = 0;
  int64_t resigned = 0;             // games ended by resignation
  int64_t adjudicated = 0;          // over-long games
  int64_t resign_disabled = 0;      // games played without resignation
  int64_t would_have_resigned = 0;  // ... of which the value crossed the resignation threshold
  int64_t false_resignations = 0;   // ... and the side that would have resigned did not lose
  float resign_threshold = 0.0f;    // the threshold in force now (calibrated or configured)
};

template <Game G>
class SelfPlayActors {
 public:
  // `config` must be valid (ValidateTrainConfig). Game numbers are `first_game_index` (so a
  // resumed run continues its numbering), then every `index_stride`-th number after it (>= 1;
  // concurrent groups interleave: selfplay/concurrent_actors.h); `worker` and `config_hash` are
  // copied into every record.
  SelfPlayActors(const proto::SelfPlayConfig& config, uint64_t seed, int64_t first_game_index,
                 std::string worker, uint64_t config_hash, int64_t index_stride = 1)
      : config_(config),
        seed_(seed),
        next_index_(first_game_index),
        index_stride_(std::max<int64_t>(1, index_stride)),
        worker_(std::move(worker)),
        config_hash_(config_hash),
        slots_(size_t(std::max<uint32_t>(1, config.concurrent_games()))) {
    params_.gumbel = true;
    params_.gumbel_max_considered = int(config.gumbel_max_considered());
    params_.gumbel_c_visit = config.gumbel_c_visit();
    params_.gumbel_c_scale = config.gumbel_c_scale();
    params_.leaves_per_round = 1;
    // Self-play trees stay small (budget x moves); the cap only guards memory.
    params_.max_nodes = int64_t{1} << 20;
    if (config.resign_false_rate_target() > 0.0f && config.resign_threshold() > 0.0f) {
      calibrator_.emplace(config.resign_threshold(), config.resign_false_rate_target());
    }
    stats_.resign_threshold = ResignThreshold();
  }

  // The net id recorded in the games started from now on.
  void set_net_id(std::string net_id) { net_id_ = std::move(net_id); }

  // Plays every game on until its side to move waits for an evaluation, evaluates all their leaves
  // with ONE call of `evaluator`, and backs the results up. Games that end are appended to
  // `finished` and their slots start new games at once. Returns the number of positions evaluated.
  // Throws what the evaluator throws, and vz::Error on a non-finite evaluation (the leaves in
  // flight are then cancelled).
  int RunRound(Evaluator<G>& evaluator, std::vector<proto::GameRecord>& finished) {
    for (Slot& slot : slots_) Advance(slot, finished, evaluator);
    searches_.clear();
    for (Slot& slot : slots_) searches_.push_back(slot.search.get());
    const int evaluated = driver_.RunRound(evaluator, searches_);
    const SearchDriverStats& rounds = driver_.stats();
    stats_.rounds = rounds.evaluator_calls;
    stats_.evaluated = rounds.evaluated;
    stats_.gather_seconds = rounds.gather_seconds;
    stats_.evaluate_seconds = rounds.evaluate_seconds;
    stats_.apply_seconds = rounds.apply_seconds;
    return evaluated;
  }

  // Counts of the games finished so far by this actor set.
  const ActorStats& stats() const { return stats_; }
  // The number the next game started will get.
  int64_t next_game_index() const { return next_index_; }
  // Games in flight (SelfPlayConfig::concurrent_games, at least 1).
  int concurrent_games() const { return int(slots_.size()); }

 private:
  struct Slot {
    bool active = false;
    bool searching = false;
    GameState<G> game;
    std::unique_ptr<Mcts<G>> search;
    proto::GameRecord record;
    uint64_t random = 0;      // SplitMix64 stream of this game
    int below[2] = {0, 0};    // consecutive own moves under the resignation threshold
    int opening_plies = 0;    // random plies played at the start
    bool full_search = true;  // the running search is a full one (a target), not a cheap one
    int forced_moves = 0;     // moves of this game played unsearched (forced)
    int cheap_moves = 0;      // ... searched cheaply (playout cap randomisation)
    // [White, Black] resignation levels of a resign-disabled game (threshold calibration).
    ResignLevel levels[2] = {ResignLevel(1), ResignLevel(1)};
  };

  // The resignation threshold in force: calibrated, or the configured one.
  float ResignThreshold() const {
    return calibrator_ ? calibrator_->threshold() : config_.resign_threshold();
  }

  static uint64_t Next(uint64_t& state) {
    state += 0x9E3779B97F4A7C15ull;
    return SplitMix64(state);
  }
  static double Uniform(uint64_t& state) { return double(Next(state) >> 11) * 0x1.0p-53; }

  void StartGame(Slot& slot) {
    const int64_t index = next_index_;
    next_index_ += index_stride_;
    slot.active = true;
    slot.searching = false;
    slot.random = SplitMix64(seed_ * 0x100000001B3ull + uint64_t(index));
    SearchParams params = params_;
    params.seed = Next(slot.random);
    slot.search = std::make_unique<Mcts<G>>(params);
    slot.game = GameState<G>();
    slot.below[0] = slot.below[1] = 0;
    slot.forced_moves = slot.cheap_moves = 0;
    slot.levels[0] = slot.levels[1] = ResignLevel(int(config_.resign_consecutive_plies()));
    slot.record.Clear();
    slot.record.set_game(std::string(G::kName));
    slot.record.set_rules_version(1);
    slot.record.set_net_id(net_id_);
    slot.record.set_config_hash(config_hash_);
    slot.record.set_start_fen(G::FormatPosition(slot.game.position()));
    slot.record.set_index(uint64_t(index));
    slot.record.set_worker(worker_);
    slot.record.set_resign_disabled(config_.resign_threshold() > 0.0f &&
                                    Uniform(slot.random) < config_.resign_disabled_fraction());
    // Random opening plies (no training targets).
    slot.opening_plies = 0;
    for (uint32_t ply = 0; ply < config_.random_opening_plies(); ++ply) {
      if (slot.game.outcome().IsTerminal()) break;
      const auto& legal = slot.game.legal_moves();
      const Move move = legal[int((Next(slot.random) >> 32) * uint64_t(legal.size) >> 32)];
      proto::MoveRecord* record = slot.record.add_moves();
      record->set_move(G::FormatMove(slot.game.position(), move));
      record->set_has_target(false);
      slot.game.Play(move);
      ++slot.opening_plies;
    }
  }

  bool OverLong(const Slot& slot) const {
    return slot.game.moves().size() >= size_t(config_.max_plies());
  }

  // Ends the game of `slot` with `status`, `reason` (and flags) and hands its record over.
  void Finish(Slot& slot, Status status, const std::string& reason,
              std::vector<proto::GameRecord>& finished) {
    proto::GameRecord& record = slot.record;
    record.set_result(ResultFromWhite(status));
    record.set_reason(reason);
    ++stats_.games;
    stats_.plies += int64_t(slot.game.moves().size());
    for (const proto::MoveRecord& move : record.moves()) stats_.positions += move.has_target();
    stats_.forced_moves += slot.forced_moves;
    stats_.cheap_moves += slot.cheap_moves;
    (status == Status::kWhiteWins   ? stats_.white_wins
     : status == Status::kBlackWins ? stats_.black_wins
                                    : stats_.draws)++;
    stats_.resigned += record.resigned();
    stats_.adjudicated += record.adjudicated();
    if (record.resign_disabled()) {
      ++stats_.resign_disabled;
      if (record.would_have_resigned()) {
        ++stats_.would_have_resigned;
        // A wrong resignation: the side that would have resigned did not lose.
        if (record.result() != -record.would_have_resigned_side()) ++stats_.false_resignations;
      }
      if (calibrator_) {
        calibrator_->AddGame(slot.levels[0].level(), slot.levels[1].level(), record.result());
        stats_.resign_threshold = calibrator_->threshold();
      }
    }
    finished.push_back(std::move(record));
    record.Clear();
    slot.active = false;
  }

  void FinishByRulesOrAdjudication(Slot& slot, std::vector<proto::GameRecord>& finished) {
    const Outcome outcome = slot.game.outcome();
    if (outcome.IsTerminal()) {
      Finish(slot, outcome.status, ReasonName(outcome.reason), finished);
      return;
    }
    slot.record.set_adjudicated(true);
    const OverLongResult adjudicated =
        AdjudicateOverLong<G>(config_, slot.game.position(), slot.game.moves().size());
    Finish(slot, adjudicated.status, adjudicated.reason, finished);
  }

  // The move to play after the search of `slot`: sampled from the policy target at the
  // temperature during the first temperature_plies moves, else the search's best move.
  Move ChooseMove(Slot& slot, const SearchResult& result) {
    const int searched_plies = int(slot.game.moves().size()) - slot.opening_plies;
    if (searched_plies < int(config_.temperature_plies()) && config_.temperature() > 0.0f &&
        result.moves.size() > 1) {
      std::vector<double> weights;
      double total = 0.0;
      for (const RootMoveStats& stats : result.moves) {
        const double weight =
            stats.policy_target > 0.0f
                ? std::pow(double(stats.policy_target), 1.0 / double(config_.temperature()))
                : 0.0;
        weights.push_back(weight);
        total += weight;
      }
      if (total > 0.0) {
        double pick = Uniform(slot.random) * total;
        for (size_t i = 0; i < weights.size(); ++i) {
          pick -= weights[i];
          if (pick < 0.0 && weights[i] > 0.0) return result.moves[i].move;
        }
      }
    }
    if (result.best_move != kNullMove) return result.best_move;
    return slot.game.legal_moves()[0];
  }

  // Plays `slot` on until its search waits for an evaluation round of `evaluator`.
  void Advance(Slot& slot, std::vector<proto::GameRecord>& finished, Evaluator<G>& evaluator) {
    for (;;) {
      if (!slot.active) StartGame(slot);
      if (slot.game.outcome().IsTerminal() || OverLong(slot)) {
        FinishByRulesOrAdjudication(slot, finished);
        continue;
      }
      Mcts<G>& search = *slot.search;
      if (!slot.searching) {
        if (config_.forced_moves_unsearched() && slot.game.legal_moves().size == 1) {
          proto::MoveRecord* record = slot.record.add_moves();
          record->set_move(G::FormatMove(slot.game.position(), slot.game.legal_moves()[0]));
          record->set_has_target(false);
          slot.game.Play(slot.game.legal_moves()[0]);
          ++slot.forced_moves;
          continue;
        }
        // Playout cap randomisation draws only when it is on, so that runs without it keep
        // their games.
        slot.full_search = config_.cheap_simulations() == 0 ||
                           Uniform(slot.random) < double(config_.full_search_fraction());
        search.SetRoot(slot.game);
        search.StartSearch(
            int64_t(slot.full_search ? config_.simulations() : config_.cheap_simulations()),
            evaluator, /*root_noise=*/slot.full_search);
        slot.searching = true;
      }
      if (!search.Done()) return;
      slot.searching = false;
      const SearchResult result = search.Result();
      const typename G::Position& position = slot.game.position();
      const Color side = G::SideToMove(position);
      const Move move = ChooseMove(slot, result);

      // Resignation on the expected score (W + D/2) of the side to move's best move (the root's
      // average would count the exploration of worse moves).
      if (config_.resign_threshold() > 0.0f) {
        Wdl best = result.root_wdl;
        for (const RootMoveStats& stats : result.moves) {
          if (stats.move == result.best_move &&
              (stats.visits > 0 || stats.proven != Status::kOngoing)) {
            best = stats.wdl;
          }
        }
        const float score = best.win + 0.5f * best.draw;
        if (slot.record.resign_disabled()) slot.levels[side == Color::kWhite ? 0 : 1].Add(score);
        int& below = slot.below[side == Color::kWhite ? 0 : 1];
        below = score < ResignThreshold() ? below + 1 : 0;
        if (below >= int(config_.resign_consecutive_plies())) {
          const int side_sign = side == Color::kWhite ? 1 : -1;
          if (slot.record.resign_disabled()) {
            if (!slot.record.would_have_resigned()) {
              slot.record.set_would_have_resigned(true);
              slot.record.set_would_have_resigned_side(side_sign);
            }
          } else {
            // The game ends before this move: the record ends with the last move played.
            slot.record.set_resigned(true);
            Finish(slot, side == Color::kWhite ? Status::kBlackWins : Status::kWhiteWins,
                   fmt::format("resignation ({} at expected score {:.3f})", ColorName(side), score),
                   finished);
            continue;
          }
        }
      }

      proto::MoveRecord* record = slot.record.add_moves();
      record->set_move(G::FormatMove(position, move));
      record->set_has_target(slot.full_search);
      if (slot.full_search) {
        for (const auto& [action, probability] : PolicyTargetByAction(result)) {
          if (probability <= 0.0f) continue;
          record->add_policy_index(uint32_t(action));
          record->add_policy_target(probability);
        }
      } else {
        ++slot.cheap_moves;
      }
      record->add_root_wdl(result.root_wdl.win);
      record->add_root_wdl(result.root_wdl.draw);
      record->add_root_wdl(result.root_wdl.loss);
      const float raw_white = search.tree().raw_value[Mcts<G>::kRoot];
      record->set_raw_value(side == Color::kWhite ? raw_white : -raw_white);
      slot.game.Play(move);
    }
  }

  proto::SelfPlayConfig config_;
  SearchParams params_;
  uint64_t seed_;
  int64_t next_index_;
  int64_t index_stride_;
  std::string worker_;
  uint64_t config_hash_;
  std::string net_id_;
  std::vector<Slot> slots_;
  std::vector<Mcts<G>*> searches_;  // [slot] this round's searches
  SearchDriver<G> driver_;
  ActorStats stats_;
  std::optional<ResignCalibrator> calibrator_;  // with resign_false_rate_target > 0
};

}  // namespace vz
