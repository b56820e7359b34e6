#include "serve/web_api.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>

#include "engine/core/atomic_file.h"
#include "engine/core/game_state.h"
#include "engine/games.h"
#include "engine/registry.h"
#include "records/metrics_reader.h"
#include "records/pgn_record.h"

namespace vz {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

constexpr int kMaxMultiPv = 64;
constexpr size_t kMaxRecordBytes = 1 << 20;
constexpr size_t kMaxMetricsLines = 2000;
constexpr uintmax_t kMaxPlotBytes = 16 << 20;

RequestError BadField(const std::string& field, const std::string& message) {
  return RequestError(400, field, field + ": " + message);
}

// Refuses a request that is not an object or has a field outside `allowed`.
void CheckFields(const json& request, std::initializer_list<std::string_view> allowed) {
  if (!request.is_object()) throw RequestError(400, "", "request body: expected a JSON object");
  for (const auto& [key, value] : request.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string names;
      for (std::string_view name : allowed)
        names += (names.empty() ? "" : ", ") + std::string(name);
      throw BadField(key, "unknown field (known: " + names + ")");
    }
  }
}

std::string StringField(const json& request, const std::string& name, bool required,
                        const std::string& fallback = "") {
  if (!request.contains(name)) {
    if (required) throw BadField(name, "missing (a string is required)");
    return fallback;
  }
  if (!request[name].is_string()) throw BadField(name, "expected a string");
  return request[name].get<std::string>();
}

int64_t IntegerField(const json& request, const std::string& name, int64_t low, int64_t high,
                     int64_t fallback) {
  if (!request.contains(name)) return fallback;
  const json& value = request[name];
  if (!value.is_number_integer()) throw BadField(name, "expected an integer");
  const int64_t number = value.get<int64_t>();
  if (number < low || number > high) {
    throw BadField(name, std::to_string(number) + " is outside " + std::to_string(low) + ".." +
                             std::to_string(high));
  }
  return number;
}

double NumberField(const json& request, const std::string& name, double low, double high,
                   double fallback) {
  if (!request.contains(name)) return fallback;
  const json& value = request[name];
  if (!value.is_number()) throw BadField(name, "expected a number");
  const double number = value.get<double>();
  if (!std::isfinite(number) || number < low || number > high) {
    std::ostringstream range;
    range << "outside " << low << ".." << high;
    throw BadField(name, value.dump() + " is " + range.str());
  }
  return number;
}

// The registry name of `variant`, checked.
std::string VariantField(const json& request) {
  const std::string variant = StringField(request, "variant", true);
  try {
    FindVariant(variant);
  } catch (const Error& e) {
    throw BadField("variant", e.what());
  }
  return variant;
}

std::vector<std::string> MovesField(const json& request, int max_moves) {
  std::vector<std::string> moves;
  if (!request.contains("moves")) return moves;
  const json& list = request["moves"];
  if (!list.is_array()) throw BadField("moves", "expected a list of move strings");
  if (int(list.size()) > max_moves) {
    throw BadField("moves", std::to_string(list.size()) + " moves, more than the server's limit " +
                                std::to_string(max_moves));
  }
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) {
      throw BadField("moves", "moves[" + std::to_string(i) + "] is not a string");
    }
    moves.push_back(list[i].get<std::string>());
  }
  return moves;
}

// A game replayed from a request: its start, its moves in both forms, the position after each.
struct Replay {
  std::string start_fen;
  std::vector<std::string> moves;    // protocol form
  std::vector<std::string> display;  // display form
  std::vector<std::string> fens;     // position after each move
  json final_position;               // Position() of the end
};

const char* ColorWord(Color color) { return color == Color::kWhite ? "white" : "black"; }

// Replays `moves` from `fen` ("" or "startpos": the start) for `variant`, checking each with the
// game's parser. Throws RequestError naming the field (fen, moves) with the game's message; 409
// for a move after the end of the game.
Replay ReplayGame(const std::string& variant, const std::string& fen,
                  const std::vector<std::string>& moves) {
  Replay replay;
  WithGame(variant, [&]<class G>() {
    typename G::Position start;
    try {
      start = fen.empty() || fen == "startpos" ? G::InitialPosition() : G::ParsePosition(fen);
    } catch (const Error& e) {
      throw BadField("fen", e.what());
    }
    GameState<G> game(start);
    replay.start_fen = G::FormatPosition(start);
    for (size_t i = 0; i < moves.size(); ++i) {
      const typename G::Position before = game.position();
      const Outcome outcome = game.outcome();
      const std::string where = "moves[" + std::to_string(i) + "] '" + moves[i] + "'";
      if (outcome.IsTerminal()) {
        throw RequestError(409, "moves",
                           "moves: " + where + ": the game is over (" + StatusName(outcome.status) +
                               ", " + ReasonName(outcome.reason) + ")");
      }
      Move move;
      try {
        move = game.Play(moves[i]);
      } catch (const Error& e) {
        throw BadField("moves", where + ": " + e.what());
      }
      replay.moves.push_back(G::FormatMove(before, move));
      replay.display.push_back(G::FormatDisplayMove(before, move));
      replay.fens.push_back(G::FormatPosition(game.position()));
    }
    const typename G::Position& position = game.position();
    const Outcome outcome = game.outcome();
    json legal = json::array();
    if (!outcome.IsTerminal()) {
      for (Move move : game.legal_moves()) {
        const std::string text = G::FormatMove(position, move);
        json entry = WebApi::MoveCells(variant, text);
        entry["move"] = text;
        entry["display"] = G::FormatDisplayMove(position, move);
        legal.push_back(std::move(entry));
      }
    }
    json history = json::array();
    for (size_t i = 0; i < replay.moves.size(); ++i) {
      json entry = WebApi::MoveCells(variant, replay.moves[i]);
      entry["move"] = replay.moves[i];
      entry["display"] = replay.display[i];
      entry["fen"] = replay.fens[i];
      history.push_back(std::move(entry));
    }
    replay.final_position = {
        {"variant", variant},
        {"startFen", replay.start_fen},
        {"fen", G::FormatPosition(position)},
        {"sideToMove", ColorWord(G::SideToMove(position))},
        {"hasCheck", G::kHasCheck},
        {"inCheck", G::kHasCheck && G::InCheck(position)},
        {"status", StatusName(outcome.status)},
        {"reason",
         outcome.reason == Reason::kNone ? json(nullptr) : json(ReasonName(outcome.reason))},
        {"legalMoves", std::move(legal)},
        {"history", std::move(history)}};
  });
  return replay;
}

// A file served from a runs directory: 404 when it is not a readable regular file of at most
// `limit` bytes (a missing plot, a directory or FIFO under that name, a file grown too large).
std::string ServedFile(const fs::path& path, uintmax_t limit) {
  try {
    return ReadWholeFile(path.string(), "file", limit);
  } catch (const Error&) {
    throw RequestError(404, "", "file not found");
  }
}

// A name we serve from a runs directory: letters, digits, '.', '_', '-', not starting with '.'.
bool SafeName(const std::string& name) {
  if (name.empty() || name.size() > 200 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
}

std::vector<std::string> PlotNames(const fs::path& run) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(run / "plots", error)) {
    const std::string name = entry.path().filename().string();
    // A symbolic link could lead anywhere: only plain files are plots.
    if (SafeName(name) && entry.path().extension() == ".svg" && !entry.is_symlink(error) &&
        entry.is_regular_file(error)) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

json WebApi::MoveCells(const std::string& variant, const std::string& move) {
  std::vector<std::string> path;
  std::string promotion;
  if (variant == "portuguese-draughts") {
    std::string number;
    for (char c : move) {
      if (std::isdigit(static_cast<unsigned char>(c))) {
        number += c;
      } else if (!number.empty()) {
        path.push_back(number);
        number.clear();
      }
    }
    if (!number.empty()) path.push_back(number);
  } else {
    size_t i = 0;
    while (i < move.size() && std::islower(static_cast<unsigned char>(move[i]))) {
      size_t j = i + 1;
      while (j < move.size() && std::isdigit(static_cast<unsigned char>(move[j]))) ++j;
      if (j == i + 1) break;  // a letter with no rank: the promotion suffix
      path.push_back(move.substr(i, j - i));
      i = j;
    }
    promotion = move.substr(i);
  }
  return {{"from", path.empty() ? "" : path.front()},
          {"to", path.empty() ? "" : path.back()},
          {"promotion", promotion},
          {"path", path}};
}

WebApi::WebApi(const WebApiConfig& config) : config_(config) {
  if (!config_.runs_dir.empty()) {
    std::error_code error;
    if (!fs::is_directory(config_.runs_dir, error)) {
      throw Error("--runs " + config_.runs_dir + ": not a directory");
    }
    config_.runs_dir = fs::canonical(config_.runs_dir).string();
  }
  if (config_.default_simulations < 1 || config_.max_simulations < config_.default_simulations) {
    throw Error("web server: simulations must satisfy 1 <= default <= max");
  }
  engine_ = std::make_unique<EngineService>(config_.engine);
}

WebApi::~WebApi() = default;

json WebApi::Info() const {
  json variants = json::array();
  for (const Variant* variant : AllVariants()) {
    const std::string name(variant->name());
    json evaluators = json::array({"rollout"});
    if (config_.engine.nets.count(name) > 0) evaluators.insert(evaluators.begin(), "net");
    variants.push_back({{"name", name},
                        {"startFen", variant->StartFen()},
                        {"evaluators", evaluators},
                        {"defaultEvaluator", engine_->DefaultEvaluator(name)}});
  }
  return {{"variants", variants},
          {"runs", !config_.runs_dir.empty()},
          {"limits",
           {{"defaultSimulations", config_.default_simulations},
            {"maxSimulations", config_.max_simulations},
            {"maxMoveSeconds", config_.max_move_seconds},
            {"maxMoves", config_.max_moves},
            {"maxJobs", config_.engine.max_jobs},
            {"maxJobsPerClient", engine_->MaxJobsPerClient()}}}};
}

json WebApi::Position(const json& request) const {
  CheckFields(request, {"variant", "fen", "moves"});
  const std::string variant = VariantField(request);
  return ReplayGame(variant, StringField(request, "fen", false),
                    MovesField(request, config_.max_moves))
      .final_position;
}

json WebApi::Play(const json& request, const std::string& client) {
  CheckFields(request, {"variant", "fen", "moves", "simulations", "seconds", "evaluator", "seed"});
  const std::string variant = VariantField(request);
  const Replay replay = ReplayGame(variant, StringField(request, "fen", false),
                                   MovesField(request, config_.max_moves));
  if (replay.final_position["status"] != "ongoing") {
    throw RequestError(
        409, "moves",
        "moves: the game is over (" + replay.final_position["status"].get<std::string>() + ")");
  }
  if (request.contains("simulations") && request.contains("seconds")) {
    throw BadField("seconds", "give simulations or seconds, not both");
  }
  const double seconds = NumberField(request, "seconds", 0.05, config_.max_move_seconds, 0);
  const int64_t simulations = seconds > 0
                                  ? config_.max_simulations
                                  : IntegerField(request, "simulations", 1, config_.max_simulations,
                                                 config_.default_simulations);
  json query = {{"variant", variant},
                {"position", replay.start_fen},
                {"moves", replay.moves},
                {"maxVisits", simulations},
                {"seed", IntegerField(request, "seed", 0, int64_t{1} << 53, 0)}};
  const std::string id = engine_->Start(query, StringField(request, "evaluator", false), client);
  const auto start = std::chrono::steady_clock::now();
  // The search stops at its time (or max_move_seconds, whatever its simulations) and answers with
  // its best move so far; an engine that has not answered kStopGraceSeconds after the stop is
  // given up on (503), so that the request and its client's job slot never wait for ever.
  constexpr double kStopGraceSeconds = 10;
  const double stop_at = seconds > 0 ? seconds : config_.max_move_seconds;
  bool stopped = false;
  json final_answer;
  std::vector<json> answers;
  uint64_t seen = 0;
  while (engine_->Next(id, seen, answers, std::chrono::milliseconds(50))) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!stopped && elapsed >= stop_at) {
      engine_->Stop(id);
      stopped = true;
    }
    if (elapsed >= stop_at + kStopGraceSeconds) {
      engine_->Forget(id);
      throw RequestError(503, "",
                         fmt::format("the engine did not answer within {:g} s of the move's "
                                     "time; try again",
                                     kStopGraceSeconds));
    }
  }
  engine_->Forget(id);  // its one reader is done
  if (answers.empty()) throw RequestError(503, "", "the engine stopped before answering");
  final_answer = answers.back();
  if (final_answer.contains("error")) {
    throw RequestError(500, final_answer.value("field", ""),
                       "engine: " + final_answer["error"].get<std::string>());
  }
  const json& infos = final_answer["moveInfos"];
  if (!infos.is_array() || infos.empty()) {
    throw RequestError(503, "", "the engine found no move in the time given");
  }
  const std::string best = infos[0]["move"].get<std::string>();
  std::vector<std::string> after = replay.moves;
  after.push_back(best);
  json position = ReplayGame(variant, replay.start_fen, after).final_position;
  final_answer.erase("policy");
  return {{"move", best},
          {"display", infos[0].value("displayMove", best)},
          {"analysis", std::move(final_answer)},
          {"position", std::move(position)}};
}

std::string WebApi::StartAnalysis(const json& request, const std::string& client) {
  CheckFields(request,
              {"variant", "fen", "moves", "simulations", "evaluator", "every", "multiPv", "seed"});
  const std::string variant = VariantField(request);
  const Replay replay = ReplayGame(variant, StringField(request, "fen", false),
                                   MovesField(request, config_.max_moves));
  const int64_t simulations =
      IntegerField(request, "simulations", 1, config_.max_simulations, config_.max_simulations);
  const double every = NumberField(request, "every", 0.05, 60, 0.3);
  const int64_t multi_pv = IntegerField(request, "multiPv", 1, kMaxMultiPv, 8);
  json query = {{"variant", variant},
                {"position", replay.start_fen},
                {"moves", replay.moves},
                {"maxVisits", simulations},
                {"reportDuringSearchEvery", every},
                {"includePVVisits", false},
                {"seed", IntegerField(request, "seed", 0, int64_t{1} << 53, 0)}};
  const std::string id = engine_->Start(query, StringField(request, "evaluator", false), client);
  std::lock_guard<std::mutex> lock(analyses_mutex_);
  for (auto it = analyses_.begin(); it != analyses_.end();) {
    it = engine_->Exists(it->first) ? std::next(it) : analyses_.erase(it);
  }
  analyses_[id] = {variant, int(multi_pv)};
  return id;
}

bool WebApi::NextAnalysis(const std::string& id, uint64_t& seen, std::vector<json>& answers,
                          std::chrono::milliseconds timeout) {
  AnalysisJob job;
  {
    std::lock_guard<std::mutex> lock(analyses_mutex_);
    auto it = analyses_.find(id);
    if (it == analyses_.end()) return false;
    job = it->second;
  }
  const std::string& variant = job.variant;
  const int multi_pv = job.multi_pv;
  std::vector<json> raw;
  const bool more = engine_->Next(id, seen, raw, timeout);
  const Variant* game = &FindVariant(variant);
  for (json& answer : raw) {
    if (answer.contains("moveInfos") && answer["moveInfos"].is_array() && game != nullptr) {
      json& infos = answer["moveInfos"];
      if (int(infos.size()) > multi_pv) infos.erase(infos.begin() + multi_pv, infos.end());
      const std::string fen = answer.value("position", "");
      for (json& info : infos) {
        const std::string move = info.value("move", "");
        info["cells"] = MoveCells(variant, move);
        json pv_cells = json::array();
        std::vector<std::string> pv;
        for (const json& step : info.value("pv", json::array())) {
          pv.push_back(step.get<std::string>());
          pv_cells.push_back(MoveCells(variant, pv.back()));
        }
        info["pvCells"] = std::move(pv_cells);
        try {
          info["pvDisplay"] = game->Show(fen, pv).played_display;
        } catch (const Error&) {
          info["pvDisplay"] = pv;
        }
      }
    }
    answers.push_back(std::move(answer));
  }
  return more;
}

bool WebApi::AnalysisExists(const std::string& id) const {
  {
    std::lock_guard<std::mutex> lock(analyses_mutex_);
    if (analyses_.count(id) == 0) return false;
  }
  return engine_->Exists(id);
}

void WebApi::StopAnalysis(const std::string& id) {
  if (AnalysisExists(id)) engine_->Stop(id);
}

void WebApi::ForgetAnalysis(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(analyses_mutex_);
    if (analyses_.erase(id) == 0) return;
  }
  engine_->Forget(id);
}

json WebApi::ExportRecord(const json& request) const {
  CheckFields(request, {"variant", "fen", "moves", "white", "black", "event"});
  const std::string variant = VariantField(request);
  const std::string fen = StringField(request, "fen", false);
  const std::vector<std::string> moves = MovesField(request, config_.max_moves);
  ReplayGame(variant, fen, moves);  // the request's errors, named by field
  json result;
  WithGame(variant, [&]<class G>() {
    GameState<G> game(fen.empty() || fen == "startpos" ? G::InitialPosition()
                                                       : G::ParsePosition(fen));
    for (const std::string& move : moves) game.Play(move);
    RecordInfo info;
    info.event = StringField(request, "event", false, "vzero serve");
    info.white = StringField(request, "white", false, "?");
    info.black = StringField(request, "black", false, "?");
    info.outcome = game.outcome();
    if (info.outcome.IsTerminal()) info.termination = ReasonName(info.outcome.reason);
    result = {{"format", IsDraughts<G>() ? "pdn" : "pgn"}, {"text", WriteRecord(game, info)}};
  });
  return result;
}

json WebApi::ImportRecord(const json& request) const {
  CheckFields(request, {"text", "variant", "game"});
  const std::string text = StringField(request, "text", true);
  if (text.size() > kMaxRecordBytes) {
    throw BadField("text", "longer than " + std::to_string(kMaxRecordBytes) + " bytes");
  }
  std::vector<RecordText> records;
  try {
    records = ParseRecordText(text);
  } catch (const Error& e) {
    throw BadField("text", e.what());
  }
  if (records.empty()) throw BadField("text", "no game found");
  const int64_t index = IntegerField(request, "game", 1, int64_t(records.size()), 1);
  const RecordText& record = records[size_t(index - 1)];
  std::string variant =
      request.contains("variant") ? VariantField(request) : VariantOfRecord(record);
  if (variant.empty()) {
    throw BadField("variant", "the record names no game (no Variant or GameType tag): give one");
  }
  try {
    FindVariant(variant);
  } catch (const Error& e) {
    throw BadField("text", e.what());
  }
  json result;
  WithGame(variant, [&]<class G>() {
    GameState<G> game;
    ReplayReport report;
    try {
      report = ReplayRecord<G>(record, int(index), &game);
    } catch (const Error& e) {
      throw BadField("text", e.what());
    }
    if (!report.ok) {
      throw BadField("text", "game " + std::to_string(index) + ", ply " +
                                 std::to_string(report.illegal_ply) + ", move '" +
                                 report.illegal_move + "': " + report.error);
    }
    typename G::Position position = game.start_position();
    json moves = json::array();
    for (Move move : game.moves()) {
      moves.push_back(G::FormatMove(position, move));
      G::ApplyMove(position, move);
    }
    result = {{"variant", variant},
              {"fen", G::FormatPosition(game.start_position())},
              {"moves", std::move(moves)},
              {"games", records.size()}};
  });
  return result;
}

std::string WebApi::RunDirectory(const std::string& name) const {
  if (config_.runs_dir.empty())
    throw RequestError(404, "", "no runs directory (start with --runs)");
  if (!SafeName(name)) throw RequestError(404, "", "no run named '" + name + "'");
  std::error_code error;
  const fs::path path = fs::path(config_.runs_dir) / name;
  const fs::path real = fs::canonical(path, error);
  // Only the plain directories that Runs() lists; a symbolic link is never followed.
  if (error || fs::is_symlink(path, error) || !fs::is_directory(real, error) ||
      real.parent_path() != fs::path(config_.runs_dir)) {
    throw RequestError(404, "", "no run named '" + name + "'");
  }
  return real.string();
}

json WebApi::Runs() const {
  if (config_.runs_dir.empty())
    throw RequestError(404, "", "no runs directory (start with --runs)");
  std::vector<std::pair<fs::file_time_type, json>> runs;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(config_.runs_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (!SafeName(name) || entry.is_symlink(error) || !entry.is_directory(error)) continue;
    const fs::path metrics = entry.path() / "metrics.jsonl";
    const bool has_metrics = fs::exists(metrics, error);
    const bool has_config = fs::exists(entry.path() / "config.txtpb", error);
    if (!has_metrics && !has_config) continue;
    const fs::file_time_type time =
        fs::last_write_time(has_metrics ? metrics : entry.path(), error);
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                             time - fs::file_time_type::clock::now() +
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
    runs.push_back({time,
                    {{"name", name},
                     {"modified", seconds},
                     {"hasMetrics", has_metrics},
                     {"plots", PlotNames(entry.path())}}});
  }
  std::sort(runs.begin(), runs.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  json list = json::array();
  for (auto& [time, run] : runs) list.push_back(std::move(run));
  return {{"runs", std::move(list)}};
}

json WebApi::Run(const std::string& name) const {
  const fs::path dir = RunDirectory(name);
  json metrics = json::array();
  std::string summary;
  std::error_code error;
  if (fs::exists(dir / "metrics.jsonl", error)) {
    try {
      std::vector<json> lines;
      summary = SummarizeRunMetrics(dir.string(), &lines).text;
      const size_t first = lines.size() > kMaxMetricsLines ? lines.size() - kMaxMetricsLines : 0;
      for (size_t i = first; i < lines.size(); ++i) metrics.push_back(std::move(lines[i]));
    } catch (const Error& e) {
      summary = e.what();  // unreadable (not a regular file, a field of the wrong type)
    }
  } else {
    summary = "no metrics.jsonl yet";
  }
  return {{"name", name}, {"summary", summary}, {"metrics", metrics}, {"plots", PlotNames(dir)}};
}

std::string WebApi::RunPlot(const std::string& name, const std::string& file) const {
  const fs::path dir = RunDirectory(name);
  const std::vector<std::string> plots = PlotNames(dir);
  if (std::find(plots.begin(), plots.end(), file) == plots.end()) {
    throw RequestError(404, "", "run '" + name + "' has no plot '" + file + "'");
  }
  return ServedFile(dir / "plots" / file, kMaxPlotBytes);
}

}  // namespace vz
