#include "selfplay/train_config.h"

#include <fmt/core.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <vector>

#include "arena/player.h"
#include "engine/core/error.h"
#include "engine/core/fnv.h"
#include "engine/core/position_text.h"
#include "engine/registry.h"
#include "nets/net_architecture.h"
#include "records/run_files.h"

namespace vz {
namespace {

namespace pb = google::protobuf;

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

std::string FieldNames(const pb::Descriptor* descriptor) {
  std::string names;
  for (int i = 0; i < descriptor->field_count(); ++i) {
    names += (i == 0 ? "" : ", ") + descriptor->field(i)->name();
  }
  return names;
}

std::string Join(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string joined;
  for (const std::string& item : items) {
    if (!joined.empty()) joined += separator;
    joined += item;
  }
  return joined;
}

template <class T>
bool ParseWhole(std::string_view text, T& value) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// Sets `field` of `message` from the text `value`; returns "" or what is wrong with the value.
std::string SetFieldFromText(pb::Message& message, const pb::FieldDescriptor* field,
                             std::string_view value) {
  const pb::Reflection* reflection = message.GetReflection();
  const std::string quoted = "'" + std::string(value) + "'";
  switch (field->cpp_type()) {
    case pb::FieldDescriptor::CPPTYPE_INT32: {
      int32_t parsed;
      if (!ParseWhole(value, parsed)) return quoted + " is not a 32-bit integer";
      reflection->SetInt32(&message, field, parsed);
      return "";
    }
    case pb::FieldDescriptor::CPPTYPE_INT64: {
      int64_t parsed;
      if (!ParseWhole(value, parsed)) return quoted + " is not a 64-bit integer";
      reflection->SetInt64(&message, field, parsed);
      return "";
    }
    case pb::FieldDescriptor::CPPTYPE_UINT32: {
      uint32_t parsed;
      if (!ParseWhole(value, parsed)) return quoted + " is not an unsigned 32-bit integer";
      reflection->SetUInt32(&message, field, parsed);
      return "";
    }
    case pb::FieldDescriptor::CPPTYPE_UINT64: {
      uint64_t parsed;
      if (!ParseWhole(value, parsed)) return quoted + " is not an unsigned 64-bit integer";
      reflection->SetUInt64(&message, field, parsed);
      return "";
    }
    case pb::FieldDescriptor::CPPTYPE_FLOAT:
    case pb::FieldDescriptor::CPPTYPE_DOUBLE: {
      double parsed;
      if (!ParseWhole(value, parsed) || !std::isfinite(parsed)) return quoted + " is not a number";
      if (field->cpp_type() == pb::FieldDescriptor::CPPTYPE_DOUBLE) {
        reflection->SetDouble(&message, field, parsed);
      } else {
        if (std::fabs(parsed) > std::numeric_limits<float>::max()) {
          return quoted + " is too large for a float";
        }
        reflection->SetFloat(&message, field, static_cast<float>(parsed));
      }
      return "";
    }
    case pb::FieldDescriptor::CPPTYPE_BOOL: {
      if (value == "true" || value == "1") {
        reflection->SetBool(&message, field, true);
      } else if (value == "false" || value == "0") {
        reflection->SetBool(&message, field, false);
      } else {
        return quoted + " is not a bool (true, false, 1, 0)";
      }
      return "";
    }
    case pb::FieldDescriptor::CPPTYPE_ENUM: {
      std::string upper(value);
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const pb::EnumDescriptor* type = field->enum_type();
      const pb::EnumValueDescriptor* found = type->FindValueByName(upper);
      if (found == nullptr) {
        std::vector<std::string> names;
        for (int i = 0; i < type->value_count(); ++i) names.push_back(type->value(i)->name());
        return quoted + " is not one of " + Join(names);
      }
      reflection->SetEnum(&message, field, found);
      return "";
    }
    case pb::FieldDescriptor::CPPTYPE_STRING: {
      std::string_view text = value;
      if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
        text = text.substr(1, text.size() - 2);
      }
      reflection->SetString(&message, field, std::string(text));
      return "";
    }
    case pb::FieldDescriptor::CPPTYPE_MESSAGE: break;
  }
  return "is a section, not a value (name one of its fields: " + FieldNames(field->message_type()) +
         ")";
}

// Replaces the repeated string `field` of `message` by the comma-separated items of `value`
// (blanks around items ignored; "" = an empty list).
void SetStringListFromText(pb::Message& message, const pb::FieldDescriptor* field,
                           std::string_view value) {
  const pb::Reflection* reflection = message.GetReflection();
  reflection->ClearField(&message, field);
  if (Trim(value).empty()) return;
  while (true) {
    const size_t comma = value.find(',');
    reflection->AddString(&message, field, std::string(Trim(value.substr(0, comma))));
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
}

// --- Validation helpers: each throws "config key KEY: ..."
// -----------------------------------------

[[noreturn]] void KeyError(std::string_view key, const std::string& what) {
  throw Error(fmt::format("config key {}: {}", key, what));
}

void CheckRange(std::string_view key, int64_t value, int64_t low, int64_t high) {
  if (value < low || value > high)
    KeyError(key, fmt::format("{} is out of range {}..{}", value, low, high));
}

void CheckUnsigned(std::string_view key, uint64_t value, uint64_t low, uint64_t high) {
  if (value < low || value > high)
    KeyError(key, fmt::format("{} is out of range {}..{}", value, low, high));
}

void CheckReal(std::string_view key, float value, double low, double high) {
  if (!(value >= low && value <= high)) {  // NaN fails too
    KeyError(key, fmt::format("{} is out of range {}..{}", value, low, high));
  }
}

// Strictly positive, finite and at most `high`.
void CheckPositive(std::string_view key, float value, double high) {
  if (!(value > 0 && value <= high)) {
    KeyError(key, fmt::format("{} is out of range (0, {}]", value, high));
  }
}

void CheckOneOf(std::string_view key, const std::string& value,
                const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end()) {
    KeyError(key, fmt::format("'{}' is not one of {}", value, Join(allowed)));
  }
}

void CheckEven(std::string_view key, uint64_t value) {
  if (value % 2 != 0) KeyError(key, fmt::format("{} is odd (games are played in pairs)", value));
}

void CheckDevice(std::string_view key, const std::string& device) {
  if (device == "auto" || device == "cpu" || device == "cuda") return;
  int index;
  if (device.rfind("cuda:", 0) == 0 && ParseWhole(std::string_view(device).substr(5), index) &&
      index >= 0 && index < 1024) {
    return;
  }
  KeyError(key, fmt::format("'{}' is not a device (auto, cpu, cuda, cuda:N)", device));
}

void CheckNetPreset(std::string_view key, const std::string& preset) {
  try {
    nets::CheckPresetName(preset);
  } catch (const Error& error) {
    KeyError(key, error.what());
  }
}

// Largest values accepted for counts (beyond any sensible run, small enough to stay exact).
constexpr int64_t kMaxConfigSimulations = 100000;
constexpr int64_t kMaxGames = 1000000;
constexpr int kMaxWarmStartDepth = 6;  // deeper alpha-beta games take hours on a CPU
constexpr int64_t kMaxPlies = 100000;
constexpr uint64_t kMaxSteps = uint64_t{1} << 40;
constexpr uint64_t kMaxWindowPositions = uint64_t{1} << 40;

// --- issue 18: gating modes and strength checks ---

void ValidateGatingAndStrength(const proto::TrainConfig& config) {
  const proto::GatingConfig& g = config.gating();
  if (!g.mode().empty()) CheckOneOf("gating.mode", g.mode(), {"none", "threshold", "sprt"});
  // The legacy switch may stay beside a mode that agrees with it (on = threshold or sprt).
  if (!g.mode().empty() && g.has_enabled() && g.enabled() != (g.mode() != "none")) {
    KeyError("gating.enabled",
             fmt::format("{} contradicts gating.mode '{}' (gating.enabled is the switch of configs "
                         "before gating.mode: set gating.mode to none, threshold or sprt instead)",
                         g.enabled() ? "true" : "false", g.mode()));
  }
  const GatingMode mode = EffectiveGatingMode(g);
  const bool on = mode != GatingMode::kNone;
  CheckUnsigned("gating.games", g.games(), on ? 2 : 0, kMaxGames);
  CheckEven("gating.games", g.games());
  CheckUnsigned("gating.simulations", g.simulations(), on ? 1 : 0, kMaxConfigSimulations);
  CheckUnsigned("gating.opening_plies", g.opening_plies(), 0, 1000);
  CheckReal("gating.threshold", g.threshold(), 0, 1);
  CheckUnsigned("gating.concurrent_games", g.concurrent_games(), 0, 65536);
  const proto::SprtConfig& sprt = g.sprt();
  CheckReal("gating.sprt.elo0", sprt.elo0(), -2000, 2000);
  CheckReal("gating.sprt.elo1", sprt.elo1(), -2000, 2000);
  if (mode == GatingMode::kSprt) {
    if (!(sprt.elo0() < sprt.elo1())) {
      KeyError("gating.sprt.elo1",
               fmt::format("{} must be above gating.sprt.elo0 ({})", sprt.elo1(), sprt.elo0()));
    }
    for (const auto& [key, value] : {std::pair{"gating.sprt.alpha", sprt.alpha()},
                                     std::pair{"gating.sprt.beta", sprt.beta()}}) {
      if (!(value > 0 && value < 0.5)) {
        KeyError(key, fmt::format("{} is out of range (0, 0.5)", value));
      }
    }
  } else {
    CheckReal("gating.sprt.alpha", sprt.alpha(), 0, 0.5);
    CheckReal("gating.sprt.beta", sprt.beta(), 0, 0.5);
  }

  const proto::StrengthConfig& st = config.strength();
  for (int i = 0; i < st.opponents_size(); ++i) {
    try {
      PlayerSpec::Parse(st.opponents(i));
    } catch (const Error& error) {
      KeyError("strength.opponents", error.what());
    }
  }
  const bool checks = st.opponents_size() > 0 && st.every_checkpoints() > 0;
  CheckUnsigned("strength.games", st.games(), checks ? 2 : 0, kMaxGames);
  CheckEven("strength.games", st.games());
  CheckUnsigned("strength.simulations", st.simulations(), checks ? 1 : 0, kMaxConfigSimulations);
  CheckUnsigned("strength.opening_plies", st.opening_plies(), 0, 200);
  CheckUnsigned("strength.every_checkpoints", st.every_checkpoints(), 0, 1000000);

  const proto::WarmStartConfig& w = config.warm_start();
  if (!w.player().empty()) {
    PlayerSpec player;
    try {
      player = PlayerSpec::Parse(w.player());
    } catch (const Error& error) {
      KeyError("warm_start.player", error.what());
    }
    if (player.kind != "alphabeta" || player.value > kMaxWarmStartDepth) {
      KeyError("warm_start.player", fmt::format("'{}' is not alphabeta:DEPTH with DEPTH 1..{}",
                                                w.player(), kMaxWarmStartDepth));
    }
  }
  CheckUnsigned("warm_start.games", w.games(), w.player().empty() ? 0 : 1, kMaxGames);
  CheckUnsigned("warm_start.random_opening_plies", w.random_opening_plies(), 0,
                std::max<uint32_t>(1, config.selfplay().max_plies()) - 1);
  CheckReal("warm_start.score_scale", w.score_scale(), 0, 100000);
}

}  // namespace

std::string TrainingKnowledge(const proto::TrainConfig& config,
                              const std::string& initial_knowledge) {
  // The initial net's parts first (all of them: a part this function does not write, from a
  // future version, is still something the net was taught), then this run's, each once.
  std::vector<std::string> parts;
  const auto add = [&](std::string part) {
    if (!part.empty() && part != "zero-knowledge" &&
        std::find(parts.begin(), parts.end(), part) == parts.end()) {
      parts.push_back(std::move(part));
    }
  };
  for (std::string_view part : SplitAt(initial_knowledge, ';')) add(std::string(TrimBlanks(part)));
  const proto::WarmStartConfig& warm = config.warm_start();
  if (!warm.player().empty()) {
    add(fmt::format("warm-started: {}, {} games", warm.player(), warm.games()));
  }
  if (config.selfplay().leaf_quiescence()) add("self-play with leaf quiescence");
  return parts.empty() ? "zero-knowledge" : Join(parts, "; ");
}

GatingMode EffectiveGatingMode(const proto::GatingConfig& gating) {
  if (gating.mode() == "threshold") return GatingMode::kThreshold;
  if (gating.mode() == "sprt") return GatingMode::kSprt;
  if (gating.mode().empty() && gating.enabled()) return GatingMode::kThreshold;
  return GatingMode::kNone;
}

const char* GatingModeName(GatingMode mode) {
  switch (mode) {
    case GatingMode::kNone: return "none";
    case GatingMode::kThreshold: return "threshold";
    case GatingMode::kSprt: return "sprt";
  }
  return "none";
}

std::vector<std::string> TrainPresetNames() { return {"demo", "long", "gpu"}; }

proto::TrainConfig PresetTrainConfig(std::string_view variant, std::string_view preset) {
  std::vector<std::string> variants, presets;
  for (const EmbeddedTrainPreset& embedded : EmbeddedTrainPresets()) {
    if (variants.empty() || variants.back() != embedded.variant)
      variants.push_back(embedded.variant);
    if (embedded.variant != variant) continue;
    presets.push_back(embedded.preset);
    if (embedded.preset != preset) continue;
    const std::string source = fmt::format("configs/{}/{}.txtpb", variant, preset);
    proto::TrainConfig config = ParseTrainConfigText(embedded.text, source);
    if (config.variant() != variant) {
      throw Error(
          fmt::format("{}: variant is '{}', expected '{}'", source, config.variant(), variant));
    }
    config.set_preset(std::string(preset));
    return config;
  }
  if (presets.empty()) {
    throw Error(
        fmt::format("no train presets for variant '{}' (known: {})", variant, Join(variants)));
  }
  throw Error(
      fmt::format("unknown train preset '{}' for {} (known: {})", preset, variant, Join(presets)));
}

void ApplyConfigOverride(proto::TrainConfig& config, std::string_view assignment) {
  const size_t equals = assignment.find('=');
  if (equals == std::string_view::npos) {
    throw Error(fmt::format("config override '{}': missing '=' (expected key=value)", assignment));
  }
  const std::string_view key = Trim(assignment.substr(0, equals));
  const std::string_view value = Trim(assignment.substr(equals + 1));
  if (key.empty()) throw Error(fmt::format("config override '{}': empty key", assignment));

  proto::TrainConfig copy = config;
  pb::Message* message = &copy;
  std::string_view rest = key;
  std::string path;  // the part of `key` resolved so far
  while (true) {
    const size_t dot = rest.find('.');
    const std::string_view name = rest.substr(0, dot);
    const pb::Descriptor* descriptor = message->GetDescriptor();
    const pb::FieldDescriptor* field = descriptor->FindFieldByName(std::string(name));
    if (field == nullptr) {
      KeyError(key, fmt::format("unknown key ('{}' has no field '{}'; fields: {})",
                                path.empty() ? "the config" : path, name, FieldNames(descriptor)));
    }
    path += (path.empty() ? "" : ".") + std::string(name);
    if (field->is_repeated() && dot == std::string_view::npos &&
        field->cpp_type() == pb::FieldDescriptor::CPPTYPE_STRING) {
      SetStringListFromText(*message, field, value);
      break;
    }
    if (field->is_repeated()) KeyError(key, "is a list; set it in a config file");
    if (dot == std::string_view::npos) {
      const std::string problem = SetFieldFromText(*message, field, value);
      if (!problem.empty()) KeyError(key, problem);
      break;
    }
    if (field->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) {
      KeyError(key, fmt::format("unknown key ('{}' is a value, not a section)", path));
    }
    message = message->GetReflection()->MutableMessage(message, field);
    rest = rest.substr(dot + 1);
  }
  config = std::move(copy);
}

void ValidateTrainConfig(const proto::TrainConfig& config) {
  try {
    FindVariant(config.variant());
  } catch (const Error& error) {
    KeyError("variant", error.what());
  }

  const proto::NetConfig& net = config.net();
  CheckNetPreset("net.preset", net.preset());

  const std::vector<std::string> precisions = {"auto", "fp32", "fp16", "bf16"};
  const proto::SelfPlayConfig& s = config.selfplay();
  CheckUnsigned("selfplay.concurrent_games", s.concurrent_games(), 1, 65536);
  CheckUnsigned("selfplay.simulations", s.simulations(), 1, kMaxConfigSimulations);
  CheckUnsigned("selfplay.gumbel_max_considered", s.gumbel_max_considered(), 1, 4096);
  CheckPositive("selfplay.gumbel_c_visit", s.gumbel_c_visit(), 1e6);
  CheckPositive("selfplay.gumbel_c_scale", s.gumbel_c_scale(), 1e6);
  CheckUnsigned("selfplay.random_opening_plies", s.random_opening_plies(), 0, 1000);
  CheckUnsigned("selfplay.temperature_plies", s.temperature_plies(), 0, kMaxPlies);
  if (s.temperature_plies() > 0) {
    CheckPositive("selfplay.temperature", s.temperature(), 100);
  } else {
    CheckReal("selfplay.temperature", s.temperature(), 0, 100);
  }
  CheckReal("selfplay.resign_threshold", s.resign_threshold(), 0, 0.5);
  if (s.resign_threshold() > 0) {
    CheckUnsigned("selfplay.resign_consecutive_plies", s.resign_consecutive_plies(), 1, kMaxPlies);
  } else {
    CheckUnsigned("selfplay.resign_consecutive_plies", s.resign_consecutive_plies(), 0, kMaxPlies);
  }
  CheckReal("selfplay.resign_disabled_fraction", s.resign_disabled_fraction(), 0, 1);
  CheckReal("selfplay.resign_false_rate_target", s.resign_false_rate_target(), 0, 1);
  // Calibration needs the never-resign games that measure false resignations (with resignation
  // off, resign_threshold 0, it has nothing to do).
  if (s.resign_false_rate_target() > 0 && s.resign_threshold() > 0 &&
      s.resign_disabled_fraction() <= 0) {
    KeyError("selfplay.resign_false_rate_target",
             fmt::format("{} needs selfplay.resign_disabled_fraction above 0 (the games that "
                         "measure false resignations)",
                         s.resign_false_rate_target()));
  }
  CheckUnsigned("selfplay.max_plies", s.max_plies(), 1, kMaxPlies);
  // Every game must reach at least one searched move (the actors' rounds rely on it).
  if (s.max_plies() <= s.random_opening_plies()) {
    throw Error(fmt::format(
        "config key selfplay.max_plies: {} must be above selfplay.random_opening_plies ({})",
        s.max_plies(), s.random_opening_plies()));
  }
  if (!proto::AdjudicationKind_IsValid(s.adjudication()) ||
      s.adjudication() == proto::ADJUDICATION_UNSPECIFIED) {
    KeyError("selfplay.adjudication",
             fmt::format("{} is not set (DRAW or MATERIAL)", static_cast<int>(s.adjudication())));
  }
  CheckRange("selfplay.material_margin", s.material_margin(), 1, 100000);
  CheckUnsigned("selfplay.games_per_chunk", s.games_per_chunk(), 1, 100000);
  CheckDevice("selfplay.device", s.device());
  CheckOneOf("selfplay.precision", s.precision(), precisions);
  CheckUnsigned("selfplay.cpu_threads", s.cpu_threads(), 0, 1024);
  CheckUnsigned("selfplay.actor_threads", s.actor_threads(), 0, 1024);
  if (s.cheap_simulations() > 0) {
    CheckUnsigned("selfplay.cheap_simulations", s.cheap_simulations(), 1,
                  std::max<uint32_t>(1, s.simulations()) - 1);
    if (!(s.full_search_fraction() > 0 && s.full_search_fraction() <= 1)) {
      KeyError("selfplay.full_search_fraction",
               fmt::format("{} is out of range (0, 1] (selfplay.cheap_simulations is {}; 0 turns "
                           "playout cap randomisation off)",
                           s.full_search_fraction(), s.cheap_simulations()));
    }
  } else {
    CheckReal("selfplay.full_search_fraction", s.full_search_fraction(), 0, 1);
  }

  const proto::ReplayConfig& r = config.replay();
  CheckUnsigned("replay.min_positions", r.min_positions(), 0, 1000000000);
  CheckReal("replay.max_samples_per_new_sample", r.max_samples_per_new_sample(), 0, 1000);
  CheckOneOf("replay.adjudicated_value_target", r.adjudicated_value_target(),
             {"", "result", "search"});
  CheckReal("replay.value_target_search_weight", r.value_target_search_weight(), 0, 1);
  CheckUnsigned("replay.material_horizon_plies", r.material_horizon_plies(), 0,
                kMaxMaterialHorizonPlies);
  CheckOneOf("replay.window_growth", r.window_growth(), {"", "fixed", "katago"});
  // window_games sizes the "fixed" window only: under "katago", whose window counts positions, a
  // game count is an error (a left-over of a fixed window); the katago parameters may stay under
  // "fixed" (one key switches between the two).
  if (r.window_growth() == "katago") {
    if (r.window_games() != 0) {
      KeyError("replay.window_games",
               fmt::format("{} is not used by replay.window_growth katago, whose window is in "
                           "positions (set replay.window_base_positions, or window_growth fixed)",
                           r.window_games()));
    }
    CheckUnsigned("replay.window_base_positions", r.window_base_positions(), 1,
                  kMaxWindowPositions);
    if (!(r.window_exponent() > 0 && r.window_exponent() <= 1)) {
      KeyError("replay.window_exponent",
               fmt::format("{} is out of range (0, 1] (replay.window_growth katago)",
                           r.window_exponent()));
    }
    CheckPositive("replay.window_expansion", r.window_expansion(), 10);
    if (r.window_max_positions() > 0) {
      CheckUnsigned("replay.window_max_positions", r.window_max_positions(),
                    r.window_base_positions(), kMaxWindowPositions);
    }
  } else {
    CheckUnsigned("replay.window_games", r.window_games(), 1, 100000000);
    CheckUnsigned("replay.window_base_positions", r.window_base_positions(), 0,
                  kMaxWindowPositions);
    CheckReal("replay.window_exponent", r.window_exponent(), 0, 1);
    CheckReal("replay.window_expansion", r.window_expansion(), 0, 10);
    CheckUnsigned("replay.window_max_positions", r.window_max_positions(), 0, kMaxWindowPositions);
  }

  const proto::OptimizerConfig& o = config.optimizer();
  CheckUnsigned("optimizer.batch_size", o.batch_size(), 1, 65536);
  CheckOneOf("optimizer.optimizer", o.optimizer(), {"sgd", "adamw"});
  CheckPositive("optimizer.learning_rate", o.learning_rate(), 10);
  if (!(o.momentum() >= 0 && o.momentum() < 1)) {
    KeyError("optimizer.momentum", fmt::format("{} is out of range [0, 1)", o.momentum()));
  }
  CheckReal("optimizer.weight_decay", o.weight_decay(), 0, 1);
  CheckReal("optimizer.material_loss_weight", o.material_loss_weight(), 0, 10);
  CheckReal("optimizer.ownership_loss_weight", o.ownership_loss_weight(), 0, 10);
  CheckOneOf("optimizer.schedule", o.schedule(), {"constant", "cosine", "step"});
  if (o.schedule() != "constant") {
    CheckUnsigned("optimizer.total_steps", o.total_steps(), 1, kMaxSteps);
  } else {
    CheckUnsigned("optimizer.total_steps", o.total_steps(), 0, kMaxSteps);
  }
  CheckUnsigned("optimizer.warmup_steps", o.warmup_steps(), 0,
                o.total_steps() > 0 ? o.total_steps() : kMaxSteps);
  CheckUnsigned("optimizer.checkpoint_every_steps", o.checkpoint_every_steps(), 1, 1000000000);
  CheckDevice("optimizer.device", o.device());
  CheckUnsigned("optimizer.cpu_threads", o.cpu_threads(), 0, 1024);
  if (!o.precision().empty())
    CheckOneOf("optimizer.precision", o.precision(), {"auto", "fp32", "bf16"});

  ValidateGatingAndStrength(config);

  const proto::EvaluationConfig& e = config.evaluation();
  CheckUnsigned("evaluation.games", e.games(), 0, kMaxGames);
  CheckEven("evaluation.games", e.games());
  CheckUnsigned("evaluation.simulations", e.simulations(), e.games() > 0 ? 1 : 0,
                kMaxConfigSimulations);
  CheckUnsigned("evaluation.opening_plies", e.opening_plies(), 0, 1000);

  const proto::StopConfig& stop = config.stop();
  CheckReal("stop.minutes", stop.minutes(), 0, 1e7);
  CheckUnsigned("stop.train_steps", stop.train_steps(), 0, kMaxSteps);
  CheckUnsigned("stop.games", stop.games(), 0, kMaxSteps);
}

std::string TrainConfigText(const proto::TrainConfig& config) {
  std::string text;
  if (!pb::TextFormat::PrintToString(config, &text)) {
    throw Error("train config: cannot be written as text");
  }
  return text;
}

uint64_t TrainConfigHash(const proto::TrainConfig& config) {
  proto::TrainConfig copy = config;
  // Neither when the run stops nor where it runs changes what it learns: a run may move from a
  // CPU to a GPU machine, or resume from a file equal to its preset.
  copy.clear_stop();
  copy.clear_preset();
  copy.mutable_selfplay()->clear_device();
  copy.mutable_selfplay()->clear_precision();
  copy.mutable_selfplay()->clear_cpu_threads();
  copy.mutable_selfplay()->clear_actor_threads();
  copy.mutable_optimizer()->clear_device();
  copy.mutable_optimizer()->clear_precision();
  copy.mutable_optimizer()->clear_cpu_threads();
  // An explicit `enabled: false` (a field with presence) means what an unset one means.
  if (copy.gating().has_enabled() && !copy.gating().enabled()) {
    copy.mutable_gating()->clear_enabled();
  }
  std::string bytes;
  {
    pb::io::StringOutputStream stream(&bytes);
    pb::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    copy.SerializeToCodedStream(&coded);
  }
  return Fnv1a64(bytes);
}

}  // namespace vz
