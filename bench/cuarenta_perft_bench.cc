// Cuarenta perft speed with bulk counting (leaves per second as items/s).

#include <benchmark/benchmark.h>

#include <cstdint>

#include "engine/core/perft.h"
#include "engine/cuarenta/game.h"

namespace {

using vz::cuarenta::CuarentaGame;

void BM_CuarentaPerftStart(benchmark::State& state) {
  const CuarentaGame::Position start = CuarentaGame::InitialPosition();
  const int depth = int(state.range(0));
  uint64_t leaves = 0;
  for (auto _ : state) {
    const uint64_t nodes = vz::Perft<CuarentaGame>(start, depth);
    benchmark::DoNotOptimize(nodes);
    leaves += nodes;
  }
  state.SetItemsProcessed(int64_t(leaves));
}
BENCHMARK(BM_CuarentaPerftStart)->Arg(4)->Arg(5)->Unit(benchmark::kMillisecond);

void BM_CuarentaPerftMiddlegame(benchmark::State& state) {
  const CuarentaGame::Position position =
      CuarentaGame::ParsePosition("c1fb/vgk1v/p1p1/1FgP1/pV2/2G1p/P1P1/V1K2/B1FC b b 12 9");
  uint64_t leaves = 0;
  for (auto _ : state) {
    const uint64_t nodes = vz::Perft<CuarentaGame>(position, 4);
    benchmark::DoNotOptimize(nodes);
    leaves += nodes;
  }
  state.SetItemsProcessed(int64_t(leaves));
}
BENCHMARK(BM_CuarentaPerftMiddlegame)->Unit(benchmark::kMillisecond);

}  // namespace
BENCHMARK_MAIN();
