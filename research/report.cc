#include "research/report.h"

#include <fmt/core.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/core/atomic_file.h"
#include "research/board_svg.h"
#include "research/svg_plot.h"

namespace vz::research {
namespace {

using nlohmann::json;

// A number for CSV and HTML: "" for NaN.
std::string Num(double value, int digits = 3) {
  if (!std::isfinite(value)) return "";
  return fmt::format("{:.{}f}", value + 0.0, digits);
}

// A JSON number, null for NaN.
json JsonNumber(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

std::string Csv(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string ResultText(Status status, bool draughts) { return ResultToken(status, draughts); }

std::string IntervalText(const Interval& interval) {
  return fmt::format("{} [{}, {}]", Num(interval.value), Num(interval.low), Num(interval.high));
}

// An HTML table from a header row and body rows (cells already escaped or plain numbers).
std::string Table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string html = "<table>\n<tr>";
  for (const std::string& h : header) html += "<th>" + h + "</th>";
  html += "</tr>\n";
  for (const auto& row : rows) {
    html += "<tr>";
    for (const std::string& cell : row) html += "<td>" + cell + "</td>";
    html += "</tr>\n";
  }
  return html + "</table>\n";
}

constexpr const char* kStyle = R"(
body { font-family: sans-serif; max-width: 1180px; margin: 1em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 2px 7px; text-align: right; }
th { background: #f3f3f3; }
td:first-child, th:first-child { text-align: left; }
.figures { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 0.85em; }
.note { color: #555; font-size: 0.9em; }
nav a { margin-right: 1em; }
)";

class Writer {
 public:
  Writer(const StudyReport& report, std::string out_dir) : r_(report), dir_(std::move(out_dir)) {}

  void WriteAll() {
    std::error_code error;
    std::filesystem::create_directories(dir_, error);
    if (error) throw Error("research: cannot create '" + dir_ + "': " + error.message());
    std::string html = fmt::format(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\">"
        "<title>vzero research: {0}</title><style>{1}</style></head><body>\n"
        "<h1>Strategy study: {0}</h1>\n",
        EscapeXml(r_.variant), kStyle);
    html += Settings();
    html +=
        "<nav><a href=\"#balance\">Balance</a><a href=\"#piece-values\">Piece values</a>"
        "<a href=\"#openings\">Openings</a><a href=\"#game-shape\">Game shape</a>"
        "<a href=\"#examples\">Example games</a><a href=\"#files\">Files</a></nav>\n";
    html += Balance();
    html += PieceValues();
    html += Openings();
    html += Shape();
    html += Examples();
    html += Records();
    html += "</body></html>\n";
    Save("report.html", html);
    Save("report.json", json_.dump(1) + "\n");
  }

 private:
  // Saves `svg` as figure-<name>.svg too (for documents that embed one plot) and returns it.
  std::string Figure(const std::string& name, const std::string& svg) {
    Save("figure-" + name + ".svg", svg);
    return svg;
  }

  void Save(const std::string& name, const std::string& text) {
    WriteFileAtomically(dir_ + "/" + name, text);
    files_.push_back(name);
  }

  std::string Settings() {
    json settings = json::object();
    std::vector<std::vector<std::string>> rows;
    for (const auto& [key, value] : r_.settings) {
      settings[key] = value;
      rows.push_back({EscapeXml(key), EscapeXml(value)});
    }
    json_["variant"] = r_.variant;
    json_["command"] = r_.command;
    json_["settings"] = settings;
    return "<p class=\"note\">Made by <code>" + EscapeXml(r_.command) +
           "</code>. Scores are White's (win 1, draw 1/2, loss 0); values are the expected "
           "result W - L in [-1, 1] from White's view.</p>\n" +
           Table({"setting", "value"}, rows);
  }

  std::string Balance() {
    std::string html = "<section id=\"balance\"><h2>Balance</h2>\n";
    html +=
        "<p class=\"note\">White's score with its 95% Wilson interval (a draw counted as half "
        "a win, which makes the interval conservative) and how the games ended, per group of "
        "games.</p>\n";
    std::string csv =
        "label,budget,games,white_wins,draws,black_wins,white_score,score_low,score_high,"
        "mean_plies\n";
    std::string endings_csv = "label,ending,games\n";
    std::vector<std::string> ending_names;
    for (const BalanceRow& row : r_.balance) {
      for (const auto& [ending, count] : row.endings) {
        if (std::find(ending_names.begin(), ending_names.end(), ending) == ending_names.end()) {
          ending_names.push_back(ending);
        }
      }
    }
    std::vector<std::vector<std::string>> rows;
    json balance = json::array();
    for (const BalanceRow& row : r_.balance) {
      csv += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", Csv(row.label), row.budget, row.games,
                         row.white_wins, row.draws, row.black_wins, Num(row.white_score.value, 4),
                         Num(row.white_score.low, 4), Num(row.white_score.high, 4),
                         Num(row.mean_plies, 1));
      std::vector<std::string> cells = {
          EscapeXml(row.label),      std::to_string(row.games),      std::to_string(row.white_wins),
          std::to_string(row.draws), std::to_string(row.black_wins), IntervalText(row.white_score),
          Num(row.mean_plies, 1)};
      json endings = json::object();
      for (const std::string& ending : ending_names) {
        const auto it = row.endings.find(ending);
        const int64_t count = it == row.endings.end() ? 0 : it->second;
        cells.push_back(std::to_string(count));
        if (count > 0) {
          endings[ending] = count;
          endings_csv += fmt::format("{},{},{}\n", Csv(row.label), ending, count);
        }
      }
      rows.push_back(cells);
      balance.push_back({{"label", row.label},
                         {"budget", row.budget},
                         {"games", row.games},
                         {"white_wins", row.white_wins},
                         {"draws", row.draws},
                         {"black_wins", row.black_wins},
                         {"white_score", row.white_score.value},
                         {"score_low", row.white_score.low},
                         {"score_high", row.white_score.high},
                         {"mean_plies", row.mean_plies},
                         {"endings", endings}});
    }
    json_["balance"] = balance;
    std::vector<std::string> header = {
        "games", "games", "White wins", "draws", "Black wins", "White score [95%]", "mean plies"};
    header[0] = "group";
    for (const std::string& ending : ending_names) header.push_back(EscapeXml(ending));
    html += Table(header, rows);
    Save("balance.csv", csv);
    Save("endings.csv", endings_csv);
    // Plots over the fresh games' budgets.
    PlotSeries score{"White score", {}, {}, {}, {}};
    std::vector<std::string> categories;
    std::vector<PlotSeries> wdl = {
        {"White wins", {}, {}, {}, {}}, {"draws", {}, {}, {}, {}}, {"Black wins", {}, {}, {}, {}}};
    std::vector<PlotSeries> endings;
    for (const std::string& ending : ending_names) endings.push_back({ending, {}, {}, {}, {}});
    for (const BalanceRow& row : r_.balance) {
      categories.push_back(row.label);
      const double n = double(std::max<int64_t>(1, row.games));
      wdl[0].y.push_back(double(row.white_wins) / n);
      wdl[1].y.push_back(double(row.draws) / n);
      wdl[2].y.push_back(double(row.black_wins) / n);
      for (size_t e = 0; e < ending_names.size(); ++e) {
        const auto it = row.endings.find(ending_names[e]);
        endings[e].y.push_back(it == row.endings.end() ? 0.0 : double(it->second) / n);
      }
      if (std::find(r_.budget_labels.begin(), r_.budget_labels.end(), row.label) !=
          r_.budget_labels.end()) {
        score.x.push_back(row.budget);
        score.y.push_back(row.white_score.value);
        score.low.push_back(row.white_score.low);
        score.high.push_back(row.white_score.high);
      }
    }
    html += "<div class=\"figures\">\n";
    PlotOptions options;
    options.title = "White's score against the search budget (95% interval)";
    options.x_label = "simulations a move";
    options.y_label = "White's score";
    options.y_min = 0, options.y_max = 1;
    options.log2_x = true;
    options.reference_y = 0.5;
    options.width = 420;
    html += Figure("white-score", LinePlot({score}, options));
    options = PlotOptions();
    options.title = "Results";
    options.y_label = "share of games";
    options.y_max = 1;
    options.width = 380;
    html += Figure("results", BarPlot(categories, wdl, options, true));
    options.title = "How the games ended";
    html += Figure("endings", BarPlot(categories, endings, options, true));
    html += "</div>\n</section>\n";
    return html;
  }

  std::string PieceValues() {
    std::string html = "<section id=\"piece-values\"><h2>Piece values</h2>\n";
    html +=
        "<p class=\"note\">Logistic regression of the game's result (White's score, a draw "
        "counting 1/2) on the material difference White minus Black per piece kind, over the "
        "quiet positions of the games (piece counts unchanged over the next two plies), "
        "fitted by Newton's method; standard errors clustered by game. A coefficient is the "
        "change in the log-odds of White's score per piece; values are the coefficients "
        "divided by the reference (weakest) piece's, with delta-method 95% intervals, beside "
        "the alpha-beta baseline's values (engine/alphabeta/evaluation.h) on the same "
        "scale. Games adjudicated by material were decided with the baseline's values, which "
        "pulls a fit that includes them towards those values; the fit over the games that were "
        "not adjudicated is free of that.</p>\n";
    std::string csv =
        "data,kind,estimated,coefficient,standard_error,relative,relative_low,relative_high,"
        "baseline,baseline_relative,positions,games\n";
    json fits = json::array();
    for (size_t f = 0; f < r_.piece_values.size(); ++f) {
      const PieceValueFit& fit = r_.piece_values[f];
      html += fmt::format("<h3>{}</h3>\n<p>{} positions of {} games", EscapeXml(fit.data),
                          fit.positions, fit.games);
      json rows = json::array();
      if (!fit.error.empty()) {
        html += ": no fit (" + EscapeXml(fit.error) + ").</p>\n";
      } else {
        html += fmt::format(
            "; reference piece: {}; intercept (White's edge at equal material, log-odds) {} ± {}"
            "{}.</p>\n",
            EscapeXml(fit.reference), Num(fit.intercept), Num(1.96 * fit.intercept_error),
            fit.converged ? "" : "; <b>the iterations did not converge</b> (separation?)");
        std::vector<std::vector<std::string>> table;
        for (const PieceValueRow& row : fit.rows) {
          table.push_back({EscapeXml(row.kind),
                           row.estimated
                               ? Num(row.coefficient) + " ± " + Num(1.96 * row.standard_error)
                               : "not estimable (never differed)",
                           row.estimated ? IntervalText(row.relative) : "",
                           Num(row.baseline_relative, 2), std::to_string(row.baseline)});
        }
        html += Table({"piece", "coefficient ± 95%", "value [95%] (reference = 1)",
                       "baseline value (reference = 1)", "baseline centipawns"},
                      table);
      }
      for (const PieceValueRow& row : fit.rows) {
        csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", Csv(fit.data), row.kind,
                           row.estimated ? 1 : 0, Num(row.coefficient, 5),
                           Num(row.standard_error, 5), Num(row.relative.value, 4),
                           Num(row.relative.low, 4), Num(row.relative.high, 4), row.baseline,
                           Num(row.baseline_relative, 4), fit.positions, fit.games);
        rows.push_back({{"kind", row.kind},
                        {"estimated", row.estimated},
                        {"coefficient", JsonNumber(row.coefficient)},
                        {"standard_error", JsonNumber(row.standard_error)},
                        {"relative", JsonNumber(row.relative.value)},
                        {"relative_low", JsonNumber(row.relative.low)},
                        {"relative_high", JsonNumber(row.relative.high)},
                        {"baseline", row.baseline},
                        {"baseline_relative", row.baseline_relative}});
      }
      fits.push_back({{"data", fit.data},
                      {"positions", fit.positions},
                      {"games", fit.games},
                      {"reference", fit.reference},
                      {"intercept", fit.intercept},
                      {"intercept_error", fit.intercept_error},
                      {"converged", fit.converged},
                      {"error", fit.error},
                      {"kinds", rows}});
      if (f == 0 && fit.error.empty()) {
        std::vector<std::string> kinds;
        PlotSeries fitted{"self-play fit", {}, {}, {}, {}}, baseline{"baseline", {}, {}, {}, {}};
        for (const PieceValueRow& row : fit.rows) {
          kinds.push_back(row.kind);
          fitted.y.push_back(row.estimated ? row.relative.value : NAN);
          fitted.low.push_back(row.estimated ? row.relative.low : NAN);
          fitted.high.push_back(row.estimated ? row.relative.high : NAN);
          baseline.y.push_back(row.baseline_relative);
        }
        PlotOptions options;
        options.title = "Piece values relative to the " + fit.reference + " (95% interval)";
        options.y_label = "value";
        options.width = 480;
        html += Figure("piece-values", BarPlot(kinds, {fitted, baseline}, options));
      }
    }
    json_["piece_values"] = fits;
    Save("piece_values.csv", csv);
    return html + "</section>\n";
  }

  std::string Openings() {
    const OpeningTables& o = r_.openings;
    std::string html = "<section id=\"openings\"><h2>Openings</h2>\n<div class=\"figures\">" +
                       Figure("start-position", r_.start_diagram) + "<div>";
    html += fmt::format(
        "<p>The net's value of the start position: {} (White's view); a dedicated search of {} "
        "simulations: {}.</p>\n",
        Num(o.root_value), r_.root_simulations, Num(r_.root_search_value));
    html +=
        "<h3>The net's preferred first moves</h3>\n<p class=\"note\">The dedicated search's "
        "most visited first moves, with the net's prior, the search's value of the move, and "
        "the result of self-play games started after it (" +
        EscapeXml(r_.first_move_label) + ", White's score with 95% interval).</p>\n";
    std::string csv =
        "move,visits,prior,search_value,games,white_wins,draws,black_wins,white_score,score_low,"
        "score_high\n";
    std::vector<std::vector<std::string>> rows;
    json first = json::array();
    for (const FirstMoveRow& m : r_.first_moves) {
      const bool played = m.games > 0;
      rows.push_back(
          {EscapeXml(m.move), std::to_string(m.visits), Num(m.prior), Num(m.search_value),
           played ? fmt::format("{} ({}-{}-{})", m.games, m.white_wins, m.draws, m.black_wins) : "",
           played ? IntervalText(m.white_score) : ""});
      csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", Csv(m.move), m.visits,
                         Num(m.prior, 4), Num(m.search_value, 4), m.games, m.white_wins, m.draws,
                         m.black_wins, played ? Num(m.white_score.value, 4) : "",
                         played ? Num(m.white_score.low, 4) : "",
                         played ? Num(m.white_score.high, 4) : "");
      first.push_back({{"move", m.move},
                       {"position", m.position},
                       {"visits", m.visits},
                       {"prior", m.prior},
                       {"search_value", m.search_value},
                       {"games", m.games},
                       {"white_wins", m.white_wins},
                       {"draws", m.draws},
                       {"black_wins", m.black_wins},
                       {"white_score", played ? json(m.white_score.value) : json(nullptr)},
                       {"score_low", played ? json(m.white_score.low) : json(nullptr)},
                       {"score_high", played ? json(m.white_score.high) : json(nullptr)}});
    }
    html += Table({"move", "visits", "prior", "search value", "games (W-D-L)", "White score [95%]"},
                  rows);
    html += "</div></div>\n";
    Save("first_moves.csv", csv);
    // Tree.
    html += fmt::format(
        "<h3>Tree of the first {} plies played</h3>\n<p class=\"note\">{} games from the start "
        "position (the fresh self-play games; their first plies are sampled from the search's "
        "visit counts, see the settings). Prior: the net's prior of the move in the position "
        "before it; value: the net's value after it.</p>\n",
        o.depth, o.games);
    std::string tree_csv = "depth,line,move,count,white_score,prior,value\n";
    rows.clear();
    json tree = json::array();
    for (const OpeningNode& node : o.nodes) {
      std::string indent;
      for (int d = 1; d < node.depth; ++d) indent += "&nbsp;&nbsp;&nbsp;&nbsp;";
      rows.push_back({indent + EscapeXml(node.line), std::to_string(node.count),
                      Num(node.white_score), Num(node.prior), Num(node.value)});
      tree_csv +=
          fmt::format("{},{},{},{},{},{},{}\n", node.depth, Csv(node.line), Csv(node.move),
                      node.count, Num(node.white_score, 4), Num(node.prior, 4), Num(node.value, 4));
      tree.push_back({{"depth", node.depth},
                      {"parent", node.parent},
                      {"line", node.line},
                      {"move", node.move},
                      {"count", node.count},
                      {"white_score", node.white_score},
                      {"prior", JsonNumber(node.prior)},
                      {"value", JsonNumber(node.value)}});
    }
    html += Table({"line", "games", "White score", "prior", "value"}, rows);
    Save("openings_tree.csv", tree_csv);
    // Lines.
    html += fmt::format("<h3>Most frequent {}-ply lines</h3>\n", o.depth);
    std::string lines_csv = "line,count,white_score\n";
    rows.clear();
    json lines = json::array();
    for (const OpeningLine& line : o.lines) {
      rows.push_back({EscapeXml(line.line), std::to_string(line.count), Num(line.white_score)});
      lines_csv += fmt::format("{},{},{}\n", Csv(line.line), line.count, Num(line.white_score, 4));
      lines.push_back(
          {{"line", line.line}, {"count", line.count}, {"white_score", line.white_score}});
    }
    html += Table({"line", "games", "White score"}, rows);
    Save("opening_lines.csv", lines_csv);
    // Entropy.
    html +=
        "<h3>Opening diversity</h3>\n<p class=\"note\">Entropy (bits) of the distribution of "
        "the first N plies over the games that lasted at least N plies, and the number of "
        "distinct N-ply beginnings (at most log2(games) bits when every game differs).</p>\n";
    std::string entropy_csv = "label,plies,entropy_bits,distinct,games\n";
    std::vector<std::string> header = {"games"};
    for (int n = 1; n <= o.depth; ++n) header.push_back(fmt::format("{} plies", n));
    header[0] = "group (games)";
    rows.clear();
    json entropy = json::array();
    std::vector<PlotSeries> entropy_series;
    for (const EntropyRow& row : o.entropy) {
      std::vector<std::string> cells = {EscapeXml(row.label) + fmt::format(" ({})", row.games)};
      PlotSeries series{row.label, {}, {}, {}, {}};
      for (size_t n = 0; n < row.bits.size(); ++n) {
        cells.push_back(fmt::format("{} ({})", Num(row.bits[n], 2), row.distinct[n]));
        entropy_csv += fmt::format("{},{},{},{},{}\n", Csv(row.label), n + 1, Num(row.bits[n], 4),
                                   row.distinct[n], row.games);
        series.x.push_back(double(n + 1));
        series.y.push_back(row.bits[n]);
      }
      rows.push_back(cells);
      entropy_series.push_back(series);
      entropy.push_back({{"label", row.label},
                         {"games", row.games},
                         {"bits", row.bits},
                         {"distinct", row.distinct}});
    }
    html += Table(header, rows);
    PlotOptions options;
    options.title = "Entropy of the first N plies";
    options.x_label = "plies N";
    options.y_label = "bits";
    options.y_min = 0;
    options.width = 420;
    html += Figure("opening-entropy", LinePlot(entropy_series, options));
    Save("opening_entropy.csv", entropy_csv);
    json_["openings"] = {{"depth", o.depth},
                         {"games", o.games},
                         {"root_value", JsonNumber(o.root_value)},
                         {"root_search_value", r_.root_search_value},
                         {"root_simulations", r_.root_simulations},
                         {"first_moves", first},
                         {"tree", tree},
                         {"lines", lines},
                         {"entropy", entropy}};
    return html + "</section>\n";
  }

  std::string Shape() {
    std::string html = "<section id=\"game-shape\"><h2>Game shape</h2>\n";
    // Lengths: histogram per group.
    int longest = 1;
    for (const ShapeRow& row : r_.shape) {
      for (int plies : row.lengths) longest = std::max(longest, plies);
    }
    const int bin = std::max(1, int(std::ceil(double(longest + 1) / 20.0 / 5.0)) * 5);
    const int bins = longest / bin + 1;
    std::vector<std::string> categories;
    for (int b = 0; b < bins; ++b) categories.push_back(std::to_string(b * bin));
    std::vector<PlotSeries> histogram;
    json shape = json::array();
    std::string captures_csv = "label,kind,captured_per_game,promoted_per_game\n";
    std::vector<std::vector<std::string>> rows;
    std::vector<PlotSeries> captured_series;
    for (const ShapeRow& row : r_.shape) {
      PlotSeries series{row.label, {}, std::vector<double>(size_t(bins), 0.0), {}, {}};
      std::vector<int> sorted = row.lengths;
      std::sort(sorted.begin(), sorted.end());
      for (int plies : row.lengths) series.y[size_t(plies / bin)] += 1.0 / double(row.games);
      histogram.push_back(series);
      std::vector<std::string> cells = {
          EscapeXml(row.label), std::to_string(row.games),
          sorted.empty() ? "" : std::to_string(sorted[sorted.size() / 2]),
          sorted.empty() ? "" : fmt::format("{}-{}", sorted.front(), sorted.back())};
      json kinds = json::array();
      PlotSeries captured{row.label, {}, {}, {}, {}};
      for (size_t k = 0; k < r_.kind_names.size(); ++k) {
        cells.push_back(Num(row.captured[k], 2) + " / " + Num(row.promoted[k], 2));
        captures_csv += fmt::format("{},{},{},{}\n", Csv(row.label), r_.kind_names[k],
                                    Num(row.captured[k], 4), Num(row.promoted[k], 4));
        kinds.push_back({{"kind", r_.kind_names[k]},
                         {"captured_per_game", row.captured[k]},
                         {"promoted_per_game", row.promoted[k]}});
        captured.y.push_back(row.captured[k]);
      }
      captured_series.push_back(captured);
      rows.push_back(cells);
      shape.push_back(
          {{"label", row.label}, {"games", row.games}, {"lengths", row.lengths}, {"kinds", kinds}});
    }
    std::vector<std::string> header = {"group", "games", "median plies", "range"};
    for (const std::string& kind : r_.kind_names) {
      header.push_back(EscapeXml(kind) + " captured / promoted per game");
    }
    html += Table(header, rows);
    html += "<div class=\"figures\">\n";
    PlotOptions options;
    options.title = fmt::format("Game length ({}-ply bins)", bin);
    options.x_label = "plies";
    options.y_label = "share of games";
    options.width = 560;
    html += Figure("game-length", BarPlot(categories, histogram, options));
    options = PlotOptions();
    options.title = "Pieces captured per game";
    options.y_label = "per game";
    options.width = 480;
    html += Figure("captures", BarPlot(r_.kind_names, captured_series, options));
    // Material over the game.
    const MaterialCurve& m = r_.material;
    std::vector<PlotSeries> material = {{"White", {}, {}, {}, {}}, {"Black", {}, {}, {}, {}}};
    std::vector<PlotSeries> counts;
    for (const std::string& kind : r_.kind_names) counts.push_back({kind, {}, {}, {}, {}});
    std::string material_csv = "ply,games_running,white_material,black_material";
    for (const std::string& kind : r_.kind_names) material_csv += "," + kind;
    material_csv += "\n";
    for (size_t ply = 0; ply < m.games_running.size(); ++ply) {
      material_csv += fmt::format("{},{},{},{}", ply, m.games_running[ply], Num(m.white[ply], 1),
                                  Num(m.black[ply], 1));
      for (size_t k = 0; k < r_.kind_names.size(); ++k) {
        material_csv += "," + Num(m.pieces[ply][k], 3);
      }
      material_csv += "\n";
      if (m.games_running[ply] < 5 && ply > 0) continue;  // too few games to average
      material[0].x.push_back(double(ply)), material[0].y.push_back(m.white[ply]);
      material[1].x.push_back(double(ply)), material[1].y.push_back(m.black[ply]);
      for (size_t k = 0; k < r_.kind_names.size(); ++k) {
        counts[k].x.push_back(double(ply)), counts[k].y.push_back(m.pieces[ply][k]);
      }
    }
    options = PlotOptions();
    options.title = "Mean material of the games still running (baseline centipawns)";
    options.x_label = "ply";
    options.y_label = "centipawns";
    options.markers = false;
    options.width = 480;
    html += Figure("material", LinePlot(material, options));
    options.title = "Mean number of pieces of each kind (both colours)";
    options.y_label = "pieces";
    options.y_min = 0;
    html += Figure("piece-counts", LinePlot(counts, options));
    html +=
        "</div>\n<p class=\"note\">Material curves average the fresh self-play games still "
        "running at each ply (plies with fewer than 5 such games are left out of the "
        "plots).</p>\n</section>\n";
    Save("captures.csv", captures_csv);
    Save("material.csv", material_csv);
    json_["shape"] = shape;
    return html;
  }

  std::string Examples() {
    std::string html = "<section id=\"examples\"><h2>Example games</h2>\n";
    json examples = json::array();
    for (const ExampleGame& example : r_.examples) {
      const StudyGame& game = *example.game;
      html += "<h3>" + EscapeXml(example.title) + "</h3>\n<div class=\"figures\">\n";
      PlotSeries values{"search value", {}, {}, {}, {}};
      for (size_t ply = 0; ply < game.values.size(); ++ply) {
        values.x.push_back(double(ply + 1));
        values.y.push_back(game.values[ply]);
      }
      PlotOptions options;
      options.title = "The searches' value, White's view";
      options.x_label = "ply";
      options.y_label = "W - L";
      options.y_min = -1, options.y_max = 1;
      options.reference_y = 0;
      options.markers = false;
      options.width = 460;
      html += LinePlot({values}, options);
      for (const std::string& diagram : example.diagrams) html += diagram;
      html += "</div>\n<pre>" + EscapeXml(game.record) + "</pre>\n";
      std::vector<json> curve;
      for (float v : game.values) curve.push_back(JsonNumber(v));
      examples.push_back({{"title", example.title},
                          {"label", game.label},
                          {"index", game.index},
                          {"result", ResultText(game.status, r_.draughts)},
                          {"ending", game.ending},
                          {"plies", game.moves.size()},
                          {"values", curve},
                          {"record", game.record}});
    }
    if (r_.examples.empty()) html += "<p>No games to show.</p>\n";
    json_["examples"] = examples;
    return html + "</section>\n";
  }

  std::string Records() {
    std::string games_csv = "label,budget,index,result,ending,plies,termination\n";
    json games = json::array();
    const std::string extension = r_.draughts ? ".pdn" : ".pgn";
    std::vector<std::string> record_files;
    for (const std::string& label : Labels(r_.games)) {
      std::string records;
      for (const StudyGame* game : GamesLabelled(r_.games, label)) {
        records += game->record;
        const std::string result = ResultText(game->status, r_.draughts);
        games_csv +=
            fmt::format("{},{},{},{},{},{},{}\n", Csv(game->label), game->budget, game->index,
                        result, game->ending, game->moves.size(), Csv(game->termination));
        games.push_back({{"label", game->label},
                         {"budget", game->budget},
                         {"index", game->index},
                         {"result", result},
                         {"ending", game->ending},
                         {"plies", game->moves.size()},
                         {"termination", game->termination}});
      }
      const std::string name = "games-" + Slug(label) + extension;
      Save(name, records);
      record_files.push_back(name);
    }
    Save("games.csv", games_csv);
    json_["games"] = games;
    json_["record_files"] = record_files;
    std::string html = "<section id=\"files\"><h2>Files</h2>\n<p>Next to this page: ";
    for (size_t i = 0; i < files_.size(); ++i) {
      html += (i ? ", " : "") + fmt::format("<a href=\"{0}\">{0}</a>", EscapeXml(files_[i]));
    }
    html += ", report.json.</p>\n</section>\n";
    return html;
  }

  const StudyReport& r_;
  std::string dir_;
  json json_;
  std::vector<std::string> files_;
};

}  // namespace

std::string Slug(const std::string& label) {
  std::string slug;
  for (char c : label) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      slug += char(std::tolower(static_cast<unsigned char>(c)));
    } else if (!slug.empty() && slug.back() != '-') {
      slug += '-';
    }
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "games" : slug;
}

void WriteReport(const StudyReport& report, const std::string& out_dir) {
  Writer(report, out_dir).WriteAll();
}

}  // namespace vz::research
