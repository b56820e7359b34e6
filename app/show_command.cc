#include <fmt/core.h>
#include <fmt/ranges.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/commands.h"
#include "engine/core/error.h"
#include "engine/registry.h"
#include "records/pgn_record.h"
#include "serve/line_io.h"

namespace vz::app {
namespace {

struct ShowOptions {
  std::string variant;
  std::string fen;
  std::string moves;
  std::string pgn;
  std::string pdn;
  bool json = false;
};

// Replays every game of a PGN (`pgn`) or PDN (`pdn`) file, one of them non-empty, for `variant`
// (empty: the first record's Variant / GameType tag) and prints one line per game with the first
// illegal move, if any. Throws vz::Error (exit status 1) when any game has an illegal move, or on
// an unreadable file or unknown variant.
void ReplayRecords(const std::string& pgn, const std::string& pdn,
                   const std::string& variant_name) {
  if (pgn.empty() == pdn.empty()) throw Error("give exactly one of --pgn, --pdn");
  const std::string path = pgn.empty() ? pdn : pgn;
  std::string variant = variant_name;
  if (variant.empty()) {
    const auto records = ParseRecordText(ReadTextFile(path));
    if (!records.empty()) variant = VariantOfRecord(records.front());
    if (variant.empty() && !pdn.empty()) variant = "portuguese-draughts";
    if (variant.empty()) {
      throw Error("'" + path + "': no Variant or GameType tag; give --variant");
    }
  }
  int bad = 0;
  for (const ReplayReport& report : ReplayRecordFile(variant, path)) {
    if (report.ok) {
      fmt::print("game {}: {} plies replayed, all legal; result {} (rules: {} {}); final {}\n",
                 report.game, report.plies_played, report.result_tag,
                 StatusName(report.final_outcome.status), ReasonName(report.final_outcome.reason),
                 report.final_position);
    } else {
      ++bad;
      fmt::print("game {}: illegal move at ply {}: '{}': {}\n", report.game, report.illegal_ply,
                 report.illegal_move, report.error);
    }
  }
  if (bad > 0)
    throw Error("'" + path + "': " + std::to_string(bad) + " game(s) with an illegal move");
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
  if (!options.pgn.empty() || !options.pdn.empty()) {
    ReplayRecords(options.pgn, options.pdn, options.variant);
    return;
  }
  if (options.variant.empty()) throw Error("show: --variant is required (or --pgn / --pdn)");
  const Variant& variant = FindVariant(options.variant);
  const PositionReport report = variant.Show(options.fen, SplitWords(options.moves));
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
  command->add_option(
      "--variant", options->variant,
      "Game name (see `vzero version`); with --pgn/--pdn default: the record's tag");
  command->add_option("--pgn", options->pgn,
                      "Replay every game of a PGN file (Chaco Rex, Chad, Cuarenta) instead");
  command->add_option("--pdn", options->pdn,
                      "Replay every game of a PDN file (Portuguese draughts) instead");
  command->add_option("--fen", options->fen, "Position string (default: the start position)");
  command->add_option("--moves", options->moves,
                      "Moves separated by spaces (protocol or display form)");
  command->add_flag("--json", options->json, "Print one JSON object");
  command->callback([options] { RunShow(*options); });
}

}  // namespace vz::app
