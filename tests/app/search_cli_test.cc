// `vzero search` and `vzero bench` end to end: option ranges, the node-cap floor, the report of a
// finished root and the split of --moves. Runs the vzero binary of the same build (next to this
// test; VZ_VZERO names another one) and skips when there is none.

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli_driver.h"

namespace vz {
namespace {

using testing::Execution;
using testing::RunVzero;
using testing::VzeroPath;

class SearchCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = testing::VzeroSkipReason(); !why.empty()) GTEST_SKIP() << why;
  }

  // Runs a command that must succeed and print one JSON object.
  nlohmann::json Json(const std::vector<std::string>& arguments) {
    const Execution run = RunVzero(arguments);
    EXPECT_EQ(run.status, 0) << run.output;
    return nlohmann::json::parse(run.output, nullptr, /*allow_exceptions=*/false);
  }

  // Runs a command that must fail with one line (no crash, no "unexpected error") containing
  // `expected`.
  void ExpectRefused(const std::vector<std::string>& arguments, const std::string& expected) {
    const Execution run = RunVzero(arguments);
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_NE(run.output.find(expected), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("unexpected error"), std::string::npos) << run.output;
  }
};

TEST_F(SearchCliTest, NegativeSeedIsRefused) {
  ExpectRefused({"search", "--variant", "chad", "--simulations", "10", "--seed", "-1"}, "--seed");
  const nlohmann::json json = Json({"search", "--variant", "chad", "--simulations", "10", "--seed",
                                    "18446744073709551615", "--json"});
  EXPECT_FALSE(json["best_move"].is_null());
}

TEST_F(SearchCliTest, CountsBeyondThirtyTwoBitsAreRefused) {
  ExpectRefused({"search", "--variant", "chad", "--gumbel", "--simulations", "2147483649"},
                "--simulations");
  ExpectRefused({"search", "--variant", "chad", "--max-nodes", "2147483648"}, "--max-nodes");
  ExpectRefused({"bench", "--variant", "chad", "--simulations", "2147483648"}, "--simulations");
}

TEST_F(SearchCliTest, TinyNodeCapStillPlaysAMove) {
  const nlohmann::json json =
      Json({"search", "--variant", "chad", "--max-nodes", "2", "--simulations", "100", "--json"});
  EXPECT_FALSE(json["best_move"].is_null());
  EXPECT_FALSE(json["moves"].empty());
  // The full tree ends the search early; the JSON says so.
  EXPECT_EQ(json["tree_full"], true);
  EXPECT_LT(json["simulations"].get<int>(), 100);
  EXPECT_EQ(json["root"]["visits"].get<int>(), json["simulations"].get<int>() + 1);
}

TEST_F(SearchCliTest, FinishedRootReportsItsResultAndReason) {
  nlohmann::json json =
      Json({"search", "--variant", "portuguese-draughts", "--fen", "W:W:B", "--json"});
  EXPECT_EQ(json["status"], "black-wins");
  EXPECT_EQ(json["reason"], "no-legal-move");
  EXPECT_EQ(json["root"]["proven"], "loss");
  EXPECT_EQ(json["root"]["proven_plies"], 0);
  EXPECT_EQ(json["root"]["wdl"]["loss"], 1.0);
  EXPECT_EQ(json["root"]["q"], -1.0);
  json = Json({"search", "--variant", "portuguese-draughts", "--simulations", "10", "--json"});
  EXPECT_EQ(json["status"], "ongoing");
  EXPECT_TRUE(json.contains("reason"));
  EXPECT_TRUE(json["reason"].is_null());
}

TEST_F(SearchCliTest, MovesAreSplitOnAnyWhitespace) {
  const nlohmann::json json = Json(
      {"search", "--variant", "chad", "--moves", "  c3c1 \t  ", "--simulations", "10", "--json"});
  EXPECT_EQ(json["side_to_move"], "black");
}

TEST_F(SearchCliTest, EmptyBenchVariantIsRefused) {
  ExpectRefused({"bench", "--variant", "", "--simulations", "10"}, "variant");
  const Execution run = RunVzero({"bench", "--variant", "chad", "--simulations", "10"});
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("chad"), std::string::npos);
  EXPECT_EQ(run.output.find("cuarenta"), std::string::npos) << "only the game asked for";
}

// What CLI11 lets through is refused for every command at once (app/number_checks.cc): nan and
// inf (which pass its range checks), minus signs and values beyond 64 bits of unsigned options;
// and the checks a command makes of its own values before it plays any game.
TEST_F(SearchCliTest, BadNumbersAndUnusableOutputsAreRefusedBeforeWork) {
  ExpectRefused({"search", "--variant", "chad", "--max-mib", "nan"},
                "--max-mib: nan is not a finite number");
  ExpectRefused({"search", "--variant", "chad", "--max-mib", "inf"}, "--max-mib");
  ExpectRefused(
      {"match", "--variant", "chad", "--player1", "random", "--player2", "random", "--seed", "-1"},
      "--seed: -1 is negative");
  ExpectRefused({"match", "--variant", "chad", "--player1", "random", "--player2", "random",
                 "--games", "2", "--seed", "99999999999999999999"},
                "--seed: 99999999999999999999 is larger than 18446744073709551615");
  ExpectRefused({"match", "--variant", "chad", "--player1", "random", "--player2", "random",
                 "--games", "2", "--sprt", "0,nan,0.05,0.05"},
                "field 'nan' is not a finite number");
  ExpectRefused({"match", "--variant", "cuarenta", "--player1", "random", "--player2", "random",
                 "--games", "2", "--material-margin", "-100"},
                "--material-margin");
  ExpectRefused({"ladder", "--variant", "chad", "--players", "random", "rollout:2",
                 "--games-per-pair", "2", "--csv", "/nonexistent-vzero-dir/x.csv"},
                "ladder: CSV file /nonexistent-vzero-dir/x.csv: cannot be written");
  ExpectRefused(
      {"play", "--variant", "chad", "--net", "none", "--save", "/nonexistent-vzero-dir/g.pgn"},
      "cannot be written");
  // An opening where the game is already over (Black to move with no piece left).
  const std::string openings = (std::filesystem::temp_directory_path() /
                                ("vzero-openings-" + std::to_string(getpid()) + ".txt"))
                                   .string();
  { std::ofstream(openings) << "W:W18:B5\nB:W18:B\n"; }
  ExpectRefused({"match", "--variant", "portuguese-draughts", "--player1", "random", "--player2",
                 "random", "--games", "2", "--openings", openings},
                "line 2: the game is already over there (no-legal-move)");
  std::filesystem::remove(openings);
}

}  // namespace
}  // namespace vz
