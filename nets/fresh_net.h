#pragma once

// New networks (torch-free interface; implemented with LibTorch in nets/model.cc, reached through
// nets/torch_backend.h).

#include <cstdint>

#include "nets/net_file.h"

namespace vz::nets {

// `header` (game, encodings, architecture) with freshly initialised weights (LibTorch's default
// initialisation seeded by `seed`, batch norms at identity), provenance "created" set to now.
// Throws vz::Error on an invalid architecture.
NetFile FreshNet(const NetFile& header, uint64_t seed);

// Game G's `preset` (nets/net_architecture.h) with fresh weights.
template <Game G>
NetFile FreshNetForGame(std::string_view preset, uint64_t seed) {
  return FreshNet(NetHeaderForGame<G>(PresetArchitectureFor<G>(preset)), seed);
}

}  // namespace vz::nets
