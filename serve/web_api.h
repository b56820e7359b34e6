#pragma once

// The JSON API of `vzero serve` without the transport (serve/http_server.h maps it onto HTTP
// routes; docs/web.md lists them). Positions, legal moves, notation and outcomes come from the
// game registry (engine/registry.h) and GameState; the engine's replies and the analyses from
// EngineService (the analysis engine); PGN/PDN from records/pgn_record.h; the training dashboard
// reads run directories (selfplay/run_dir.h layout, records/metrics_reader.h summary).
//
// Requests are JSON objects. A request that cannot be served throws RequestError with the HTTP
// status (400 for a bad field, 404 for an unknown run/plot/job, 409 for a move after the game
// ended, 429 when the client runs its cap of searches, 503 when the engine is busy) and the
// offending field; unknown fields are refused too.
// Every move, cell and position string in a request is checked by the game's own parser, whose
// one-line message the error carries.
//
// Thread-safety: every method may be called from many threads at once (the state that is shared,
// the engine's jobs, is guarded inside EngineService).

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "serve/web_engine.h"

namespace vz {

struct WebApiConfig {
  EngineServiceConfig engine;
  // Directory whose sub-directories are training runs ("" = no dashboard).
  std::string runs_dir;
  // Simulations of an analysis or an engine reply that names none, and the most one may ask.
  int64_t default_simulations = 400;
  int64_t max_simulations = 50000;
  // The longest thinking time of one engine reply, seconds.
  double max_move_seconds = 60;
  // Moves in one request at most.
  int max_moves = 2000;
};

class WebApi {
 public:
  // Starts the engine workers. Throws vz::Error on a bad net file or job limits (EngineService) or
  // a runs directory that does not exist.
  explicit WebApi(const WebApiConfig& config);
  ~WebApi();

  // GET /api/info: {"variants": [{"name", "startFen", "evaluators": [...],
  // "defaultEvaluator"}], "limits": {...}, "runs": bool}.
  nlohmann::json Info() const;

  // POST /api/position {"variant", "fen"?, "moves"?}: the game after `moves` from `fen` (default
  // the start): "startFen", "fen", "sideToMove", "inCheck", "status", "reason", "legalMoves"
  // [{"move", "display", "from", "to", "promotion", "path"}], "history" [{"move", "display",
  // "fen"}] (protocol form, display form, position after it). `moves` may be in either form.
  nlohmann::json Position(const nlohmann::json& request) const;

  // POST /api/play {"variant", "fen"?, "moves"?, "simulations"? | "seconds"?, "evaluator"?,
  // "seed"?}: the engine's move in the position after `moves`, searched with that many
  // simulations, or for that many seconds (simulations then capped by max_simulations):
  // {"move", "display", "analysis": <the engine's final answer>, "position": Position(after)}.
  // Blocks until the search ends: at its simulations, its seconds or max_move_seconds, whichever
  // comes first (the best move so far), or 503 when the engine has not answered 10 s after that.
  // 409 when the game is already over. `client` is the asker's
  // address, for the engine's per-client cap (EngineService::Start: 429 past it).
  nlohmann::json Play(const nlohmann::json& request, const std::string& client);

  // POST /api/analysis {"variant", "fen"?, "moves"?, "simulations"?, "evaluator"?, "every"?
  // (seconds between interim answers, default 0.3), "multiPv"? (moves reported, default 8)}:
  // starts an analysis of the position after `moves`; returns its job id. `client` as for Play.
  std::string StartAnalysis(const nlohmann::json& request, const std::string& client);

  // The analysis' next answers (the engine's, moveInfos cut to multiPv, each move given its
  // cells and "pvDisplay"), as EngineService::Next.
  bool NextAnalysis(const std::string& id, uint64_t& seen, std::vector<nlohmann::json>& answers,
                    std::chrono::milliseconds timeout);
  bool AnalysisExists(const std::string& id) const;
  // Stops the search (its final answer still comes); Forget drops the job.
  void StopAnalysis(const std::string& id);
  void ForgetAnalysis(const std::string& id);

  // POST /api/record/export {"variant", "fen"?, "moves", "white"?, "black"?}: {"format": "pgn" or
  // "pdn", "text"} written by records/pgn_record.h.
  nlohmann::json ExportRecord(const nlohmann::json& request) const;
  // POST /api/record/import {"text", "variant"?, "game"? (1-based, default 1)}: the record's game
  // as {"variant", "fen" (start), "moves" (protocol form)}; the variant from its tags when not
  // given. An illegal move in the record is a 400 naming it.
  nlohmann::json ImportRecord(const nlohmann::json& request) const;

  // GET /api/runs: {"runs": [{"name", "modified", "hasMetrics", "plots": [...]}]}, newest first.
  nlohmann::json Runs() const;
  // GET /api/runs/NAME: {"name", "summary", "metrics": [last 2000 metrics objects], "plots"}.
  // 404 for a name that is not a run directory of runs_dir.
  nlohmann::json Run(const std::string& name) const;
  // GET /api/runs/NAME/plots/FILE: the SVG text of RUN/plots/FILE (FILE listed by Run). 404
  // otherwise; no path outside runs_dir is ever opened.
  std::string RunPlot(const std::string& name, const std::string& file) const;

  // The cells of a move in protocol form: {"from", "to", "promotion", "path"}; draughts paths are
  // square numbers as strings ("6", "15", "24"), the other games' cells names ("h3").
  static nlohmann::json MoveCells(const std::string& variant, const std::string& move);

 private:
  struct AnalysisJob {
    std::string variant;
    int multi_pv = 8;
  };
  std::string RunDirectory(const std::string& name) const;
  WebApiConfig config_;
  std::unique_ptr<EngineService> engine_;
  mutable std::mutex analyses_mutex_;
  std::map<std::string, AnalysisJob> analyses_;  // guarded by analyses_mutex_
};

}  // namespace vz
