#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/commands.h"
#include "engine/core/error.h"
#include "engine/registry.h"
#include "engine/search/search_params.h"
#include "engine/search/tree.h"
#include "serve/line_io.h"
#include "nets/shipped_nets.h"

namespace vz::app {
namespace {

struct SearchOptions {
  std::string variant;
  std::string fen;
  std::string moves;
  std::string evaluator;  // "" = net when --net is given, else uniform
  std::string net;
  std::string device = "cpu";
  int64_t simulations = 800;
  int64_t max_nodes = 0;
  double max_mib = 0.0;
  int playouts = 1;
  bool leaf_quiescence = false;
  bool gumbel = false;
  uint64_t seed = 0;
  bool json = false;
};

nlohmann::json WdlJson(const Wdl& wdl) {
  return {{"win", wdl.win}, {"draw", wdl.draw}, {"loss", wdl.loss}};
}

nlohmann::json OrNull(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

void PrintJson(const Variant& variant, const SearchReport& report) {
  nlohmann::json json;
  json["variant"] = std::string(variant.name());
  json["fen"] = report.fen;
  json["side_to_move"] = ColorName(report.side_to_move);
  json["status"] = StatusName(report.outcome.status);
  json["reason"] = report.outcome.IsTerminal() ? nlohmann::json(ReasonName(report.outcome.reason))
                                               : nlohmann::json(nullptr);
  json["best_move"] = OrNull(report.best_move);
  json["best_move_display"] = OrNull(report.best_move_display);
  json["root"] = {{"visits", report.root_visits},
                  {"q", report.root_q},
                  {"wdl", WdlJson(report.root_wdl)},
                  {"proven", OrNull(report.proven)},
                  {"proven_plies", report.proven.empty() ? nlohmann::json(nullptr)
                                                         : nlohmann::json(report.proven_plies)}};
  nlohmann::json moves = nlohmann::json::array();
  for (const SearchMoveReport& move : report.moves) {
    moves.push_back({{"move", move.move},
                     {"display", move.display},
                     {"action", move.action},
                     {"visits", move.visits},
                     {"prior", move.prior},
                     {"q", move.q},
                     {"wdl", WdlJson(move.wdl)},
                     {"policy_target", move.policy_target},
                     {"proven", OrNull(move.proven)},
                     {"proven_plies", move.proven.empty() ? nlohmann::json(nullptr)
                                                          : nlohmann::json(move.proven_plies)}});
  }
  json["moves"] = moves;
  json["pv"] = report.pv;
  json["pv_display"] = report.pv_display;
  json["simulations"] = report.simulations;
  json["nodes"] = report.nodes;
  json["node_cap_reached"] = report.node_cap_reached;
  json["tree_full"] = report.tree_full;
  json["time_ms"] = int64_t(report.seconds * 1000.0);
  fmt::print("{}\n", json.dump());
}

void PrintText(const SearchReport& report) {
  fmt::print("fen: {}\n", report.fen);
  fmt::print("side to move: {}\n", ColorName(report.side_to_move));
  if (report.outcome.IsTerminal()) {
    fmt::print("status: {} ({}); nothing to search\n", StatusName(report.outcome.status),
               ReasonName(report.outcome.reason));
    return;
  }
  fmt::print("best move: {} ({})\n", report.best_move, report.best_move_display);
  fmt::print("root: visits {} q {:+.3f} wdl {:.3f}/{:.3f}/{:.3f}", report.root_visits,
             report.root_q, report.root_wdl.win, report.root_wdl.draw, report.root_wdl.loss);
  if (!report.proven.empty())
    fmt::print(" proven {} in {} plies", report.proven, report.proven_plies);
  fmt::print("\n");
  fmt::print("{:<12} {:<12} {:>8} {:>7} {:>7} {:>6} {:>6} {:>6} {:>7}  {}\n", "move", "display",
             "visits", "prior", "q", "win", "draw", "loss", "target", "proven");
  for (const SearchMoveReport& move : report.moves) {
    std::string proven =
        move.proven.empty() ? "" : fmt::format("{} in {}", move.proven, move.proven_plies);
    fmt::print("{:<12} {:<12} {:>8} {:>7.4f} {:>+7.3f} {:>6.3f} {:>6.3f} {:>6.3f} {:>7.4f}  {}\n",
               move.move, move.display, move.visits, move.prior, move.q, move.wdl.win,
               move.wdl.draw, move.wdl.loss, move.policy_target, proven);
  }
  fmt::print("pv: {}\n", fmt::join(report.pv_display, " "));
  const double rate = report.seconds > 0 ? double(report.simulations) / report.seconds : 0.0;
  fmt::print("simulations {} nodes {} time_ms {} sims/s {}{}\n", report.simulations, report.nodes,
             int64_t(report.seconds * 1000.0), int64_t(rate),
             report.tree_full          ? " (tree full at the node cap: the search stopped early)"
             : report.node_cap_reached ? " (node cap reached: the tree stopped growing)"
                                       : "");
}

void RunSearch(const SearchOptions& options) {
  const bool no_net = nets::IsNoNet(options.net);
  if (no_net && options.evaluator == "net") {
    throw Error("--net " + options.net + " means no net, but --evaluator is net");
  }
  const std::string evaluator = !options.evaluator.empty()       ? options.evaluator
                                : options.net.empty() || no_net ? "uniform"
                                                                 : "net";
  if (evaluator != "net" && !options.net.empty() && !no_net) {
    throw Error("--net " + options.net + " is only used with --evaluator net (evaluator is '" +
                evaluator + "')");
  }
  const Variant& variant = FindVariant(options.variant);
  std::string net = options.net;
#if defined(VZ_HAVE_TORCH)
  if (evaluator == "net") {
    // No --net (or --net default): the shipped net of the game (nets/shipped_nets.h).
    if (nets::IsShippedNetRequest(net)) net = nets::RequireShippedNet(variant.name());
    std::fprintf(stderr, "vzero search: net %s\n", net.c_str());
  }
#endif
  SearchRequest request;
  request.fen = options.fen;
  request.moves = SplitWords(options.moves);
  request.evaluator = evaluator;
  request.net = net;
  request.device = options.device;
  request.simulations = options.simulations;
  request.rollout_playouts = options.playouts;
  request.leaf_quiescence = options.leaf_quiescence;
  request.params.gumbel = options.gumbel;
  request.params.seed = options.seed;
  if (options.max_nodes > 0) request.params.max_nodes = options.max_nodes;
  if (options.max_mib > 0.0) request.params.max_nodes = SearchTree::NodesForMiB(options.max_mib);
  SearchReport report = variant.Search(request);
  // The best move first (a proven win may have few visits), then most visited first (stable:
  // generation order among equals).
  std::stable_sort(report.moves.begin(), report.moves.end(),
                   [&report](const SearchMoveReport& a, const SearchMoveReport& b) {
                     const bool a_best = a.move == report.best_move;
                     const bool b_best = b.move == report.best_move;
                     if (a_best != b_best) return a_best;
                     return a.visits > b.visits;
                   });
  if (options.json) {
    PrintJson(variant, report);
  } else {
    PrintText(report);
  }
}

}  // namespace

void AddSearchCommand(CLI::App& app) {
  auto options = std::make_shared<SearchOptions>();
  CLI::App* command = app.add_subcommand(
      "search", "Monte Carlo tree search of a position: best move, root statistics and PV");
  command->add_option("--variant", options->variant, "Game name (see `vzero version`)")->required();
  command->add_option("--fen", options->fen, "Position string (default: the start position)");
  command->add_option("--moves", options->moves, "Moves played from the position, space-separated");
  command
      ->add_option("--evaluator", options->evaluator,
                   "Leaf evaluator: uniform (the default without --net), rollout, or net (the "
                   "default with --net; without it, the shipped net of the game, models/)")
      ->check(CLI::IsMember({"uniform", "rollout", "net"}));
  command->add_option("--net", options->net,
                      "Net file (evaluator net; default: the shipped net of the game)");
  command->add_option("--device", options->device, "cpu, cuda or cuda:N (evaluator net)");
  command->add_option("--simulations", options->simulations, "Simulations (default 800)")
      ->check(CLI::Range(int64_t{1}, kMaxSimulations));
  command->add_flag("--gumbel", options->gumbel, "Gumbel root search instead of PUCT at the root");
  command
      ->add_option("--seed", options->seed,
                   "Seed of the search and the rollouts, 0 to 2^64 - 1 (default 0)");
  command
      ->add_option("--max-nodes", options->max_nodes,
                   "Tree node cap (default 16M; raised to the root and its children)")
      ->check(CLI::Range(int64_t{1}, SearchTree::kMaxNodes));
  command
      ->add_option("--max-mib", options->max_mib, "Tree memory cap in MiB (instead of --max-nodes)")
      ->check(CLI::Range(0.001, 1e6))
      ->excludes("--max-nodes");
  command->add_flag("--leaf-quiescence", options->leaf_quiescence,
                    "Correct each leaf value by a capture search (tactical safety; uses the "
                    "alpha-beta piece values)");
  command->add_option("--playouts", options->playouts, "Playouts per leaf (rollout evaluator)")
      ->check(CLI::Range(1, 1000));
  command->add_flag("--json", options->json, "One JSON object instead of text");
  command->callback([options] { RunSearch(*options); });
}

}  // namespace vz::app
