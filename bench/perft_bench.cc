// Perft speed of every game with bulk counting (the last ply counts the legal moves, G::CountMoves,
// without writing or playing them), leaves per second as items_per_second; also a middle-game
// position of each game and move generation alone.
//   build/perft_bench --benchmark_filter=chad

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/core/perft.h"
#include "engine/games.h"

namespace vz {
namespace {

// What is timed for one game: perft of the start position at each of `start_depths`, and of a
// middle-game position chosen to stress the game's costliest rule.
struct PerftCase {
  std::string_view game;
  int start_depths[2];
  const char* middle_game;
  int middle_game_depth;
};

constexpr PerftCase kCases[] = {
    // An open middle game with pins and many slider lines.
    {"chaco-rex",
     {4, 5},
     "r1bqbkb1r/1p1pp1ppp1/1np1p1pn1/p1Pp3P1p/9/P3P2P2/2P1PP3/1PP1P1PPP1/RNBQBKBNR w - 0 1",
     3},
    // A queen-heavy middle game (five queens, many diagonal lines).
    {"chad", {3, 4}, "12/12/12/2r9/8qk2/q11/5q6/R1R1q7/2K5R3/11R/R1RR2R5/r11 w 14 46", 3},
    {"cuarenta", {4, 5}, "c1fb/vgk1v/p1p1/1FgP1/pV2/2G1p/P1P1/V1K2/B1FC b b 12 9", 4},
    // Kings on both sides: flying moves and long king captures dominate.
    {"portuguese-draughts", {8, 10}, "W:WK1,K2,K3,K4,K5:BK28,K29,K30,K31,K32", 5},
};

template <Game G>
void PerftOf(benchmark::State& state, const typename G::Position& position) {
  const int depth = int(state.range(0));
  uint64_t leaves = 0;
  for (auto _ : state) {
    const uint64_t nodes = Perft<G>(position, depth);
    benchmark::DoNotOptimize(nodes);
    leaves += nodes;
  }
  state.SetItemsProcessed(int64_t(leaves));
}

template <Game G>
void GenerateMoves(benchmark::State& state) {
  const typename G::Position start = G::InitialPosition();
  typename G::MoveList moves;
  for (auto _ : state) {
    G::GenerateMoves(start, moves);
    benchmark::DoNotOptimize(moves.size);
  }
}

template <Game G>
void Register(const PerftCase& c) {
  const std::string game(G::kName);
  auto* start = benchmark::RegisterBenchmark(
      ("PerftStart/" + game).c_str(), [](auto& state) { PerftOf<G>(state, G::InitialPosition()); });
  for (int depth : c.start_depths) start->Arg(depth);
  start->Unit(benchmark::kMillisecond);
  const typename G::Position middle = G::ParsePosition(c.middle_game);
  benchmark::RegisterBenchmark(("PerftMiddleGame/" + game).c_str(),
                               [middle](auto& state) { PerftOf<G>(state, middle); })
      ->Arg(c.middle_game_depth)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("GenerateMoves/" + game).c_str(), GenerateMoves<G>);
}

template <class... Gs>
bool RegisterAll(GameList<Gs...>) {
  for (const PerftCase& c : kCases) {
    ((c.game == Gs::kName ? Register<Gs>(c) : void()), ...);
  }
  return true;
}

// Registered before main; benchmark::benchmark_main runs them.
[[maybe_unused]] const bool registered = RegisterAll(AllGames{});

}  // namespace
}  // namespace vz
