// The line reading of the command engines (serve/line_io.h): ReadLine reads as std::getline does
// but keeps at most max_bytes + 1 bytes of a line, so that an endless line costs bounded memory
// and the next line is read intact; LineReader queues the same lines.

#include "serve/line_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <sstream>
#include <streambuf>
#include <string>
#include <thread>
#include <vector>

namespace vz {
namespace {

// Every line ReadLine finds in `text` with `max_bytes`, as std::getline would give them.
std::vector<std::string> ReadAll(const std::string& text, size_t max_bytes) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; ReadLine(in, line, max_bytes);) lines.push_back(line);
  EXPECT_TRUE(in.eof());
  return lines;
}

TEST(ReadLineTest, ReadsAsGetlineDoes) {
  for (const std::string text : {"", "\n", "a", "a\n", "a\nb", "a\n\nb\n", "uci\r\nisready\r\n",
                                 " go  depth 3 \n\n\nquit"}) {
    SCOPED_TRACE(text);
    std::istringstream in(text);
    std::vector<std::string> expected;
    for (std::string line; std::getline(in, line);) expected.push_back(line);
    EXPECT_EQ(ReadAll(text, 100), expected);
  }
}

TEST(ReadLineTest, ALongLineIsCutToOneByteOverTheLimitAndTheNextLineIsIntact) {
  const std::string long_line(10000, 'x');
  const std::vector<std::string> lines = ReadAll("ab\n" + long_line + "\nisready\n12345", 7);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "ab");
  EXPECT_EQ(lines[1], "xxxxxxxx");  // max_bytes + 1: the caller sees that it was too long
  EXPECT_EQ(lines[2], "isready");   // exactly max_bytes: whole
  EXPECT_EQ(lines[3], "12345");
}

TEST(ReadLineTest, TheEndOfTheInputGivesFalseAndAnEmptyLine) {
  std::istringstream in("last");
  std::string line = "stale";
  ASSERT_TRUE(ReadLine(in, line, 100));
  EXPECT_EQ(line, "last");
  EXPECT_FALSE(ReadLine(in, line, 100));
  EXPECT_EQ(line, "");
  EXPECT_FALSE(ReadLine(in, line, 100));  // and again
}

// An input of `lines` lines of `length` 'z's each, made as it is read (never held whole), that
// counts the bytes handed out.
class GeneratedLines : public std::streambuf {
 public:
  GeneratedLines(int64_t lines, size_t length) : left_(lines), line_(length, 'z') {
    line_.push_back('\n');
  }
  int64_t handed_out() const { return handed_out_.load(); }

 protected:
  int_type underflow() override {
    if (left_ == 0) return traits_type::eof();
    --left_;
    handed_out_ += int64_t(line_.size());
    setg(line_.data(), line_.data(), line_.data() + line_.size());
    return traits_type::to_int_type(line_[0]);
  }

 private:
  int64_t left_;
  std::string line_;
  std::atomic<int64_t> handed_out_{0};
};

// A writer faster than the owner: the reader stops reading once kMaxQueuedBytes wait, and every
// line still arrives, in order, when the owner takes them.
TEST(LineReaderTest, StopsReadingWhileTheQueueIsFull) {
  constexpr int64_t kLines = 64;
  GeneratedLines source(kLines, kMaxLineBytes / 2);
  std::istream in(&source);
  LineReader reader(in);
  // Wait until the reader stands still (or the whole input was read, which fails below).
  int64_t seen = -1;
  for (int i = 0; i < 600 && source.handed_out() != seen; ++i) {
    seen = source.handed_out();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_LE(source.handed_out(), int64_t(LineReader::kMaxQueuedBytes + 2 * kMaxLineBytes));
  int64_t taken = 0;
  std::vector<std::string> lines;
  for (bool ended = false; !ended;) {
    ended = reader.Take(lines, /*wait=*/true);
    for (const std::string& line : lines) EXPECT_EQ(line.size(), kMaxLineBytes / 2);
    taken += int64_t(lines.size());
  }
  EXPECT_EQ(taken, kLines);
}

TEST(LineReaderTest, QueuesLinesCutAsReadLineCutsThem) {
  std::istringstream in("first\n" + std::string(kMaxLineBytes + 5000, 'y') + "\nlast\n");
  LineReader reader(in);
  std::vector<std::string> all;
  std::vector<std::string> lines;
  while (!reader.Take(lines, /*wait=*/true)) all.insert(all.end(), lines.begin(), lines.end());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0], "first");
  EXPECT_EQ(all[1].size(), kMaxLineBytes + 1);
  EXPECT_EQ(all[2], "last");
}

TEST(OverlongLineErrorTest, NamesTheLimit) {
  EXPECT_NE(OverlongLineError().find(std::to_string(kMaxLineBytes)), std::string::npos);
}

}  // namespace
}  // namespace vz
