#include "serve/web_engine.h"

#include <malloc.h>

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "serve/analysis.h"

namespace vz {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// How long an ended job's untaken answers are kept.
constexpr auto kEndedJobLifetime = std::chrono::seconds(60);

}  // namespace

struct EngineService::Impl {
  // A job's answers as its readers see them: the newest interim answer (a newer one supersedes
  // it, so that a slow or absent reader costs one answer, whatever the report interval) and the
  // final one, which supersedes any interim. Each reader keeps the sequence number of the last
  // answer it took (EngineService::Next's `seen`), so that every reader gets the final answer.
  struct Job {
    json interim;
    uint64_t interim_seq = 0;  // 0: none yet
    json final_answer;
    uint64_t next_seq = 1;
    bool ended = false;
    Clock::time_point ended_at;
    std::string evaluator;  // the worker that runs it
    std::string client;     // who started it (EngineService::Start)
    bool stopping = false;  // asked to stop: it no longer counts against its client's cap

    // Ends the job with `answer`, its final answer (a result or an error), which supersedes any
    // interim one.
    void End(json answer) {
      final_answer = std::move(answer);
      interim = json();
      ended = true;
      ended_at = Clock::now();
    }
  };

  // One AnalysisEngine and the thread that drives it; lines reach it only through `lines`.
  struct Worker {
    std::unique_ptr<AnalysisEngine> engine;
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::string> lines;
    bool stopping = false;
    std::thread thread;
    // Called on the worker's thread when the engine throws: ends the jobs it was running.
    std::function<void(const std::string& message)> on_failure;

    void Push(std::string line) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        lines.push_back(std::move(line));
      }
      wake.notify_one();
    }

    void Run() {
      std::vector<std::string> taken;
      for (;;) {
        {
          std::unique_lock<std::mutex> lock(mutex);
          wake.wait(lock, [this] { return stopping || !lines.empty() || engine->Busy(); });
          if (stopping) return;
          taken.assign(std::make_move_iterator(lines.begin()),
                       std::make_move_iterator(lines.end()));
          lines.clear();
        }
        try {
          for (const std::string& line : taken) engine->HandleLine(line);
          if (engine->Busy()) {
            engine->RunRound();
            // The searches' trees are freed as they end; glibc keeps freed pages in its arenas
            // (one per thread that allocated) until told: give them back once the engine is idle.
            if (!engine->Busy()) malloc_trim(0);
          }
        } catch (const std::exception& e) {
          // The engine answers bad queries and evaluator failures itself; anything else (memory)
          // is reported, the jobs of this engine end with an error answer, and the worker goes
          // on serving.
          std::fprintf(stderr, "vzero serve: analysis engine: %s\n", e.what());
          on_failure(e.what());
        }
      }
    }
  };

  EngineServiceConfig config;
  mutable std::mutex mutex;  // guards jobs, next_id, stopping
  std::condition_variable changed;
  std::map<std::string, Job> jobs;
  int64_t next_id = 1;
  bool stopping = false;
  std::map<std::string, std::unique_ptr<Worker>> workers;  // "net", "rollout"; fixed after start

  // The engine's output sink (called on a worker thread): routes an answer to its job.
  void Deliver(const std::string& line) {
    json answer = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!answer.is_object() || !answer.contains("id") || !answer["id"].is_string()) return;
    if (answer.contains("action")) return;  // the answer to one of our terminate lines
    if (answer.contains("warning")) return;
    const std::string id = answer["id"].get<std::string>();
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = jobs.find(id);
      if (it == jobs.end() || it->second.ended) return;
      const bool final = answer.contains("error") || !answer.value("isDuringSearch", false);
      Job& job = it->second;
      if (final) {
        job.End(std::move(answer));
      } else {
        job.interim = std::move(answer);
        job.interim_seq = job.next_seq++;
      }
    }
    changed.notify_all();
  }

  // Builds a worker's engine (its thread starts later, once every engine was built).
  void AddWorker(const std::string& name, const AnalysisConfig& analysis) {
    auto worker = std::make_unique<Worker>();
    worker->engine = std::make_unique<AnalysisEngine>(
        analysis, [this](const std::string& line) { Deliver(line); });
    worker->on_failure = [this, name](const std::string& message) { FailJobs(name, message); };
    workers[name] = std::move(worker);
  }

  // Jobs running now; with a `client`, that client's only, less those asked to stop.
  int Running(const std::string* client = nullptr) const {
    int running = 0;
    for (const auto& [id, job] : jobs) {
      running += !job.ended && (client == nullptr || (job.client == *client && !job.stopping));
    }
    return running;
  }

  // Ends every running job of the worker `evaluator` with an error answer naming `message`, and
  // asks its engine to stop their searches.
  void FailJobs(const std::string& evaluator, const std::string& message) {
    std::vector<std::string> failed;
    {
      std::lock_guard<std::mutex> lock(mutex);
      for (auto& [id, job] : jobs) {
        if (job.ended || job.evaluator != evaluator) continue;
        job.End({{"id", id}, {"error", "analysis engine failure: " + message}});
        failed.push_back(id);
      }
    }
    changed.notify_all();
    for (const std::string& id : failed) Terminate(id, evaluator);
  }

  void Terminate(const std::string& id, const std::string& evaluator) {
    workers.at(evaluator)->Push(json{{"action", "terminate"}, {"terminateId", id}}.dump());
  }
};

EngineService::EngineService(const EngineServiceConfig& config) : impl_(std::make_unique<Impl>()) {
  if (config.max_jobs < 1) {
    throw Error("engine jobs: max_jobs " + std::to_string(config.max_jobs) + " must be >= 1");
  }
  if (config.max_jobs_per_client < 0) {
    throw Error("engine jobs: max_jobs_per_client " + std::to_string(config.max_jobs_per_client) +
                " must be >= 0");
  }
  impl_->config = config;
  if (config.max_jobs_per_client == 0)
    impl_->config.max_jobs_per_client = (config.max_jobs + 1) / 2;
  AnalysisConfig analysis;
  analysis.max_active = config.max_jobs;
  analysis.max_nodes = config.max_nodes;
  analysis.device = config.device;
  impl_->AddWorker("rollout", analysis);
  if (!config.nets.empty()) {
    analysis.nets = config.nets;
    impl_->AddWorker("net", analysis);
  }
  for (auto& [name, worker] : impl_->workers) {
    Impl::Worker* raw = worker.get();
    worker->thread = std::thread([raw] { raw->Run(); });
  }
}

EngineService::~EngineService() {
  if (!impl_) return;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stopping = true;
  }
  impl_->changed.notify_all();
  for (auto& [name, worker] : impl_->workers) {
    {
      std::lock_guard<std::mutex> lock(worker->mutex);
      worker->stopping = true;
    }
    worker->wake.notify_one();
    if (worker->thread.joinable()) worker->thread.join();
  }
  impl_.reset();
}

std::string EngineService::DefaultEvaluator(const std::string& variant) const {
  return impl_->config.nets.count(variant) > 0 ? "net" : "rollout";
}

std::string EngineService::Start(json query, const std::string& evaluator,
                                 const std::string& client) {
  const std::string variant = query.value("variant", "");
  std::string kind = evaluator.empty() ? DefaultEvaluator(variant) : evaluator;
  if (kind != "net" && kind != "rollout") {
    throw RequestError(400, "evaluator", "evaluator '" + evaluator + "': expected net or rollout");
  }
  if (kind == "net" && impl_->config.nets.count(variant) == 0) {
    throw RequestError(400, "evaluator",
                       "evaluator net: the server has no net for " + variant +
                           " (start vzero serve with --net FILE; rollout works without one)");
  }
  std::string id;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (impl_->stopping) throw RequestError(503, "", "the server is stopping");
    const auto now = Clock::now();
    for (auto it = impl_->jobs.begin(); it != impl_->jobs.end();) {
      const bool stale = it->second.ended && now - it->second.ended_at > kEndedJobLifetime;
      it = stale ? impl_->jobs.erase(it) : std::next(it);
    }
    if (impl_->Running() >= impl_->config.max_jobs) {
      throw RequestError(503, "",
                         "engine busy: " + std::to_string(impl_->config.max_jobs) +
                             " searches are running (the server's --max-jobs); try again later");
    }
    if (!client.empty() && impl_->Running(&client) >= impl_->config.max_jobs_per_client) {
      throw RequestError(429, "",
                         "too many searches from " + client + ": " +
                             std::to_string(impl_->config.max_jobs_per_client) +
                             " are running (the server's --max-jobs-per-client); stop one or "
                             "wait for one to end");
    }
    id = "j" + std::to_string(impl_->next_id++);
    Impl::Job& job = impl_->jobs[id];
    job.evaluator = kind;
    job.client = client;
  }
  query["id"] = id;
  impl_->workers.at(kind)->Push(query.dump());
  return id;
}

bool EngineService::Next(const std::string& id, uint64_t& seen, std::vector<json>& answers,
                         std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  auto has_news = [&] {
    if (impl_->stopping) return true;
    auto it = impl_->jobs.find(id);
    return it == impl_->jobs.end() || it->second.interim_seq > seen || it->second.ended;
  };
  impl_->changed.wait_for(lock, timeout, has_news);
  if (impl_->stopping) return false;
  auto it = impl_->jobs.find(id);
  if (it == impl_->jobs.end()) return false;
  const Impl::Job& job = it->second;
  if (job.ended) {
    answers.push_back(job.final_answer);
    seen = job.next_seq;
    return false;
  }
  if (job.interim_seq > seen) {
    answers.push_back(job.interim);
    seen = job.interim_seq;
  }
  return true;
}

bool EngineService::Exists(const std::string& id) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->jobs.count(id) > 0;
}

void EngineService::Stop(const std::string& id) {
  std::string evaluator;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->jobs.find(id);
    if (it == impl_->jobs.end() || it->second.ended) return;
    evaluator = it->second.evaluator;
    it->second.stopping = true;
  }
  impl_->Terminate(id, evaluator);
}

void EngineService::Forget(const std::string& id) {
  std::string evaluator;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->jobs.find(id);
    if (it == impl_->jobs.end()) return;
    if (!it->second.ended) evaluator = it->second.evaluator;
    impl_->jobs.erase(it);
  }
  impl_->changed.notify_all();
  if (!evaluator.empty()) impl_->Terminate(id, evaluator);
}

int EngineService::MaxJobsPerClient() const { return impl_->config.max_jobs_per_client; }

int EngineService::RunningJobs() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->Running();
}

}  // namespace vz
