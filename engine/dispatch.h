#pragma once

// Runs a generic lambda for the registered game named `variant` (engine/games.h), so that the
// code above engine/ stays templates over the game type with one type-erased entry point each.

#include <string>
#include <string_view>

#include "engine/core/error.h"
#include "engine/games.h"

namespace vz {

namespace dispatch_detail {

template <class F, class G, class... Rest>
void Visit(std::string_view variant, F& f, bool& found) {
  if (std::string_view(G::kName) == variant) {
    found = true;
    f.template operator()<G>();
    return;
  }
  if constexpr (sizeof...(Rest) > 0) Visit<F, Rest...>(variant, f, found);
}

template <class F, class... Gs>
void VisitList(std::string_view variant, F& f, bool& found, GameList<Gs...>) {
  Visit<F, Gs...>(variant, f, found);
}

template <class F, class... Gs>
std::string NamesOf(GameList<Gs...>) {
  std::string names;
  ((names += (names.empty() ? "" : ", ") + std::string(Gs::kName)), ...);
  return names;
}

}  // namespace dispatch_detail

// Calls `f.template operator()<G>()` for the game G whose kName is `variant`. Throws vz::Error
// naming the variant and the known games when none matches.
template <class F>
void WithGame(std::string_view variant, F&& f) {
  bool found = false;
  dispatch_detail::VisitList(variant, f, found, AllGames{});
  if (!found) {
    throw Error("unknown variant '" + std::string(variant) +
                "' (known: " + dispatch_detail::NamesOf<F>(AllGames{}) + ")");
  }
}

}  // namespace vz
