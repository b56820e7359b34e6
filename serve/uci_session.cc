// The engine of one game behind the UCI protocol (serve/uci_session.h).

#include "serve/uci_session.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/games.h"
#include "engine/search/evaluator_registry.h"
#include "engine/search/mcts.h"
#include "engine/search/quiescence_evaluator.h"
#include "engine/search/rollout_evaluator.h"
#include "engine/search/search_driver.h"
#include "engine/search/search_params.h"
#include "nets/shipped_nets.h"

namespace vz {

int LeavesPerRound(const UciOptions& options, bool has_net) {
  if (options.minibatch > 0) return options.minibatch;
  if (has_net) return kNetLeavesPerRound;
  return options.threads <= 1 ? 1 : 4 * options.threads;
}

namespace {

// Interval between two periodic `info` lines of one search.
constexpr auto kInfoInterval = std::chrono::milliseconds(500);

template <Game G>
class GameSession final : public UciSession {
 public:
  using Position = typename G::Position;

  // Loads the net of `options.net_file` for G: the shipped net of G when it is empty, none for
  // "<none>" (nets/shipped_nets.h); on failure, or without a net, plays with rollouts. Says which
  // in an info string and on stderr.
  GameSession(const UciOptions& options, UciOutput& out) {
    std::string net_file;
    std::string message;
#if defined(VZ_HAVE_TORCH)
    const nets::NetChoice choice = nets::ResolveNet(options.net_file, G::kName);
    net_file = choice.file;
    message = choice.message;
#else
    if (!nets::IsNoNet(options.net_file) && !nets::IsShippedNetRequest(options.net_file)) {
      net_file = options.net_file;
    }
    if (net_file.empty()) {
      message = fmt::format("{}: this build has no nets: the rollout evaluator", G::kName);
    }
#endif
    if (!net_file.empty()) {
      try {
        evaluator_ = WithLeafQuiescence<G>(LoadNetEvaluator<G>(net_file, options.device),
                                           options.leaf_quiescence);
        has_net_ = true;
        message = fmt::format("NetFile {} loaded for {} on {}{}", net_file, G::kName,
                              options.device, options.leaf_quiescence ? ", leaf quiescence" : "");
      } catch (const std::exception& error) {
        message = fmt::format("error: NetFile {}: {}; playing with the rollout evaluator",
                              net_file, error.what());
      }
    }
    out.InfoString(message);
    fmt::print(stderr, "vzero uci: {}\n", message);
    if (!has_net_) {
      // Seeded per position: the value does not depend on the batch or its split over threads.
      auto rollouts = std::make_unique<RolloutEvaluator<G>>(
          /*seed=*/0, /*num_playouts=*/1, /*max_plies=*/400, options.threads);
      rollouts_ = rollouts.get();
      evaluator_ = std::move(rollouts);
    }
  }

  void SetPosition(const std::string& fen, const std::vector<std::string>& moves) override {
    GameState<G> game(fen.empty() ? G::InitialPosition() : G::ParsePosition(fen));
    PlayMoveStrings(game, moves);
    game_ = std::move(game);
  }

  void NewGame() override {
    search_.reset();
    game_ = GameState<G>();
    round_estimate_micros_ = 0;
  }

  std::string Describe() const override {
    const Position& position = game_.position();
    std::string text = G::BoardPicture(position);
    text += "Fen: " + G::FormatPosition(position) + "\n";
    text += std::string("Side to move: ") +
            (G::SideToMove(position) == Color::kWhite ? "white" : "black") + "\n";
    const Outcome outcome = game_.outcome();
    if (outcome.IsTerminal()) {
      text += fmt::format("Game over: {} ({})\n", StatusName(outcome.status),
                          ReasonName(outcome.reason));
    }
    text += "Legal moves:";
    for (Move move : game_.legal_moves()) text += " " + G::FormatMove(position, move);
    return text;
  }

  void Go(const GoLimits& limits, const UciOptions& options, const std::atomic<bool>& stop,
          UciOutput& out) override {
    // The clock runs from here: tree reuse below is part of the move's time.
    const auto start = std::chrono::steady_clock::now();
    const Position& root = game_.position();
    const Color side = G::SideToMove(root);
    TimeBudget budget;
    try {
      budget = AllocateTime(limits.time, side, TimeOptions{options.move_overhead_ms});
    } catch (const Error& error) {
      out.InfoString(std::string("error: go: ") + error.what() + "; searching without a clock");
    }
    TimeManager manager(budget, clock_, round_estimate_micros_);
    Configure(options);
    search_->SetRoot(game_);
    RestrictRootMoves(limits.search_moves, out);
    const Outcome outcome = search_->root_outcome();
    const bool wait_for_stop = limits.time.infinite || limits.ponder;
    if (outcome.IsTerminal() || search_->root_legal_moves().size == 0) {
      out.InfoString(fmt::format("the game is over: {} ({})", StatusName(outcome.status),
                                 ReasonName(outcome.reason)));
      WaitForStop(wait_for_stop, stop);
      out.Line("bestmove (none)");
      return;
    }
    const int64_t node_limit = limits.nodes > 0                    ? limits.nodes
                               : (budget.limited || wait_for_stop) ? kMaxSimulations
                                                                   : options.nodes;
    int64_t done = 0;
    auto next_info = start + kInfoInterval;
    Move best = search_->BestMove();
    auto best_changed = start;
    bool interrupted = false;
    for (int chunk_index = 0; !interrupted && done < node_limit; ++chunk_index) {
      if (stop.load() && RootHasMove()) break;
      const int64_t room =
          SearchTree::kMaxVisits - std::max<int32_t>(1, search_->tree().visits[SearchTree::kRoot]);
      int64_t chunk = std::min(node_limit - done, room);
      if (options.gumbel && node_limit == kMaxSimulations) {
        // Without a node budget, Gumbel's sequential halving runs as a series of complete
        // searches of growing size on the same tree (the last one may be cut short).
        chunk = std::min(chunk, options.nodes << std::min(chunk_index, 20));
      }
      if (chunk <= 0) break;
      search_->StartSearch(chunk, *evaluator_);
      while (!search_->Done()) {
        // `stop` takes effect once the root has been evaluated, so that there is a move to play.
        if (stop.load() && RootHasMove()) {
          interrupted = true;
          break;
        }
        const auto now = std::chrono::steady_clock::now();
        const bool unstable = now - best_changed < (now - start) / 4;
        if (!manager.ShouldStartRound(unstable)) {
          interrupted = true;
          break;
        }
        try {
          Mcts<G>* search = search_.get();
          driver_.RunRound(*evaluator_, std::span<Mcts<G>* const>(&search, 1));
        } catch (const std::exception& error) {
          // The driver has cancelled the leaves in flight; the tree is as before the round.
          out.InfoString(std::string("error: evaluator: ") + error.what());
          interrupted = true;
          break;
        }
        const Move current = search_->BestMove();
        if (current != best) {
          best = current;
          best_changed = std::chrono::steady_clock::now();
        }
        if (std::chrono::steady_clock::now() >= next_info) {
          PrintInfo(options, done + search_->simulations(), start, out);
          next_info = std::chrono::steady_clock::now() + kInfoInterval;
        }
      }
      done += search_->simulations();
      // A search that ended before its budget: proven root (or nothing left to do).
      if (!interrupted && search_->simulations() < chunk) break;
    }
    round_estimate_micros_ = manager.NextRoundEstimateMicros();
    if (search_->tree_full()) {
      out.InfoString(fmt::format("the tree is full ({} nodes, Hash {} MiB): search stopped",
                                 search_->num_nodes(), options.hash_mib));
    }
    WaitForStop(wait_for_stop, stop);
    const SearchResult result = PrintInfo(options, done, start, out);
    Move move = result.best_move;
    if (move == kNullMove) {
      // No time to evaluate even the root (remaining clock below the move overhead).
      move = allowed_.empty() ? search_->root_legal_moves()[0] : allowed_[0];
      out.InfoString("no time to search: playing the first legal move");
    }
    std::string line = "bestmove " + G::FormatMove(root, move);
    if (result.best_move != kNullMove && result.pv.size() >= 2) {
      Position next = root;
      G::ApplyMove(next, result.pv[0]);
      line += " ponder " + G::FormatMove(next, result.pv[1]);
    }
    out.Line(line);
  }

 private:
  // Restricts the search from the root to `moves` (protocol or display form; empty: every move).
  // A move that does not parse or is not legal at the root is reported in an info string and the
  // search then covers every move.
  void RestrictRootMoves(const std::vector<std::string>& moves, UciOutput& out) {
    allowed_.clear();
    std::string errors;
    for (const std::string& text : moves) {
      try {
        allowed_.push_back(G::ParseMove(game_.position(), text));
      } catch (const Error& error) {
        errors += (errors.empty() ? "" : "; ") + std::string(error.what());
      }
    }
    if (!errors.empty()) {
      out.InfoString("error: go searchmoves: " + errors + "; searching all moves");
      allowed_.clear();
    }
    try {
      search_->RestrictRootMoves(allowed_);
    } catch (const Error& error) {
      out.InfoString(std::string("error: go searchmoves: ") + error.what() +
                     "; searching all moves");
      allowed_.clear();
      search_->RestrictRootMoves(allowed_);
    }
  }

  // (Re)builds the search when its parameters changed (the tree is then lost).
  void Configure(const UciOptions& options) {
    SearchParams params;
    params.gumbel = options.gumbel;
    params.leaves_per_round = LeavesPerRound(options, has_net_);
    params.max_nodes = Mcts<G>::NodesForMiB(double(options.hash_mib));
    params.max_nodes = std::clamp(params.max_nodes, Mcts<G>::kMinNodes, SearchTree::kMaxNodes);
    if (rollouts_ != nullptr) rollouts_->set_threads(options.threads);
    if (search_ != nullptr && search_->params().gumbel == params.gumbel &&
        search_->params().leaves_per_round == params.leaves_per_round &&
        search_->params().max_nodes == params.max_nodes) {
      return;
    }
    search_ = std::make_unique<Mcts<G>>(params);
  }

  bool RootHasMove() const {
    const SearchTree& tree = search_->tree();
    return tree.visits[SearchTree::kRoot] > 0 &&
           tree.first_child[SearchTree::kRoot] != SearchTree::kNone;
  }

  static void WaitForStop(bool wait, const std::atomic<bool>& stop) {
    while (wait && !stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }

  // Prints one info line per MultiPV line (best move first, then by visits) and returns the
  // search result.
  SearchResult PrintInfo(const UciOptions& options, int64_t nodes,
                         std::chrono::steady_clock::time_point start, UciOutput& out) const {
    const SearchResult result = search_->Result();
    if (result.best_move == kNullMove) return result;
    const Position& root = search_->root_position();
    const Color side = G::SideToMove(root);
    const int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count();
    const int64_t nps = nodes * 1000 / std::max<int64_t>(1, ms);
    const int64_t hashfull = std::min<int64_t>(
        1000, result.nodes * 1000 / std::max<int64_t>(1, search_->params().max_nodes));
    std::vector<size_t> order;
    for (size_t i = 0; i < result.moves.size(); ++i) {
      const RootMoveStats& stats = result.moves[i];
      if (stats.move == result.best_move || stats.visits > 0 || stats.proven != Status::kOngoing) {
        order.push_back(i);
      }
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const bool a_best = result.moves[a].move == result.best_move;
      const bool b_best = result.moves[b].move == result.best_move;
      if (a_best != b_best) return a_best;
      return result.moves[a].visits > result.moves[b].visits;
    });
    order.resize(std::min(order.size(), size_t(std::max(1, options.multipv))));
    for (size_t line = 0; line < order.size(); ++line) {
      RootMoveStats stats = result.moves[order[line]];
      if (stats.visits == 0 && stats.proven == Status::kOngoing) {
        // A best move not visited yet (a search stopped at once on a kept tree): the root's view.
        stats.q = result.root_q;
        stats.wdl = result.root_wdl;
      }
      const std::vector<Move> pv =
          line > 0 || result.pv.empty() ? search_->PrincipalVariation(stats.move) : result.pv;
      std::string text = fmt::format("info depth {} multipv {} score {}", pv.size(), line + 1,
                                     ScoreText(stats, side));
      if (options.show_wdl) text += " " + WdlText(stats.wdl);
      text += fmt::format(" nodes {} nps {} hashfull {} time {} pv", nodes, nps, hashfull, ms);
      Position position = root;
      for (Move move : pv) {
        text += " " + G::FormatMove(position, move);
        G::ApplyMove(position, move);
      }
      out.Line(text);
    }
    return result;
  }

  GameState<G> game_;
  std::unique_ptr<Evaluator<G>> evaluator_;
  RolloutEvaluator<G>* rollouts_ = nullptr;  // evaluator_ when playing with rollouts
  bool has_net_ = false;
  std::unique_ptr<Mcts<G>> search_;
  std::vector<Move> allowed_;  // the root moves of the current `go` (empty: all)
  SearchDriver<G> driver_{/*timed=*/false};
  SteadyClock clock_;
  int64_t round_estimate_micros_ = 0;  // the previous search's NextRoundEstimateMicros
};

}  // namespace

std::unique_ptr<UciSession> MakeUciSession(const UciOptions& options, UciOutput& out) {
  std::unique_ptr<UciSession> session;
  WithGame(options.variant,
           [&]<Game G>() { session = std::make_unique<GameSession<G>>(options, out); });
  return session;
}

}  // namespace vz
