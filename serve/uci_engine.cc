// The UCI engine (serve/uci_engine.h): output writer, options, the per-game session (position,
// tree, evaluator, one search at a time) and the protocol's command handling.

#include "serve/uci_engine.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iostream>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/game_state.h"
#include "engine/games.h"
#include "engine/registry.h"
#include "engine/search/evaluator_registry.h"
#include "engine/search/mcts.h"
#include "engine/search/rollout_evaluator.h"
#include "engine/search/search_params.h"
#include "engine/search/time_manager.h"
#if defined(VZ_HAVE_TORCH)
#include "nets/net_runner.h"
#endif

namespace vz {
namespace {

// ---- Output ---------------------------------------------------------------------------------

// Writes whole lines to `out`, flushed, from any thread.
class Output {
 public:
  explicit Output(std::ostream& out) : out_(out) {}

  void Line(std::string_view line) {
    std::lock_guard<std::mutex> lock(mutex_);
    out_ << line << '\n';
    out_.flush();
  }
  // `info string TEXT`, with line breaks of TEXT turned into spaces (one protocol line).
  void InfoString(std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    std::replace(text.begin(), text.end(), '\r', ' ');
    Line("info string " + text);
  }

 private:
  std::ostream& out_;
  std::mutex mutex_;
};

// ---- Options --------------------------------------------------------------------------------

using EngineOptions = UciOptions;

constexpr int kMaxThreads = kUciMaxThreads;
constexpr int kMaxHashMib = kUciMaxHashMib;
constexpr int kMaxMinibatch = kUciMaxMinibatch;
constexpr int kMaxMultiPv = kUciMaxMultiPv;
constexpr int64_t kMaxMoveOverheadMs = kUciMaxMoveOverheadMs;
// Interval between two periodic `info` lines of one search.
constexpr auto kInfoInterval = std::chrono::milliseconds(500);

// Leaves per search round: MinibatchSize when set; else 16 with a net (batches for the network),
// 1 with rollouts on one thread (plain sequential MCTS) and 4 per thread with several.
int LeavesPerRound(const EngineOptions& options, bool has_net) {
  if (options.minibatch > 0) return options.minibatch;
  if (has_net) return 16;
  return options.threads <= 1 ? 1 : 4 * options.threads;
}

// ---- Limits of one `go` ---------------------------------------------------------------------

struct GoLimits {
  TimeControl time;
  int64_t nodes = 0;  // 0: not given
  bool ponder = false;
  std::vector<std::string> search_moves;  // `searchmoves`: the root moves to search (empty: all)
};

// Lc0's mapping of the expected score q in [-1, 1] to centipawns: 90 * tan(1.5637541897 * q),
// 89 cp at q = 0.5, 272 cp at q = 0.8 and +-12780 cp at q = +-1.
int QToCentipawns(float q) {
  const double clamped = std::clamp(double(q), -1.0, 1.0);
  return int(std::lround(90.0 * std::tan(1.5637541897 * clamped)));
}

// `score ...` of a root move: `mate N` (moves, not plies; negative when the side to move is
// mated) for a proven win or loss, `cp 0` for a proven draw, else cp from Q.
std::string ScoreText(const RootMoveStats& stats, Color side) {
  if (stats.proven == Status::kDraw) return "cp 0";
  if (stats.proven != Status::kOngoing) {
    const int plies = std::max(1, stats.proven_plies);
    if (stats.proven == WinFor(side)) return fmt::format("mate {}", (plies + 1) / 2);
    return fmt::format("mate -{}", std::max(1, plies / 2));
  }
  return fmt::format("cp {}", QToCentipawns(stats.q));
}

// `wdl W D L` in per mille, summing to 1000 (the draw takes the rounding).
std::string WdlText(const Wdl& wdl) {
  const int win = int(std::lround(std::clamp(wdl.win, 0.0f, 1.0f) * 1000.0f));
  const int loss = int(std::lround(std::clamp(wdl.loss, 0.0f, 1.0f) * 1000.0f));
  const int draw = std::max(0, 1000 - win - loss);
  return fmt::format("wdl {} {} {}", win, draw, 1000 - win - draw);
}

// ---- Parallel rollouts ----------------------------------------------------------------------

// RolloutEvaluator over `threads` threads: a batch is split into contiguous slices, each evaluated
// on its own thread into its own batch. Every playout is seeded from the position alone, so the
// results equal a one-thread evaluation of the whole batch.
template <Game G>
class ParallelRolloutEvaluator final : public Evaluator<G> {
 public:
  explicit ParallelRolloutEvaluator(int threads) : threads_(std::max(1, threads)) {}

  void set_threads(int threads) { threads_ = std::max(1, threads); }

  void Evaluate(EvalBatch<G>& batch) override {
    const int n = batch.size();
    const int workers = std::min(threads_, n);
    if (workers <= 1) {
      RolloutEvaluator<G>(kSeed).Evaluate(batch);
      return;
    }
    parts_.resize(size_t(workers));
    std::vector<int> begin(size_t(workers) + 1);
    for (int w = 0; w <= workers; ++w) begin[size_t(w)] = int(int64_t(n) * w / workers);
    for (int w = 0; w < workers; ++w) {
      EvalBatch<G>& part = parts_[size_t(w)];
      part.Clear();
      for (int i = begin[size_t(w)]; i < begin[size_t(w) + 1]; ++i) {
        part.Add(batch.position(i), batch.moves(i).data(), batch.num_moves(i),
                 batch.repetition_count(i));
      }
    }
    // A failure in any part is rethrown here after every thread has been joined.
    std::vector<std::exception_ptr> failures(static_cast<size_t>(workers));
    auto evaluate = [this, &failures](int w) {
      try {
        RolloutEvaluator<G>(kSeed).Evaluate(parts_[size_t(w)]);
      } catch (...) {
        failures[size_t(w)] = std::current_exception();
      }
    };
    std::vector<std::thread> pool;
    for (int w = 1; w < workers; ++w) pool.emplace_back(evaluate, w);
    evaluate(0);
    for (std::thread& thread : pool) thread.join();
    for (const std::exception_ptr& failure : failures) {
      if (failure) std::rethrow_exception(failure);
    }
    for (int w = 0; w < workers; ++w) {
      EvalBatch<G>& part = parts_[size_t(w)];
      for (int k = 0; k < part.size(); ++k) {
        const int i = begin[size_t(w)] + k;
        std::copy(part.priors(k).begin(), part.priors(k).end(), batch.priors(i).begin());
        batch.value(i) = part.value(k);
      }
    }
  }

 private:
  static constexpr uint64_t kSeed = 0;
  int threads_;
  std::vector<EvalBatch<G>> parts_;  // [worker]
};

// ---- The engine of one game -----------------------------------------------------------------

// Position, search tree and evaluator of the game being played. The caller's thread and the search
// thread never use it at the same time (Handle joins the search first).
class Session {
 public:
  virtual ~Session() = default;
  // Sets the position to `fen` (empty: the start position) followed by `moves` (protocol or
  // display form). Throws vz::Error naming the bad FEN or the bad move; the position is then
  // unchanged.
  virtual void SetPosition(const std::string& fen, const std::vector<std::string>& moves) = 0;
  // Forgets the tree (and the position).
  virtual void NewGame() = 0;
  // The `d` listing: board picture, FEN, side to move, legal moves.
  virtual std::string Describe() const = 0;
  // Searches the current position under `limits` until done or `stop`, printing info lines and
  // then `bestmove` on `out`. Never throws (an evaluator failure is reported in an info string
  // and the move found so far is played).
  virtual void Go(const GoLimits& limits, const EngineOptions& options,
                  const std::atomic<bool>& stop, Output& out) = 0;
};

template <Game G>
class GameSession final : public Session {
 public:
  using Position = typename G::Position;

  // Loads the net of `options.net_file` (if any) for G; on failure, or without a net, plays with
  // rollouts. Says which in an info string.
  GameSession(const EngineOptions& options, Output& out) {
    if (!options.net_file.empty()) {
      try {
        evaluator_ = LoadNetEvaluator<G>(options.net_file, options.device);
        has_net_ = true;
        out.InfoString(fmt::format("NetFile {} loaded for {} on {}", options.net_file, G::kName,
                                   options.device));
      } catch (const std::exception& error) {
        out.InfoString(fmt::format("error: NetFile {}: {}; playing with the rollout evaluator",
                                   options.net_file, error.what()));
      }
    } else {
      out.InfoString(fmt::format(
          "no NetFile: {} plays with the rollout evaluator (random playouts, uniform priors)",
          G::kName));
    }
    if (!has_net_) {
      rollouts_ = new ParallelRolloutEvaluator<G>(options.threads);
      evaluator_.reset(rollouts_);
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

  void Go(const GoLimits& limits, const EngineOptions& options, const std::atomic<bool>& stop,
          Output& out) override {
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
      search_->StartSearch(chunk);
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
        batch_.Clear();
        search_->GatherLeaves(batch_);
        try {
          if (batch_.size() > 0) evaluator_->Evaluate(batch_);
        } catch (const std::exception& error) {
          search_->CancelPending();
          out.InfoString(std::string("error: evaluator: ") + error.what());
          interrupted = true;
          break;
        }
        search_->ApplyEvaluations(batch_);
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
    round_estimate_micros_ = manager.LongestRecentRoundMicros();
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
  void RestrictRootMoves(const std::vector<std::string>& moves, Output& out) {
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
  void Configure(const EngineOptions& options) {
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

  // The principal variation from root child `child`: its move, then the most visited child at
  // each node (Result().pv is used for the best move, which follows the search's own choice).
  std::vector<Move> PvFrom(int32_t child) const {
    const SearchTree& tree = search_->tree();
    std::vector<Move> pv = {tree.move[child]};
    for (int32_t node = child;;) {
      const int32_t first = tree.first_child[node];
      if (first == SearchTree::kNone) break;
      int32_t best = SearchTree::kNone;
      for (int i = 0; i < tree.num_children[node]; ++i) {
        if (tree.visits[first + i] > 0 &&
            (best == SearchTree::kNone || tree.visits[first + i] > tree.visits[best])) {
          best = first + i;
        }
      }
      if (best == SearchTree::kNone) break;
      pv.push_back(tree.move[best]);
      node = best;
    }
    return pv;
  }

  // Prints one info line per MultiPV line (best move first, then by visits) and returns the
  // search result.
  SearchResult PrintInfo(const EngineOptions& options, int64_t nodes,
                         std::chrono::steady_clock::time_point start, Output& out) const {
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
    const SearchTree& tree = search_->tree();
    for (size_t line = 0; line < order.size(); ++line) {
      RootMoveStats stats = result.moves[order[line]];
      if (stats.visits == 0 && stats.proven == Status::kOngoing) {
        // A best move not visited yet (a search stopped at once on a kept tree): the root's view.
        stats.q = result.root_q;
        stats.wdl = result.root_wdl;
      }
      std::vector<Move> pv = result.pv;
      if (line > 0 || pv.empty()) {
        for (int i = 0; i < tree.num_children[SearchTree::kRoot]; ++i) {
          const int32_t child = tree.first_child[SearchTree::kRoot] + i;
          if (tree.move[child] == stats.move) pv = PvFrom(child);
        }
      }
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
  ParallelRolloutEvaluator<G>* rollouts_ = nullptr;  // evaluator_ when playing with rollouts
  bool has_net_ = false;
  std::unique_ptr<Mcts<G>> search_;
  std::vector<Move> allowed_;  // the root moves of the current `go` (empty: all)
  EvalBatch<G> batch_;
  SteadyClock clock_;
  int64_t round_estimate_micros_ = 0;  // longest recent round of the previous search
};

std::unique_ptr<Session> MakeSession(const EngineOptions& options, Output& out) {
  std::unique_ptr<Session> session;
  WithGame(options.variant,
           [&]<Game G>() { session = std::make_unique<GameSession<G>>(options, out); });
  return session;
}

// ---- Protocol -------------------------------------------------------------------------------

std::vector<std::string> SplitWords(std::string_view line) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) words.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return words;
}

std::string Join(const std::vector<std::string>& words, size_t begin, size_t end) {
  std::string text;
  for (size_t i = begin; i < end && i < words.size(); ++i) {
    text += (text.empty() ? "" : " ") + words[i];
  }
  return text;
}

std::string Lower(std::string text) {
  for (char& c : text) c = char(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The integer `text` in [low, high]. Throws vz::Error naming `what` otherwise.
int64_t ParseInteger(const std::string& text, int64_t low, int64_t high, const std::string& what) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || ptr != end || value < low || value > high) {
    throw Error(fmt::format("{} '{}' is not an integer in [{}, {}]", what, text, low, high));
  }
  return value;
}

bool ParseCheck(const std::string& text, const std::string& what) {
  const std::string lower = Lower(text);
  if (lower == "true") return true;
  if (lower == "false") return false;
  throw Error(fmt::format("{} '{}' is not true or false", what, text));
}

}  // namespace

class UciEngine::Impl {
 public:
  Impl(const EngineOptions& options, std::ostream& out, bool threads_given)
      : options_(options), defaults_(options), out_(out) {
    FindVariant(options.variant);  // an unknown variant fails before the protocol starts
    if (threads_given) ApplyThreads();
  }

  ~Impl() { StopSearch(/*stop=*/true); }

  // At the end of the input: waits for a search with limits, stops an open-ended one.
  void Finish() { StopSearch(/*stop=*/open_ended_); }

  // Handles one input line; false after `quit`.
  bool Handle(std::string_view line) {
    std::vector<std::string> words = SplitWords(line);
    // Unknown leading tokens are skipped, the rest of the line is parsed (as the protocol asks).
    size_t first = 0;
    while (first < words.size() && !IsCommand(words[first])) ++first;
    if (first == words.size()) return true;
    words.erase(words.begin(), words.begin() + std::ptrdiff_t(first));
    const std::string& command = words[0];
    try {
      if (command == "quit") {
        StopSearch(/*stop=*/true);
        return false;
      }
      if (command == "isready") {
        if (!searching_) EnsureSession();
        out_.Line("readyok");
      } else if (command == "stop" || command == "ponderhit") {
        StopSearch(/*stop=*/true);
      } else if (command == "uci") {
        PrintId();
      } else if (command == "debug" || command == "register") {
        // Accepted and ignored: no debug output, no registration.
      } else {
        // A search with limits is waited for; one that would never end (infinite, ponder) is
        // stopped.
        StopSearch(/*stop=*/open_ended_);
        if (command == "setoption") {
          SetOption(words);
        } else if (command == "ucinewgame") {
          EnsureSession();
          session_->NewGame();
          fen_.clear();
          moves_.clear();
        } else if (command == "position") {
          PositionCommand(words);
        } else if (command == "go") {
          GoCommand(words);
        } else if (command == "d") {
          EnsureSession();
          out_.Line(session_->Describe());
        }
      }
    } catch (const std::exception& error) {
      out_.InfoString(std::string("error: ") + command + ": " + error.what());
    }
    return true;
  }

 private:
  static bool IsCommand(const std::string& word) {
    static const char* const kCommands[] = {"uci",      "debug",      "isready",  "setoption",
                                            "register", "ucinewgame", "position", "go",
                                            "stop",     "ponderhit",  "quit",     "d"};
    return std::any_of(std::begin(kCommands), std::end(kCommands),
                       [&](const char* name) { return word == name; });
  }

  static bool IsGoKeyword(const std::string& word) {
    static const char* const kKeywords[] = {"wtime",     "btime",    "winc",     "binc",
                                            "movestogo", "movetime", "nodes",    "depth",
                                            "mate",      "ponder",   "infinite", "searchmoves"};
    return std::any_of(std::begin(kKeywords), std::end(kKeywords),
                       [&](const char* name) { return word == name; });
  }

  void PrintId() {
    out_.Line(std::string("id name vzero ") + VZ_VERSION);
    out_.Line("id author the vzero developers");
    std::string variants;
    for (const Variant* variant : AllVariants()) variants += " var " + std::string(variant->name());
    out_.Line(fmt::format("option name UCI_Variant type combo default {}{}", defaults_.variant,
                          variants));
    out_.Line(fmt::format("option name NetFile type string default {}",
                          defaults_.net_file.empty() ? "<empty>" : defaults_.net_file));
    out_.Line(fmt::format("option name Device type string default {}", defaults_.device));
    out_.Line(fmt::format("option name Threads type spin default {} min 1 max {}",
                          defaults_.threads, kMaxThreads));
    out_.Line(fmt::format("option name Hash type spin default {} min 1 max {}", defaults_.hash_mib,
                          kMaxHashMib));
    out_.Line(fmt::format("option name Nodes type spin default {} min 1 max {}", defaults_.nodes,
                          kMaxSimulations));
    out_.Line(fmt::format("option name MinibatchSize type spin default {} min 0 max {}",
                          defaults_.minibatch, kMaxMinibatch));
    out_.Line(fmt::format("option name MultiPV type spin default {} min 1 max {}",
                          defaults_.multipv, kMaxMultiPv));
    out_.Line(fmt::format("option name UCI_ShowWDL type check default {}", defaults_.show_wdl));
    out_.Line(fmt::format("option name Gumbel type check default {}", defaults_.gumbel));
    out_.Line(fmt::format("option name Move Overhead type spin default {} min 0 max {}",
                          defaults_.move_overhead_ms, kMaxMoveOverheadMs));
    out_.Line("uciok");
  }

  // setoption name NAME [value VALUE]; names are case-insensitive and may hold spaces.
  void SetOption(const std::vector<std::string>& words) {
    size_t name_at = 1;
    if (name_at >= words.size() || Lower(words[name_at]) != "name") {
      throw Error("expected 'setoption name NAME [value VALUE]'");
    }
    size_t value_at = name_at + 1;
    while (value_at < words.size() && Lower(words[value_at]) != "value") ++value_at;
    const std::string name = Join(words, name_at + 1, value_at);
    const std::string value = Join(words, value_at + 1, words.size());
    const std::string key = Lower(name);
    const std::string what = "option " + name + " value";
    if (key == "uci_variant") {
      const std::string start = FindVariant(value).StartFen();  // throws, listing the games
      options_.variant = value;
      session_.reset();
      fen_.clear();
      moves_.clear();
      out_.InfoString(fmt::format("variant {} startpos {}", value, start));
    } else if (key == "netfile") {
      const std::string file = value == "<empty>" ? "" : value;
      if (file != options_.net_file) session_.reset();
      options_.net_file = file;
    } else if (key == "device") {
      if (value.empty()) throw Error(what + " is empty");
      if (value != options_.device) session_.reset();
      options_.device = value;
    } else if (key == "threads") {
      options_.threads = int(ParseInteger(value, 1, kMaxThreads, what));
      ApplyThreads();
    } else if (key == "hash") {
      options_.hash_mib = int(ParseInteger(value, 1, kMaxHashMib, what));
    } else if (key == "nodes") {
      options_.nodes = ParseInteger(value, 1, kMaxSimulations, what);
    } else if (key == "minibatchsize") {
      options_.minibatch = int(ParseInteger(value, 0, kMaxMinibatch, what));
    } else if (key == "multipv") {
      options_.multipv = int(ParseInteger(value, 1, kMaxMultiPv, what));
    } else if (key == "uci_showwdl") {
      options_.show_wdl = ParseCheck(value, what);
    } else if (key == "gumbel") {
      options_.gumbel = ParseCheck(value, what);
    } else if (key == "move overhead") {
      options_.move_overhead_ms = ParseInteger(value, 0, kMaxMoveOverheadMs, what);
    } else {
      throw Error("unknown option '" + name + "'");
    }
  }

  void ApplyThreads() {
#if defined(VZ_HAVE_TORCH)
    nets::SetCpuThreads(options_.threads);
#endif
  }

  // Builds the session of the current variant if there is none, with the last position.
  void EnsureSession() {
    if (session_ != nullptr) return;
    session_ = MakeSession(options_, out_);
    if (!fen_.empty() || !moves_.empty()) {
      try {
        session_->SetPosition(fen_, moves_);
      } catch (const Error&) {
        fen_.clear();
        moves_.clear();
      }
    }
  }

  // position startpos|fen FEN [moves M...]
  void PositionCommand(const std::vector<std::string>& words) {
    EnsureSession();
    std::string fen;
    size_t moves_at = 0;
    if (words.size() >= 2 && words[1] == "startpos") {
      moves_at = 2;
    } else if (words.size() >= 2 && words[1] == "fen") {
      moves_at = 2;
      while (moves_at < words.size() && words[moves_at] != "moves") ++moves_at;
      fen = Join(words, 2, moves_at);
      if (fen.empty()) throw Error("'fen' without a position string; position unchanged");
    } else {
      throw Error("expected 'position startpos|fen FEN [moves ...]'; position unchanged");
    }
    std::vector<std::string> moves;
    if (moves_at < words.size()) {
      if (words[moves_at] != "moves") {
        throw Error("unexpected '" + words[moves_at] + "' (expected 'moves'); position unchanged");
      }
      moves.assign(words.begin() + std::ptrdiff_t(moves_at) + 1, words.end());
    }
    try {
      session_->SetPosition(fen, moves);
    } catch (const Error& error) {
      throw Error(std::string(error.what()) + "; position unchanged");
    }
    fen_ = fen;
    moves_ = std::move(moves);
  }

  // go [wtime T] [btime T] [winc T] [binc T] [movestogo N] [movetime T] [nodes N] [infinite]
  // [ponder] [depth D] [mate N] [searchmoves M...]; depth and mate are ignored. The moves of
  // searchmoves run to the next keyword or the end of the line.
  void GoCommand(const std::vector<std::string>& words) {
    EnsureSession();
    GoLimits limits;
    for (size_t i = 1; i < words.size(); ++i) {
      const std::string& word = words[i];
      // The value after `word`, at least `low`; -1 (with an info string) when it is missing or
      // not a number: a `go` always searches and answers bestmove.
      auto number = [&](int64_t low) -> int64_t {
        if (i + 1 >= words.size()) {
          out_.InfoString("error: go: '" + word + "' without a value; ignored");
          return -1;
        }
        const std::string& text = words[++i];
        try {
          return std::max(low, ParseInteger(text, std::numeric_limits<int64_t>::min() / 4,
                                            std::numeric_limits<int64_t>::max() / 4, "go " + word));
        } catch (const Error& error) {
          out_.InfoString(std::string("error: ") + error.what() + "; ignored");
          return -1;
        }
      };
      if (word == "wtime") {
        const int64_t value = number(0);
        if (value >= 0) limits.time.white_ms = value;
      } else if (word == "btime") {
        const int64_t value = number(0);
        if (value >= 0) limits.time.black_ms = value;
      } else if (word == "winc") {
        limits.time.white_increment_ms = std::max<int64_t>(0, number(0));
      } else if (word == "binc") {
        limits.time.black_increment_ms = std::max<int64_t>(0, number(0));
      } else if (word == "movestogo") {
        limits.time.moves_to_go = int(std::clamp<int64_t>(number(0), 0, 1000000));
      } else if (word == "movetime") {
        const int64_t value = number(0);
        if (value >= 0) limits.time.move_time_ms = value;
      } else if (word == "nodes") {
        limits.nodes = std::min<int64_t>(std::max<int64_t>(0, number(0)), kMaxSimulations);
      } else if (word == "depth" || word == "mate") {
        number(0);
      } else if (word == "infinite") {
        limits.time.infinite = true;
      } else if (word == "ponder") {
        limits.ponder = true;
      } else if (word == "searchmoves") {
        while (i + 1 < words.size() && !IsGoKeyword(words[i + 1])) {
          limits.search_moves.push_back(words[++i]);
        }
      }
      // Unknown tokens: ignored.
    }
    stop_.store(false);
    searching_ = true;
    open_ended_ = limits.time.infinite || limits.ponder;
    Session* session = session_.get();
    const EngineOptions options = options_;
    search_thread_ = std::thread([this, session, limits, options] {
      try {
        session->Go(limits, options, stop_, out_);
      } catch (const std::exception& error) {
        // Go reports evaluator failures itself; this is the last resort (e.g. out of memory),
        // so that the GUI still gets its bestmove.
        out_.InfoString(std::string("error: go: ") + error.what());
        out_.Line("bestmove (none)");
      }
    });
  }

  // Ends the running search, if any: stops it when `stop`, else waits for it to finish; joins
  // the search thread (its bestmove has then been printed).
  void StopSearch(bool stop) {
    if (!searching_) return;
    if (stop) stop_.store(true);
    search_thread_.join();
    searching_ = false;
  }

  EngineOptions options_;
  const EngineOptions defaults_;  // the values `uci` lists as defaults (command line included)
  Output out_;
  std::unique_ptr<Session> session_;
  std::string fen_;                 // the last position set: FEN (empty: start position)
  std::vector<std::string> moves_;  // and moves
  std::atomic<bool> stop_{false};
  bool searching_ = false;
  bool open_ended_ = false;  // the running search waits for `stop` (go infinite, go ponder)
  std::thread search_thread_;
};

UciEngine::UciEngine(const UciOptions& options, std::ostream& out, bool threads_given)
    : impl_(std::make_unique<Impl>(options, out, threads_given)) {}

UciEngine::~UciEngine() = default;

bool UciEngine::Handle(std::string_view line) { return impl_->Handle(line); }

void UciEngine::Finish() { impl_->Finish(); }

void UciEngine::Run(std::istream& in) {
  std::string line;
  while (std::getline(in, line)) {
    if (!impl_->Handle(line)) return;
  }
  impl_->Finish();
}

}  // namespace vz
