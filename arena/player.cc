#include "arena/player.h"

#include <charconv>

namespace vz {

PlayerSpec PlayerSpec::Parse(std::string_view text) {
  PlayerSpec spec;
  spec.text = std::string(text);
  spec.kind = std::string(text.substr(0, text.find(':')));
  if (spec.kind == "random") {
    if (text.find(':') != std::string_view::npos)
      throw Error("player '" + spec.text + "': random takes no parameter");
    return spec;
  }
  if (spec.kind == "uci") {
    throw Error("player '" + spec.text + "': uci players are not available yet");
  }
  // The net player's precision (`:fp32` or `:bf16`) comes last, after the `:qs` option of the
  // MCTS players (rollout, net).
  if (spec.kind == "net") {
    for (std::string_view option : {":fp32", ":bf16"}) {
      if (!text.ends_with(option)) continue;
      spec.precision = std::string(option.substr(1));
      text.remove_suffix(option.size());
      break;
    }
  }
  constexpr std::string_view kQuiescenceOption = ":qs";
  if ((spec.kind == "rollout" || spec.kind == "net") && text.ends_with(kQuiescenceOption)) {
    spec.leaf_quiescence = true;
    text.remove_suffix(kQuiescenceOption.size());
  }
  // A misplaced, repeated or unknown option leaves an option's name as the last field.
  const std::string_view last_field = text.substr(text.rfind(':') + 1);
  if (last_field == "qs" || last_field == "fp32" || last_field == "bf16" || last_field == "fp16") {
    throw Error("player '" + spec.text +
                "': options come last, once each: :qs (rollout, net), then :fp32 or :bf16 (net)");
  }
  const size_t colon = text.find(':');
  std::string_view parameter = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  if (spec.kind == "net") {
#if VZ_HAVE_TORCH
    const size_t last = text.rfind(':');
    if (last == colon) {
      // `net:default`: the shipped net at the UCI engine's default budget.
      if (parameter != "default") {
        throw Error("player '" + spec.text + "': expected net:FILE:SIMS or net:FILE:movetime=MS");
      }
      spec.file = "default";
      spec.value = kDefaultNetSimulations;
      return spec;
    }
    spec.file = std::string(text.substr(colon + 1, last - colon - 1));
    parameter = text.substr(last + 1);
#else
    throw Error("player '" + spec.text + "': net players need a build with LibTorch");
#endif
  }
  if (spec.kind != "rollout" && spec.kind != "alphabeta" && spec.kind != "net") {
    throw Error("player '" + spec.text +
                "': unknown kind (expected random, rollout:SIMS[:qs], alphabeta:DEPTH, "
                "net:FILE:SIMS[:qs][:fp32|:bf16], or movetime=MS in place of SIMS or DEPTH)");
  }
  if (colon == std::string_view::npos) {
    throw Error("player '" + spec.text + "': missing parameter after '" + spec.kind + ":'");
  }
  constexpr std::string_view kMoveTimeOption = "movetime=";
  if (parameter.starts_with(kMoveTimeOption)) {
    const std::string_view number = parameter.substr(kMoveTimeOption.size());
    const auto [end, error] =
        std::from_chars(number.data(), number.data() + number.size(), spec.move_time_ms);
    if (error != std::errc() || end != number.data() + number.size() || spec.move_time_ms < 1 ||
        spec.move_time_ms > kMaxMoveTimeMs) {
      throw Error("player '" + spec.text + "': movetime must be an integer of milliseconds in 1.." +
                  std::to_string(kMaxMoveTimeMs));
    }
    spec.value = spec.kind == "alphabeta" ? kMaxTimedDepth : kMaxTimedSimulations;
    return spec;
  }
  const std::string_view number = parameter;
  const auto [end, error] =
      std::from_chars(number.data(), number.data() + number.size(), spec.value);
  const int limit = spec.kind == "alphabeta" ? 64 : 1000000;
  if (error != std::errc() || end != number.data() + number.size() || spec.value < 1 ||
      spec.value > limit) {
    throw Error("player '" + spec.text + "': parameter must be an integer in 1.." +
                std::to_string(limit));
  }
  return spec;
}

}  // namespace vz
