#pragma once

// GoogleTest type list of every registered game, for typed tests over all games.

#include <gtest/gtest.h>

#include <string>

#include "engine/games.h"

namespace vz::testing {

template <class L>
struct ToGtestTypes;
template <class... Gs>
struct ToGtestTypes<GameList<Gs...>> {
  using type = ::testing::Types<Gs...>;
};

using AllGameTypes = typename ToGtestTypes<AllGames>::type;

// Test-name generator: the game's registry name with '-' replaced by '_'.
struct GameNames {
  template <class G>
  static std::string GetName(int) {
    std::string name(G::kName);
    for (char& c : name) c = c == '-' ? '_' : c;
    return name;
  }
};

}  // namespace vz::testing
