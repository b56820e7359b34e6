#include "selfplay/strength.h"

#include <fmt/core.h>

#include "engine/core/error.h"
#include "selfplay/cluster.h"

namespace vz {

bool StrengthCheckDue(int64_t step, int64_t last_checked_step, int64_t checkpoint_every_steps,
                      int64_t every_checkpoints) {
  if (checkpoint_every_steps < 1) {
    throw Error(fmt::format("strength checks: checkpoint_every_steps {} is below 1",
                            checkpoint_every_steps));
  }
  if (every_checkpoints <= 0) return false;
  if (last_checked_step < 0) return true;
  if (step <= last_checked_step) return false;
  return step / checkpoint_every_steps - last_checked_step / checkpoint_every_steps >=
         every_checkpoints;
}

MatchConfig StrengthMatchConfig(const proto::TrainConfig& config, const std::string& net_path,
                                int opponent) {
  const proto::StrengthConfig& s = config.strength();
  if (opponent < 0 || opponent >= s.opponents_size()) {
    throw Error(fmt::format("strength check: opponent {} of {}", opponent, s.opponents_size()));
  }
  return RunMatchConfig(config, RunNetPlayer(config, net_path, s.simulations()),
                        s.opponents(opponent), int(s.games()), int(s.opening_plies()),
                        config.seed() * 1000003 + 0x5354 + uint64_t(opponent));
}

nlohmann::json MatchResultFields(const MatchSummary& summary) {
  nlohmann::json fields = {{"games", summary.wins + summary.draws + summary.losses},
                           {"wins", summary.wins},
                           {"draws", summary.draws},
                           {"losses", summary.losses},
                           {"score", summary.Score()},
                           {"elo", summary.elo.elo},
                           {"elo_low", summary.elo.elo_low},
                           {"elo_high", summary.elo.elo_high},
                           {"elo_interval_defined", summary.elo.interval_defined},
                           {"adjudicated", summary.adjudicated}};
  if (summary.llr) {
    fields["llr"] = *summary.llr;
    fields["sprt"] = summary.verdict == SprtVerdict::kAcceptH1   ? "H1"
                     : summary.verdict == SprtVerdict::kAcceptH0 ? "H0"
                                                                 : "continue";
  }
  return fields;
}

nlohmann::json StrengthRecord(const StrengthPoint& point, const std::string& opponent,
                              int simulations, const MatchSummary& summary, double seconds,
                              const std::string& time) {
  nlohmann::json record = {{"type", "strength"},
                           {"time", time},
                           {"net", point.net_id},
                           {"step", point.step},
                           {"selfplay_games", point.selfplay_games},
                           {"selfplay_positions", point.selfplay_positions},
                           {"wall_seconds", point.wall_seconds},
                           {"opponent", opponent},
                           {"simulations", simulations},
                           {"seconds", seconds}};
  record.update(MatchResultFields(summary));
  return record;
}

}  // namespace vz
