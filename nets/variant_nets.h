#pragma once

// Type-erased entry points of nets/ for the CLI (one binary serves every game; the game is
// chosen by its registry name at run time, see engine/registry.h). Torch-free header.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "nets/net_file.h"
#include "nets/net_runner.h"

namespace vz::nets {

// Fills the net-evaluator slot of every registered game (engine/search/evaluator_registry.h) with
// the TorchEvaluator factory, so that `vzero search --evaluator net` works. Call once at start-up,
// before any search.
void InstallNetEvaluators();

// A fresh net for the game called `variant` with architecture `preset`. Throws vz::Error on an
// unknown game or preset.
NetFile FreshNetForVariant(std::string_view variant, std::string_view preset, uint64_t seed);

// Throws vz::Error if `net` (read from `source`) does not fit the game it names: an unknown
// game, or another encoding, version or input/policy shape than this build's.
void CheckNetForItsGame(const NetFile& net, std::string_view source);

// The net file of each game among `paths` (registry name -> path), for the commands whose repeated
// --net serves the game each file names (`vzero analysis`, `vzero serve`). Throws vz::Error naming
// the path for a file that cannot be read or does not fit its game, and for a second net of one
// game.
std::map<std::string, std::string> NetFilesByGame(const std::vector<std::string>& paths);

// One line of `vzero nnbench`.
struct NnBenchRow {
  int batch_size = 0;
  int64_t positions = 0;  // positions evaluated (after warm-up)
  double seconds = 0;
  double positions_per_second = 0;
  double milliseconds_per_batch = 0;
  double legal_actions = 0;  // mean legal moves a position
  double gflops = 0;         // achieved: positions_per_second * ForwardFlops of the head that ran
};

struct NnBenchReport {
  std::string variant;
  std::string device;
  std::string precision;
  std::string architecture;  // DescribeArchitecture
  std::string tuning;        // NetRunner::tuning after the run (layout, CUDA graphs)
  int64_t parameters = 0;
  double dense_flops = 0;  // a position's ForwardFlops with the dense policy head
  std::vector<NnBenchRow> rows;
};

// Evaluates batches of real positions of `net`'s game (from fixed pseudo-random games) through
// the evaluator of MakeNetEvaluator on `device` (the GPU evaluator on a CUDA device, the LibTorch
// one otherwise), for each batch size, for about `seconds_per_size` each (at least 3 batches).
// Throws vz::Error on the errors of those evaluators.
NnBenchReport RunNnBench(const NetFile& net, std::string_view source, const std::string& device,
                         const std::string& precision, const std::vector<int>& batch_sizes,
                         double seconds_per_size, const RunnerOptions& options = {});

}  // namespace vz::nets
