#include "research/study.h"

#include <algorithm>

namespace vz::research {

std::vector<const StudyGame*> GamesLabelled(const std::vector<StudyGame>& games,
                                            const std::string& label) {
  std::vector<const StudyGame*> selected;
  for (const StudyGame& game : games) {
    if (game.label == label) selected.push_back(&game);
  }
  return selected;
}

std::vector<std::string> Labels(const std::vector<StudyGame>& games) {
  std::vector<std::string> labels;
  for (const StudyGame& game : games) {
    if (std::find(labels.begin(), labels.end(), game.label) == labels.end()) {
      labels.push_back(game.label);
    }
  }
  return labels;
}

std::vector<BalanceRow> BalanceTable(const std::vector<StudyGame>& games) {
  std::vector<BalanceRow> rows;
  for (const std::string& label : Labels(games)) {
    BalanceRow row;
    row.label = label;
    double plies = 0;
    for (const StudyGame* game : GamesLabelled(games, label)) {
      row.budget = game->budget;
      ++row.games;
      row.white_wins += game->status == Status::kWhiteWins;
      row.black_wins += game->status == Status::kBlackWins;
      row.draws += game->status == Status::kDraw;
      ++row.endings[game->ending];
      plies += double(game->moves.size());
    }
    row.white_score = ScoreInterval(row.white_wins, row.draws, row.black_wins);
    row.mean_plies = row.games > 0 ? plies / double(row.games) : 0.0;
    rows.push_back(row);
  }
  return rows;
}

PieceValueFit FitPieceValues(const MaterialData& data, const std::vector<std::string>& names,
                             const std::vector<int>& baselines, const std::string& description) {
  PieceValueFit fit;
  fit.data = description;
  fit.positions = int64_t(data.scores.size());
  std::vector<int64_t> ids = data.game_ids;
  std::sort(ids.begin(), ids.end());
  fit.games = int64_t(std::unique(ids.begin(), ids.end()) - ids.begin());
  const int kinds = int(names.size());
  std::vector<int> columns;  // kinds whose difference varies
  for (int kind = 0; kind < kinds; ++kind) {
    PieceValueRow row;
    row.kind = names[size_t(kind)];
    row.baseline = baselines[size_t(kind)];
    bool varies = false;
    for (const auto& difference : data.differences) {
      varies = varies || difference[size_t(kind)] != data.differences[0][size_t(kind)];
    }
    row.estimated = varies;
    if (varies) columns.push_back(kind);
    fit.rows.push_back(row);
  }
  if (data.scores.empty()) {
    fit.error = "no positions";
    return fit;
  }
  if (columns.empty()) {
    fit.error = "the material difference never varied (no captures in the games)";
    return fit;
  }
  const int features = 1 + int(columns.size());
  std::vector<double> x;
  x.reserve(data.scores.size() * size_t(features));
  for (const auto& difference : data.differences) {
    x.push_back(1.0);
    for (int kind : columns) x.push_back(double(difference[size_t(kind)]));
  }
  LogisticFit logistic;
  try {
    logistic = FitLogistic(x, features, data.scores, data.game_ids);
  } catch (const Error& e) {
    std::string features = "features: 0 intercept";
    for (size_t c = 0; c < columns.size(); ++c) {
      features += ", " + std::to_string(c + 1) + " " + names[size_t(columns[c])];
    }
    fit.error = std::string(e.what()) + " (" + features + "; too few captures?)";
    return fit;
  }
  fit.converged = logistic.converged;
  fit.intercept = logistic.coefficients[0];
  fit.intercept_error = logistic.standard_errors[0];
  const int reference = columns[0];
  fit.reference = names[size_t(reference)];
  for (size_t c = 0; c < columns.size(); ++c) {
    PieceValueRow& row = fit.rows[size_t(columns[c])];
    row.coefficient = logistic.coefficients[c + 1];
    row.standard_error = logistic.standard_errors[c + 1];
    row.relative = CoefficientRatio(logistic, int(c) + 1, 1);
  }
  for (PieceValueRow& row : fit.rows) {
    row.baseline_relative = double(row.baseline) / double(baselines[size_t(reference)]);
  }
  return fit;
}

void FinishMaterialCurve(MaterialCurve& curve) {
  for (size_t ply = 0; ply < curve.games_running.size(); ++ply) {
    const double n = std::max(1, curve.games_running[ply]);
    for (double& count : curve.pieces[ply]) count /= n;
    curve.white[ply] /= n;
    curve.black[ply] /= n;
  }
}

}  // namespace vz::research
