// `vzero report RUN_DIR`: the summary of a training run and its plots, redrawn from metrics.jsonl;
// `vzero report --table RUN_DIR`: its strength curve as a Markdown table.

#include <fmt/core.h>

#include <cstdio>
#include <memory>
#include <string>

#include "app/commands.h"
#include "engine/core/error.h"
#include "records/metrics_reader.h"
#include "selfplay/run_report.h"

namespace vz::app {
namespace {

void RunReportCommand(const std::string& run_dir, bool table) {
  if (table) {
    int skipped = 0;
    const std::string curve = StrengthCurveTable(run_dir, &skipped);
    if (curve.empty()) {
      throw Error(fmt::format(
          "run {}: no strength checks or evaluations against fixed opponents in metrics.jsonl",
          run_dir));
    }
    fmt::print("{}", curve);
    if (skipped > 0) {
      fmt::print(stderr, "{} line(s) of {}/metrics.jsonl skipped (not JSON objects)\n", skipped,
                 run_dir);
    }
    return;
  }
  const RunMetricsSummary summary = SummarizeRunMetrics(run_dir);
  fmt::print("run {}: {} metric lines\n{}", run_dir, summary.lines, summary.text);
  for (const std::string& plot : DrawRunPlots(run_dir)) fmt::print("plot: {}\n", plot);
}

}  // namespace

void AddReportCommand(CLI::App& app) {
  auto run_dir = std::make_shared<std::string>();
  auto table = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand(
      "report", "Summarize a training run and redraw its plots (RUN_DIR/plots/*.svg, gnuplot)");
  command->add_option("run_dir", *run_dir, "Run directory of `vzero train`")->required();
  command->add_flag("--table", *table,
                    "Print only the strength curve as a Markdown table (no plots): the net's "
                    "score (W-D-L) against each fixed opponent at every check and evaluation");
  command->callback([run_dir, table] { RunReportCommand(*run_dir, *table); });
}

}  // namespace vz::app
