#pragma once

// Elapsed time for progress lines, metrics and budgets: the steady clock (never adjusted), so that
// a step of the wall clock cannot make a duration negative. Thread-safe.

#include <chrono>

namespace vz {

// Seconds of the steady clock since `start` (fractional; negative only for a `start` ahead).
inline double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace vz
