// The lookup of the shipped nets (nets/shipped_nets.h): the VZ_MODELS_DIR override, a missing,
// corrupt or misnamed net (a warning naming the file and the fallback, never a throw), "none",
// an explicit file, the per-game map of serve and analysis, and RequireShippedNet's error.

#include "nets/shipped_nets.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "nets/net_file.h"
#include "nets/variant_nets.h"

namespace vz::nets {
namespace {
namespace fs = std::filesystem;

class ShippedNetsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("vz_shipped_nets_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    if (const char* old = std::getenv(kModelsDirEnv)) old_ = old;
    setenv(kModelsDirEnv, dir_.c_str(), 1);
  }
  void TearDown() override {
    if (old_) {
      setenv(kModelsDirEnv, old_->c_str(), 1);
    } else {
      unsetenv(kModelsDirEnv);
    }
    fs::remove_all(dir_);
  }
  void WriteFresh(const std::string& variant, const std::string& name) {
    WriteNetFile((dir_ / name).string(), FreshNetForVariant(variant, "tiny", 1));
  }

  fs::path dir_;
  std::optional<std::string> old_;
};

TEST_F(ShippedNetsTest, TheOverrideDirectoryIsTheOnlyOneSearched) {
  const std::vector<fs::path> directories = ShippedNetDirectories();
  ASSERT_EQ(directories.size(), 1u);
  EXPECT_EQ(directories[0], dir_);
  setenv(kModelsDirEnv, "", 1);  // empty: as if unset, the install and source trees
  const std::vector<fs::path> usual = ShippedNetDirectories();
  ASSERT_GE(usual.size(), 1u);
  EXPECT_EQ(usual.back().filename(), "models");
}

TEST_F(ShippedNetsTest, FindsTheNetOfTheGameByName) {
  EXPECT_FALSE(FindShippedNet("chad").has_value());
  WriteFresh("chad", "chad.vznet");
  ASSERT_TRUE(FindShippedNet("chad").has_value());
  EXPECT_EQ(*FindShippedNet("chad"), dir_ / "chad.vznet");
  EXPECT_FALSE(FindShippedNet("cuarenta").has_value());
  fs::create_directories(dir_ / "cuarenta.vznet");  // a directory is not a net
  EXPECT_FALSE(FindShippedNet("cuarenta").has_value());
}

TEST_F(ShippedNetsTest, ResolvesNoneAnExplicitFileAndTheDefault) {
  WriteFresh("chad", "chad.vznet");
  for (const char* none : {"none", "<none>"}) {
    const NetChoice choice = ResolveNet(none, "chad");
    EXPECT_TRUE(choice.file.empty()) << none;
    EXPECT_FALSE(choice.warning);
    EXPECT_NE(choice.message.find("rollout"), std::string::npos) << choice.message;
  }
  const NetChoice given = ResolveNet("/some/where.vznet", "chad");
  EXPECT_EQ(given.file, "/some/where.vznet");  // checked when it is loaded, not here
  for (const char* default_net : {"", "default"}) {
    const NetChoice choice = ResolveNet(default_net, "chad");
    EXPECT_EQ(choice.file, (dir_ / "chad.vznet").string()) << default_net;
    EXPECT_FALSE(choice.warning);
    EXPECT_NE(choice.message.find("shipped net"), std::string::npos) << choice.message;
  }
}

TEST_F(ShippedNetsTest, AMissingNetIsAWarningNamingWhereItLookedAndTheFallback) {
  const NetChoice choice = ResolveNet("", "cuarenta");
  EXPECT_TRUE(choice.file.empty());
  EXPECT_TRUE(choice.warning);
  EXPECT_NE(choice.message.find("cuarenta.vznet"), std::string::npos) << choice.message;
  EXPECT_NE(choice.message.find(dir_.string()), std::string::npos) << choice.message;
  EXPECT_NE(choice.message.find("rollout evaluator"), std::string::npos) << choice.message;
  EXPECT_EQ(choice.message.find('\n'), std::string::npos);
  EXPECT_THROW(RequireShippedNet("cuarenta"), Error);
  try {
    RequireShippedNet("cuarenta");
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(dir_.string()), std::string::npos) << error.what();
  }
}

TEST_F(ShippedNetsTest, ACorruptOrMisnamedNetIsAWarningNotAnError) {
  std::ofstream(dir_ / "chaco-rex.vznet") << "not a net";
  WriteFresh("chad", "chad.vznet");
  std::string bytes;
  {
    std::ifstream in(dir_ / "chad.vznet", std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(dir_ / "cuarenta.vznet", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  WriteFresh("chad", "portuguese-draughts.vznet");  // a Chad net under the draughts name
  for (const char* variant : {"chaco-rex", "cuarenta", "portuguese-draughts"}) {
    NetChoice choice;
    EXPECT_NO_THROW(choice = ResolveNet("", variant)) << variant;
    EXPECT_TRUE(choice.file.empty()) << variant;
    EXPECT_TRUE(choice.warning) << variant;
    EXPECT_NE(choice.message.find(std::string(variant) + ".vznet"), std::string::npos)
        << choice.message;
    EXPECT_NE(choice.message.find("rollout evaluator"), std::string::npos) << choice.message;
  }
}

TEST_F(ShippedNetsTest, ServeAndAnalysisGetEveryGamesShippedNetUnlessGivenOrNone) {
  WriteFresh("chad", "chad.vznet");
  WriteFresh("cuarenta", "cuarenta.vznet");
  const fs::path own = dir_ / "own-cuarenta.vznet";
  WriteFresh("cuarenta", own.filename().string());
  std::vector<std::string> messages;
  std::map<std::string, std::string> files = NetFilesWithShipped({}, &messages);
  EXPECT_EQ(files.size(), 2u);
  EXPECT_EQ(files["chad"], (dir_ / "chad.vznet").string());
  EXPECT_EQ(messages.size(), 4u);  // one line per game
  messages.clear();
  files = NetFilesWithShipped({own.string()}, &messages);
  EXPECT_EQ(files["cuarenta"], own.string());
  EXPECT_EQ(files["chad"], (dir_ / "chad.vznet").string());
  messages.clear();
  EXPECT_TRUE(NetFilesWithShipped({"none"}, &messages).empty());
  EXPECT_THROW(NetFilesWithShipped({"none", own.string()}, &messages), Error);
}

}  // namespace
}  // namespace vz::nets
