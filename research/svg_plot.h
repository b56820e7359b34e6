#pragma once

// Small SVG plots written from the data (no plotting program needed), to be inlined in the
// research report's HTML: line plots with optional 95% interval bars, and grouped or stacked bar
// charts. Axes get "nice" ticks; series take colours from a fixed palette in order; a legend
// names them. Non-finite points are skipped (a line is broken there). Host only; no state.

#include <optional>
#include <string>
#include <vector>

namespace vz::research {

struct PlotSeries {
  std::string name;
  std::vector<double> x;  // line plots: abscissae; bar charts: ignored (one y per category)
  std::vector<double> y;
  // Optional interval per point (same length as y), drawn as error bars.
  std::vector<double> low, high;
};

struct PlotOptions {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::optional<double> y_min, y_max;  // default: the data's range (with 0 for bar charts)
  bool log2_x = false;                 // line plots: x on a log2 axis (search budgets)
  bool markers = true;                 // line plots: a dot per point
  // A horizontal reference line (e.g. a score of 0.5), when set.
  std::optional<double> reference_y;
  int width = 560;
  int height = 300;
};

// A line plot of `series`. An empty series list gives a plot with the message "no data".
std::string LinePlot(const std::vector<PlotSeries>& series, const PlotOptions& options);

// Bars over `categories`: series s gives the bar of category c its height series[s].y[c]
// (missing values count as 0). Grouped side by side, or stacked when `stacked`.
std::string BarPlot(const std::vector<std::string>& categories,
                    const std::vector<PlotSeries>& series, const PlotOptions& options,
                    bool stacked = false);

}  // namespace vz::research
