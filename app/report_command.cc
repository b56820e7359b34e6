// `vzero report RUN_DIR`: the summary of a training run and its plots, redrawn from metrics.jsonl.

#include <fmt/core.h>

#include <memory>
#include <string>

#include "app/commands.h"
#include "selfplay/run_report.h"

namespace vz::app {
namespace {

void RunReportCommand(const std::string& run_dir) {
  const RunMetricsSummary summary = SummarizeRunMetrics(run_dir);
  fmt::print("run {}: {} metric lines\n{}", run_dir, summary.lines, summary.text);
  for (const std::string& plot : DrawRunPlots(run_dir)) fmt::print("plot: {}\n", plot);
}

}  // namespace

void AddReportCommand(CLI::App& app) {
  auto run_dir = std::make_shared<std::string>();
  CLI::App* command = app.add_subcommand(
      "report", "Summarize a training run and redraw its plots (RUN_DIR/plots/*.svg, gnuplot)");
  command->add_option("run_dir", *run_dir, "Run directory of `vzero train`")->required();
  command->callback([run_dir] { RunReportCommand(*run_dir); });
}

}  // namespace vz::app
