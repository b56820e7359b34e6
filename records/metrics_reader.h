#pragma once

// The reader of a training run's metrics (RUN_DIR/metrics.jsonl, written by selfplay/train_loop.h
// and the cluster roles of selfplay/cluster.h: one JSON object per line with a "type" field,
// "train", "selfplay", "ingest", "gating", "strength", "evaluation", ...): the lines themselves, a
// summary for people (`vzero report`, the runs page of `vzero serve`) and the strength-curve table
// (`vzero report --table`, the tables of docs/strength.md). selfplay/run_report.h draws the plots
// from the same lines.
// A line that is not a JSON object (e.g. cut by a kill) is skipped and counted; a line that is
// JSON but holds a field of another type than expected is an error naming the run, the line and
// the field.
// Thread-safety: the functions share no state.

#include <fmt/core.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"

namespace vz {

// Counts and last values read from RUN_DIR/metrics.jsonl.
struct RunMetricsSummary {
  int lines = 0;      // JSON objects read
  int bad_lines = 0;  // lines that are not JSON objects (e.g. cut by a kill), skipped
  int train_points = 0, selfplay_points = 0, gating_points = 0, evaluation_points = 0;
  int strength_points = 0;  // "strength" lines (one per opponent and check)
  std::string text;  // a few lines for people: last losses, gating, strength checks, evaluation
};

// Reads RUN_DIR/metrics.jsonl; with `lines`, also hands out the JSON objects it read, in file
// order (ReadRunMetrics' result), so that a caller that shows them reads the file once. Throws
// vz::Error naming the file if it cannot be read, naming the run if a line holds a field of the
// wrong type.
RunMetricsSummary SummarizeRunMetrics(const std::string& run_dir,
                                      std::vector<nlohmann::json>* lines = nullptr);

// The strength curve of RUN_DIR/metrics.jsonl as a Markdown table (`vzero report --table`, the
// tables of docs/strength.md): rows in the order of metrics.jsonl, one per strength check of the
// net self-play uses (its net id, training step, self-play positions and minutes since the run
// began) and one per end-of-run evaluation ("evaluation", its step), with a column per fixed
// opponent (of the checks or of the evaluation's `fixed_opponent` lines) holding "score (W-D-L)"
// of the net against it, "" where a row has no match against that opponent; a '|' of a name is
// escaped. "" when the run has no such lines. Lines that are not JSON objects are skipped and
// counted in `*bad_lines` when it is given. Throws vz::Error naming the file if metrics.jsonl
// cannot be read or holds a field of the wrong type.
std::string StrengthCurveTable(const std::string& run_dir, int* bad_lines = nullptr);

// --- the lines, for other readers (selfplay/run_report.h) ---------------------------------------

// The JSON objects of RUN_DIR/metrics.jsonl in file order; `bad_lines` is set to the number of
// non-empty lines that are not JSON objects (skipped). Throws vz::Error naming the file if it
// cannot be read, and naming the run, the line (1-based) and the field when a field that the
// readers take ("type", "step", "loss", "opponent", ...) holds another type than they expect.
std::vector<nlohmann::json> ReadRunMetrics(const std::string& run_dir, int& bad_lines);

// The number `object[key]`, NaN when it is absent or not a number.
double MetricNumber(const nlohmann::json& object, const char* key);

// The "type" field of a metrics line, "" when absent. Throws nlohmann::json::exception when it is
// not a string (WithMetricsErrors turns that into a vz::Error).
std::string MetricType(const nlohmann::json& object);

// The type of the lines that describe self-play: the workers' "selfplay" lines (`vzero train`),
// else the trainer's "ingest" lines (a cluster run, whose workers write logs/selfplay-*.jsonl).
std::string SelfPlayMetricType(const std::vector<nlohmann::json>& metrics);

// The "strength" lines of `metrics` per opponent (the "opponent" field, "?" when absent), in the
// order the opponents first appear; pointers into `metrics`.
std::vector<std::pair<std::string, std::vector<const nlohmann::json*>>> StrengthLinesByOpponent(
    const std::vector<nlohmann::json>& metrics);

// Calls `read(run_dir)` (a function of metrics.jsonl's contents); a line that is JSON but holds a
// field of another type than expected is a vz::Error naming the run, not a crash.
template <class F>
auto WithMetricsErrors(const std::string& run_dir, F&& read) {
  try {
    return read(run_dir);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("run {}: metrics.jsonl has a malformed field: {}", run_dir, e.what()));
  }
}

}  // namespace vz
