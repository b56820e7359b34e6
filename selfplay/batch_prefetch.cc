#include "selfplay/batch_prefetch.h"

#include <fmt/core.h>

#include <stdexcept>

namespace vz {

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
