#include <fmt/core.h>

#include "app/commands.h"
#include "build_info.h"
#include "engine/registry.h"

namespace vz::app {

void AddVersionCommand(CLI::App& app) {
  CLI::App* command = app.add_subcommand("version", "Print the version, revision and games");
  command->callback([] {
    fmt::print("vzero {} (revision {})\n", VZ_VERSION, VZ_GIT_REVISION);
    for (const Variant* variant : AllVariants()) fmt::print("variant {}\n", variant->name());
#ifdef VZ_HAVE_CUDA
    fmt::print("cuda kernels: built\n");
#else
    fmt::print("cuda kernels: not built\n");
#endif
#ifdef VZ_HAVE_TORCH
    fmt::print("libtorch networks: built\n");
#else
    fmt::print("libtorch networks: not built\n");
#endif
  });
}

}  // namespace vz::app
