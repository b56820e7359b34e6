#pragma once

// `vzero research`: a study of a game itself from a trained net, after the AlphaZero study of
// chess variants (Tomasev, Paquet, Hassabis, Kramnik 2020). It plays fresh games of the net
// against itself at each search budget (arena/match.h: all games in flight share one
// evaluator call per round), searches the start position and plays games after the preferred
// first moves, adds a training run's own self-play records when given one, and writes the report
// of research/report.h: balance, the field's game metrics, piece values by regression and by
// imbalance matches, openings, game shape, the findings under two independent players (the net
// and each of `players`), example games.
//
// Reproducible: game k of budget b is seeded from `seed`, b and k alone (arena/match_games.h),
// so the same command gives the same games (up to floating-point differences of batch sizes on
// a GPU). Resumable: every match is played in parts whose games are saved in OUT/parts/ as each
// part ends; the same command run again reads the finished parts and plays only the rest. Progress
// goes to stderr (a live line on a terminal, a line per tenth otherwise), with the time left at the
// match's pace.

#include <cstdint>
#include <string>
#include <vector>

#include "arena/match.h"

namespace vz::research {

struct ResearchConfig {
  std::string variant;                      // registry name; "" = the net's (or the run's) game
  std::string net_file;                     // "" with run_dir: RUN/nets/best.vznet
  std::string run_dir;                      // "" = no run: fresh games only
  int games = 20;                           // fresh games per budget (rounded up to an even number)
  std::vector<int> simulations = {16, 64};  // search budgets, simulations a move (PUCT)
  // The net's searches with leaf quiescence (player option `:qs`, engine/search/
  // quiescence_evaluator.h), as the shipped nets play: stronger, not zero-knowledge.
  bool leaf_quiescence = false;
  std::string out_dir;  // "" = research-<variant>
  uint64_t seed = 1;
  int concurrency = 64;  // games in flight per match
  // Over-long games: 0 = the run's selfplay.max_plies (300 without a run); the adjudication and
  // its margin likewise come from the run unless set here (material / 200 without a run).
  int max_plies = 0;
  std::string adjudication;  // "", "draw" or "material"
  int material_margin = 0;   // 0 = the run's (or 200)
  int sample_plies = 8;      // first plies sampled from the visit counts (opening diversity)
  float temperature = 1.0f;
  int opening_depth = 4;       // plies of the opening tree, lines and entropy
  int root_simulations = 800;  // the dedicated search of the start position
  int first_moves = 3;         // first moves followed by games of their own
  int first_move_games = 8;    // games after each (rounded up to an even number; 0 = none)
  int record_games = 2000;     // the newest games of the run's record chunks (0 = none)
  int examples = 4;            // example games shown
  // Independent players studied beside the net (issue 30), player specs of arena/player.h: their
  // self-play games from `player_opening_plies` random plies (a deterministic player would play
  // one game), their metrics, piece values and imbalance matches beside the net's, and the
  // findings that differ between them beyond the intervals.
  std::vector<std::string> players = {"alphabeta:2"};
  int player_opening_plies = 2;
  // Imbalance matches (research/imbalance.h): games per imbalance and player (rounded up to an
  // even number of pairs, so that each colour is advantaged as often; 0 = none), over-long games
  // drawn (a material adjudication would use the baseline's values), each opened by
  // `imbalance_plies` random plies without a capture. The net plays them at its largest budget.
  int imbalance_games = 20;
  int imbalance_plies = 2;
  // Decision moves of the game metrics (research/metrics.h): a position every this many plies
  // judged by alphabeta:2 (0 = not measured).
  int decision_every = 8;
  // The net's strength as studied (its largest budget) against the fixed opponents alphabeta:1
  // and alphabeta:2: games each from random 4-ply openings, in pairs (0 = not measured).
  int strength_games = 20;
  std::string command;  // the command line, for the report
};

struct ResearchSummary {
  std::string variant;
  std::string out_dir;
  std::string html;  // path of report.html
  // Study games: the budgets', the first moves', the independent players' (one of two identical
  // games of a pair kept) and the imbalance matches'.
  int64_t games_played = 0;
  int64_t record_games = 0;  // games read from the run's records
  // The matches' games (before one of two identical games of a deterministic player's pair is
  // dropped): read back from the parts an earlier run of the same command finished (OUT/parts/),
  // and played by this run.
  int64_t games_resumed = 0;
  int64_t games_searched = 0;
};

// Runs the study. Throws vz::Error on bad settings (naming the option: no net, games < 1, a budget
// < 1, a bad player spec, negative imbalance games or plies, ...), an unknown variant, a net of
// another game, an unreadable run directory, net file or record chunk, and on an unwritable output
// directory. Needs a build with LibTorch.
ResearchSummary RunResearch(const ResearchConfig& config);

}  // namespace vz::research
