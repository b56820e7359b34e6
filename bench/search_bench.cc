// Simulations per second of Mcts<G> with the uniform evaluator on one core, for every registered
// game (the target is >= 200,000 per game; `vzero bench` prints the same figure with a
// deterministic signature). Run: build/search_bench [--benchmark_filter=chad].

#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "engine/games.h"
#include "engine/search/mcts.h"
#include "engine/search/search_driver.h"
#include "engine/search/uniform_evaluator.h"

namespace vz {
namespace {

// One search of state.range(0) simulations from the start position per iteration; the tree
// memory is reused across iterations, as in self-play.
template <Game G>
void SearchUniform(benchmark::State& state) {
  const int64_t simulations = state.range(0);
  UniformEvaluator<G> evaluator;
  auto search = std::make_unique<Mcts<G>>();
  for (auto _ : state) {
    search->SetRoot(G::InitialPosition());
    search->Search(evaluator, simulations);
    benchmark::DoNotOptimize(search->BestMove());
  }
  state.counters["sims/s"] = benchmark::Counter(double(simulations) * double(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

// 64 games in lockstep, 8 leaves each per round under virtual loss: the self-play shape.
template <Game G>
void LockstepUniform(benchmark::State& state) {
  const int64_t simulations = state.range(0);
  constexpr int kGames = 64;
  SearchParams params;
  params.leaves_per_round = 8;
  UniformEvaluator<G> evaluator;
  std::vector<std::unique_ptr<Mcts<G>>> searches;
  std::vector<Mcts<G>*> pointers;
  for (int i = 0; i < kGames; ++i) {
    searches.push_back(std::make_unique<Mcts<G>>(params));
    pointers.push_back(searches.back().get());
  }
  SearchDriver<G> driver;
  for (auto _ : state) {
    for (Mcts<G>* search : pointers) {
      search->SetRoot(G::InitialPosition());
      search->StartSearch(simulations, evaluator);
    }
    driver.Run(evaluator, pointers);
  }
  state.counters["sims/s"] = benchmark::Counter(
      double(simulations) * kGames * double(state.iterations()), benchmark::Counter::kIsRate);
}

template <class... Gs>
bool RegisterAll(GameList<Gs...>) {
  (benchmark::RegisterBenchmark(("SearchUniform/" + std::string(Gs::kName)).c_str(),
                                SearchUniform<Gs>)
       ->Arg(20000)
       ->Unit(benchmark::kMillisecond),
   ...);
  (benchmark::RegisterBenchmark(("LockstepUniform/" + std::string(Gs::kName)).c_str(),
                                LockstepUniform<Gs>)
       ->Arg(800)
       ->Unit(benchmark::kMillisecond),
   ...);
  return true;
}

// Registered before main; benchmark::benchmark_main runs them.
[[maybe_unused]] const bool registered = RegisterAll(AllGames{});

}  // namespace
}  // namespace vz
