#include "records/metrics_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "engine/core/atomic_file.h"

namespace vz {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// What a field that the readers take must hold.
enum class FieldKind {
  kString,
  kBoolean,
  kCount,   // an integer (read with a default by json::value, which refuses null)
  kNumber,  // a number or null (MetricNumber: null, a NaN the writer wrote, reads as NaN)
};

// The fields of metrics lines that the readers (this file, selfplay/run_report.cc) take.
constexpr std::pair<const char*, FieldKind> kMetricFields[] = {
    {"type", FieldKind::kString},
    {"opponent", FieldKind::kString},
    {"net", FieldKind::kString},
    {"promoted", FieldKind::kBoolean},
    {"fixed_opponent", FieldKind::kBoolean},
    {"elo_interval_defined", FieldKind::kBoolean},
    {"step", FieldKind::kCount},
    {"games", FieldKind::kCount},
    {"positions", FieldKind::kCount},
    {"selfplay_positions", FieldKind::kCount},
    {"wins", FieldKind::kCount},
    {"draws", FieldKind::kCount},
    {"losses", FieldKind::kCount},
    {"loss", FieldKind::kNumber},
    {"policy_loss", FieldKind::kNumber},
    {"value_loss", FieldKind::kNumber},
    {"score", FieldKind::kNumber},
    {"elo", FieldKind::kNumber},
    {"elo_low", FieldKind::kNumber},
    {"elo_high", FieldKind::kNumber},
    {"positions_per_second", FieldKind::kNumber},
    {"wall_positions_per_second", FieldKind::kNumber},
    {"wall_seconds", FieldKind::kNumber},
    {"mean_plies", FieldKind::kNumber},
    {"selfplay_fraction", FieldKind::kNumber},
    {"samples_per_second", FieldKind::kNumber},
};

// Throws vz::Error naming the run, the line and the field when a field of kMetricFields holds
// another type than its kind.
void CheckMetricFields(const json& object, const std::string& run_dir, int64_t line_number) {
  for (const auto& [name, kind] : kMetricFields) {
    const auto it = object.find(name);
    if (it == object.end()) continue;
    const bool fits = kind == FieldKind::kString    ? it->is_string()
                      : kind == FieldKind::kBoolean ? it->is_boolean()
                      : kind == FieldKind::kCount   ? it->is_number_integer()
                                                    : it->is_number() || it->is_null();
    if (fits) continue;
    const char* expected = kind == FieldKind::kString    ? "a string"
                           : kind == FieldKind::kBoolean ? "true or false"
                           : kind == FieldKind::kCount   ? "an integer"
                                                         : "a number or null";
    const std::string found = it->is_null() ? std::string("null")
                              : it->is_object() || it->is_array()
                                  ? std::string("an ") + it->type_name()
                                  : std::string("a ") + it->type_name();
    throw Error(fmt::format("run {}: metrics.jsonl line {}: field \"{}\" is {}, expected {}",
                            run_dir, line_number, name, found, expected));
  }
}

}  // namespace

std::vector<json> ReadRunMetrics(const std::string& run_dir, int& bad_lines) {
  const fs::path path = fs::path(run_dir) / "metrics.jsonl";
  constexpr uint64_t kMaxMetricsBytes = uint64_t{4} << 30;
  const std::string text = ReadWholeFile(path.string(), "metrics file", kMaxMetricsBytes);
  std::vector<json> objects;
  bad_lines = 0;
  int64_t line_number = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line(text.data() + start, end - start);
    start = end + 1;
    ++line_number;
    if (line.empty()) continue;
    json object;
    try {
      object = json::parse(line);
    } catch (const json::exception&) {
      ++bad_lines;
      continue;
    }
    if (!object.is_object()) {
      ++bad_lines;
      continue;
    }
    CheckMetricFields(object, run_dir, line_number);
    objects.push_back(std::move(object));
  }
  return objects;
}

double MetricNumber(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : NAN;
}

std::string MetricType(const json& object) { return object.value("type", std::string()); }

std::string SelfPlayMetricType(const std::vector<json>& metrics) {
  for (const json& m : metrics) {
    if (MetricType(m) == "selfplay") return "selfplay";
  }
  return "ingest";
}

std::vector<std::pair<std::string, std::vector<const json*>>> StrengthLinesByOpponent(
    const std::vector<json>& metrics) {
  std::vector<std::pair<std::string, std::vector<const json*>>> lines;
  for (const json& m : metrics) {
    if (MetricType(m) != "strength") continue;
    const std::string opponent = m.value("opponent", std::string("?"));
    auto it = std::find_if(lines.begin(), lines.end(),
                           [&](const auto& entry) { return entry.first == opponent; });
    if (it == lines.end()) it = lines.insert(lines.end(), {opponent, {}});
    it->second.push_back(&m);
  }
  return lines;
}

namespace {

RunMetricsSummary Summarize(const std::string& run_dir, std::vector<json>* lines) {
  RunMetricsSummary summary;
  std::vector<json> metrics = ReadRunMetrics(run_dir, summary.bad_lines);
  summary.lines = int(metrics.size());
  const json* last_train = nullptr;
  const json* last_selfplay = nullptr;
  std::vector<const json*> gatings, evaluations;
  const std::string selfplay_type = SelfPlayMetricType(metrics);
  for (const json& m : metrics) {
    const std::string type = MetricType(m);
    if (type == "train") ++summary.train_points, last_train = &m;
    if (type == selfplay_type) ++summary.selfplay_points, last_selfplay = &m;
    if (type == "gating") ++summary.gating_points, gatings.push_back(&m);
    if (type == "evaluation") ++summary.evaluation_points, evaluations.push_back(&m);
  }
  std::string& text = summary.text;
  if (last_selfplay != nullptr) {
    text += fmt::format("self-play: {} games, {} positions, {:.1f} positions/s",
                        last_selfplay->value("games", 0), last_selfplay->value("positions", 0),
                        MetricNumber(*last_selfplay, "positions_per_second"));
    if (last_selfplay->contains("wall_positions_per_second")) {
      text += fmt::format(" while it ran, {:.1f} over the wall clock ({:.0f}% of it in self-play)",
                          MetricNumber(*last_selfplay, "wall_positions_per_second"),
                          100.0 * MetricNumber(*last_selfplay, "selfplay_fraction"));
    }
    text += " (last chunk)\n";
  }
  if (last_train != nullptr) {
    text += fmt::format(
        "training: step {}, loss {:.3f} (policy {:.3f}, value {:.3f}), {:.0f} samples/s\n",
        last_train->value("step", 0), MetricNumber(*last_train, "loss"),
        MetricNumber(*last_train, "policy_loss"), MetricNumber(*last_train, "value_loss"),
        MetricNumber(*last_train, "samples_per_second"));
  }
  int promotions = 0;
  for (const json* g : gatings) promotions += g->value("promoted", false);
  if (!gatings.empty()) {
    const json& g = *gatings.back();
    text += fmt::format("gating: {} candidates, {} promoted; last at step {}", gatings.size(),
                        promotions, g.value("step", 0));
    if (g.contains("score")) {
      text += fmt::format(": score {:.3f}, Elo {:+.0f} [{:+.0f}, {:+.0f}]",
                          MetricNumber(g, "score"), MetricNumber(g, "elo"),
                          MetricNumber(g, "elo_low"), MetricNumber(g, "elo_high"));
    }
    text += g.value("promoted", false) ? " (promoted)\n" : " (kept the best)\n";
  }
  for (const auto& [opponent, lines] : StrengthLinesByOpponent(metrics)) {
    const json& m = *lines.back();
    summary.strength_points += int(lines.size());
    text += fmt::format(
        "strength vs {}: {} checks; last {} (step {}, {} self-play positions): W {} D {} L {}, "
        "score {:.3f}, Elo {:+.0f}\n",
        opponent, lines.size(), m.value("net", std::string("?")), m.value("step", 0),
        m.value("selfplay_positions", int64_t{0}), m.value("wins", 0), m.value("draws", 0),
        m.value("losses", 0), MetricNumber(m, "score"), MetricNumber(m, "elo"));
  }
  for (const json* e : evaluations) {
    text += fmt::format("evaluation at step {} vs {}: W {} D {} L {}, score {:.3f}, Elo {:+.0f}\n",
                        e->value("step", 0), e->value("opponent", std::string("?")),
                        e->value("wins", 0), e->value("draws", 0), e->value("losses", 0),
                        MetricNumber(*e, "score"), MetricNumber(*e, "elo"));
  }
  if (summary.bad_lines > 0) {
    text +=
        fmt::format("{} line(s) of metrics.jsonl skipped (not JSON objects)\n", summary.bad_lines);
  }
  if (lines != nullptr) *lines = std::move(metrics);
  return summary;
}

// A table cell: "0.625 (4-2-2)".
std::string ScoreCell(const json& m) {
  return fmt::format("{:.3f} ({}-{}-{})", MetricNumber(m, "score"), m.value("wins", 0),
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
  return MetricType(m) == "evaluation" && m.value("fixed_opponent", false);
}

std::string CurveTable(const std::string& run_dir, int& bad_lines) {
  const std::vector<json> metrics = ReadRunMetrics(run_dir, bad_lines);
  // The columns: every fixed opponent of a strength check or of the end-of-run evaluation, in
  // the order they first appear.
  std::vector<std::string> opponents;
  for (const json& m : metrics) {
    if (MetricType(m) != "strength" && !FixedOpponentEvaluation(m)) continue;
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
    const std::string type = MetricType(m);
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
        check ? fmt::format("{:.1f}", MetricNumber(m, "wall_seconds") / 60.0) : "");
    for (const std::string& cell : row.cells) table += " " + cell + " |";
    table += "\n";
  }
  return table;
}

}  // namespace

RunMetricsSummary SummarizeRunMetrics(const std::string& run_dir, std::vector<json>* lines) {
  return WithMetricsErrors(run_dir, [&](const std::string& dir) { return Summarize(dir, lines); });
}

std::string StrengthCurveTable(const std::string& run_dir, int* bad_lines) {
  int skipped = 0;
  std::string table =
      WithMetricsErrors(run_dir, [&](const std::string& dir) { return CurveTable(dir, skipped); });
  if (bad_lines != nullptr) *bad_lines = skipped;
  return table;
}

}  // namespace vz
