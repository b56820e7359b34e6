#pragma once

// The self-play actors of one worker as concurrent groups (issue 19): the games in flight are
// split into `groups` SelfPlayActors, each with its own evaluator and batches, and every round
// runs all groups at once on a TaskTeam (engine/core/task_team.h: the calling thread and
// groups - 1 persistent threads). On a CPU each group's tree work (descents, expansion, backup)
// and its network evaluation run on a core of their own; on a GPU one group's tree work overlaps
// another's forward pass. One group is the plain single-thread actor set.
//
// Game numbers interleave: group g numbers its games first + g, first + g + groups, ..., so they
// stay unique without a lock, and game k's random choices still depend on the seed and k alone
// (selfplay/selfplay_actors.h). Which games finish first, and so which net plays a game, depends
// on the threads' timing. Not thread-safe itself: one caller drives it.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/task_team.h"
#include "engine/search/evaluator.h"
#include "proto/train.pb.h"
#include "selfplay/selfplay_actors.h"

namespace vz {

// The counts of two actor sets added (a worker's groups together; the phase seconds become
// thread-seconds, summed over the groups). The resignation threshold in force is not a count:
// ConcurrentActors::stats() averages it over the groups.
inline ActorStats& operator+=(ActorStats& total, const ActorStats& s) {
  total.games += s.games;
  total.positions += s.positions;
  total.plies += s.plies;
  total.forced_moves += s.forced_moves;
  total.cheap_moves += s.cheap_moves;
  total.rounds += s.rounds;
  total.evaluated += s.evaluated;
  total.gather_seconds += s.gather_seconds;
  total.evaluate_seconds += s.evaluate_seconds;
  total.apply_seconds += s.apply_seconds;
  total.wait_seconds += s.wait_seconds;
  total.white_wins += s.white_wins;
  total.draws += s.draws;
  total.black_wins += s.black_wins;
  total.resigned += s.resigned;
  total.adjudicated += s.adjudicated;
  total.resign_disabled += s.resign_disabled;
  total.would_have_resigned += s.would_have_resigned;
  total.false_resignations += s.false_resignations;
  return total;
}

// The actor groups a worker runs for `config`: selfplay.actor_threads when set (at most one per
// game in flight), else one per CPU core (std::thread::hardware_concurrency) but at most one per
// 8 games in flight, so that the groups' batches stay large enough to be worth a network call;
// at least 1.
inline int ActorGroupCount(const proto::SelfPlayConfig& config) {
  const int games = int(std::max<uint32_t>(1, config.concurrent_games()));
  if (config.actor_threads() > 0) return std::min(int(config.actor_threads()), games);
  const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
  return std::max(1, std::min(cores, games / 8));
}

template <Game G>
class ConcurrentActors {
 public:
  // `config` must be valid (ValidateTrainConfig); `groups` >= 1 (throws vz::Error otherwise) is
  // capped at config.concurrent_games() so that every group plays at least one game; the games
  // in flight are shared out as evenly as possible. `on_thread_start(member)` runs first in each
  // helper thread (e.g. LibTorch's intra-op thread count); the other arguments as SelfPlayActors.
  ConcurrentActors(const proto::SelfPlayConfig& config, uint64_t seed, int64_t first_game_index,
                   const std::string& worker, uint64_t config_hash, int groups,
                   std::function<void(int)> on_thread_start = {})
      : team_(GroupCount(config, groups), std::move(on_thread_start)) {
    const int n = team_.size();
    const int games = int(std::max<uint32_t>(1, config.concurrent_games()));
    for (int g = 0; g < n; ++g) {
      proto::SelfPlayConfig share = config;
      share.set_concurrent_games(uint32_t(games / n + (g < games % n ? 1 : 0)));
      groups_.push_back(std::make_unique<SelfPlayActors<G>>(share, seed, first_game_index + g,
                                                            worker, config_hash, n));
    }
    finished_.resize(size_t(n));
  }

  int groups() const { return team_.size(); }
  // Games in flight over all groups.
  int concurrent_games() const {
    int games = 0;
    for (const auto& group : groups_) games += group->concurrent_games();
    return games;
  }

  // The net id recorded in the games started from now on, in every group.
  void set_net_id(const std::string& net_id) {
    for (auto& group : groups_) group->set_net_id(net_id);
  }

  // One round of every group at once, group g evaluating with evaluators[g] (groups() entries,
  // each used by one thread only during the call); the games that ended are appended to
  // `finished` in group order. Returns the positions evaluated. Throws vz::Error on a wrong
  // number of evaluators, and rethrows the first failure of a group (SelfPlayActors::RunRound;
  // every group's round has returned by then).
  int RunRound(std::span<Evaluator<G>* const> evaluators,
               std::vector<proto::GameRecord>& finished) {
    if (int(evaluators.size()) != groups()) {
      throw Error("concurrent actors: " + std::to_string(evaluators.size()) + " evaluators for " +
                  std::to_string(groups()) + " groups");
    }
    using Clock = std::chrono::steady_clock;
    std::vector<int> evaluated(groups_.size(), 0);
    std::vector<Clock::time_point> done(groups_.size());
    const Clock::time_point start = Clock::now();
    team_.Run([&](int g) {
      finished_[size_t(g)].clear();
      evaluated[size_t(g)] =
          groups_[size_t(g)]->RunRound(*evaluators[size_t(g)], finished_[size_t(g)]);
      done[size_t(g)] = Clock::now();
    });
    // Each group waited from its own end of the round to the last group's.
    const Clock::time_point last = *std::max_element(done.begin(), done.end());
    for (const Clock::time_point end : done) {
      wait_seconds_ += std::chrono::duration<double>(last - std::max(start, end)).count();
    }
    int total = 0;
    for (size_t g = 0; g < groups_.size(); ++g) {
      total += evaluated[g];
      for (proto::GameRecord& record : finished_[g]) finished.push_back(std::move(record));
    }
    return total;
  }

  // Counts of the games finished so far, over all groups; the resignation threshold in force is
  // the groups' mean (each group calibrates it from its own resign-disabled games); the groups'
  // waits for each other at the ends of rounds (wait_seconds).
  ActorStats stats() const {
    ActorStats total;
    float threshold = 0.0f;
    for (const auto& group : groups_) {
      total += group->stats();
      threshold += group->stats().resign_threshold;
    }
    total.resign_threshold = threshold / float(groups_.size());
    total.wait_seconds = wait_seconds_;
    return total;
  }

 private:
  static int GroupCount(const proto::SelfPlayConfig& config, int groups) {
    if (groups < 1) throw Error("concurrent actors: groups must be at least 1");
    return std::min(groups, int(std::max<uint32_t>(1, config.concurrent_games())));
  }

  TaskTeam team_;
  std::vector<std::unique_ptr<SelfPlayActors<G>>> groups_;
  std::vector<std::vector<proto::GameRecord>> finished_;  // [group] this round's finished games
  double wait_seconds_ = 0.0;                             // ActorStats::wait_seconds
};

}  // namespace vz
