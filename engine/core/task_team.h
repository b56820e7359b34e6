#pragma once

// A fixed team of threads that runs one task per member, all at once, again and again: the caller
// is member 0 and `size - 1` persistent threads are the others, so that a round of work split in
// `size` parts (the self-play actor groups, selfplay/concurrent_actors.h) costs no thread start.
// Persistent threads also keep per-thread state between rounds (LibTorch's intra-op thread count,
// set once by `on_start`).

#include <barrier>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "engine/core/error.h"

namespace vz {

class TaskTeam {
 public:
  // `size` >= 1 members; `on_start(member)` runs first in each of the size - 1 threads (not in the
  // caller's). Throws vz::Error for size < 1; std::system_error when a thread cannot start (the
  // ones started are stopped and joined).
  explicit TaskTeam(int size, std::function<void(int)> on_start = {})
      : size_(size >= 1 ? size : throw Error("task team: size must be at least 1")),
        start_(size),
        done_(size) {
    try {
      for (int member = 1; member < size_; ++member) {
        threads_.emplace_back([this, member, on_start] { Loop(member, on_start); });
      }
    } catch (...) {
      Stop();
      throw;
    }
  }

  TaskTeam(const TaskTeam&) = delete;
  TaskTeam& operator=(const TaskTeam&) = delete;

  ~TaskTeam() { Stop(); }

  int size() const { return size_; }

  // Runs task(member) for every member in [0, size) concurrently (member 0 on the calling thread)
  // and returns when all have returned. Rethrows the first exception a member threw (after all
  // returned), or one that `on_start` threw before. Not reentrant: one Run at a time, from one
  // thread.
  void Run(const std::function<void(int)>& task) {
    task_ = &task;
    start_.arrive_and_wait();
    RunTask(0);
    done_.arrive_and_wait();
    task_ = nullptr;
    std::exception_ptr error;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      error = std::exchange(error_, nullptr);
    }
    if (error) std::rethrow_exception(error);
  }

 private:
  void Loop(int member, const std::function<void(int)>& on_start) {
    if (on_start) {
      try {
        on_start(member);
      } catch (...) {
        Fail(std::current_exception());
      }
    }
    for (;;) {
      start_.arrive_and_wait();
      if (stopping_) return;
      RunTask(member);
      done_.arrive_and_wait();
    }
  }

  void RunTask(int member) {
    try {
      (*task_)(member);
    } catch (...) {
      Fail(std::current_exception());
    }
  }

  void Fail(std::exception_ptr error) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!error_) error_ = error;
  }

  // Wakes the threads started so far with the stop flag set and joins them.
  void Stop() {
    if (threads_.empty()) return;
    stopping_ = true;
    // The threads not started never arrive: drop their places in this phase.
    for (int missing = size_ - 1 - int(threads_.size()); missing > 0; --missing) {
      start_.arrive_and_drop();
    }
    start_.arrive_and_wait();
    threads_.clear();  // jthread joins
  }

  const int size_;
  std::barrier<> start_;  // every member arrives before a round (or the stop) begins
  std::barrier<> done_;   // ... and after its task
  std::vector<std::jthread> threads_;
  const std::function<void(int)>* task_ = nullptr;  // written before start_, read after it
  bool stopping_ = false;                           // likewise
  std::mutex mutex_;                                // guards error_
  std::exception_ptr error_;
};

}  // namespace vz
