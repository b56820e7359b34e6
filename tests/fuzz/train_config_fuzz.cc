// Fuzz target: train configs (selfplay/train_config.h), as a text file and as `--set key=value`
// overrides.
// Input: byte 0 bit 0 chooses the mode: 0, the rest is a config in protobuf text format; 1, every
// line of the rest is one override applied to the demo preset of the game chosen by byte 0's
// other bits. Checks: bad text, keys and values are a vz::Error; a config that validates prints
// to a text that parses back to the same text and the same hash.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/core/error.h"
#include "records/run_files.h"
#include "selfplay/train_config.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  vz::proto::TrainConfig config;
  try {
    if (data[0] & 1) {
      vz::fuzz::WithGameNumber(
          data[0] >> 1, [&]<vz::Game G>() { config = vz::PresetTrainConfig(G::kName, "demo"); });
      for (std::string_view line : vz::fuzz::Lines(rest)) {
        try {
          vz::ApplyConfigOverride(config, line);
        } catch (const vz::Error&) {
        }
      }
    } else {
      config = vz::ParseTrainConfigText(rest, "fuzz input");
    }
    vz::ValidateTrainConfig(config);
  } catch (const vz::Error&) {
    return 0;
  }
  const std::string text = vz::TrainConfigText(config);
  const vz::proto::TrainConfig again = vz::ParseTrainConfigText(text, "round trip");
  VZ_FUZZ_CHECK(vz::TrainConfigText(again) == text);
  VZ_FUZZ_CHECK(vz::TrainConfigHash(again) == vz::TrainConfigHash(config));
  return 0;
}
