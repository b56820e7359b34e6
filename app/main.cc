// vzero: an AlphaZero-style engine for Chaco Rex, Chad, Cuarenta and Portuguese draughts.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "app/commands.h"
#include "engine/core/allocator.h"
#include "engine/core/error.h"
#if defined(VZ_HAVE_TORCH)
#include "nets/net_runner.h"
#include "nets/variant_nets.h"
#endif

#if defined(VZ_HAVE_TORCH)
// The value of VZ_TORCH_THREADS (1 when unset). Throws vz::Error unless it is a number in 1..1024.
int TorchThreadsFromEnvironment() {
  const char* text = std::getenv("VZ_TORCH_THREADS");
  if (text == nullptr || *text == '\0') return 1;
  char* end = nullptr;
  const long threads = std::strtol(text, &end, 10);
  if (*end != '\0' || threads < 1 || threads > 1024) {
    throw vz::Error(std::string("VZ_TORCH_THREADS '") + text + "' is not a number in 1..1024");
  }
  return int(threads);
}
#endif

int main(int argc, char** argv) {
  vz::KeepFreedMemoryInTheHeap();
  CLI::App app{
      "vzero: AlphaZero-style engine for Chaco Rex, Chad, Cuarenta and Portuguese draughts"};
  app.require_subcommand(1);
  vz::app::AddVersionCommand(app);
  vz::app::AddPerftCommand(app);
  vz::app::AddShowCommand(app);
  vz::app::AddAnalysisCommand(app);
  vz::app::AddPlayCommand(app);
  vz::app::AddUciCommand(app);
  vz::app::AddSearchCommand(app);
  vz::app::AddBenchCommand(app);
  vz::app::AddMatchCommand(app);
  vz::app::AddLadderCommand(app);
  vz::app::AddReportCommand(app);
  vz::app::AddServeCommand(app);
#if defined(VZ_HAVE_TORCH)
  // LibTorch's CPU threads: VZ_TORCH_THREADS, default 1. Search batches are small and OpenMP's
  // busy waiting with one thread per core made a net search 10-40x slower on a loaded machine;
  // `vzero nnbench --threads N` overrides it for measurements. Neither call loads LibTorch: the
  // threads apply and the net evaluators run when a command first needs a net
  // (nets/torch_backend.h).
  try {
    vz::nets::SetCpuThreads(TorchThreadsFromEnvironment());
  } catch (const vz::Error& e) {
    std::fprintf(stderr, "vzero: %s\n", e.what());
    return 1;
  }
  vz::nets::InstallNetEvaluators();
  vz::app::AddNetCommand(app);
  vz::app::AddNnBenchCommand(app);
  vz::app::AddTrainCommand(app);
  vz::app::AddExportCommand(app);
  vz::app::AddSelfPlayCommand(app);
  vz::app::AddTrainerCommand(app);
  vz::app::AddGateCommand(app);
  vz::app::AddResearchCommand(app);
#endif
  vz::app::AddNumberChecks(app);
  // CLI11 would only say "A subcommand is required" for a mistyped command.
  std::string known;
  bool is_known = false;
  for (const CLI::App* command : app.get_subcommands({})) {
    known += (known.empty() ? "" : ", ") + command->get_name();
    is_known = is_known || (argc > 1 && command->check_name(argv[1]));
  }
  if (argc > 1 && argv[1][0] != '-' && !is_known) {
    std::fprintf(stderr, "vzero: unknown command '%s' (commands: %s)\n", argv[1], known.c_str());
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "vzero: %s\n", e.what());
    return 1;
  } catch (const vz::Error& e) {
    std::fprintf(stderr, "vzero: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vzero: unexpected error: %s\n", e.what());
    return 1;
  }
  return 0;
}
