#pragma once

// How a game of a training run ends when the rules have not ended it by selfplay.max_plies: the
// one rule of self-play games (selfplay/selfplay_actors.h) and warm-start games
// (selfplay/warm_start.h), and the +1 / 0 / -1 result their records carry.

#include <fmt/core.h>

#include <cstddef>
#include <string>

#include "engine/alphabeta/evaluation.h"
#include "engine/core/game.h"
#include "proto/train.pb.h"

namespace vz {

// The +1 / 0 / -1 result of `status` from White's view.
inline int ResultFromWhite(Status status) {
  return status == Status::kWhiteWins ? 1 : status == Status::kBlackWins ? -1 : 0;
}

// The adjudicated result of an over-long game and its reason for the record.
struct OverLongResult {
  Status status = Status::kDraw;
  std::string reason;  // "adjudication: material +400 after 100 plies (margin 300)", "... draw ..."
};

// Adjudicates the game at `position` after `plies` plies by `config`'s adjudication: MATERIAL
// (MaterialAdjudication with material_margin) or a draw.
template <Game G>
OverLongResult AdjudicateOverLong(const proto::SelfPlayConfig& config,
                                  const typename G::Position& position, size_t plies) {
  if (config.adjudication() != proto::MATERIAL) {
    return {Status::kDraw, fmt::format("adjudication: draw after {} plies", plies)};
  }
  const int material = MaterialBalance<G>(position);
  const int margin = int(config.material_margin());
  return {MaterialAdjudication<G>(position, margin),
          fmt::format("adjudication: material {:+d} after {} plies (margin {})", material, plies,
                      margin)};
}

}  // namespace vz
