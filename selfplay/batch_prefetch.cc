#include "selfplay/batch_prefetch.h"

#include <fmt/core.h>

#include <chrono>
#include <stdexcept>
#include <utility>

namespace vz {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsBetween(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

}  // namespace

BatchPrefetcher::BatchPrefetcher() = default;

void BatchPrefetcher::Run(int64_t count, int64_t draws_per_batch,
                          const std::function<uint64_t()>& random, const Fill& fill,
                          const Train& train) {
  VZ_CHECK(count >= 0 && draws_per_batch >= 0);
  if (count == 0) return;
  const auto draw = [&](std::vector<uint64_t>& draws) {
    draws.resize(size_t(draws_per_batch));
    for (uint64_t& value : draws) value = random();
  };
  const Clock::time_point first = Clock::now();
  draw(draws_[0]);
  fill(draws_[0], batches_[0]);
  wait_seconds_ += SecondsBetween(first, Clock::now());
  for (int64_t k = 0; k < count; ++k) {
    const int current = int(k % 2), next = 1 - current;
    if (k + 1 == count) {
      train(batches_[current]);
      break;
    }
    draw(draws_[next]);
    // Each member catches its own exception: the team's Run then always returns after both
    // finished, and train()'s exception can take precedence over fill()'s.
    std::exception_ptr train_error, fill_error;
    Clock::time_point trained;
    team_.Run([&](int member) {
      if (member == 0) {
        try {
          train(batches_[current]);
        } catch (...) {
          train_error = std::current_exception();
        }
        trained = Clock::now();
      } else {
        try {
          fill(draws_[next], batches_[next]);
        } catch (...) {
          fill_error = std::current_exception();
        }
      }
    });
    wait_seconds_ += SecondsBetween(trained, Clock::now());
    if (train_error) std::rethrow_exception(train_error);
    if (fill_error) {
      try {
        std::rethrow_exception(fill_error);
      } catch (const Error&) {
        throw;
      } catch (const std::exception& e) {
        throw Error(fmt::format("sampling a training batch: {}", e.what()));
      } catch (...) {
        throw Error("sampling a training batch: an unknown exception");
      }
    }
  }
}

}  // namespace vz
