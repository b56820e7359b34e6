#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/core/error.h"
#include "selfplay/ladder.h"
#include "selfplay/match.h"
#include "selfplay/player.h"
#include "selfplay/record.h"

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
#if VZ_HAVE_TORCH
  EXPECT_EQ(PlayerSpec::Parse("net:dir/a:b.pb:100").file, "dir/a:b.pb");
  EXPECT_EQ(PlayerSpec::Parse("net:dir/a:b.pb:100").value, 100);
  EXPECT_THROW(PlayerSpec::Parse("net:100"), Error);
#else
  EXPECT_THROW(PlayerSpec::Parse("net:x.pb:100"), Error);  // needs LibTorch
#endif
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
