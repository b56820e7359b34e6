// Fuzz target: analysis queries (serve/analysis.h), one JSON object per line, answered by the
// rollout evaluator with tiny searches (4096-node trees, 8 simulations by default; a query's own
// maxVisits is honoured but the harness stops after 64 rounds and destroys the engine with its
// searches in flight).
// Input: the lines of the query stream. Checks: the engine never throws on a line; every output
// line is one JSON object.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "serve/analysis.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  vz::AnalysisConfig config;
  config.default_simulations = 8;
  config.max_batch = 16;
  config.max_active = 4;
  config.max_nodes = 4096;
  vz::AnalysisEngine engine(config, [](const std::string& line) {
    const nlohmann::json reply = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    VZ_FUZZ_CHECK(reply.is_object());
  });
  for (std::string_view line : vz::fuzz::Lines(text)) engine.HandleLine(line);
  for (int round = 0; round < 64 && engine.Busy(); ++round) engine.RunRound();
  return 0;
}
