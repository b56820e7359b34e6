#pragma once

// A slot per game for the network evaluator, which lives in nets/ above engine/: nets/ fills the
// slots at start-up (vz::nets::InstallNetEvaluators, called by the app when built with LibTorch)
// and the type-erased search (`vzero search --evaluator net`) builds its evaluator through them.
// This keeps the layers one-way (engine never includes nets/) while one binary serves every game.
// Thread-safety: install before any search starts; reading is then safe from any thread.

#include <memory>
#include <string>

#include "engine/core/game.h"
#include "engine/search/evaluator.h"

namespace vz {

// Builds the evaluator of net file `net_path` on `device` ("cpu", "cuda", "cuda:N"). Throws
// vz::Error naming the file or device on any fault (missing, corrupt, made for another game).
template <Game G>
using NetEvaluatorFactory = std::unique_ptr<Evaluator<G>> (*)(const std::string& net_path,
                                                              const std::string& device);

// The slot of game G; null until nets/ installs a factory.
template <Game G>
NetEvaluatorFactory<G>& NetEvaluatorSlot() {
  static NetEvaluatorFactory<G> slot = nullptr;
  return slot;
}

// Loads net file `net_path` and returns its evaluator for G, through the installed factory (to
// build one from a NetFile already in memory, above engine/, see nets::MakeNetEvaluator). Throws
// vz::Error if no factory is installed (a build without LibTorch), if `net_path` is empty, or
// whatever the factory throws.
template <Game G>
std::unique_ptr<Evaluator<G>> LoadNetEvaluator(const std::string& net_path,
                                               const std::string& device) {
  const NetEvaluatorFactory<G> factory = NetEvaluatorSlot<G>();
  if (factory == nullptr) {
    throw Error("evaluator 'net' needs a vzero built with LibTorch (this build has no nets/)");
  }
  if (net_path.empty()) throw Error("evaluator 'net' needs a net file (--net FILE)");
  return factory(net_path, device);
}

}  // namespace vz
