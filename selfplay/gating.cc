#include "selfplay/gating.h"

#include <fmt/core.h>

#include <algorithm>

#include "selfplay/cluster.h"
#include "selfplay/train_config.h"

namespace vz {

MatchConfig GatingMatchConfig(const proto::TrainConfig& config, const std::string& candidate,
                              const std::string& best, uint64_t seed) {
  const proto::GatingConfig& g = config.gating();
  MatchConfig match =
      RunMatchConfig(config, candidate, best, int(g.games()), int(g.opening_plies()), seed);
  if (EffectiveGatingMode(g) == GatingMode::kSprt) {
    SprtParams sprt;
    sprt.elo0 = g.sprt().elo0();
    sprt.elo1 = g.sprt().elo1();
    sprt.alpha = g.sprt().alpha();
    sprt.beta = g.sprt().beta();
    match.sprt = sprt;
  }
  if (g.concurrent_games() > 0) {
    // Whole pairs in flight, so that a decision leaves no pair half played.
    match.concurrency = std::min(match.games, int(g.concurrent_games() + g.concurrent_games() % 2));
  }
  return match;
}

GatingVerdict JudgeGating(const proto::GatingConfig& gating, const MatchSummary& summary) {
  GatingVerdict verdict;
  switch (EffectiveGatingMode(gating)) {
    case GatingMode::kNone:
      verdict.promote = true;
      verdict.reason = "gating off";
      break;
    case GatingMode::kThreshold: {
      const double score = summary.Score();
      verdict.promote = score >= gating.threshold();
      verdict.reason = fmt::format("score {:.3f} {} threshold {:.2f}", score,
                                   verdict.promote ? ">=" : "<", gating.threshold());
      break;
    }
    case GatingMode::kSprt: {
      const double llr = summary.llr.value_or(0.0);
      const int64_t games = summary.wins + summary.draws + summary.losses;
      verdict.promote = summary.verdict == SprtVerdict::kAcceptH1;
      verdict.reason =
          summary.verdict == SprtVerdict::kContinue
              ? fmt::format("SPRT undecided after {} games (LLR {:.2f}): the game limit", games,
                            llr)
              : fmt::format("SPRT accepted {} after {} games (LLR {:.2f})",
                            summary.verdict == SprtVerdict::kAcceptH1 ? "H1" : "H0", games, llr);
      break;
    }
  }
  return verdict;
}

}  // namespace vz
