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

// Adds to every numeric option of `app` and its subcommands (after the Add*Command calls) the
// checks CLI11 2.1 leaves out, so that no command meets such a value: a floating-point option
// must be finite (CLI11 reads "nan" and "inf", which pass its Range checks and ran loops without
// end), an unsigned one must have no minus sign (strtoull turns "-1" into 2^64 - 1) and fit in 64
// bits (strtoull clamps larger ones). The error names the value and what is wrong.
void AddNumberChecks(CLI::App& app);

#if defined(VZ_HAVE_TORCH)
void AddNetCommand(CLI::App& app);
void AddNnBenchCommand(CLI::App& app);
void AddTrainCommand(CLI::App& app);
void AddExportCommand(CLI::App& app);
void AddSelfPlayCommand(CLI::App& app);
void AddTrainerCommand(CLI::App& app);
void AddGateCommand(CLI::App& app);
void AddResearchCommand(CLI::App& app);
#endif

}  // namespace vz::app
