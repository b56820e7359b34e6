// Net files: round trip, and every kind of bad file rejected with a message saying which
// (nets/net_file.h, nets/net_runner.h).

#include "nets/net_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "engine/chad/encoding.h"
#include "engine/draughts/encoding.h"
#include "nets/fresh_net.h"
#include "nets/net_runner.h"
#include "nets/variant_nets.h"
#include "tests/test_util.h"

namespace vz::nets {
namespace {

// One CPU thread: the tests run next to others on a shared machine.
const bool kSingleThread = (SetCpuThreads(1), true);

using Draughts = draughts::DraughtsGame;

NetFile TinyDraughtsNet() { return FreshNetForGame<Draughts>("tiny", 7); }

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("vz_net_file_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// Runs `f` and returns the vz::Error message it throws ("" if none).
using vz::testing::ErrorOf;

TEST(NetFileTest, RoundTripKeepsEverything) {
  NetFile net = TinyDraughtsNet();
  net.provenance.training_steps = 123;
  net.provenance.games = 45;
  net.provenance.parent = "parent.vznet";
  net.provenance.source_revision = "abc1234";
  net.provenance.note = "test";
  const std::string path = TempPath("roundtrip.vznet");
  WriteNetFile(path, net);
  const NetFile back = ReadNetFile(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.game, "portuguese-draughts");
  EXPECT_EQ(back.input_encoding, InputEncoding<Draughts>::kEncodingName);
  EXPECT_EQ(back.input_version, InputEncoding<Draughts>::kVersion);
  EXPECT_EQ(back.action_encoding, InputEncoding<Draughts>::kActionName);
  EXPECT_EQ(back.architecture, net.architecture);
  EXPECT_EQ(back.provenance.training_steps, 123u);
  EXPECT_EQ(back.provenance.games, 45u);
  EXPECT_EQ(back.provenance.parent, "parent.vznet");
  EXPECT_EQ(back.provenance.created, net.provenance.created);
  EXPECT_EQ(back.provenance.note, "test");
  ASSERT_EQ(back.tensors.size(), net.tensors.size());
  for (size_t i = 0; i < net.tensors.size(); ++i) {
    EXPECT_EQ(back.tensors[i].name, net.tensors[i].name);
    EXPECT_EQ(back.tensors[i].shape, net.tensors[i].shape);
    EXPECT_EQ(back.tensors[i].data, net.tensors[i].data);
  }
  EXPECT_GT(back.ParameterCount(), 10000);
  EXPECT_NO_THROW(CheckNetForItsGame(back, path));
  EXPECT_NE(back.Find("input.conv.weight"), nullptr);
}

TEST(NetFileTest, TruncatedFilesAreRejected) {
  const std::string bytes = SerializeNetFile(TinyDraughtsNet());
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(bytes.substr(0, 10), "t.vznet"); }),
            "net file t.vznet: truncated: 10 bytes, the header alone has 24");
  const std::string message =
      ErrorOf([&] { ParseNetFile(bytes.substr(0, bytes.size() - 100), "t.vznet"); });
  EXPECT_NE(message.find("net file t.vznet: truncated: the header announces"), std::string::npos)
      << message;
  EXPECT_NE(ErrorOf([&] { ParseNetFile(bytes + "xx", "t.vznet"); }).find("2 unexpected bytes"),
            std::string::npos);
  // Through the file system too.
  const std::string path = TempPath("truncated.vznet");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size() / 2));
  }
  EXPECT_NE(ErrorOf([&] { ReadNetFile(path); }).find("truncated"), std::string::npos);
  std::filesystem::remove(path);
  EXPECT_EQ(ErrorOf([&] { ReadNetFile(path); }),
            "net file " + path + ": cannot open it (No such file or directory)");
  // A directory is named as one, not read as an empty or unreadable file.
  EXPECT_EQ(ErrorOf([&] { ReadNetFile(std::filesystem::path(path).parent_path().string()); }),
            "net file " + std::filesystem::path(path).parent_path().string() +
                ": is a directory, not a file");
}

TEST(NetFileTest, CorruptedFilesAreRejected) {
  std::string bytes = SerializeNetFile(TinyDraughtsNet());
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x40;
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(flipped, "c.vznet"); }),
            "net file c.vznet: corrupted: the payload checksum does not match");
  std::string magic = bytes;
  magic[0] = 'X';
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(magic, "c.vznet"); }),
            "net file c.vznet: not a vzero net file (bad magic)");
  std::string text = "this is not a net file at all, just some text that is long enough";
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(text, "c.vznet"); }),
            "net file c.vznet: not a vzero net file (bad magic)");
}

TEST(NetFileTest, BadTensorsAndVersionsAreRejected) {
  NetFile net = TinyDraughtsNet();
  net.tensors[0].data.pop_back();
  EXPECT_NE(ErrorOf([&] { ParseNetFile(SerializeNetFile(net), "b.vznet"); })
                .find("tensor 'input.conv.weight' has 4604 bytes of data, its shape [16, 8, 3, 3] "
                      "needs 4608"),
            std::string::npos)
      << ErrorOf([&] { ParseNetFile(SerializeNetFile(net), "b.vznet"); });
  net = TinyDraughtsNet();
  net.tensors.push_back(net.tensors[0]);
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(SerializeNetFile(net), "b.vznet"); }),
            "net file b.vznet: tensor 'input.conv.weight' appears twice");
  // Shapes whose element count overflows 64 bits (2^32 x 2^32 x 4 bytes wraps to 0, which the
  // empty data would match) or would need more than a net file can hold: refused by name.
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{int64_t{1} << 32, int64_t{1} << 32},
                                         {int64_t{1} << 31, int64_t{1} << 31},
                                         {int64_t{1} << 20, int64_t{1} << 20}}) {
    net = TinyDraughtsNet();
    net.tensors.back().shape = shape;
    net.tensors.back().data.clear();
    const std::string error = ErrorOf([&] { ParseNetFile(SerializeNetFile(net), "b.vznet"); });
    EXPECT_EQ(error.rfind("net file b.vznet: tensor '" + net.tensors.back().name + "' has", 0), 0u)
        << error;
  }
  net = TinyDraughtsNet();
  net.architecture.channels = 0;
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(SerializeNetFile(net), "b.vznet"); }),
            "net file b.vznet: architecture field channels = 0 is out of range");
}

TEST(NetFileTest, NetsForAnotherGameOrEncodingAreRejected) {
  const NetFile chad = FreshNetForGame<chad::ChadGame>("tiny", 1);
  EXPECT_EQ(ErrorOf([&] { CheckNetForGame<Draughts>(chad, "chad.vznet"); }),
            "net file chad.vznet: made for game 'chad', not 'portuguese-draughts'");
  NetFile net = TinyDraughtsNet();
  net.input_version = 99;
  EXPECT_EQ(ErrorOf([&] { CheckNetForGame<Draughts>(net, "v.vznet"); }),
            "net file v.vznet: input encoding 'portuguese-draughts/planes' version 99, this vzero "
            "uses 'portuguese-draughts/planes' version 1");
  EXPECT_NE(ErrorOf([&] { CheckNetForItsGame(net, "v.vznet"); }).find("version 99"),
            std::string::npos);
  net = TinyDraughtsNet();
  net.action_encoding = "portuguese-draughts/other";
  EXPECT_NE(ErrorOf([&] {
              CheckNetForGame<Draughts>(net, "v.vznet");
            }).find("action encoding 'portuguese-draughts/other' version 1"),
            std::string::npos);
  net = TinyDraughtsNet();
  net.game = "go";
  EXPECT_NE(ErrorOf([&] { CheckNetForItsGame(net, "v.vznet"); }).find("unknown variant 'go'"),
            std::string::npos);
}

TEST(NetFileTest, MissingMisShapedAndUnexpectedTensorsAreRejectedOnLoad) {
  NetFile net = TinyDraughtsNet();
  net.tensors.erase(net.tensors.begin() + 1);  // input.bn.weight
  EXPECT_EQ(ErrorOf([&] { NetRunner runner(net, "m.vznet", "cpu"); }),
            "net file m.vznet: missing tensor 'input.bn.weight' (shape [16])");
  net = TinyDraughtsNet();
  net.tensors[0].shape = {16, 8, 9};
  EXPECT_EQ(ErrorOf([&] { NetRunner runner(net, "m.vznet", "cpu"); }),
            "net file m.vznet: tensor 'input.conv.weight' has shape [16, 8, 9], the architecture "
            "needs [16, 8, 3, 3]");
  net = TinyDraughtsNet();
  net.tensors.push_back({"extra.weight", {2}, {1.0f, 2.0f}});
  EXPECT_EQ(ErrorOf([&] { NetRunner runner(net, "m.vznet", "cpu"); }),
            "net file m.vznet: unexpected tensor 'extra.weight' (shape [2]) that the architecture "
            "does not have");
  net = TinyDraughtsNet();
  EXPECT_EQ(ErrorOf([&] { NetRunner runner(net, "m.vznet", "tpu"); }),
            "device 'tpu': expected cpu, cuda or cuda:N");
  EXPECT_EQ(ErrorOf([&] { NetRunner runner(net, "m.vznet", "cpu", "fp8"); }),
            "precision 'fp8': expected auto, fp32, fp16 or bf16");
}

TEST(NetFileTest, PresetsAreNamed) {
  EXPECT_EQ(
      ErrorOf([&] { PresetArchitectureFor<Draughts>("huge"); }),
      "net preset 'huge': unknown tower 'huge' (a preset is tiny, small, medium, large or "
      "bNcM, then any of -se, -fc, -vpool, -gpool, -mat, -own; e.g. tiny, small, medium, large, "
      "tiny-fc, small-fc, medium-fc, large-fc, b6c32-gpool-vpool)");
  EXPECT_EQ(ErrorOf([&] { FreshNetForVariant("go", "tiny", 1); }),
            "unknown variant 'go' (known: chaco-rex, chad, cuarenta, portuguese-draughts)");
}

// Folding the batch norms into the convolutions (NetRunner's default) must give the outputs of
// the unfolded net, for batch-norm statistics far from the fresh net's identity ones.
TEST(NetFileTest, FoldedBatchNormMatchesTheUnfoldedNet) {
  NetFile net = FreshNetForGame<Draughts>("small", 3);
  std::mt19937 random(11);
  std::uniform_real_distribution<float> uniform(0.5f, 2.0f);
  int changed = 0;
  for (NetTensor& tensor : net.tensors) {
    const bool bn = tensor.name.find(".bn.") != std::string::npos;
    if (!bn || tensor.name.ends_with("num_batches_tracked")) continue;
    for (float& x : tensor.data)
      x = tensor.name.ends_with("running_mean") ? uniform(random) - 1.25f : uniform(random);
    ++changed;
  }
  ASSERT_GT(changed, 8);
  constexpr int kBatch = 5;
  const int size = InputEncoding<Draughts>::kSize;
  std::vector<float> planes(size_t(kBatch * size));
  for (float& x : planes) x = float(random() % 2);
  const int actions = Draughts::kNumActions;
  std::vector<float> policy_folded(size_t(kBatch * actions)), policy_plain(policy_folded.size());
  std::vector<float> wdl_folded(kBatch * 3), wdl_plain(kBatch * 3);
  NetRunner folded(net, "folded", "cpu", "fp32");
  NetRunner plain(net, "plain", "cpu", "fp32", {.fold_batch_norm = false});
  folded.RunAll(planes.data(), kBatch, policy_folded.data(), wdl_folded.data());
  plain.RunAll(planes.data(), kBatch, policy_plain.data(), wdl_plain.data());
  float spread = 0.0f;
  for (size_t i = 0; i < policy_plain.size(); ++i) {
    EXPECT_NEAR(policy_folded[i], policy_plain[i], 1e-3f * (1.0f + std::abs(policy_plain[i])));
    spread = std::max(spread, std::abs(policy_plain[i] - policy_plain[0]));
  }
  for (size_t i = 0; i < wdl_plain.size(); ++i) EXPECT_NEAR(wdl_folded[i], wdl_plain[i], 1e-4f);
  EXPECT_GT(spread, 1e-3f);  // the outputs are not all alike (the comparison means something)
}

}  // namespace
}  // namespace vz::nets
