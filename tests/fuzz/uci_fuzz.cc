// Fuzz target: UCI input lines (serve/uci_engine.h), handled in-process by the engine of `vzero
// uci` with the rollout evaluator. The harness sends `stop` after every line that starts a search
// and ends the input with Finish, so that an input costs milliseconds; the options that take the
// machine's resources by design (Hash, Threads) keep their defaults (lines naming them are
// skipped), and the engine starts with small searches (Nodes 16, Hash 1 MiB).
// Input: the lines of the protocol stream. Checks: no crash, leak or hang (Handle never throws).

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "serve/uci_engine.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

bool Mentions(std::string_view line, std::string_view word) {
  std::string lower(line);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return lower.find(word) != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vz::UciOptions options;
  options.nodes = 16;
  options.hash_mib = 1;
  std::ostringstream out;
  vz::UciEngine engine(options, out);
  for (std::string_view line : vz::fuzz::Lines(text)) {
    if (Mentions(line, "hash") || Mentions(line, "thread")) continue;
    if (!engine.Handle(line)) return 0;
    engine.Handle("stop");
  }
  engine.Finish();
  return 0;
}
