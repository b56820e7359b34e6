// The names of a run directory's numbered files and the reading of its config
// (records/run_files.h): step files round-trip and other names are refused, the highest promoted
// generation, a saved config read back or absent, a bad one named.

#include "records/run_files.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "tests/test_util.h"

namespace vz {
namespace {

using vz::testing::ErrorOf;

class RunFilesTest : public vz::testing::TempDirTest {};

TEST(RunFileNames, CandidateFilesRoundTripAndOtherNamesAreRejected) {
  EXPECT_EQ(CandidateFile(1500, "vznet"), "candidate-00001500.vznet");
  EXPECT_EQ(StepOfFile(CandidateFile(1500, "vznet"), "candidate-", "vznet"), 1500);
  EXPECT_EQ(StepOfFile(StepFile("strength-", 7, "json"), "strength-", "json"), 7);
  for (const char* name :
       {"candidate-00001500.json", "candidate-0000150.vznet", "candidate-0000150x.vznet",
        "candidate-00001500xvznet", "xandidate-00001500.vznet", "candidate-00001500.vznet.tmp"}) {
    EXPECT_EQ(StepOfFile(name, "candidate-", "vznet"), -1) << name;
  }
}

TEST_F(RunFilesTest, HighestGenerationIgnoresOtherNames) {
  EXPECT_EQ(HighestGeneration(File("absent")), 0);
  for (const std::string& name : {GenerationFile(2), GenerationFile(11), std::string("best.vznet"),
                                  std::string("best-00x1.vznet"), std::string("best-0099.txt")}) {
    std::ofstream(File(name)) << "x";
  }
  EXPECT_EQ(GenerationFile(11), "best-0011.vznet");
  EXPECT_EQ(HighestGeneration(dir_.string()), 11);
}

TEST_F(RunFilesTest, SavedConfigIsReadBackOrAbsentAndABadOneIsNamed) {
  EXPECT_FALSE(SavedConfig(dir_.string()));
  std::ofstream(File("config.txtpb")) << "variant: \"chad\"\nstop { games: 5 }\n";
  const std::optional<proto::TrainConfig> saved = SavedConfig(dir_.string());
  ASSERT_TRUE(saved);
  EXPECT_EQ(saved->variant(), "chad");
  EXPECT_EQ(saved->stop().games(), 5u);
  std::ofstream(File("config.txtpb")) << "variant: \"chad\"\nstop { gmaes: 5 }\n";
  const std::string error = ErrorOf([&] { SavedConfig(dir_.string()); });
  EXPECT_EQ(error.rfind(File("config.txtpb") + ":2:", 0), 0u) << error;
  EXPECT_NE(error.find("gmaes"), std::string::npos) << error;
}

}  // namespace
}  // namespace vz
