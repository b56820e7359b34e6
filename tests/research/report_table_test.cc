// The research report's table emitter (research/report_table.h): one table written as HTML, CSV
// and JSON, each expected text written out by hand.

#include "research/report_table.h"

#include <gtest/gtest.h>

#include <cmath>

namespace vz::research {
namespace {

using nlohmann::json;

Table Sample() {
  Table table({{kEveryForm, "group", "label"},
               {kData, "", "budget"},
               {kEveryForm, "White score [95%]", "white_score", 3, 4, "score_low", "score_high"},
               {kEveryForm, "mean plies", "mean_plies", 1, 2},
               {kHtml, "games (W-D-L)", ""},
               {kCsv, "", "estimated"},
               {kJson, "", "lengths"}});
  table.AddRow({TableCell::Text("2 <sims>, \"fast\""), TableCell::Integer(2),
                TableCell::Of({0.8333333, 0.25, 1.0}), TableCell::Real(12.3125),
                TableCell::Html("3 (2-1-0)"), TableCell::Bool(true),
                TableCell::Json(json::array({10, 3}))});
  table.AddRow({TableCell::Text("none"), TableCell::Integer(-4), TableCell::Empty(),
                TableCell::Real(NAN), TableCell::Html(""), TableCell::Bool(false),
                TableCell::Json(json::array())});
  return table;
}

TEST(ReportTableTest, HtmlHasTheHtmlColumnsEscapedWithTheirDigits) {
  EXPECT_EQ(Sample().Html(),
            "<table>\n"
            "<tr><th>group</th><th>White score [95%]</th><th>mean plies</th>"
            "<th>games (W-D-L)</th></tr>\n"
            "<tr><td>2 &lt;sims&gt;, &quot;fast&quot;</td><td>0.833 [0.250, 1.000]</td>"
            "<td>12.3</td><td>3 (2-1-0)</td></tr>\n"
            "<tr><td>none</td><td></td><td></td><td></td></tr>\n"
            "</table>\n");
}

TEST(ReportTableTest, CsvHasTheCsvColumnsQuotedWithTheirDigits) {
  EXPECT_EQ(Sample().Csv(),
            "label,budget,white_score,score_low,score_high,mean_plies,estimated\n"
            "\"2 <sims>, \"\"fast\"\"\",2,0.8333,0.2500,1.0000,12.31,1\n"
            "none,-4,,,,,0\n");
  EXPECT_EQ(Table({{kCsv, "", "a"}, {kCsv, "", "b"}}).Csv(), "a,b\n");
}

TEST(ReportTableTest, JsonHasTheDataColumnsWithFullPrecision) {
  const json expected = json::parse(R"([
    {"label": "2 <sims>, \"fast\"", "budget": 2, "white_score": 0.8333333, "score_low": 0.25,
     "score_high": 1.0, "mean_plies": 12.3125, "lengths": [10, 3]},
    {"label": "none", "budget": -4, "white_score": null, "score_low": null, "score_high": null,
     "mean_plies": null, "lengths": []}])");
  EXPECT_EQ(Sample().Json(), expected);
  EXPECT_EQ(Sample().Json().dump(), expected.dump());  // integers stay integers
}

TEST(ReportTableTest, NumbersAndFields) {
  EXPECT_EQ(FixedDigits(-0.0, 2), "0.00");
  EXPECT_EQ(FixedDigits(1.0 / 3.0, 4), "0.3333");
  EXPECT_EQ(FixedDigits(INFINITY, 1), "");
  EXPECT_EQ(CsvField("plain text"), "plain text");
  EXPECT_EQ(CsvField("a\nb"), "\"a\nb\"");
}

}  // namespace
}  // namespace vz::research
