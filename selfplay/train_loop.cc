#include "selfplay/train_loop.h"

#if VZ_HAVE_TORCH

#include <fmt/core.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/games.h"
#include "nets/augment.h"
#include "nets/fresh_net.h"
#include "nets/net_evaluator.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"
#include "nets/trainer.h"
#include "selfplay/game_record.h"
#include "arena/match.h"
#include "selfplay/replay_window.h"
#include "selfplay/run_dir.h"
#include "selfplay/run_report.h"
#include "selfplay/selfplay_actors.h"
#include "selfplay/train_config.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

std::atomic<bool> g_stop{false};
std::atomic<int> g_signals{0};

void OnSignal(int) {
  if (g_signals.fetch_add(1) >= 1) _exit(130);
  g_stop.store(true);
}

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Duration(double seconds) {
  const int64_t s = int64_t(seconds);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{:02}:{:02}", s / 60, s % 60);
}

// The self-play evaluator: the GPU evaluator on a CUDA device, the LibTorch one on the CPU.
template <Game G>
std::unique_ptr<Evaluator<G>> MakeSelfPlayEvaluator(const nets::NetFile& net,
                                                    const std::string& source,
                                                    const std::string& device,
                                                    const std::string& precision) {
  return nets::MakeNetEvaluator<G>(net, source, device, precision);
}

template <Game G>
class TrainLoop {
 public:
  TrainLoop(const TrainRequest& request, RunLog& log)
      : request_(request),
        config_(request.config),
        dir_(request.run_dir),
        log_(log),
        metrics_((dir_ / "metrics.jsonl").string()),
        window_(int(config_.replay().window_games())) {}

  TrainOutcome Run() {
    Setup();
    const Clock::time_point start = Clock::now();
    auto limit_reached = [&]() -> std::string {
      const proto::StopConfig& stop = config_.stop();
      if (stop.minutes() > 0 && SecondsSince(start) >= 60.0 * stop.minutes())
        return fmt::format("{} minutes", stop.minutes());
      if (stop.train_steps() > 0 && uint64_t(trainer_->step()) >= stop.train_steps())
        return fmt::format("{} training steps", stop.train_steps());
      if (stop.games() > 0 && uint64_t(total_games_) >= stop.games())
        return fmt::format("{} games", stop.games());
      return "";
    };
    std::string reason;
    std::vector<proto::GameRecord> finished;
    Clock::time_point last_status{};
    while (!g_stop.load()) {
      reason = limit_reached();
      if (!reason.empty()) break;
      const Clock::time_point round_start = Clock::now();
      finished.clear();
      actors_->RunRound(*evaluator_, finished);
      selfplay_seconds_ += SecondsSince(round_start);
      for (proto::GameRecord& record : finished) AddFinishedGame(std::move(record));
      if (pending_.size() >= config_.selfplay().games_per_chunk()) {
        WriteChunk();
        TrainPhase();
      }
      if (SecondsSince(last_status) >= 0.5) {
        log_.Status(StatusLine(SecondsSince(start)));
        last_status = Clock::now();
      }
    }
    const bool interrupted = reason.empty();
    if (interrupted) {
      log_.Info("stopping: signal received");
    } else {
      log_.Info("stopping: reached " + reason);
    }
    Checkpoint();
    elapsed_before_ += SecondsSince(start);
    SaveState();

    TrainOutcome outcome;
    outcome.run_dir = dir_.string();
    outcome.best_net = (dir_ / "nets" / "best.vznet").string();
    outcome.steps = trainer_->step();
    outcome.games = total_games_;
    outcome.positions = total_positions_;
    outcome.generation = generation_;
    outcome.interrupted = interrupted;
    log_.Info(RatesLine());
    if (!interrupted && config_.evaluation().games() > 0) {
      try {
        outcome.evaluation = Evaluate();
      } catch (const MatchStopped&) {
        log_.Info("evaluation stopped by a signal");
        outcome.interrupted = true;
      }
    }
    DrawPlots();
    return outcome;
  }

 private:
  // --- setup and resume -------------------------------------------------------------------------

  void Setup() {
    for (const char* sub : {"records/pending", "checkpoints", "nets", "plots"}) {
      std::error_code error;
      fs::create_directories(dir_ / sub, error);
      if (error) {
        throw Error(fmt::format("run directory {}: cannot create {}: {}", dir_.string(), sub,
                                error.message()));
      }
    }
    const std::string initial_path = (dir_ / "nets" / "initial.vznet").string();
    nets::NetFile initial;
    if (fs::exists(initial_path)) {
      initial = nets::ReadNetFile(initial_path);
      nets::CheckNetForGame<G>(initial, initial_path);
    } else if (!request_.init_net.empty()) {
      initial = nets::ReadNetFile(request_.init_net);
      nets::CheckNetForGame<G>(initial, request_.init_net);
      nets::WriteNetFile(initial_path, initial);
      log_.Info("starting from net " + request_.init_net);
    } else {
      initial = nets::FreshNetForGame<G>(config_.net().preset(), config_.net().seed());
      nets::WriteNetFile(initial_path, initial);
    }
    initial_path_ = initial_path;

    // The trainer: from the checkpoint when there is one, else from the initial weights.
    nets::TrainerOptions options;
    const proto::OptimizerConfig& o = config_.optimizer();
    options.optimizer = o.optimizer();
    options.learning_rate = o.learning_rate();
    options.momentum = o.momentum();
    options.weight_decay = o.weight_decay();
    options.schedule = o.schedule();
    options.total_steps = int64_t(o.total_steps());
    options.warmup_steps = int64_t(o.warmup_steps());
    options.device = ResolveDevice(o.device());
    options.seed = config_.seed();
    trainer_ = std::make_unique<nets::Trainer>(initial, options);
    checkpoint_path_ = (dir_ / "checkpoints" / "trainer.ckpt").string();
    if (nets::CheckpointExists(checkpoint_path_)) {
      const nets::CheckpointLoad load = trainer_->LoadCheckpoint(checkpoint_path_);
      for (const std::string& warning : load.warnings) log_.Info("warning: " + warning);
    }
    last_checkpoint_step_ = trainer_->step();

    ReadState();
    LoadRecords();

    // The best net: the highest promotion on disk (the files are the truth, state.json may lag).
    generation_ = HighestGeneration(dir_ / "nets");
    best_path_ = generation_ > 0 ? (dir_ / "nets" / GenerationFile(generation_)).string()
                                 : initial_path;
    const nets::NetFile best = nets::ReadNetFile(best_path_);
    nets::WriteNetFile((dir_ / "nets" / "best.vznet").string(), best);
    selfplay_device_ = ResolveDevice(config_.selfplay().device());
    evaluator_ = MakeSelfPlayEvaluator<G>(best, best_path_, selfplay_device_,
                                           config_.selfplay().precision());
    actors_ = std::make_unique<SelfPlayActors<G>>(config_.selfplay(), config_.seed(),
                                                  next_game_index_, worker_,
                                                  TrainConfigHash(config_));
    actors_->set_net_id(NetId());

    const bool resumed = trainer_->step() > 0 || total_games_ > 0;
    log_.Info(fmt::format(
        "{} {}: {} (step {}, {} games, {} positions, generation {}); self-play on {}, "
        "training on {}; {} games in flight, {} simulations a move",
        resumed ? "resuming run" : "new run", dir_.string(), G::kName, trainer_->step(),
        total_games_, total_positions_, generation_, selfplay_device_, options.device,
        actors_->concurrent_games(), config_.selfplay().simulations()));
    // A candidate whose gating was cut short by a stop is gated now.
    const int64_t every = int64_t(config_.optimizer().checkpoint_every_steps());
    if (trainer_->step() > 0 && trainer_->step() % every == 0 &&
        last_gated_step_ < trainer_->step()) {
      if (PromotedStep((dir_ / "nets").string()) >= trainer_->step()) {
        // Killed between the promotion and state.json: the promoted net is the verdict.
        last_gated_step_ = trainer_->step();
        log_.Info(fmt::format("step {} was promoted to {} before the run stopped; not gated again",
                              trainer_->step(), NetId()));
        SaveState();
      } else {
        Gate();
      }
    }
  }

  void ReadState() {
    const fs::path path = dir_ / "state.json";
    if (!fs::exists(path)) return;
    try {
      const json state = json::parse(ReadWholeFile(path.string()));
      elapsed_before_ = state.value("elapsed_seconds", 0.0);
      last_gated_step_ = state.value("last_gated_step", int64_t{0});
      last_gating_ = state.value("last_gating", std::string());
    } catch (const json::exception& e) {
      log_.Info(fmt::format("warning: {} is not valid JSON ({}); counters restart from the "
                            "record files",
                            path.string(), e.what()));
    }
  }

  static std::string ReadWholeFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read " + path);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }

  void SaveState() {
    json state;
    state["variant"] = std::string(G::kName);
    state["step"] = trainer_->step();
    state["games"] = total_games_;
    state["positions"] = total_positions_;
    state["generation"] = generation_;
    state["best_net"] = best_path_;
    state["last_gated_step"] = last_gated_step_;
    state["last_gating"] = last_gating_;
    state["elapsed_seconds"] = elapsed_before_;
    WriteFileAtomically((dir_ / "state.json").string(), state.dump(2) + "\n");
  }

  // Reads every record file: totals, the game numbers already used, the replay window.
  void LoadRecords() {
    std::set<uint64_t> indices;
    std::deque<std::pair<proto::GameRecord, std::string>> recent;
    const size_t window = config_.replay().window_games();
    auto take = [&](proto::GameRecord&& record, const std::string& source) {
      indices.insert(record.index());
      ++total_games_;
      for (const proto::MoveRecord& move : record.moves()) total_positions_ += move.has_target();
      next_game_index_ = std::max<int64_t>(next_game_index_, int64_t(record.index()) + 1);
      recent.emplace_back(std::move(record), source);
      if (recent.size() > window) recent.pop_front();
    };
    for (const std::string& path : ListRecordChunks((dir_ / "records").string())) {
      // Only this process's numbered chunks (not the workers' chunk-<worker>-N) set the next one.
      const auto id = ParseRecordChunkName(fs::path(path).filename().string());
      if (id && id->worker.empty()) next_chunk_ = std::max(next_chunk_, id->number + 1);
      std::vector<proto::GameRecord> records;
      try {
        records = ReadRecordChunk(path);
      } catch (const Error& e) {
        log_.Info(fmt::format("warning: skipping record file: {}", e.what()));
        continue;
      }
      for (proto::GameRecord& record : records) take(std::move(record), path);
    }
    for (const std::string& path : ListRecordChunks((dir_ / "records" / "pending").string())) {
      std::vector<proto::GameRecord> records;
      try {
        records = ReadRecordChunk(path);
      } catch (const Error& e) {
        log_.Info(fmt::format("warning: skipping record file: {}", e.what()));
        continue;
      }
      for (proto::GameRecord& record : records) {
        if (indices.count(record.index()) != 0) {
          // Already in a chunk: the run stopped between writing the chunk and deleting this.
          std::error_code error;
          fs::remove(path, error);
          continue;
        }
        pending_.push_back({record, path});
        take(std::move(record), path);
      }
    }
    for (auto& [record, source] : recent) {
      try {
        window_.AddGame(record, source);
      } catch (const Error& e) {
        log_.Info(fmt::format("warning: game {} not used for training: {}", record.index(),
                              e.what()));
      }
    }
  }

  std::string NetId() const { return fmt::format("best-{:04d}", generation_); }

  // --- self-play ----------------------------------------------------------------------------------

  void AddFinishedGame(proto::GameRecord&& record) {
    const std::string path =
        (dir_ / "records" / "pending" / RecordChunkName(int64_t(record.index()))).string();
    WriteRecordChunk(path, {record});
    ++total_games_;
    for (const proto::MoveRecord& move : record.moves()) total_positions_ += move.has_target();
    try {
      window_.AddGame(record, path);
    } catch (const Error& e) {
      log_.Info(fmt::format("warning: game {} not used for training: {}", record.index(),
                            e.what()));
    }
    pending_.push_back({std::move(record), path});
  }

  // Moves the pending games into the next chunk file, then deletes their single files.
  void WriteChunk() {
    if (pending_.empty()) return;
    std::vector<proto::GameRecord> records;
    records.reserve(pending_.size());
    for (const auto& [record, path] : pending_) records.push_back(record);
    const std::string path = (dir_ / "records" / RecordChunkName(next_chunk_++)).string();
    WriteRecordChunk(path, records);
    for (const auto& [record, pending_path] : pending_) {
      std::error_code error;
      fs::remove(pending_path, error);
    }
    pending_.clear();

    const ActorStats& s = actors_->stats();
    const double rate = selfplay_seconds_ > 0 ? double(s.positions) / selfplay_seconds_ : 0.0;
    const double false_rate =
        s.would_have_resigned > 0 ? double(s.false_resignations) / double(s.would_have_resigned)
                                  : 0.0;
    json m = {{"type", "selfplay"},
              {"time", nets::UtcNow()},
              {"step", trainer_->step()},
              {"games", total_games_},
              {"positions", total_positions_},
              {"chunk", path},
              {"positions_per_second", rate},
              {"evaluations_per_second",
               selfplay_seconds_ > 0 ? double(s.evaluated) / selfplay_seconds_ : 0.0},
              {"mean_batch", s.rounds > 0 ? double(s.evaluated) / double(s.rounds) : 0.0},
              {"mean_plies", s.games > 0 ? double(s.plies) / double(s.games) : 0.0},
              {"white_wins", s.white_wins},
              {"draws", s.draws},
              {"black_wins", s.black_wins},
              {"resigned", s.resigned},
              {"adjudicated", s.adjudicated},
              {"resign_disabled_games", s.resign_disabled},
              {"would_have_resigned", s.would_have_resigned},
              {"false_resignations", s.false_resignations},
              {"false_resignation_rate", false_rate}};
    metrics_.Write(m);
    log_.Info(fmt::format(
        "games {} (+{} this session: W {} D {} L {}, {} resigned, {} adjudicated, mean {:.0f} "
        "plies), positions {}, {:.1f} positions/s; false resignations {}/{}",
        total_games_, s.games, s.white_wins, s.draws, s.black_wins, s.resigned, s.adjudicated,
        s.games > 0 ? double(s.plies) / double(s.games) : 0.0, total_positions_, rate,
        s.false_resignations, s.would_have_resigned));
  }

  // --- training -----------------------------------------------------------------------------------

  // Training steps allowed now by the sample cap.
  bool MayTrain() const {
    const proto::ReplayConfig& r = config_.replay();
    if (window_.num_positions() < int64_t(r.min_positions()) || window_.num_positions() == 0)
      return false;
    const double batch = double(config_.optimizer().batch_size());
    const double trained = double(trainer_->step()) * batch;
    // The cap (0 = none): training samples per self-play position.
    if (r.max_samples_per_new_sample() > 0 &&
        trained + batch > double(r.max_samples_per_new_sample()) * double(total_positions_))
      return false;
    const uint64_t max_steps = config_.stop().train_steps();
    return max_steps == 0 || uint64_t(trainer_->step()) < max_steps;
  }

  void TrainPhase() {
    if (!MayTrain()) return;
    const Clock::time_point start = Clock::now();
    const int batch_size = int(config_.optimizer().batch_size());
    const int64_t every = int64_t(config_.optimizer().checkpoint_every_steps());
    const int64_t first_step = trainer_->step();
    double sums[6] = {};
    int steps = 0;
    auto flush_metrics = [&]() {
      if (steps == 0) return;
      const double n = double(steps);
      last_loss_ = sums[0] / n;
      last_policy_loss_ = sums[1] / n;
      last_value_loss_ = sums[2] / n;
      json m = {{"type", "train"},
                {"time", nets::UtcNow()},
                {"step", trainer_->step()},
                {"games", total_games_},
                {"positions", total_positions_},
                {"window_positions", window_.num_positions()},
                {"loss", last_loss_},
                {"policy_loss", last_policy_loss_},
                {"value_loss", last_value_loss_},
                {"policy_accuracy", sums[3] / n},
                {"value_accuracy", sums[4] / n},
                {"learning_rate", sums[5] / n},
                {"samples_per_second", train_seconds_ > 0 ? double(samples_trained_session_) /
                                                                train_seconds_
                                                          : 0.0}};
      metrics_.Write(m);
      std::fill(std::begin(sums), std::end(sums), 0.0);
      steps = 0;
    };
    while (!g_stop.load() && MayTrain()) {
      window_.Sample(batch_size, [&] { return trainer_->NextRandom(); }, batch_);
      if (config_.optimizer().augment()) {
        nets::AugmentBatch<G>(batch_, [&] { return trainer_->NextRandom(); });
      }
      const Clock::time_point step_start = Clock::now();
      const nets::TrainMetrics m = trainer_->Step(batch_);
      train_seconds_ += SecondsSince(step_start);
      samples_trained_session_ += batch_size;
      sums[0] += m.loss;
      sums[1] += m.policy_loss;
      sums[2] += m.value_loss;
      sums[3] += m.policy_accuracy;
      sums[4] += m.value_accuracy;
      sums[5] += m.learning_rate;
      ++steps;
      if (steps >= 20) flush_metrics();
      if (trainer_->step() % every == 0) {
        flush_metrics();
        Checkpoint();
        SaveState();
        Gate();
      }
    }
    flush_metrics();
    Checkpoint();
    SaveState();
    log_.Info(fmt::format("steps {} -> {} in {:.1f} s: loss {:.3f} (policy {:.3f}, value {:.3f})",
                          first_step, trainer_->step(), SecondsSince(start), last_loss_,
                          last_policy_loss_, last_value_loss_));
  }

  void Checkpoint() {
    if (trainer_->step() == last_checkpoint_step_ && fs::exists(checkpoint_path_)) return;
    trainer_->SaveCheckpoint(checkpoint_path_);
    last_checkpoint_step_ = trainer_->step();
  }

  // --- gating and promotion -------------------------------------------------------------------

  MatchConfig MatchFor(const std::string& player1, const std::string& player2, int games,
                       int opening_plies, uint64_t seed) const {
    MatchConfig match;
    match.player1 = player1;
    match.player2 = player2;
    match.games = games;
    match.openings = opening_plies > 0 ? fmt::format("random:{}", opening_plies) : "";
    match.concurrency = games;
    match.max_plies = int(config_.selfplay().max_plies());
    match.adjudication = config_.selfplay().adjudication() == proto::MATERIAL
                             ? Adjudication::kMaterial
                             : Adjudication::kDraw;
    match.material_margin = config_.selfplay().material_margin();
    match.seed = seed;
    match.stop = &g_stop;
    return match;
  }

  void Gate() {
    const int64_t step = trainer_->step();
    const nets::NetFile candidate = trainer_->ExportNet(uint64_t(total_games_), NetId());
    const std::string candidate_path = (dir_ / "nets" / "candidate.vznet").string();
    nets::WriteNetFile(candidate_path, candidate);
    const proto::GatingConfig& g = config_.gating();
    bool promote = true;
    json m = {{"type", "gating"}, {"time", nets::UtcNow()}, {"step", step},
              {"games_played", total_games_}, {"enabled", g.enabled()}};
    if (g.enabled()) {
      const std::string sims = std::to_string(g.simulations());
      const MatchConfig match =
          MatchFor("net:" + candidate_path + ":" + sims, "net:" + best_path_ + ":" + sims,
                   int(g.games()), int(g.opening_plies()), config_.seed() + uint64_t(step));
      const Clock::time_point start = Clock::now();
      MatchSummary summary;
      try {
        summary = RunMatch(G::kName, match);
      } catch (const MatchStopped&) {
        log_.Info(fmt::format("gating of step {} stopped by a signal; it runs again on resume",
                              step));
        return;
      }
      const double score = summary.Score();
      promote = score >= g.threshold();
      const double error = summary.elo.interval_defined
                               ? (summary.elo.elo_high - summary.elo.elo_low) / 2.0
                               : 0.0;
      const std::string elo =
          summary.elo.interval_defined
              ? fmt::format("{:+.0f} Elo +- {:.0f}", summary.elo.elo + 0.0, error)
              : fmt::format("{:+.0f} Elo (interval n/a)", summary.elo.elo + 0.0);
      last_gating_ = fmt::format("step {}: {}, score {:.3f}{}", step, elo, score,
                                 promote ? " promoted" : "");
      m["score"] = score;
      m["wins"] = summary.wins;
      m["draws"] = summary.draws;
      m["losses"] = summary.losses;
      m["elo"] = summary.elo.elo;
      m["elo_low"] = summary.elo.elo_low;
      m["elo_high"] = summary.elo.elo_high;
      m["elo_interval_defined"] = summary.elo.interval_defined;
      m["threshold"] = g.threshold();
      log_.Info(fmt::format(
          "gating at step {}: candidate vs {}: W {} D {} L {}, score {:.3f} (threshold {:.2f}), "
          "{} in {:.0f} s -> {}",
          step, NetId(), summary.wins, summary.draws, summary.losses, score, g.threshold(), elo,
          SecondsSince(start), promote ? "promoted" : "kept the best"));
    } else {
      last_gating_ = fmt::format("step {}: promoted (gating off)", step);
    }
    if (promote) {
      ++generation_;
      const std::string path = (dir_ / "nets" / GenerationFile(generation_)).string();
      nets::NetFile net = candidate;
      net.provenance.note = fmt::format("vzero train generation {}", generation_);
      nets::WriteNetFile(path, net);
      nets::WriteNetFile((dir_ / "nets" / "best.vznet").string(), net);
      best_path_ = path;
      evaluator_ = MakeSelfPlayEvaluator<G>(net, path, selfplay_device_,
                                             config_.selfplay().precision());
      actors_->set_net_id(NetId());
      if (!g.enabled()) log_.Info(fmt::format("step {}: promoted to {}", step, NetId()));
    }
    m["promoted"] = promote;
    m["generation"] = generation_;
    metrics_.Write(m);
    last_gated_step_ = step;
    SaveState();
  }

  // --- end of run -----------------------------------------------------------------------------

  std::string Evaluate() {
    const proto::EvaluationConfig& e = config_.evaluation();
    const std::string sims = std::to_string(e.simulations());
    const std::string best = "net:" + (dir_ / "nets" / "best.vznet").string() + ":" + sims;
    const std::string opponents[2] = {"net:" + initial_path_ + ":" + sims, "rollout:" + sims};
    const char* names[2] = {"initial net", "rollout search"};
    std::string report = fmt::format(
        "evaluation of {} ({}, step {}, {} games of self-play): {} paired games per opponent, "
        "{} simulations a move, {} random opening plies, over-long games after {} plies "
        "adjudicated by {}\n",
        (dir_ / "nets" / "best.vznet").string(), NetId(), trainer_->step(), total_games_,
        e.games(), e.simulations(), e.opening_plies(), config_.selfplay().max_plies(),
        config_.selfplay().adjudication() == proto::MATERIAL
            ? fmt::format("material (margin {})", config_.selfplay().material_margin())
            : std::string("draw"));
    for (int k = 0; k < 2; ++k) {
      log_.Info(fmt::format("evaluation: best net vs {} ({} games)", names[k], e.games()));
      const MatchConfig match = MatchFor(best, opponents[k], int(e.games()),
                                         int(e.opening_plies()), config_.seed() * 7919 + 17 + k);
      const MatchSummary summary = RunMatch(G::kName, match);
      const double error = summary.elo.interval_defined
                               ? (summary.elo.elo_high - summary.elo.elo_low) / 2.0
                               : 0.0;
      const std::string line = fmt::format(
          "best net vs {}: W {} D {} L {}, score {:.3f}, Elo {:+.0f} {}, {} adjudicated",
          names[k], summary.wins, summary.draws, summary.losses, summary.Score(),
          summary.elo.elo + 0.0,
          summary.elo.interval_defined ? fmt::format("+- {:.0f}", error)
                                       : std::string("(interval n/a)"),
          summary.adjudicated);
      report += line + "\n";
      log_.Info(line);
      metrics_.Write({{"type", "evaluation"},
                      {"time", nets::UtcNow()},
                      {"step", trainer_->step()},
                      {"opponent", names[k]},
                      {"games", summary.wins + summary.draws + summary.losses},
                      {"wins", summary.wins},
                      {"draws", summary.draws},
                      {"losses", summary.losses},
                      {"score", summary.Score()},
                      {"elo", summary.elo.elo},
                      {"elo_low", summary.elo.elo_low},
                      {"elo_high", summary.elo.elo_high},
                      {"adjudicated", summary.adjudicated}});
    }
    WriteFileAtomically((dir_ / "evaluation.txt").string(), report);
    return report;
  }

  void DrawPlots() {
    try {
      for (const std::string& file : DrawRunPlots(dir_.string())) log_.Info("plot: " + file);
    } catch (const Error& e) {
      log_.Info(fmt::format("warning: no plots: {}", e.what()));
    }
  }

  std::string RatesLine() const {
    const ActorStats& s = actors_->stats();
    return fmt::format(
        "this session: {} self-play positions in {:.0f} s ({:.1f} positions/s, {:.1f} "
        "evaluations/s, mean batch {:.1f}); {} training samples in {:.0f} s ({:.0f} samples/s)",
        s.positions, selfplay_seconds_,
        selfplay_seconds_ > 0 ? double(s.positions) / selfplay_seconds_ : 0.0,
        selfplay_seconds_ > 0 ? double(s.evaluated) / selfplay_seconds_ : 0.0,
        s.rounds > 0 ? double(s.evaluated) / double(s.rounds) : 0.0, samples_trained_session_,
        train_seconds_, train_seconds_ > 0 ? double(samples_trained_session_) / train_seconds_
                                           : 0.0);
  }

  std::string StatusLine(double session_seconds) const {
    const ActorStats& s = actors_->stats();
    std::string line = fmt::format(
        "{} | games {} | positions {} ({:.1f}/s) | step {} | loss {:.3f} (p {:.3f} v {:.3f}) | "
        "gen {}",
        G::kName, total_games_, total_positions_,
        selfplay_seconds_ > 0 ? double(s.positions) / selfplay_seconds_ : 0.0, trainer_->step(),
        last_loss_, last_policy_loss_, last_value_loss_, generation_);
    if (!last_gating_.empty()) line += " | gating " + last_gating_;
    line += " | " + Duration(elapsed_before_ + session_seconds);
    return line;
  }

  const TrainRequest& request_;
  proto::TrainConfig config_;
  fs::path dir_;
  RunLog& log_;
  MetricsFile metrics_;
  ReplayWindow<G> window_;
  std::unique_ptr<nets::Trainer> trainer_;
  std::unique_ptr<Evaluator<G>> evaluator_;
  std::unique_ptr<SelfPlayActors<G>> actors_;
  std::vector<std::pair<proto::GameRecord, std::string>> pending_;  // record, its single file
  nets::TrainingBatch batch_;
  std::string worker_ = fmt::format("train-{}", ::getpid());
  std::string initial_path_, best_path_, checkpoint_path_, selfplay_device_;
  std::string last_gating_;
  int generation_ = 0;
  int64_t total_games_ = 0, total_positions_ = 0;
  int64_t next_game_index_ = 0, next_chunk_ = 0;
  int64_t last_checkpoint_step_ = -1, last_gated_step_ = 0;
  int64_t samples_trained_session_ = 0;
  double selfplay_seconds_ = 0, train_seconds_ = 0, elapsed_before_ = 0;
  double last_loss_ = 0, last_policy_loss_ = 0, last_value_loss_ = 0;
};

}  // namespace

void RequestTrainingStop() { g_stop.store(true); }

void InstallTrainingSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

TrainOutcome RunTraining(const TrainRequest& request) {
  ValidateTrainConfig(request.config);
  const fs::path dir(request.run_dir);
  if (request.run_dir.empty()) throw Error("train: the run directory is empty");
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    throw Error(fmt::format("run directory {}: cannot create it: {}", request.run_dir,
                            error.message()));
  }
  if (const auto saved = SavedConfig(dir)) {
    if (TrainConfigHash(*saved) != TrainConfigHash(request.config)) {
      throw Error(fmt::format(
          "run directory {} holds a run of another config ({}; only the stop section may "
          "change): resume it with the same settings, or use a new --run-dir",
          request.run_dir, (dir / "config.txtpb").string()));
    }
  }
  // One `vzero train` (or trainer role) per run directory, held until return or death; then the
  // temporary files of saves cut by a kill are ours to delete.
  const RunLock lock(request.run_dir, "lock", "vzero train");
  const int removed = RemoveTemporaryFiles(
      request.run_dir,
      {"records", "records/pending", "checkpoints", "nets", "nets/candidates", "plots"});
  WriteFileAtomically((dir / "config.txtpb").string(), TrainConfigText(request.config));
  g_stop.store(false);
  RunLog log((dir / "train.log").string(), request.live);
  if (removed > 0) {
    log.Info(fmt::format("removed {} temporary file(s) of saves cut short by a kill", removed));
  }
  TrainOutcome outcome;
  WithGame(request.config.variant(), [&]<Game G>() {
    TrainLoop<G> loop(request, log);
    outcome = loop.Run();
  });
  return outcome;
}

}  // namespace vz

#else  // !VZ_HAVE_TORCH

#include "engine/core/error.h"

namespace vz {
void RequestTrainingStop() {}
void InstallTrainingSignalHandlers() {}
TrainOutcome RunTraining(const TrainRequest&) {
  throw Error("train: this vzero was built without LibTorch (VZ_USE_TORCH=OFF)");
}
}  // namespace vz

#endif
