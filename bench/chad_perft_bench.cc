// Chad perft speed (bulk counting: the last ply counts the legal move list without playing it).
// Reports leaves per second as items_per_second.
//   build-*/chad_perft_bench --benchmark_filter=Chad

#include <benchmark/benchmark.h>

#include "engine/chad/game.h"
#include "engine/core/perft.h"

namespace {

using vz::chad::ChadGame;

void BM_ChadPerftStart(benchmark::State& state) {
  const ChadGame::Position start = ChadGame::InitialPosition();
  const int depth = int(state.range(0));
  uint64_t leaves = 0;
  for (auto _ : state) {
    leaves += vz::Perft<ChadGame>(start, depth);
  }
  state.SetItemsProcessed(int64_t(leaves));
}
BENCHMARK(BM_ChadPerftStart)->Arg(3)->Arg(4)->Unit(benchmark::kMillisecond);

// A queen-heavy middle game (five queens, many diagonal lines).
void BM_ChadPerftQueens(benchmark::State& state) {
  const ChadGame::Position position =
      ChadGame::ParsePosition("12/12/12/2r9/8qk2/q11/5q6/R1R1q7/2K5R3/11R/R1RR2R5/r11 w 14 46");
  uint64_t leaves = 0;
  for (auto _ : state) {
    leaves += vz::Perft<ChadGame>(position, 3);
  }
  state.SetItemsProcessed(int64_t(leaves));
}
BENCHMARK(BM_ChadPerftQueens)->Unit(benchmark::kMillisecond);

void BM_ChadGenerateMoves(benchmark::State& state) {
  const ChadGame::Position start = ChadGame::InitialPosition();
  ChadGame::MoveList moves;
  for (auto _ : state) {
    ChadGame::GenerateMoves(start, moves);
    benchmark::DoNotOptimize(moves.size);
  }
}
BENCHMARK(BM_ChadGenerateMoves);

}  // namespace

BENCHMARK_MAIN();
