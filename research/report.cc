#include "research/report.h"

#include <fmt/core.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/core/atomic_file.h"
#include "research/board_svg.h"
#include "research/report_table.h"
#include "research/svg_plot.h"

namespace vz::research {
namespace {

using nlohmann::json;

std::string ResultText(Status status, bool draughts) { return ResultToken(status, draughts); }

// Columns of every form (HTML header `header`, CSV/JSON key `key`).
TableColumn Everywhere(std::string header, std::string key, int html_digits = 3,
                       int csv_digits = 4) {
  return {kEveryForm, std::move(header), std::move(key), html_digits, csv_digits};
}
TableColumn HtmlOnly(std::string header, int html_digits = 3) {
  return {kHtml, std::move(header), "", html_digits};
}
TableColumn DataOnly(std::string key, int csv_digits = 4) {
  return {kData, "", std::move(key), 3, csv_digits};
}
TableColumn CsvOnly(std::string key, int csv_digits = 4) {
  return {kCsv, "", std::move(key), 3, csv_digits};
}
TableColumn JsonOnly(std::string key) { return {kJson, "", std::move(key)}; }
// White's score with its interval: score and score_low/score_high.
TableColumn ScoreColumn(std::string header) {
  return {kEveryForm, std::move(header), "white_score", 3, 4, "score_low", "score_high"};
}

using Cell = TableCell;

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
        "<nav><a href=\"#balance\">Balance</a><a href=\"#metrics\">Game metrics</a>"
        "<a href=\"#piece-values\">Piece values</a><a href=\"#imbalances\">Imbalance "
        "matches</a><a href=\"#players\">Two players</a>"
        "<a href=\"#openings\">Openings</a><a href=\"#game-shape\">Game shape</a>"
        "<a href=\"#examples\">Example games</a><a href=\"#files\">Files</a></nav>\n";
    html += Balance();
    html += Metrics();
    html += PieceValues();
    html += Imbalances();
    html += Players();
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
    Table table({HtmlOnly("setting"), HtmlOnly("value")});
    for (const auto& [key, value] : r_.settings) {
      settings[key] = value;
      table.AddRow({Cell::Text(key), Cell::Text(value)});
    }
    json_["variant"] = r_.variant;
    json_["command"] = r_.command;
    json_["settings"] = settings;
    return "<p class=\"note\">Made by <code>" + EscapeXml(r_.command) +
           "</code>. Scores are White's (win 1, draw 1/2, loss 0); values are the expected "
           "result W - L in [-1, 1] from White's view.</p>\n" +
           table.Html();
  }

  std::string Balance() {
    std::string html = "<section id=\"balance\"><h2>Balance</h2>\n";
    html +=
        "<p class=\"note\">White's score with its 95% Wilson interval (a draw counted as half "
        "a win, which makes the interval conservative) and how the games ended, per group of "
        "games.</p>\n";
    std::vector<std::string> ending_names;
    for (const BalanceRow& row : r_.balance) {
      for (const auto& [ending, count] : row.endings) {
        if (std::find(ending_names.begin(), ending_names.end(), ending) == ending_names.end()) {
          ending_names.push_back(ending);
        }
      }
    }
    std::vector<TableColumn> columns = {
        Everywhere("group", "label"),     DataOnly("budget"),
        Everywhere("games", "games"),     Everywhere("White wins", "white_wins"),
        Everywhere("draws", "draws"),     Everywhere("Black wins", "black_wins"),
        ScoreColumn("White score [95%]"), Everywhere("mean plies", "mean_plies", 1, 1)};
    for (const std::string& ending : ending_names) columns.push_back(HtmlOnly(ending));
    columns.push_back(JsonOnly("endings"));
    Table table(std::move(columns));
    Table endings_table({CsvOnly("label"), CsvOnly("ending"), CsvOnly("games")});
    for (const BalanceRow& row : r_.balance) {
      std::vector<Cell> cells = {Cell::Text(row.label),     Cell::Integer(row.budget),
                                 Cell::Integer(row.games),  Cell::Integer(row.white_wins),
                                 Cell::Integer(row.draws),  Cell::Integer(row.black_wins),
                                 Cell::Of(row.white_score), Cell::Real(row.mean_plies)};
      json endings = json::object();
      for (const std::string& ending : ending_names) {
        const auto it = row.endings.find(ending);
        const int64_t count = it == row.endings.end() ? 0 : it->second;
        cells.push_back(Cell::Integer(count));
        if (count > 0) {
          endings[ending] = count;
          endings_table.AddRow({Cell::Text(row.label), Cell::Text(ending), Cell::Integer(count)});
        }
      }
      cells.push_back(Cell::Json(endings));
      table.AddRow(std::move(cells));
    }
    json_["balance"] = table.Json();
    html += table.Html();
    Save("balance.csv", table.Csv());
    Save("endings.csv", endings_table.Csv());
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

  // The field's metrics: one HTML column per group; metrics.csv one row per group and metric.
  std::string Metrics() {
    std::string html = "<section id=\"metrics\"><h2>Game metrics</h2>\n";
    html +=
        "<p class=\"note\">The measures of Ludii's game metrics (Browne 2008; Piette et al.) per "
        "group of games, each with its 95% interval (research/metrics.h). The independent "
        "players' games start after random plies, so their first-mover figures are those of "
        "near-initial positions.</p>\n";
    if (r_.metrics.empty()) return html + "<p>No games.</p>\n</section>\n";
    std::vector<TableColumn> columns = {HtmlOnly("metric"), HtmlOnly("definition")};
    for (const GameMetrics& group : r_.metrics) {
      columns.push_back(HtmlOnly(fmt::format("{} ({} games)", group.label, group.games)));
    }
    Table wide(std::move(columns));
    Table tall({Everywhere("group", "label"),
                Everywhere("metric", "metric"),
                DataOnly("name"),
                {kData, "", "value", 3, 4, "low", "high"},
                DataOnly("samples"),
                DataOnly("definition")});
    for (const Metric& metric : r_.metrics.front().metrics) {
      std::vector<Cell> cells = {Cell::Text(metric.name), Cell::Text(metric.definition)};
      for (const GameMetrics& group : r_.metrics) {
        const Metric* found = FindMetric(group, metric.key);
        cells.push_back(found != nullptr && std::isfinite(found->value.value)
                            ? Cell::Of(found->value)
                            : Cell::Empty());
      }
      wide.AddRow(std::move(cells));
    }
    Table branching({CsvOnly("label"), CsvOnly("plies_from"), CsvOnly("branching_factor")});
    std::vector<PlotSeries> curves;
    for (const GameMetrics& group : r_.metrics) {
      for (const Metric& metric : group.metrics) {
        tall.AddRow({Cell::Text(group.label), Cell::Text(metric.key), Cell::Text(metric.name),
                     Cell::Of(metric.value), Cell::Integer(metric.samples),
                     Cell::Text(metric.definition)});
      }
      PlotSeries curve{group.label, {}, {}, {}, {}};
      for (size_t b = 0; b < group.branching_by_plies.size(); ++b) {
        branching.AddRow({Cell::Text(group.label), Cell::Integer(int64_t(b) * 10),
                          Cell::Real(group.branching_by_plies[b])});
        curve.x.push_back(double(b) * 10);
        curve.y.push_back(group.branching_by_plies[b]);
      }
      curves.push_back(curve);
    }
    html += wide.Html();
    json_["metrics"] = tall.Json();
    Save("metrics.csv", tall.Csv());
    Save("branching.csv", branching.Csv());
    PlotOptions options;
    options.title = "Branching factor over the game (legal moves, per 10 plies)";
    options.x_label = "ply";
    options.y_label = "legal moves";
    options.markers = false;
    options.width = 520;
    html += "<div class=\"figures\">\n" + Figure("branching", LinePlot(curves, options)) +
            "</div>\n</section>\n";
    return html;
  }

  std::string Imbalances() {
    std::string html = "<section id=\"imbalances\"><h2>Imbalance matches</h2>\n";
    html +=
        "<p class=\"note\">H. G. Muller's method: games of a player against itself from the "
        "start position with pieces taken off (one side lacks the first piece named, the other "
        "the second, or nothing), either colour advantaged equally often, a few random plies "
        "without a capture after (research/imbalance.h). The score is the advantaged side's, "
        "the mean of the opening pairs with its 95% interval. The values come from the same "
        "logistic model as the regression, fitted on the games' start material with one "
        "pseudo-draw per imbalance and colour, standard errors clustered by pair; a sweep (all "
        "games won) makes a value a lower bound. Below each player's fit, its values by the "
        "two methods side by side; <b>differs</b> marks intervals that do not overlap.</p>\n";
    if (r_.imbalances.empty())
      return html + "<p>Not played (--imbalance-games 0).</p>\n</section>\n";
    Table rows_csv({CsvOnly("player"),
                    CsvOnly("imbalance"),
                    CsvOnly("games"),
                    CsvOnly("wins"),
                    CsvOnly("draws"),
                    CsvOnly("losses"),
                    {kCsv, "", "score", 3, 4, "score_low", "score_high"},
                    CsvOnly("sweep")});
    std::string fits_csv = PieceValueTable().CsvHeader();
    Table methods_csv({CsvOnly("player"),
                       CsvOnly("kind"),
                       {kCsv, "", "regression", 3, 4, "regression_low", "regression_high"},
                       {kCsv, "", "imbalance", 3, 4, "imbalance_low", "imbalance_high"},
                       CsvOnly("baseline_relative"),
                       CsvOnly("differs")});
    json studies = json::array();
    for (size_t p = 0; p < r_.imbalances.size(); ++p) {
      const ImbalanceStudy& study = r_.imbalances[p];
      html += "<h3>" + EscapeXml(study.player) + "</h3>\n";
      Table table({HtmlOnly("imbalance"),
                   HtmlOnly("games (W-D-L)"),
                   HtmlOnly("advantaged side's score [95%]"),
                   HtmlOnly("note"),
                   {kJson, "", "imbalance"},
                   {kJson, "", "games"},
                   {kJson, "", "wins"},
                   {kJson, "", "draws"},
                   {kJson, "", "losses"},
                   {kJson, "", "score", 3, 4, "score_low", "score_high"},
                   {kJson, "", "sweep"}});
      for (const ImbalanceRow& row : study.rows) {
        const std::string games =
            fmt::format("{} ({}-{}-{})", row.games, row.wins, row.draws, row.losses);
        table.AddRow({Cell::Text(row.name), Cell::Text(games),
                      row.games > 0 ? Cell::Of(row.score) : Cell::Empty(),
                      Cell::Text(row.sweep ? "sweep: its value is a bound" : ""),
                      Cell::Text(row.name), Cell::Integer(row.games), Cell::Integer(row.wins),
                      Cell::Integer(row.draws), Cell::Integer(row.losses), Cell::Of(row.score),
                      Cell::Bool(row.sweep)});
        rows_csv.AddRow({Cell::Text(study.player), Cell::Text(row.name), Cell::Integer(row.games),
                         Cell::Integer(row.wins), Cell::Integer(row.draws),
                         Cell::Integer(row.losses), Cell::Of(row.score), Cell::Bool(row.sweep)});
      }
      html += table.Html();
      const PieceValueFit& fit = study.fit;
      const Table fit_table = PieceValueTable(fit, "not played");
      fits_csv += fit_table.CsvRows();
      html += fit.error.empty()
                  ? fmt::format("<p>The fit: {} games in {} pairs; reference piece {}{}.</p>\n",
                                fit.positions, fit.games, EscapeXml(fit.reference),
                                fit.converged ? "" : "; <b>the iterations did not converge</b>") +
                        fit_table.Html()
                  : "<p>No fit: " + EscapeXml(fit.error) + "</p>\n";
      Table methods({HtmlOnly("piece"), HtmlOnly("regression over positions [95%]"),
                     HtmlOnly("imbalance matches [95%]"), HtmlOnly("baseline", 2), HtmlOnly("")});
      if (p < r_.value_methods.size()) {
        for (const ValueComparison& row : r_.value_methods[p].second) {
          methods.AddRow(
              {Cell::Text(row.kind), row.first_estimated ? Cell::Of(row.first) : Cell::Empty(),
               row.second_estimated ? Cell::Of(row.second) : Cell::Empty(),
               Cell::Real(row.baseline_relative), Cell::Text(row.differs ? "differs" : "")});
          methods_csv.AddRow({Cell::Text(r_.value_methods[p].first), Cell::Text(row.kind),
                              row.first_estimated ? Cell::Of(row.first) : Cell::Empty(),
                              row.second_estimated ? Cell::Of(row.second) : Cell::Empty(),
                              Cell::Real(row.baseline_relative), Cell::Bool(row.differs)});
        }
        html += "<p>Values by the two methods (" + EscapeXml(fit.reference) + " = 1):</p>\n" +
                methods.Html();
      }
      studies.push_back({{"player", study.player},
                         {"imbalances", table.Json()},
                         {"fit", fit_table.Json()},
                         {"games", fit.positions},
                         {"pairs", fit.games},
                         {"reference", fit.reference},
                         {"converged", fit.converged},
                         {"error", fit.error}});
    }
    json_["imbalances"] = studies;
    Save("imbalances.csv", rows_csv.Csv());
    Save("imbalance_values.csv", fits_csv);
    Save("value_methods.csv", methods_csv.Csv());
    return html + "</section>\n";
  }

  std::string Players() {
    std::string html = "<section id=\"players\"><h2>Two players</h2>\n";
    html +=
        "<p class=\"note\">Each finding measured under the net (its largest budget) and under an "
        "independent player; <b>depends on the player</b> marks a finding whose 95% intervals "
        "under the two do not overlap. A finding without the mark holds under both within the "
        "noise of these games.</p>\n";
    if (r_.players.empty()) return html + "<p>No independent player (--players).</p>\n</section>\n";
    Table csv({DataOnly("first"),
               DataOnly("second"),
               DataOnly("finding"),
               {kData, "", "first_value", 3, 4, "first_low", "first_high"},
               {kData, "", "second_value", 3, 4, "second_low", "second_high"},
               DataOnly("differs")});
    for (const PlayerComparison& comparison : r_.players) {
      html +=
          "<h3>" + EscapeXml(comparison.first) + " and " + EscapeXml(comparison.second) + "</h3>\n";
      Table table({HtmlOnly("finding"), HtmlOnly(comparison.first + " [95%]"),
                   HtmlOnly(comparison.second + " [95%]"), HtmlOnly("")});
      for (const PlayerFinding& f : comparison.findings) {
        const auto cell = [](const Interval& i) {
          return std::isfinite(i.value) ? Cell::Of(i) : Cell::Empty();
        };
        table.AddRow({Cell::Text(f.finding), cell(f.first), cell(f.second),
                      Cell::Html(f.differs ? "<b>depends on the player</b>" : "")});
        csv.AddRow({Cell::Text(comparison.first), Cell::Text(comparison.second),
                    Cell::Text(f.finding), cell(f.first), cell(f.second), Cell::Bool(f.differs)});
      }
      html += table.Html();
    }
    json_["players"] = csv.Json();
    Save("players.csv", csv.Csv());
    return html + "</section>\n";
  }

  // The columns of one fit: the HTML's combined cells beside the raw values of the CSV and the
  // JSON.
  static Table PieceValueTable() {
    return Table({CsvOnly("data"),
                  Everywhere("piece", "kind"),
                  HtmlOnly("coefficient ± 95%"),
                  DataOnly("estimated"),
                  DataOnly("coefficient", 5),
                  DataOnly("standard_error", 5),
                  HtmlOnly("value [95%] (reference = 1)"),
                  {kData, "", "relative", 3, 4, "relative_low", "relative_high"},
                  HtmlOnly("baseline value (reference = 1)", 2),
                  HtmlOnly("baseline centipawns"),
                  DataOnly("baseline"),
                  DataOnly("baseline_relative"),
                  CsvOnly("positions"),
                  CsvOnly("games")});
  }
  // The table of `fit`, a row per kind; `not_estimated` is the HTML text of a kind the fit could
  // not estimate.
  static Table PieceValueTable(const PieceValueFit& fit, const char* not_estimated) {
    Table table = PieceValueTable();
    for (const PieceValueRow& row : fit.rows) {
      table.AddRow({Cell::Text(fit.data), Cell::Text(row.kind),
                    Cell::Html(row.estimated ? FixedDigits(row.coefficient, 3) + " ± " +
                                                   FixedDigits(1.96 * row.standard_error, 3)
                                             : not_estimated),
                    Cell::Bool(row.estimated), Cell::Real(row.coefficient),
                    Cell::Real(row.standard_error),
                    row.estimated ? Cell::Of(row.relative) : Cell::Empty(), Cell::Of(row.relative),
                    Cell::Real(row.baseline_relative), Cell::Integer(row.baseline),
                    Cell::Integer(row.baseline), Cell::Real(row.baseline_relative),
                    Cell::Integer(fit.positions), Cell::Integer(fit.games)});
    }
    return table;
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
    std::string csv = PieceValueTable().CsvHeader();
    json fits = json::array();
    for (size_t f = 0; f < r_.piece_values.size(); ++f) {
      const PieceValueFit& fit = r_.piece_values[f];
      html += fmt::format("<h3>{}</h3>\n<p>{} positions of {} games", EscapeXml(fit.data),
                          fit.positions, fit.games);
      const Table table = PieceValueTable(fit, "not estimable (never differed)");
      csv += table.CsvRows();
      if (!fit.error.empty()) {
        html += ": no fit (" + EscapeXml(fit.error) + ").</p>\n";
      } else {
        html += fmt::format(
            "; reference piece: {}; intercept (White's edge at equal material, log-odds) {} ± {}"
            "{}.</p>\n",
            EscapeXml(fit.reference), FixedDigits(fit.intercept, 3),
            FixedDigits(1.96 * fit.intercept_error, 3),
            fit.converged ? "" : "; <b>the iterations did not converge</b> (separation?)");
        html += table.Html();
      }
      fits.push_back({{"data", fit.data},
                      {"positions", fit.positions},
                      {"games", fit.games},
                      {"reference", fit.reference},
                      {"intercept", fit.intercept},
                      {"intercept_error", fit.intercept_error},
                      {"converged", fit.converged},
                      {"error", fit.error},
                      {"kinds", table.Json()}});
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
        FixedDigits(o.root_value, 3), r_.root_simulations, FixedDigits(r_.root_search_value, 3));
    html +=
        "<h3>The net's preferred first moves</h3>\n<p class=\"note\">The dedicated search's "
        "most visited first moves, with the net's prior, the search's value of the move, and "
        "the result of self-play games started after it (" +
        EscapeXml(r_.first_move_label) + ", White's score with 95% interval).</p>\n";
    Table first({Everywhere("move", "move"), JsonOnly("position"), Everywhere("visits", "visits"),
                 Everywhere("prior", "prior"), Everywhere("search value", "search_value"),
                 HtmlOnly("games (W-D-L)"), DataOnly("games"), DataOnly("white_wins"),
                 DataOnly("draws"), DataOnly("black_wins"), ScoreColumn("White score [95%]")});
    for (const FirstMoveRow& m : r_.first_moves) {
      const bool played = m.games > 0;
      first.AddRow({Cell::Text(m.move), Cell::Text(m.position), Cell::Integer(m.visits),
                    Cell::Real(m.prior), Cell::Real(m.search_value),
                    Cell::Html(played ? fmt::format("{} ({}-{}-{})", m.games, m.white_wins, m.draws,
                                                    m.black_wins)
                                      : ""),
                    Cell::Integer(m.games), Cell::Integer(m.white_wins), Cell::Integer(m.draws),
                    Cell::Integer(m.black_wins), played ? Cell::Of(m.white_score) : Cell::Empty()});
    }
    html += first.Html();
    html += "</div></div>\n";
    Save("first_moves.csv", first.Csv());
    // Tree.
    html += fmt::format(
        "<h3>Tree of the first {} plies played</h3>\n<p class=\"note\">{} games from the start "
        "position (the fresh self-play games; their first plies are sampled from the search's "
        "visit counts, see the settings). Prior: the net's prior of the move in the position "
        "before it; value: the net's value after it.</p>\n",
        o.depth, o.games);
    Table tree({DataOnly("depth"), JsonOnly("parent"), HtmlOnly("line"), DataOnly("line"),
                DataOnly("move"), Everywhere("games", "count"),
                Everywhere("White score", "white_score"), Everywhere("prior", "prior"),
                Everywhere("value", "value")});
    for (const OpeningNode& node : o.nodes) {
      std::string indent;
      for (int d = 1; d < node.depth; ++d) indent += "&nbsp;&nbsp;&nbsp;&nbsp;";
      tree.AddRow({Cell::Integer(node.depth), Cell::Integer(node.parent),
                   Cell::Html(indent + EscapeXml(node.line)), Cell::Text(node.line),
                   Cell::Text(node.move), Cell::Integer(node.count), Cell::Real(node.white_score),
                   Cell::Real(node.prior), Cell::Real(node.value)});
    }
    html += tree.Html();
    Save("openings_tree.csv", tree.Csv());
    // Lines.
    html += fmt::format("<h3>Most frequent {}-ply lines</h3>\n", o.depth);
    Table lines({Everywhere("line", "line"), Everywhere("games", "count"),
                 Everywhere("White score", "white_score")});
    for (const OpeningLine& line : o.lines) {
      lines.AddRow(
          {Cell::Text(line.line), Cell::Integer(line.count), Cell::Real(line.white_score)});
    }
    html += lines.Html();
    Save("opening_lines.csv", lines.Csv());
    // Entropy.
    html +=
        "<h3>Opening diversity</h3>\n<p class=\"note\">Entropy (bits) of the distribution of "
        "the first N plies over the games that lasted at least N plies, and the number of "
        "distinct N-ply beginnings (at most log2(games) bits when every game differs).</p>\n";
    // Per group: a row of the HTML and the JSON, and a CSV line per prefix length.
    std::vector<TableColumn> columns = {HtmlOnly("group (games)"), JsonOnly("label"),
                                        JsonOnly("games"), JsonOnly("bits"), JsonOnly("distinct")};
    for (int n = 1; n <= o.depth; ++n) columns.push_back(HtmlOnly(fmt::format("{} plies", n)));
    Table entropy(std::move(columns));
    Table entropy_lines({CsvOnly("label"), CsvOnly("plies"), CsvOnly("entropy_bits"),
                         CsvOnly("distinct"), CsvOnly("games")});
    std::vector<PlotSeries> entropy_series;
    for (const EntropyRow& row : o.entropy) {
      std::vector<Cell> cells = {Cell::Html(EscapeXml(row.label) + fmt::format(" ({})", row.games)),
                                 Cell::Text(row.label), Cell::Integer(row.games),
                                 Cell::Json(row.bits), Cell::Json(row.distinct)};
      PlotSeries series{row.label, {}, {}, {}, {}};
      for (size_t n = 0; n < row.bits.size(); ++n) {
        cells.push_back(
            Cell::Html(fmt::format("{} ({})", FixedDigits(row.bits[n], 2), row.distinct[n])));
        entropy_lines.AddRow({Cell::Text(row.label), Cell::Integer(int64_t(n + 1)),
                              Cell::Real(row.bits[n]), Cell::Integer(row.distinct[n]),
                              Cell::Integer(row.games)});
        series.x.push_back(double(n + 1));
        series.y.push_back(row.bits[n]);
      }
      cells.resize(size_t(5 + o.depth), Cell::Html(""));
      entropy.AddRow(std::move(cells));
      entropy_series.push_back(series);
    }
    html += entropy.Html();
    PlotOptions options;
    options.title = "Entropy of the first N plies";
    options.x_label = "plies N";
    options.y_label = "bits";
    options.y_min = 0;
    options.width = 420;
    html += Figure("opening-entropy", LinePlot(entropy_series, options));
    Save("opening_entropy.csv", entropy_lines.Csv());
    json_["openings"] = {
        {"depth", o.depth},
        {"games", o.games},
        {"root_value", std::isfinite(o.root_value) ? json(o.root_value) : json(nullptr)},
        {"root_search_value", r_.root_search_value},
        {"root_simulations", r_.root_simulations},
        {"first_moves", first.Json()},
        {"tree", tree.Json()},
        {"lines", lines.Json()},
        {"entropy", entropy.Json()}};
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
    // Per group: a row of the HTML and the JSON; its captures per kind are a CSV line each and
    // the row's "kinds" in the JSON.
    std::vector<TableColumn> columns = {{kHtml | kJson, "group", "label"},
                                        {kHtml | kJson, "games", "games"},
                                        HtmlOnly("median plies"),
                                        HtmlOnly("range"),
                                        JsonOnly("lengths"),
                                        JsonOnly("kinds")};
    for (const std::string& kind : r_.kind_names) {
      columns.push_back(HtmlOnly(kind + " captured / promoted per game"));
    }
    Table groups(std::move(columns));
    const auto captures_table = [] {
      return Table({CsvOnly("label"), DataOnly("kind"), DataOnly("captured_per_game"),
                    DataOnly("promoted_per_game")});
    };
    std::string captures_csv = captures_table().CsvHeader();
    std::vector<PlotSeries> captured_series;
    for (const ShapeRow& row : r_.shape) {
      PlotSeries series{row.label, {}, std::vector<double>(size_t(bins), 0.0), {}, {}};
      std::vector<int> sorted = row.lengths;
      std::sort(sorted.begin(), sorted.end());
      for (int plies : row.lengths) series.y[size_t(plies / bin)] += 1.0 / double(row.games);
      histogram.push_back(series);
      Table captures = captures_table();
      std::vector<Cell> kind_cells;
      PlotSeries captured{row.label, {}, {}, {}, {}};
      for (size_t k = 0; k < r_.kind_names.size(); ++k) {
        kind_cells.push_back(
            Cell::Html(FixedDigits(row.captured[k], 2) + " / " + FixedDigits(row.promoted[k], 2)));
        captures.AddRow({Cell::Text(row.label), Cell::Text(r_.kind_names[k]),
                         Cell::Real(row.captured[k]), Cell::Real(row.promoted[k])});
        captured.y.push_back(row.captured[k]);
      }
      captured_series.push_back(captured);
      captures_csv += captures.CsvRows();
      std::vector<Cell> cells = {
          Cell::Text(row.label),
          Cell::Integer(row.games),
          sorted.empty() ? Cell::Empty() : Cell::Integer(sorted[sorted.size() / 2]),
          sorted.empty() ? Cell::Empty()
                         : Cell::Html(fmt::format("{}-{}", sorted.front(), sorted.back())),
          Cell::Json(row.lengths),
          Cell::Json(captures.Json())};
      cells.insert(cells.end(), kind_cells.begin(), kind_cells.end());
      groups.AddRow(std::move(cells));
    }
    html += groups.Html();
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
    std::vector<TableColumn> material_columns = {CsvOnly("ply"), CsvOnly("games_running"),
                                                 CsvOnly("white_material", 1),
                                                 CsvOnly("black_material", 1)};
    for (const std::string& kind : r_.kind_names) material_columns.push_back(CsvOnly(kind, 3));
    Table material_table(std::move(material_columns));
    for (size_t ply = 0; ply < m.games_running.size(); ++ply) {
      std::vector<Cell> cells = {Cell::Integer(int64_t(ply)), Cell::Integer(m.games_running[ply]),
                                 Cell::Real(m.white[ply]), Cell::Real(m.black[ply])};
      for (size_t k = 0; k < r_.kind_names.size(); ++k)
        cells.push_back(Cell::Real(m.pieces[ply][k]));
      material_table.AddRow(std::move(cells));
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
    Save("material.csv", material_table.Csv());
    json_["shape"] = groups.Json();
    return html;
  }

  std::string Examples() {
    std::string html = "<section id=\"examples\"><h2>Example games</h2>\n";
    Table examples({JsonOnly("title"), JsonOnly("label"), JsonOnly("index"), JsonOnly("result"),
                    JsonOnly("ending"), JsonOnly("plies"), JsonOnly("values"), JsonOnly("record")});
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
      json curve = json::array();
      for (float v : game.values) curve.push_back(std::isfinite(v) ? json(v) : json(nullptr));
      examples.AddRow({Cell::Text(example.title), Cell::Text(game.label), Cell::Integer(game.index),
                       Cell::Text(ResultText(game.status, r_.draughts)), Cell::Text(game.ending),
                       Cell::Integer(int64_t(game.moves.size())), Cell::Json(curve),
                       Cell::Text(game.record)});
    }
    if (r_.examples.empty()) html += "<p>No games to show.</p>\n";
    json_["examples"] = examples.Json();
    return html + "</section>\n";
  }

  std::string Records() {
    Table games({DataOnly("label"), DataOnly("budget"), DataOnly("index"), DataOnly("result"),
                 DataOnly("ending"), DataOnly("plies"), DataOnly("termination")});
    const std::string extension = r_.draughts ? ".pdn" : ".pgn";
    std::vector<std::string> record_files;
    for (const std::string& label : Labels(r_.games)) {
      std::string records;
      for (const StudyGame* game : GamesLabelled(r_.games, label)) {
        records += game->record;
        games.AddRow({Cell::Text(game->label), Cell::Integer(game->budget),
                      Cell::Integer(game->index), Cell::Text(ResultText(game->status, r_.draughts)),
                      Cell::Text(game->ending), Cell::Integer(int64_t(game->moves.size())),
                      Cell::Text(game->termination)});
      }
      const std::string name = "games-" + Slug(label) + extension;
      Save(name, records);
      record_files.push_back(name);
    }
    Save("games.csv", games.Csv());
    json_["games"] = games.Json();
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
