#include "nets/shipped_nets.h"

#include <fmt/core.h>

#include <cstdlib>
#include <exception>
#include <system_error>

#include "engine/core/error.h"
#include "engine/registry.h"
#include "nets/net_file.h"
#include "nets/variant_nets.h"

#ifndef VZ_SOURCE_DIR
#define VZ_SOURCE_DIR ""
#endif

namespace vz::nets {
namespace fs = std::filesystem;

namespace {

std::string JoinDirectories(const std::vector<fs::path>& directories) {
  std::string text;
  for (const fs::path& dir : directories) text += (text.empty() ? "" : ", ") + dir.string();
  return text.empty() ? "no directory" : text;
}

}  // namespace

std::vector<fs::path> ShippedNetDirectories() {
  std::vector<fs::path> directories;
  if (const char* env = std::getenv(kModelsDirEnv); env != nullptr && *env != '\0') {
    directories.emplace_back(env);
    return directories;
  }
  std::error_code error;
  const fs::path binary = fs::read_symlink("/proc/self/exe", error);
  if (!error && binary.has_parent_path()) {
    directories.push_back(
        (binary.parent_path() / ".." / "share" / "vzero" / "models").lexically_normal());
  }
  if (std::string_view(VZ_SOURCE_DIR).size() > 0) {
    directories.push_back(fs::path(VZ_SOURCE_DIR) / "models");
  }
  return directories;
}

std::optional<fs::path> FindShippedNet(std::string_view variant) {
  // A game's registry name only: nothing that could leave the directory.
  if (variant.empty() || variant.find('/') != std::string_view::npos || variant.starts_with('.')) {
    return std::nullopt;
  }
  for (const fs::path& dir : ShippedNetDirectories()) {
    const fs::path file = dir / (std::string(variant) + ".vznet");
    std::error_code error;
    if (fs::is_regular_file(file, error)) return file;
  }
  return std::nullopt;
}

NetChoice ResolveNet(std::string_view argument, std::string_view variant) {
  NetChoice choice;
  if (IsNoNet(argument)) {
    choice.message = fmt::format("{}: no net (--net none): the rollout evaluator", variant);
    return choice;
  }
  if (!IsShippedNetRequest(argument)) {
    choice.file = std::string(argument);
    choice.message = fmt::format("{}: net {}", variant, argument);
    return choice;
  }
  const std::optional<fs::path> shipped = FindShippedNet(variant);
  if (!shipped) {
    choice.warning = true;
    choice.message = fmt::format(
        "warning: no shipped net for {} (looked for {}.vznet in {}); using the rollout evaluator",
        variant, variant, JoinDirectories(ShippedNetDirectories()));
    return choice;
  }
  try {
    const NetFile net = ReadNetFile(shipped->string());
    CheckNetForItsGame(net, shipped->string());
    if (net.game != variant) {
      throw Error(fmt::format("{}: a net for {}, not {}", shipped->string(), net.game, variant));
    }
  } catch (const std::exception& error) {
    choice.warning = true;
    choice.message = fmt::format("warning: shipped net unusable: {}; using the rollout evaluator",
                                 error.what());
    return choice;
  }
  choice.file = shipped->string();
  choice.message = fmt::format("{}: shipped net {}", variant, choice.file);
  return choice;
}

std::map<std::string, std::string> NetFilesWithShipped(const std::vector<std::string>& paths,
                                                       std::vector<std::string>* messages) {
  if (paths.size() == 1 && IsNoNet(paths[0])) {
    messages->push_back("no net (--net none): every game uses the rollout evaluator");
    return {};
  }
  std::vector<std::string> given;  // `default` adds nothing: every game gets its shipped net anyway
  for (const std::string& path : paths) {
    if (IsNoNet(path)) throw Error("--net " + path + ": 'none' cannot be combined with net files");
    if (!IsShippedNetRequest(path)) given.push_back(path);
  }
  std::map<std::string, std::string> files = NetFilesByGame(given);
  for (const Variant* variant : AllVariants()) {
    const std::string name(variant->name());
    if (const auto given = files.find(name); given != files.end()) {
      messages->push_back(fmt::format("{}: net {}", name, given->second));
      continue;
    }
    NetChoice choice = ResolveNet("", name);
    messages->push_back(choice.message);
    if (!choice.file.empty()) files[name] = choice.file;
  }
  return files;
}

std::string RequireShippedNet(std::string_view variant) {
  const std::optional<fs::path> shipped = FindShippedNet(variant);
  if (!shipped) {
    throw Error(fmt::format("no shipped net for {} (looked for {}.vznet in {})", variant, variant,
                            JoinDirectories(ShippedNetDirectories())));
  }
  return shipped->string();
}

}  // namespace vz::nets
