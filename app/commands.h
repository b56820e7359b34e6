#pragma once

// One subcommand per file (KataGo's layout). Each Add*Command registers its options on `app` and
// sets the callback that runs it; the callback throws vz::Error on bad input, which main() prints
// on one line before exiting with status 1.

#include <CLI/CLI.hpp>

namespace vz::app {

void AddVersionCommand(CLI::App& app);
void AddPerftCommand(CLI::App& app);
void AddShowCommand(CLI::App& app);
void AddAnalysisCommand(CLI::App& app);
void AddPlayCommand(CLI::App& app);
void AddUciCommand(CLI::App& app);
void AddSearchCommand(CLI::App& app);
void AddBenchCommand(CLI::App& app);
void AddMatchCommand(CLI::App& app);
void AddLadderCommand(CLI::App& app);
void AddReportCommand(CLI::App& app);
void AddServeCommand(CLI::App& app);
#if defined(VZ_HAVE_TORCH)
void AddNetCommand(CLI::App& app);
void AddNnBenchCommand(CLI::App& app);
void AddTrainCommand(CLI::App& app);
void AddExportCommand(CLI::App& app);
void AddSelfPlayCommand(CLI::App& app);
void AddTrainerCommand(CLI::App& app);
void AddGateCommand(CLI::App& app);
#endif

}  // namespace vz::app
