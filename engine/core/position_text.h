#pragma once

// Helpers shared by the games' position-string parsers (engine/<game>/notation.cc): splitting a
// FEN-like string into fields and reading its counter fields (half-move clock, move number, the
// draughts counters). Each game keeps its own error messages; these functions only report
// whether the text is well formed. Pure functions; thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vz {

// True for the blanks that separate the fields of a position string: space, tab, CR, LF.
constexpr bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The fields of `text` separated by runs of blanks, without empty fields:
// " a  b\tc\n" -> {"a", "b", "c"}; "" -> {}. The views point into `text`.
std::vector<std::string_view> SplitBlanks(std::string_view text);

// The parts of `text` between every `separator`, empty parts kept: "a//b" with '/' ->
// {"a", "", "b"}; "" -> {""}. The views point into `text`.
std::vector<std::string_view> SplitAt(std::string_view text, char separator);

// `text` without leading and trailing blanks.
std::string_view TrimBlanks(std::string_view text);

// The value of a counter field: `text` is a non-empty run of the digits 0-9 (no sign, no blanks)
// whose value lies in [minimum, maximum]. Returns nullopt for anything else, overflow included.
std::optional<uint32_t> ParseCounter(std::string_view text, uint32_t minimum, uint32_t maximum);

// `text` in single quotes, as error messages name an input: "e4" -> "'e4'".
std::string Quote(std::string_view text);

}  // namespace vz
