// The replay window (selfplay/replay_window.h), over every game: records of random games are
// replayed, the window keeps the last N games, sampled batches hold the right planes, policy
// targets, results and legal masks, and bad records are rejected naming their source and ply.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/encodings.h"
#include "nets/augment.h"
#include "nets/trainer.h"
#include "selfplay/replay_window.h"
#if VZ_HAVE_TORCH
#include "nets/fresh_net.h"
#include "nets/net_runner.h"
#include "nets/sample_codec.h"
#endif
#include "tests/engine/game_types.h"
#include "tests/test_util.h"

namespace vz {
namespace {

using testing::ErrorOf;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// What a kept position must turn into in a batch.
struct ExpectedRow {
  std::vector<float> planes;
  std::vector<float> policy;
  std::vector<float> wdl;
  std::vector<uint8_t> legal;
  std::vector<float> material;     // the material target's piece-count differences, mover's view
  std::vector<uint8_t> ownership;  // the last position's occupancy, mover's view and frame
};

// A record of a pseudo-random game (SplitMix64 from `seed`) of at most `max_plies` plies from
// `start` (written to start_fen unless it is the initial position and `seed` is odd): the first
// `opening_plies` plies carry no target, the others a target over up to 4 random legal moves with
// random weights. The result is the rules' when the game ended, else pseudo-random. Appends the
// expected batch row of every target ply to `rows` if given, its material target that of a
// window with `material_horizon` (ReplayTargets::material_horizon_plies).
template <Game G>
proto::GameRecord RandomRecord(uint64_t seed, int max_plies, int opening_plies,
                               std::vector<ExpectedRow>* rows = nullptr,
                               const typename G::Position& start = G::InitialPosition(),
                               int material_horizon = 0) {
  using E = InputEncoding<G>;
  proto::GameRecord record;
  record.set_game(std::string(G::kName));
  // Half of the records name the initial position explicitly; other starts are always named.
  if (seed % 2 == 0 || G::FormatPosition(start) != G::FormatPosition(G::InitialPosition())) {
    record.set_start_fen(G::FormatPosition(start));
  }
  GameState<G> game(start);
  struct Pending {
    typename G::Position position;
    int repetition_count;
    std::vector<float> policy;
    int ply;
  };
  std::vector<Pending> pending;
  std::vector<typename G::Position> positions;  // of every ply, then the last position
  for (int ply = 0; ply < max_plies && !game.outcome().IsTerminal(); ++ply) {
    const typename G::Position& position = game.position();
    positions.push_back(position);
    const auto& moves = game.legal_moves();
    proto::MoveRecord* move = record.add_moves();
    if (ply >= opening_plies) {
      move->set_has_target(true);
      Pending row{position, game.RepetitionCount(), std::vector<float>(G::kNumActions, 0.0f), ply};
      const int count = 1 + int((seed = SplitMix64(seed)) % 4);
      std::vector<float> weights;
      float sum = 0;
      for (int k = 0; k < count; ++k) {
        const Move m = moves[int((seed = SplitMix64(seed)) % uint64_t(moves.size))];
        const float weight = float(1 + (seed >> 40) % 9);
        move->add_policy_index(uint32_t(G::ActionIndex(position, m)));
        move->add_policy_target(weight);
        weights.push_back(weight);
        sum += weight;
      }
      for (int k = 0; k < count; ++k) row.policy[move->policy_index(k)] += weights[k] / sum;
      for (int k = 0; k < 3; ++k) move->add_root_wdl(1.0f / 3);
      pending.push_back(std::move(row));
    }
    const Move played = moves[int((seed = SplitMix64(seed)) % uint64_t(moves.size))];
    move->set_move(G::FormatMove(position, played));
    game.Play(played);
  }
  const Outcome outcome = game.outcome();
  int result = int((seed = SplitMix64(seed)) % 3) - 1;
  if (outcome.IsTerminal()) {
    result = outcome.status == Status::kWhiteWins   ? 1
             : outcome.status == Status::kBlackWins ? -1
                                                    : 0;
  }
  record.set_result(result);
  positions.push_back(game.position());
  if (rows != nullptr) {
    int final_counts[PieceTypes<G>::kNumTypes];
    for (Pending& p : pending) {
      ExpectedRow row;
      row.planes = testing::EncodePlanes<E>(p.position, p.repetition_count);
      row.policy = std::move(p.policy);
      const int mover = G::SideToMove(p.position) == Color::kWhite ? result : -result;
      row.wdl = {float(mover == 1), float(mover == 0), float(mover == -1)};
      row.legal.assign(G::kNumActions, 0);
      typename G::MoveList moves;
      G::GenerateMoves(p.position, moves);
      for (Move m : moves) row.legal[E::PolicyIndex(p.position, m)] = 1;
      const size_t target_ply =
          material_horizon > 0 ? std::min(size_t(p.ply + material_horizon), positions.size() - 1)
                               : positions.size() - 1;
      PieceCountDifference<G>(positions[target_ply], G::SideToMove(p.position), final_counts);
      row.material.assign(std::begin(final_counts), std::end(final_counts));
      row.ownership.assign(size_t(E::kHeight * E::kWidth), 99);
      E::Occupancy(positions.back(), G::SideToMove(p.position), row.ownership.data());
      rows->push_back(std::move(row));
    }
  }
  return record;
}

// Row `i` of `batch` as an ExpectedRow.
template <Game G>
ExpectedRow RowOf(const nets::TrainingBatch& batch, int i) {
  constexpr size_t kInput = ReplayWindow<G>::kInputSize, kActions = G::kNumActions;
  ExpectedRow row;
  row.planes.assign(batch.planes.begin() + i * kInput, batch.planes.begin() + (i + 1) * kInput);
  row.policy.assign(batch.policy.begin() + i * kActions, batch.policy.begin() + (i + 1) * kActions);
  row.wdl.assign(batch.wdl.begin() + i * 3, batch.wdl.begin() + (i + 1) * 3);
  row.legal.assign(batch.legal.begin() + i * kActions, batch.legal.begin() + (i + 1) * kActions);
  constexpr size_t kTypes = PieceTypes<G>::kNumTypes;
  row.material.assign(batch.material.begin() + i * kTypes,
                      batch.material.begin() + (i + 1) * kTypes);
  constexpr size_t kArea = ReplayWindow<G>::kArea;
  if (!batch.ownership.empty()) {  // a window with ownership targets
    row.ownership.assign(batch.ownership.begin() + i * kArea,
                         batch.ownership.begin() + (i + 1) * kArea);
  }
  return row;
}

void ExpectRowsEqual(const ExpectedRow& actual, const ExpectedRow& expected) {
  EXPECT_EQ(actual.planes, expected.planes);
  ASSERT_EQ(actual.policy.size(), expected.policy.size());
  for (size_t a = 0; a < actual.policy.size(); ++a) {
    ASSERT_NEAR(actual.policy[a], expected.policy[a], 1e-6) << "action " << a;
  }
  EXPECT_EQ(actual.wdl, expected.wdl);
  EXPECT_EQ(actual.legal, expected.legal);
  EXPECT_EQ(actual.material, expected.material);
  if (!actual.ownership.empty()) {
    EXPECT_EQ(actual.ownership, expected.ownership);
  }
}

// A `random` for Sample that returns the given draws in turn.
struct FixedDraws {
  std::vector<uint64_t> draws;
  size_t next = 0;
  uint64_t operator()() { return draws[next++ % draws.size()]; }
};

// Every position of `window` in turn, sampled into `batch` and into `compact` (the draw that
// picks position i of n: Draw is floor(draw * n / 2^64)).
template <Game G>
void SampleEveryPosition(const ReplayWindow<G>& window, nets::TrainingBatch& batch,
                         nets::CompactBatch& compact) {
  const uint64_t n = uint64_t(window.num_positions());
  FixedDraws draws;
  for (uint64_t i = 0; i < n; ++i) {
    draws.draws.push_back(uint64_t(((static_cast<unsigned __int128>(i) << 64) + n - 1) / n));
  }
  window.Sample(int(n), draws, batch);
  draws.next = 0;
  window.SampleCompact(int(n), draws, compact);
}

template <class G>
class ReplayWindowTest : public ::testing::Test {};
TYPED_TEST_SUITE(ReplayWindowTest, testing::AllGameTypes, testing::GameNames);

TYPED_TEST(ReplayWindowTest, KeepsTheLastGamesAndCountsThem) {
  using G = TypeParam;
  ReplayWindow<G> window(3);
  std::vector<std::vector<ExpectedRow>> rows(5);
  int64_t total = 0;
  for (int g = 0; g < 5; ++g) {
    window.AddGame(RandomRecord<G>(100 + g, 20 + 7 * g, 2, &rows[g]), "game " + std::to_string(g));
    total += int64_t(rows[g].size());
    ASSERT_EQ(window.total_positions_added(), total);
  }
  EXPECT_EQ(window.num_games(), 3);
  EXPECT_EQ(window.total_games_added(), 5);
  EXPECT_EQ(window.num_positions(), int64_t(rows[2].size() + rows[3].size() + rows[4].size()));
  EXPECT_EQ(rows[0].size(), 18u);  // 20 plies, 2 without target (random games last that long)

  // Draw 0 is the oldest position in the window (game 2's first), the largest draw the newest.
  nets::TrainingBatch batch;
  window.Sample(2, FixedDraws{{0, ~uint64_t{0}}}, batch);
  ASSERT_EQ(batch.size, 2);
  ExpectRowsEqual(RowOf<G>(batch, 0), rows[2].front());
  ExpectRowsEqual(RowOf<G>(batch, 1), rows[4].back());
  // The first position of game 3 follows the last of game 2.
  const uint64_t n = uint64_t(window.num_positions());
  const uint64_t first_of_3 = rows[2].size();
  const uint64_t draw = uint64_t(((static_cast<unsigned __int128>(first_of_3) << 64) + n - 1) / n);
  window.Sample(2, FixedDraws{{draw, draw - 1}}, batch);
  ExpectRowsEqual(RowOf<G>(batch, 0), rows[3].front());
  ExpectRowsEqual(RowOf<G>(batch, 1), rows[2].back());
}

TYPED_TEST(ReplayWindowTest, SampledRowsAreKeptPositions) {
  using G = TypeParam;
  ReplayWindow<G> window(10);
  std::vector<ExpectedRow> rows;
  for (int g = 0; g < 4; ++g) window.AddGame(RandomRecord<G>(7 + g, 40, 3, &rows), "game");
  ASSERT_EQ(window.num_positions(), int64_t(rows.size()));

  nets::TrainingBatch batch;
  uint64_t state = 42;
  window.Sample(
      64, [&] { return state = SplitMix64(state); }, batch);
  ASSERT_EQ(batch.size, 64);
  ASSERT_EQ(batch.planes.size(), 64 * size_t(ReplayWindow<G>::kInputSize));
  ASSERT_EQ(batch.policy.size(), 64 * size_t(G::kNumActions));
  ASSERT_EQ(batch.wdl.size(), 64 * 3u);
  ASSERT_EQ(batch.legal.size(), 64 * size_t(G::kNumActions));
  ASSERT_EQ(batch.material.size(), 64 * size_t(PieceTypes<G>::kNumTypes));
  for (int i = 0; i < batch.size; ++i) {
    const ExpectedRow row = RowOf<G>(batch, i);
    float sum = 0;
    for (int a = 0; a < G::kNumActions; ++a) {
      sum += row.policy[a];
      if (row.policy[a] > 0) {
        ASSERT_EQ(row.legal[a], 1) << "row " << i << " action " << a;
      }
    }
    EXPECT_NEAR(sum, 1.0f, 1e-5);
    EXPECT_EQ(row.wdl[0] + row.wdl[1] + row.wdl[2], 1.0f);
    bool found = false;
    for (const ExpectedRow& expected : rows) {
      if (expected.planes == row.planes && expected.wdl == row.wdl && expected.legal == row.legal &&
          expected.material == row.material) {
        bool same_policy = true;
        for (int a = 0; a < G::kNumActions && same_policy; ++a) {
          same_policy = std::fabs(expected.policy[a] - row.policy[a]) < 1e-6;
        }
        found = found || same_policy;
      }
    }
    EXPECT_TRUE(found) << "row " << i << " is no kept position";
  }
}

// With a material horizon of N plies, a position's material target is the piece-count
// difference N plies later (the last position's when the game ends first), in Sample and in
// SampleCompact alike; games long enough to trade pieces, so that the two targets differ; a
// horizon beyond the game's end gives the last position's.
TYPED_TEST(ReplayWindowTest, MaterialTargetLooksTheHorizonAhead) {
  using G = TypeParam;
  for (const int horizon : {1, 6, 1000}) {
    ReplayWindow<G> window(WindowSize{10, 0}, ReplayTargets(AdjudicatedValue::kResult, 0, horizon));
    std::vector<ExpectedRow> rows, at_end;
    for (int g = 0; g < 3; ++g) {
      const uint64_t seed = 31 + uint64_t(g);
      window.AddGame(RandomRecord<G>(seed, 120, 2, &rows, G::InitialPosition(), horizon), "game");
      RandomRecord<G>(seed, 120, 2, &at_end);
    }
    ASSERT_EQ(window.num_positions(), int64_t(rows.size()));
    int differ = 0;
    for (size_t i = 0; i < rows.size(); ++i) differ += rows[i].material != at_end[i].material;
    if (horizon < 1000) {
      EXPECT_GT(differ, 0) << "horizon " << horizon << ": no capture in the games";
    } else {
      EXPECT_EQ(differ, 0) << "a horizon beyond the game's end is its last position";
    }
    nets::TrainingBatch batch;
    nets::CompactBatch compact;
    SampleEveryPosition(window, batch, compact);
    EXPECT_EQ(compact.material, batch.material);
    for (size_t i = 0; i < rows.size(); ++i) ExpectRowsEqual(RowOf<G>(batch, int(i)), rows[i]);
  }
}

// With ownership targets (a trainer that reads them), every sampled position's target is its
// game's last position seen by the position's side to move, in Sample and SampleCompact alike;
// without, the batches carry none.
TYPED_TEST(ReplayWindowTest, OwnershipTargetIsTheLastPositionSeenByTheMover) {
  using G = TypeParam;
  for (const bool ownership : {true, false}) {
    ReplayWindow<G> window(WindowSize{10, 0},
                           ReplayTargets(AdjudicatedValue::kResult, 0, 0, ownership));
    std::vector<ExpectedRow> rows;
    for (int g = 0; g < 3; ++g) window.AddGame(RandomRecord<G>(41 + g, 80, 2, &rows), "game");
    ASSERT_EQ(window.num_positions(), int64_t(rows.size()));
    const size_t n = rows.size();
    nets::TrainingBatch batch;
    nets::CompactBatch compact;
    SampleEveryPosition(window, batch, compact);
    EXPECT_EQ(compact.ownership, batch.ownership);
    if (!ownership) {
      EXPECT_TRUE(batch.ownership.empty());
      continue;
    }
    ASSERT_EQ(batch.ownership.size(), n * size_t(ReplayWindow<G>::kArea));
    int viewers = 0, opponents = 0;
    for (size_t i = 0; i < n; ++i) {
      const ExpectedRow row = RowOf<G>(batch, int(i));
      ASSERT_EQ(row.ownership, rows[i].ownership) << "position " << i;
      viewers += int(std::count(row.ownership.begin(), row.ownership.end(), kViewersPiece));
      opponents += int(std::count(row.ownership.begin(), row.ownership.end(), kOpponentsPiece));
    }
    EXPECT_GT(viewers, 0);
    EXPECT_GT(opponents, 0);
  }
}

// Sampling is uniform over positions: a game with three times the positions of another is drawn
// about three times as often.
TYPED_TEST(ReplayWindowTest, SamplesUniformlyOverPositions) {
  using G = TypeParam;
  ReplayWindow<G> window(2);
  std::vector<ExpectedRow> short_rows, long_rows;
  window.AddGame(RandomRecord<G>(5, 11, 1, &short_rows), "short");
  window.AddGame(RandomRecord<G>(6, 31, 1, &long_rows), "long");
  ASSERT_EQ(short_rows.size(), 10u);
  ASSERT_EQ(long_rows.size(), 30u);
  nets::TrainingBatch batch;
  uint64_t state = 9;
  window.Sample(
      2000, [&] { return state = SplitMix64(state); }, batch);
  // Each game's first row is recognised by its planes and policy (the starts may coincide, so
  // count rows equal to any row of the short game).
  int from_short = 0;
  for (int i = 0; i < batch.size; ++i) {
    const ExpectedRow row = RowOf<G>(batch, i);
    for (const ExpectedRow& expected : short_rows) {
      if (expected.planes == row.planes && expected.policy == row.policy) {
        ++from_short;
        break;
      }
    }
  }
  EXPECT_GT(from_short, 2000 * 0.2);  // expected 2000 / 4 = 500, sd about 19
  EXPECT_LT(from_short, 2000 * 0.3);
}

TYPED_TEST(ReplayWindowTest, RepetitionCountAndStartPosition) {
  using G = TypeParam;
  // A start later in a random game (written to start_fen for even seeds).
  GameState<G> opening;
  uint64_t state = 3;
  for (int ply = 0; ply < 6 && !opening.outcome().IsTerminal(); ++ply) {
    opening.Play(opening.legal_moves()[int((state = SplitMix64(state)) %
                                           uint64_t(opening.legal_moves().size))]);
  }
  ReplayWindow<G> window(1);
  std::vector<ExpectedRow> rows;
  window.AddGame(RandomRecord<G>(8, 30, 0, &rows, opening.position()), "late start");
  ASSERT_EQ(window.num_positions(), int64_t(rows.size()));
  nets::TrainingBatch batch;
  window.Sample(1, FixedDraws{{0}}, batch);
  ExpectRowsEqual(RowOf<G>(batch, 0), rows.front());
}

TYPED_TEST(ReplayWindowTest, BadRecordsNameSourceAndPly) {
  using G = TypeParam;
  ReplayWindow<G> window(5);
  const proto::GameRecord good = RandomRecord<G>(11, 30, 2);
  window.AddGame(good, "good");
  ASSERT_GE(good.moves_size(), 12);
  auto error_of = [&](const proto::GameRecord& record) {
    const std::string error = ErrorOf([&] { window.AddGame(record, "chunk-000003.vzr game 7"); });
    EXPECT_TRUE(Contains(error, "chunk-000003.vzr game 7")) << error;
    return error;
  };

  proto::GameRecord wrong_game = good;
  wrong_game.set_game(G::kName == std::string_view("chad") ? "cuarenta" : "chad");
  EXPECT_TRUE(Contains(error_of(wrong_game), "not " + std::string(G::kName)));

  proto::GameRecord unparsable = good;
  unparsable.mutable_moves(5)->set_move("zz99");
  EXPECT_TRUE(Contains(error_of(unparsable), "ply 6"));

  proto::GameRecord illegal = good;  // ply 7's move played at ply 6 (not legal there)
  illegal.mutable_moves(5)->set_move(good.moves(6).move());
  if (illegal.moves(5).move() != good.moves(5).move()) {
    const std::string error = ErrorOf([&] { window.AddGame(illegal, "src"); });
    // Rarely the same move text is legal at both plies; then the replay diverges later.
    EXPECT_NE(error, "");
    EXPECT_TRUE(Contains(error, "src: ply")) << error;
  }

  proto::GameRecord out_of_range = good;
  out_of_range.mutable_moves(8)->set_policy_index(0, uint32_t(G::kNumActions));
  const std::string range = error_of(out_of_range);
  EXPECT_TRUE(Contains(range, "ply 9")) << range;
  EXPECT_TRUE(Contains(range, "out of range")) << range;

  // An index that no legal move of ply 9 has.
  {
    GameState<G> game;
    if (!good.start_fen().empty()) game = GameState<G>(G::ParsePosition(good.start_fen()));
    for (int ply = 0; ply < 8; ++ply) game.Play(good.moves(ply).move());
    std::vector<uint8_t> legal(G::kNumActions, 0);
    for (Move m : game.legal_moves()) legal[G::ActionIndex(game.position(), m)] = 1;
    uint32_t unused = 0;
    while (legal[unused]) ++unused;
    proto::GameRecord not_legal = good;
    not_legal.mutable_moves(8)->set_policy_index(0, unused);
    const std::string error = error_of(not_legal);
    EXPECT_TRUE(Contains(error, "ply 9")) << error;
    EXPECT_TRUE(Contains(error, "no legal move")) << error;
  }

  proto::GameRecord mismatch = good;
  mismatch.mutable_moves(4)->add_policy_target(0.5f);
  EXPECT_TRUE(Contains(error_of(mismatch), "ply 5"));

  proto::GameRecord empty_target = good;
  empty_target.mutable_moves(4)->clear_policy_index();
  empty_target.mutable_moves(4)->clear_policy_target();
  EXPECT_TRUE(Contains(error_of(empty_target), "ply 5"));

  proto::GameRecord negative = good;
  negative.mutable_moves(3)->set_policy_target(0, -1.0f);
  EXPECT_TRUE(Contains(error_of(negative), "ply 4"));

  proto::GameRecord bad_wdl = good;
  bad_wdl.mutable_moves(3)->add_root_wdl(0.0f);
  EXPECT_TRUE(Contains(error_of(bad_wdl), "ply 4"));

  proto::GameRecord bad_result = good;
  bad_result.set_result(2);
  EXPECT_TRUE(Contains(error_of(bad_result), "result 2"));

  proto::GameRecord bad_start = good;
  bad_start.set_start_fen("not a position");
  EXPECT_TRUE(Contains(error_of(bad_start), "start_fen"));

  // Nothing of the rejected records entered the window.
  EXPECT_EQ(window.num_games(), 1);
  EXPECT_EQ(window.total_games_added(), 1);
  EXPECT_EQ(window.num_positions(), good.moves_size() - 2);
}

// A game that the rules ended must carry their result.
TYPED_TEST(ReplayWindowTest, ResultMustMatchAFinishedGame) {
  using G = TypeParam;
  ReplayWindow<G> window(5);
  for (uint64_t seed = 1; seed < 200; ++seed) {
    proto::GameRecord record = RandomRecord<G>(seed, 1000, 0);
    GameState<G> game;
    if (!record.start_fen().empty()) game = GameState<G>(G::ParsePosition(record.start_fen()));
    for (const proto::MoveRecord& move : record.moves()) game.Play(move.move());
    if (!game.outcome().IsTerminal()) continue;
    window.AddGame(record, "finished");
    record.set_result(record.result() == 1 ? -1 : 1);
    EXPECT_TRUE(Contains(ErrorOf([&] { window.AddGame(record, "finished"); }), "contradicts"));
    return;
  }
  GTEST_SKIP() << "no random game of " << G::kName << " ended within 1000 plies";
}

TEST(ReplayWindowTest, EmptyWindowAndBadSizes) {
  using G = draughts::DraughtsGame;
  EXPECT_NE(ErrorOf([] { ReplayWindow<G> window(0); }), "");
  ReplayWindow<G> window(2);
  nets::TrainingBatch batch;
  EXPECT_TRUE(Contains(ErrorOf([&] { window.Sample(4, FixedDraws{{1}}, batch); }), "no positions"));
  // A game of opening plies only adds a game but no position.
  window.AddGame(RandomRecord<G>(2, 4, 4), "openings only");
  EXPECT_EQ(window.num_games(), 1);
  EXPECT_EQ(window.num_positions(), 0);
  EXPECT_NE(ErrorOf([&] { window.Sample(4, FixedDraws{{1}}, batch); }), "");
  window.AddGame(RandomRecord<G>(3, 10, 4), "some targets");
  EXPECT_NE(ErrorOf([&] { window.Sample(0, FixedDraws{{1}}, batch); }), "");
  window.Sample(3, FixedDraws{{1, 2, 3}}, batch);
  EXPECT_EQ(batch.size, 3);
}

// The draw that makes Sample pick position `k` of a window of `n` positions.
uint64_t DrawOf(uint64_t k, uint64_t n) {
  return uint64_t(((static_cast<unsigned __int128>(k) << 64) + n - 1) / n);
}

// Every row of `window` (n positions), oldest first.
template <Game G>
std::vector<ExpectedRow> AllRows(const ReplayWindow<G>& window) {
  const uint64_t n = uint64_t(window.num_positions());
  FixedDraws draws;
  for (uint64_t k = 0; k < n; ++k) draws.draws.push_back(DrawOf(k, n));
  nets::TrainingBatch batch;
  window.Sample(int(n), draws, batch);
  std::vector<ExpectedRow> rows;
  for (int i = 0; i < batch.size; ++i) rows.push_back(RowOf<G>(batch, i));
  return rows;
}

// replay.adjudicated_value_target: an adjudicated game's positions take the search's root WDL
// (normalized) with kSearch, the result with kResult; a game that the rules ended keeps its
// result either way.
TEST(ReplayWindowTest, AdjudicatedGamesCanTeachTheSearchValue) {
  using G = draughts::DraughtsGame;
  std::vector<ExpectedRow> expected;
  proto::GameRecord record = RandomRecord<G>(11, 30, 2, &expected);
  ASSERT_EQ(expected.size(), 28u);
  std::vector<std::vector<float>> search_wdl;
  int k = 0;
  for (proto::MoveRecord& move : *record.mutable_moves()) {
    if (!move.has_target()) continue;
    // Unnormalized (sum 2) and different at every ply.
    const float win = 0.1f + 0.03f * float(k++ % 20);
    move.clear_root_wdl();
    for (float p : {2 * win, 0.4f, 1.6f - 2 * win}) move.add_root_wdl(p);
    search_wdl.push_back({win, 0.2f, 0.8f - win});
  }
  record.set_adjudicated(true);

  ReplayWindow<G> search(WindowSize{10, 0}, AdjudicatedValue::kSearch);
  search.AddGame(record, "adjudicated");
  const std::vector<ExpectedRow> rows = AllRows(search);
  ASSERT_EQ(rows.size(), expected.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(rows[i].wdl[c], search_wdl[i][c], 1e-6) << i;
    EXPECT_EQ(rows[i].planes, expected[i].planes);
  }
  ReplayWindow<G> result(WindowSize{10, 0}, AdjudicatedValue::kResult);
  result.AddGame(record, "adjudicated");
  for (size_t i = 0; const ExpectedRow& row : AllRows(result)) {
    EXPECT_EQ(row.wdl, expected[i++].wdl);
  }
  // Not adjudicated: the result, whatever the setting.
  record.set_adjudicated(false);
  ReplayWindow<G> ended(WindowSize{10, 0}, AdjudicatedValue::kSearch);
  ended.AddGame(record, "ended");
  for (size_t i = 0; const ExpectedRow& row : AllRows(ended)) {
    EXPECT_EQ(row.wdl, expected[i++].wdl);
  }
  // replay.value_target_search_weight w: (1 - w) z + w q for every game whose target is its
  // result, decided or adjudicated (under kResult); kSearch still gives q alone when adjudicated.
  for (const bool adjudicated : {false, true}) {
    record.set_adjudicated(adjudicated);
    ReplayWindow<G> mixed(WindowSize{10, 0}, ReplayTargets(AdjudicatedValue::kResult, 0.25f));
    mixed.AddGame(record, "mixed");
    ReplayWindow<G> searched(WindowSize{10, 0}, ReplayTargets(AdjudicatedValue::kSearch, 0.25f));
    searched.AddGame(record, "mixed, search");
    const std::vector<ExpectedRow> mixed_rows = AllRows(mixed);
    const std::vector<ExpectedRow> searched_rows = AllRows(searched);
    ASSERT_EQ(mixed_rows.size(), expected.size());
    for (size_t i = 0; i < mixed_rows.size(); ++i) {
      for (int c = 0; c < 3; ++c) {
        const float mix = 0.75f * expected[i].wdl[c] + 0.25f * search_wdl[i][c];
        EXPECT_NEAR(mixed_rows[i].wdl[c], mix, 1e-6) << i;
        EXPECT_NEAR(searched_rows[i].wdl[c], adjudicated ? search_wdl[i][c] : mix, 1e-6) << i;
      }
    }
  }
  // A search WDL that is no distribution is an error naming the ply, whatever the target.
  record.set_adjudicated(false);
  {
    proto::GameRecord broken = record;
    broken.mutable_moves(5)->set_root_wdl(1, std::nanf(""));
    ReplayWindow<G> window(WindowSize{10, 0}, AdjudicatedValue::kResult);
    const std::string error = ErrorOf([&] { window.AddGame(broken, "nan wdl"); });
    EXPECT_TRUE(Contains(error, "nan wdl: ply 6")) << error;
  }
  record.set_adjudicated(true);
  record.mutable_moves(5)->set_root_wdl(1, -1.0f);
  ReplayWindow<G> bad(WindowSize{10, 0}, AdjudicatedValue::kSearch);
  const std::string error = ErrorOf([&] { bad.AddGame(record, "bad wdl"); });
  EXPECT_TRUE(Contains(error, "bad wdl: ply 6")) << error;
  EXPECT_EQ(bad.num_games(), 0);

  proto::ReplayConfig config;
  EXPECT_EQ(AdjudicatedValueOf(config), AdjudicatedValue::kResult);
  config.set_adjudicated_value_target("search");
  EXPECT_EQ(AdjudicatedValueOf(config), AdjudicatedValue::kSearch);
  config.set_adjudicated_value_target("soft");
  EXPECT_TRUE(Contains(ErrorOf([&] { AdjudicatedValueOf(config); }),
                       "replay.adjudicated_value_target: 'soft'"));
  config.set_adjudicated_value_target("result");
  config.set_value_target_search_weight(0.5f);
  proto::TrainConfig train;
  *train.mutable_replay() = config;
  EXPECT_EQ(ReplayTargetsOf(train).search_weight, 0.5f);
  EXPECT_FALSE(ReplayTargetsOf(train).ownership);
  train.mutable_optimizer()->set_ownership_loss_weight(0.5f);
  EXPECT_TRUE(ReplayTargetsOf(train).ownership);
  EXPECT_EQ(ReplayTargetsOf(train).material_horizon_plies, 0);
  train.mutable_replay()->set_material_horizon_plies(8);
  EXPECT_EQ(ReplayTargetsOf(train).material_horizon_plies, 8);
  train.mutable_replay()->set_material_horizon_plies(100001);
  EXPECT_TRUE(
      Contains(ErrorOf([&] { ReplayTargetsOf(train); }), "replay.material_horizon_plies: 100001"));
  train.mutable_replay()->set_material_horizon_plies(0);
  train.mutable_replay()->set_value_target_search_weight(1.5f);
  EXPECT_TRUE(
      Contains(ErrorOf([&] { ReplayTargetsOf(train); }), "replay.value_target_search_weight: 1.5"));
}

// KataGo's window c (1 + beta ((N / c)^alpha - 1) / alpha): c until N passes c, slope beta there,
// N^alpha growth later, capped, never decreasing.
TEST(ReplayWindowTest, GrowingWindowFollowsKataGosFormula) {
  const int64_t c = 250000;
  EXPECT_EQ(GrowingWindowPositions(0, c, 0.75, 0.4, 0), c);
  EXPECT_EQ(GrowingWindowPositions(c, c, 0.75, 0.4, 0), c);
  // N = 16 c: (16)^0.75 = 8, so c (1 + 0.4 * 7 / 0.75) = 4.7333 c.
  EXPECT_NEAR(double(GrowingWindowPositions(16 * c, c, 0.75, 0.4, 0)), c * (1 + 0.4 * 7 / 0.75),
              1.0);
  // N = 10^8 (KataGo's scale): 250000 (1 + 0.4 (400^0.75 - 1) / 0.75).
  EXPECT_NEAR(double(GrowingWindowPositions(100000000, c, 0.75, 0.4, 0)),
              c * (1 + 0.4 * (std::pow(400.0, 0.75) - 1) / 0.75), 1.0);
  // alpha 1: linear, beta new positions of window per produced position.
  EXPECT_EQ(GrowingWindowPositions(3 * c, c, 1.0, 0.5, 0), 2 * c);
  // Slope beta just past c.
  const double slope = double(GrowingWindowPositions(c + 2000, c, 0.75, 0.4, 0) - c) / 2000.0;
  EXPECT_NEAR(slope, 0.4, 0.01);
  // Capped.
  EXPECT_EQ(GrowingWindowPositions(100000000, c, 0.75, 0.4, 1000000), 1000000);
  int64_t previous = 0;
  for (int64_t n = 0; n < 400 * c; n += 9973 + n / 7) {
    const int64_t size = GrowingWindowPositions(n, c, 0.75, 0.4, 0);
    ASSERT_GE(size, previous) << n;
    ASSERT_LE(size, std::max(n, c)) << n;  // never more than was produced (beyond c)
    previous = size;
  }

  // The config's size, split among shards (rounding up).
  proto::ReplayConfig config;
  config.set_window_games(500);
  EXPECT_EQ(ReplayWindowSize(config, 123456, 1).games, 500);
  EXPECT_EQ(ReplayWindowSize(config, 123456, 3).games, 167);
  EXPECT_EQ(ReplayWindowSize(config, 123456, 3).positions, 0);
  config.set_window_growth("katago");
  config.set_window_base_positions(20000);
  config.set_window_exponent(0.75f);
  config.set_window_expansion(0.4f);
  EXPECT_EQ(ReplayWindowSize(config, 0, 1).positions, 20000);
  EXPECT_EQ(ReplayWindowSize(config, 0, 1).games, 0);
  EXPECT_EQ(ReplayWindowSize(config, 20000 * 16, 2).positions,
            (GrowingWindowPositions(20000 * 16, 20000, 0.75f, 0.4f, 0) + 1) / 2);
}

// A window in positions drops the oldest game only while the others still hold the size; it
// grows with Resize and never shrinks; OldestKept skips exactly the games it would drop.
TYPED_TEST(ReplayWindowTest, PositionWindowGrowsAndNeverShrinks) {
  using G = TypeParam;
  ReplayWindow<G> window(WindowSize{0, 60}, AdjudicatedValue::kResult);
  std::vector<proto::GameRecord> records;
  std::vector<int64_t> targets;
  for (int g = 0; g < 12; ++g) {
    records.push_back(RandomRecord<G>(300 + g, 10 + 3 * g, 2));
    targets.push_back(0);
    for (const proto::MoveRecord& move : records.back().moves())
      targets.back() += move.has_target();
  }
  for (int g = 0; g < 12; ++g) {
    if (g == 6) window.Resize(WindowSize{0, 120});
    if (g == 8) window.Resize(WindowSize{0, 30});  // smaller: ignored
    const int64_t games_before = window.num_games();
    window.AddGame(records[size_t(g)], "game");
    const int64_t size = window.size().positions;
    EXPECT_EQ(size, g < 6 ? 60 : 120);
    // The newest games are kept ...
    int64_t newest = 0;
    for (int64_t k = g; k > g - window.num_games(); --k) newest += targets[size_t(k)];
    EXPECT_EQ(newest, window.num_positions());
    // ... the oldest only because the others hold fewer than the size ...
    EXPECT_LT(window.num_positions() - targets[size_t(g - window.num_games() + 1)], size) << g;
    // ... and none goes while the window holds fewer than its size (it grows back to it).
    if (window.num_positions() < size) {
      EXPECT_EQ(window.num_games(), games_before + 1) << g;
    }
  }
  EXPECT_GE(window.num_positions(), 120);
  EXPECT_NE(ErrorOf([&] { window.Resize(WindowSize{5, 0}); }), "");
  EXPECT_NE(ErrorOf([] { ReplayWindow<G>(WindowSize{5, 5}, AdjudicatedValue::kResult); }), "");

  // Adding only the games from OldestKept on gives the same window as adding them all.
  ReplayWindow<G> all(WindowSize{0, 100}, AdjudicatedValue::kResult);
  ReplayWindow<G> skipped(WindowSize{0, 100}, AdjudicatedValue::kResult);
  for (const proto::GameRecord& record : records) all.AddGame(record, "all");
  const size_t first = skipped.OldestKept(targets);
  EXPECT_GT(first, 0u);
  for (size_t g = first; g < records.size(); ++g) skipped.AddGame(records[g], "kept");
  EXPECT_EQ(skipped.num_games(), all.num_games());
  EXPECT_EQ(skipped.num_positions(), all.num_positions());
  ReplayWindow<G> games(3);
  EXPECT_EQ(games.OldestKept(targets), records.size() - 3);
}

// A compact sample holds what the dense sample of the same draw holds: its position encodes to
// the dense planes, and its sparse target adds up to the dense policy target (no augmentation).
TYPED_TEST(ReplayWindowTest, CompactSamplesHoldTheDenseSamples) {
  using G = TypeParam;
  using E = InputEncoding<G>;
  ReplayWindow<G> window(10);
  for (int g = 0; g < 3; ++g) window.AddGame(RandomRecord<G>(21 + g, 40, 2), "game");
  constexpr int kSize = 24;
  uint64_t dense_state = 8, compact_state = 8;
  nets::TrainingBatch dense;
  window.Sample(
      kSize, [&] { return dense_state = SplitMix64(dense_state); }, dense);
  nets::CompactBatch compact;
  window.SampleCompact(
      kSize, [&] { return compact_state = SplitMix64(compact_state); }, compact);
  ASSERT_EQ(compact.size, kSize);
  ASSERT_EQ(compact.positions.size(), kSize * sizeof(typename G::Position));
  ASSERT_EQ(compact.target_offsets.size(), size_t(kSize) + 1);
  EXPECT_EQ(compact.symmetries, std::vector<int32_t>(kSize, 0));
  EXPECT_EQ(compact.wdl, dense.wdl);
  EXPECT_EQ(compact.material, dense.material);
  EXPECT_EQ(compact.ownership, dense.ownership);
  std::vector<float> planes(E::kSize);
  for (int i = 0; i < kSize; ++i) {
    typename G::Position position;
    std::memcpy(&position, compact.positions.data() + size_t(i) * sizeof(position),
                sizeof(position));
    E::Encode(position, compact.repetitions[size_t(i)], planes.data());
    EXPECT_TRUE(
        std::equal(planes.begin(), planes.end(), dense.planes.begin() + ptrdiff_t(i) * E::kSize))
        << "sample " << i;
    std::vector<float> policy(G::kNumActions, 0.0f);
    for (int32_t k = compact.target_offsets[size_t(i)]; k < compact.target_offsets[size_t(i) + 1];
         ++k) {
      policy[size_t(compact.target_indices[size_t(k)])] += compact.target_probabilities[size_t(k)];
    }
    EXPECT_TRUE(std::equal(policy.begin(), policy.end(),
                           dense.policy.begin() + ptrdiff_t(i) * G::kNumActions))
        << "sample " << i;
  }
}

#if VZ_HAVE_TORCH  // the trainer (LibTorch); the sanitizer builds are engine-only
// Compact samples (SampleCompact + AugmentCompact), expanded by the trainer with the game's
// codec, are the dense batch of Sample + AugmentBatch for the same draws: the same losses and
// accuracies in Evaluate (a fresh net reacts to every plane, target and legal-mask value, and its
// ownership head to every cell's target, which the symmetry moves with the planes), and the same
// update in Step. The codec here is the CPU twin's; on a GPU the kernels equal it.
TYPED_TEST(ReplayWindowTest, CompactSamplesExpandToTheDenseBatch) {
  using G = TypeParam;
  ReplayWindow<G> window(WindowSize{10, 0}, ReplayTargets(AdjudicatedValue::kResult, 0, 0, true));
  for (int g = 0; g < 4; ++g) window.AddGame(RandomRecord<G>(11 + g, 40, 2), "game");
  constexpr int kSize = 32;
  uint64_t dense_state = 5, compact_state = 5;
  const auto dense_random = [&] { return dense_state = SplitMix64(dense_state); };
  const auto compact_random = [&] { return compact_state = SplitMix64(compact_state); };
  nets::TrainingBatch dense;
  window.Sample(kSize, dense_random, dense);
  nets::AugmentBatch<G>(dense, dense_random);
  nets::CompactBatch compact;
  window.SampleCompact(kSize, compact_random, compact);
  nets::AugmentCompact<G>(compact, compact_random);
  ASSERT_EQ(dense_state, compact_state);  // the same draws
  if constexpr (InputEncoding<G>::kNumSymmetries > 1) {
    EXPECT_NE(std::count(compact.symmetries.begin(), compact.symmetries.end(), 0), kSize)
        << "no sample was augmented: the symmetries are not tested";
  }

  nets::SetCpuThreads(1);
  const nets::NetFile net = nets::FreshNetForGame<G>("tiny-own", 3);
  nets::TrainerOptions options;
  options.learning_rate = 0.05;
  options.ownership_weight = 0.5;
  nets::Trainer from_dense(net, options), from_compact(net, options);
  from_compact.set_sample_codec(nets::MakeSampleCodec<G>(/*cuda=*/false));
  const auto expect_same = [](const nets::TrainMetrics& a, const nets::TrainMetrics& b) {
    EXPECT_NEAR(a.loss, b.loss, 1e-5 * (1 + std::fabs(a.loss)));
    EXPECT_NEAR(a.policy_loss, b.policy_loss, 1e-5 * (1 + std::fabs(a.policy_loss)));
    EXPECT_NEAR(a.value_loss, b.value_loss, 1e-5);
    EXPECT_GT(a.ownership_loss, 0.0);
    EXPECT_NEAR(a.ownership_loss, b.ownership_loss, 1e-6);
    EXPECT_EQ(a.policy_accuracy, b.policy_accuracy);
    EXPECT_EQ(a.value_accuracy, b.value_accuracy);
  };
  expect_same(from_dense.Evaluate(dense), from_compact.Evaluate(compact));
  expect_same(from_dense.Step(dense), from_compact.Step(compact));
  expect_same(from_dense.Evaluate(dense), from_compact.Evaluate(compact));  // the same update

  // Bad compact batches are refused, naming what is wrong; nothing is trained.
  nets::CompactBatch bad = compact;
  bad.symmetries[3] = InputEncoding<G>::kNumSymmetries;
  EXPECT_NE(ErrorOf([&] { from_compact.Step(bad); }).find("symmetry"), std::string::npos);
  bad = compact;
  bad.target_indices.back() = G::kNumActions;
  EXPECT_NE(ErrorOf([&] { from_compact.Step(bad); }).find("policy index"), std::string::npos);
  bad = compact;
  bad.ownership[5] = kOccupancyClasses;
  EXPECT_NE(ErrorOf([&] { from_compact.Step(bad); }).find("ownership target of cell 5 of sample 0"),
            std::string::npos);
  bad = compact;
  bad.ownership.pop_back();
  EXPECT_NE(ErrorOf([&] { from_compact.Step(bad); }).find("ownership has"), std::string::npos);
  bad = compact;
  bad.positions.pop_back();
  EXPECT_NE(ErrorOf([&] { from_compact.Step(bad); }).find("positions"), std::string::npos);
  EXPECT_EQ(from_compact.step(), 1);
  EXPECT_NE(ErrorOf([&] { from_dense.Step(compact); }).find("no sample codec"), std::string::npos);
}

TEST(SampleCodecTest, ACodecForAnotherGameIsRefused) {
  nets::SetCpuThreads(1);
  nets::Trainer trainer(nets::FreshNetForGame<draughts::DraughtsGame>("tiny", 1), {});
  EXPECT_EQ(
      ErrorOf([&] { trainer.set_sample_codec(nets::MakeSampleCodec<chad::ChadGame>(false)); }),
      "sample codec of game 'chad' for a trainer of 'portuguese-draughts'");
}
#endif  // VZ_HAVE_TORCH

}  // namespace
}  // namespace vz
