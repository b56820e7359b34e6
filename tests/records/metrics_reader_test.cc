// The strength-curve table of a run (records/metrics_reader.h StrengthCurveTable): one row per
// check and per end-of-run evaluation, a column per fixed opponent, and an error naming a bad file.

#include "records/metrics_reader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/test_util.h"

namespace vz {
namespace {

class MetricsReaderTest : public testing::TempDirTest {
 protected:
  void WriteMetrics(const std::string& text) { std::ofstream(File("metrics.jsonl")) << text; }
};

TEST_F(MetricsReaderTest, StrengthCurveTableHasARowPerCheckAndAColumnPerOpponent) {
  WriteMetrics(
      R"({"type":"strength","net":"initial","step":0,"selfplay_positions":0,"wall_seconds":6,"opponent":"alphabeta:1","score":0.125,"wins":1,"draws":0,"losses":7})"
      "\n"
      R"({"type":"train","step":10,"loss":2.5})"
      "\n"
      R"({"type":"strength","net":"initial","step":0,"selfplay_positions":0,"wall_seconds":4,"opponent":"alphabeta:2","score":0,"wins":0,"draws":0,"losses":8})"
      "\n"
      "not json\n"
      R"({"type":"strength","net":"best-0005","step":1250,"selfplay_positions":40000,"wall_seconds":90,"opponent":"alphabeta:1","score":0.5,"wins":2,"draws":4,"losses":2})"
      "\n"
      R"({"type":"evaluation","step":1300,"opponent":"initial net","fixed_opponent":false,"score":1,"wins":40,"draws":0,"losses":0})"
      "\n"
      R"({"type":"evaluation","step":1300,"opponent":"alphabeta:2","fixed_opponent":true,"score":0.25,"wins":5,"draws":10,"losses":25})"
      "\n");
  int bad_lines = -1;
  StrengthCurveTable(dir_.string(), &bad_lines);
  EXPECT_EQ(bad_lines, 1);  // "not json"
  EXPECT_EQ(StrengthCurveTable(dir_.string()),
            "| net | step | self-play positions | minutes | vs alphabeta:1 | vs alphabeta:2 |\n"
            "| --- | ---: | ---: | ---: | ---: | ---: |\n"
            "| initial | 0 | 0 | 0.1 | 0.125 (1-0-7) | 0.000 (0-0-8) |\n"
            "| best-0005 | 1250 | 40000 | 1.5 | 0.500 (2-4-2) |  |\n"
            "| evaluation | 1300 |  |  |  | 0.250 (5-10-25) |\n");
}

// A run without in-run checks (strength.every_checkpoints 0) still has the end-of-run evaluation
// against its fixed opponents; a '|' in a name does not break the table.
TEST_F(MetricsReaderTest, EvaluationAloneMakesATable) {
  WriteMetrics(
      R"({"type":"evaluation","step":500,"opponent":"rollout search","fixed_opponent":false,"score":1,"wins":4,"draws":0,"losses":0})"
      "\n"
      R"({"type":"evaluation","step":500,"opponent":"x|y","fixed_opponent":true,"score":0.5,"wins":1,"draws":2,"losses":1})"
      "\n");
  EXPECT_EQ(StrengthCurveTable(dir_.string()),
            "| net | step | self-play positions | minutes | vs x\\|y |\n"
            "| --- | ---: | ---: | ---: | ---: |\n"
            "| evaluation | 500 |  |  | 0.500 (1-2-1) |\n");
}

TEST_F(MetricsReaderTest, NoFixedOpponentsIsAnEmptyTable) {
  WriteMetrics(
      R"({"type":"train","step":10,"loss":2.5})"
      "\n"
      R"({"type":"evaluation","step":10,"opponent":"initial net","fixed_opponent":false,"score":1,"wins":4,"draws":0,"losses":0})"
      "\n");
  EXPECT_EQ(StrengthCurveTable(dir_.string()), "");
}

TEST_F(MetricsReaderTest, BadFilesAreErrorsNamingTheRun) {
  EXPECT_NE(testing::ErrorOf([&] { StrengthCurveTable(File("missing")); }).find("metrics.jsonl"),
            std::string::npos);
  WriteMetrics(R"({"type":"train","step":10,"loss":2.5})"
               "\n"
               R"({"type":"strength","opponent":"alphabeta:1","step":"seven"})"
               "\n");
  const std::string error = testing::ErrorOf([&] { StrengthCurveTable(dir_.string()); });
  EXPECT_NE(error.find("line 2: field \"step\" is a string, expected an integer"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find(dir_.string()), std::string::npos) << error;
}

// Every reader (the summary, the table, the plots' lines) refuses a field of the wrong type with
// its line and name, where the summary used to print a string loss as nan; a null number (a NaN
// the writer wrote) and unknown fields of any type are fine.
TEST_F(MetricsReaderTest, AFieldOfTheWrongTypeIsNamedWithItsLine) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"type":"train","step":30,"loss":"a"})",
       "field \"loss\" is a string, expected a number or null"},
      {R"({"type":7})", "field \"type\" is a number, expected a string"},
      {R"({"type":"gating","step":5,"promoted":1})",
       "field \"promoted\" is a number, expected true or false"},
      {R"({"type":"strength","opponent":["x"],"step":5})",
       "field \"opponent\" is an array, expected a string"},
      {R"({"type":"strength","opponent":"alphabeta:1","wins":null})",
       "field \"wins\" is null, expected an integer"},
      {R"({"type":"train","step":1e300})", "field \"step\" is a number, expected an integer"},
  };
  for (const auto& [line, message] : cases) {
    SCOPED_TRACE(line);
    WriteMetrics(std::string("\n") + line + "\n");
    for (const std::string& error :
         {testing::ErrorOf([&] { SummarizeRunMetrics(dir_.string()); }), testing::ErrorOf([&] {
            int bad = 0;
            ReadRunMetrics(dir_.string(), bad);
          })}) {
      EXPECT_NE(error.find(std::string("metrics.jsonl line 2: ") + message), std::string::npos)
          << error;
    }
  }
  WriteMetrics(R"({"type":"train","step":10,"loss":2.5,"elo":null,"extra":[1,{"a":2}]})"
               "\n");
  EXPECT_EQ(SummarizeRunMetrics(dir_.string()).lines, 1);
}

}  // namespace
}  // namespace vz
