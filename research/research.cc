#include "research/research.h"

#include <fmt/core.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "arena/player.h"
#include "arena/stats.h"
#include "engine/core/atomic_file.h"
#include "engine/core/clock.h"
#include "engine/core/fnv.h"
#include "engine/games.h"
#include "engine/registry.h"
#include "engine/search/mcts.h"
#include "nets/net_file.h"
#include "nets/shipped_nets.h"
#include "records/game_record.h"
#include "records/pgn_record.h"
#include "records/run_files.h"
#include "research/board_svg.h"
#include "research/imbalance.h"
#include "research/metrics.h"
#include "research/report.h"
#include "research/study.h"

namespace vz::research {
namespace {

namespace fs = std::filesystem;

// The settings after the run's defaults are applied.
struct Resolved {
  std::string variant;
  std::string net_file;
  std::string net_hash;  // of the net file's bytes: a saved part is of this net only
  std::optional<proto::TrainConfig> run_config;
  int max_plies = 300;
  Adjudication adjudication = Adjudication::kMaterial;
  int material_margin = 200;
  std::string out_dir;
  std::vector<int> budgets;  // sorted, distinct
  int games = 0;             // per budget, even
  int first_move_games = 0;  // per first move, even
};

// A score line on stderr while a match plays: rewritten in place on a terminal, a line per tenth
// of the games otherwise.
class Progress {
 public:
  Progress(std::string label, int total)
      : label_(std::move(label)),
        total_(total),
        tty_(isatty(STDERR_FILENO) != 0),
        start_(std::chrono::steady_clock::now()) {}

  // Games of finished parts read back (a resumed study): counted, not timed.
  void AddResumed(int64_t games) {
    done_ += int(games);
    resumed_ += int(games);
  }

  void Add(const MatchGame& game) {
    ++done_;
    white_ += game.outcome.status == Status::kWhiteWins;
    black_ += game.outcome.status == Status::kBlackWins;
    draws_ += game.outcome.status == Status::kDraw;
    plies_ += game.plies;
    const bool tenth = done_ * 10 / total_ != (done_ - 1) * 10 / total_;
    if (!tty_ && !tenth && done_ != total_) return;
    const double seconds = SecondsSince(start_);
    const double left = seconds / double(std::max(1, done_ - resumed_)) * double(total_ - done_);
    const std::string line = fmt::format(
        "research [{}] games {}/{}  White {} draws {} Black {}  White's score {:.3f}  "
        "{:.1f} plies/s  {}",
        label_, done_, total_, white_, draws_, black_,
        (double(white_) + 0.5 * double(draws_)) / double(done_),
        seconds > 0 ? double(plies_) / seconds : 0.0,
        done_ == total_ ? fmt::format("done in {:.0f} s", seconds)
                        : fmt::format("about {:.0f} s left", left));
    if (tty_) {
      fmt::print(stderr, "\r{}   {}", line, done_ == total_ ? "\n" : "");
    } else {
      fmt::print(stderr, "{}\n", line);
    }
    std::fflush(stderr);
  }

 private:
  std::string label_;
  int total_, done_ = 0, resumed_ = 0;
  int64_t white_ = 0, black_ = 0, draws_ = 0, plies_ = 0;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
};

// --- parts: a study resumes from the finished parts of its matches ---------------------------

// What must be equal for a saved part to be a part of `match`.
// An openings file enters by its contents (the study rewrites its openings files on every run).
std::string PartKey(const Resolved& r, const MatchConfig& match) {
  std::string openings = match.openings;
  if (!openings.empty() && openings.rfind("random:", 0) != 0) {
    openings = fmt::format("file {:016x}", Fnv1a64(ReadTextFile(openings)));
  }
  return fmt::format(
      "{} | net {} | {} | {} | games {} | first pair {} | openings {} | seed {} | "
      "plies {} | adjudication {} {} | sampled {} at {}",
      r.variant, r.net_hash, match.player1, match.player2, match.games, match.first_pair, openings,
      match.seed, match.max_plies, int(match.adjudication), match.material_margin,
      match.sample_plies, match.temperature);
}

nlohmann::json GameJson(const MatchGame& game) {
  nlohmann::json moves = nlohmann::json::array(), values = nlohmann::json::array();
  for (Move move : game.moves) moves.push_back(move.raw);
  for (float value : game.values) {
    values.push_back(std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr));
  }
  return {{"index", game.index},
          {"player1_white", game.player1_white},
          {"status", int(game.outcome.status)},
          {"reason", int(game.outcome.reason)},
          {"plies", game.plies},
          {"adjudicated", game.adjudicated},
          {"termination", game.termination},
          {"record", game.record},
          {"start", game.start},
          {"moves", moves},
          {"values", values}};
}

MatchGame GameFromJson(const nlohmann::json& j) {
  MatchGame game;
  game.index = j.at("index").get<int>();
  game.player1_white = j.at("player1_white").get<bool>();
  const int status = j.at("status").get<int>(), reason = j.at("reason").get<int>();
  if (status < 1 || status > 3 || reason < 0 || reason > int(Reason::kAdjudication)) {
    throw Error(fmt::format("game {}: status {} or reason {} out of range", game.index + 1, status,
                            reason));
  }
  game.outcome = {Status(status), Reason(reason)};
  game.plies = j.at("plies").get<int>();
  game.adjudicated = j.at("adjudicated").get<bool>();
  game.termination = j.at("termination").get<std::string>();
  game.record = j.at("record").get<std::string>();
  game.start = j.at("start").get<std::string>();
  for (const nlohmann::json& move : j.at("moves")) game.moves.push_back(Move{move.get<uint64_t>()});
  for (const nlohmann::json& value : j.at("values")) {
    game.values.push_back(value.is_null() ? std::numeric_limits<float>::quiet_NaN()
                                          : value.get<float>());
  }
  if (game.values.size() != game.moves.size()) {
    throw Error(fmt::format("game {}: {} values for {} moves", game.index + 1, game.values.size(),
                            game.moves.size()));
  }
  return game;
}

// The games of a saved part when it is a part of `match` (same key, every game there and
// replayable); nullopt otherwise, with a warning on stderr for a file that is not one.
template <Game G>
std::optional<std::vector<MatchGame>> ReadPart(const std::string& path, const std::string& key,
                                               const MatchConfig& match) {
  if (!fs::exists(path)) return std::nullopt;
  try {
    const nlohmann::json part = nlohmann::json::parse(ReadTextFile(path));
    if (part.at("key").get<std::string>() != key) return std::nullopt;  // another command's
    std::vector<MatchGame> games;
    for (const nlohmann::json& game : part.at("games")) games.push_back(GameFromJson(game));
    const int expected = 2 * std::max(1, (match.games + 1) / 2);
    if (int(games.size()) != expected) {
      throw Error(fmt::format("{} games instead of {}", games.size(), expected));
    }
    std::vector<bool> seen(size_t(expected), false);
    for (const MatchGame& game : games) {
      const int local = game.index - 2 * match.first_pair;
      if (local < 0 || local >= expected || seen[size_t(local)]) {
        throw Error(fmt::format("game {} is not of this part, or twice in it", game.index + 1));
      }
      seen[size_t(local)] = true;
      GameState<G> state(G::ParsePosition(game.start));
      for (Move move : game.moves) state.Play(move);  // throws on a move that is not legal
      if (!game.adjudicated && state.outcome().status != game.outcome.status) {
        throw Error(fmt::format("game {}: its moves do not end in its result", game.index + 1));
      }
    }
    return games;
  } catch (const std::exception& e) {
    fmt::print(stderr, "research: warning: part '{}' is unreadable, playing it again: {}\n", path,
               e.what());
    return std::nullopt;
  }
}

// Plays `match` in parts of whole pairs (as many games as the concurrency keeps in flight, at
// least 16), each part's games saved to OUT/parts/<name>-<first pair>.json when it is done; a
// part already saved by the same command is read instead of played, so an interrupted study
// resumes from its finished parts (the parts' games are those of one whole match: seeds and
// openings follow the pair, MatchConfig::first_pair). Games in index order of completion.
template <Game G>
std::vector<MatchGame> StudyMatch(const Resolved& r, const MatchConfig& match,
                                  const std::string& name, ResearchSummary& summary) {
  const int pairs = std::max(1, (match.games + 1) / 2);
  const int part_pairs = std::max(8, (match.concurrency + 1) / 2);
  const fs::path dir = fs::path(r.out_dir) / "parts";
  fs::create_directories(dir);
  Progress progress(name, 2 * pairs);
  std::vector<MatchGame> games;
  for (int first = 0; first < pairs; first += part_pairs) {
    MatchConfig part = match;
    part.first_pair = first;
    part.games = 2 * std::min(part_pairs, pairs - first);
    part.concurrency = std::clamp(match.concurrency, 1, part.games);
    const std::string key = PartKey(r, part);
    const std::string path = (dir / fmt::format("{}-{:05d}.json", Slug(name), first)).string();
    std::optional<std::vector<MatchGame>> saved = ReadPart<G>(path, key, part);
    if (saved) {
      progress.AddResumed(int64_t(saved->size()));
      summary.games_resumed += int64_t(saved->size());
    } else {
      saved = RunMatch(r.variant, part, [&](const MatchGame& game) { progress.Add(game); }).games;
      summary.games_searched += int64_t(saved->size());
      nlohmann::json json_games = nlohmann::json::array();
      for (const MatchGame& game : *saved) json_games.push_back(GameJson(game));
      WriteFileAtomically(path,
                          nlohmann::json({{"key", key}, {"games", json_games}}).dump() + "\n");
    }
    games.insert(games.end(), saved->begin(), saved->end());
  }
  return games;
}

// "W w D d L l, score s, Elo e [low, high] in N games from OPENINGS" for player 1 of a
// match's games (pairs: games 2k and 2k+1).
std::string StrengthLine(const std::vector<MatchGame>& games, const std::string& openings) {
  std::map<int, std::vector<MatchGame>> pairs;
  for (const MatchGame& game : games) pairs[game.index / 2].push_back(game);
  MatchSummary summary;
  for (auto& [pair, pair_games] : pairs) summary.AddPair(pair_games);
  return fmt::format("{} in {} games from {}", summary.ResultText(), games.size(), openings);
}

std::string BudgetLabel(int simulations) { return fmt::format("{} sims", simulations); }

// The net's player spec at `simulations` a move (arena/player.h), with leaf quiescence when asked.
std::string NetSpec(const ResearchConfig& c, const Resolved& r, int simulations) {
  return fmt::format("net:{}:{}{}", r.net_file, simulations, c.leaf_quiescence ? ":qs" : "");
}

// A match of the study: `player1` against `player2` (the same spec: self-play), `games` games,
// over-long games as the study says, each game's first plies sampled (MCTS players).
MatchConfig StudyMatchConfig(const ResearchConfig& c, const Resolved& r, const std::string& player1,
                             const std::string& player2, int games, uint64_t seed) {
  MatchConfig match;
  match.player1 = player1;
  match.player2 = player2;
  match.games = games;
  match.concurrency = std::clamp(c.concurrency, 1, games);
  match.max_plies = r.max_plies;
  match.adjudication = r.adjudication;
  match.material_margin = r.material_margin;
  match.seed = seed;
  match.sample_plies = c.sample_plies;
  match.temperature = c.temperature;
  return match;
}

// The games of a match in index order.
template <Game G>
std::vector<StudyGame> GamesOf(const std::vector<MatchGame>& played, const std::string& label,
                               int budget) {
  std::vector<StudyGame> games;
  for (const MatchGame& game : played) {
    games.push_back(StudyGameFromMatch<G>(game, label, budget));
  }
  std::sort(games.begin(), games.end(),
            [](const StudyGame& a, const StudyGame& b) { return a.index < b.index; });
  return games;
}

// Self-play games of an independent player (`spec`), each pair from a fresh opening of
// `opening_plies` random plies. A deterministic player (alpha-beta) plays the same game twice in
// a pair: the study keeps one of two identical games.
template <Game G>
std::vector<StudyGame> PlayerGames(const ResearchConfig& c, const Resolved& r,
                                   const std::string& spec, uint64_t seed,
                                   ResearchSummary& result) {
  MatchConfig match = StudyMatchConfig(c, r, spec, spec, r.games, seed);
  if (c.player_opening_plies > 0) match.openings = fmt::format("random:{}", c.player_opening_plies);
  std::vector<StudyGame> games;
  for (StudyGame& game : GamesOf<G>(StudyMatch<G>(r, match, spec, result), spec, 0)) {
    const bool repeat = !games.empty() && games.back().index / 2 == game.index / 2 &&
                        games.back().start == game.start && games.back().moves == game.moves;
    if (!repeat) games.push_back(std::move(game));
  }
  return games;
}

// The imbalance matches of `spec` against itself: every imbalance's openings (written to
// OUT/imbalance-openings-<player>.txt), then one match over all of them; each game labelled
// "<name>: <imbalance>".
template <Game G>
std::vector<StudyGame> ImbalanceGames(const ResearchConfig& c, const Resolved& r,
                                      const std::vector<Imbalance>& imbalances,
                                      const std::string& spec, const std::string& name,
                                      uint64_t seed, ResearchSummary& result) {
  // Whole pairs, an even number of them: each colour advantaged in as many openings.
  const int pairs = (c.imbalance_games + 3) / 4 * 2;
  std::string openings;
  std::vector<std::string> labels;  // [opening]
  for (size_t i = 0; i < imbalances.size(); ++i) {
    for (const std::string& opening :
         ImbalanceOpenings<G>(imbalances[i], pairs, c.imbalance_plies, SplitMix64(seed + i))) {
      openings += opening + "\n";
      labels.push_back(name + ": " + ImbalanceName<G>(imbalances[i]));
    }
  }
  fs::create_directories(r.out_dir);
  const std::string file = r.out_dir + "/imbalance-openings-" + Slug(name) + ".txt";
  WriteFileAtomically(file, openings);
  MatchConfig match = StudyMatchConfig(c, r, spec, spec, 2 * int(labels.size()), seed);
  match.openings = file;
  // Over-long games are draws: a material adjudication would decide them by the baseline's piece
  // values, the values these matches measure independently.
  match.adjudication = Adjudication::kDraw;
  std::vector<StudyGame> games =
      GamesOf<G>(StudyMatch<G>(r, match, "imbalances, " + name, result), "", 0);
  for (StudyGame& game : games) game.label = labels[size_t(game.index / 2)];
  return games;
}

// The newest `limit` games of the run's record chunks, oldest first.
template <Game G>
std::vector<StudyGame> RunRecords(const std::string& run_dir, int limit, const std::string& label,
                                  int budget) {
  std::vector<StudyGame> games;
  if (limit <= 0) return games;
  const std::vector<std::string> chunks = ListRecordChunks(run_dir + "/records");
  std::vector<proto::GameRecord> records;
  for (auto it = chunks.rbegin(); it != chunks.rend() && int(records.size()) < limit; ++it) {
    std::vector<proto::GameRecord> chunk = ReadRecordChunk(*it);
    for (auto r = chunk.rbegin(); r != chunk.rend() && int(records.size()) < limit; ++r) {
      records.push_back(std::move(*r));
    }
  }
  std::reverse(records.begin(), records.end());
  for (const proto::GameRecord& record : records) {
    StudyGame game = StudyGameFromRecord<G>(record, label);
    game.budget = budget;
    games.push_back(std::move(game));
  }
  return games;
}

// Up to `count` games of `games` to show: a White win, a Black win and a draw first (each ended
// by the rules when there is one), then the longest other decisive games.
std::vector<const StudyGame*> PickExamples(const std::vector<const StudyGame*>& games, int count) {
  std::vector<const StudyGame*> picked;
  auto take = [&](const StudyGame* game) {
    if (int(picked.size()) < count &&
        std::find(picked.begin(), picked.end(), game) == picked.end()) {
      picked.push_back(game);
    }
  };
  for (Status status : {Status::kWhiteWins, Status::kBlackWins, Status::kDraw}) {
    const StudyGame* choice = nullptr;
    for (const StudyGame* game : games) {
      if (game->status != status) continue;
      if (choice == nullptr) choice = game;
      if (game->ending != "adjudication") {
        choice = game;
        break;
      }
    }
    if (choice != nullptr) take(choice);
  }
  std::vector<const StudyGame*> decisive;
  for (const StudyGame* game : games) {
    if (game->status != Status::kDraw) decisive.push_back(game);
  }
  std::stable_sort(decisive.begin(), decisive.end(), [](const StudyGame* a, const StudyGame* b) {
    return a->moves.size() > b->moves.size();
  });
  for (const StudyGame* game : decisive) take(game);
  for (const StudyGame* game : games) take(game);
  return picked;
}

// The example's title and diagrams: the position after the ply where the searches' value moved
// most (the turning point) and the final position, each with its last move outlined.
template <Game G>
ExampleGame MakeExample(const StudyGame& game, bool draughts) {
  ExampleGame example;
  example.game = &game;
  example.title = fmt::format("{}, game {}: {} by {} in {} plies", game.label, game.index + 1,
                              ResultToken(game.status, draughts), game.ending, game.moves.size());
  std::vector<typename G::Position> positions = {G::ParsePosition(game.start)};
  for (Move move : game.moves) {
    positions.push_back(positions.back());
    G::ApplyMove(positions.back(), move);
  }
  // values[ply] is the search of the position before moves[ply]: the turning point is the
  // position whose search moved the value most from the previous search's.
  int turning = -1;
  float largest = 0, before = NAN, previous = NAN;
  for (size_t ply = 0; ply < game.values.size(); ++ply) {
    const float value = game.values[ply];
    if (!std::isfinite(value)) continue;
    if (std::isfinite(previous) && std::fabs(value - previous) > largest) {
      largest = std::fabs(value - previous);
      turning = int(ply);
      before = previous;
    }
    previous = value;
  }
  if (turning > 0 && size_t(turning) + 1 < positions.size()) {
    const size_t ply = size_t(turning);
    example.diagrams.push_back(
        BoardSvg<G>(positions[ply],
                    fmt::format("turning point, ply {}: value {:+.2f} -> {:+.2f}", ply + 1, before,
                                game.values[ply]),
                    &positions[ply - 1], 300));
  }
  const size_t n = positions.size() - 1;
  example.diagrams.push_back(BoardSvg<G>(positions[n],
                                         fmt::format("final position ({})", game.ending),
                                         n > 0 ? &positions[n - 1] : nullptr, 300));
  return example;
}

template <Game G>
ResearchSummary Study(const ResearchConfig& c, const Resolved& r) {
  StudyReport report;
  report.variant = r.variant;
  report.draughts = IsDraughts<G>();
  report.command = c.command;
  const nets::NetFile net = nets::ReadNetFile(r.net_file);
  nets::CheckNetForGame<G>(net, r.net_file);
  auto& s = report.settings;
  s.emplace_back("net", r.net_file);
  s.emplace_back(
      "net provenance",
      fmt::format(
          "{} training steps on {} games, created {}; {}", net.provenance.training_steps,
          net.provenance.games, net.provenance.created,
          net.provenance.knowledge.empty() ? "knowledge not recorded" : net.provenance.knowledge));
  s.emplace_back("net architecture",
                 fmt::format("{} blocks x {} channels ({})", net.architecture.blocks,
                             net.architecture.channels, net.architecture.preset));
  std::string budgets;
  for (int b : r.budgets) budgets += (budgets.empty() ? "" : ", ") + std::to_string(b);
  s.emplace_back("search",
                 "PUCT, budgets (simulations a move): " + budgets +
                     (c.leaf_quiescence ? "; leaf quiescence (a capture search corrects each leaf: "
                                          "not zero-knowledge)"
                                        : ""));
  s.emplace_back("fresh games per budget", std::to_string(r.games));
  s.emplace_back("first plies sampled",
                 fmt::format("{} at temperature {}", c.sample_plies, c.temperature));
  s.emplace_back("over-long games", fmt::format("adjudicated after {} plies: {}", r.max_plies,
                                                r.adjudication == Adjudication::kDraw
                                                    ? std::string("draw")
                                                    : fmt::format("material, margin {} centipawns",
                                                                  r.material_margin)));
  s.emplace_back("seed", std::to_string(c.seed));
  if (!c.run_dir.empty()) s.emplace_back("run", c.run_dir);

  ResearchSummary result;
  result.variant = r.variant;
  result.out_dir = r.out_dir;
  // Fresh self-play games per budget.
  std::vector<StudyGame> fresh;
  for (size_t b = 0; b < r.budgets.size(); ++b) {
    const std::string label = BudgetLabel(r.budgets[b]);
    report.budget_labels.push_back(label);
    const MatchConfig match =
        StudyMatchConfig(c, r, NetSpec(c, r, r.budgets[b]), NetSpec(c, r, r.budgets[b]), r.games,
                         SplitMix64(c.seed * 1000003u + b));
    for (StudyGame& game :
         GamesOf<G>(StudyMatch<G>(r, match, label, result), label, r.budgets[b])) {
      fresh.push_back(game);
    }
  }
  result.games_played = int64_t(fresh.size());

  // The dedicated search of the start position, then games after its preferred first moves.
  std::shared_ptr<Evaluator<G>> evaluator =
      MakePlayerEvaluator<G>(PlayerSpec::Parse(NetSpec(c, r, 1)));
  if (!evaluator) throw Error("research: this build has no network evaluator (LibTorch)");
  SearchParams params;
  params.seed = c.seed;
  params.leaves_per_round = 8;
  Mcts<G> search(params);
  const GameState<G> start;
  search.SetRoot(start);
  search.Search(*evaluator, c.root_simulations);
  const SearchResult root = search.Result();
  const bool white_first = G::SideToMove(start.position()) == Color::kWhite;
  report.root_simulations = c.root_simulations;
  report.root_search_value = white_first ? root.root_q : -root.root_q;
  std::vector<RootMoveStats> moves = root.moves;
  std::stable_sort(moves.begin(), moves.end(), [](const RootMoveStats& a, const RootMoveStats& b) {
    return a.visits > b.visits;
  });
  for (size_t i = 0; i < moves.size() && i < 8; ++i) {
    FirstMoveRow row;
    row.move = G::FormatDisplayMove(start.position(), moves[i].move);
    typename G::Position after = start.position();
    G::ApplyMove(after, moves[i].move);
    row.position = G::FormatPosition(after);
    row.visits = moves[i].visits;
    row.prior = moves[i].prior;
    row.search_value = white_first ? moves[i].q : -moves[i].q;
    report.first_moves.push_back(row);
  }
  const int followed = std::min<int>(c.first_moves, int(report.first_moves.size()));
  report.first_move_label = fmt::format("after a first move, {} sims", r.budgets.front());
  std::vector<StudyGame> after_first;
  if (followed > 0 && r.first_move_games > 0) {
    fs::create_directories(r.out_dir);
    std::string openings;
    for (int i = 0; i < followed; ++i) openings += report.first_moves[size_t(i)].position + "\n";
    const std::string openings_file = r.out_dir + "/first_moves.txt";
    WriteFileAtomically(openings_file, openings);
    const std::string spec = NetSpec(c, r, r.budgets.front());
    MatchConfig match = StudyMatchConfig(c, r, spec, spec, followed * r.first_move_games,
                                         SplitMix64(c.seed * 1000003u + 999));
    match.openings = openings_file;
    after_first = GamesOf<G>(StudyMatch<G>(r, match, "first moves", result),
                             report.first_move_label, r.budgets.front());
    for (FirstMoveRow& row : report.first_moves) {
      for (const StudyGame& game : after_first) {
        if (game.start != row.position) continue;
        ++row.games;
        row.white_wins += game.status == Status::kWhiteWins;
        row.draws += game.status == Status::kDraw;
        row.black_wins += game.status == Status::kBlackWins;
      }
      row.white_score = ScoreInterval(row.white_wins, row.draws, row.black_wins);
    }
    result.games_played += int64_t(after_first.size());
  }

  // The run's own self-play.
  std::vector<StudyGame> records;
  const std::string records_label = "run records";
  if (!c.run_dir.empty()) {
    const int budget = r.run_config ? int(r.run_config->selfplay().simulations()) : 0;
    records = RunRecords<G>(c.run_dir, c.record_games, records_label, budget);
    result.record_games = int64_t(records.size());
    s.emplace_back("run records", fmt::format("the newest {} games of {}/records (Gumbel search, "
                                              "{} simulations, random opening plies)",
                                              records.size(), c.run_dir, budget));
  }

  // Independent players, and the imbalance matches of the net and of each of them.
  std::vector<StudyGame> others;
  for (size_t p = 0; p < c.players.size(); ++p) {
    for (StudyGame& game :
         PlayerGames<G>(c, r, c.players[p], SplitMix64(c.seed * 1000003u + 2000 + p), result)) {
      others.push_back(std::move(game));
    }
  }
  result.games_played += int64_t(others.size());
  const std::string net_label = report.budget_labels.back();
  const std::string net_spec = NetSpec(c, r, r.budgets.back());
  std::vector<std::pair<std::string, std::string>> players = {{net_label, net_spec}};
  for (const std::string& spec : c.players) players.emplace_back(spec, spec);
  std::vector<std::vector<StudyGame>> imbalance_games(players.size());
  const std::vector<Imbalance> imbalances = DefaultImbalances<G>();
  if (c.imbalance_games > 0) {
    for (size_t p = 0; p < players.size(); ++p) {
      imbalance_games[p] = ImbalanceGames<G>(c, r, imbalances, players[p].second, players[p].first,
                                             SplitMix64(c.seed * 1000003u + 3000 + p), result);
      result.games_played += int64_t(imbalance_games[p].size());
      std::vector<const StudyGame*> pointers;
      for (const StudyGame& game : imbalance_games[p]) pointers.push_back(&game);
      report.imbalances.push_back(StudyImbalances<G>(imbalances, pointers, players[p].first));
    }
  }
  if (!c.players.empty()) {
    std::string list;
    for (const std::string& spec : c.players) list += (list.empty() ? "" : ", ") + spec;
    s.emplace_back("independent players",
                   fmt::format("{}: self-play, {} games each from {} random plies (one of two "
                               "identical games of a pair kept)",
                               list, r.games, c.player_opening_plies));
  }
  s.emplace_back("imbalance matches",
                 c.imbalance_games > 0
                     ? fmt::format("{} games per imbalance and player ({} at {} sims), {} random "
                                   "plies without a capture after the pieces are taken off",
                                   (c.imbalance_games + 1) / 2 * 2, "the net", r.budgets.back(),
                                   c.imbalance_plies)
                     : std::string("none"));

  // The net's strength against the fixed opponents, as it plays in the study.
  for (int depth = 1; c.strength_games > 0 && depth <= 2; ++depth) {
    MatchConfig match = StudyMatchConfig(c, r, net_spec, fmt::format("alphabeta:{}", depth),
                                         (c.strength_games + 1) / 2 * 2,
                                         SplitMix64(c.seed * 1000003u + 4000 + uint64_t(depth)));
    match.openings = "random:4";
    match.sample_plies = 0;  // the net plays its best move, as against any opponent
    const std::vector<MatchGame> games =
        StudyMatch<G>(r, match, "strength, " + match.player2, result);
    s.emplace_back(fmt::format("strength: {} against {}", net_label, match.player2),
                   StrengthLine(games, match.openings));
  }

  // The tables.
  std::vector<StudyGame> balance_games = fresh;
  balance_games.insert(balance_games.end(), others.begin(), others.end());
  balance_games.insert(balance_games.end(), records.begin(), records.end());
  report.balance = BalanceTable(balance_games);
  std::vector<const StudyGame*> everything, fresh_all, record_games;
  for (const StudyGame& game : fresh) fresh_all.push_back(&game);
  for (const StudyGame& game : after_first) fresh_all.push_back(&game);
  for (const StudyGame& game : records) record_games.push_back(&game);
  everything = fresh_all;
  everything.insert(everything.end(), record_games.begin(), record_games.end());
  report.piece_values.push_back(PieceValuesOf<G>(everything, "all games"));
  // An adjudication by material decides with the baseline's values; the games the rules ended
  // are free of that.
  std::vector<const StudyGame*> by_rules;
  for (const StudyGame* game : everything) {
    if (game->ending != "adjudication") by_rules.push_back(game);
  }
  if (!by_rules.empty() && by_rules.size() < everything.size() &&
      r.adjudication == Adjudication::kMaterial) {
    report.piece_values.push_back(
        PieceValuesOf<G>(by_rules, "games not adjudicated (ended by the rules or resignation)"));
  }
  if (!record_games.empty()) {
    report.piece_values.push_back(PieceValuesOf<G>(fresh_all, "fresh self-play games only"));
    report.piece_values.push_back(PieceValuesOf<G>(record_games, "run records only"));
  }
  // Each independent player's regression, and every player's values by the two methods.
  std::vector<PieceValueFit> regressions = {
      PieceValuesOf<G>(GamesLabelled(fresh, net_label), "games of the net, " + net_label)};
  for (const std::string& spec : c.players) {
    std::vector<const StudyGame*> games;
    for (const StudyGame& game : others) {
      if (game.label == spec) games.push_back(&game);
    }
    regressions.push_back(PieceValuesOf<G>(games, "games of " + spec));
    report.piece_values.push_back(regressions.back());
  }
  for (size_t p = 0; p < report.imbalances.size(); ++p) {
    report.value_methods.push_back(
        {players[p].first, CompareValues(regressions[p], report.imbalances[p].fit)});
  }

  // The field's metrics per group, and the findings of the net against each other player.
  MetricsConfig metrics;
  metrics.decision_every = c.decision_every;
  metrics.seed = c.seed;
  std::vector<std::string> groups = report.budget_labels;
  for (const std::string& spec : c.players) groups.push_back(spec);
  for (const std::string& label : groups) {
    std::vector<const StudyGame*> games;
    for (const std::vector<StudyGame>* set : {&fresh, &others}) {
      for (const StudyGame& game : *set) {
        if (game.label == label) games.push_back(&game);
      }
    }
    report.metrics.push_back(MeasureGames<G>(games, label, metrics));
  }
  if (!record_games.empty()) {
    report.metrics.push_back(MeasureGames<G>(record_games, records_label, metrics));
  }
  for (size_t p = 1; p < players.size(); ++p) {
    PlayerComparison comparison;
    comparison.first = players[0].first;
    comparison.second = players[p].first;
    comparison.findings = CompareMetrics(report.metrics[report.budget_labels.size() - 1],
                                         report.metrics[report.budget_labels.size() + p - 1]);
    const auto add_values = [&](const PieceValueFit& a, const PieceValueFit& b,
                                const std::string& method) {
      for (const ValueComparison& row : CompareValues(a, b)) {
        if (!row.first_estimated || !row.second_estimated || row.kind == a.reference) continue;
        comparison.findings.push_back(
            {fmt::format("value of the {} ({} = 1, {})", row.kind, a.reference, method), row.first,
             row.second, row.differs});
      }
    };
    add_values(regressions[0], regressions[p], "regression");
    if (p < report.imbalances.size()) {
      add_values(report.imbalances[0].fit, report.imbalances[p].fit, "imbalance matches");
    }
    report.players.push_back(std::move(comparison));
  }
  report.openings = AnalyzeOpenings<G>(fresh, c.opening_depth, evaluator.get());
  for (int kind = 0; kind < PieceTraits<G>::kKinds; ++kind) {
    report.kind_names.push_back(PieceTraits<G>::kNames[kind]);
  }
  for (const std::string& label : report.budget_labels) {
    report.shape.push_back(ShapeOf<G>(GamesLabelled(fresh, label), label, &report.material));
  }
  FinishMaterialCurve(report.material);
  if (!records.empty()) report.shape.push_back(ShapeOf<G>(record_games, records_label));
  report.start_diagram = BoardSvg<G>(start.position(), "start position", nullptr, 380);

  report.games = fresh;
  report.games.insert(report.games.end(), after_first.begin(), after_first.end());
  report.games.insert(report.games.end(), others.begin(), others.end());
  for (const std::vector<StudyGame>& games : imbalance_games) {
    report.games.insert(report.games.end(), games.begin(), games.end());
  }
  report.games.insert(report.games.end(), records.begin(), records.end());
  // Examples from the largest budget (pointers into report.games, which no longer changes).
  for (const StudyGame* game :
       PickExamples(GamesLabelled(report.games, report.budget_labels.back()), c.examples)) {
    report.examples.push_back(MakeExample<G>(*game, report.draughts));
  }
  WriteReport(report, r.out_dir);
  result.html = r.out_dir + "/report.html";
  return result;
}

}  // namespace

ResearchSummary RunResearch(const ResearchConfig& c) {
  Resolved r;
  if (c.games < 1) throw Error("research: --games must be at least 1");
  if (c.simulations.empty()) throw Error("research: --simulations needs at least one budget");
  for (int s : c.simulations) {
    if (s < 1) throw Error(fmt::format("research: --simulations {} must be at least 1", s));
  }
  if (c.root_simulations < 1) throw Error("research: --root-simulations must be at least 1");
  if (c.opening_depth < 1) throw Error("research: --opening-plies must be at least 1");
  if (c.sample_plies < 0) throw Error("research: --sample-plies must not be negative");
  if (c.imbalance_games < 0 || c.imbalance_plies < 0 || c.player_opening_plies < 0 ||
      c.decision_every < 0 || c.strength_games < 0) {
    throw Error(
        "research: --imbalance-games, --imbalance-plies, --player-opening-plies, "
        "--decision-every and --strength-games must not be negative");
  }
  for (size_t p = 0; p < c.players.size(); ++p) {
    const std::string& spec = c.players[p];
    if (std::find(c.players.begin(), c.players.begin() + long(p), spec) !=
        c.players.begin() + long(p)) {
      throw Error("research: --players names '" + spec + "' twice");
    }
    try {
      PlayerSpec::Parse(spec);
    } catch (const Error& e) {
      throw Error("research: --players '" + spec + "': " + e.what());
    }
  }
  if (c.first_moves < 0 || c.first_move_games < 0 || c.record_games < 0 || c.examples < 0) {
    throw Error(
        "research: --first-moves, --first-move-games, --records and --examples must "
        "not be negative");
  }
  r.net_file = c.net_file;
  if (!c.run_dir.empty()) {
    if (!fs::is_directory(c.run_dir))
      throw Error("research: run '" + c.run_dir + "' is not a directory");
    r.run_config = SavedConfig(c.run_dir);
    if (r.net_file.empty()) r.net_file = c.run_dir + "/nets/best.vznet";
  }
  // No net and no run, or --net default: the shipped net of --variant (nets/shipped_nets.h).
  if ((r.net_file.empty() && !c.variant.empty()) || r.net_file == "default") {
    if (c.variant.empty()) throw Error("research: --net default needs --variant");
    FindVariant(c.variant);  // an unknown game is named as such, listing the games
    r.net_file = nets::RequireShippedNet(c.variant);
  }
  if (r.net_file.empty()) {
    throw Error("research: give --net FILE, --run RUN_DIR or --variant (its shipped net)");
  }
  r.variant = c.variant;
  const std::string net_bytes = ReadWholeFile(r.net_file, "net file", nets::kMaxNetFileBytes);
  if (r.variant.empty()) r.variant = nets::ParseNetFile(net_bytes, r.net_file).game;
  r.net_hash = fmt::format("{:016x}", Fnv1a64(net_bytes));
  if (r.run_config && r.run_config->variant() != r.variant) {
    throw Error("research: run '" + c.run_dir + "' is a run of " + r.run_config->variant() +
                ", not " + r.variant);
  }
  if (r.run_config) {
    const proto::SelfPlayConfig& selfplay = r.run_config->selfplay();
    r.max_plies = int(selfplay.max_plies());
    r.adjudication =
        selfplay.adjudication() == proto::DRAW ? Adjudication::kDraw : Adjudication::kMaterial;
    r.material_margin = selfplay.material_margin();
  }
  if (c.max_plies > 0) r.max_plies = c.max_plies;
  if (!c.adjudication.empty()) r.adjudication = ParseAdjudication(c.adjudication);
  if (c.material_margin > 0) r.material_margin = c.material_margin;
  r.out_dir = c.out_dir.empty() ? "research-" + r.variant : c.out_dir;
  r.budgets = c.simulations;
  std::sort(r.budgets.begin(), r.budgets.end());
  r.budgets.erase(std::unique(r.budgets.begin(), r.budgets.end()), r.budgets.end());
  r.games = (c.games + 1) / 2 * 2;
  r.first_move_games = (c.first_move_games + 1) / 2 * 2;
  ResearchSummary summary;
  WithGame(r.variant, [&]<class G>() { summary = Study<G>(c, r); });
  return summary;
}

}  // namespace vz::research
