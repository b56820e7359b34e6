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
  // The `:qs` option of the MCTS players (rollout, net) comes last.
  constexpr std::string_view kQuiescenceOption = ":qs";
  if ((spec.kind == "rollout" || spec.kind == "net") && text.ends_with(kQuiescenceOption)) {
    spec.leaf_quiescence = true;
    text.remove_suffix(kQuiescenceOption.size());
  }
  const size_t colon = text.find(':');
  std::string_view parameter = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  if (spec.kind == "net") {
#if VZ_HAVE_TORCH
    const size_t last = text.rfind(':');
    if (last == colon) throw Error("player '" + spec.text + "': expected net:FILE:SIMS");
    spec.file = std::string(text.substr(colon + 1, last - colon - 1));
    parameter = text.substr(last + 1);
#else
    throw Error("player '" + spec.text + "': net players need a build with LibTorch");
#endif
  }
  if (spec.kind != "rollout" && spec.kind != "alphabeta" && spec.kind != "net") {
    throw Error("player '" + spec.text +
                "': unknown kind (expected random, rollout:SIMS[:qs], alphabeta:DEPTH or "
                "net:FILE:SIMS[:qs])");
  }
  if (colon == std::string_view::npos) {
    throw Error("player '" + spec.text + "': missing parameter after '" + spec.kind + ":'");
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
