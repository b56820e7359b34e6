#include "research/svg_plot.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "research/board_svg.h"

namespace vz::research {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr int kPaletteSize = 10;
constexpr double kLeft = 62, kRight = 16, kTop = 44, kBottom = 46;

std::string Colour(size_t index) { return kPalette[index % kPaletteSize]; }

// About five round tick values covering [low, high].
std::vector<double> Ticks(double low, double high) {
  if (!(high > low)) return {low};
  const double raw = (high - low) / 5.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double t = std::ceil(low / step - 1e-9) * step; t <= high + step * 1e-9; t += step) {
    ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

std::string TickLabel(double value) {
  if (std::fabs(value) >= 1e5 || (std::fabs(value) < 1e-3 && value != 0)) {
    return fmt::format("{:.2g}", value);
  }
  std::string text = fmt::format("{:.3f}", value);
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

struct Frame {
  double x0, x1, y0, y1;  // data range
  const PlotOptions* options;
  double X(double x) const {
    const double w = options->width - kLeft - kRight;
    return kLeft + (x1 > x0 ? (x - x0) / (x1 - x0) : 0.5) * w;
  }
  double Y(double y) const {
    const double h = options->height - kTop - kBottom;
    return kTop + h - (y1 > y0 ? (y - y0) / (y1 - y0) : 0.5) * h;
  }
};

std::string Header(const PlotOptions& options) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"11\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"18\" font-size=\"13\" text-anchor=\"middle\">{3}</text>\n",
      options.width, options.height, options.width / 2, EscapeXml(options.title));
}

// Axes, y ticks and grid, axis labels, the reference line and the legend.
std::string Axes(const Frame& frame, const std::vector<PlotSeries>& series) {
  const PlotOptions& o = *frame.options;
  std::string svg;
  const double left = kLeft, right = o.width - kRight, top = kTop, bottom = o.height - kBottom;
  for (double t : Ticks(frame.y0, frame.y1)) {
    const double y = frame.Y(t);
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
        left, y, right, y, left - 4, y + 4, TickLabel(t));
  }
  svg += fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#333\"/>"
      "<line x1=\"{0:.1f}\" y1=\"{2:.1f}\" x2=\"{3:.1f}\" y2=\"{2:.1f}\" stroke=\"#333\"/>\n",
      left, top, bottom, right);
  if (o.reference_y && *o.reference_y >= frame.y0 && *o.reference_y <= frame.y1) {
    const double y = frame.Y(*o.reference_y);
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#888\" "
        "stroke-dasharray=\"4 3\"/>\n",
        left, y, right, y);
  }
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     (left + right) / 2, o.height - 6, EscapeXml(o.x_label));
  svg += fmt::format(
      "<text transform=\"translate(14 {:.1f}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
      (top + bottom) / 2, EscapeXml(o.y_label));
  double legend_x = left + 8;
  for (size_t s = 0; s < series.size(); ++s) {
    if (series[s].name.empty()) continue;
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n",
        legend_x, top - 18, Colour(s), legend_x + 13, top - 9, EscapeXml(series[s].name));
    legend_x += 24 + 6.5 * double(series[s].name.size());
  }
  return svg;
}

}  // namespace

std::string LinePlot(const std::vector<PlotSeries>& series, const PlotOptions& options) {
  auto tx = [&](double x) { return options.log2_x ? std::log2(x) : x; };
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const PlotSeries& s : series) {
    for (size_t i = 0; i < s.y.size() && i < s.x.size(); ++i) {
      const double x = tx(s.x[i]);
      if (!std::isfinite(x) || !std::isfinite(s.y[i])) continue;
      x0 = std::min(x0, x), x1 = std::max(x1, x);
      y0 = std::min(y0, s.y[i]), y1 = std::max(y1, s.y[i]);
      if (i < s.low.size() && std::isfinite(s.low[i])) y0 = std::min(y0, s.low[i]);
      if (i < s.high.size() && std::isfinite(s.high[i])) y1 = std::max(y1, s.high[i]);
    }
  }
  std::string svg = Header(options);
  if (!std::isfinite(x0)) {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">no data</text>\n</svg>\n",
                       options.width / 2, options.height / 2);
    return svg;
  }
  if (options.y_min) y0 = *options.y_min;
  if (options.y_max) y1 = *options.y_max;
  if (x1 == x0) x0 -= 1, x1 += 1;
  if (y1 == y0) y0 -= 1, y1 += 1;
  const Frame frame{x0, x1, y0, y1, &options};
  svg += Axes(frame, series);
  // x ticks: the data's own x values on a log axis (budgets), round numbers otherwise.
  std::vector<double> x_ticks;
  if (options.log2_x) {
    for (const PlotSeries& s : series) {
      for (double x : s.x) x_ticks.push_back(x);
    }
    std::sort(x_ticks.begin(), x_ticks.end());
    x_ticks.erase(std::unique(x_ticks.begin(), x_ticks.end()), x_ticks.end());
  } else {
    x_ticks = Ticks(x0, x1);
  }
  for (double t : x_ticks) {
    const double x = frame.X(tx(t));
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x,
                       options.height - kBottom + 14, TickLabel(t));
  }
  for (size_t s = 0; s < series.size(); ++s) {
    const PlotSeries& line = series[s];
    std::string path;
    bool pen_down = false;
    for (size_t i = 0; i < line.y.size() && i < line.x.size(); ++i) {
      const double x = tx(line.x[i]);
      if (!std::isfinite(x) || !std::isfinite(line.y[i])) {
        pen_down = false;
        continue;
      }
      path += fmt::format("{}{:.1f},{:.1f} ", pen_down ? "L" : "M", frame.X(x), frame.Y(line.y[i]));
      pen_down = true;
      if (i < line.low.size() && i < line.high.size() && std::isfinite(line.low[i]) &&
          std::isfinite(line.high[i])) {
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>"
            "<line x1=\"{4:.1f}\" y1=\"{1:.1f}\" x2=\"{5:.1f}\" y2=\"{1:.1f}\" stroke=\"{3}\"/>"
            "<line x1=\"{4:.1f}\" y1=\"{2:.1f}\" x2=\"{5:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>\n",
            frame.X(x), frame.Y(line.low[i]), frame.Y(line.high[i]), Colour(s), frame.X(x) - 4,
            frame.X(x) + 4);
      }
      if (options.markers) {
        svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n",
                           frame.X(x), frame.Y(line.y[i]), Colour(s));
      }
    }
    if (!path.empty()) {
      svg += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\"/>\n",
                         path, Colour(s));
    }
  }
  svg += "</svg>\n";
  return svg;
}

std::string BarPlot(const std::vector<std::string>& categories,
                    const std::vector<PlotSeries>& series, const PlotOptions& options,
                    bool stacked) {
  auto value = [&](size_t s, size_t c) {
    return c < series[s].y.size() && std::isfinite(series[s].y[c]) ? series[s].y[c] : 0.0;
  };
  double y0 = 0, y1 = 0;
  for (size_t c = 0; c < categories.size(); ++c) {
    double total = 0;
    for (size_t s = 0; s < series.size(); ++s) {
      total += value(s, c);
      y1 = std::max(y1, stacked ? total : value(s, c));
      y0 = std::min(y0, value(s, c));
      if (!stacked && c < series[s].high.size() && std::isfinite(series[s].high[c])) {
        y1 = std::max(y1, series[s].high[c]);
      }
    }
  }
  std::string svg = Header(options);
  if (categories.empty() || series.empty()) {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">no data</text>\n</svg>\n",
                       options.width / 2, options.height / 2);
    return svg;
  }
  if (options.y_min) y0 = *options.y_min;
  if (options.y_max) y1 = *options.y_max;
  if (y1 == y0) y1 = y0 + 1;
  const double n = double(categories.size());
  const Frame frame{0, n, y0, y1, &options};
  svg += Axes(frame, series);
  const double slot = frame.X(1) - frame.X(0);
  const double bar = stacked ? slot * 0.7 : slot * 0.8 / double(series.size());
  const int label_every =
      std::max(1, int(std::ceil(n * 7.0 * 6.0 / (options.width - kLeft - kRight))));
  for (size_t c = 0; c < categories.size(); ++c) {
    const double left = frame.X(double(c)) + slot * (stacked ? 0.15 : 0.1);
    double base = 0;
    for (size_t s = 0; s < series.size(); ++s) {
      const double v = value(s, c);
      const double from = stacked ? base : 0.0, to = stacked ? base + v : v;
      const double x = stacked ? left : left + bar * double(s);
      svg += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
          "<title>{}: {}</title></rect>\n",
          x, frame.Y(std::max(from, to)), std::max(0.5, bar - 1),
          std::fabs(frame.Y(from) - frame.Y(to)), Colour(s),
          EscapeXml(series[s].name + " " + categories[c]), TickLabel(v));
      if (!stacked && c < series[s].low.size() && c < series[s].high.size() &&
          std::isfinite(series[s].low[c]) && std::isfinite(series[s].high[c])) {
        const double mid = x + bar / 2;
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#222\"/>\n",
            mid, frame.Y(series[s].low[c]), frame.Y(series[s].high[c]));
      }
      base += v;
    }
    if (int(c) % label_every == 0) {
      svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                         frame.X(double(c) + 0.5), options.height - kBottom + 14,
                         EscapeXml(categories[c]));
    }
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace vz::research
