// Chaco Rex perft speed (bulk counting: the last ply counts the legal move list without playing
// it). Reports leaves per second as items_per_second.
//   build-*/chaco_rex_perft_bench --benchmark_filter=ChacoRex

#include <benchmark/benchmark.h>

#include "engine/chaco_rex/game.h"
#include "engine/core/perft.h"

namespace {

using vz::chaco_rex::ChacoRexGame;

void BM_ChacoRexPerftStart(benchmark::State& state) {
  const ChacoRexGame::Position start = ChacoRexGame::InitialPosition();
  const int depth = int(state.range(0));
  uint64_t leaves = 0;
  for (auto _ : state) {
    leaves += vz::Perft<ChacoRexGame>(start, depth);
  }
  state.SetItemsProcessed(int64_t(leaves));
}
BENCHMARK(BM_ChacoRexPerftStart)->Arg(4)->Arg(5)->Unit(benchmark::kMillisecond);

// An open middle game with pins and many slider lines.
void BM_ChacoRexPerftMiddleGame(benchmark::State& state) {
  const ChacoRexGame::Position position = ChacoRexGame::ParsePosition(
      "r1bqbkb1r/1p1pp1ppp1/1np1p1pn1/p1Pp3P1p/9/P3P2P2/2P1PP3/1PP1P1PPP1/RNBQBKBNR w - 0 1");
  uint64_t leaves = 0;
  for (auto _ : state) {
    leaves += vz::Perft<ChacoRexGame>(position, 3);
  }
  state.SetItemsProcessed(int64_t(leaves));
}
BENCHMARK(BM_ChacoRexPerftMiddleGame)->Unit(benchmark::kMillisecond);

void BM_ChacoRexGenerateMoves(benchmark::State& state) {
  const ChacoRexGame::Position start = ChacoRexGame::InitialPosition();
  ChacoRexGame::MoveList moves;
  for (auto _ : state) {
    ChacoRexGame::GenerateMoves(start, moves);
    benchmark::DoNotOptimize(moves.size);
  }
}
BENCHMARK(BM_ChacoRexGenerateMoves);

}  // namespace

BENCHMARK_MAIN();
