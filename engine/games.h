#pragma once

// The list of every game compiled into vzero and the one way to pick a game by its registry name.
// Everything that chooses a game at run time goes through GameIndex: the type-erased registry
// (engine/registry.h, FindVariant), typed code above engine/ (WithGame below), the net layer and
// the analysis engine; so there is one lookup and one "unknown variant" message. The typed
// conformance tests (tests/engine/conformance_test.cc) iterate the same list, so a new game is
// added here once.

#include <array>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "engine/chaco_rex/game.h"
#include "engine/chad/game.h"
#include "engine/core/macros.h"
#include "engine/cuarenta/game.h"
#include "engine/draughts/game.h"

namespace vz {

template <class... Gs>
struct GameList {};

// Expands M(G) once for every game G, in AllGames order: for the explicit template instantiations
// of a .cc file (`#define VZ_INSTANTIATE(G) template ... F<G>(...);` then
// `VZ_FOR_EACH_GAME(VZ_INSTANTIATE)`). The one list of the games: AllGames is made from it.
#define VZ_FOR_EACH_GAME(M) \
  M(draughts::DraughtsGame) M(cuarenta::CuarentaGame) M(chad::ChadGame) M(chaco_rex::ChacoRexGame)

namespace games_detail {
template <class First, class... Gs>
GameList<Gs...> DropFirst(GameList<First, Gs...>);
#define VZ_GAME_LIST_ENTRY(G) , G
using GamesOfTheMacro = decltype(DropFirst(GameList<void VZ_FOR_EACH_GAME(VZ_GAME_LIST_ENTRY)>{}));
#undef VZ_GAME_LIST_ENTRY
}  // namespace games_detail

// Every game, in registry order: draughts, Cuarenta, Chad, Chaco Rex.
using AllGames = games_detail::GamesOfTheMacro;

namespace games_detail {
template <class... Gs>
constexpr std::array<std::string_view, sizeof...(Gs)> NamesOf(GameList<Gs...>) {
  return {std::string_view(Gs::kName)...};
}

template <class F, class G, class... Rest>
decltype(auto) VisitIndex(int index, F& f) {
  if constexpr (sizeof...(Rest) == 0) {
    return f.template operator()<G>();
  } else {
    if (index == 0) return f.template operator()<G>();
    return VisitIndex<F, Rest...>(index - 1, f);
  }
}

template <class F, class... Gs>
decltype(auto) VisitList(int index, F& f, GameList<Gs...>) {
  return VisitIndex<F, Gs...>(index, f);
}

}  // namespace games_detail

// The registry names of AllGames, in AllGames order.
inline constexpr auto kGameNames = games_detail::NamesOf(AllGames{});

// The registry names in name order, comma separated: "chaco-rex, chad, cuarenta, ...".
std::string KnownGameNames();

// The index in AllGames (and kGameNames) of the game called `name`. Throws vz::Error
// "unknown variant 'NAME' (known: ...)" when there is none: the one message of every command.
int GameIndex(std::string_view name);

// Calls `f.template operator()<G>()` for the game G at `index` in AllGames and returns what it
// returns (every instantiation must return the same type). `index` must be in
// [0, kGameNames.size()) (VZ_CHECK). Throws whatever `f` throws.
template <class F>
decltype(auto) WithGameAt(int index, F&& f) {
  VZ_CHECK(index >= 0 && index < int(kGameNames.size()));
  return games_detail::VisitList(index, f, AllGames{});
}

// WithGameAt for the game called `name`. Throws GameIndex's vz::Error for an unknown name.
template <class F>
decltype(auto) WithGame(std::string_view name, F&& f) {
  return WithGameAt(GameIndex(name), std::forward<F>(f));
}

}  // namespace vz
