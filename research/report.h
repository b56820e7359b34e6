#pragma once

// The research report's files (research/research.h computes the contents): one self-contained
// HTML page with inline SVG plots and board diagrams (research/svg_plot.h, research/board_svg.h),
// every table as CSV, all of it as JSON, and the games as PGN (PDN for draughts):
//   report.html          Balance, Game metrics, Piece values, Imbalance matches, Two players,
//                        Openings, Game shape, Example games
//   report.json          every table below, and the settings
//   balance.csv          label,budget,games,white_wins,draws,black_wins,white_score,score_low,
//                        score_high,mean_plies
//   endings.csv          label,ending,games
//   piece_values.csv     data,kind,estimated,coefficient,standard_error,relative,relative_low,
//                        relative_high,baseline,baseline_relative,positions,games
//   openings_tree.csv    depth,line,move,count,white_score,prior,value
//   opening_lines.csv    line,count,white_score
//   opening_entropy.csv  label,plies,entropy_bits,distinct,games
//   first_moves.csv      move,visits,prior,search_value,games,white_wins,draws,black_wins,
//                        white_score,score_low,score_high
//   captures.csv         label,kind,captured_per_game,promoted_per_game
//   material.csv         ply,games_running,white_material,black_material,<count per kind>...
//   metrics.csv          label,metric,name,value,low,high,samples,definition
//   branching.csv        label,plies_from,branching_factor
//   imbalances.csv       player,imbalance,games,wins,draws,losses,score,score_low,score_high,sweep
//   imbalance_values.csv the fits of the imbalance matches, as piece_values.csv
//   value_methods.csv    player,kind,regression,regression_low,regression_high,imbalance,
//                        imbalance_low,imbalance_high,baseline_relative,differs
//   players.csv          first,second,finding,first_value,first_low,first_high,second_value,
//                        second_low,second_high,differs
//   games.csv            label,budget,index,result,ending,plies,termination
//   games-<label>.pgn    the records of each group (".pdn" for draughts)
//   figure-<name>.svg    the main plots and the start position on their own, for other documents
// Scores are White's (win 1, draw 1/2); values are W - L in [-1, 1] from White's view.

#include <string>
#include <utility>
#include <vector>

#include "research/imbalance.h"
#include "research/metrics.h"
#include "research/study.h"

namespace vz::research {

// A first move from the dedicated search of the start position, and the games played after it.
struct FirstMoveRow {
  std::string move;      // display form
  std::string position;  // the position after it
  int visits = 0;
  double prior = 0;         // the net's prior
  double search_value = 0;  // the search's mean value of the move, White's view
  int64_t games = 0, white_wins = 0, draws = 0, black_wins = 0;  // self-play from the position
  Interval white_score;
};

// An example game: its record, its values and diagrams of key positions.
struct ExampleGame {
  std::string title;
  const StudyGame* game = nullptr;
  std::vector<std::string> diagrams;  // inline SVG elements
};

// The findings of two players side by side (research/metrics.h PlayerFinding).
struct PlayerComparison {
  std::string first, second;  // group labels: the net's largest budget, an independent player
  std::vector<PlayerFinding> findings;
};

struct StudyReport {
  std::string variant;
  bool draughts = false;                                      // PDN instead of PGN
  std::string command;                                        // the command line that made it
  std::vector<std::pair<std::string, std::string>> settings;  // shown and saved as given
  std::string start_diagram;                                  // SVG of the start position
  std::vector<StudyGame> games;                               // every game of the study
  std::vector<std::string> budget_labels;  // the fresh games' labels, by increasing budget
  std::vector<BalanceRow> balance;
  std::vector<PieceValueFit> piece_values;  // the first is the headline fit
  OpeningTables openings;
  int root_simulations = 0;
  double root_search_value = 0;  // the dedicated search's value of the start, White's view
  std::string first_move_label;  // label of the games played after the first moves
  std::vector<FirstMoveRow> first_moves;
  std::vector<std::string> kind_names;  // [kind]
  std::vector<ShapeRow> shape;
  MaterialCurve material;
  std::vector<ExampleGame> examples;
  std::vector<GameMetrics> metrics;        // per group: the budgets, the players, the records
  std::vector<ImbalanceStudy> imbalances;  // per player, the net first
  // Per player with imbalance matches: its piece values by regression and by those matches.
  std::vector<std::pair<std::string, std::vector<ValueComparison>>> value_methods;
  std::vector<PlayerComparison> players;  // the net against each independent player
};

// Writes the files listed above into `out_dir` (created). Throws vz::Error naming a file that
// cannot be written.
void WriteReport(const StudyReport& report, const std::string& out_dir);

// A file-name-safe form of a label: lower case letters, digits and '-' ("16 sims" -> "16-sims").
std::string Slug(const std::string& label);

}  // namespace vz::research
