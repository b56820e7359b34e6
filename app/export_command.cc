// `vzero export CHECKPOINT -o FILE`: any trainer checkpoint as a net file for play.

#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "nets/net_architecture.h"
#include "nets/net_file.h"
#include "nets/trainer.h"

namespace vz::app {
namespace {

struct ExportOptions {
  std::string checkpoint;
  std::string output;
};

void RunExportCommand(const ExportOptions& options) {
  std::vector<std::string> warnings;
  const nets::NetFile net = nets::ExportCheckpoint(options.checkpoint, 0, &warnings);
  for (const std::string& warning : warnings)
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  nets::WriteNetFile(options.output, net);
  fmt::print("{}: {} net, {}, step {} -> {}\n", options.checkpoint, net.game,
             nets::DescribeArchitecture(net.architecture), net.provenance.training_steps,
             options.output);
}

}  // namespace

void AddExportCommand(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  CLI::App* command = app.add_subcommand(
      "export", "Write a trainer checkpoint (RUN/checkpoints/trainer.ckpt) as a net file");
  command->add_option("checkpoint", options->checkpoint, "Checkpoint file")->required();
  command->add_option("-o,--output", options->output, "Net file to write")->required();
  command->callback([options] { RunExportCommand(*options); });
}

}  // namespace vz::app
