#include "nets/variant_nets.h"

#include <fmt/core.h>

#include <chrono>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "engine/search/evaluator_registry.h"
#include "nets/fresh_net.h"
#include "nets/net_evaluator.h"
#include "nets/torch_evaluator.h"

namespace vz::nets {
namespace {

// `count` positions from fixed pseudo-random games (SplitMix64 from seed 1), with their legal
// moves; positions are taken every ply, games restart when they end.
template <Game G>
void FillBatch(EvalBatch<G>& batch, int count) {
  batch.Clear();
  uint64_t state = 1;
  while (batch.size() < count) {
    GameState<G> game;
    for (int ply = 0; ply < 200 && batch.size() < count && !game.outcome().IsTerminal(); ++ply) {
      const auto& moves = game.legal_moves();
      batch.Add(game.position(), moves.moves, moves.size, game.RepetitionCount());
      state = SplitMix64(state);
      game.Play(moves[int((state >> 32) * uint64_t(moves.size) >> 32)]);
    }
  }
}

}  // namespace

NetFile FreshNetForVariant(std::string_view variant, std::string_view preset, uint64_t seed) {
  return WithGame(variant, [&]<Game G>() { return FreshNetForGame<G>(preset, seed); });
}

void CheckNetForItsGame(const NetFile& net, std::string_view source) {
  WithGame(net.game, [&]<Game G>() { CheckNetForGame<G>(net, source); });
}

std::map<std::string, std::string> NetFilesByGame(const std::vector<std::string>& paths) {
  std::map<std::string, std::string> nets;
  for (const std::string& path : paths) {
    const NetFile net = ReadNetFile(path);
    CheckNetForItsGame(net, path);
    if (nets.count(net.game) > 0) {
      throw Error("--net " + path + ": a second net for " + net.game + " (after " + nets[net.game] +
                  "; one net per variant)");
    }
    nets[net.game] = path;
  }
  return nets;
}

NnBenchReport RunNnBench(const NetFile& net, std::string_view source, const std::string& device,
                         const std::string& precision, const std::vector<int>& batch_sizes,
                         double seconds_per_size, const RunnerOptions& options) {
  return WithGame(net.game, [&]<Game G>() {
    int largest = 1;
    for (int size : batch_sizes) {
      if (size < 1 || size > 65536) throw Error(fmt::format("batch size {} is out of range", size));
      largest = std::max(largest, size);
    }
    // The GPU evaluator on a CUDA device (nets/net_evaluator.h), the LibTorch one otherwise.
    const std::unique_ptr<Evaluator<G>> made =
        MakeNetEvaluator<G>(net, source, device, precision, /*warmup_batch=*/largest, options);
    Evaluator<G>& evaluator = *made;
    NnBenchReport report;
    report.variant = net.game;
    report.device = RunnerOf(evaluator).device();
    report.precision = RunnerOf(evaluator).precision();
    report.architecture = DescribeArchitecture(net.architecture);
    report.parameters = net.ParameterCount();
    report.dense_flops = ForwardFlops(net.architecture);
    // The legal-moves head runs on the CPU only (RunnerOptions::legal_policy).
    const bool legal_policy = options.legal_policy && report.device == "cpu";
    EvalBatch<G> batch;
    for (int size : batch_sizes) {
      FillBatch(batch, size);
      evaluator.Evaluate(batch);  // warm-up at this size
      NnBenchRow row;
      row.batch_size = size;
      for (int i = 0; i < size; ++i) row.legal_actions += batch.num_moves(i);
      row.legal_actions /= size;
      int batches = 0;
      const auto start = std::chrono::steady_clock::now();
      for (;;) {
        evaluator.Evaluate(batch);
        ++batches;
        row.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (batches >= 3 && row.seconds >= seconds_per_size) break;
      }
      row.positions = int64_t(batches) * size;
      row.positions_per_second = double(row.positions) / row.seconds;
      row.milliseconds_per_batch = 1000.0 * row.seconds / batches;
      row.gflops = row.positions_per_second *
                   ForwardFlops(net.architecture, legal_policy ? row.legal_actions : -1) / 1e9;
      report.rows.push_back(row);
    }
    report.tuning = RunnerOf(evaluator).tuning();
    return report;
  });
}

template <class... Gs>
void InstallNetEvaluatorsFor(GameList<Gs...>) {
  ((NetEvaluatorSlot<Gs>() = [](const std::string& path,
                                const std::string& device) -> std::unique_ptr<Evaluator<Gs>> {
     return MakeNetEvaluator<Gs>(ReadNetFile(path), path, device);
   }),
   ...);
}

void InstallNetEvaluators() { InstallNetEvaluatorsFor(AllGames{}); }

}  // namespace vz::nets
