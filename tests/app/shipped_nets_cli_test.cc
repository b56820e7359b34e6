// The shipped nets end to end (nets/shipped_nets.h, models/): found in an install tree beside the
// binary and in the source tree, used by `vzero uci` when NetFile is not set and named in an info
// string, a missing or corrupt one a one-line warning with the rollout fallback (never a crash),
// `--net none` and NetFile <none>, `vzero search --evaluator net` and the `net:default` player of
// `vzero match`. The tests set VZ_MODELS_DIR themselves (ctest sets it to an empty directory so
// that no other test sees the shipped nets); an empty value means the usual lookup.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli_driver.h"

namespace vz {
namespace {
namespace fs = std::filesystem;

using testing::CliSession;
using testing::Execution;
using testing::InitTinyNet;
using testing::RunVzero;
using testing::VzeroPath;

class ShippedNetsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = testing::VzeroSkipReason("net"); !why.empty()) GTEST_SKIP() << why;
    dir_ = fs::path(::testing::TempDir()) /
           ("vz_shipped_cli_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "models");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The lines of a UCI session that selects `variant`, searches a few nodes and quits, with
  // VZ_MODELS_DIR=`models` and the extra `arguments`.
  std::string UciTranscript(const std::string& models, const std::string& variant,
                            const std::vector<std::string>& arguments = {},
                            const std::string& options = "") {
    setenv("VZ_MODELS_DIR", models.c_str(), 1);
    CliSession session;
    std::vector<std::string> words = {"uci"};
    words.insert(words.end(), arguments.begin(), arguments.end());
    EXPECT_TRUE(session.Start(words, (dir_ / "stderr.txt").string()));
    session.Send("setoption name UCI_Variant value " + variant + "\n" + options +
                 "isready\ngo nodes 8\n");
    const std::string text = session.ReadUntil(
        [](const std::string& t) { return t.find("bestmove") != std::string::npos; });
    session.Send("quit\n");
    session.ReadAll();
    return text;
  }

  fs::path dir_;
};

TEST_F(ShippedNetsCliTest, UciUsesTheShippedNetOfTheVariantAndSaysSo) {
  ASSERT_EQ(InitTinyNet("chad", (dir_ / "models" / "chad.vznet").string()).status, 0);
  const std::string text = UciTranscript((dir_ / "models").string(), "chad");
  EXPECT_NE(text.find("info string NetFile " + (dir_ / "models" / "chad.vznet").string() +
                      " loaded for chad"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bestmove "), std::string::npos) << text;
  // The same engine with --net none, or NetFile <none>, plays rollouts.
  for (const auto& [arguments, options] :
       std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--net", "none"}, ""}, {{}, "setoption name NetFile value <none>\n"}}) {
    const std::string none = UciTranscript((dir_ / "models").string(), "chad", arguments, options);
    EXPECT_NE(none.find("no net (--net none): the rollout evaluator"), std::string::npos) << none;
    EXPECT_EQ(none.find("loaded for chad"), std::string::npos) << none;
    EXPECT_NE(none.find("bestmove "), std::string::npos) << none;
  }
}

TEST_F(ShippedNetsCliTest, AMissingOrCorruptShippedNetIsAWarningAndTheEnginePlaysOn) {
  std::ofstream(dir_ / "models" / "cuarenta.vznet") << "corrupt";
  for (const std::string variant : {"chad", "cuarenta"}) {
    const std::string text = UciTranscript((dir_ / "models").string(), variant);
    EXPECT_NE(text.find("info string warning: "), std::string::npos) << text;
    EXPECT_NE(text.find(variant + ".vznet"), std::string::npos) << text;
    EXPECT_NE(text.find("using the rollout evaluator"), std::string::npos) << text;
    EXPECT_NE(text.find("bestmove "), std::string::npos) << text;
  }
  // An explicit request for the shipped net fails with a one-line error instead.
  const Execution search =
      RunVzero({"search", "--variant", "chad", "--evaluator", "net", "--simulations", "4"},
               {"VZ_MODELS_DIR=" + (dir_ / "models").string()});
  EXPECT_EQ(search.status, 1) << search.output;
  EXPECT_NE(search.output.find("no shipped net for chad"), std::string::npos) << search.output;
}

TEST_F(ShippedNetsCliTest, FoundInAnInstallTreeBesideTheBinary) {
  // bin/vzero (and the LibTorch library it loads from its own directory) with
  // share/vzero/models/chad.vznet, as `cmake --install` lays them out.
  const fs::path bin = dir_ / "install" / "bin";
  const fs::path models = dir_ / "install" / "share" / "vzero" / "models";
  fs::create_directories(bin);
  fs::create_directories(models);
  const fs::path built = fs::path(VzeroPath()).parent_path();
  fs::copy_file(VzeroPath(), bin / "vzero");
  for (const auto& entry : fs::directory_iterator(built)) {
    if (entry.path().filename().string().starts_with("libvzero_nets")) {
      fs::copy_file(entry.path(), bin / entry.path().filename());
    }
  }
  ASSERT_EQ(InitTinyNet("chad", (models / "chad.vznet").string()).status, 0);
  // RunVzero runs VZ_VZERO when it is set: the installed copy, through its own path.
  setenv("VZ_VZERO", (bin / "vzero").c_str(), 1);
  const Execution installed =
      RunVzero({"search", "--variant", "chad", "--evaluator", "net", "--simulations", "4"},
               {"VZ_MODELS_DIR="});
  unsetenv("VZ_VZERO");
  EXPECT_EQ(installed.status, 0) << installed.output;
  EXPECT_NE(installed.output.find("vzero search: net " + (models / "chad.vznet").string()),
            std::string::npos)
      << installed.output;
}

TEST_F(ShippedNetsCliTest, TheSourceTreesModelsAreTheLastPlace) {
  // This build's binary, no override: the install location beside build/ does not exist, so the
  // source tree's models/ (where the shipped nets are committed) is used.
  const fs::path source_models = fs::path(VZ_TEST_DATA_DIR).parent_path().parent_path() / "models";
  if (!fs::exists(source_models / "chad.vznet")) {
    GTEST_SKIP() << "no models/chad.vznet in this checkout";
  }
  const Execution search =
      RunVzero({"search", "--variant", "chad", "--evaluator", "net", "--simulations", "4"},
               {"VZ_MODELS_DIR="});
  EXPECT_EQ(search.status, 0) << search.output;
  EXPECT_NE(search.output.find("vzero search: net " + (source_models / "chad.vznet").string()),
            std::string::npos)
      << search.output;
}

TEST_F(ShippedNetsCliTest, TheNetDefaultPlayerOfAMatch) {
  ASSERT_EQ(InitTinyNet("cuarenta", (dir_ / "models" / "cuarenta.vznet").string()).status, 0);
  const std::vector<std::string> environment = {"VZ_MODELS_DIR=" + (dir_ / "models").string()};
  const Execution match =
      RunVzero({"match", "--variant", "cuarenta", "--player1", "net:default:2", "--player2",
                "alphabeta:movetime=5", "--games", "2", "--max-plies", "20"},
               environment);
  EXPECT_EQ(match.status, 0) << match.output;
  EXPECT_NE(match.output.find("games 2"), std::string::npos) << match.output;
  const Execution missing =
      RunVzero({"match", "--variant", "chad", "--player1", "net:default:2", "--player2", "random",
                "--games", "2"},
               environment);
  EXPECT_EQ(missing.status, 1) << missing.output;
  EXPECT_NE(missing.output.find("no shipped net for chad"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace vz
