// `vzero nnbench`: network evaluations per second against batch size on one device.

#include <fmt/core.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"
#include "nets/variant_nets.h"

namespace vz::app {
namespace {

struct NnBenchOptions {
  std::string variant;
  std::string net_path;
  std::string preset = "small";
  std::string device = "cpu";
  std::string precision = "auto";
  std::vector<int> batch_sizes = {1, 8, 32, 128};
  double seconds = 1.0;
  int threads = 0;
  std::string layout = "auto";
  bool cuda_graphs = false;
};

void RunNnBenchCommand(const NnBenchOptions& options) {
  if (options.threads > 0) nets::SetCpuThreads(options.threads);
  nets::NetFile net;
  std::string source;
  if (!options.net_path.empty()) {
    net = nets::ReadNetFile(options.net_path);
    source = options.net_path;
    if (!options.variant.empty() && options.variant != net.game) {
      throw Error(fmt::format("net file {}: made for game '{}', not '{}'", source, net.game,
                              options.variant));
    }
  } else {
    if (options.variant.empty()) throw Error("nnbench needs --variant or --net");
    net = nets::FreshNetForVariant(options.variant, options.preset, 1);
    source = "fresh " + options.preset + " net";
  }
  using Layout = nets::RunnerOptions::Layout;
  const std::map<std::string, Layout> layouts = {
      {"auto", Layout::kAuto}, {"nchw", Layout::kNchw}, {"channels-last", Layout::kChannelsLast}};
  const nets::NnBenchReport report =
      nets::RunNnBench(net, source, options.device, options.precision, options.batch_sizes,
                       options.seconds,
                       {.layout = layouts.at(options.layout), .cuda_graphs = options.cuda_graphs});
  fmt::print("nnbench {} on {} ({}), net {} ({}, {} parameters)\n", report.variant, report.device,
             report.precision, source, report.architecture, report.parameters);
  fmt::print("forward pass: {}\n", report.tuning);
  fmt::print("{:>6} {:>14} {:>12} {:>10}\n", "batch", "positions/s", "ms/batch", "positions");
  for (const nets::NnBenchRow& row : report.rows) {
    fmt::print("{:>6} {:>14.1f} {:>12.3f} {:>10}\n", row.batch_size, row.positions_per_second,
               row.milliseconds_per_batch, row.positions);
  }
}

}  // namespace

void AddNnBenchCommand(CLI::App& app) {
  auto options = std::make_shared<NnBenchOptions>();
  CLI::App* command =
      app.add_subcommand("nnbench", "Network evaluations per second against batch size");
  command->add_option("--variant", options->variant, "Game name (a fresh net of --preset)");
  command->add_option("--net", options->net_path, "Net file (instead of a fresh net)");
  command->add_option("--preset", options->preset, "Architecture of the fresh net");
  command->add_option("--device", options->device, "cpu, cuda or cuda:N");
  command->add_option("--precision", options->precision, "auto, fp32, fp16 or bf16");
  command->add_option("--batch-sizes", options->batch_sizes, "Batch sizes")->delimiter(',');
  command->add_option("--seconds", options->seconds, "Seconds per batch size");
  command->add_option("--threads", options->threads, "LibTorch CPU threads (0: its default)");
  command
      ->add_option("--layout", options->layout,
                   "Tensor layout: auto (channels-last on CUDA, NCHW on the CPU), nchw or "
                   "channels-last")
      ->check(CLI::IsMember({"auto", "nchw", "channels-last"}));
  command->add_option("--cuda-graphs", options->cuda_graphs,
                      "Replay CUDA graphs per padded batch size (on a CUDA device; default off)");
  command->callback([options] { RunNnBenchCommand(*options); });
}

}  // namespace vz::app
