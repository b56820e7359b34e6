// Throughput of the GPU path against batch size, with its CPU baselines measured in the same run
// (Google Benchmark; scripts/gpu-check.sh runs it and docs/gpu.md records the figures):
//   Rules/<game>/<gpu|cpu>/<batch>      positions/s of batched move generation (moves, counts,
//                                       policy indices) + float input encoding: the CUDA kernels
//                                       of cuda/batched_kernels.h (one thread per position,
//                                       stream synchronised every iteration) against the CPU twin
//                                       of cuda/batched_rules.h (one host thread, batches up to
//                                       16384: its rate does not depend on the batch)
//   Evaluator/<game>/<path>/<batch>     network evaluations/s of a fresh "small" net on cuda:0:
//                                       cuda = the GPU evaluator (nets/cuda_evaluator.h: device
//                                       encoding and priors), torch = the LibTorch evaluator
//                                       (host encoding and priors)
// GPU rows report an error ("no CUDA device") where none is present; CPU rows always run.
// items_per_second is the figure (positions or evaluations per second).

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cuda/batched_kernels.h"
#include "cuda/batched_rules.h"
#include "cuda/device_buffer.h"
#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/encodings.h"
#include "engine/games.h"
#if defined(VZ_HAVE_TORCH)
#include "nets/fresh_net.h"
#include "nets/net_evaluator.h"
#include "nets/net_runner.h"
#endif

namespace vz {
namespace {

// `count` positions of pseudo-random games (every ply, games replayed until there are enough),
// with their repetition counts; positions without a legal move included.
template <class G>
void RandomPositions(int count, std::vector<typename G::Position>& positions,
                     std::vector<int32_t>& repetitions) {
  positions.clear();
  repetitions.clear();
  uint64_t state = 12345;
  while (int(positions.size()) < count) {
    GameState<G> game;
    for (int ply = 0; ply < 300 && int(positions.size()) < count; ++ply) {
      positions.push_back(game.position());
      repetitions.push_back(game.RepetitionCount());
      if (game.legal_moves().size == 0 || game.outcome().IsTerminal()) break;
      state = SplitMix64(state);
      game.Play(game.legal_moves()[int(state % uint64_t(game.legal_moves().size))]);
    }
  }
}

template <class G>
void RulesCpu(benchmark::State& state) {
  using E = InputEncoding<G>;
  const int batch = int(state.range(0));
  std::vector<typename G::Position> positions;
  std::vector<int32_t> repetitions;
  RandomPositions<G>(batch, positions, repetitions);
  std::vector<Move> moves(size_t(batch) * G::kMaxMoves);
  std::vector<int32_t> counts(static_cast<size_t>(batch)), indices(size_t(batch) * G::kMaxMoves);
  std::vector<float> planes(size_t(batch) * E::kSize);
  for (auto _ : state) {
    cuda::CpuLegalMoves<G>(positions.data(), batch, moves.data(), counts.data(), indices.data());
    cuda::CpuEncodeFloat<G>(positions.data(), batch, repetitions.data(), planes.data());
    benchmark::DoNotOptimize(planes.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * batch);
}

template <class G>
void RulesGpu(benchmark::State& state) {
  using E = InputEncoding<G>;
  if (cuda::DeviceCount() == 0) {
    state.SkipWithError("no CUDA device");
    for (auto _ : state) {
    }
    return;
  }
  const int batch = int(state.range(0));
  std::vector<typename G::Position> positions;
  std::vector<int32_t> repetitions;
  RandomPositions<G>(batch, positions, repetitions);
  cuda::DeviceBuffer<typename G::Position> d_positions(positions.size());
  cuda::DeviceBuffer<int32_t> d_repetitions(repetitions.size());
  cuda::CopyToDevice(d_positions.data(), positions.data(), d_positions.bytes());
  cuda::CopyToDevice(d_repetitions.data(), repetitions.data(), d_repetitions.bytes());
  cuda::DeviceBuffer<Move> d_moves(size_t(batch) * G::kMaxMoves);
  cuda::DeviceBuffer<int32_t> d_counts(static_cast<size_t>(batch)),
      d_indices(size_t(batch) * G::kMaxMoves);
  cuda::DeviceBuffer<float> d_planes(size_t(batch) * E::kSize);
  const cuda::Stream stream = nullptr;
  auto run = [&] {
    cuda::LaunchLegalMoves<G>(d_positions.data(), batch, d_moves.data(), d_counts.data(),
                              d_indices.data(), stream);
    cuda::LaunchEncodeFloat<G>(d_positions.data(), batch, d_repetitions.data(), d_planes.data(),
                               stream);
    cuda::SynchronizeStream(stream);
  };
  run();  // first launch: module load, local-memory sizing
  for (auto _ : state) run();
  state.SetItemsProcessed(int64_t(state.iterations()) * batch);
}

#if defined(VZ_HAVE_TORCH)
// The evaluators compared: the LibTorch one on the GPU (planes built on the host), and the GPU
// evaluator (nets/cuda_evaluator.h).
enum class Path { kTorch, kCuda };

template <class G>
void Evaluate(benchmark::State& state, Path path) {
  if (nets::CudaDeviceCount() == 0) {
    state.SkipWithError("no CUDA device");
    for (auto _ : state) {
    }
    return;
  }
  const int batch = int(state.range(0));
  // Built once per (path, batch): Google Benchmark calls this function several times per row.
  struct Setup {
    std::unique_ptr<Evaluator<G>> evaluator;
    EvalBatch<G> batch;
  };
  static std::map<std::pair<Path, int>, Setup> setups;
  Setup& setup = setups[{path, batch}];
  if (setup.evaluator == nullptr) {
    nets::SetCpuThreads(1);
    const nets::NetFile net = nets::FreshNetForGame<G>("small", 1);
    if (path == Path::kTorch) {
      setup.evaluator =
          std::make_unique<nets::TorchEvaluator<G>>(net, "fresh small", "cuda:0", "auto", batch);
    } else {
      setup.evaluator =
          std::make_unique<nets::CudaEvaluator<G>>(net, "fresh small", "cuda:0", "auto", batch);
    }
    std::vector<typename G::Position> positions;
    std::vector<int32_t> repetitions;
    RandomPositions<G>(batch * 2, positions, repetitions);
    for (size_t i = 0; i < positions.size() && setup.batch.size() < batch; ++i) {
      typename G::MoveList moves;
      G::GenerateMoves(positions[i], moves);
      if (moves.size == 0 || G::LocalOutcome(positions[i], moves.size).IsTerminal()) continue;
      setup.batch.Add(positions[i], moves.moves, moves.size, repetitions[i]);
    }
    setup.evaluator->Evaluate(setup.batch);
  }
  Evaluator<G>& evaluator = *setup.evaluator;
  EvalBatch<G>& eval_batch = setup.batch;
  for (auto _ : state) evaluator.Evaluate(eval_batch);
  state.SetItemsProcessed(int64_t(state.iterations()) * eval_batch.size());
}
#endif

template <class G>
void Register() {
  const std::string game(G::kName);
  for (int batch : {256, 1024, 4096, 16384, 65536}) {
    benchmark::RegisterBenchmark(("Rules/" + game + "/gpu").c_str(), RulesGpu<G>)
        ->Arg(batch)
        ->UseRealTime()
        ->MinTime(0.3)
        ->Unit(benchmark::kMicrosecond);
    if (batch > 16384) continue;  // one host thread: its rate no longer depends on the batch
    benchmark::RegisterBenchmark(("Rules/" + game + "/cpu").c_str(), RulesCpu<G>)
        ->Arg(batch)
        ->UseRealTime()
        ->MinTime(0.3)
        ->Unit(benchmark::kMicrosecond);
  }
#if defined(VZ_HAVE_TORCH)
  for (int batch : {64, 256, 1024, 4096}) {
    for (const auto& [name, path] :
         {std::pair{"cuda", Path::kCuda}, std::pair{"torch", Path::kTorch}}) {
      benchmark::RegisterBenchmark(("Evaluator/" + game + "/" + name).c_str(),
                                   [path](benchmark::State& state) { Evaluate<G>(state, path); })
          ->Arg(batch)
          ->UseRealTime()
          ->MinTime(0.5)
          ->Unit(benchmark::kMillisecond);
    }
  }
#endif
}

template <class... Gs>
bool RegisterAll(GameList<Gs...>) {
  (Register<Gs>(), ...);
  return true;
}

// Registered before main; benchmark::benchmark_main runs them.
[[maybe_unused]] const bool registered = RegisterAll(AllGames{});

}  // namespace
}  // namespace vz
