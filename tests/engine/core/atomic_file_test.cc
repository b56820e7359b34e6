// The one atomic file writer (engine/core/atomic_file.h) and the printable error messages of
// vz::Error (engine/core/error.h): faults 4 and 9 of issue 17.

#include "engine/core/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/chad/game.h"
#include "engine/core/error.h"
#include "tests/test_util.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using vz::testing::ErrorOf;

class AtomicFileTest : public vz::testing::TempDirTest {
 protected:
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  int Entries() const {
    int count = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++count;
    return count;
  }
};

TEST_F(AtomicFileTest, WritesAndReplacesLeavingNoTemporaryFile) {
  WriteFileAtomically(File("a.bin"), std::string("one\0two", 7));
  EXPECT_EQ(Read(File("a.bin")), std::string("one\0two", 7));
  WriteFileAtomically(File("a.bin"), "second");
  EXPECT_EQ(Read(File("a.bin")), "second");
  WriteFileAtomically(File("empty"), "");
  EXPECT_TRUE(fs::exists(File("empty")));
  EXPECT_EQ(Entries(), 2);
}

TEST_F(AtomicFileTest, AMissingDirectoryIsAnErrorNamingThePath) {
  const std::string path = File("absent/x.bin");
  const std::string error = ErrorOf([&] { WriteFileAtomically(path, "x"); });
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(File("absent")));
}

// The one reader: the whole file, and a one-line error naming it for anything that is not a
// readable regular file within the limit. A FIFO with no writer must not block the reader, a
// directory must not read as empty, a device (/dev/zero) must not be read without end.
TEST_F(AtomicFileTest, ReadWholeFileReadsRegularFilesAndRefusesTheRest) {
  WriteFileAtomically(File("a.bin"), std::string("one\0two", 7));
  EXPECT_EQ(ReadWholeFile(File("a.bin"), "net file", 7), std::string("one\0two", 7));
  WriteFileAtomically(File("empty"), "");
  EXPECT_EQ(ReadWholeFile(File("empty"), "net file", 0), "");
  EXPECT_EQ(ErrorOf([&] { ReadWholeFile(File("a.bin"), "net file", 6); }),
            "net file " + File("a.bin") + ": 7 bytes, more than the 6 bytes a net file may hold");
  EXPECT_EQ(ErrorOf([&] { ReadWholeFile(File("absent"), "net file", 100); }),
            "net file " + File("absent") + ": cannot open it (No such file or directory)");
  EXPECT_EQ(ErrorOf([&] { ReadWholeFile(dir_.string(), "checkpoint", 100); }),
            "checkpoint " + dir_.string() + ": is a directory, not a file");
  ASSERT_EQ(::mkfifo(File("fifo").c_str(), 0600), 0);
  EXPECT_EQ(ErrorOf([&] { ReadWholeFile(File("fifo"), "net file", 100); }),
            "net file " + File("fifo") + ": is not a regular file");
  EXPECT_EQ(ErrorOf([&] { ReadWholeFile("/dev/zero", "net file", 100); }),
            "net file /dev/zero: is not a regular file");
}

TEST_F(AtomicFileTest, CreateNeverReplaces) {
  EXPECT_TRUE(CreateFileAtomically(File("once"), "first"));
  EXPECT_FALSE(CreateFileAtomically(File("once"), "second"));
  EXPECT_EQ(Read(File("once")), "first");
  EXPECT_EQ(Entries(), 1);
}

TEST_F(AtomicFileTest, CommitOfAFileWrittenByTheCaller) {
  const std::string temporary = TemporaryPathFor(File("archive.zip"));
  std::ofstream(temporary, std::ios::binary) << "zip";
  CommitTemporaryFile(temporary, File("archive.zip"));
  EXPECT_EQ(Read(File("archive.zip")), "zip");
  EXPECT_FALSE(fs::exists(temporary));
  EXPECT_NE(ErrorOf([&] { CommitTemporaryFile(File("nothing"), File("x")); }).find(File("x")),
            std::string::npos);
}

TEST_F(AtomicFileTest, TemporaryNamesAreUniqueAndParse) {
  const std::string a = TemporaryPathFor(File("n.vznet")), b = TemporaryPathFor(File("n.vznet"));
  EXPECT_NE(a, b);
  int pid = 0;
  ASSERT_TRUE(ParseTemporaryName(fs::path(a).filename().string(), &pid));
  EXPECT_EQ(pid, int(getpid()));
  for (const char* other : {"n.vznet", "n.vznet.tmp.", "n.vznet.tmp.12", "n.vznet.tmp.x.ab",
                            "n.vznet.tmp.12.", "n.vznet.tmp.12.zz", ".tmp.12.ab", "n.tmp-12"}) {
    EXPECT_FALSE(ParseTemporaryName(other, nullptr)) << other;
  }
  EXPECT_TRUE(ParseTemporaryName("chunk-000001.vzr.tmp.77.1f", nullptr));
}

// What a save killed between writing and renaming leaves: its temporary file, removed on open.
TEST_F(AtomicFileTest, StaleTemporaryFilesOfDeadWritersAreRemoved) {
  // A pid that is certainly dead: a child that has exited and been reaped.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  const std::string dead = File("trainer.ckpt.tmp." + std::to_string(child) + ".9a");
  const std::string alive = TemporaryPathFor(File("best.vznet"));  // this process: alive
  std::ofstream(dead) << "half";
  std::ofstream(alive) << "half";
  std::ofstream(File("keep.tmp")) << "not ours";
  EXPECT_EQ(RemoveStaleTemporaryFiles(dir_.string(), /*only_dead_writers=*/true), 1);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(alive));
  EXPECT_EQ(RemoveStaleTemporaryFiles(dir_.string(), /*only_dead_writers=*/false), 1);
  EXPECT_FALSE(fs::exists(alive));
  EXPECT_TRUE(fs::exists(File("keep.tmp")));
  EXPECT_EQ(RemoveStaleTemporaryFiles(File("absent"), false), 0);
}

// Fault 9: bytes outside printable ASCII in user input are escaped in every error message.
TEST(ErrorTest, MessagesAreOnePrintableLine) {
  const Error error("move 'e2\xC3\xA9\n\x01' is not legal");
  EXPECT_STREQ(error.what(), "move 'e2\\xC3\\xA9\\x0A\\x01' is not legal");
  EXPECT_EQ(PrintableText("plain ASCII, ~ and \\ stay"), "plain ASCII, ~ and \\ stay");
  EXPECT_EQ(PrintableText(std::string("\x7f\xff\t", 3)), "\\x7F\\xFF\\x09");
  // A real parser quoting its input: every game's position parser goes through vz::Error.
  const std::string message = ErrorOf([] { chad::ChadGame::ParsePosition("\xC3\xA9t\xE9\n"); });
  EXPECT_NE(message.find("\\xC3\\xA9t\\xE9\\x0A"), std::string::npos) << message;
  for (const char c : message) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << message;
}

}  // namespace
}  // namespace vz
