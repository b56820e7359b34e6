#include "selfplay/run_report.h"

#include <fmt/core.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

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
  std::ostringstream losses, gating, selfplay;
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
  auto write = [&](const char* name, const std::ostringstream& data) {
    const fs::path path = plots / name;
    WriteFileAtomically(path.string(), data.str());
    return path;
  };
  std::string script = "set terminal svg size 900,500 dynamic background rgb 'white'\n";
  script += "set grid\nset key outside right top\n";
  std::vector<std::string> drawn;
  if (n_losses > 0) {
    const fs::path data = write("losses.dat", losses);
    const fs::path out = plots / "losses.svg";
    script += fmt::format(
        "set output {}\nset title 'training losses'\nset xlabel 'step'\nset ylabel 'loss'\n"
        "plot {} using 1:2 with lines title 'total', '' using 1:3 with lines title 'policy', "
        "'' using 1:4 with lines title 'value (WDL)'\n",
        Quoted(out), Quoted(data));
    drawn.push_back(out.string());
  }
  if (n_gating > 0) {
    const fs::path data = write("gating.dat", gating);
    const fs::path out = plots / "strength.svg";
    script += fmt::format(
        "set output {}\nset title 'strength: gating candidate vs best (95% interval), "
        "cumulative Elo of promotions'\nset xlabel 'step'\nset ylabel 'Elo'\n"
        "plot {} using 1:2:3:4 with yerrorbars title 'candidate vs best', '' using 1:5 with "
        "linespoints title 'cumulative promoted'\n",
        Quoted(out), Quoted(data));
    drawn.push_back(out.string());
  }
  if (n_selfplay > 0) {
    const fs::path data = write("selfplay.dat", selfplay);
    const fs::path out = plots / "selfplay.svg";
    script += fmt::format(
        "set output {}\nset title 'self-play'\nset xlabel 'games'\nset ylabel 'positions/s'\n"
        "set y2label 'mean plies'\nset y2tics\n"
        "plot {} using 1:2 with linespoints title 'positions/s (while self-play ran)', '' using "
        "1:4 with linespoints title 'positions/s (wall clock)', '' using 1:3 axes x1y2 with "
        "linespoints title 'mean plies per game'\nunset y2tics\nunset y2label\n",
        Quoted(out), Quoted(data));
    drawn.push_back(out.string());
  }
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

// A metrics line that is JSON but holds a field of another type than expected is an error naming
// the file, not a crash.
RunMetricsSummary SummarizeRunMetrics(const std::string& run_dir) {
  try {
    return Summarize(run_dir);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("run {}: metrics.jsonl has a malformed field: {}", run_dir, e.what()));
  }
}

std::vector<std::string> DrawRunPlots(const std::string& run_dir) {
  try {
    return Draw(run_dir);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("run {}: metrics.jsonl has a malformed field: {}", run_dir, e.what()));
  }
}

}  // namespace vz
