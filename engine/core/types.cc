#include "engine/core/types.h"

namespace vz {

const char* StatusName(Status status) {
  switch (status) {
    case Status::kOngoing: return "ongoing";
    case Status::kWhiteWins: return "white-wins";
    case Status::kBlackWins: return "black-wins";
    case Status::kDraw: return "draw";
  }
  return "unknown";
}

const char* ReasonName(Reason reason) {
  switch (reason) {
    case Reason::kNone: return "none";
    case Reason::kCheckmate: return "checkmate";
    case Reason::kNoLegalMove: return "no-legal-move";
    case Reason::kStalemate: return "stalemate";
    case Reason::kRepetition: return "threefold-repetition";
    case Reason::kTwentyMoveRule: return "twenty-move-rule";
    case Reason::kThreeKingsRule: return "three-kings-rule";
    case Reason::kFortyMoveRule: return "forty-move-rule";
    case Reason::kInsufficientMaterial: return "insufficient-material";
    case Reason::kBareKings: return "bare-kings";
    case Reason::kAdjudication: return "adjudication";
  }
  return "unknown";
}

const char* ColorName(Color color) { return color == Color::kWhite ? "white" : "black"; }

}  // namespace vz
