// `vzero export CHECKPOINT -o FILE`: any trainer checkpoint as a net file for play.

#include <fmt/core.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "engine/core/error.h"
#include "nets/net_architecture.h"
#include "nets/net_file.h"
#include "nets/trainer.h"

namespace vz::app {
namespace {

struct ExportOptions {
  std::string checkpoint;
  std::string output;
};

// An existing output is replaced only when it is a net file: the checkpoint itself, a record
// chunk or any other file given by mistake is kept.
void CheckOutput(const ExportOptions& options) {
  std::error_code error;
  if (!std::filesystem::exists(options.output, error)) return;
  if (std::filesystem::equivalent(options.output, options.checkpoint, error)) {
    throw Error(fmt::format("export: the output {} is the checkpoint itself; not overwritten",
                            options.output));
  }
  try {
    nets::ReadNetFile(options.output);
  } catch (const Error& e) {
    throw Error(fmt::format(
        "export: {} exists and is not a net file that may be replaced ({}); not overwritten",
        options.output, e.what()));
  }
}

void RunExportCommand(const ExportOptions& options) {
  CheckOutput(options);
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
