#pragma once

// The nets vzero ships: one per game, models/<game>.vznet in the source tree (provenance and
// strength in models/README.md), installed as share/vzero/models/<game>.vznet by `cmake --install`.
// Every command that plays (uci, play, serve, analysis, search, research, the `net:default` match
// player) uses the shipped net of its game when no net is given, and the rollout evaluator for an
// explicit "none" (UCI NetFile `<none>`).

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vz::nets {

// The environment variable that names a directory searched first for shipped nets.
inline constexpr const char* kModelsDirEnv = "VZ_MODELS_DIR";

// The directories searched for shipped nets: $VZ_MODELS_DIR alone when it is set and not empty
// (an override, also for tests); else, in order, <directory of the running binary>/../share/vzero/
// models (an install tree) and the source tree's models/ (the checkout this binary was built
// from). Never throws.
std::vector<std::filesystem::path> ShippedNetDirectories();

// <dir>/<variant>.vznet of the first directory of ShippedNetDirectories() that holds one (a
// regular file); nullopt when none does. Never throws.
std::optional<std::filesystem::path> FindShippedNet(std::string_view variant);

// True for the --net arguments that mean "no net: the rollout evaluator": "none" and "<none>".
// Inline and torch-free, so that builds without LibTorch read --net the same way.
inline bool IsNoNet(std::string_view argument) { return argument == "none" || argument == "<none>"; }

// True for the --net arguments that mean "the shipped net of the game": none given, or "default".
inline bool IsShippedNetRequest(std::string_view argument) {
  return argument.empty() || argument == "default";
}

// What a command plays with for game `variant`, given its --net argument (ResolveNet).
struct NetChoice {
  std::string file;     // the net file to load; empty: the rollout evaluator
  std::string message;  // one line for stderr or a UCI info string: which net, or why none
  bool warning = false; // true when a shipped net was wanted but is missing or unreadable
};

// Resolves a --net argument for `variant`:
//   "none", "<none>"     -> no net ("--net none: ... the rollout evaluator");
//   "" or "default"      -> the shipped net when FindShippedNet finds one that reads and fits the
//                           game (nets/net_file.h checks); otherwise no net, with a warning that
//                           names the file (or the directories searched) and the fallback;
//   anything else        -> that file, unchecked (loading it reports its own errors).
// Never throws: a corrupt shipped net is a warning, not an error.
NetChoice ResolveNet(std::string_view argument, std::string_view variant);

// The net file per game of the commands that serve every game (serve, analysis): the files of
// `paths` by the game each names (NetFilesByGame), and for every other game its shipped net when
// ResolveNet finds a usable one; `paths` = {"none"}: no net at all. One line per game is appended
// to `messages` (which net, or the warning). Throws what NetFilesByGame throws (an unreadable or
// unfit file given in `paths`, two files for one game).
std::map<std::string, std::string> NetFilesWithShipped(const std::vector<std::string>& paths,
                                                       std::vector<std::string>* messages);

// The shipped net of `variant` for an explicit request (the `net:default` player): its path.
// Throws vz::Error naming the variant and the directories searched when there is none.
std::string RequireShippedNet(std::string_view variant);

}  // namespace vz::nets
