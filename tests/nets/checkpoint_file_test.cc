// Trainer checkpoint files (nets/checkpoint_file.h): the checksummed frame, the previous good
// checkpoint kept, the fallback to it, and one-line errors naming the file (fault 3 of issue 17).

#include "nets/checkpoint_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/core/error.h"
#include "tests/test_util.h"

namespace vz::nets {
namespace {

namespace fs = std::filesystem;
using vz::testing::ErrorOf;

class CheckpointFileTest : public vz::testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    path_ = (dir_ / "trainer.ckpt").string();
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static void Write(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  }
  // The archive each file holds, by the loader's view.
  std::string Load(std::string* loaded_from = nullptr,
                   std::vector<std::string>* warnings = nullptr) const {
    std::string archive;
    const CheckpointLoad load =
        ReadNewestCheckpoint(path_, [&](const std::string& bytes, const std::string&) {
          if (bytes.rfind("archive", 0) != 0) throw Error("not an archive");  // LibTorch's part
          archive = bytes;
        });
    if (loaded_from != nullptr) *loaded_from = load.path;
    if (warnings != nullptr) *warnings = load.warnings;
    return archive;
  }

  std::string path_;
};

TEST_F(CheckpointFileTest, FrameRoundTripsAndDetectsEveryFault) {
  const std::string archive = "archive bytes \x01\x02";
  const std::string framed = FrameCheckpoint(archive);
  bool legacy = true;
  EXPECT_EQ(UnframeCheckpoint(framed, "f", &legacy), archive);
  EXPECT_FALSE(legacy);

  std::string flipped = framed;
  flipped[framed.size() - 3] ^= 0x40;
  EXPECT_NE(ErrorOf([&] { UnframeCheckpoint(flipped, "the-file", nullptr); }).find("corrupted"),
            std::string::npos);
  const std::string truncated =
      ErrorOf([&] { UnframeCheckpoint(framed.substr(0, framed.size() - 1), "the-file", nullptr); });
  EXPECT_NE(truncated.find("truncated"), std::string::npos) << truncated;
  EXPECT_NE(truncated.find("the-file"), std::string::npos) << truncated;
  EXPECT_NE(ErrorOf([&] { UnframeCheckpoint(framed + "x", "f", nullptr); }).find("unexpected"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { UnframeCheckpoint("", "f", nullptr); }).find("empty"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { UnframeCheckpoint("VZCK", "f", nullptr); }).find("truncated"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { UnframeCheckpoint(std::string(30, 'z'), "f", nullptr); }).find("magic"),
            std::string::npos);

  // A checkpoint of a vzero from before the frame: a bare zip archive, read unverified.
  const std::string zip = std::string("PK\x03\x04", 4) + "rest";
  EXPECT_EQ(UnframeCheckpoint(zip, "old", &legacy), zip);
  EXPECT_TRUE(legacy);
}

TEST_F(CheckpointFileTest, PreviousPaths) {
  EXPECT_EQ(PreviousCheckpointPath("run/checkpoints/trainer.ckpt"),
            "run/checkpoints/trainer.prev.ckpt");
  EXPECT_EQ(PreviousCheckpointPath("/tmp/x.pt"), "/tmp/x.pt.prev");
}

TEST_F(CheckpointFileTest, TheNewestVerifiedFileIsKeptAsPrevious) {
  EXPECT_FALSE(CheckpointExists(path_));
  WriteCheckpointFile(path_, "archive 1");
  EXPECT_TRUE(CheckpointExists(path_));
  EXPECT_FALSE(fs::exists(PreviousCheckpointPath(path_)));
  WriteCheckpointFile(path_, "archive 2");
  EXPECT_EQ(UnframeCheckpoint(Read(PreviousCheckpointPath(path_)), "p", nullptr), "archive 1");
  std::string from;
  EXPECT_EQ(Load(&from), "archive 2");
  EXPECT_EQ(from, path_);

  // A corrupted newest is not rotated into the previous file: "archive 1" stays the fallback.
  std::string bytes = Read(path_);
  bytes[bytes.size() - 2] ^= 1;
  Write(path_, bytes);
  WriteCheckpointFile(path_, "archive 3");
  EXPECT_EQ(UnframeCheckpoint(Read(PreviousCheckpointPath(path_)), "p", nullptr), "archive 1");
  EXPECT_EQ(Load(), "archive 3");
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_)) ++entries;
  EXPECT_EQ(entries, 2);  // no temporary file left
}

TEST_F(CheckpointFileTest, ACorruptedNewestFallsBackToThePreviousWithAWarning) {
  WriteCheckpointFile(path_, "archive 1");
  WriteCheckpointFile(path_, "archive 2");
  std::string bytes = Read(path_);
  for (size_t i = 0; i < 4; ++i) bytes[bytes.size() / 2 + i] ^= 0x5a;  // flipped in the middle
  Write(path_, bytes);
  std::string from;
  std::vector<std::string> warnings;
  EXPECT_EQ(Load(&from, &warnings), "archive 1");
  EXPECT_EQ(from, PreviousCheckpointPath(path_));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("corrupted"), std::string::npos) << warnings[0];

  // The newest missing (a kill between two renames cannot cause it, a user can): the previous.
  fs::remove(path_);
  EXPECT_EQ(Load(&from), "archive 1");
  EXPECT_EQ(from, PreviousCheckpointPath(path_));

  // An archive that verifies but does not load (the loader throws): the previous one, too.
  WriteCheckpointFile(path_, "not loadable");
  EXPECT_EQ(Load(&from), "archive 1");
}

TEST_F(CheckpointFileTest, NoGoodCheckpointLeftIsOneLineNamingTheFile) {
  EXPECT_NE(ErrorOf([&] { Load(); }).find("not found"), std::string::npos);
  WriteCheckpointFile(path_, "archive 1");
  Write(path_, Read(path_).substr(0, 20));  // truncated, and no previous file
  const std::string error = ErrorOf([&] { Load(); });
  EXPECT_NE(error.find(path_), std::string::npos) << error;
  EXPECT_NE(error.find("truncated"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST_F(CheckpointFileTest, AnOldCheckpointWithoutFrameLoadsWithAWarning) {
  Write(path_, std::string("PK\x03\x04", 4) + "archive old");
  std::vector<std::string> warnings;
  std::string archive;
  const CheckpointLoad load = ReadNewestCheckpoint(
      path_, [&](const std::string& bytes, const std::string&) { archive = bytes; });
  EXPECT_EQ(archive.substr(4), "archive old");
  ASSERT_EQ(load.warnings.size(), 1u);
  EXPECT_NE(load.warnings[0].find("no checksum"), std::string::npos) << load.warnings[0];
}

}  // namespace
}  // namespace vz::nets
