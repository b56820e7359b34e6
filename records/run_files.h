#pragma once

// The read side of a training run's directory (the layout selfplay/train_loop.h documents; the
// writers, the log, the lock and the adoption of the config are selfplay/run_dir.h): the names of
// its numbered files (the promoted nets nets/best-NNNN.vznet, the candidates
// nets/candidates/candidate-SSSSSSSS.*, the strength checks strength/strength-SSSSSSSS.json) and
// its config, config.txtpb (proto::TrainConfig, proto/train.proto, in protobuf text format).
// Readers such as research/ and serve/ need only this and records/game_record.h (the games),
// records/metrics_reader.h (the metrics).
// Thread-safety: the functions share no state.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "proto/train.pb.h"

namespace vz {

// Highest N of <nets_dir>/best-NNNN.vznet (0 when none, or when nets_dir cannot be listed).
int HighestGeneration(const std::string& nets_dir);

// "best-0003.vznet".
std::string GenerationFile(int generation);

// The name of a file numbered by a training step: "<prefix>SSSSSSSS.<extension>", e.g.
// StepFile("strength-", 1500, "json") = "strength-00001500.json".
std::string StepFile(std::string_view prefix, int64_t step, std::string_view extension);

// The step of a StepFile name with `prefix` and `extension`, or -1 for any other name.
int64_t StepOfFile(std::string_view name, std::string_view prefix, std::string_view extension);

// StepFile("candidate-", step, extension): nets/candidates/ (the net, its verdict).
inline std::string CandidateFile(int64_t step, std::string_view extension) {
  return StepFile("candidate-", step, extension);
}

// Parses a train config in protobuf text format. `source` names the text in errors (a file path,
// "preset chaco-rex/demo"). Throws vz::Error "SOURCE:LINE:COL: message" (1-based line and column)
// on a syntax error, an unknown field name (the message names it) or a bad value. Does not
// validate ranges (selfplay/train_config.h ValidateTrainConfig does).
proto::TrainConfig ParseTrainConfigText(std::string_view text, std::string_view source);

// Reads and parses the text file at `path` (ParseTrainConfigText). Throws vz::Error naming the
// path if it cannot be read, or "PATH:LINE:COL: message" if it does not parse.
proto::TrainConfig ReadTrainConfigFile(const std::string& path);

// The config of the run in `dir` (config.txtpb), or nullopt when it has none. Throws vz::Error
// naming the file when it does not parse.
std::optional<proto::TrainConfig> SavedConfig(const std::string& dir);

}  // namespace vz
