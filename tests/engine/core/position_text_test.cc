#include "engine/core/position_text.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace vz {
namespace {

using Views = std::vector<std::string_view>;

TEST(PositionTextTest, SplitBlanksDropsEveryRunOfBlanks) {
  EXPECT_EQ(SplitBlanks(" a  b\tc\r\n"), (Views{"a", "b", "c"}));
  EXPECT_EQ(SplitBlanks("rnbq/8 w 0 1"), (Views{"rnbq/8", "w", "0", "1"}));
  EXPECT_EQ(SplitBlanks(""), Views{});
  EXPECT_EQ(SplitBlanks(" \t\n"), Views{});
}

TEST(PositionTextTest, SplitAtKeepsEmptyParts) {
  EXPECT_EQ(SplitAt("a//b", '/'), (Views{"a", "", "b"}));
  EXPECT_EQ(SplitAt("W:W5:B21", ':'), (Views{"W", "W5", "B21"}));
  EXPECT_EQ(SplitAt("", '/'), Views{""});
  EXPECT_EQ(SplitAt("x/", '/'), (Views{"x", ""}));
}

TEST(PositionTextTest, TrimBlanksRemovesBothEnds) {
  EXPECT_EQ(TrimBlanks(" \tW:W5 \r\n"), "W:W5");
  EXPECT_EQ(TrimBlanks("a b"), "a b");
  EXPECT_EQ(TrimBlanks("  "), "");
}

TEST(PositionTextTest, ParseCounterAcceptsDigitsInRangeOnly) {
  EXPECT_EQ(ParseCounter("0", 0, 9999), 0u);
  EXPECT_EQ(ParseCounter("9999", 0, 9999), 9999u);
  EXPECT_EQ(ParseCounter("007", 0, 9999), 7u);
  EXPECT_EQ(ParseCounter("10000", 0, 9999), std::nullopt);
  EXPECT_EQ(ParseCounter("0", 1, 9999), std::nullopt);  // a move number starts at 1
  EXPECT_EQ(ParseCounter("", 0, 9999), std::nullopt);
  EXPECT_EQ(ParseCounter("-1", 0, 9999), std::nullopt);
  EXPECT_EQ(ParseCounter("+1", 0, 9999), std::nullopt);
  EXPECT_EQ(ParseCounter("1x", 0, 9999), std::nullopt);
  EXPECT_EQ(ParseCounter(" 1", 0, 9999), std::nullopt);
  EXPECT_EQ(ParseCounter("4294967295", 0, 4294967295u), 4294967295u);
  EXPECT_EQ(ParseCounter("99999999999999999999999", 0, 4294967295u), std::nullopt);  // overflow
}

TEST(PositionTextTest, QuoteWrapsInSingleQuotes) {
  EXPECT_EQ(Quote("e4"), "'e4'");
  EXPECT_EQ(Quote(""), "''");
}

}  // namespace
}  // namespace vz
