#pragma once

// Helpers shared by the libFuzzer targets of tests/fuzz (README.md there): choosing a game from a
// byte, splitting an input into lines, and the invariant check whose failure is a finding.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "engine/games.h"

namespace vz::fuzz {

// Aborts (a libFuzzer finding, with the input saved) when `condition` is false: an invariant of
// the code under test that bad input must not break.
#define VZ_FUZZ_CHECK(condition)                                                       \
  do {                                                                                 \
    if (!(condition)) {                                                                \
      std::fprintf(stderr, "fuzz invariant failed at %s:%d: %s\n", __FILE__, __LINE__, \
                   #condition);                                                        \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)

// Calls `f.template operator()<G>()` for game number `selector` (modulo the number of games) of
// engine/games.h's AllGames.
template <class F>
void WithGameNumber(uint8_t selector, F&& f) {
  WithGameAt(int(selector) % int(kGameNames.size()), f);
}

// The lines of `text` without their '\n' (a last line without one included).
inline std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace vz::fuzz
