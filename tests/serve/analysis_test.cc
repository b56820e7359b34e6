// The analysis engine (serve/analysis.h) in process: lockstep batching across queries (one
// evaluator call per game and round, the batch cap), answers independent of the other queries in
// flight, termination, and error lines that name the query and the field. The rollout evaluator
// serves every game here (no nets).

#include "serve/analysis.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "serve/line_io.h"
#include "tests/serve/analysis_lines.h"

namespace vz {
namespace {

using Json = nlohmann::json;

// An engine's output lines and its evaluator counts.
struct Session : testing::AnalysisLines {
  int64_t calls = 0;
  int64_t positions = 0;
  int largest_batch = 0;
};

// Feeds `input` to an engine, then runs rounds until it is idle.
Session Analyse(const std::vector<std::string>& input, AnalysisConfig config = {}) {
  Session run;
  AnalysisEngine engine(
      config, [&run](const std::string& line) { run.lines.push_back(Json::parse(line)); });
  for (const std::string& line : input) engine.HandleLine(line);
  for (int round = 0; engine.Busy() && round < 1000000; ++round) engine.RunRound();
  EXPECT_FALSE(engine.Busy());
  run.calls = engine.evaluator_calls();
  run.positions = engine.positions_evaluated();
  run.largest_batch = engine.largest_batch();
  return run;
}

// (move, visits) of each root move of an answer, in answer order.
std::vector<std::pair<std::string, int>> Visits(const Json& answer) {
  std::vector<std::pair<std::string, int>> visits;
  for (const Json& info : answer["moveInfos"]) {
    visits.emplace_back(info["move"].get<std::string>(), info["visits"].get<int>());
  }
  return visits;
}

const std::string kChad = R"({"id":"chad","variant":"chad","maxVisits":40})";
const std::string kChadLater =
    R"({"id":"chad2","variant":"chad","moves":["c3c2","h8h2"],"maxVisits":40})";
const std::string kCuarenta = R"({"id":"cuarenta","variant":"cuarenta","maxVisits":40})";

TEST(AnalysisEngineTest, SearchesOfOneGameShareEvaluatorCalls) {
  const Session first = Analyse({kChad});
  const Session second = Analyse({kChadLater});
  const Session both = Analyse({kChad, kChadLater});
  ASSERT_EQ(both.Answers("chad").size(), 1u);
  ASSERT_EQ(both.Answers("chad2").size(), 1u);
  // Every leaf of both searches was evaluated, in fewer calls than the two searches alone made.
  EXPECT_EQ(both.positions, first.positions + second.positions);
  EXPECT_LT(both.calls, first.calls + second.calls);
  EXPECT_GE(both.calls, std::max(first.calls, second.calls));
  EXPECT_EQ(both.largest_batch, 2);
}

TEST(AnalysisEngineTest, EachGameHasItsOwnCalls) {
  const Session chad = Analyse({kChad});
  const Session cuarenta = Analyse({kCuarenta});
  const Session both = Analyse({kChad, kCuarenta});
  EXPECT_EQ(both.positions, chad.positions + cuarenta.positions);
  EXPECT_EQ(both.calls, chad.calls + cuarenta.calls);
  EXPECT_EQ(both.largest_batch, 1);
}

TEST(AnalysisEngineTest, AnswersDoNotDependOnOtherQueries) {
  const Session alone = Analyse({kChad});
  AnalysisConfig tight;
  tight.max_batch = 2;
  tight.max_active = 2;
  const Session crowded = Analyse({kChadLater, kCuarenta, kChad,
                                   R"({"id":"d","variant":"portuguese-draughts","maxVisits":30})"},
                                  tight);
  EXPECT_LE(crowded.largest_batch, 2);
  ASSERT_EQ(alone.Answers("chad").size(), 1u);
  ASSERT_EQ(crowded.Answers("chad").size(), 1u);
  EXPECT_EQ(Visits(alone.Answers("chad").at(0)), Visits(crowded.Answers("chad").at(0)));
  EXPECT_EQ(alone.Answers("chad").at(0)["rootInfo"], crowded.Answers("chad").at(0)["rootInfo"]);
  EXPECT_EQ(crowded.Answers("d").size(), 1u);
  EXPECT_EQ(crowded.Answers("cuarenta").size(), 1u);
}

TEST(AnalysisEngineTest, BatchCapSplitsRounds) {
  AnalysisConfig config;
  config.max_batch = 3;
  std::vector<std::string> input;
  for (int i = 0; i < 7; ++i) {
    input.push_back(R"({"id":"q)" + std::to_string(i) +
                    R"(","variant":"portuguese-draughts","maxVisits":12,"seed":)" +
                    std::to_string(i) + "}");
  }
  const Session run = Analyse(input, config);
  EXPECT_EQ(run.largest_batch, 3);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(run.Answers("q" + std::to_string(i)).size(), 1u) << i;
}

TEST(AnalysisEngineTest, TerminateAnswersWaitingAndRunningTurns) {
  AnalysisConfig config;
  config.max_active = 1;
  Session run;
  AnalysisEngine engine(
      config, [&run](const std::string& line) { run.lines.push_back(Json::parse(line)); });
  engine.HandleLine(R"({"id":"long","variant":"chad","maxVisits":100000000})");
  engine.HandleLine(R"({"id":"queued","variant":"chad","maxVisits":100000000})");
  for (int round = 0; round < 5; ++round) engine.RunRound();
  engine.HandleLine(R"({"id":"stop","action":"terminate","terminateId":"queued"})");
  engine.HandleLine(R"({"id":"stop2","action":"terminate","terminateId":"long"})");
  EXPECT_FALSE(engine.Busy());
  const Json queued = run.Answers("queued").at(0);
  EXPECT_TRUE(queued["terminated"].get<bool>());
  EXPECT_TRUE(queued["noResults"].get<bool>());
  EXPECT_EQ(queued["rootInfo"]["visits"], 0);
  const Json running = run.Answers("long").at(0);
  EXPECT_TRUE(running["terminated"].get<bool>());
  EXPECT_FALSE(running.contains("noResults"));
  EXPECT_GT(running["rootInfo"]["visits"].get<int>(), 1);
  EXPECT_LT(running["rootInfo"]["visits"].get<int>(), 100);
  int acknowledged = 0;
  for (const Json& line : run.lines) {
    if (line.value("action", "") == "terminate") {
      EXPECT_EQ(line["terminated"], 1) << line;
      ++acknowledged;
    }
  }
  EXPECT_EQ(acknowledged, 2);
}

TEST(AnalysisEngineTest, AnOverlongLineGetsOneErrorAndTheNextQueryIsAnswered) {
  const std::string huge = R"({"id":"huge","variant":"chad","maxVisits":40,"pad":")" +
                           std::string(kMaxLineBytes, ' ') + "\"}";
  const Session run = Analyse({huge, kChad});
  ASSERT_EQ(run.Errors(nullptr).size(), 1u);
  EXPECT_NE(run.Errors(nullptr)[0]["error"].get<std::string>().find("input line of over"),
            std::string::npos);
  EXPECT_TRUE(run.Errors("huge").empty());
  EXPECT_FALSE(run.Answers("chad").empty());
}

TEST(AnalysisEngineTest, BadQueriesGetOneErrorNamingTheField) {
  const Session run = Analyse({
      R"({"id":"ok","variant":"cuarenta","maxVisits":5})",
      R"({"id":"v","variant":"chess"})",
      R"({"id":"p","variant":"chad","position":"8/8 w"})",
      R"({"id":"m","variant":"chad","moves":["c3c2","c3c2"]})",
      R"({"id":"t","variant":"chad","moves":["c3c2"],"analyzeTurns":[2]})",
      R"({"id":"n","variant":"chad","maxVisits":0})",
      R"({"id":"b","variant":"chad","includePolicy":"yes"})",
      R"({"id":"s","variant":"chad","seed":-1})",
      R"({"id":7,"variant":"chad"})",
      R"({"id":"a","action":"dance"})",
      R"({"id":"k","action":"terminate"})",
      R"([1,2])",
      R"({"id":"ok2","variant":"chad","maxVisits":5})",
  });
  const std::map<std::string, std::string> expected_field = {
      {"v", "variant"},      {"p", "position"},  {"m", "moves"},
      {"t", "analyzeTurns"}, {"n", "maxVisits"}, {"b", "includePolicy"},
      {"s", "seed"},         {"a", "action"},    {"k", "terminateId"}};
  for (const auto& [id, field] : expected_field) {
    const std::vector<Json> errors = run.Errors(id);
    ASSERT_EQ(errors.size(), 1u) << id;
    EXPECT_EQ(errors[0]["field"], field) << errors[0];
    EXPECT_FALSE(errors[0]["error"].get<std::string>().empty());
    EXPECT_TRUE(run.Answers(id).empty()) << id;
  }
  ASSERT_EQ(run.Errors(7).size(), 1u);
  EXPECT_EQ(run.Errors(7)[0]["field"], "id");
  ASSERT_EQ(run.Errors(nullptr).size(), 1u);  // the JSON array
  EXPECT_EQ(run.Answers("ok").size(), 1u);
  EXPECT_EQ(run.Answers("ok2").size(), 1u);
}

TEST(AnalysisEngineTest, ConfigOutOfRangeIsRefused) {
  auto make = [](const AnalysisConfig& config) {
    AnalysisEngine engine(config, [](const std::string&) {});
  };
  AnalysisConfig config;
  config.max_batch = 0;
  EXPECT_THROW(make(config), Error);
  config = {};
  config.nets["chess"] = "x.vznet";
  EXPECT_THROW(make(config), Error);
  config = {};
  config.default_variant = "chess";
  EXPECT_THROW(make(config), Error);
}

}  // namespace
}  // namespace vz
