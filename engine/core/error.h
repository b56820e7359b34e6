#pragma once

// The one exception type for bad input (a malformed position string, an illegal move, a corrupted
// file, an unknown config key) and for failures of the environment (missing device, full disk).
// Its message is one line that names the input or resource and what is wrong; `vzero` prints it
// and exits with status 1. Modelled on Leela Chess Zero's single `Exception` type.
//
// Messages quote user input (position strings, moves, protocol lines, file names), which may hold
// any bytes: the constructor writes every byte outside printable ASCII (control characters, line
// breaks, DEL, and every byte of a non-ASCII UTF-8 character) as \xNN, so a message is always one
// line of printable ASCII, whatever a user typed or a file held.

#include <stdexcept>
#include <string>
#include <string_view>

namespace vz {

// `text` with each byte outside 0x20..0x7e written as "\xNN" (two uppercase hex digits); other
// bytes unchanged.
std::string PrintableText(std::string_view text);

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(PrintableText(message)) {}
};

}  // namespace vz
