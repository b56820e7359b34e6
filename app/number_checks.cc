#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "app/commands.h"

namespace vz::app {
namespace {

// The text without leading blanks (what strtod and strtoull skip).
std::string Trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t");
  return first == std::string::npos ? std::string() : text.substr(first);
}

const CLI::Validator kFinite(
    [](std::string& text) -> std::string {
      const std::string value = Trimmed(text);
      char* end = nullptr;
      const double number = std::strtod(value.c_str(), &end);
      if (end == value.c_str() || *end != '\0') return std::string();  // CLI11's own error
      return std::isfinite(number) ? std::string() : text + " is not a finite number";
    },
    "");

const CLI::Validator kUnsigned64(
    [](std::string& text) -> std::string {
      const std::string value = Trimmed(text);
      if (!value.empty() && value[0] == '-') return text + " is negative";
      char* end = nullptr;
      errno = 0;
      std::strtoull(value.c_str(), &end, 0);
      if (end != value.c_str() && *end == '\0' && errno == ERANGE) {
        return text + " is larger than 18446744073709551615";
      }
      return std::string();
    },
    "");

}  // namespace

void AddNumberChecks(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    if (type.rfind("FLOAT", 0) == 0) option->check(kFinite);
    if (type.rfind("UINT", 0) == 0) option->check(kUnsigned64);
  }
  for (CLI::App* subcommand : app.get_subcommands({})) AddNumberChecks(*subcommand);
}

}  // namespace vz::app
