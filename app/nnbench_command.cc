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
  bool dense_policy = false;
  int cpu_block = 0;
  bool fuse_convolutions = true;
  bool roofline = true;
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
  const nets::NnBenchReport report = nets::RunNnBench(
      net, source, options.device, options.precision, options.batch_sizes, options.seconds,
      {.layout = layouts.at(options.layout),
       .cuda_graphs = options.cuda_graphs,
       .legal_policy = !options.dense_policy,
       .cpu_block = options.cpu_block,
       .fuse_convolutions = options.fuse_convolutions});
  fmt::print("nnbench {} on {} ({}), net {} ({}, {} parameters)\n", report.variant, report.device,
             report.precision, source, report.architecture, report.parameters);
  fmt::print("forward pass: {}\n", report.tuning);
  // The roofline's peak: a matrix product in the run's precision on the same threads (the CPU).
  double peak = 0;
  if (options.roofline && report.device == "cpu") {
    peak = nets::MatmulGflops(report.precision);
    const std::string other = report.precision == "fp32" ? "bf16" : "fp32";
    fmt::print(
        "roofline: {:.2f} MFLOP a position with the dense policy head; peak {:.1f} GFLOP/s ({} "
        "512x512 matrix product), {:.1f} GFLOP/s in {}\n",
        report.dense_flops / 1e6, peak, report.precision, nets::MatmulGflops(other), other);
  }
  fmt::print("{:>6} {:>14} {:>12} {:>10} {:>7} {:>9} {:>6}\n", "batch", "positions/s", "ms/batch",
             "positions", "legal", "GFLOP/s", "peak");
  for (const nets::NnBenchRow& row : report.rows) {
    fmt::print("{:>6} {:>14.1f} {:>12.3f} {:>10} {:>7.1f} {:>9.2f} {:>6}\n", row.batch_size,
               row.positions_per_second, row.milliseconds_per_batch, row.positions,
               row.legal_actions, row.gflops,
               peak > 0 ? fmt::format("{:.0f}%", 100 * row.gflops / peak) : "-");
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
  command->add_option("--seconds", options->seconds, "Seconds per batch size (0.01 to 3600)")
      ->check(CLI::Range(0.01, 3600.0));
  command->add_option("--threads", options->threads, "LibTorch CPU threads (0: its default)")
      ->check(CLI::Range(0, 1024));
  command
      ->add_option(
          "--layout", options->layout,
          "Tensor layout: auto (channels-last on CUDA; on the CPU channels-last but in fp32 "
          "for nets with global pooling under 32 channels), nchw or channels-last")
      ->check(CLI::IsMember({"auto", "nchw", "channels-last"}));
  command->add_option("--cuda-graphs", options->cuda_graphs,
                      "Replay CUDA graphs per padded batch size (on a CUDA device; default off)");
  command->add_flag("--dense-policy", options->dense_policy,
                    "Every action's policy logit, then the legal ones gathered (the reference), "
                    "instead of the legal moves' logits alone");
  command
      ->add_option("--cpu-block", options->cpu_block,
                   "Positions per forward pass on the CPU (0: the net's measured default)")
      ->check(CLI::Range(0, 65536));
  command->add_option("--fuse-convolutions", options->fuse_convolutions,
                      "On the CPU in bf16 and channels-last, oneDNN's convolutions with packed "
                      "weights and the ReLU and skip addition fused (default true)");
  command->add_option("--roofline", options->roofline,
                      "Measure the CPU's matrix-product peak and print each row's share of it "
                      "(default true)");
  command->callback([options] { RunNnBenchCommand(*options); });
}

}  // namespace vz::app
