#pragma once

// The configuration of `vzero train` (proto::TrainConfig, proto/train.proto) as protobuf text
// (KataGo's idea of one config file plus `key=value` overrides from the command line):
// - presets configs/<variant>/<preset>.txtpb, compiled into the binary at build time
//   (cmake/embed_files.cmake writes them into a generated source of vz_selfplay);
// - a text file given by the user (`--config FILE`; the parser, ParseTrainConfigText and
//   ReadTrainConfigFile, is records/run_files.h, the reader of a run's config.txtpb);
// - overrides "section.field=value" (`--set`), applied through protobuf reflection;
// - validation of every field's range, naming the key ("config key selfplay.simulations: 0 is
//   out of range 1..100000");
// - the resolved config as text (the run directory's config.txtpb) and a stable 64-bit hash of
//   everything but the `stop` section (game records carry it; a resumed run may change its stop
//   limits without changing the hash).
// Every function throws vz::Error (engine/core/error.h) with a one-line message naming the key, the
// file or the preset. Thread-safe (no shared state besides the constant embedded presets).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "proto/train.pb.h"

namespace vz {

// A preset text compiled into the binary: configs/<variant>/<preset>.txtpb.
struct EmbeddedTrainPreset {
  const char* variant;  // registry name (the folder)
  const char* preset;   // "demo", "long", "gpu" (the file name without .txtpb)
  const char* text;     // the file's contents
};

// Every embedded preset, sorted by variant then preset name (defined in the generated source).
const std::vector<EmbeddedTrainPreset>& EmbeddedTrainPresets();

// Names of the presets every variant has: {"demo", "long", "gpu"} (2-core CPU in about 15
// minutes, 2-core CPU in about 2 hours, one GPU).
std::vector<std::string> TrainPresetNames();

// The preset `preset` of `variant`, parsed from its embedded text; its `preset` field is set to
// the preset's name. Throws vz::Error listing the known variants (or that variant's presets) when
// there is no such preset, or naming the preset's file if its text does not parse or its
// `variant` field is not `variant`.
proto::TrainConfig PresetTrainConfig(std::string_view variant, std::string_view preset);

// Applies one override "KEY=VALUE" where KEY is a dotted field path ("selfplay.simulations",
// "variant") and VALUE is read by the field's type: integers in decimal (unsigned fields reject a
// sign, every field rejects values outside its type), floats as C numbers, bools as true/false/1/0,
// enums by value name (case-insensitive, "MATERIAL", "draw"), strings verbatim (one pair of
// surrounding double quotes is removed), a list of strings (strength.opponents) as a
// comma-separated list that replaces the whole list ("" = empty). Whitespace around KEY and VALUE
// is ignored. Throws vz::Error naming the key on a missing '=', an empty or unknown key (listing
// the fields of the section it was looked up in), a key naming a section instead of a field, or a
// value not parseable for the field's type; `config` is unchanged then.
void ApplyConfigOverride(proto::TrainConfig& config, std::string_view assignment);

// Checks every field (ranges listed in selfplay/train_config.cc; variant registered, net preset
// known, device "auto|cpu|cuda|cuda:N", selfplay.precision "auto|fp32|fp16|bf16",
// optimizer.precision "" or "auto|fp32|bf16", optimizer "sgd|adamw",
// schedule "constant|cosine|step" with total_steps > 0 for cosine and step, adjudication not
// unspecified, resign_threshold in [0, 0.5], fractions and thresholds in [0, 1], game counts of
// gating, evaluation and strength checks even (whole pairs); gating.mode "", "none", "threshold" or
// "sprt", the legacy gating.enabled not contradicting it, the SPRT's elo0 < elo1 and alpha, beta in
// (0, 0.5) in mode "sprt"; every strength opponent a valid player spec (arena/player.h);
// cheap_simulations below simulations with a full_search_fraction in (0, 1];
// adjudicated_value_target "|result|search"; window_growth "|fixed|katago" with its parameters in
// range). Throws
// vz::Error for the first bad field: "config key selfplay.simulations: 0 is out of
// range 1..100000".
void ValidateTrainConfig(const proto::TrainConfig& config);

// The largest replay.material_horizon_plies (ValidateTrainConfig, ReplayTargetsOf).
inline constexpr uint32_t kMaxMaterialHorizonPlies = 100000;

// --- issue 18: gating modes ---

// How candidates become the best net (gating.mode).
enum class GatingMode {
  kNone,       // the trainer promotes every candidate (continuous training, as AlphaZero)
  kThreshold,  // the gate promotes when the score over gating.games reaches gating.threshold
  kSprt,       // the gate runs an SPRT over at most gating.games games; promotes on H1
};

// The mode of a config: gating.mode, or for a config without one (written before the modes)
// "threshold" when the legacy gating.enabled is true, else "none". Does not validate (an unknown
// mode is "none"; ValidateTrainConfig rejects it).
GatingMode EffectiveGatingMode(const proto::GatingConfig& gating);

// "none", "threshold", "sprt".
const char* GatingModeName(GatingMode mode);

// The config in protobuf text format (fields in declaration order, default values omitted), which
// ParseTrainConfigText reads back to an equal message.
std::string TrainConfigText(const proto::TrainConfig& config);

// FNV-1a 64 of the config's binary serialization with the `stop` section, `preset` and the
// device and precision fields cleared (and an explicit gating.enabled false, which means what an
// unset one means) (when and where a run executes, not what it learns).
// Stable across runs, processes and machines of one schema; a field at its default value (proto3:
// not serialized) does not change it, so adding a field to the schema keeps the hashes of old
// configs.
uint64_t TrainConfigHash(const proto::TrainConfig& config);

// What the nets of a run of `config` were taught by a human (NetProvenance::knowledge): the parts
// of the initial net's `initial_knowledge` (a run from --init-net inherits what its net was
// taught; "zero-knowledge" and "" have none), then this run's warm start, "warm-started:
// alphabeta:D, N games", and "self-play with leaf quiescence" when selfplay.leaf_quiescence is
// on, each part once, joined by "; "; "zero-knowledge" when there is none. E.g. the Chaco Rex
// demo's "warm-started: alphabeta:2, 600 games; self-play with leaf quiescence".
std::string TrainingKnowledge(const proto::TrainConfig& config,
                              const std::string& initial_knowledge);

}  // namespace vz
