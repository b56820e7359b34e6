#pragma once

// The one exception type for bad input (a malformed position string, an illegal move, a corrupted
// file, an unknown config key) and for failures of the environment (missing device, full disk).
// Its message is one line that names the input or resource and what is wrong; `vzero` prints it
// and exits with status 1. Modelled on Leela Chess Zero's single `Exception` type.

#include <stdexcept>
#include <string>

namespace vz {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace vz
