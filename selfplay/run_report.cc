#include "selfplay/run_report.h"

#include <fmt/core.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "records/metrics_reader.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Quotes a path for a gnuplot string literal.
std::string Quoted(const fs::path& path) {
  std::string out = "'";
  for (char c : path.string()) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// Quotes a path for /bin/sh.
std::string ShellQuoted(const fs::path& path) {
  std::string out = "'";
  for (char c : path.string()) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A whitewash has a huge Elo (arena/stats.h clamps the score by 1e-6): plotted at this bound.
constexpr double kPlotEloLimit = 800;

double PlotElo(double elo) { return std::clamp(elo, -kPlotEloLimit, kPlotEloLimit); }

// Quotes a title for a gnuplot string literal.
std::string QuotedTitle(const std::string& title) { return Quoted(fs::path(title)); }

std::vector<std::string> Draw(const std::string& run_dir) {
  int bad_lines = 0;
  const std::vector<json> metrics = ReadRunMetrics(run_dir, bad_lines);
  const fs::path plots = fs::path(run_dir) / "plots";
  std::error_code error;
  fs::create_directories(plots, error);
  if (error) throw Error(fmt::format("cannot create {}: {}", plots.string(), error.message()));

  // Data files, one row per point (whitespace-separated columns for gnuplot).
  std::ostringstream losses, gating, selfplay, strength;
  int n_losses = 0, n_gating = 0, n_selfplay = 0;
  double cumulative_elo = 0;
  const std::string selfplay_type = SelfPlayMetricType(metrics);
  for (const json& m : metrics) {
    const std::string type = MetricType(m);
    if (type == "train") {
      losses << fmt::format("{} {} {} {}\n", m.value("step", 0), MetricNumber(m, "loss"),
                            MetricNumber(m, "policy_loss"), MetricNumber(m, "value_loss"));
      ++n_losses;
    } else if (type == "gating" && m.contains("elo")) {
      if (m.value("promoted", false)) cumulative_elo += MetricNumber(m, "elo");
      gating << fmt::format("{} {} {} {} {}\n", m.value("step", 0), MetricNumber(m, "elo"),
                            MetricNumber(m, "elo_low"), MetricNumber(m, "elo_high"),
                            cumulative_elo);
      ++n_gating;
    } else if (type == selfplay_type) {
      selfplay << fmt::format(
          "{} {} {} {}\n", m.value("games", 0), MetricNumber(m, "positions_per_second"),
          MetricNumber(m, "mean_plies"), MetricNumber(m, "wall_positions_per_second"));
      ++n_selfplay;
    }
  }
  // One block per opponent (gnuplot's `index`): positions, minutes, Elo, its interval, score.
  const auto opponents = StrengthLinesByOpponent(metrics);
  for (const auto& [opponent, lines] : opponents) {
    for (const json* m : lines) {
      const double elo = MetricNumber(*m, "elo");
      const bool interval = m->value("elo_interval_defined", false);
      strength << fmt::format("{} {} {} {} {} {}\n", m->value("selfplay_positions", int64_t{0}),
                              MetricNumber(*m, "wall_seconds") / 60.0, PlotElo(elo),
                              PlotElo(interval ? MetricNumber(*m, "elo_low") : elo),
                              PlotElo(interval ? MetricNumber(*m, "elo_high") : elo),
                              MetricNumber(*m, "score"));
    }
    strength << "\n\n";
  }

  std::string script = "set grid\nset key outside right top\n";
  std::vector<std::string> drawn;
  // Writes `data` to plots/DATA_NAME and adds the plot plots/SVG_NAME (`height` pixels high) to
  // the script: what `commands` returns for the quoted data path (titles, labels, plot commands).
  auto add_plot = [&](int points, const char* data_name, const std::ostringstream& data,
                      const char* svg_name, int height,
                      const std::function<std::string(const std::string&)>& commands) {
    if (points == 0) return;
    const fs::path data_path = plots / data_name;
    WriteFileAtomically(data_path.string(), data.str());
    const fs::path out = plots / svg_name;
    script += fmt::format(
        "set terminal svg size 900,{} dynamic background rgb 'white'\nset output {}\n{}", height,
        Quoted(out), commands(Quoted(data_path)));
    drawn.push_back(out.string());
  };
  add_plot(n_losses, "losses.dat", losses, "losses.svg", 500, [](const std::string& data) {
    return fmt::format(
        "set title 'training losses'\nset xlabel 'step'\nset ylabel 'loss'\n"
        "plot {} using 1:2 with lines title 'total', '' using 1:3 with lines title 'policy', "
        "'' using 1:4 with lines title 'value (WDL)'\n",
        data);
  });
  add_plot(n_gating, "gating.dat", gating, "gating.svg", 500, [](const std::string& data) {
    return fmt::format(
        "set title 'gating: candidate vs best (95% interval), cumulative Elo of promotions'\n"
        "set xlabel 'step'\nset ylabel 'Elo'\n"
        "plot {} using 1:2:3:4 with yerrorbars title 'candidate vs best', '' using 1:5 with "
        "linespoints title 'cumulative promoted'\n",
        data);
  });
  // Two panels: Elo against self-play positions and against wall-clock minutes, a line each.
  add_plot(int(opponents.size()), "strength.dat", strength, "strength.svg", 900,
           [&](const std::string& data) {
             std::string curves[2];
             for (size_t i = 0; i < opponents.size(); ++i) {
               for (int panel = 0; panel < 2; ++panel) {
                 curves[panel] += fmt::format(
                     "{}{} index {} using {}:3:4:5 with yerrorlines title {}", i == 0 ? "" : ", ",
                     i == 0 ? data : "''", i, panel + 1, QuotedTitle(opponents[i].first));
               }
             }
             return fmt::format(
                 "set multiplot layout 2,1 title 'strength of the net self-play uses against "
                 "fixed opponents (Elo, 95% interval; beyond +-{0:.0f} drawn at +-{0:.0f})'\n"
                 "unset title\nset ylabel 'Elo'\nset xlabel 'self-play positions'\nplot {1}\n"
                 "set xlabel 'minutes since the run began'\nplot {2}\nunset multiplot\n",
                 kPlotEloLimit, curves[0], curves[1]);
           });
  add_plot(n_selfplay, "selfplay.dat", selfplay, "selfplay.svg", 500, [](const std::string& data) {
    return fmt::format(
        "set title 'self-play'\nset xlabel 'games'\nset ylabel 'positions/s'\n"
        "set y2label 'mean plies'\nset y2tics\n"
        "plot {} using 1:2 with linespoints title 'positions/s (while self-play ran)', "
        "'' using 1:4 with linespoints title 'positions/s (wall clock)', '' using 1:3 "
        "axes x1y2 with linespoints title 'mean plies per game'\nunset y2tics\n"
        "unset y2label\n",
        data);
  });
  if (drawn.empty()) return drawn;
  const fs::path script_path = plots / "plots.gp";
  WriteFileAtomically(script_path.string(), script);
  const std::string command =
      "gnuplot " + ShellQuoted(script_path) + " 2>" + ShellQuoted(plots / "gnuplot.log");
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw Error(fmt::format("gnuplot failed on {} (is gnuplot installed? see {})",
                            script_path.string(), (plots / "gnuplot.log").string()));
  }
  return drawn;
}

}  // namespace

std::vector<std::string> DrawRunPlots(const std::string& run_dir) {
  return WithMetricsErrors(run_dir, Draw);
}

}  // namespace vz
