// `vzero export CHECKPOINT -o FILE`: any trainer checkpoint as a net file for play.

#include <fmt/core.h>

#include <memory>
#include <string>

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
  const nets::NetFile net = nets::ExportCheckpoint(options.checkpoint);
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
