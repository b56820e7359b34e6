// The batch prefetch (selfplay/batch_prefetch.h), over every game: the prefetched batches are the
// synchronous loop's (Sample, AugmentBatch, train), bit for bit and in order, with the same draws
// of the random source; an exception while sampling on the prefetch thread, or while training,
// reaches the caller after the step in flight finished, and the prefetcher runs again afterwards.

#include "selfplay/batch_prefetch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "tests/engine/game_types.h"
#include "tests/test_util.h"

namespace vz {
namespace {

using testing::ErrorOf;

// A record of a pseudo-random game of at most 40 plies: every ply carries a target on the played
// move and one other random legal move; the result is the rules' when the game ended, else a draw.
template <Game G>
proto::GameRecord RandomGame(uint64_t seed) {
  proto::GameRecord record;
  record.set_game(std::string(G::kName));
  GameState<G> game;
  for (int ply = 0; ply < 40 && !game.outcome().IsTerminal(); ++ply) {
    const auto& moves = game.legal_moves();
    const Move played = moves[int((seed = SplitMix64(seed)) % uint64_t(moves.size))];
    const Move other = moves[int((seed = SplitMix64(seed)) % uint64_t(moves.size))];
    proto::MoveRecord* move = record.add_moves();
    move->set_has_target(true);
    move->add_policy_index(uint32_t(G::ActionIndex(game.position(), played)));
    move->add_policy_target(3.0f);
    move->add_policy_index(uint32_t(G::ActionIndex(game.position(), other)));
    move->add_policy_target(1.0f);
    move->set_move(G::FormatMove(game.position(), played));
    game.Play(played);
  }
  const Outcome outcome = game.outcome();
  record.set_result(outcome.status == Status::kWhiteWins   ? 1
                    : outcome.status == Status::kBlackWins ? -1
                                                           : 0);
  return record;
}

template <Game G>
ReplayWindow<G> WindowOfRandomGames(int games) {
  // With ownership targets, which the augmentation moves with the planes.
  ReplayWindow<G> window(WindowSize{games, 0}, ReplayTargets(AdjudicatedValue::kResult, 0, 0,
                                                             /*ownership_targets=*/true));
  for (int g = 0; g < games; ++g) window.AddGame(RandomGame<G>(uint64_t(g) + 11), "random game");
  return window;
}

// The trainer's generator (nets::Trainer::NextRandom): a SplitMix64 stream, counting its draws.
struct CountingRandom {
  uint64_t state;
  int64_t draws = 0;
  uint64_t operator()() {
    ++draws;
    return SplitMix64(state += 0x9E3779B97F4A7C15ull);
  }
};

bool SameBatch(const nets::TrainingBatch& a, const nets::TrainingBatch& b) {
  return a.size == b.size && a.planes == b.planes && a.policy == b.policy && a.wdl == b.wdl &&
         a.legal == b.legal && a.material == b.material && a.ownership == b.ownership;
}

template <class G>
class BatchPrefetchTest : public ::testing::Test {};
TYPED_TEST_SUITE(BatchPrefetchTest, testing::AllGameTypes, testing::GameNames);

TYPED_TEST(BatchPrefetchTest, GivesTheBatchesAndDrawsOfTheSynchronousLoop) {
  using G = TypeParam;
  const ReplayWindow<G> window = WindowOfRandomGames<G>(6);
  constexpr int kSize = 16, kSteps = 7;
  for (const bool augment : {false, true}) {
    SCOPED_TRACE(augment ? "augmented" : "not augmented");
    // The synchronous loop of the trainer before the prefetch.
    CountingRandom reference_random{42};
    std::vector<nets::TrainingBatch> expected(kSteps);
    for (nets::TrainingBatch& batch : expected) {
      window.Sample(kSize, reference_random, batch);
      if (augment) nets::AugmentBatch<G>(batch, reference_random);
    }

    BatchPrefetcher<nets::TrainingBatch> prefetcher;
    CountingRandom random{42};
    std::vector<nets::TrainingBatch> trained;
    std::vector<std::thread::id> fill_threads;
    const std::thread::id caller = std::this_thread::get_id();
    // Two Runs of a split sequence (the trainer ends a Run at each checkpoint) give it whole.
    for (const int count : {kSteps - 3, 3}) {
      prefetcher.Run(
          count, DrawsPerTrainingBatch<G>(kSize, augment), [&] { return random(); },
          [&](std::span<const uint64_t> draws, nets::TrainingBatch& batch) {
            fill_threads.push_back(std::this_thread::get_id());
            SampleTrainingBatch<G>(window, kSize, augment, draws, batch);
          },
          [&](const nets::TrainingBatch& batch) {
            EXPECT_EQ(std::this_thread::get_id(), caller);
            trained.push_back(batch);
          });
    }
    ASSERT_EQ(trained.size(), size_t(kSteps));
    for (int k = 0; k < kSteps; ++k)
      EXPECT_TRUE(SameBatch(trained[k], expected[k])) << "batch " << k;
    EXPECT_EQ(random.draws, reference_random.draws);
    EXPECT_EQ(random.state, reference_random.state);
    // Batch 0 of each Run is sampled by the caller, the others by the prefetch thread.
    ASSERT_EQ(fill_threads.size(), size_t(kSteps));
    EXPECT_EQ(fill_threads[0], caller);
    EXPECT_NE(fill_threads[1], caller);
    EXPECT_EQ(fill_threads[kSteps - 3], caller);
  }
}

// A Run whose fill() throws at batch `failing` (on the prefetch thread for failing >= 1) and
// whose train() throws at batch `train_failing` (-1: never); returns the caller's error message and
// the batches trained. The batch's size tells which batch it is.
template <class Exception>
std::string FailingRun(BatchPrefetcher<nets::TrainingBatch>& prefetcher, int failing,
                       int train_failing, std::vector<int>& trained,
                       const char* what = "replay window broke") {
  uint64_t state = 1;
  return ErrorOf([&] {
    int filled = 0;
    prefetcher.Run(
        6, 2, [&] { return state++; },
        [&](std::span<const uint64_t>, nets::TrainingBatch& batch) {
          if (filled == failing) throw Exception(what);
          batch.size = ++filled;
        },
        [&](const nets::TrainingBatch& batch) {
          if (batch.size - 1 == train_failing) throw Error("the step failed");
          trained.push_back(batch.size - 1);
        });
  });
}

TEST(BatchPrefetch, AnErrorWhileSamplingReachesTheCallerAfterTheStepInFlight) {
  BatchPrefetcher<nets::TrainingBatch> prefetcher;
  std::vector<int> trained;
  // Batch 3 fails on the prefetch thread while batch 2 trains: batches 0-2 are trained.
  EXPECT_EQ(FailingRun<Error>(prefetcher, 3, -1, trained), "replay window broke");
  EXPECT_EQ(trained, std::vector<int>({0, 1, 2}));
  // Another exception type arrives as vz::Error naming the sampling.
  trained.clear();
  EXPECT_EQ(FailingRun<std::runtime_error>(prefetcher, 1, -1, trained),
            "sampling a training batch: replay window broke");
  EXPECT_EQ(trained, std::vector<int>({0}));
  // Batch 0 is sampled by the caller: its error is the sampler's own.
  trained.clear();
  EXPECT_EQ(FailingRun<Error>(prefetcher, 0, -1, trained), "replay window broke");
  EXPECT_TRUE(trained.empty());
}

TEST(BatchPrefetch, AnErrorWhileTrainingWinsAndThePrefetcherRunsAgain) {
  BatchPrefetcher<nets::TrainingBatch> prefetcher;
  std::vector<int> trained;
  EXPECT_EQ(FailingRun<Error>(prefetcher, -1, 2, trained), "the step failed");
  EXPECT_EQ(trained, std::vector<int>({0, 1}));
  // Both fail in the same step (train batch 2, sample batch 3): the step's error is the one.
  trained.clear();
  EXPECT_EQ(FailingRun<Error>(prefetcher, 3, 2, trained), "the step failed");
  EXPECT_EQ(trained, std::vector<int>({0, 1}));
  // The last batch (nothing in flight beside it).
  trained.clear();
  EXPECT_EQ(FailingRun<Error>(prefetcher, -1, 5, trained), "the step failed");
  EXPECT_EQ(trained, std::vector<int>({0, 1, 2, 3, 4}));
  trained.clear();
  EXPECT_EQ(FailingRun<Error>(prefetcher, -1, -1, trained), "");
  EXPECT_EQ(trained, std::vector<int>({0, 1, 2, 3, 4, 5}));
}

TEST(BatchPrefetch, SamplingAnEmptyWindowIsAnError) {
  using G = chaco_rex::ChacoRexGame;
  const ReplayWindow<G> empty(4);
  BatchPrefetcher<nets::TrainingBatch> prefetcher;
  uint64_t state = 0;
  const std::string error = ErrorOf([&] {
    prefetcher.Run(
        2, DrawsPerTrainingBatch<G>(8, true), [&] { return state++; },
        [&](std::span<const uint64_t> draws, nets::TrainingBatch& batch) {
          SampleTrainingBatch<G>(empty, 8, true, draws, batch);
        },
        [](const nets::TrainingBatch&) {});
  });
  EXPECT_EQ(error, "replay window: no positions to sample");
}

}  // namespace
}  // namespace vz
