// `vzero analysis` end to end through pipes: several queries over the four games in one session
// with malformed ones among them (each valid one answered, each bad one refused with its id), the
// schema of an answer checked against the rules (the registry's Show), analysed turns, a cancelled
// long query, end of input finishing what is queued. Rollout evaluator, small visit counts.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/registry.h"
#include "tests/cli_driver.h"
#include "tests/serve/analysis_lines.h"

namespace vz {
namespace {

using Json = nlohmann::json;
using vz::testing::CliSession;

// A finished `vzero analysis`: its stdout lines, exit status and stderr.
struct Transcript : vz::testing::AnalysisLines {
  int status = -1;
  std::string stderr_text;
};

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("vzero_analysis_cli_" + std::to_string(getpid()) + "_" + name))
      .string();
}

// Runs `vzero analysis` with all of `input` on stdin, then the end of input.
Transcript Analyse(const std::vector<std::string>& input,
                   const std::vector<std::string>& options = {}) {
  Transcript transcript;
  const std::string err = TempPath("stderr");
  CliSession session;
  std::vector<std::string> arguments = {"analysis"};
  arguments.insert(arguments.end(), options.begin(), options.end());
  EXPECT_TRUE(session.Start(arguments, err));
  for (const std::string& line : input) session.Send(line + "\n");
  session.CloseInput();
  std::istringstream out(session.ReadAll());
  EXPECT_FALSE(session.timed_out());
  transcript.status = session.Wait();
  for (std::string line; std::getline(out, line);) {
    Json json = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(json.is_discarded()) << "not JSON: " << line;
    if (!json.is_discarded()) transcript.lines.push_back(json);
  }
  transcript.stderr_text = vz::testing::ReadFile(err);
  std::filesystem::remove(err);
  return transcript;
}

// The rules' view of a position (engine/registry.h, in process): legal moves and position string;
// nullopt when `moves` are not legal there.
std::optional<PositionReport> Show(const std::string& variant, const std::string& fen,
                                   const std::vector<std::string>& moves) {
  try {
    return FindVariant(variant).Show(fen, moves);
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Checks one answer against the rules and itself: the root moves are exactly the legal moves,
// priors sum to 1, root visits are one more than the moves' (the root's own evaluation), the order
// is best first then most visited, each PV starts with its move and is legal, WDLs sum to 1.
void ExpectWellFormed(const Json& answer, const std::string& variant) {
  SCOPED_TRACE(answer.dump().substr(0, 300));
  ASSERT_TRUE(answer.contains("rootInfo"));
  ASSERT_TRUE(answer.contains("moveInfos"));
  const Json& root = answer["rootInfo"];
  const std::optional<PositionReport> shown =
      Show(variant, answer["position"].get<std::string>(), {});
  ASSERT_TRUE(shown.has_value());
  EXPECT_EQ(shown->fen, answer["position"]);
  EXPECT_EQ(root["currentPlayer"], ColorName(shown->side_to_move));
  std::set<std::string> legal(shown->legal_moves.begin(), shown->legal_moves.end());
  std::set<std::string> listed;
  double prior_sum = 0.0;
  int64_t visit_sum = 0;
  int rank = 0;
  int previous_visits = -1;
  for (const Json& info : answer["moveInfos"]) {
    listed.insert(info["move"].get<std::string>());
    EXPECT_EQ(info["order"], rank);
    prior_sum += info["prior"].get<double>();
    const int visits = info["visits"].get<int>();
    visit_sum += visits;
    // After the best move (rank 0), most visited first.
    if (rank > 1) EXPECT_LE(visits, previous_visits);
    previous_visits = visits;
    ASSERT_FALSE(info["pv"].empty());
    EXPECT_EQ(info["pv"][0], info["move"]);
    if (visits > 0) {
      const Json& wdl = info["wdl"];
      EXPECT_NEAR(wdl["win"].get<double>() + wdl["draw"].get<double>() + wdl["loss"].get<double>(),
                  1.0, 1e-4);
      EXPECT_NEAR(info["q"].get<double>(), wdl["win"].get<double>() - wdl["loss"].get<double>(),
                  1e-4);
    } else {
      EXPECT_TRUE(info["q"].is_null());
    }
    ++rank;
  }
  EXPECT_EQ(listed, legal);
  EXPECT_NEAR(prior_sum, 1.0, 1e-3);
  EXPECT_EQ(visit_sum + 1, root["visits"].get<int64_t>());
  const Json& wdl = root["wdl"];
  EXPECT_NEAR(wdl["win"].get<double>() + wdl["draw"].get<double>() + wdl["loss"].get<double>(), 1.0,
              1e-4);
  // The best move's PV is a legal line from the position.
  if (!answer["moveInfos"].empty()) {
    std::vector<std::string> pv = answer["moveInfos"][0]["pv"];
    EXPECT_TRUE(Show(variant, answer["position"].get<std::string>(), pv).has_value())
        << "illegal PV";
  }
}

class AnalysisCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = vz::testing::VzeroSkipReason(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_F(AnalysisCliTest, ValidQueriesAreAnsweredAndBadOnesRefusedInOneSession) {
  const Transcript run = Analyse({
      R"({"id":"chad","variant":"chad","maxVisits":30})",
      R"({"id":"json", "variant": )",
      R"({"variant":"chad"})",
      R"({"id":"variant","variant":"shogi"})",
      R"({"id":"cr","variant":"chaco-rex","maxVisits":30,"includePolicy":true,"includePVVisits":true})",
      R"({"id":"fen","variant":"cuarenta","position":"not a position"})",
      R"({"id":"move","variant":"chad","moves":["c3c2","a1a2"]})",
      R"({"id":"turn","variant":"portuguese-draughts","moves":["10-14"],"analyzeTurns":[0,5]})",
      R"({"id":"type","variant":"chad","maxVisits":"many"})",
      R"({"id":"cu","variant":"cuarenta","maxVisits":30})",
      R"({"id":"pd","variant":"portuguese-draughts","simulations":30,"extra":1})",
      R"({"action":"query_version"})",
  });
  EXPECT_EQ(run.status, 0);
  EXPECT_NE(run.stderr_text.find("rollouts"), std::string::npos) << run.stderr_text;
  for (const auto& [id, variant] :
       std::map<std::string, std::string>{{"chad", "chad"},
                                          {"cr", "chaco-rex"},
                                          {"cu", "cuarenta"},
                                          {"pd", "portuguese-draughts"}}) {
    const std::vector<Json> answers = run.Answers(id);
    ASSERT_EQ(answers.size(), 1u) << id;
    EXPECT_EQ(answers[0]["variant"], variant);
    EXPECT_EQ(answers[0]["turnNumber"], 0);
    EXPECT_EQ(answers[0]["rootInfo"]["evaluator"], "rollout");
    EXPECT_EQ(answers[0]["rootInfo"]["visits"], 31);
    EXPECT_TRUE(run.Errors(id).empty()) << id;
    ExpectWellFormed(answers[0], variant);
  }
  for (const auto& [id, field] : std::map<std::string, std::string>{{"variant", "variant"},
                                                                    {"fen", "position"},
                                                                    {"move", "moves"},
                                                                    {"turn", "analyzeTurns"},
                                                                    {"type", "maxVisits"}}) {
    const std::vector<Json> errors = run.Errors(id);
    ASSERT_EQ(errors.size(), 1u) << id;
    EXPECT_EQ(errors[0]["field"], field);
    EXPECT_NE(errors[0]["error"].get<std::string>().find(field), std::string::npos) << errors[0];
    EXPECT_TRUE(run.Answers(id).empty());
  }
  // The unparsable line and the query without an id: errors with a null id.
  const std::vector<Json> anonymous = run.Errors(nullptr);
  ASSERT_EQ(anonymous.size(), 2u);
  EXPECT_NE(anonymous[0]["error"].get<std::string>().find("bad JSON"), std::string::npos);
  EXPECT_EQ(anonymous[1]["field"], "id");
  // includePolicy and includePVVisits.
  const Json cr = run.Answers("cr").at(0);
  ASSERT_TRUE(cr.contains("policy"));
  EXPECT_EQ(cr["policy"].size(), cr["moveInfos"].size());
  double policy_sum = 0;
  for (const Json& entry : cr["policy"]) policy_sum += entry["prior"].get<double>();
  EXPECT_NEAR(policy_sum, 1.0, 1e-3);
  for (const Json& info : cr["moveInfos"]) {
    ASSERT_EQ(info["pvVisits"].size(), info["pv"].size());
    EXPECT_EQ(info["pvVisits"][0], info["visits"]);
  }
  EXPECT_FALSE(run.Answers("chad").at(0).contains("policy"));
  // The unknown field draws a warning; query_version answers.
  bool warned = false, versioned = false;
  for (const Json& line : run.lines) {
    warned = warned || (line.contains("warning") && line["id"] == "pd" && line["field"] == "extra");
    versioned = versioned || (line.value("action", "") == "query_version" &&
                              !line["version"].get<std::string>().empty());
  }
  EXPECT_TRUE(warned);
  EXPECT_TRUE(versioned);
}

TEST_F(AnalysisCliTest, TurnsAreTheirPositions) {
  const std::vector<std::string> moves = {"c3c2", "h8h2", "e5e6"};
  const Transcript run = Analyse({
      R"({"id":"t","variant":"chad","moves":["c3c2","Rh8-h2","e5e6"],"analyzeTurns":[3,0,1],"maxVisits":12})",
  });
  EXPECT_EQ(run.status, 0);
  const std::vector<Json> answers = run.Answers("t");
  ASSERT_EQ(answers.size(), 3u);
  std::set<int> turns;
  for (const Json& answer : answers) {
    const int turn = answer["turnNumber"];
    turns.insert(turn);
    const std::optional<PositionReport> shown =
        Show("chad", "", std::vector<std::string>(moves.begin(), moves.begin() + turn));
    ASSERT_TRUE(shown.has_value());
    EXPECT_EQ(answer["position"], shown->fen) << "turn " << turn;
    ExpectWellFormed(answer, "chad");
  }
  EXPECT_EQ(turns, (std::set<int>{0, 1, 3}));
}

TEST_F(AnalysisCliTest, FinishedPositionIsReportedAsProven) {
  const Transcript run =
      Analyse({R"({"id":"over","variant":"portuguese-draughts","position":"W:W:B"})"});
  const std::vector<Json> answers = run.Answers("over");
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_TRUE(answers[0]["moveInfos"].empty());
  EXPECT_EQ(answers[0]["rootInfo"]["status"], "black-wins");
  EXPECT_EQ(answers[0]["rootInfo"]["proven"], "loss");
}

TEST_F(AnalysisCliTest, TerminateStopsALongQueryWhileOthersAreServed) {
  const std::string err = TempPath("terminate_stderr");
  CliSession session;
  ASSERT_TRUE(session.Start({"analysis"}, err));
  session.Send(
      R"({"id":"long","variant":"chad","maxVisits":2000000000,"reportDuringSearchEvery":0.05})"
      "\n");
  // The search is running once it reports during the search.
  Json line;
  do {
    line = Json::parse(session.ReadLine(), nullptr, false);
    ASSERT_FALSE(session.ended() || session.timed_out()) << "no report during the search";
  } while (line.is_discarded() || !line.value("isDuringSearch", false));
  EXPECT_EQ(line["id"], "long");
  EXPECT_GT(line["rootInfo"]["visits"].get<int64_t>(), 0);
  // Another query is answered while the long one runs.
  session.Send(R"({"id":"short","variant":"cuarenta","maxVisits":10})"
               "\n");
  session.Send(R"({"id":"stop","action":"terminate","terminateId":"long"})"
               "\n");
  Json terminated, acknowledged, short_answer;
  while (acknowledged.is_null() || short_answer.is_null()) {
    line = Json::parse(session.ReadLine(), nullptr, false);
    ASSERT_FALSE(session.ended() || session.timed_out());
    if (line.is_discarded()) continue;
    if (line["id"] == "long" && !line.value("isDuringSearch", false)) terminated = line;
    if (line.value("action", "") == "terminate") acknowledged = line;
    if (line["id"] == "short") short_answer = line;
  }
  ASSERT_FALSE(terminated.is_null()) << "the terminated query is answered before the ack";
  EXPECT_TRUE(terminated["terminated"].get<bool>());
  EXPECT_LT(terminated["rootInfo"]["visits"].get<int64_t>(), 2000000000);
  EXPECT_EQ(acknowledged["terminateId"], "long");
  EXPECT_EQ(acknowledged["terminated"], 1);
  EXPECT_EQ(short_answer["rootInfo"]["visits"], 11);
  session.CloseInput();
  session.ReadAll();
  EXPECT_EQ(session.Wait(), 0);
  std::filesystem::remove(err);
}

TEST_F(AnalysisCliTest, EndOfInputFinishesQueuedQueries) {
  std::vector<std::string> input;
  for (int i = 0; i < 6; ++i) {
    input.push_back(R"({"id":"q)" + std::to_string(i) +
                    R"(","variant":"cuarenta","maxVisits":15,"seed":)" + std::to_string(i) + "}");
  }
  const Transcript run = Analyse(input, {"--max-queries", "2", "--batch", "1"});
  EXPECT_EQ(run.status, 0);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(run.Answers("q" + std::to_string(i)).size(), 1u) << i;
}

TEST_F(AnalysisCliTest, NetServesTheVariantItWasMadeFor) {
  if (const std::string why = vz::testing::VzeroSkipReason("the net command"); !why.empty()) {
    GTEST_SKIP() << why;
  }
  const std::string net = TempPath("cuarenta.vznet");
  const vz::testing::Execution init = vz::testing::InitTinyNet("cuarenta", net);
  ASSERT_EQ(init.status, 0) << init.output;
  const Transcript run =
      Analyse({R"({"id":"cu","variant":"cuarenta","maxVisits":40,"includePolicy":true})",
               R"({"id":"pd","variant":"portuguese-draughts","maxVisits":10})"},
              {"--net", net});
  std::filesystem::remove(net);
  EXPECT_EQ(run.status, 0);
  const Json cu = run.Answers("cu").at(0);
  EXPECT_EQ(cu["rootInfo"]["evaluator"], "net");
  EXPECT_EQ(cu["rootInfo"]["visits"], 41);
  ExpectWellFormed(cu, "cuarenta");
  EXPECT_EQ(run.Answers("pd").at(0)["rootInfo"]["evaluator"], "rollout");
  // The rollout notice names the variants without a net, and not cuarenta; the line of cuarenta
  // names its net (the others, under the tests' empty VZ_MODELS_DIR, warn of no shipped net).
  const size_t notice_at = run.stderr_text.find("vzero analysis: no net for ");
  ASSERT_NE(notice_at, std::string::npos) << run.stderr_text;
  const std::string notice =
      run.stderr_text.substr(notice_at, run.stderr_text.find('\n', notice_at) - notice_at);
  EXPECT_NE(notice.find("portuguese-draughts"), std::string::npos) << notice;
  EXPECT_EQ(notice.find("cuarenta"), std::string::npos) << notice;
  EXPECT_NE(run.stderr_text.find("vzero analysis: cuarenta: net " + net), std::string::npos)
      << run.stderr_text;
}

TEST_F(AnalysisCliTest, BadOptionsAreRefused) {
  for (const std::vector<std::string>& options :
       {std::vector<std::string>{"--max-queries", "0"}, {"--net", "/nonexistent/net.vznet"}}) {
    CliSession session;
    std::vector<std::string> arguments = {"analysis"};
    arguments.insert(arguments.end(), options.begin(), options.end());
    const std::string err = TempPath("options_stderr");
    ASSERT_TRUE(session.Start(arguments, err));
    session.CloseInput();
    const std::string out = session.ReadAll();
    EXPECT_EQ(session.Wait(), 1) << options[0] << ": " << out;
    std::filesystem::remove(err);
  }
}

}  // namespace
}  // namespace vz
