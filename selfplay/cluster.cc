// The parts of the roles (selfplay/cluster.h) that every role shares: the stop flag and its signal
// handlers, what `vzero train`'s threads share, the run's config, the default worker id.

#include "selfplay/cluster.h"

#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include "selfplay/train_config.h"

namespace vz {
namespace {

std::atomic<bool> g_role_stop{false};
std::atomic<int> g_role_signals{0};

void OnRoleSignal(int) {
  if (g_role_signals.fetch_add(1) >= 1) _exit(130);
  g_role_stop.store(true);
}

}  // namespace

std::atomic<bool>& RoleStopFlag() { return g_role_stop; }

void InstallRoleSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = OnRoleSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void SharedRun::Finish() {
  finish_.store(true);
  Notify();
}

void SharedRun::Notify() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    ++epoch_;
  }
  changed_.notify_all();
}

void SharedRun::Wait(uint64_t& seen, double seconds) {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return epoch_ != seen; });
  seen = epoch_;
}

void WaitForNews(SharedRun* shared, uint64_t& seen, double seconds) {
  if (shared != nullptr) {
    shared->Wait(seen, seconds);
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  }
}

std::optional<proto::TrainConfig> WaitForRunConfig(
    const std::string& dir, const RunConfigChoice& choice, double poll_seconds,
    const std::atomic<bool>& stop, const std::function<void()>& waiting, bool adopt) {
  if (choice.chosen()) {
    proto::TrainConfig config = ConfigFromChoice(choice);
    if (adopt) AdoptRunConfig(dir, config);
    return config;
  }
  bool told = false;
  for (;;) {
    if (const std::optional<proto::TrainConfig> saved = SavedConfig(dir)) {
      return OverrideSavedConfig(*saved, choice.overrides, dir);
    }
    if (stop.load()) return std::nullopt;
    if (!told && waiting) waiting();
    told = true;
    std::this_thread::sleep_for(std::chrono::duration<double>(poll_seconds));
  }
}

std::string RunNetPlayer(const proto::TrainConfig& config, const std::string& net_path,
                         uint32_t simulations) {
  return fmt::format("net:{}:{}{}", net_path, simulations,
                     config.evaluation().leaf_quiescence() ? ":qs" : "");
}

MatchConfig RunMatchConfig(const proto::TrainConfig& config, const std::string& player1,
                           const std::string& player2, int games, int opening_plies,
                           uint64_t seed) {
  MatchConfig match;
  match.player1 = player1;
  match.player2 = player2;
  match.games = games;
  match.openings = opening_plies > 0 ? fmt::format("random:{}", opening_plies) : "";
  match.concurrency = games;
  match.max_plies = int(config.selfplay().max_plies());
  match.adjudication = config.selfplay().adjudication() == proto::MATERIAL ? Adjudication::kMaterial
                                                                           : Adjudication::kDraw;
  match.material_margin = config.selfplay().material_margin();
  match.seed = seed;
  match.stop = &RoleStopFlag();
  return match;
}

bool GateRoleNeeded(const proto::TrainConfig& config) {
  return EffectiveGatingMode(config.gating()) != GatingMode::kNone ||
         (config.strength().opponents_size() > 0 && config.strength().every_checkpoints() > 0);
}

std::string DefaultWorkerId() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') std::snprintf(host, 5, "host");
  std::string id;
  for (const char* c = host; *c != '\0' && id.size() < 40; ++c) {
    const bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                    (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-';
    id += ok ? *c : '_';
  }
  if (!((id[0] >= 'a' && id[0] <= 'z') || (id[0] >= 'A' && id[0] <= 'Z'))) id = "w" + id;
  return id + "-" + std::to_string(::getpid());
}

}  // namespace vz
