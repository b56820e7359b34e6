// The LibTorch networks library (nets/torch_backend.h) as the vzero binary uses it: a net command
// loads libvzero_nets.so from the binary's directory and a net searches through the binary's own
// evaluator slot; commands without a network run where the library is missing, and a command that
// needs it then fails with one line naming the file. Runs the vzero binary of the same build
// (VZ_VZERO names another one); skips without it or in a build without LibTorch.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tests/cli_driver.h"
#include "tests/test_util.h"

namespace vz {
namespace {

namespace fs = std::filesystem;
using testing::Execution;
using testing::RunVzero;
using testing::VzeroPath;

class NetsLibraryCliTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    if (const std::string why = testing::VzeroSkipReason("net command"); !why.empty()) {
      GTEST_SKIP() << why;
    }
    TempDirTest::SetUp();
  }
};

TEST_F(NetsLibraryCliTest, ANetSearchesThroughTheBinarysEvaluatorSlot) {
  const std::string net = File("cuarenta.vznet");
  const Execution init = testing::InitTinyNet("cuarenta", net);
  ASSERT_EQ(init.status, 0) << init.output;
  const Execution search = RunVzero({"search", "--variant", "cuarenta", "--evaluator", "net",
                                     "--net", net, "--simulations", "16"},
                                    {"VZ_TORCH_THREADS=1"});
  EXPECT_EQ(search.status, 0) << search.output;
  EXPECT_NE(search.output.find("best move: "), std::string::npos) << search.output;
}

TEST_F(NetsLibraryCliTest, WithoutTheLibraryOnlyTheNetCommandsFail) {
  // A copy of the binary in a directory without libvzero_nets.so.
  const fs::path vzero = dir_ / "vzero";
  fs::copy_file(VzeroPath(), vzero);
  ASSERT_EQ(setenv("VZ_VZERO", vzero.c_str(), 1), 0);
  const Execution perft = RunVzero({"perft", "--variant", "chad", "--depth", "1"});
  const Execution version = RunVzero({"version"});
  const Execution init = testing::InitTinyNet("chad", File("chad.vznet"));
  unsetenv("VZ_VZERO");
  EXPECT_EQ(perft.status, 0) << perft.output;
  EXPECT_EQ(version.status, 0) << version.output;
  EXPECT_EQ(init.status, 1) << init.output;
  const std::string library = (dir_ / "libvzero_nets.so").string();
  EXPECT_EQ(init.output.rfind("vzero: cannot load the LibTorch networks library", 0), 0u)
      << init.output;
  EXPECT_NE(init.output.find(library + ": "), std::string::npos) << init.output;
  EXPECT_EQ(init.output.find('\n'), init.output.size() - 1) << "one line: " << init.output;
  EXPECT_FALSE(fs::exists(File("chad.vznet")));
}

}  // namespace
}  // namespace vz
