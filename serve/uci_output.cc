#include "serve/uci_output.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace vz {

void UciOutput::Line(std::string_view line) {
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << line << '\n';
  out_.flush();
}

void UciOutput::InfoString(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  Line("info string " + text);
}

int QToCentipawns(float q) {
  const double clamped = std::clamp(double(q), -1.0, 1.0);
  return int(std::lround(90.0 * std::tan(1.5637541897 * clamped)));
}

std::string ScoreText(const RootMoveStats& stats, Color side) {
  if (stats.proven == Status::kDraw) return "cp 0";
  if (stats.proven != Status::kOngoing) {
    const int plies = std::max(1, stats.proven_plies);
    if (stats.proven == WinFor(side)) return fmt::format("mate {}", (plies + 1) / 2);
    return fmt::format("mate -{}", std::max(1, plies / 2));
  }
  return fmt::format("cp {}", QToCentipawns(stats.q));
}

std::string WdlText(const Wdl& wdl) {
  const int win = int(std::lround(std::clamp(wdl.win, 0.0f, 1.0f) * 1000.0f));
  const int loss = int(std::lround(std::clamp(wdl.loss, 0.0f, 1.0f) * 1000.0f));
  const int draw = std::max(0, 1000 - win - loss);
  return fmt::format("wdl {} {} {}", win, draw, 1000 - win - draw);
}

}  // namespace vz
