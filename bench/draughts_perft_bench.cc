// Portuguese draughts perft speed (bulk counting: the last ply counts the legal move list without
// playing it). Reports leaves per second as items_per_second.
//   build-*/draughts_perft_bench --benchmark_filter=Draughts

#include <benchmark/benchmark.h>

#include "engine/core/perft.h"
#include "engine/draughts/game.h"

namespace {

using vz::draughts::DraughtsGame;

void BM_DraughtsPerftStart(benchmark::State& state) {
  const DraughtsGame::Position start = DraughtsGame::InitialPosition();
  const int depth = int(state.range(0));
  uint64_t leaves = 0;
  for (auto _ : state) {
    leaves += vz::Perft<DraughtsGame>(start, depth);
  }
  state.SetItemsProcessed(int64_t(leaves));
}
BENCHMARK(BM_DraughtsPerftStart)->Arg(8)->Arg(10)->Unit(benchmark::kMillisecond);

// Kings on both sides: flying moves and long king captures dominate.
void BM_DraughtsPerftKings(benchmark::State& state) {
  const DraughtsGame::Position position =
      DraughtsGame::ParsePosition("W:WK1,K2,K3,K4,K5:BK28,K29,K30,K31,K32");
  uint64_t leaves = 0;
  for (auto _ : state) {
    leaves += vz::Perft<DraughtsGame>(position, 5);
  }
  state.SetItemsProcessed(int64_t(leaves));
}
BENCHMARK(BM_DraughtsPerftKings)->Unit(benchmark::kMillisecond);

void BM_DraughtsGenerateMoves(benchmark::State& state) {
  const DraughtsGame::Position start = DraughtsGame::InitialPosition();
  DraughtsGame::MoveList moves;
  for (auto _ : state) {
    DraughtsGame::GenerateMoves(start, moves);
    benchmark::DoNotOptimize(moves.size);
  }
}
BENCHMARK(BM_DraughtsGenerateMoves);

}  // namespace

BENCHMARK_MAIN();
