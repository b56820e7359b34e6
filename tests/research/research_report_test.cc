// A tiny study (a fresh tiny Chaco Rex net, a few short games, few simulations): every section and
// file of the report is there, the report's counts and scores match the game records it wrote,
// and the same seed gives the same games.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/chaco_rex/encoding.h"
#include "engine/chaco_rex/game.h"
#include "nets/fresh_net.h"
#include "nets/net_runner.h"
#include "records/pgn_record.h"
#include "research/report.h"
#include "research/research.h"
#include "tests/test_util.h"

namespace vz::research {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ResearchReportTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    nets::SetCpuThreads(1);  // as vzero does: small batches, no busy-waiting thread pool
    dir_ = new fs::path(fs::temp_directory_path() /
                        ("vzero-research-test-" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    nets::WriteNetFile(Net(), nets::FreshNetForGame<chaco_rex::ChacoRexGame>("tiny", 5));
    first_ = new ResearchSummary(RunResearch(Config("first")));
  }
  static void TearDownTestSuite() {
    std::error_code error;
    fs::remove_all(*dir_, error);
    delete first_;
    delete dir_;
  }

  static std::string Net() { return (*dir_ / "tiny.vznet").string(); }

  static ResearchConfig Config(const std::string& out) {
    ResearchConfig config;
    config.net_file = Net();
    config.games = 6;
    config.simulations = {2, 4};
    config.out_dir = (*dir_ / out).string();
    config.seed = 3;
    config.concurrency = 4;
    config.max_plies = 24;
    config.sample_plies = 4;
    config.opening_depth = 3;
    config.root_simulations = 24;
    config.first_moves = 2;
    config.first_move_games = 2;
    config.examples = 3;
    config.players = {"alphabeta:1"};
    config.imbalance_games = 2;
    config.decision_every = 6;
    config.strength_games = 2;
    config.command = "vzero research (test)";
    return config;
  }

  static std::string Read(const std::string& out, const std::string& name) {
    return ReadTextFile((*dir_ / out / name).string());
  }

  static inline fs::path* dir_ = nullptr;
  static inline ResearchSummary* first_ = nullptr;
};

TEST_F(ResearchReportTest, EverySectionAndFileIsThere) {
  EXPECT_EQ(first_->variant, "chaco-rex");  // from the net file
  // 2 budgets x 6 games, 2 first moves x 2 games, 9 imbalances x 4 games (2 asked for, rounded
  // up to 2 pairs: one with each colour advantaged) x 2 players, and the alpha-beta player's 6
  // games, of which a pair's two are the same game when alpha-beta plays deterministically (one
  // of two identical games is kept).
  EXPECT_GE(first_->games_played, 2 * 6 + 2 * 2 + 9 * 4 * 2 + 3);
  EXPECT_LE(first_->games_played, 2 * 6 + 2 * 2 + 9 * 4 * 2 + 6);
  // Every match game, the strength games (2 against each of alphabeta:1 and alphabeta:2) too.
  EXPECT_EQ(first_->games_searched, 2 * 6 + 2 * 2 + 9 * 4 * 2 + 6 + 2 * 2);
  const std::string html = Read("first", "report.html");
  for (const char* id : {"id=\"balance\"", "id=\"metrics\"", "id=\"piece-values\"",
                         "id=\"imbalances\"", "id=\"players\"", "id=\"openings\"",
                         "id=\"game-shape\"", "id=\"examples\"", "id=\"files\""}) {
    EXPECT_NE(html.find(id), std::string::npos) << id;
  }
  EXPECT_NE(html.find("<polygon"), std::string::npos);  // the hexagons of the board diagrams
  size_t plots = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) {
    ++plots;
  }
  EXPECT_GE(plots, 10u);
  for (const char* file : {"report.json",
                           "balance.csv",
                           "endings.csv",
                           "piece_values.csv",
                           "openings_tree.csv",
                           "opening_lines.csv",
                           "opening_entropy.csv",
                           "first_moves.csv",
                           "captures.csv",
                           "material.csv",
                           "games.csv",
                           "games-2-sims.pgn",
                           "games-4-sims.pgn",
                           "games-alphabeta-1.pgn",
                           "metrics.csv",
                           "branching.csv",
                           "imbalances.csv",
                           "imbalance_values.csv",
                           "value_methods.csv",
                           "players.csv",
                           "imbalance-openings-4-sims.txt",
                           "imbalance-openings-alphabeta-1.txt"}) {
    EXPECT_TRUE(fs::exists(*dir_ / "first" / file)) << file;
  }
  const json report = json::parse(Read("first", "report.json"));
  for (const char* key : {"balance", "piece_values", "openings", "shape", "examples", "games",
                          "metrics", "imbalances", "players"}) {
    EXPECT_TRUE(report.contains(key)) << key;
  }
  // The net's strength against the fixed opponents, in the settings.
  for (const char* opponent : {"alphabeta:1", "alphabeta:2"}) {
    const std::string key = std::string("strength: 4 sims against ") + opponent;
    ASSERT_TRUE(report["settings"].contains(key)) << key;
    EXPECT_NE(report["settings"][key].get<std::string>().find("in 2 games from random:4"),
              std::string::npos);
  }
  // The metrics of each group: the two budgets and the alpha-beta player.
  std::map<std::string, int> metrics_per_group;
  for (const json& row : report["metrics"]) ++metrics_per_group[row["label"].get<std::string>()];
  EXPECT_EQ(metrics_per_group.size(), 3u);
  EXPECT_EQ(metrics_per_group["alphabeta:1"], metrics_per_group["4 sims"]);
  EXPECT_GE(metrics_per_group["4 sims"], 13);  // with decision moves
  // The imbalance matches of both players, each imbalance with its two games.
  ASSERT_EQ(report["imbalances"].size(), 2u);
  EXPECT_EQ(report["imbalances"][0]["player"], "4 sims");
  EXPECT_EQ(report["imbalances"][1]["player"], "alphabeta:1");
  for (const json& study : report["imbalances"]) {
    EXPECT_EQ(study["imbalances"].size(), 9u);
    for (const json& row : study["imbalances"]) EXPECT_EQ(row["games"], 4) << row["imbalance"];
  }
  // The findings of the net's largest budget against the alpha-beta player: every metric.
  int findings = 0;
  for (const json& row : report["players"]) {
    EXPECT_EQ(row["first"], "4 sims");
    EXPECT_EQ(row["second"], "alphabeta:1");
    findings += row["finding"].get<std::string>().rfind("value of", 0) != 0;
  }
  EXPECT_EQ(findings, metrics_per_group["4 sims"]);
  EXPECT_EQ(report["examples"].size(), 3u);
  EXPECT_EQ(report["openings"]["first_moves"].size(), 8u);
  EXPECT_EQ(report["openings"]["first_moves"][0]["games"], 2);
  // The tiny net's searches are deterministic: only the sampled first plies make games differ.
  EXPECT_GT(report["openings"]["entropy"].back()["bits"][0].get<double>(), 0.0);
}

TEST_F(ResearchReportTest, CountsAndScoresMatchTheRecords) {
  const json report = json::parse(Read("first", "report.json"));
  for (const json& row : report["balance"]) {
    const std::string label = row["label"];
    const std::string name = "games-" + Slug(label) + ".pgn";
    const std::vector<RecordText> records = ParseRecordText(Read("first", name));
    int64_t white = 0, black = 0, draws = 0;
    for (const RecordText& record : records) {
      const Status status = StatusFromResultToken(record.result);
      white += status == Status::kWhiteWins;
      black += status == Status::kBlackWins;
      draws += status == Status::kDraw;
      // Every record replays, and its length is what the report counted.
      GameState<chaco_rex::ChacoRexGame> state;
      const ReplayReport check = ReplayRecord<chaco_rex::ChacoRexGame>(record, 1, &state);
      EXPECT_TRUE(check.ok) << check.error;
      EXPECT_EQ(record.Tag("PlyCount"), std::to_string(record.moves.size()));
    }
    EXPECT_EQ(row["games"], int64_t(records.size())) << label;
    EXPECT_EQ(row["white_wins"], white) << label;
    EXPECT_EQ(row["black_wins"], black) << label;
    EXPECT_EQ(row["draws"], draws) << label;
    EXPECT_NEAR(row["white_score"].get<double>(),
                (double(white) + 0.5 * double(draws)) / double(records.size()), 1e-12);
    int64_t ended = 0;
    for (const auto& [ending, count] : row["endings"].items()) ended += count.get<int64_t>();
    EXPECT_EQ(ended, int64_t(records.size()));
  }
  // The opening tree's first plies count the records' first moves (both budgets together).
  std::map<std::string, int64_t> first_moves;
  int64_t games = 0;
  for (const char* name : {"games-2-sims.pgn", "games-4-sims.pgn"}) {
    for (const RecordText& record : ParseRecordText(Read("first", name))) {
      ++first_moves[record.moves.at(0)];
      ++games;
    }
  }
  EXPECT_EQ(report["openings"]["games"], games);
  int64_t tree_first = 0;
  for (const json& node : report["openings"]["tree"]) {
    if (node["depth"] != 1) continue;
    tree_first += node["count"].get<int64_t>();
    EXPECT_EQ(node["count"], first_moves[node["move"].get<std::string>()]) << node["move"];
  }
  EXPECT_EQ(tree_first, games);
  // games.csv has a line per game of the study.
  const std::string csv = Read("first", "games.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + first_->games_played);
}

TEST_F(ResearchReportTest, TheSameSeedGivesTheSameGames) {
  RunResearch(Config("second"));
  EXPECT_EQ(Read("first", "games.csv"), Read("second", "games.csv"));
  EXPECT_EQ(Read("first", "balance.csv"), Read("second", "balance.csv"));
  EXPECT_EQ(Read("first", "openings_tree.csv"), Read("second", "openings_tree.csv"));
}

// The same command run again reads the finished parts and plays nothing; a corrupted part is
// played again, with the same games; another command (another seed) reuses no part.
TEST_F(ResearchReportTest, ARunAgainResumesFromTheFinishedParts) {
  EXPECT_EQ(first_->games_resumed, 0);
  EXPECT_GE(first_->games_searched, first_->games_played);
  const ResearchSummary again = RunResearch(Config("first"));
  EXPECT_EQ(again.games_searched, 0);
  EXPECT_EQ(again.games_resumed, first_->games_searched);
  EXPECT_EQ(again.games_played, first_->games_played);
  const std::string games = Read("first", "games.csv");
  std::vector<fs::path> parts;
  for (const auto& entry : fs::directory_iterator(*dir_ / "first" / "parts")) {
    parts.push_back(entry.path());
  }
  ASSERT_GE(parts.size(), 5u);  // 2 budgets, first moves, alpha-beta, 2 imbalance matches
  std::sort(parts.begin(), parts.end());
  {
    std::ofstream corrupt(parts[0], std::ios::trunc);
    corrupt << "{\"key\": \"cut by a kill";
  }
  const ResearchSummary repaired = RunResearch(Config("first"));
  EXPECT_GT(repaired.games_searched, 0);
  EXPECT_LT(repaired.games_searched, first_->games_searched);
  EXPECT_EQ(repaired.games_searched + repaired.games_resumed, first_->games_searched);
  EXPECT_EQ(Read("first", "games.csv"), games);
  // Other imbalance openings: only the imbalance matches are played again.
  ResearchConfig plies = Config("first");
  plies.imbalance_plies = 3;
  const ResearchSummary replayed = RunResearch(plies);
  EXPECT_EQ(replayed.games_searched, 9 * 4 * 2);
  EXPECT_EQ(replayed.games_resumed, first_->games_searched - 9 * 4 * 2);
  ResearchConfig other = Config("first");
  other.seed = 4;
  other.players.clear();
  other.imbalance_games = 0;
  EXPECT_EQ(RunResearch(other).games_resumed, 0);
}

TEST_F(ResearchReportTest, BadSettingsAreErrors) {
  ResearchConfig config = Config("bad");
  config.simulations = {0};
  EXPECT_NE(testing::ErrorOf([&] { RunResearch(config); }).find("--simulations"),
            std::string::npos);
  config = Config("bad");
  config.net_file.clear();
  EXPECT_NE(testing::ErrorOf([&] { RunResearch(config); }).find("--net"), std::string::npos);
  config = Config("bad");
  config.variant = "chad";
  EXPECT_NE(testing::ErrorOf([&] { RunResearch(config); }), "");
  config = Config("bad");
  config.players = {"alphabeta:x"};
  EXPECT_NE(testing::ErrorOf([&] { RunResearch(config); }).find("--players 'alphabeta:x'"),
            std::string::npos);
  config = Config("bad");
  config.players = {"alphabeta:1", "random", "alphabeta:1"};
  EXPECT_NE(testing::ErrorOf([&] { RunResearch(config); }).find("'alphabeta:1' twice"),
            std::string::npos);
  config = Config("bad");
  config.imbalance_games = -1;
  EXPECT_NE(testing::ErrorOf([&] { RunResearch(config); }).find("--imbalance-games"),
            std::string::npos);
  config = Config("bad");
  config.run_dir = (*dir_ / "no-such-run").string();
  EXPECT_NE(testing::ErrorOf([&] { RunResearch(config); }).find("no-such-run"), std::string::npos);
}

}  // namespace
}  // namespace vz::research
