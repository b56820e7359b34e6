#include <fmt/core.h>
#include <fmt/ranges.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "app/commands.h"
#include "engine/registry.h"

namespace vz::app {
namespace {

struct ShowOptions {
  std::string variant;
  std::string fen;
  std::string moves;
  bool json = false;
};

std::vector<std::string> SplitMoves(const std::string& text) {
  std::vector<std::string> moves;
  std::istringstream stream(text);
  for (std::string move; stream >> move;) moves.push_back(move);
  return moves;
}

std::string Winner(Status status) {
  switch (status) {
    case Status::kWhiteWins: return "white";
    case Status::kBlackWins: return "black";
    case Status::kDraw: return "none";
    case Status::kOngoing: break;
  }
  return "";
}

void RunShow(const ShowOptions& options) {
  const Variant& variant = FindVariant(options.variant);
  const PositionReport report = variant.Show(options.fen, SplitMoves(options.moves));
  if (options.json) {
    nlohmann::json json;
    json["variant"] = std::string(variant.name());
    json["fen"] = report.fen;
    json["side_to_move"] = ColorName(report.side_to_move);
    json["status"] = StatusName(report.outcome.status);
    json["winner"] = report.outcome.IsTerminal() ? nlohmann::json(Winner(report.outcome.status))
                                                 : nlohmann::json(nullptr);
    json["reason"] = report.outcome.IsTerminal() ? nlohmann::json(ReasonName(report.outcome.reason))
                                                 : nlohmann::json(nullptr);
    json["in_check"] = report.has_check ? nlohmann::json(report.in_check) : nlohmann::json(nullptr);
    json["legal_moves"] = report.legal_moves;
    json["legal_moves_display"] = report.legal_moves_display;
    json["played_display"] = report.played_display;
    fmt::print("{}\n", json.dump());
    return;
  }
  fmt::print("{}", report.board);
  fmt::print("fen: {}\n", report.fen);
  fmt::print("side to move: {}\n", ColorName(report.side_to_move));
  if (report.has_check) fmt::print("in check: {}\n", report.in_check ? "yes" : "no");
  if (report.outcome.IsTerminal()) {
    fmt::print("status: {} ({})\n", StatusName(report.outcome.status),
               ReasonName(report.outcome.reason));
  } else {
    fmt::print("status: ongoing\n");
  }
  if (!report.played_display.empty()) {
    fmt::print("played: {}\n", fmt::join(report.played_display, " "));
  }
  fmt::print("legal moves ({}): {}\n", report.legal_moves.size(),
             fmt::join(report.legal_moves, " "));
  if (report.legal_moves_display != report.legal_moves) {
    fmt::print("display form: {}\n", fmt::join(report.legal_moves_display, " "));
  }
}

}  // namespace

void AddShowCommand(CLI::App& app) {
  auto options = std::make_shared<ShowOptions>();
  CLI::App* command = app.add_subcommand(
      "show", "Play moves from a position; print the board, status and legal moves");
  command->add_option("--variant", options->variant, "Game name (see `vzero version`)")->required();
  command->add_option("--fen", options->fen, "Position string (default: the start position)");
  command->add_option("--moves", options->moves,
                      "Moves separated by spaces (protocol or display form)");
  command->add_flag("--json", options->json, "Print one JSON object");
  command->callback([options] { RunShow(*options); });
}

}  // namespace vz::app
