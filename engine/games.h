#pragma once

// The list of every game compiled into vzero. The registry (engine/registry.cc) and the typed
// conformance tests (tests/engine/conformance_test.cc) both iterate this list, so a new game is
// added here once.

#include "engine/draughts/game.h"

namespace vz {

template <class... Gs>
struct GameList {};

using AllGames = GameList<draughts::DraughtsGame>;

}  // namespace vz
