#pragma once

// Engine jobs of the web server (`vzero serve`): analyses and the engine's replies, run by the
// JSON-lines analysis engine (serve/analysis.h, whose query and answer objects this class
// passes through unchanged; docs/analysis.md). No search loop of its own: each AnalysisEngine is
// driven by one worker thread that hands it the queued lines and runs its lockstep rounds, exactly
// as `vzero analysis` does with stdin.
//
// Two engines at most: one with the --net files ("net", for the variants that have one) and one
// without ("rollout", every variant), so a page may ask for either evaluator.
//
// A job is one query of one turn. Its answers (interim ones with isDuringSearch true, then a final
// one, or one error object) queue up until taken with Next, a newer answer replacing an interim one
// not yet taken (at most one answer waits); a job ends with its final answer or error. At most
// max_jobs jobs run at once, and at most max_jobs_per_client of one client (its address, so that
// one page or script cannot take every slot; clients behind one proxy share it, and an IPv6 host
// with many addresses is many clients); a job asked to stop no longer counts against its client.
// A job whose engine fails (an exception out of its round) ends with an error answer. Finished jobs
// whose answers nobody takes are dropped after a minute. A job's search tree is freed when it ends,
// and the freed memory is given back to the system (malloc_trim) whenever an engine has no search
// left; what stays is the engines themselves (evaluators, a net's weights) and the answers not yet
// taken.
//
// Thread-safety: every public method may be called from any number of threads at once.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"

namespace vz {

struct EngineServiceConfig {
  // Net file per variant (registry name -> path), as AnalysisConfig::nets.
  std::map<std::string, std::string> nets;
  // Device of the nets: "cpu", "cuda", "cuda:N".
  std::string device = "cpu";
  // Jobs running at once (both engines together); Start refuses more.
  int max_jobs = 8;
  // Jobs of one client (Start's `client`) running at once, not counting those asked to stop;
  // Start refuses more. 0: half of max_jobs, rounded up, so that one client cannot keep the
  // others out.
  int max_jobs_per_client = 0;
  // Tree node cap of each search.
  int64_t max_nodes = int64_t{1} << 20;
};

// A request the server refuses: the HTTP status (4xx, or 503 when busy), the request field at
// fault ("" when none) and a one-line message.
class RequestError : public Error {
 public:
  RequestError(int status, std::string field, const std::string& message)
      : Error(message), status_(status), field_(std::move(field)) {}
  int status() const { return status_; }
  const std::string& field() const { return field_; }

 private:
  int status_;
  std::string field_;
};

class EngineService {
 public:
  // Builds the engines and starts their worker threads. Throws vz::Error on a net file that
  // cannot be loaded or fits another game (the AnalysisEngine's errors), max_jobs < 1 or
  // max_jobs_per_client < 0.
  explicit EngineService(const EngineServiceConfig& config);
  // Stops the workers (running searches are abandoned) and wakes every waiting Next.
  ~EngineService();
  EngineService(const EngineService&) = delete;
  EngineService& operator=(const EngineService&) = delete;

  // Starts one job: `query` is an analysis-engine query without `id` (variant, position, moves,
  // analyzeTurns with one turn, maxVisits, reportDuringSearchEvery, ...); the caller has checked
  // its fields. `evaluator` is "net", "rollout" or "" (the net when the variant has one). Returns
  // the job id. `client` names who asks (the HTTP client's address; "" for an in-process caller,
  // who has no per-client cap). Throws RequestError 400 (field "evaluator") for "net" on a variant
  // without a net or an unknown evaluator, 503 when max_jobs jobs are running, 429 when
  // max_jobs_per_client jobs of `client` are.
  std::string Start(nlohmann::json query, const std::string& evaluator,
                    const std::string& client = "");

  // Appends to `answers` what one reader of the job has not seen yet: the newest interim answer,
  // or, once the job has ended, its final answer; waits up to `timeout` for news when there is
  // none. `seen` is the reader's own (0 before its first call; several readers of one job each
  // keep theirs, and each gets the final answer). Returns false once the final answer was
  // appended, or when the job is unknown or the service is stopping. An ended job stays until
  // Forget, or until a Start more than a minute after it ended.
  bool Next(const std::string& id, uint64_t& seen, std::vector<nlohmann::json>& answers,
            std::chrono::milliseconds timeout);

  // True while the job exists (running, or ended and not yet forgotten).
  bool Exists(const std::string& id) const;

  // Asks the engine to stop the job's search; its final answer (with "terminated": true) still
  // comes through Next. No effect on an ended or unknown job.
  void Stop(const std::string& id);

  // Stops the job if it runs and drops it and its answers.
  void Forget(const std::string& id);

  // "net" when `variant` has a net file, else "rollout".
  std::string DefaultEvaluator(const std::string& variant) const;

  // Jobs running now.
  int RunningJobs() const;

  // The per-client cap in force (config.max_jobs_per_client, 0 resolved).
  int MaxJobsPerClient() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vz
