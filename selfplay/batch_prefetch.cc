#include "selfplay/batch_prefetch.h"

#include <fmt/core.h>

#include <stdexcept>

namespace vz {

double PrefetchSecondsBetween(std::chrono::steady_clock::time_point start,
                              std::chrono::steady_clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

void RethrowSamplingError(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(fmt::format("sampling a training batch: {}", e.what()));
  } catch (...) {
    throw Error("sampling a training batch: an unknown exception");
  }
}

}  // namespace vz
