#include "arena/match.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "arena/ladder.h"
#include "arena/match_games.h"
#include "arena/player.h"
#include "engine/core/error.h"
#include "engine/games.h"
#include "records/pgn_record.h"
#include "tests/test_util.h"

namespace vz {
namespace {

TEST(SelfplayMatchTest, PlayerSpecs) {
  EXPECT_EQ(PlayerSpec::Parse("random").kind, "random");
  EXPECT_EQ(PlayerSpec::Parse("rollout:50").value, 50);
  EXPECT_EQ(PlayerSpec::Parse("alphabeta:4").value, 4);
  EXPECT_THROW(PlayerSpec::Parse("alphabeta"), Error);
  EXPECT_THROW(PlayerSpec::Parse("alphabeta:0"), Error);
  EXPECT_THROW(PlayerSpec::Parse("alphabeta:4x"), Error);
  EXPECT_THROW(PlayerSpec::Parse("random:3"), Error);
  EXPECT_THROW(PlayerSpec::Parse("gnu"), Error);
  EXPECT_THROW(PlayerSpec::Parse("uci:engine"), Error);  // not available yet
  // The leaf-quiescence option of the MCTS players.
  EXPECT_FALSE(PlayerSpec::Parse("rollout:50").leaf_quiescence);
  EXPECT_TRUE(PlayerSpec::Parse("rollout:50:qs").leaf_quiescence);
  EXPECT_EQ(PlayerSpec::Parse("rollout:50:qs").value, 50);
  EXPECT_THROW(PlayerSpec::Parse("rollout:qs"), Error);
  EXPECT_THROW(PlayerSpec::Parse("rollout:50:qs:qs"), Error);
  EXPECT_THROW(PlayerSpec::Parse("alphabeta:2:qs"), Error);
  EXPECT_THROW(PlayerSpec::Parse("random:qs"), Error);
#if VZ_HAVE_TORCH
  EXPECT_EQ(PlayerSpec::Parse("net:dir/a:b.pb:100").file, "dir/a:b.pb");
  EXPECT_EQ(PlayerSpec::Parse("net:dir/a:b.pb:100").value, 100);
  EXPECT_THROW(PlayerSpec::Parse("net:100"), Error);
  EXPECT_EQ(PlayerSpec::Parse("net:dir/a.vznet:16:qs").file, "dir/a.vznet");
  EXPECT_EQ(PlayerSpec::Parse("net:dir/a.vznet:16:qs").value, 16);
  EXPECT_TRUE(PlayerSpec::Parse("net:dir/a.vznet:16:qs").leaf_quiescence);
  EXPECT_THROW(PlayerSpec::Parse("net:a.vznet:qs"), Error);
  // The net player's precision comes last; "auto" without it.
  EXPECT_EQ(PlayerSpec::Parse("net:a.vznet:16:qs").precision, "auto");
  EXPECT_EQ(PlayerSpec::Parse("net:a.vznet:16:fp32").precision, "fp32");
  EXPECT_EQ(PlayerSpec::Parse("net:a.vznet:16:fp32").value, 16);
  EXPECT_FALSE(PlayerSpec::Parse("net:a.vznet:16:fp32").leaf_quiescence);
  const PlayerSpec bf16 = PlayerSpec::Parse("net:dir/a:b.vznet:16:qs:bf16");
  EXPECT_EQ(bf16.precision, "bf16");
  EXPECT_TRUE(bf16.leaf_quiescence);
  EXPECT_EQ(bf16.file, "dir/a:b.vznet");
  EXPECT_EQ(bf16.value, 16);
  EXPECT_EQ(PlayerSpec::Parse("net:a.vznet:movetime=100:bf16").move_time_ms, 100);
  EXPECT_EQ(PlayerSpec::Parse("net:default:fp32").precision, "fp32");
  EXPECT_THROW(PlayerSpec::Parse("net:a.vznet:16:bf16:qs"), Error);    // precision comes last
  EXPECT_THROW(PlayerSpec::Parse("net:a.vznet:16:bf16:bf16"), Error);  // once
  EXPECT_THROW(PlayerSpec::Parse("net:a.vznet:16:fp16"), Error);       // not offered
  EXPECT_THROW(PlayerSpec::Parse("net:a.vznet:bf16"), Error);          // no budget
  EXPECT_THROW(PlayerSpec::Parse("rollout:50:fp32"), Error);           // nets only
  EXPECT_EQ(testing::ErrorOf([] { PlayerSpec::Parse("net:a.vznet:16:bf16:qs"); }),
            "player 'net:a.vznet:16:bf16:qs': options come last, once each: :qs (rollout, net), "
            "then :fp32 or :bf16 (net)");
#else
  EXPECT_THROW(PlayerSpec::Parse("net:x.pb:100"), Error);  // needs LibTorch
#endif
}

// A finished game of player 1 with `player1_white`, ending in `status`.
MatchGame FinishedGame(int index, bool player1_white, Status status, bool adjudicated = false) {
  MatchGame game;
  game.index = index;
  game.player1_white = player1_white;
  game.outcome.status = status;
  game.adjudicated = adjudicated;
  return game;
}

TEST(MatchSummaryTest, AddPairCountsFromPlayerOnesViewAndText) {
  MatchSummary summary;
  // Player 1 wins with White and draws with Black: 3 half points.
  std::vector<MatchGame> pair = {FinishedGame(0, true, Status::kWhiteWins),
                                 FinishedGame(1, false, Status::kDraw, true)};
  EXPECT_EQ(summary.AddPair(pair), 3);
  // Player 1 loses with White, wins with Black: 2.
  pair = {FinishedGame(2, true, Status::kBlackWins), FinishedGame(3, false, Status::kBlackWins)};
  EXPECT_EQ(summary.AddPair(pair), 2);
  // Two wins: 4.
  pair = {FinishedGame(4, true, Status::kWhiteWins), FinishedGame(5, false, Status::kBlackWins)};
  EXPECT_EQ(summary.AddPair(pair), 4);
  EXPECT_EQ(summary.wins, 4);
  EXPECT_EQ(summary.draws, 1);
  EXPECT_EQ(summary.losses, 1);
  EXPECT_EQ(summary.adjudicated, 1);
  ASSERT_EQ(summary.games.size(), 6u);
  EXPECT_EQ(summary.games[5].index, 5);
  EXPECT_EQ(summary.pentanomial.pairs(), 3);
  Pentanomial expected;
  for (int half_points : {3, 2, 4}) expected.AddPair(half_points);
  EXPECT_DOUBLE_EQ(summary.elo.elo, EstimateElo(expected).elo);
  const std::string text = summary.ResultText();
  EXPECT_EQ(text.rfind("W 4 D 1 L 1, score 0.750, Elo +", 0), 0u) << text;
  EXPECT_NE(text.find(fmt::format("[{:+.0f}, {:+.0f}]", summary.elo.elo_low, summary.elo.elo_high)),
            std::string::npos)
      << text;
  // A whitewash has no interval.
  MatchSummary whitewash;
  for (int k = 0; k < 2; ++k) {
    pair = {FinishedGame(2 * k, true, Status::kBlackWins),
            FinishedGame(2 * k + 1, false, Status::kWhiteWins)};
    EXPECT_EQ(whitewash.AddPair(pair), 0);
  }
  EXPECT_NE(whitewash.ResultText().find("W 0 D 0 L 4, score 0.000"), std::string::npos);
  EXPECT_NE(whitewash.ResultText().find("(interval n/a)"), std::string::npos);
}

// Every game is counted once, pairs are whole, and the adjudication is reported with the games it
// decided: with max_plies 1 every game is adjudicated (material is level after one ply of
// draughts, so each is a draw).
TEST(SelfplayMatchTest, PairsAndAdjudication) {
  MatchConfig config;
  config.player1 = "random";
  config.player2 = "alphabeta:1";
  config.games = 3;  // rounded up to 4
  config.max_plies = 1;
  config.concurrency = 2;
  const MatchSummary summary = RunMatch("portuguese-draughts", config);
  EXPECT_EQ(summary.wins + summary.draws + summary.losses, 4);
  EXPECT_EQ(summary.pentanomial.pairs(), 2);
  EXPECT_EQ(summary.adjudicated, 4);
  EXPECT_EQ(summary.draws, 4);
  for (const MatchGame& game : summary.games) {
    EXPECT_TRUE(game.adjudicated);
    EXPECT_EQ(game.outcome.reason, Reason::kAdjudication);
    EXPECT_NE(game.termination.find("adjudication: material"), std::string::npos);
    EXPECT_NE(game.record.find("[Termination \"adjudication: material"), std::string::npos);
  }
  EXPECT_NE(summary.Report(config).find("4 game(s) adjudicated"), std::string::npos);
}

TEST(SelfplayMatchTest, StrongerPlayerWinsAndSprtStops) {
  MatchConfig config;
  config.player1 = "alphabeta:2";
  config.player2 = "random";
  config.games = 200;
  config.openings = "random:4";
  config.sprt = SprtParams::Parse("0,100,0.05,0.05");
  const std::string out = ::testing::TempDir() + "/vz_match_test";
  config.out_dir = out;
  const MatchSummary summary = RunMatch("chad", config);
  EXPECT_EQ(summary.verdict, SprtVerdict::kAcceptH1);
  EXPECT_LT(summary.wins + summary.draws + summary.losses, 200);
  EXPECT_GT(summary.Score(), 0.8);
  const auto reports = ReplayRecordFile("chad", out + "/games.pgn");
  EXPECT_EQ(int64_t(reports.size()), summary.wins + summary.draws + summary.losses);
  for (const ReplayReport& report : reports) EXPECT_TRUE(report.ok) << report.error;
  std::filesystem::remove_all(out);
}

TEST(SelfplayMatchTest, OpeningsFromFile) {
  const std::string dir = ::testing::TempDir() + "/vz_openings_test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream file(dir + "/openings.txt");
    file << "# two positions\nW:W9,10,11:B21,22,23\n\nW:W5,6:B30,31\n";
  }
  MatchConfig config;
  config.player1 = "alphabeta:1";
  config.player2 = "random";
  config.games = 4;
  config.max_plies = 6;
  config.openings = dir + "/openings.txt";
  config.out_dir = dir + "/out";
  const MatchSummary summary = RunMatch("portuguese-draughts", config);
  EXPECT_EQ(summary.wins + summary.draws + summary.losses, 4);
  const auto records = ParseRecordText(ReadTextFile(dir + "/out/games.pdn"));
  ASSERT_EQ(records.size(), 4u);
  for (const RecordText& record : records) {
    EXPECT_EQ(record.Tag("GameType"), "32");
    EXPECT_EQ(record.Tag("SetUp"), "1");
    EXPECT_TRUE(record.Tag("FEN") == "W:W9,10,11:B21,22,23" || record.Tag("FEN") == "W:W5,6:B30,31")
        << record.Tag("FEN");
  }
  std::filesystem::remove_all(dir);
  config.openings = dir + "/missing.txt";
  EXPECT_THROW(RunMatch("portuguese-draughts", config), Error);
}

TEST(SelfplayMatchTest, BadInputThrows) {
  MatchConfig config;
  config.player1 = "random";
  config.player2 = "random";
  EXPECT_THROW(RunMatch("go", config), Error);
  config.openings = "random:x";
  EXPECT_THROW(RunMatch("chad", config), Error);
  config.openings = "/nonexistent/openings.txt";
  EXPECT_THROW(RunMatch("chad", config), Error);
  config.openings = "";
  config.player2 = "rollout:";
  EXPECT_THROW(RunMatch("chad", config), Error);
}

// Counts the calls and batch sizes of the evaluator it wraps.
template <Game G>
class CountingEvaluator final : public Evaluator<G> {
 public:
  explicit CountingEvaluator(Evaluator<G>& inner) : inner_(inner) {}
  void Evaluate(EvalBatch<G>& batch) override {
    ++calls;
    positions += batch.size();
    max_batch = std::max(max_batch, batch.size());
    inner_.Evaluate(batch);
  }
  int64_t calls = 0;
  int64_t positions = 0;
  int max_batch = 0;

 private:
  Evaluator<G>& inner_;
};

// K games between two MCTS players in lockstep: one evaluator call per player per round that has
// leaves, batches that hold several games' leaves (each search gives one leaf per round, so a
// batch above 1 spans games), and every game the same as when played alone with its seeds.
TEST(SelfplayMatchTest, LockstepBatchesAcrossGamesAndMatchesGamesAlone) {
  using G = chad::ChadGame;
  MatchConfig config;
  config.player1 = "rollout:12";
  config.player2 = "rollout:6:qs";  // a decorated evaluator keeps each game its own rollouts
  config.max_plies = 16;
  config.openings = "random:2";
  config.concurrency = 6;
  config.seed = 7;
  const int num_pairs = 4;  // 8 games, 6 in flight
  const PlayerSpec specs[2] = {PlayerSpec::Parse(config.player1),
                               PlayerSpec::Parse(config.player2)};
  std::shared_ptr<Evaluator<G>> shared[2] = {MakePlayerEvaluator<G>(specs[0]),
                                             MakePlayerEvaluator<G>(specs[1])};
  CountingEvaluator<G> counters[2] = {CountingEvaluator<G>(*shared[0]),
                                      CountingEvaluator<G>(*shared[1])};
  LockstepSide<G> sides[2];
  for (int side = 0; side < 2; ++side) {
    sides[side].make = [&specs, &shared, side] { return MakePlayer<G>(specs[side], shared[side]); };
    sides[side].evaluator = &counters[side];
  }
  auto opening = [](int pair) {
    // The openings RunMatch would use for random:2 are not exposed; any fixed start per pair will
    // do, as long as the games alone below use the same.
    GameState<G> game;
    for (int ply = 0; ply < 2; ++ply) {
      const auto& moves = game.legal_moves();
      game.Play(moves[(pair * 7 + ply * 3) % moves.size]);
    }
    return game;
  };
  std::map<int, MatchGame> lockstep_games;
  const LockstepStats stats =
      PlayLockstep<G>(config, num_pairs, sides, opening, [&](int, MatchGame(&games)[2]) {
        for (const MatchGame& game : games) lockstep_games[game.index] = game;
        return true;
      });
  ASSERT_EQ(lockstep_games.size(), size_t(2 * num_pairs));
  for (int side = 0; side < 2; ++side) {
    EXPECT_EQ(counters[side].calls, stats.evaluator_calls[side]);
    EXPECT_LE(counters[side].calls, stats.rounds);
    EXPECT_GT(counters[side].calls, 0);
    EXPECT_EQ(counters[side].positions, stats.evaluated[side]);
    EXPECT_GT(counters[side].max_batch, 1);
    // Far fewer calls than positions: games share batches.
    EXPECT_GT(double(counters[side].positions) / double(counters[side].calls), 2.0);
  }
  // Each round is one call per side with leaves: together at most two calls per round.
  EXPECT_LE(counters[0].calls + counters[1].calls, 2 * stats.rounds);
  EXPECT_GE(counters[0].calls + counters[1].calls, stats.rounds);

  for (int index = 0; index < 2 * num_pairs; ++index) {
    const bool player1_white = index % 2 == 0;
    auto player1 = MakePlayer<G>(specs[0]);
    auto player2 = MakePlayer<G>(specs[1]);
    const MatchGame alone =
        PlayGame<G>(opening(index / 2), player1_white ? *player1 : *player2,
                    player1_white ? *player2 : *player1, config, player1_white, index);
    EXPECT_EQ(alone.record, lockstep_games[index].record) << "game " << index;
    EXPECT_EQ(alone.plies, lockstep_games[index].plies);
  }
}

// Checks that `again` played the games of `first`: the same number and the same record for each
// game index.
void ExpectSameGames(const MatchSummary& first, const MatchSummary& again) {
  EXPECT_EQ(first.games.size(), again.games.size());
  std::map<int, std::string> records;
  for (const MatchGame& game : first.games) records[game.index] = game.record;
  for (const MatchGame& game : again.games) {
    EXPECT_EQ(records[game.index], game.record) << "game " << game.index;
  }
}

// A match played in parts (MatchConfig::first_pair) plays the same games, with the same numbers,
// as in one piece: in lockstep (an MCTS player sampling its first plies) and on threads.
TEST(SelfplayMatchTest, AMatchInPartsPlaysTheSameGames) {
  for (const char* player1 : {"rollout:6", "random"}) {
    MatchConfig config{.player1 = player1,
                       .player2 = "alphabeta:1",
                       .games = 8,
                       .openings = "random:2",
                       .concurrency = 3,
                       .max_plies = 12,
                       .seed = 9,
                       .sample_plies = 4};
    const MatchSummary whole = RunMatch("chaco-rex", config);
    MatchSummary parts;
    for (const auto& [first, games] : {std::pair{0, 2}, std::pair{1, 4}, std::pair{3, 2}}) {
      MatchConfig part = config;
      part.first_pair = first;
      part.games = games;
      for (MatchGame& game : RunMatch("chaco-rex", part).games) {
        EXPECT_GE(game.index, 2 * first) << player1;
        EXPECT_LT(game.index, 2 * first + games) << player1;
        parts.games.push_back(std::move(game));
      }
    }
    ExpectSameGames(whole, parts);
  }
  EXPECT_THROW(RunMatch("chad", {.player1 = "random", .player2 = "random", .first_pair = -1}),
               Error);
}

// Through RunMatch: the same games whatever the concurrency, and the evaluator counts reported.
TEST(SelfplayMatchTest, LockstepMatchDoesNotDependOnConcurrency) {
  MatchConfig config{.player1 = "rollout:8",
                     .player2 = "alphabeta:1",
                     .games = 6,
                     .openings = "random:2",
                     .concurrency = 1,
                     .max_plies = 12};
  const MatchSummary alone = RunMatch("chad", config);
  config.concurrency = 6;
  const MatchSummary together = RunMatch("chad", config);
  ASSERT_EQ(alone.games.size(), 6u);
  ExpectSameGames(alone, together);
  EXPECT_EQ(alone.wins, together.wins);
  EXPECT_EQ(alone.draws, together.draws);
  EXPECT_EQ(alone.evaluated[0], together.evaluated[0]);
  EXPECT_GT(alone.evaluator_calls[0], together.evaluator_calls[0]);
  EXPECT_EQ(together.evaluator_calls[1], 0);
  EXPECT_NE(together.Report(config).find("player 1 evaluator:"), std::string::npos);
}

// A player against itself (self-play, as `vzero research` plays): one evaluator for both colours,
// called once per round; sampled first plies, reproducibly; every game carries its start, moves
// and the searches' values.
TEST(SelfplayMatchTest, SelfPlaySharesOneEvaluatorAndRecordsMovesAndValues) {
  using G = chad::ChadGame;
  MatchConfig config;
  config.player1 = config.player2 = "rollout:6";
  config.games = 6;
  config.max_plies = 10;
  config.concurrency = 6;
  config.sample_plies = 4;
  int called = 0;
  const MatchSummary summary = RunMatch("chad", config, [&](const MatchGame&) { ++called; });
  EXPECT_EQ(called, 6);
  EXPECT_GT(summary.evaluator_calls[0], 0);
  EXPECT_EQ(summary.evaluator_calls[1], 0);  // both colours' leaves went to player 1's evaluator
  for (const MatchGame& game : summary.games) {
    EXPECT_EQ(game.start, G::FormatPosition(G::InitialPosition()));
    ASSERT_EQ(game.moves.size(), size_t(game.plies));
    ASSERT_EQ(game.values.size(), game.moves.size());
    GameState<G> state;
    for (size_t ply = 0; ply < game.moves.size(); ++ply) {
      state.Play(game.moves[ply]);
      EXPECT_TRUE(std::isfinite(game.values[ply]));
      EXPECT_LE(std::fabs(game.values[ply]), 1.0f);
    }
  }
  ExpectSameGames(summary, RunMatch("chad", config));
}

// Plies no search chose (the random player's, opening plies) have no value; alpha-beta's have its
// score as a value, White's view.
TEST(SelfplayMatchTest, ValuesOnlyForSearchedPlies) {
  const MatchSummary summary = RunMatch("cuarenta", {.player1 = "random",
                                                     .player2 = "alphabeta:1",
                                                     .games = 2,
                                                     .openings = "random:2",
                                                     .max_plies = 6});
  for (const MatchGame& game : summary.games) {
    ASSERT_EQ(game.moves.size(), size_t(game.plies + 2));
    ASSERT_EQ(game.values.size(), game.moves.size());
    for (size_t ply = 0; ply < game.values.size(); ++ply) {
      const bool white_moved = ply % 2 == 0;  // White moves first in Cuarenta
      const bool random_moved = ply < 2 || white_moved == game.player1_white;
      if (random_moved) {
        EXPECT_TRUE(std::isnan(game.values[ply])) << ply;
      } else {
        EXPECT_TRUE(std::isfinite(game.values[ply])) << ply;
        EXPECT_LE(std::fabs(game.values[ply]), 1.0f) << ply;
      }
    }
  }
}

// ScoreToValue is the logistic curve of chess ratings; alpha-beta's value is White's view
// whichever side moves.
TEST(SelfplayMatchTest, AlphaBetaValuesAreWhitesView) {
  EXPECT_EQ(ScoreToValue(0), 0.0f);
  EXPECT_NEAR(ScoreToValue(400), 2.0 / 1.1 - 1.0, 1e-6);
  EXPECT_NEAR(ScoreToValue(-400), -(2.0 / 1.1 - 1.0), 1e-6);
  EXPECT_EQ(ScoreToValue(kMateScore - 3), 1.0f);
  EXPECT_EQ(ScoreToValue(-kMateScore + 3), -1.0f);
  using G = draughts::DraughtsGame;
  // The start without Black's first man: White is a man up, with either side to move.
  std::string fen = G::FormatPosition(G::InitialPosition());
  const size_t black = fen.find(":B") + 2;
  fen.erase(black, fen.find(',', black) + 1 - black);
  GameState<G> state(G::ParsePosition(fen));
  AlphaBetaPlayer<G> player(3);
  player.NewGame(1);
  EXPECT_TRUE(std::isnan(RandomPlayer<G>().LastValue()));
  for (int ply = 0; ply < 2; ++ply) {
    const Move move = player.ChooseMove(state);
    EXPECT_GT(player.LastValue(), 0.1f) << "ply " << ply << " " << fen;
    state.Play(move);
  }
}

TEST(SelfplayMatchTest, LadderOrdersBaselines) {
  LadderConfig config;
  config.players = {"alphabeta:2", "random"};
  config.games_per_pair = 6;
  config.match.openings = "random:4";
  const LadderResult result = RunLadder("chad", config);
  EXPECT_EQ(result.anchor, 1);
  EXPECT_DOUBLE_EQ(result.rows[1].rating.elo, 0.0);
  EXPECT_GT(result.rows[0].rating.elo, 100.0);
  EXPECT_NE(result.Table().find("alphabeta:2"), std::string::npos);
  EXPECT_EQ(result.Csv().substr(0, 40).find("player,elo,error"), 0u);
  config.players = {"random", "random"};
  EXPECT_THROW(RunLadder("chad", config), Error);
}

}  // namespace
}  // namespace vz
