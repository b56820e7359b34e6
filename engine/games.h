#pragma once

// The list of every game compiled into vzero. The registry (engine/registry.cc) and the typed
// conformance tests (tests/engine/conformance_test.cc) both iterate this list, so a new game is
// added here once.

#include "engine/chaco_rex/game.h"
#include "engine/chad/game.h"
#include "engine/cuarenta/game.h"
#include "engine/draughts/game.h"

namespace vz {

template <class... Gs>
struct GameList {};

using AllGames = GameList<draughts::DraughtsGame, cuarenta::CuarentaGame, chad::ChadGame,
                          chaco_rex::ChacoRexGame>;

}  // namespace vz
