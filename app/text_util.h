#pragma once

// Small text helpers shared by the subcommands.

#include <string>
#include <vector>

namespace vz::app {

// The whitespace-separated words of `text` (a --moves option) in order; empty for blank text.
std::vector<std::string> SplitMoves(const std::string& text);

}  // namespace vz::app
