#include "app/text_util.h"

#include <sstream>

namespace vz::app {

std::vector<std::string> SplitMoves(const std::string& text) {
  std::vector<std::string> moves;
  std::istringstream stream(text);
  for (std::string move; stream >> move;) moves.push_back(move);
  return moves;
}

}  // namespace vz::app
