#pragma once

// Helpers shared by the network tests (tests/nets/): LibTorch on one CPU thread, the skip of a
// GPU test without a CUDA device, one fresh net as an evaluator and as a bare runner, positions of
// fixed pseudo-random games as an evaluator batch or as a training batch, and the largest
// difference of two evaluations.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/encodings.h"
#include "engine/search/evaluator.h"
#include "nets/fresh_net.h"
#include "nets/net_runner.h"
#include "nets/torch_evaluator.h"
#include "nets/trainer.h"

// Skips the current test (from its body) where no CUDA device is present.
#define VZ_SKIP_WITHOUT_CUDA() \
  if (::vz::nets::CudaDeviceCount() == 0) GTEST_SKIP() << "no CUDA device present: not run"

namespace vz::testing {

// One LibTorch CPU thread for every test that includes this header: the tests run next to others
// on a shared machine.
inline const bool kSingleCpuThread = (nets::SetCpuThreads(1), true);

// A fresh net of G's preset `tiny` (weights from `seed`) on the CPU in fp32, twice: as the
// LibTorch evaluator and as a bare runner (the network's full outputs), to check what the
// evaluator makes of the network's outputs.
template <Game G>
struct CpuEvaluatorAndRunner {
  explicit CpuEvaluatorAndRunner(uint64_t seed)
      : net(nets::FreshNetForGame<G>("tiny", seed)),
        evaluator(net, "fresh", "cpu", "fp32", 0),
        runner(net, "fresh", "cpu", "fp32") {}
  nets::NetFile net;
  nets::TorchEvaluator<G> evaluator;
  nets::NetRunner runner;
};

// Refills `batch` with `count` positions of fixed pseudo-random games of G (SplitMix64 from
// `seed`; at most `max_plies` plies a game; each position kept with probability 1 / `keep_one_in`,
// chosen by the same generator), with their legal moves and repetition counts.
template <Game G>
void FillEvalBatch(EvalBatch<G>& batch, int count, uint64_t seed, int max_plies,
                   int keep_one_in = 1) {
  batch.Clear();
  uint64_t state = seed;
  while (batch.size() < count) {
    GameState<G> game;
    for (int ply = 0; ply < max_plies && batch.size() < count && !game.outcome().IsTerminal();
         ++ply) {
      const auto& moves = game.legal_moves();
      state = SplitMix64(state);
      if (state % uint64_t(keep_one_in) == 0)
        batch.Add(game.position(), moves.moves, moves.size, game.RepetitionCount());
      game.Play(moves[int(SplitMix64(state) % uint64_t(moves.size))]);
    }
  }
}

// `count` positions of fixed pseudo-random games of G (SplitMix64 from `seed`; at most `max_plies`
// plies a game, of which every `every`-th position is taken), each with a one-hot policy target
// on a random legal move, a random one-hot WDL target, and its legal mask.
template <Game G>
nets::TrainingBatch RandomTrainingBatch(int count, uint64_t seed, int max_plies, int every) {
  using E = InputEncoding<G>;
  nets::TrainingBatch batch;
  batch.size = count;
  batch.planes.resize(size_t(count) * E::kSize);
  batch.policy.assign(size_t(count) * E::kNumActions, 0.0f);
  batch.wdl.assign(size_t(count) * 3, 0.0f);
  batch.legal.assign(size_t(count) * E::kNumActions, 0);
  uint64_t state = seed;
  int n = 0;
  while (n < count) {
    GameState<G> game;
    for (int ply = 0; ply < max_plies && n < count && !game.outcome().IsTerminal(); ++ply) {
      const auto& moves = game.legal_moves();
      state = SplitMix64(state);
      if (ply % every == every - 1) {
        E::Encode(game.position(), game.RepetitionCount(),
                  batch.planes.data() + size_t(n) * E::kSize);
        for (Move m : moves) {
          batch.legal[size_t(n) * E::kNumActions + E::PolicyIndex(game.position(), m)] = 1;
        }
        const Move target = moves[int(state % uint64_t(moves.size))];
        batch.policy[size_t(n) * E::kNumActions + E::PolicyIndex(game.position(), target)] = 1.0f;
        batch.wdl[size_t(n) * 3 + (state >> 40) % 3] = 1.0f;
        ++n;
      }
      game.Play(moves[int((state >> 20) % uint64_t(moves.size))]);
    }
  }
  return batch;
}

// Largest absolute difference of the priors and the WDL values between two evaluations of the
// same positions (batches filled alike).
template <Game G>
double WorstDifference(const EvalBatch<G>& a, const EvalBatch<G>& b) {
  double worst = 0;
  for (int i = 0; i < a.size(); ++i) {
    for (size_t k = 0; k < a.priors(i).size(); ++k) {
      worst = std::max(worst, double(std::abs(a.priors(i)[k] - b.priors(i)[k])));
    }
    worst = std::max(worst, double(std::abs(a.value(i).win - b.value(i).win)));
    worst = std::max(worst, double(std::abs(a.value(i).draw - b.value(i).draw)));
    worst = std::max(worst, double(std::abs(a.value(i).loss - b.value(i).loss)));
  }
  return worst;
}

}  // namespace vz::testing
