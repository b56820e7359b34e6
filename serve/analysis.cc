// The JSON-lines analysis engine (serve/analysis.h); format in docs/analysis.md, modelled on
// KataGo's analysis engine (field names camelCase as there: id, moves, analyzeTurns, maxVisits,
// includePolicy, includePVVisits, reportDuringSearchEvery, moveInfos, rootInfo, turnNumber).

#include "serve/analysis.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
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
#include "engine/search/search_report.h"
#include "serve/line_io.h"

namespace vz {
namespace {

// Insertion-ordered objects, so that every answer starts with its id.
using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

// A fault of one input line: the field it concerns ("" for the line as a whole) and the message.
class QueryError : public Error {
 public:
  QueryError(std::string field, const std::string& message)
      : Error(message), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// The fields of an analysis query and of each action; anything else draws a warning.
const std::set<std::string, std::less<>> kQueryFields = {
    "id",        "variant",     "position",      "moves",           "analyzeTurns",
    "maxVisits", "simulations", "includePolicy", "includePVVisits", "reportDuringSearchEvery",
    "seed",      "gumbel"};
const std::set<std::string, std::less<>> kTerminateFields = {"id", "action", "terminateId",
                                                             "turnNumbers"};
const std::set<std::string, std::less<>> kTerminateAllFields = {"id", "action", "turnNumbers"};
const std::set<std::string, std::less<>> kVersionFields = {"id", "action"};

// `value` in JSON, cut to about 40 characters for messages.
std::string Shown(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

// A float rounded to 6 decimals, so that 0.3f prints as 0.3 and not 0.30000001192092896.
double Rounded(float value) {
  if (!std::isfinite(value)) return 0.0;
  return std::round(double(value) * 1e6) / 1e6 + 0.0;
}

Json WdlJson(const Wdl& wdl) {
  return {{"win", Rounded(wdl.win)}, {"draw", Rounded(wdl.draw)}, {"loss", Rounded(wdl.loss)}};
}

bool GetBool(const Json& query, const char* field, bool fallback) {
  const auto it = query.find(field);
  if (it == query.end()) return fallback;
  if (!it->is_boolean()) {
    throw QueryError(field, std::string(field) + " must be true or false, not " + Shown(*it));
  }
  return it->get<bool>();
}

// An integer field in [low, high].
int64_t GetInt(const Json& query, const char* field, int64_t fallback, int64_t low, int64_t high) {
  const auto it = query.find(field);
  if (it == query.end()) return fallback;
  const std::string range = " [" + std::to_string(low) + ", " + std::to_string(high) + "]";
  if (!it->is_number_integer()) {
    throw QueryError(field,
                     std::string(field) + " must be an integer in" + range + ", not " + Shown(*it));
  }
  if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(high)) {
    throw QueryError(field, std::string(field) + " " + Shown(*it) + " is outside" + range);
  }
  const int64_t value = it->get<int64_t>();
  if (value < low || value > high) {
    throw QueryError(field,
                     std::string(field) + " " + std::to_string(value) + " is outside" + range);
  }
  return value;
}

// A list of turn numbers (analyzeTurns, turnNumbers), each in [0, max_turn], none twice.
std::vector<int> GetTurns(const Json& value, const char* field, int max_turn) {
  if (!value.is_array()) {
    throw QueryError(field,
                     std::string(field) + " must be a list of turn numbers, not " + Shown(value));
  }
  if (value.empty()) throw QueryError(field, std::string(field) + " is empty");
  std::vector<int> turns;
  std::set<int> seen;
  for (size_t i = 0; i < value.size(); ++i) {
    const Json& turn = value[i];
    const std::string where = std::string(field) + "[" + std::to_string(i) + "]";
    if (!turn.is_number_integer()) {
      throw QueryError(field, where + " must be an integer, not " + Shown(turn));
    }
    if (turn.is_number_unsigned() ? turn.get<uint64_t>() > uint64_t(max_turn)
                                  : (turn.get<int64_t>() < 0 || turn.get<int64_t>() > max_turn)) {
      throw QueryError(field, where + ": turn " + Shown(turn) + " is outside 0.." +
                                  std::to_string(max_turn) + " (turn t is the position after " +
                                  "the first t moves; the query has " + std::to_string(max_turn) +
                                  " moves)");
    }
    const int t = turn.get<int>();
    if (!seen.insert(t).second) {
      throw QueryError(field, where + ": turn " + std::to_string(t) + " is given twice");
    }
    turns.push_back(t);
  }
  return turns;
}

// The id of an action line: absent (null) or a string.
Json ActionId(const Json& line) {
  const auto it = line.find("id");
  if (it == line.end()) return nullptr;
  if (!it->is_string()) throw QueryError("id", "id must be a string, not " + Shown(*it));
  return *it;
}

// A parsed and type-checked analysis query (the game-independent part).
struct Query {
  Json id;                         // a string
  std::string variant;             // registry name
  std::string position;            // "" or "startpos": the start position
  std::vector<std::string> moves;  // protocol or display form
  std::vector<int> turns;          // [analysed turn] in the order given, each in [0, moves]
  int64_t simulations = 0;
  bool include_policy = false;
  bool include_pv_visits = false;
  double report_every = 0.0;  // seconds; 0: no during-search reports
  uint64_t seed = 0;
  bool gumbel = false;
};

// Everything the games share: the config, the output and the counters.
struct Shared {
  AnalysisConfig config;
  std::function<void(const std::string&)> sink;
  int64_t evaluator_calls = 0;
  int64_t positions_evaluated = 0;
  int largest_batch = 0;
  int64_t sequence = 0;  // arrival number of the next turn analysis

  void Emit(const Json& line) const {
    sink(line.dump(-1, ' ', false, Json::error_handler_t::replace));
  }
  void EmitError(const Json& id, const std::string& field, const std::string& message) const {
    Json line = {{"id", id}, {"error", message}};
    if (!field.empty()) line["field"] = field;
    Emit(line);
  }
};

// The analyses of one game: waiting and active turn analyses and the game's evaluator.
class GameAnalysisBase {
 public:
  virtual ~GameAnalysisBase() = default;
  virtual std::string_view name() const = 0;
  virtual const std::string& kind() const = 0;
  // Validates the game-specific part of `query` (position, moves, turns) and queues its turns.
  // Throws QueryError naming the field.
  virtual void Enqueue(const std::shared_ptr<const Query>& query) = 0;
  virtual int active() const = 0;
  virtual int waiting() const = 0;
  // Arrival number of the first waiting turn; max() when none waits.
  virtual int64_t NextWaiting() const = 0;
  // Starts the first waiting turn's search.
  virtual void ActivateNext(Clock::time_point now) = 0;
  // One lockstep round over the active searches, then the finished and due reports.
  virtual void Round(Clock::time_point now) = 0;
  // Ends the turn analyses of query `id` (any id when `all`), only turns in `turns` when given;
  // answers each with its result so far. Returns how many were ended.
  virtual int Terminate(const Json& id, bool all, const std::set<int>* turns) = 0;
};

template <Game G>
class GameAnalysis final : public GameAnalysisBase {
 public:
  GameAnalysis(Shared& shared, std::unique_ptr<Evaluator<G>> evaluator, std::string kind,
               int leaves_per_search)
      : shared_(shared),
        evaluator_(std::move(evaluator)),
        kind_(std::move(kind)),
        leaves_per_search_(leaves_per_search) {}

  std::string_view name() const override { return G::kName; }
  const std::string& kind() const override { return kind_; }
  int active() const override { return int(active_.size()); }
  int waiting() const override { return int(waiting_.size()); }
  int64_t NextWaiting() const override {
    return waiting_.empty() ? std::numeric_limits<int64_t>::max() : waiting_.front()->sequence;
  }

  void Enqueue(const std::shared_ptr<const Query>& query) override {
    typename G::Position start;
    if (query->position.empty() || query->position == "startpos") {
      start = G::InitialPosition();
    } else {
      try {
        start = G::ParsePosition(query->position);
      } catch (const Error& e) {
        throw QueryError("position", std::string("position: ") + e.what());
      }
    }
    GameState<G> game(start);
    std::map<int, GameState<G>> at_turn;
    auto keep = [&](int turn) {
      if (std::find(query->turns.begin(), query->turns.end(), turn) != query->turns.end()) {
        at_turn.emplace(turn, game);
      }
    };
    keep(0);
    for (size_t i = 0; i < query->moves.size(); ++i) {
      try {
        game.Play(query->moves[i]);
      } catch (const Error& e) {
        throw QueryError("moves", "moves[" + std::to_string(i) + "] (move " +
                                      std::to_string(i + 1) + "): " + e.what());
      }
      keep(int(i) + 1);
    }
    for (int turn : query->turns) {
      auto task = std::make_unique<Task>();
      task->query = query;
      task->turn = turn;
      task->sequence = shared_.sequence++;
      task->state = at_turn.at(turn);
      waiting_.push_back(std::move(task));
    }
  }

  void ActivateNext(Clock::time_point now) override {
    std::unique_ptr<Task> task = std::move(waiting_.front());
    waiting_.pop_front();
    SearchParams params;
    params.seed = task->query->seed;
    params.gumbel = task->query->gumbel;
    params.max_nodes = shared_.config.max_nodes;
    params.leaves_per_round = leaves_per_search_;
    task->search = std::make_unique<Mcts<G>>(params);
    task->search->SetRoot(task->state);
    task->search->StartSearch(task->query->simulations, *evaluator_);
    task->next_report = now + ReportInterval(*task);
    active_.push_back(std::move(task));
  }

  void Round(Clock::time_point now) override {
    if (active_.empty()) return;
    const size_t n = active_.size();
    searches_.clear();
    was_searching_.clear();
    for (size_t k = 0; k < n; ++k) {
      Mcts<G>* search = active_[(rotation_ + k) % n]->search.get();
      searches_.push_back(search);
      was_searching_.push_back(!search->Done());
    }
    int evaluated = 0;
    try {
      // Throws on an evaluator failure or a non-finite evaluation, every leaf cancelled: every
      // turn of the round fails with it.
      evaluated = driver_.RunRound(*evaluator_, searches_, shared_.config.max_batch);
    } catch (const std::exception& e) {
      for (size_t k = 0; k < driver_.last_scanned(); ++k) {
        Task& task = *active_[(rotation_ + k) % n];
        if (!was_searching_[k]) continue;
        shared_.EmitError(task.query->id, "",
                          "turn " + std::to_string(task.turn) + ": the " + kind_ +
                              " evaluator failed: " + e.what());
        task.failed = true;
      }
      std::erase_if(active_, [](const std::unique_ptr<Task>& task) { return task->failed; });
      rotation_ = 0;
      return;
    }
    rotation_ = (rotation_ + driver_.last_scanned()) % n;
    if (evaluated > 0) {
      ++shared_.evaluator_calls;
      shared_.positions_evaluated += evaluated;
      shared_.largest_batch = std::max(shared_.largest_batch, evaluated);
    }
    for (std::unique_ptr<Task>& task : active_) {
      if (task->search->Done()) {
        shared_.Emit(ResultJson(*task, /*during_search=*/false));
        task->finished = true;
      } else if (task->query->report_every > 0.0 && now >= task->next_report &&
                 task->search->tree().visits[SearchTree::kRoot] > 0) {
        shared_.Emit(ResultJson(*task, /*during_search=*/true));
        task->next_report = now + ReportInterval(*task);
      }
    }
    if (std::erase_if(active_, [](const std::unique_ptr<Task>& task) { return task->finished; })) {
      rotation_ = 0;
    }
  }

  int Terminate(const Json& id, bool all, const std::set<int>* turns) override {
    int count = 0;
    auto matches = [&](const Task& task) {
      return (all || task.query->id == id) && (turns == nullptr || turns->count(task.turn) > 0);
    };
    auto end = [&](auto& list) {
      for (std::unique_ptr<Task>& task : list) {
        if (!matches(*task)) continue;
        task->terminated = true;
        shared_.Emit(ResultJson(*task, /*during_search=*/false));
        ++count;
      }
      std::erase_if(list, [](const std::unique_ptr<Task>& task) { return task->terminated; });
    };
    end(waiting_);
    end(active_);
    rotation_ = 0;
    return count;
  }

 private:
  // One analysed turn.
  struct Task {
    std::shared_ptr<const Query> query;
    int turn = 0;
    int64_t sequence = 0;
    GameState<G> state;               // the game up to the turn (history for repetition)
    std::unique_ptr<Mcts<G>> search;  // null while waiting
    Clock::time_point next_report;
    bool terminated = false;
    bool finished = false;
    bool failed = false;
  };

  static Clock::duration ReportInterval(const Task& task) {
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(task.query->report_every));
  }

  // The PV in protocol form and, when asked, the visits of each of its nodes.
  static void AddPv(const SearchTree& tree, const typename G::Position& root,
                    const std::vector<Move>& line, bool with_visits, Json& out) {
    Json pv = Json::array();
    Json visits = Json::array();
    typename G::Position position = root;
    int32_t node = SearchTree::kRoot;
    for (Move move : line) {
      pv.push_back(G::FormatMove(position, move));
      G::ApplyMove(position, move);
      node = node == SearchTree::kNone ? node : tree.ChildByMove(node, move);
      visits.push_back(node == SearchTree::kNone ? 0 : tree.visits[node]);
    }
    out["pv"] = std::move(pv);
    if (with_visits) out["pvVisits"] = std::move(visits);
  }

  Json ResultJson(const Task& task, bool during_search) const {
    const Query& query = *task.query;
    const typename G::Position& root = task.state.position();
    const Color side = G::SideToMove(root);
    const Outcome outcome = task.state.outcome();
    Json out;
    out["id"] = query.id;
    out["turnNumber"] = task.turn;
    out["isDuringSearch"] = during_search;
    if (task.terminated) out["terminated"] = true;
    out["variant"] = std::string(G::kName);
    out["position"] = G::FormatPosition(root);
    Json root_info;
    root_info["currentPlayer"] = ColorName(side);
    root_info["status"] = StatusName(outcome.status);
    root_info["reason"] = outcome.IsTerminal() ? Json(ReasonName(outcome.reason)) : Json(nullptr);
    root_info["evaluator"] = kind_;
    Json move_infos = Json::array();
    const bool searched =
        task.search != nullptr && (task.search->tree().visits[SearchTree::kRoot] > 0 ||
                                   outcome.IsTerminal() || task.state.legal_moves().size == 0);
    if (!searched) {
      out["noResults"] = true;
      root_info["visits"] = 0;
      out["rootInfo"] = std::move(root_info);
      out["moveInfos"] = std::move(move_infos);
      return out;
    }
    const SearchResult result = task.search->Result();
    const SearchTree& tree = task.search->tree();
    root_info["visits"] = result.root_visits;
    root_info["q"] = Rounded(result.root_q);
    root_info["winrate"] = Rounded(0.5f * (result.root_q + 1.0f));
    root_info["wdl"] = WdlJson(result.root_wdl);
    const std::string proven = ProvenName(result.proven, side);
    root_info["proven"] = proven.empty() ? Json(nullptr) : Json(proven);
    root_info["provenPlies"] = proven.empty() ? Json(nullptr) : Json(result.proven_plies);
    root_info["simulations"] = result.simulations;
    root_info["nodes"] = result.nodes;
    if (result.node_cap_reached) root_info["nodeCapReached"] = true;
    if (result.tree_full) root_info["treeFull"] = true;
    // Best move first (a proven win may have few visits), then most visited; generation order
    // among equals.
    std::vector<size_t> order(result.moves.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const bool a_best = result.moves[a].move == result.best_move;
      const bool b_best = result.moves[b].move == result.best_move;
      if (a_best != b_best) return a_best;
      return result.moves[a].visits > result.moves[b].visits;
    });
    for (size_t rank = 0; rank < order.size(); ++rank) {
      const RootMoveStats& stats = result.moves[order[rank]];
      Json info;
      info["move"] = G::FormatMove(root, stats.move);
      info["displayMove"] = G::FormatDisplayMove(root, stats.move);
      info["order"] = rank;
      info["visits"] = stats.visits;
      info["prior"] = Rounded(stats.prior);
      const std::string move_proven = ProvenName(stats.proven, side);
      if (stats.visits > 0 || !move_proven.empty()) {
        info["q"] = Rounded(stats.q);
        info["winrate"] = Rounded(0.5f * (stats.q + 1.0f));
        info["wdl"] = WdlJson(stats.wdl);
      } else {
        // Not searched: no value to report.
        info["q"] = nullptr;
        info["winrate"] = nullptr;
        info["wdl"] = nullptr;
      }
      if (!move_proven.empty()) {
        info["proven"] = move_proven;
        info["provenPlies"] = stats.proven_plies;
      }
      const bool is_best =
          stats.move == result.best_move && !result.pv.empty() && result.pv.front() == stats.move;
      AddPv(tree, root, is_best ? result.pv : task.search->PrincipalVariation(stats.move),
            query.include_pv_visits, info);
      move_infos.push_back(std::move(info));
    }
    out["rootInfo"] = std::move(root_info);
    out["moveInfos"] = std::move(move_infos);
    if (query.include_policy) {
      Json policy = Json::array();
      for (const RootMoveStats& stats : result.moves) {
        policy.push_back({{"move", G::FormatMove(root, stats.move)},
                          {"action", stats.action},
                          {"prior", Rounded(stats.prior)}});
      }
      out["policy"] = std::move(policy);
    }
    return out;
  }

  Shared& shared_;
  std::unique_ptr<Evaluator<G>> evaluator_;
  std::string kind_;
  int leaves_per_search_;
  std::deque<std::unique_ptr<Task>> waiting_;  // [queued turn] in arrival order
  std::vector<std::unique_ptr<Task>> active_;  // [searching turn]
  std::vector<Mcts<G>*> searches_;             // [active turn] from rotation_ on, this round
  std::vector<bool> was_searching_;            // [active turn] not done before this round
  size_t rotation_ = 0;                        // first active search of the next round
  SearchDriver<G> driver_{/*timed=*/false};
};

}  // namespace

struct AnalysisEngine::Impl {
  Shared shared;
  std::vector<std::unique_ptr<GameAnalysisBase>> games;  // AllGames order

  template <Game G>
  void AddGame() {
    const AnalysisConfig& config = shared.config;
    std::unique_ptr<Evaluator<G>> evaluator;
    std::string kind;
    const auto net = config.nets.find(std::string(G::kName));
    if (net != config.nets.end()) {
      evaluator = WithLeafQuiescence<G>(LoadNetEvaluator<G>(net->second, config.device),
                                        config.leaf_quiescence);
      kind = "net";
    } else {
      // Seeded per position (engine/search/rollout_evaluator.h): a position's value does not
      // depend on the batch it shares.
      evaluator = std::make_unique<RolloutEvaluator<G>>(0);
      kind = "rollout";
    }
    const int leaves =
        config.leaves_per_search > 0 ? config.leaves_per_search : (kind == "net" ? 8 : 1);
    games.push_back(std::make_unique<GameAnalysis<G>>(shared, std::move(evaluator), kind, leaves));
  }

  template <class... Gs>
  void AddGames(GameList<Gs...>) {
    (AddGame<Gs>(), ...);
  }

  // The game called `name` (GameIndex, engine/games.h: throws vz::Error on an unknown name).
  GameAnalysisBase& Find(std::string_view name) const { return *games[GameIndex(name)]; }

  int Active() const {
    int total = 0;
    for (const auto& game : games) total += game->active();
    return total;
  }

  // Starts waiting turns, first come first served across games, up to max_active searches.
  void Activate(Clock::time_point now) {
    for (int active = Active(); active < shared.config.max_active; ++active) {
      GameAnalysisBase* next = nullptr;
      for (const auto& game : games) {
        if (game->waiting() > 0 && (next == nullptr || game->NextWaiting() < next->NextWaiting())) {
          next = game.get();
        }
      }
      if (next == nullptr) return;
      next->ActivateNext(now);
    }
  }

  void HandleQuery(const Json& line) {
    auto query = std::make_shared<Query>();
    const auto id = line.find("id");
    if (id == line.end()) throw QueryError("id", "missing id (every query needs a string id)");
    if (!id->is_string()) throw QueryError("id", "id must be a string, not " + Shown(*id));
    query->id = *id;

    const auto variant = line.find("variant");
    if (variant != line.end()) {
      if (!variant->is_string()) {
        throw QueryError("variant", "variant must be a string, not " + Shown(*variant));
      }
      query->variant = variant->get<std::string>();
    } else {
      query->variant = shared.config.default_variant;
    }
    if (query->variant.empty()) {
      throw QueryError("variant", "missing variant (" + KnownGameNames() + ")");
    }
    GameAnalysisBase* game = nullptr;
    try {
      game = &Find(query->variant);
    } catch (const Error& e) {
      throw QueryError("variant", e.what());
    }

    const auto position = line.find("position");
    if (position != line.end()) {
      if (!position->is_string()) {
        throw QueryError("position", "position must be a position string or \"startpos\", not " +
                                         Shown(*position));
      }
      query->position = position->get<std::string>();
    }
    const auto moves = line.find("moves");
    if (moves != line.end()) {
      if (!moves->is_array()) {
        throw QueryError("moves", "moves must be a list of move strings, not " + Shown(*moves));
      }
      for (size_t i = 0; i < moves->size(); ++i) {
        const Json& move = (*moves)[i];
        if (!move.is_string()) {
          throw QueryError("moves",
                           "moves[" + std::to_string(i) + "] must be a string, not " + Shown(move));
        }
        query->moves.push_back(move.get<std::string>());
      }
    }
    const int num_moves = int(std::min<size_t>(query->moves.size(), 1 << 30));
    const auto turns = line.find("analyzeTurns");
    query->turns = turns != line.end() ? GetTurns(*turns, "analyzeTurns", num_moves)
                                       : std::vector<int>{num_moves};
    if (line.contains("maxVisits") && line.contains("simulations")) {
      throw QueryError("maxVisits", "give maxVisits or simulations, not both");
    }
    query->simulations = GetInt(line, line.contains("maxVisits") ? "maxVisits" : "simulations",
                                shared.config.default_simulations, 1, kMaxSimulations);
    query->include_policy = GetBool(line, "includePolicy", false);
    query->include_pv_visits = GetBool(line, "includePVVisits", false);
    query->gumbel = GetBool(line, "gumbel", false);
    const auto seed = line.find("seed");
    if (seed != line.end()) {
      if (!seed->is_number_unsigned()) {
        throw QueryError("seed", "seed must be an integer in [0, 2^64 - 1], not " + Shown(*seed));
      }
      query->seed = seed->get<uint64_t>();
    }
    const auto every = line.find("reportDuringSearchEvery");
    if (every != line.end()) {
      if (!every->is_number() || !(every->get<double>() >= 0.0 && every->get<double>() <= 1e6)) {
        throw QueryError("reportDuringSearchEvery",
                         "reportDuringSearchEvery must be a number of seconds in [0, 1e6], not " +
                             Shown(*every));
      }
      query->report_every = every->get<double>();
    }
    game->Enqueue(query);
    WarnUnknown(line, query->id, kQueryFields);
  }

  void WarnUnknown(const Json& line, const Json& id,
                   const std::set<std::string, std::less<>>& known) const {
    for (const auto& [key, value] : line.items()) {
      if (known.count(key) == 0) {
        shared.Emit(
            {{"id", id}, {"warning", "unknown field '" + key + "' (ignored)"}, {"field", key}});
      }
    }
  }

  void HandleAction(const Json& line) {
    const Json& action = line["action"];
    if (!action.is_string())
      throw QueryError("action", "action must be a string, not " + Shown(action));
    const std::string name = action.get<std::string>();
    const Json id = ActionId(line);
    if (name == "query_version") {
      WarnUnknown(line, id, kVersionFields);
      shared.Emit({{"id", id},
                   {"action", name},
                   {"version", shared.config.version},
                   {"git_hash", shared.config.git_revision}});
      return;
    }
    if (name != "terminate" && name != "terminate_all") {
      throw QueryError("action", "unknown action '" + name +
                                     "' (known: terminate, terminate_all, query_version)");
    }
    const bool all = name == "terminate_all";
    Json terminate_id = nullptr;
    if (!all) {
      const auto it = line.find("terminateId");
      if (it == line.end()) throw QueryError("terminateId", "terminate needs terminateId");
      if (!it->is_string()) {
        throw QueryError("terminateId", "terminateId must be a string, not " + Shown(*it));
      }
      terminate_id = *it;
    }
    std::set<int> turn_set;
    const auto turns = line.find("turnNumbers");
    if (turns != line.end()) {
      for (int turn : GetTurns(*turns, "turnNumbers", std::numeric_limits<int>::max())) {
        turn_set.insert(turn);
      }
    }
    WarnUnknown(line, id, all ? kTerminateAllFields : kTerminateFields);
    int count = 0;
    for (const auto& game : games) {
      count += game->Terminate(terminate_id, all, turns != line.end() ? &turn_set : nullptr);
    }
    Json reply = {{"id", id}, {"action", name}};
    if (!all) reply["terminateId"] = terminate_id;
    if (turns != line.end()) reply["turnNumbers"] = *turns;
    reply["terminated"] = count;
    shared.Emit(reply);
  }
};

AnalysisEngine::AnalysisEngine(const AnalysisConfig& config,
                               std::function<void(const std::string&)> sink)
    : impl_(std::make_unique<Impl>()) {
  if (config.default_simulations < 1 || config.default_simulations > kMaxSimulations) {
    throw Error("analysis: default simulations " + std::to_string(config.default_simulations) +
                " is outside [1, " + std::to_string(kMaxSimulations) + "]");
  }
  if (config.max_batch < 1) {
    throw Error("analysis: batch " + std::to_string(config.max_batch) + " is below 1");
  }
  if (config.max_active < 1) {
    throw Error("analysis: max queries " + std::to_string(config.max_active) + " is below 1");
  }
  if (config.leaves_per_search < 0) {
    throw Error("analysis: leaves per search " + std::to_string(config.leaves_per_search) +
                " is negative");
  }
  if (config.max_nodes < 1) {
    throw Error("analysis: max nodes " + std::to_string(config.max_nodes) + " is below 1");
  }
  impl_->shared.config = config;
  impl_->shared.sink = std::move(sink);
  impl_->AddGames(AllGames{});
  for (const auto& [variant, path] : config.nets) {
    try {
      GameIndex(variant);
    } catch (const Error& e) {
      throw Error("analysis: net '" + path + "': " + e.what());
    }
  }
  if (!config.default_variant.empty()) {
    try {
      GameIndex(config.default_variant);
    } catch (const Error& e) {
      throw Error(std::string("analysis: ") + e.what());
    }
  }
}

AnalysisEngine::~AnalysisEngine() = default;

void AnalysisEngine::HandleLine(std::string_view text) {
  if (text.size() > kMaxLineBytes) {
    impl_->shared.EmitError(nullptr, "", OverlongLineError());
    return;
  }
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
  Json line;
  try {
    line = Json::parse(text);
  } catch (const Json::exception& e) {
    // "[json.exception.parse_error.101] parse error at ..." without the bracketed prefix.
    std::string message = e.what();
    const size_t close = message.find("] ");
    if (message.rfind("[json.exception", 0) == 0 && close != std::string::npos) {
      message = message.substr(close + 2);
    }
    impl_->shared.EmitError(nullptr, "", "bad JSON: " + message);
    return;
  }
  Json id = nullptr;
  if (line.is_object() && line.contains("id")) id = line["id"];
  try {
    if (!line.is_object()) {
      throw QueryError("", std::string("a query must be a JSON object, not ") + line.type_name());
    }
    if (line.contains("action")) {
      impl_->HandleAction(line);
    } else {
      impl_->HandleQuery(line);
      impl_->Activate(Clock::now());
    }
  } catch (const QueryError& e) {
    impl_->shared.EmitError(id, e.field(), e.what());
  } catch (const std::exception& e) {
    impl_->shared.EmitError(id, "", e.what());
  }
}

bool AnalysisEngine::Busy() const {
  for (const auto& game : impl_->games) {
    if (game->active() > 0 || game->waiting() > 0) return true;
  }
  return false;
}

void AnalysisEngine::RunRound() {
  impl_->Activate(Clock::now());
  for (const auto& game : impl_->games) game->Round(Clock::now());
  impl_->Activate(Clock::now());
}

std::string AnalysisEngine::EvaluatorKind(std::string_view variant) const {
  return impl_->Find(variant).kind();
}

int64_t AnalysisEngine::evaluator_calls() const { return impl_->shared.evaluator_calls; }
int64_t AnalysisEngine::positions_evaluated() const { return impl_->shared.positions_evaluated; }
int AnalysisEngine::largest_batch() const { return impl_->shared.largest_batch; }

}  // namespace vz
