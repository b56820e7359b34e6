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

namespace vz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<json> ReadMetrics(const std::string& run_dir, int& bad_lines) {
  const fs::path path = fs::path(run_dir) / "metrics.jsonl";
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("run {}: cannot read {}", run_dir, path.string()));
  std::vector<json> objects;
  std::string line;
  bad_lines = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    try {
      json object = json::parse(line);
      if (!object.is_object()) {
        ++bad_lines;
        continue;
      }
      objects.push_back(std::move(object));
    } catch (const json::exception&) {
      ++bad_lines;
    }
  }
  return objects;
}

double Number(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : NAN;
}

std::string Type(const json& object) { return object.value("type", std::string()); }

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

// The type of the lines that describe self-play: the workers' "selfplay" lines (`vzero train`),
// else the trainer's "ingest" lines (a cluster run, whose workers write logs/selfplay-*.jsonl).
std::string SelfPlayType(const std::vector<json>& metrics) {
  for (const json& m : metrics) {
    if (Type(m) == "selfplay") return "selfplay";
  }
  return "ingest";
}

// The strength lines of `metrics` per opponent, in the order the opponents first appear.
std::vector<std::pair<std::string, std::vector<const json*>>> StrengthByOpponent(
    const std::vector<json>& metrics) {
  std::vector<std::pair<std::string, std::vector<const json*>>> lines;
  for (const json& m : metrics) {
    if (Type(m) != "strength") continue;
    const std::string opponent = m.value("opponent", std::string("?"));
    auto it = std::find_if(lines.begin(), lines.end(),
                           [&](const auto& entry) { return entry.first == opponent; });
    if (it == lines.end()) it = lines.insert(lines.end(), {opponent, {}});
    it->second.push_back(&m);
  }
  return lines;
}

// A whitewash has a huge Elo (arena/stats.h clamps the score by 1e-6): plotted at this bound.
constexpr double kPlotEloLimit = 800;

double PlotElo(double elo) { return std::clamp(elo, -kPlotEloLimit, kPlotEloLimit); }

// Quotes a title for a gnuplot string literal.
std::string QuotedTitle(const std::string& title) { return Quoted(fs::path(title)); }

}  // namespace

namespace {

RunMetricsSummary Summarize(const std::string& run_dir) {
  RunMetricsSummary summary;
  const std::vector<json> metrics = ReadMetrics(run_dir, summary.bad_lines);
  summary.lines = int(metrics.size());
  const json* last_train = nullptr;
  const json* last_selfplay = nullptr;
  std::vector<const json*> gatings, evaluations;
  const std::string selfplay_type = SelfPlayType(metrics);
  for (const json& m : metrics) {
    const std::string type = Type(m);
    if (type == "train") ++summary.train_points, last_train = &m;
    if (type == selfplay_type) ++summary.selfplay_points, last_selfplay = &m;
    if (type == "gating") ++summary.gating_points, gatings.push_back(&m);
    if (type == "evaluation") ++summary.evaluation_points, evaluations.push_back(&m);
  }
  std::string& text = summary.text;
  if (last_selfplay != nullptr) {
    text += fmt::format("self-play: {} games, {} positions, {:.1f} positions/s",
                        last_selfplay->value("games", 0), last_selfplay->value("positions", 0),
                        Number(*last_selfplay, "positions_per_second"));
    if (last_selfplay->contains("wall_positions_per_second")) {
      text += fmt::format(" while it ran, {:.1f} over the wall clock ({:.0f}% of it in self-play)",
                          Number(*last_selfplay, "wall_positions_per_second"),
                          100.0 * Number(*last_selfplay, "selfplay_fraction"));
    }
    text += " (last chunk)\n";
  }
  if (last_train != nullptr) {
    text += fmt::format(
        "training: step {}, loss {:.3f} (policy {:.3f}, value {:.3f}), {:.0f} samples/s\n",
        last_train->value("step", 0), Number(*last_train, "loss"),
        Number(*last_train, "policy_loss"), Number(*last_train, "value_loss"),
        Number(*last_train, "samples_per_second"));
  }
  int promotions = 0;
  for (const json* g : gatings) promotions += g->value("promoted", false);
  if (!gatings.empty()) {
    const json& g = *gatings.back();
    text += fmt::format("gating: {} candidates, {} promoted; last at step {}", gatings.size(),
                        promotions, g.value("step", 0));
    if (g.contains("score")) {
      text += fmt::format(": score {:.3f}, Elo {:+.0f} [{:+.0f}, {:+.0f}]", Number(g, "score"),
                          Number(g, "elo"), Number(g, "elo_low"), Number(g, "elo_high"));
    }
    text += g.value("promoted", false) ? " (promoted)\n" : " (kept the best)\n";
  }
  for (const auto& [opponent, lines] : StrengthByOpponent(metrics)) {
    const json& m = *lines.back();
    summary.strength_points += int(lines.size());
    text += fmt::format(
        "strength vs {}: {} checks; last {} (step {}, {} self-play positions): W {} D {} L {}, "
        "score {:.3f}, Elo {:+.0f}\n",
        opponent, lines.size(), m.value("net", std::string("?")), m.value("step", 0),
        m.value("selfplay_positions", int64_t{0}), m.value("wins", 0), m.value("draws", 0),
        m.value("losses", 0), Number(m, "score"), Number(m, "elo"));
  }
  for (const json* e : evaluations) {
    text += fmt::format("evaluation at step {} vs {}: W {} D {} L {}, score {:.3f}, Elo {:+.0f}\n",
                        e->value("step", 0), e->value("opponent", std::string("?")),
                        e->value("wins", 0), e->value("draws", 0), e->value("losses", 0),
                        Number(*e, "score"), Number(*e, "elo"));
  }
  if (summary.bad_lines > 0) {
    text +=
        fmt::format("{} line(s) of metrics.jsonl skipped (not JSON objects)\n", summary.bad_lines);
  }
  return summary;
}

std::vector<std::string> Draw(const std::string& run_dir) {
  int bad_lines = 0;
  const std::vector<json> metrics = ReadMetrics(run_dir, bad_lines);
  const fs::path plots = fs::path(run_dir) / "plots";
  std::error_code error;
  fs::create_directories(plots, error);
  if (error) throw Error(fmt::format("cannot create {}: {}", plots.string(), error.message()));

  // Data files, one row per point (whitespace-separated columns for gnuplot).
  std::ostringstream losses, gating, selfplay, strength;
  int n_losses = 0, n_gating = 0, n_selfplay = 0;
  double cumulative_elo = 0;
  const std::string selfplay_type = SelfPlayType(metrics);
  for (const json& m : metrics) {
    const std::string type = Type(m);
    if (type == "train") {
      losses << fmt::format("{} {} {} {}\n", m.value("step", 0), Number(m, "loss"),
                            Number(m, "policy_loss"), Number(m, "value_loss"));
      ++n_losses;
    } else if (type == "gating" && m.contains("elo")) {
      if (m.value("promoted", false)) cumulative_elo += Number(m, "elo");
      gating << fmt::format("{} {} {} {} {}\n", m.value("step", 0), Number(m, "elo"),
                            Number(m, "elo_low"), Number(m, "elo_high"), cumulative_elo);
      ++n_gating;
    } else if (type == selfplay_type) {
      selfplay << fmt::format("{} {} {} {}\n", m.value("games", 0),
                              Number(m, "positions_per_second"), Number(m, "mean_plies"),
                              Number(m, "wall_positions_per_second"));
      ++n_selfplay;
    }
  }
  // One block per opponent (gnuplot's `index`): positions, minutes, Elo, its interval, score.
  const auto opponents = StrengthByOpponent(metrics);
  for (const auto& [opponent, lines] : opponents) {
    for (const json* m : lines) {
      const double elo = Number(*m, "elo");
      const bool interval = m->value("elo_interval_defined", false);
      strength << fmt::format("{} {} {} {} {} {}\n", m->value("selfplay_positions", int64_t{0}),
                              Number(*m, "wall_seconds") / 60.0, PlotElo(elo),
                              PlotElo(interval ? Number(*m, "elo_low") : elo),
                              PlotElo(interval ? Number(*m, "elo_high") : elo),
                              Number(*m, "score"));
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

// A table cell: "0.625 (4-2-2)".
std::string ScoreCell(const json& m) {
  return fmt::format("{:.3f} ({}-{}-{})", Number(m, "score"), m.value("wins", 0),
                     m.value("draws", 0), m.value("losses", 0));
}

// `text` inside a Markdown table cell: a '|' would end the cell.
std::string CellText(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// An "evaluation" line against a fixed opponent of `strength` (not the initial net or rollout).
bool FixedOpponentEvaluation(const json& m) {
  return Type(m) == "evaluation" && m.value("fixed_opponent", false);
}

std::string CurveTable(const std::string& run_dir, int& bad_lines) {
  const std::vector<json> metrics = ReadMetrics(run_dir, bad_lines);
  // The columns: every fixed opponent of a strength check or of the end-of-run evaluation, in
  // the order they first appear.
  std::vector<std::string> opponents;
  for (const json& m : metrics) {
    if (Type(m) != "strength" && !FixedOpponentEvaluation(m)) continue;
    const std::string opponent = m.value("opponent", std::string("?"));
    if (std::find(opponents.begin(), opponents.end(), opponent) == opponents.end()) {
      opponents.push_back(opponent);
    }
  }
  if (opponents.empty()) return "";
  // The rows, in the order of metrics.jsonl: one per (kind, step), a cell per opponent.
  struct Row {
    std::string kind;  // "strength" or "evaluation"
    int64_t step = 0;
    const json* first = nullptr;  // the row's first line (net, positions, minutes)
    std::vector<std::string> cells;
  };
  std::vector<Row> rows;
  for (const json& m : metrics) {
    const std::string type = Type(m);
    if (type != "strength" && !FixedOpponentEvaluation(m)) continue;
    const std::string opponent = m.value("opponent", std::string("?"));
    const size_t column =
        size_t(std::find(opponents.begin(), opponents.end(), opponent) - opponents.begin());
    const int64_t step = m.value("step", int64_t{0});
    auto row = std::find_if(rows.begin(), rows.end(),
                            [&](const Row& r) { return r.kind == type && r.step == step; });
    if (row == rows.end()) {
      row =
          rows.insert(rows.end(), Row{type, step, &m, std::vector<std::string>(opponents.size())});
    }
    row->cells[column] = ScoreCell(m);
  }
  std::string table = "| net | step | self-play positions | minutes |";
  std::string rule = "| --- | ---: | ---: | ---: |";
  for (const std::string& opponent : opponents) {
    table += fmt::format(" vs {} |", CellText(opponent));
    rule += " ---: |";
  }
  table += "\n" + rule + "\n";
  for (const Row& row : rows) {
    const json& m = *row.first;
    const bool check = row.kind == "strength";
    table += fmt::format(
        "| {} | {} | {} | {} |",
        check ? CellText(m.value("net", std::string("?"))) : std::string("evaluation"), row.step,
        check ? std::to_string(m.value("selfplay_positions", int64_t{0})) : "",
        check ? fmt::format("{:.1f}", Number(m, "wall_seconds") / 60.0) : "");
    for (const std::string& cell : row.cells) table += " " + cell + " |";
    table += "\n";
  }
  return table;
}

// Calls `read` (a function of metrics.jsonl's contents); a line that is JSON but holds a field of
// another type than expected is an error naming the run, not a crash.
template <class F>
auto WithMetricsErrors(const std::string& run_dir, F&& read) {
  try {
    return read(run_dir);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("run {}: metrics.jsonl has a malformed field: {}", run_dir, e.what()));
  }
}

}  // namespace

RunMetricsSummary SummarizeRunMetrics(const std::string& run_dir) {
  return WithMetricsErrors(run_dir, Summarize);
}

std::vector<std::string> DrawRunPlots(const std::string& run_dir) {
  return WithMetricsErrors(run_dir, Draw);
}

std::string StrengthCurveTable(const std::string& run_dir, int* bad_lines) {
  int skipped = 0;
  std::string table =
      WithMetricsErrors(run_dir, [&](const std::string& dir) { return CurveTable(dir, skipped); });
  if (bad_lines != nullptr) *bad_lines = skipped;
  return table;
}

}  // namespace vz
