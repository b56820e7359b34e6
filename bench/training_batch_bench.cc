// The CPU cost of one training batch of the Chaco Rex demo preset (128 samples, augmented) on the
// two batch paths (docs/training.md, "One batch path"): dense sampling (ReplayWindow::Sample and
// AugmentBatch: input planes, dense policy target, legal mask from move generation) against
// compact sampling (positions and sparse targets) plus the trainer's expansion on the CPU (the
// sample codec's CPU twin of the rule kernels, then the targets and symmetries scattered), set
// against the demo net's CPU training step on either batch. The window: 240 random-play games of
// 100 plies, about the size of the demo's window at its start (20,000 positions, KataGo's c).
// Run: build/training_batch_bench --benchmark_filter=SideBySide (the figures of
// docs/training.md: medians of 40 interleaved measurements).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "nets/augment.h"
#include "nets/fresh_net.h"
#include "nets/net_runner.h"
#include "nets/sample_codec.h"
#include "nets/trainer.h"
#include "proto/train.pb.h"
#include "selfplay/batch_prefetch.h"
#include "selfplay/replay_window.h"

namespace vz {
namespace {

using G = chaco_rex::ChacoRexGame;
constexpr int kBatch = 128;  // configs/chaco-rex/demo.txtpb optimizer.batch_size
constexpr bool kAugment = true;

// A random-play game of up to `plies` plies whose searched moves carry a policy target over up
// to 8 random legal moves (the demo's Gumbel considers 8).
proto::GameRecord RandomGame(uint64_t seed, int plies) {
  proto::GameRecord record;
  record.set_game(std::string(G::kName));
  GameState<G> game(G::InitialPosition());
  for (int ply = 0; ply < plies && !game.outcome().IsTerminal(); ++ply) {
    const G::Position& position = game.position();
    const auto& moves = game.legal_moves();
    proto::MoveRecord* move = record.add_moves();
    move->set_has_target(true);
    const int count = 1 + int((seed = SplitMix64(seed)) % 8);
    for (int k = 0; k < count; ++k) {
      const Move m = moves[int((seed = SplitMix64(seed)) % uint64_t(moves.size))];
      move->add_policy_index(uint32_t(G::ActionIndex(position, m)));
      move->add_policy_target(float(1 + (seed >> 40) % 9));
    }
    const Move played = moves[int((seed = SplitMix64(seed)) % uint64_t(moves.size))];
    move->set_move(G::FormatMove(position, played));
    game.Play(played);
  }
  const Outcome outcome = game.outcome();
  record.set_result(outcome.status == Status::kWhiteWins   ? 1
                    : outcome.status == Status::kBlackWins ? -1
                                                           : 0);
  return record;
}

const ReplayWindow<G>& Window() {
  static const ReplayWindow<G>* window = [] {
    auto* made = new ReplayWindow<G>(240);
    for (int g = 0; g < 240; ++g) made->AddGame(RandomGame(1000 + uint64_t(g), 100), "bench");
    return made;
  }();
  return *window;
}

// The draws of one batch, the next ones on every call.
std::span<const uint64_t> Draws() {
  static uint64_t state = 7;
  static std::vector<uint64_t> draws(size_t(DrawsPerTrainingBatch<G>(kBatch, kAugment)));
  for (uint64_t& draw : draws) draw = state = SplitMix64(state);
  return draws;
}

template <class Batch>
void Sample(benchmark::State& state) {
  const ReplayWindow<G>& window = Window();
  Batch batch;
  for (auto _ : state) {
    SampleTrainingBatch<G>(window, kBatch, kAugment, Draws(), batch);
    benchmark::DoNotOptimize(batch.size);
  }
}

// The demo's net ("tiny", fp32 on the CPU) with its optimizer options and, for compact batches,
// the CPU codec.
nets::Trainer& DemoTrainer() {
  static nets::Trainer* trainer = [] {
    nets::TrainerOptions options;
    options.learning_rate = 0.02;
    options.momentum = 0.9;
    options.weight_decay = 1e-4;
    auto* made = new nets::Trainer(nets::FreshNetForGame<G>("tiny", 1), options);
    made->set_sample_codec(nets::MakeSampleCodec<G>(/*cuda=*/false));
    return made;
  }();
  return *trainer;
}

// One training step (`step`) or evaluation on batches sampled outside the timing.
template <class Batch, bool kStep>
void Train(benchmark::State& state) {
  const ReplayWindow<G>& window = Window();
  nets::Trainer& trainer = DemoTrainer();
  Batch batch;
  for (auto _ : state) {
    state.PauseTiming();
    SampleTrainingBatch<G>(window, kBatch, kAugment, Draws(), batch);
    state.ResumeTiming();
    const nets::TrainMetrics metrics = kStep ? trainer.Step(batch) : trainer.Evaluate(batch);
    benchmark::DoNotOptimize(metrics.loss);
  }
}

// The same figures measured side by side, to see through the load of a shared machine: per
// iteration one dense and one compact batch are sampled, evaluated and trained on (two trainers
// from the same net), each timed; the counters are the medians in milliseconds.
void SideBySide(benchmark::State& state) {
  const ReplayWindow<G>& window = Window();
  nets::Trainer& compact_trainer = DemoTrainer();
  static nets::Trainer* dense_trainer = [] {
    nets::TrainerOptions options;
    options.learning_rate = 0.02;
    options.momentum = 0.9;
    options.weight_decay = 1e-4;
    return new nets::Trainer(nets::FreshNetForGame<G>("tiny", 1), options);
  }();
  nets::TrainingBatch dense;
  nets::CompactBatch compact;
  std::vector<double> times[6];  // sample, evaluate, step: dense, compact
  const auto timed = [](std::vector<double>& into, const auto& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    into.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  };
  for (auto _ : state) {
    const std::span<const uint64_t> draws = Draws();
    timed(times[0], [&] { SampleTrainingBatch<G>(window, kBatch, kAugment, draws, dense); });
    timed(times[1], [&] { SampleTrainingBatch<G>(window, kBatch, kAugment, draws, compact); });
    timed(times[2], [&] { benchmark::DoNotOptimize(dense_trainer->Evaluate(dense).loss); });
    timed(times[3], [&] { benchmark::DoNotOptimize(compact_trainer.Evaluate(compact).loss); });
    timed(times[4], [&] { benchmark::DoNotOptimize(dense_trainer->Step(dense).loss); });
    timed(times[5], [&] { benchmark::DoNotOptimize(compact_trainer.Step(compact).loss); });
  }
  const char* names[6] = {"sample_dense",     "sample_compact", "evaluate_dense",
                          "evaluate_compact", "step_dense",     "step_compact"};
  for (int k = 0; k < 6; ++k) {
    std::sort(times[k].begin(), times[k].end());
    state.counters[names[k]] = times[k].empty() ? 0.0 : times[k][times[k].size() / 2];
  }
}

BENCHMARK(SideBySide)->Iterations(40)->Unit(benchmark::kMillisecond);
BENCHMARK(Sample<nets::TrainingBatch>)->Name("SampleDense")->Unit(benchmark::kMillisecond);
BENCHMARK(Sample<nets::CompactBatch>)->Name("SampleCompact")->Unit(benchmark::kMillisecond);
BENCHMARK(Train<nets::TrainingBatch, false>)->Name("EvaluateDense")->Unit(benchmark::kMillisecond);
BENCHMARK(Train<nets::CompactBatch, false>)->Name("EvaluateCompact")->Unit(benchmark::kMillisecond);
BENCHMARK(Train<nets::TrainingBatch, true>)->Name("StepDense")->Unit(benchmark::kMillisecond);
BENCHMARK(Train<nets::CompactBatch, true>)->Name("StepCompact")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vz
