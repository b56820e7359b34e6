#include "arena/match.h"

#include <fmt/core.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "arena/match_games.h"
#include "arena/player.h"
#include "engine/alphabeta/evaluation.h"
#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/games.h"
#include "records/pgn_record.h"

namespace vz {

double MatchSummary::Score() const {
  const int64_t n = wins + draws + losses;
  return n == 0 ? 0.5 : (double(wins) + 0.5 * double(draws)) / double(n);
}

int MatchSummary::AddPair(std::span<MatchGame> pair) {
  int half_points = 0;
  for (MatchGame& game : pair) {
    const Color player1_color = game.player1_white ? Color::kWhite : Color::kBlack;
    if (game.outcome.status == Status::kDraw) {
      ++draws;
      half_points += 1;
    } else if (game.outcome.status == WinFor(player1_color)) {
      ++wins;
      half_points += 2;
    } else {
      ++losses;
    }
    adjudicated += game.adjudicated;
    games.push_back(std::move(game));
  }
  pentanomial.AddPair(half_points);
  elo = EstimateElo(pentanomial);
  return half_points;
}

std::string MatchSummary::ResultText() const {
  // `+ 0.0` turns a negative zero into 0.0 for printing.
  return fmt::format("W {} D {} L {}, score {:.3f}, Elo {:+.0f} {}", wins, draws, losses, Score(),
                     elo.elo + 0.0,
                     elo.interval_defined
                         ? fmt::format("[{:+.0f}, {:+.0f}]", elo.elo_low + 0.0, elo.elo_high + 0.0)
                         : std::string("(interval n/a)"));
}

std::string ScoreLine(const MatchSummary& summary, int total_games) {
  const int64_t played = summary.wins + summary.draws + summary.losses;
  std::string line =
      fmt::format("games {}/{}  W {} D {} L {}  score {:.3f}  Elo {:+.1f} [{:+.1f}, {:+.1f}]",
                  played, total_games, summary.wins, summary.draws, summary.losses, summary.Score(),
                  summary.elo.elo, summary.elo.elo_low, summary.elo.elo_high);
  if (summary.llr) line += fmt::format("  LLR {:.2f}", *summary.llr);
  return line;
}

std::string MatchSummary::Report(const MatchConfig& config) const {
  std::string out;
  out += fmt::format("match {}: {} (player 1) vs {} (player 2)\n", variant, player1, player2);
  out += fmt::format("games {}  wins {}  draws {}  losses {}  score {:.4f}\n",
                     wins + draws + losses, wins, draws, losses, Score());
  out += fmt::format("pentanomial [0, 1/2, 1, 3/2, 2 points per pair]: {} {} {} {} {}\n",
                     pentanomial.bins[0], pentanomial.bins[1], pentanomial.bins[2],
                     pentanomial.bins[3], pentanomial.bins[4]);
  // `+ 0.0` turns a negative zero into 0.0 for printing.
  if (elo.interval_defined) {
    out += fmt::format("Elo {:+.1f}  95% [{:+.1f}, {:+.1f}]  (pairs {})\n", elo.elo + 0.0,
                       elo.elo_low + 0.0, elo.elo_high + 0.0, pentanomial.pairs());
  } else {
    out += fmt::format(
        "Elo {:+.1f}  95% interval n/a: fewer than 2 pairs or every pair scored alike (pairs {})\n",
        elo.elo + 0.0, pentanomial.pairs());
  }
  out += fmt::format("max plies {}, adjudication {}: {} game(s) adjudicated\n", config.max_plies,
                     config.adjudication == Adjudication::kDraw ? "draw" : "material", adjudicated);
  for (const MatchGame& game : games) {
    if (!game.adjudicated) continue;
    out += fmt::format("  game {} ({} white): {} by {}\n", game.index + 1,
                       game.player1_white ? player1 : player2, StatusName(game.outcome.status),
                       game.termination);
  }
  for (int side = 0; side < 2; ++side) {
    if (evaluator_calls[side] == 0) continue;
    out += fmt::format("player {} evaluator: {} calls, {} positions, {:.1f} per batch", side + 1,
                       evaluator_calls[side], evaluated[side],
                       double(evaluated[side]) / double(evaluator_calls[side]));
    if (searched_moves[side] > 0) {
      out +=
          fmt::format(", {:.1f} per move ({} moves)",
                      double(evaluated[side]) / double(searched_moves[side]), searched_moves[side]);
    }
    out += "\n";
  }
  if (config.sprt) {
    out += fmt::format(
        "SPRT elo0 {} elo1 {} alpha {} beta {}: LLR {:.3f} bounds [{:.3f}, {:.3f}] -> {}\n",
        config.sprt->elo0, config.sprt->elo1, config.sprt->alpha, config.sprt->beta,
        llr.value_or(0.0), config.sprt->LowerBound(), config.sprt->UpperBound(),
        SprtVerdictName(verdict));
  }
  return out;
}

Adjudication ParseAdjudication(std::string_view text) {
  if (text == "draw") return Adjudication::kDraw;
  if (text == "material") return Adjudication::kMaterial;
  throw Error("adjudication '" + std::string(text) + "': expected draw or material");
}

namespace {

template <Game G>
std::vector<typename G::Position> ReadOpenings(const std::string& path) {
  std::vector<typename G::Position> openings;
  std::istringstream lines(ReadTextFile(path));
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    try {
      openings.push_back(G::ParsePosition(line));
    } catch (const Error& e) {
      throw Error("openings '" + path + "' line " + std::to_string(number) + ": " + e.what());
    }
    // A finished position gives games of no move, whose results say nothing of the players.
    const Outcome outcome = GameState<G>(openings.back()).outcome();
    if (outcome.IsTerminal()) {
      throw Error("openings '" + path + "' line " + std::to_string(number) +
                  ": the game is already over there (" + std::string(ReasonName(outcome.reason)) +
                  ")");
    }
  }
  if (openings.empty()) throw Error("openings '" + path + "': no positions");
  return openings;
}

// The start of pair `pair`: a random walk of `plies` plies from the initial position that does
// not end the game (retried with the next generator state otherwise).
template <Game G>
GameState<G> RandomOpening(int plies, uint64_t seed, int pair) {
  uint64_t state = SplitMix64(seed ^ SplitMix64(uint64_t(pair) + 0x9E3779B97F4A7C15ull));
  for (int attempt = 0;; ++attempt) {
    GameState<G> game;
    bool ok = true;
    for (int ply = 0; ply < plies; ++ply) {
      state = SplitMix64(state);
      const auto& moves = game.legal_moves();
      game.Play(moves[int((state >> 32) * uint64_t(moves.size) >> 32)]);
      if (game.outcome().IsTerminal()) {
        ok = false;
        break;
      }
    }
    if (ok || attempt > 1000) return game;
  }
}

// The player of `spec` for one game slot of a match, with the match's move sampling.
template <Game G>
std::unique_ptr<Player<G>> MakeMatchPlayer(const PlayerSpec& spec,
                                           std::shared_ptr<Evaluator<G>> evaluator,
                                           const MatchConfig& config) {
  std::unique_ptr<Player<G>> player = MakePlayer<G>(spec, std::move(evaluator));
  if (SearchPlayer<G>* search = player->AsSearchPlayer()) {
    search->SetSampling(config.sample_plies, config.temperature);
  }
  return player;
}

template <Game G>
MatchSummary RunMatchFor(const MatchConfig& config, const MatchGameCallback& on_game) {
  const PlayerSpec spec1 = PlayerSpec::Parse(config.player1);
  const PlayerSpec spec2 = PlayerSpec::Parse(config.player2);
  // One evaluator per player, shared by all its games (a net is loaded once), and by both players
  // when they are the same; building the players rejects bad specs before any game starts.
  std::shared_ptr<Evaluator<G>> evaluators[2] = {MakePlayerEvaluator<G>(spec1), nullptr};
  evaluators[1] = spec2.text == spec1.text ? evaluators[0] : MakePlayerEvaluator<G>(spec2);
  MakePlayer<G>(spec1, evaluators[0]);
  MakePlayer<G>(spec2, evaluators[1]);
  const int num_pairs = std::max(1, (config.games + 1) / 2);
  if (config.first_pair < 0) {
    throw Error(fmt::format("match: first pair {} is negative", config.first_pair));
  }
  std::vector<typename G::Position> file_openings;
  int random_plies = -1;
  if (config.openings.rfind("random:", 0) == 0) {
    try {
      random_plies = std::stoi(config.openings.substr(7));
    } catch (const std::exception&) {
      random_plies = -1;
    }
    if (random_plies < 0 || random_plies > 200) {
      throw Error("openings '" + config.openings + "': expected random:PLIES with PLIES 0..200");
    }
  } else if (!config.openings.empty()) {
    file_openings = ReadOpenings<G>(config.openings);
  }
  std::ofstream records_file, csv_file;
  if (!config.out_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(config.out_dir, error);
    const std::string records_path =
        config.out_dir + (IsDraughts<G>() ? "/games.pdn" : "/games.pgn");
    records_file.open(records_path);
    csv_file.open(config.out_dir + "/games.csv");
    if (!records_file || !csv_file) throw Error("cannot write to '" + config.out_dir + "'");
    csv_file << "game,pair,white,black,result,reason,plies,adjudicated,termination\n";
  }

  MatchSummary summary;
  summary.variant = std::string(G::kName);
  summary.player1 = config.player1;
  summary.player2 = config.player2;
  std::mutex mutex;
  std::atomic<bool> stop{false};
  const bool live = config.live && isatty(STDERR_FILENO);

  auto opening_of = [&](int pair) {
    if (random_plies >= 0) return RandomOpening<G>(random_plies, config.seed, pair);
    if (!file_openings.empty()) {
      return GameState<G>(file_openings[size_t(pair) % file_openings.size()]);
    }
    return GameState<G>();
  };
  // Counts a finished pair; returns false once the SPRT has decided.
  auto add_pair = [&](int pair, MatchGame(&games)[2]) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const MatchGame& game : games) {
      if (on_game) on_game(game);
      if (records_file.is_open()) {
        records_file << game.record;
        csv_file << fmt::format("{},{},{},{},{},{},{},{},\"{}\"\n", game.index + 1, pair + 1,
                                game.player1_white ? config.player1 : config.player2,
                                game.player1_white ? config.player2 : config.player1,
                                ResultToken(game.outcome.status, false),
                                ReasonName(game.outcome.reason), game.plies,
                                game.adjudicated ? 1 : 0, game.termination);
      }
    }
    records_file.flush();
    csv_file.flush();
    summary.AddPair(games);
    // Once decided, the test is over: the pairs still in flight count in W/D/L and Elo, but do
    // not reopen it (fishtest stops at the first crossing of a bound).
    if (config.sprt && summary.verdict == SprtVerdict::kContinue) {
      summary.llr = SprtLlr(summary.pentanomial, *config.sprt);
      summary.verdict = SprtDecide(*summary.llr, *config.sprt);
      if (summary.verdict != SprtVerdict::kContinue) stop.store(true);
    }
    if (live) {
      fmt::print(stderr, "\r{}   ", ScoreLine(summary, 2 * num_pairs));
      std::fflush(stderr);
    }
    return !stop.load();
  };

  // A timed player searches each move alone by its clock: `concurrency` threads each play whole
  // pairs with players of their own (a net loaded once per thread and side; LibTorch's CPU
  // threads as set for the process, one by default).
  const bool timed = spec1.move_time_ms > 0 || spec2.move_time_ms > 0;
  if ((evaluators[0] || evaluators[1]) && !timed) {
    // MCTS players: all games in flight in lockstep, one evaluator batch per player per round.
    LockstepSide<G> sides[2];
    for (int side = 0; side < 2; ++side) {
      const PlayerSpec& spec = side == 0 ? spec1 : spec2;
      sides[side].make = [&spec, &config, evaluator = evaluators[side]] {
        return MakeMatchPlayer<G>(spec, evaluator, config);
      };
      sides[side].evaluator = evaluators[side].get();
    }
    const LockstepStats stats = PlayLockstep<G>(config, num_pairs, sides, opening_of, add_pair);
    for (int side = 0; side < 2; ++side) {
      summary.evaluator_calls[side] = stats.evaluator_calls[side];
      summary.evaluated[side] = stats.evaluated[side];
    }
  } else {
    // Players without an evaluator, or timed ones: `concurrency` threads each play whole pairs.
    std::atomic<int> next_pair{0};
    std::exception_ptr failure;
    auto worker = [&]() {
      try {
        auto player1 = MakeMatchPlayer<G>(spec1, MakePlayerEvaluator<G>(spec1), config);
        auto player2 = MakeMatchPlayer<G>(spec2, MakePlayerEvaluator<G>(spec2), config);
        for (;;) {
          if (stop.load()) break;
          const int local = next_pair.fetch_add(1);
          if (local >= num_pairs) break;
          const int pair = config.first_pair + local;
          const GameState<G> opening = opening_of(pair);
          MatchGame games[2];
          for (int k = 0; k < 2; ++k) {
            const bool player1_white = k == 0;
            Player<G>& white = player1_white ? *player1 : *player2;
            Player<G>& black = player1_white ? *player2 : *player1;
            games[k] = PlayGame<G>(opening, white, black, config, player1_white, 2 * pair + k);
          }
          add_pair(pair, games);
        }
        const std::lock_guard<std::mutex> lock(mutex);
        Player<G>* players[2] = {player1.get(), player2.get()};
        for (int side = 0; side < 2; ++side) {
          const SearchPlayer<G>* search = players[side]->AsSearchPlayer();
          if (search == nullptr) continue;
          summary.evaluator_calls[side] += search->lone_stats().evaluator_calls;
          summary.evaluated[side] += search->lone_stats().evaluated;
          summary.searched_moves[side] += search->lone_moves();
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        stop.store(true);
      }
    };
    const int threads = std::clamp(config.concurrency, 1, num_pairs);
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& thread : pool) thread.join();
    if (failure) {
      if (live) fmt::print(stderr, "\n");
      std::rethrow_exception(failure);
    }
  }
  if (live) fmt::print(stderr, "\n");
  return summary;
}

}  // namespace

MatchSummary RunMatch(std::string_view variant, const MatchConfig& config,
                      const MatchGameCallback& on_game) {
  if (config.games < 1) throw Error("--games must be at least 1");
  if (config.max_plies < 1) throw Error("--max-plies must be at least 1");
  if (config.sample_plies < 0) throw Error("sampled plies must not be negative");
  MatchSummary summary;
  WithGame(variant, [&]<class G>() { summary = RunMatchFor<G>(config, on_game); });
  return summary;
}

}  // namespace vz
