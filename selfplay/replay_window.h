#pragma once

// The replay window of self-play training (AlphaZero's replay buffer of the most recent games,
// sampled uniformly by position): game records (proto::GameRecord, proto/train.proto) are replayed
// from their start position, every position that carries a policy target is kept, and training
// batches (nets::TrainingBatch) are drawn uniformly from the positions of the newest games: the
// last N games (a fixed window), or the newest games holding at least P positions, P growing with
// the data as in KataGo (ReplayWindowSize, GrowingWindowPositions).
//
// Memory per kept position: the game's fixed-size Position, its repetition count, the value
// target (WDL from the side to move's view: the game's result, or for adjudicated games the
// search's own root WDL when so configured) and the sparse policy target (an action index and a
// probability per searched move); input planes, the dense policy and the legal mask are built at
// Sample time.
// Not thread-safe: AddGame and Sample must not run at the same time (Sample alone is const).

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
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
#include "engine/piece_types.h"
#include "nets/trainer.h"
#include "proto/train.pb.h"
#include "selfplay/train_config.h"

namespace vz {

// What a replay window keeps: with games > 0, the last `games` games; with games == 0, the newest
// games that together hold at least `positions` kept positions (the oldest game goes only while
// the others still hold that many).
struct WindowSize {
  int64_t games = 0;
  int64_t positions = 0;
};

// KataGo's growing window (Wu 2019, "Accelerating Self-Play Learning in Go"; KataGo's
// python/shuffle.py), in positions, after the run has produced `produced` (N) positions:
//   c * (1 + beta * ((N / c)^alpha - 1) / alpha)  for N > c, else c,
// c = `base` >= 1, alpha = `exponent` in (0, 1], beta = `expansion` > 0; at most `max_positions`
// when that is > 0 (and at least c). Its slope at N = c is beta: each new position first widens
// the window by beta positions, then less and less (it grows as N^alpha). Non-decreasing in N, so
// a window that follows it never shrinks. KataGo: c 250000, alpha 0.75, beta 0.4.
inline int64_t GrowingWindowPositions(int64_t produced, int64_t base, double exponent,
                                      double expansion, int64_t max_positions) {
  const double c = double(std::max<int64_t>(base, 1));
  double size = c;
  if (double(produced) > c) {
    size = c * (1.0 + expansion * (std::pow(double(produced) / c, exponent) - 1.0) / exponent);
  }
  if (max_positions > 0) size = std::min(size, double(std::max(max_positions, base)));
  return int64_t(size);
}

// The window size of the config (replay.window_growth): "fixed" (or "") the last window_games
// games, "katago" GrowingWindowPositions after `produced` positions (every position the run has
// produced, counted once); divided (rounding up) among `shards` windows (trainer ranks), each of
// which holds one shard of the games. `config` must be valid (ValidateTrainConfig).
inline WindowSize ReplayWindowSize(const proto::ReplayConfig& config, int64_t produced,
                                   int shards) {
  const int64_t n = std::max(shards, 1);
  WindowSize size;
  if (config.window_growth() == "katago") {
    const int64_t positions = GrowingWindowPositions(
        produced, int64_t(config.window_base_positions()), config.window_exponent(),
        config.window_expansion(), int64_t(config.window_max_positions()));
    size.positions = (positions + n - 1) / n;
  } else {
    size.games = (int64_t(config.window_games()) + n - 1) / n;
  }
  return size;
}

// The value target of the positions of adjudicated games (replay.adjudicated_value_target).
enum class AdjudicatedValue {
  kResult,  // the adjudicated result, one-hot (like any game's result)
  kSearch,  // the search's root WDL at that position (MoveRecord.root_wdl), side to move's view
};

// Reads replay.adjudicated_value_target ("" and "result": kResult, "search": kSearch). Throws
// vz::Error naming the key for another value.
inline AdjudicatedValue AdjudicatedValueOf(const proto::ReplayConfig& config) {
  const std::string& name = config.adjudicated_value_target();
  if (name.empty() || name == "result") return AdjudicatedValue::kResult;
  if (name == "search") return AdjudicatedValue::kSearch;
  throw Error(fmt::format(
      "config key replay.adjudicated_value_target: '{}' is not one of result, search", name));
}

// How the training targets of a position are made from its game's record. The value target
// (replay.adjudicated_value_target and replay.value_target_search_weight): adjudicated games by
// `adjudicated`; every position whose target is its game's result z gets
// (1 - search_weight) z + search_weight q, q its root WDL. The material target
// (replay.material_horizon_plies): the piece-count difference material_horizon_plies plies after
// the position, or at the game's last position when that comes first or the horizon is 0. The
// ownership targets (each cell's occupant in the game's last position) are made only for a
// trainer that reads them (optimizer.ownership_loss_weight > 0): H x W bytes a sample.
struct ReplayTargets {
  AdjudicatedValue adjudicated = AdjudicatedValue::kResult;
  float search_weight = 0.0f;      // in [0, 1]
  int material_horizon_plies = 0;  // >= 0; 0 = the game's end
  bool ownership = false;          // Sample and SampleCompact fill the batches' ownership

  ReplayTargets() = default;
  ReplayTargets(AdjudicatedValue adjudicated_value, float weight = 0.0f,  // NOLINT: implicit
                int material_horizon = 0, bool ownership_targets = false)
      : adjudicated(adjudicated_value),
        search_weight(weight),
        material_horizon_plies(material_horizon),
        ownership(ownership_targets) {}
};

// Reads the three keys of the config's replay section, and optimizer.ownership_loss_weight (> 0:
// ownership targets). Throws vz::Error naming the key for an unknown adjudicated_value_target, a
// search weight outside [0, 1] or a material horizon above kMaxMaterialHorizonPlies.
inline ReplayTargets ReplayTargetsOf(const proto::TrainConfig& train_config) {
  const proto::ReplayConfig& config = train_config.replay();
  const float weight = config.value_target_search_weight();
  if (!(weight >= 0 && weight <= 1)) {
    throw Error(fmt::format(
        "config key replay.value_target_search_weight: {} is out of range [0, 1]", weight));
  }
  const uint32_t horizon = config.material_horizon_plies();
  if (horizon > kMaxMaterialHorizonPlies) {
    throw Error(fmt::format("config key replay.material_horizon_plies: {} is out of range [0, {}]",
                            horizon, kMaxMaterialHorizonPlies));
  }
  return ReplayTargets(AdjudicatedValueOf(config), weight, int(horizon),
                       train_config.optimizer().ownership_loss_weight() > 0);
}

template <Game G>
class ReplayWindow {
 public:
  using Position = typename G::Position;
  using Encoding = InputEncoding<G>;
  // Input floats of one position: [kPlanes][kHeight][kWidth].
  static constexpr int kInputSize = Encoding::kPlanes * Encoding::kHeight * Encoding::kWidth;
  // Material targets of one position: PieceTypes<G>::kNumTypes.
  static constexpr int kMaterialTypes = PieceTypes<G>::kNumTypes;
  // Ownership targets of one position: a class per grid cell.
  static constexpr int kArea = Encoding::kHeight * Encoding::kWidth;

  // A window over the last `window_games` games. Throws vz::Error if window_games < 1.
  explicit ReplayWindow(int window_games, ReplayTargets targets = {})
      : ReplayWindow(WindowSize{window_games, 0}, targets) {}

  // A window of `size` (games > 0, or positions > 0 with games == 0). Throws vz::Error if
  // neither is positive or both are.
  ReplayWindow(WindowSize size, ReplayTargets targets) : size_(size), targets_(targets) {
    if ((size.games > 0) == (size.positions > 0)) {
      throw Error(
          fmt::format("replay window: {} games and {} positions (give a positive number "
                      "of one of them)",
                      size.games, size.positions));
    }
  }

  // Resizes the window (the config's window follows the data: ReplayWindowSize) and drops the
  // oldest games beyond it. A window never shrinks: a smaller size of the same kind keeps the
  // current one. Throws vz::Error if `size` is of the other kind (games vs positions) or holds
  // neither.
  void Resize(WindowSize size) {
    if ((size.games > 0) != (size_.games > 0) || (size.games > 0) == (size.positions > 0)) {
      throw Error(
          fmt::format("replay window: cannot resize a window of {} to {} games, {} positions",
                      size_.games > 0 ? fmt::format("{} games", size_.games)
                                      : fmt::format("{} positions", size_.positions),
                      size.games, size.positions));
    }
    size_.games = std::max(size_.games, size.games);
    size_.positions = std::max(size_.positions, size.positions);
    Trim();
  }

  // Of `new_games` games about to be added (oldest first; entry g: the number of positions it
  // will keep, its moves with has_target), the index of the oldest that the window would still
  // hold after adding them all: the ones before it need not be replayed (a restart's backlog).
  size_t OldestKept(const std::vector<int64_t>& new_games) const {
    const size_t n = new_games.size();
    if (size_.games > 0) return n > size_t(size_.games) ? n - size_t(size_.games) : 0;
    int64_t held = 0;
    for (size_t g = n; g > 0; --g) {
      held += new_games[g - 1];
      if (held >= size_.positions) return g - 1;
    }
    return 0;
  }

  // Replays `record` from its start_fen (empty: the initial position) by its protocol-form moves
  // and keeps every position whose move has_target, with its repetition count, the sparse policy
  // target (normalized to sum 1) and the value target: the game's result from that position's
  // side to move mixed with the move's root_wdl (normalized to sum 1) by the ReplayTargets'
  // search_weight, or, for an adjudicated game with AdjudicatedValue::kSearch, the root_wdl alone
  // (the result where a move has none); and its material target, the piece-count difference from
  // its side to move in the position material_horizon_plies later (the game's last position when
  // that comes first or the horizon is 0); and the game's last position, whose occupancy is the
  // ownership target of all of them (Sample). Then drops the oldest
  // games beyond the window's size. `source` names the record in errors (e.g.
  // "records/chunk-000012.vzr game 5"). Throws vz::Error "SOURCE: ..." — naming the ply (1-based)
  // where it applies — if the record is not of game G, its start position does not parse, its
  // result is not -1/0/+1 or contradicts a final position that the rules decide, a move does not
  // parse or is illegal, the policy arrays differ in length or are empty on a target ply, an
  // index is out of [0, kNumActions) or is no legal move's action, a probability is negative or
  // not finite or they sum to 0, or root_wdl holds neither 0 nor 3 values or values that are
  // negative, not finite or sum to 0. The window is unchanged then.
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
    // With a material horizon: each kept entry's ply, and the piece-count difference (White's
    // view) of every position of the game, ply 0 to the last.
    const int horizon = targets_.material_horizon_plies;
    std::vector<int> entry_plies;
    std::vector<std::array<int, kMaterialTypes>> material_by_ply;
    std::vector<uint8_t> legal_actions(G::kNumActions, 0);
    for (int ply = 0; ply < record.moves_size(); ++ply) {
      const proto::MoveRecord& move = record.moves(ply);
      auto fail = [&](const std::string& what) {
        return Error(fmt::format("{}: ply {} ('{}'): {}", source, ply + 1, move.move(), what));
      };
      if (move.root_wdl_size() != 0 && move.root_wdl_size() != 3) {
        throw fail(fmt::format("root_wdl holds {} values, not 3", move.root_wdl_size()));
      }
      if (horizon > 0) {
        PieceCountDifference<G>(game.position(), Color::kWhite,
                                material_by_ply.emplace_back().data());
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
        const int result =
            G::SideToMove(position) == Color::kWhite ? record.result() : -record.result();
        entry.wdl[0] = float(result > 0);
        entry.wdl[1] = float(result == 0);
        entry.wdl[2] = float(result < 0);
        if (move.root_wdl_size() == 3) {
          double total = 0;
          for (float p : move.root_wdl()) {
            if (!std::isfinite(p) || p < 0) {
              throw fail(fmt::format("root_wdl value {} is not a probability", p));
            }
            total += p;
          }
          if (!(total > 0)) throw fail("root_wdl sums to 0");
          // The search's share of the target: all of it for an adjudicated game under "search",
          // value_target_search_weight of it otherwise.
          const double weight =
              record.adjudicated() && targets_.adjudicated == AdjudicatedValue::kSearch
                  ? 1.0
                  : double(targets_.search_weight);
          for (int k = 0; k < 3; ++k) {
            entry.wdl[k] = float((1.0 - weight) * entry.wdl[k] + weight * move.root_wdl(k) / total);
          }
        }
        entry.target_begin = uint32_t(stored.indices.size());
        entry.target_count = uint32_t(move.policy_index_size());
        for (int k = 0; k < move.policy_index_size(); ++k) {
          stored.indices.push_back(move.policy_index(k));
          stored.probabilities.push_back(float(move.policy_target(k) / sum));
        }
        stored.entries.push_back(entry);
        entry_plies.push_back(ply);
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

    int final_material[kMaterialTypes];
    PieceCountDifference<G>(game.position(), Color::kWhite, final_material);
    if (horizon > 0) material_by_ply.emplace_back(std::to_array(final_material));
    for (size_t e = 0; e < stored.entries.size(); ++e) {
      const int* material = final_material;
      if (horizon > 0) {
        const size_t ply =
            std::min(size_t(entry_plies[e]) + size_t(horizon), material_by_ply.size() - 1);
        material = material_by_ply[ply].data();
      }
      for (int k = 0; k < kMaterialTypes; ++k) stored.entries[e].material[k] = int8_t(material[k]);
    }

    stored.final_position = game.position();
    const int64_t count = int64_t(stored.entries.size());
    first_position_.push_back(total_positions_added_);
    games_.push_back(std::move(stored));
    positions_ += count;
    total_positions_added_ += count;
    ++total_games_added_;
    Trim();
  }

  // The window's size now (WindowSize: games, or positions).
  WindowSize size() const { return size_; }
  // Games and kept positions in the window now.
  int64_t num_games() const { return int64_t(games_.size()); }
  int64_t num_positions() const { return positions_; }
  // Games and kept positions added since construction (dropped ones included).
  int64_t total_games_added() const { return total_games_added_; }
  int64_t total_positions_added() const { return total_positions_added_; }

  // Fills `batch` with `size` positions drawn uniformly (with replacement) from the window;
  // `random()` returns a uniform uint64_t and is called exactly `size` times, once per sample in
  // order. Shapes (nets/trainer.h):
  //   batch.size = size
  //   planes [size][kInputSize]              Encoding::Encode(position, repetition count)
  //   policy [size][G::kNumActions]          the policy target, dense, sums to 1
  //   wdl    [size][3]                       value target of the side to move (AddGame)
  //   legal  [size][G::kNumActions]          1 at the policy index of every legal move
  //   material [size][PieceTypes<G>::kNumTypes] the piece-count difference of each type
  //                                          material_horizon_plies later or in the game's last
  //                                          position (AddGame), side to move's view (the
  //                                          material head's target; nets/trainer.h)
  //   ownership [size][kHeight * kWidth]     with ReplayTargets::ownership (else empty): each
  //                                          grid cell's occupant in the game's last position,
  //                                          seen by the side to move in its frame
  //                                          (Encoding::Occupancy: the ownership head's target)
  // Policy indices are G::ActionIndex = Encoding::PolicyIndex, in the side to move's frame.
  // Throws vz::Error if the window is empty or size < 1.
  template <class Random>
  void Sample(int size, Random&& random, nets::TrainingBatch& batch) const {
    CheckSampleSize(size);
    constexpr size_t kActions = size_t(G::kNumActions);
    batch.size = size;
    batch.planes.assign(size_t(size) * kInputSize, 0.0f);
    batch.policy.assign(size_t(size) * kActions, 0.0f);
    batch.wdl.assign(size_t(size) * 3, 0.0f);
    batch.legal.assign(size_t(size) * kActions, 0);
    batch.material.resize(size_t(size) * kMaterialTypes);
    batch.ownership.resize(targets_.ownership ? size_t(size) * kArea : 0);
    typename G::MoveList moves;
    for (int i = 0; i < size; ++i) {
      const auto [stored, entry] = Draw(static_cast<uint64_t>(random()));

      Encoding::Encode(entry.position, entry.repetition_count,
                       batch.planes.data() + size_t(i) * kInputSize);
      float* policy = batch.policy.data() + size_t(i) * kActions;
      for (uint32_t k = entry.target_begin; k < entry.target_begin + entry.target_count; ++k) {
        policy[stored.indices[k]] += stored.probabilities[k];
      }
      std::copy(entry.wdl, entry.wdl + 3, batch.wdl.begin() + ptrdiff_t(i) * 3);
      MaterialTarget(entry, batch.material.data() + size_t(i) * kMaterialTypes);
      if (targets_.ownership)
        OwnershipTarget(stored, entry, batch.ownership.data() + size_t(i) * kArea);
      moves.Clear();
      G::GenerateMoves(entry.position, moves);
      uint8_t* legal = batch.legal.data() + size_t(i) * kActions;
      for (Move move : moves) legal[Encoding::PolicyIndex(entry.position, move)] = 1;
    }
  }

  // The same samples as Sample for the same draws of `random()` (one per sample), compact
  // (nets/trainer.h CompactBatch): positions, repetition counts, value targets, the sparse
  // policy targets, the material and the ownership targets; symmetries 0 (nets::AugmentCompact
  // draws them as AugmentBatch would). The trainer expands it to Sample's dense arrays on its
  // device. Throws as Sample.
  template <class Random>
  void SampleCompact(int size, Random&& random, nets::CompactBatch& batch) const {
    CheckSampleSize(size);
    batch.size = size;
    batch.positions.resize(size_t(size) * sizeof(Position));
    batch.repetitions.resize(size_t(size));
    batch.symmetries.assign(size_t(size), 0);
    batch.wdl.resize(size_t(size) * 3);
    batch.target_offsets.assign(1, 0);
    batch.target_indices.clear();
    batch.target_probabilities.clear();
    batch.material.resize(size_t(size) * kMaterialTypes);
    batch.ownership.resize(targets_.ownership ? size_t(size) * kArea : 0);
    for (int i = 0; i < size; ++i) {
      const auto [stored, entry] = Draw(static_cast<uint64_t>(random()));
      std::memcpy(batch.positions.data() + size_t(i) * sizeof(Position), &entry.position,
                  sizeof(Position));
      batch.repetitions[size_t(i)] = entry.repetition_count;
      std::copy(entry.wdl, entry.wdl + 3, batch.wdl.begin() + ptrdiff_t(i) * 3);
      MaterialTarget(entry, batch.material.data() + size_t(i) * kMaterialTypes);
      if (targets_.ownership)
        OwnershipTarget(stored, entry, batch.ownership.data() + size_t(i) * kArea);
      for (uint32_t k = entry.target_begin; k < entry.target_begin + entry.target_count; ++k) {
        batch.target_indices.push_back(int32_t(stored.indices[k]));
        batch.target_probabilities.push_back(stored.probabilities[k]);
      }
      batch.target_offsets.push_back(int32_t(batch.target_indices.size()));
    }
  }

 private:
  // Drops the oldest games beyond the window's size.
  void Trim() {
    const auto beyond = [&] {
      if (size_.games > 0) return int64_t(games_.size()) > size_.games;
      return !games_.empty() &&
             positions_ - int64_t(games_.front().entries.size()) >= size_.positions;
    };
    while (beyond()) {
      positions_ -= int64_t(games_.front().entries.size());
      games_.pop_front();
      first_position_.pop_front();
    }
  }

  struct Entry {
    Position position;
    int32_t repetition_count = 1;
    float wdl[3] = {0, 1, 0};   // value target, side to move's view
    uint32_t target_begin = 0;  // into StoredGame::indices / probabilities
    uint32_t target_count = 0;
    int8_t material[kMaterialTypes] = {};  // the material target (AddGame), White's view
  };
  struct StoredGame {
    std::vector<Entry> entries;
    std::vector<uint32_t> indices;     // sparse policy targets of every entry, concatenated
    std::vector<float> probabilities;  // ... normalized per entry
    Position final_position{};         // the game's last position (the ownership target)
  };

  // The material target of `entry` into out[kMaterialTypes], from the entry's side to move.
  static void MaterialTarget(const Entry& entry, float* out) {
    const int sign = G::SideToMove(entry.position) == Color::kWhite ? 1 : -1;
    for (int k = 0; k < kMaterialTypes; ++k) out[k] = float(sign * entry.material[k]);
  }

  // The ownership target of `entry` of `game` into out[kArea]: the game's last position seen by
  // the entry's side to move.
  static void OwnershipTarget(const StoredGame& game, const Entry& entry, uint8_t* out) {
    Encoding::Occupancy(game.final_position, G::SideToMove(entry.position), out);
  }

  // Throws vz::Error when the window is empty or `size` < 1 (Sample, SampleCompact).
  void CheckSampleSize(int size) const {
    if (positions_ == 0) throw Error("replay window: no positions to sample");
    if (size < 1) throw Error(fmt::format("replay window: sample size {} is not positive", size));
  }

  // The game and entry of the window's position picked by `draw` (uniform over the positions).
  std::pair<const StoredGame&, const Entry&> Draw(uint64_t draw) const {
    const int64_t offset =
        int64_t((static_cast<unsigned __int128>(draw) * uint64_t(positions_)) >> 64);
    const int64_t number = first_position_.front() + offset;
    const size_t g =
        size_t(std::upper_bound(first_position_.begin(), first_position_.end(), number) -
               first_position_.begin() - 1);
    const StoredGame& stored = games_[g];
    return {stored, stored.entries[size_t(number - first_position_[g])]};
  }

  WindowSize size_;
  ReplayTargets targets_;
  std::deque<StoredGame> games_;
  std::deque<int64_t> first_position_;  // [game] running number of its first kept position
  int64_t positions_ = 0;
  int64_t total_games_added_ = 0;
  int64_t total_positions_added_ = 0;
};

}  // namespace vz
