#pragma once

// The replay window of self-play training (AlphaZero's replay buffer of the most recent games,
// sampled uniformly by position): game records (proto::GameRecord, proto/train.proto) are replayed
// from their start position, every position that carries a policy target is kept, and training
// batches (nets::TrainingBatch) are drawn uniformly from the positions of the last N games.
//
// Memory per kept position: the game's fixed-size Position, its repetition count, the result
// from the side to move's view and the sparse policy target (an action index and a probability
// per searched move); input planes, the dense policy and the legal mask are built at Sample time.
// Not thread-safe: AddGame and Sample must not run at the same time (Sample alone is const).

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game.h"
#include "engine/core/game_state.h"
#include "engine/encodings.h"
#include "engine/input_encoding.h"
#include "nets/trainer.h"
#include "proto/train.pb.h"

namespace vz {

template <Game G>
class ReplayWindow {
 public:
  using Position = typename G::Position;
  using Encoding = InputEncoding<G>;
  // Input floats of one position: [kPlanes][kHeight][kWidth].
  static constexpr int kInputSize = Encoding::kPlanes * Encoding::kHeight * Encoding::kWidth;

  // A window over the last `window_games` games. Throws vz::Error if window_games < 1.
  explicit ReplayWindow(int window_games) : window_games_(window_games) {
    if (window_games < 1) {
      throw Error(fmt::format("replay window: window_games {} is not positive", window_games));
    }
  }

  // Replays `record` from its start_fen (empty: the initial position) by its protocol-form moves
  // and keeps every position whose move has_target, with its repetition count, the sparse policy
  // target (normalized to sum 1) and the game's result from that position's side to move. Then
  // drops the oldest games beyond window_games. `source` names the record in errors (e.g.
  // "records/chunk-000012.vzr game 5"). Throws vz::Error "SOURCE: ..." — naming the ply (1-based)
  // where it applies — if the record is not of game G, its start position does not parse, its
  // result is not -1/0/+1 or contradicts a final position that the rules decide, a move does not
  // parse or is illegal, the policy arrays differ in length or are empty on a target ply, an
  // index is out of [0, kNumActions) or is no legal move's action, a probability is negative or
  // not finite or they sum to 0, or root_wdl holds neither 0 nor 3 values. The window is
  // unchanged then.
  void AddGame(const proto::GameRecord& record, std::string_view source) {
    if (record.game() != G::kName) {
      throw Error(
          fmt::format("{}: the record is a game of '{}', not {}", source, record.game(), G::kName));
    }
    if (record.result() < -1 || record.result() > 1) {
      throw Error(fmt::format("{}: result {} is not -1, 0 or +1", source, record.result()));
    }
    const Position start = [&] {
      if (record.start_fen().empty()) return G::InitialPosition();
      try {
        return G::ParsePosition(record.start_fen());
      } catch (const Error& error) {
        throw Error(fmt::format("{}: start_fen: {}", source, error.what()));
      }
    }();

    StoredGame stored;
    GameState<G> game(start);
    std::vector<uint8_t> legal_actions(G::kNumActions, 0);
    for (int ply = 0; ply < record.moves_size(); ++ply) {
      const proto::MoveRecord& move = record.moves(ply);
      auto fail = [&](const std::string& what) {
        return Error(fmt::format("{}: ply {} ('{}'): {}", source, ply + 1, move.move(), what));
      };
      if (move.root_wdl_size() != 0 && move.root_wdl_size() != 3) {
        throw fail(fmt::format("root_wdl holds {} values, not 3", move.root_wdl_size()));
      }
      if (move.has_target()) {
        const Position& position = game.position();
        if (move.policy_index_size() != move.policy_target_size()) {
          throw fail(fmt::format("{} policy indices but {} policy targets",
                                 move.policy_index_size(), move.policy_target_size()));
        }
        if (move.policy_index_size() == 0) throw fail("a target ply with an empty policy target");
        for (Move legal : game.legal_moves())
          legal_actions[Encoding::PolicyIndex(position, legal)] = 1;
        double sum = 0;
        for (int k = 0; k < move.policy_index_size(); ++k) {
          const uint32_t index = move.policy_index(k);
          const float probability = move.policy_target(k);
          if (index >= uint32_t(G::kNumActions)) {
            throw fail(
                fmt::format("policy index {} is out of range 0..{}", index, G::kNumActions - 1));
          }
          if (!legal_actions[index])
            throw fail(fmt::format("policy index {} is no legal move", index));
          if (!std::isfinite(probability) || probability < 0) {
            throw fail(fmt::format("policy target {} is not a probability", probability));
          }
          sum += probability;
        }
        for (Move legal : game.legal_moves())
          legal_actions[Encoding::PolicyIndex(position, legal)] = 0;
        if (!(sum > 0)) throw fail("the policy target sums to 0");

        Entry entry;
        entry.position = position;
        entry.repetition_count = game.RepetitionCount();
        entry.result = G::SideToMove(position) == Color::kWhite ? int8_t(record.result())
                                                                : int8_t(-record.result());
        entry.target_begin = uint32_t(stored.indices.size());
        entry.target_count = uint32_t(move.policy_index_size());
        for (int k = 0; k < move.policy_index_size(); ++k) {
          stored.indices.push_back(move.policy_index(k));
          stored.probabilities.push_back(float(move.policy_target(k) / sum));
        }
        stored.entries.push_back(entry);
      }
      try {
        game.Play(move.move());
      } catch (const Error& error) {
        throw fail(error.what());
      }
    }
    const Outcome outcome = game.outcome();
    if (outcome.IsTerminal()) {
      const int expected = outcome.status == Status::kWhiteWins   ? 1
                           : outcome.status == Status::kBlackWins ? -1
                                                                  : 0;
      if (expected != record.result()) {
        throw Error(fmt::format("{}: result {} contradicts the final position ({}, {})", source,
                                record.result(), StatusName(outcome.status),
                                ReasonName(outcome.reason)));
      }
    }

    const int64_t count = int64_t(stored.entries.size());
    first_position_.push_back(total_positions_added_);
    games_.push_back(std::move(stored));
    positions_ += count;
    total_positions_added_ += count;
    ++total_games_added_;
    while (int64_t(games_.size()) > window_games_) {
      positions_ -= int64_t(games_.front().entries.size());
      games_.pop_front();
      first_position_.pop_front();
    }
  }

  int window_games() const { return window_games_; }
  // Games and kept positions in the window now.
  int64_t num_games() const { return int64_t(games_.size()); }
  int64_t num_positions() const { return positions_; }
  // Games and kept positions added since construction (dropped ones included).
  int64_t total_games_added() const { return total_games_added_; }
  int64_t total_positions_added() const { return total_positions_added_; }

  // Fills `batch` with `size` positions drawn uniformly (with replacement) from the window;
  // `random()` returns a uniform uint64_t. Shapes (nets/trainer.h):
  //   batch.size = size
  //   planes [size][kInputSize]              Encoding::Encode(position, repetition count)
  //   policy [size][G::kNumActions]          the policy target, dense, sums to 1
  //   wdl    [size][3]                       one-hot win/draw/loss of the side to move
  //   legal  [size][G::kNumActions]          1 at the policy index of every legal move
  // Policy indices are G::ActionIndex = Encoding::PolicyIndex, in the side to move's frame.
  // Throws vz::Error if the window is empty or size < 1.
  template <class Random>
  void Sample(int size, Random&& random, nets::TrainingBatch& batch) const {
    if (positions_ == 0) throw Error("replay window: no positions to sample");
    if (size < 1) throw Error(fmt::format("replay window: sample size {} is not positive", size));
    constexpr size_t kActions = size_t(G::kNumActions);
    batch.size = size;
    batch.planes.assign(size_t(size) * kInputSize, 0.0f);
    batch.policy.assign(size_t(size) * kActions, 0.0f);
    batch.wdl.assign(size_t(size) * 3, 0.0f);
    batch.legal.assign(size_t(size) * kActions, 0);
    typename G::MoveList moves;
    for (int i = 0; i < size; ++i) {
      const uint64_t draw = static_cast<uint64_t>(random());
      const int64_t offset =
          int64_t((static_cast<unsigned __int128>(draw) * uint64_t(positions_)) >> 64);
      const int64_t number = first_position_.front() + offset;
      const size_t g =
          size_t(std::upper_bound(first_position_.begin(), first_position_.end(), number) -
                 first_position_.begin() - 1);
      const StoredGame& stored = games_[g];
      const Entry& entry = stored.entries[size_t(number - first_position_[g])];

      Encoding::Encode(entry.position, entry.repetition_count,
                       batch.planes.data() + size_t(i) * kInputSize);
      float* policy = batch.policy.data() + size_t(i) * kActions;
      for (uint32_t k = entry.target_begin; k < entry.target_begin + entry.target_count; ++k) {
        policy[stored.indices[k]] += stored.probabilities[k];
      }
      batch.wdl[size_t(i) * 3 + (entry.result > 0 ? 0 : entry.result == 0 ? 1 : 2)] = 1.0f;
      moves.Clear();
      G::GenerateMoves(entry.position, moves);
      uint8_t* legal = batch.legal.data() + size_t(i) * kActions;
      for (Move move : moves) legal[Encoding::PolicyIndex(entry.position, move)] = 1;
    }
  }

 private:
  struct Entry {
    Position position;
    int32_t repetition_count = 1;
    int8_t result = 0;          // +1 the side to move won, 0 draw, -1 lost
    uint32_t target_begin = 0;  // into StoredGame::indices / probabilities
    uint32_t target_count = 0;
  };
  struct StoredGame {
    std::vector<Entry> entries;
    std::vector<uint32_t> indices;     // sparse policy targets of every entry, concatenated
    std::vector<float> probabilities;  // ... normalized per entry
  };

  int window_games_;
  std::deque<StoredGame> games_;
  std::deque<int64_t> first_position_;  // [game] running number of its first kept position
  int64_t positions_ = 0;
  int64_t total_games_added_ = 0;
  int64_t total_positions_added_ = 0;
};

}  // namespace vz
