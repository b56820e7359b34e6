#include "engine/games.h"

#include <algorithm>
#include <vector>

#include "engine/core/error.h"

namespace vz {

std::string KnownGameNames() {
  std::vector<std::string_view> names(kGameNames.begin(), kGameNames.end());
  std::sort(names.begin(), names.end());
  std::string known;
  for (std::string_view name : names) known += (known.empty() ? "" : ", ") + std::string(name);
  return known;
}

int GameIndex(std::string_view name) {
  for (size_t index = 0; index < kGameNames.size(); ++index) {
    if (kGameNames[index] == name) return int(index);
  }
  throw Error("unknown variant '" + std::string(name) + "' (known: " + KnownGameNames() + ")");
}

}  // namespace vz
