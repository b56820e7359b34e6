// Global pooling (nets/net_architecture.h, nets/model.h; KataGo, Wu 2019): the preset grammar,
// the board cells the pooling averages over, and a pooled net's WDL checked against a plain C++
// evaluation of its own tensors; net files keep the pooling (format version 3).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/encodings.h"
#include "nets/fresh_net.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"
#include "nets/trainer.h"
#include "proto/net.pb.h"
#include "tests/nets/reference_net.h"
#include "tests/test_util.h"

namespace vz::nets {
namespace {

const bool kSingleThread = (SetCpuThreads(1), true);

using ChacoRex = chaco_rex::ChacoRexGame;
using vz::testing::ErrorOf;
using vz::testing::FrameNetMessage;
using vz::testing::ReferenceConvBn;
using vz::testing::ShiftBatchNorms;
using vz::testing::TensorOf;

TEST(PoolingTest, PresetNamesAreATowerAndOptions) {
  const NetArchitecture a = PresetArchitectureFor<ChacoRex>("b6c32-gpool-vpool");
  EXPECT_EQ(a.blocks, 6);
  EXPECT_EQ(a.channels, 32);
  EXPECT_FALSE(a.squeeze_excitation);
  EXPECT_EQ(a.policy_head, PolicyHead::kConv);
  EXPECT_EQ(a.value_head, ValueHead::kPool);
  EXPECT_EQ(a.value_channels, 32);
  EXPECT_EQ(a.global_pooling_channels, 8);
  EXPECT_EQ(a.global_pooling_every, 3);
  EXPECT_EQ(DescribeArchitecture(a),
            "6x32 gpool 8/3, policy conv 32/321, value pool 32/64, input 15x9x19, 7285 actions");
  // Options in any order; the named towers keep their sizes.
  const NetArchitecture tiny = PresetArchitectureFor<ChacoRex>("tiny-vpool-fc");
  EXPECT_EQ(tiny.blocks, 1);
  EXPECT_EQ(tiny.channels, 16);
  EXPECT_EQ(tiny.policy_head, PolicyHead::kFc);
  EXPECT_EQ(tiny.value_head, ValueHead::kPool);
  EXPECT_EQ(tiny.global_pooling_channels, 0);
  EXPECT_EQ(PresetArchitectureFor<ChacoRex>("tiny-gpool").global_pooling_every, 1);
  EXPECT_EQ(PresetArchitectureFor<ChacoRex>("b4c16-se-gpool").global_pooling_every, 2);
  EXPECT_TRUE(PresetArchitectureFor<ChacoRex>("b4c16-se").squeeze_excitation);
  // The named presets are what they were.
  EXPECT_EQ(PresetArchitectureFor<ChacoRex>("small").value_head, ValueHead::kFc);
  EXPECT_EQ(PresetArchitectureFor<ChacoRex>("small").global_pooling_channels, 0);

  const std::string grammar =
      " (a preset is tiny, small, medium, large or bNcM, then any of -se, -fc, -vpool, -gpool, "
      "-mat, -own; "
      "e.g. tiny, small, medium, large, tiny-fc, small-fc, medium-fc, large-fc, "
      "b6c32-gpool-vpool)";
  EXPECT_EQ(ErrorOf([] { CheckPresetName("huge"); }),
            "net preset 'huge': unknown tower 'huge'" + grammar);
  EXPECT_EQ(ErrorOf([] { CheckPresetName("b0c32"); }),
            "net preset 'b0c32': tower 'b0c32' outside b1..64 and c8..1024" + grammar);
  EXPECT_EQ(ErrorOf([] { CheckPresetName("b6c"); }),
            "net preset 'b6c': unknown tower 'b6c'" + grammar);
  EXPECT_EQ(ErrorOf([] { CheckPresetName("tiny-wide"); }),
            "net preset 'tiny-wide': unknown option 'wide'" + grammar);
  EXPECT_EQ(ErrorOf([] { CheckPresetName("small-se"); }),
            "net preset 'small-se': option 'se' given twice" + grammar);
  EXPECT_EQ(ErrorOf([] { CheckPresetName("tiny-"); }),
            "net preset 'tiny-': unknown option ''" + grammar);
  EXPECT_EQ(ErrorOf([] { CheckPresetName("b6c32-gpool-vpool"); }), "");
}

// The cells of each game's board: Chaco Rex's 85 hexagons (its encoding marks them in a plane of
// their own), Cuarenta's 40 light squares, draughts' 32 dark squares, all 144 of Chad.
TEST(PoolingTest, BoardCellsAreTheGamesOwnCells) {
  const auto count = [](const std::vector<float>& mask) {
    return std::count(mask.begin(), mask.end(), 1.0f);
  };
  using E = InputEncoding<ChacoRex>;
  const std::vector<float> mask = BoardCellMask(PresetArchitectureFor<ChacoRex>("tiny"));
  ASSERT_EQ(mask.size(), size_t(E::kHeight * E::kWidth));
  EXPECT_EQ(count(mask), 85);
  std::vector<float> planes(E::kSize);
  E::Encode(ChacoRex::InitialPosition(), 1, planes.data());
  for (int cell = 0; cell < E::kHeight * E::kWidth; ++cell) {
    EXPECT_EQ(mask[size_t(cell)], planes[size_t(E::kRealCells * E::kHeight * E::kWidth + cell)])
        << "cell " << cell;
  }
  EXPECT_EQ(count(BoardCellMask(PresetArchitectureFor<cuarenta::CuarentaGame>("tiny"))), 40);
  EXPECT_EQ(count(BoardCellMask(PresetArchitectureFor<draughts::DraughtsGame>("tiny"))), 32);
  EXPECT_EQ(count(BoardCellMask(PresetArchitectureFor<chad::ChadGame>("tiny"))), 144);
  // An fc policy head has no layout: every grid cell.
  EXPECT_EQ(count(BoardCellMask(PresetArchitectureFor<ChacoRex>("tiny-fc"))), 9 * 19);
}

using Planes = std::vector<double>;  // [channels][height][width]

// Mean then maximum of each channel of x over the cells `cells` (which holds >= 0 values).
std::vector<double> Pool(const Planes& x, int channels, int area, const std::vector<int>& cells) {
  std::vector<double> pooled(size_t(2 * channels));
  for (int c = 0; c < channels; ++c) {
    double sum = 0, most = 0;
    for (int cell : cells) {
      sum += x[size_t(c * area + cell)];
      most = std::max(most, x[size_t(c * area + cell)]);
    }
    pooled[size_t(c)] = sum / double(cells.size());
    pooled[size_t(channels + c)] = most;
  }
  return pooled;
}

std::vector<double> Linear(const NetFile& net, const std::string& name,
                           const std::vector<double>& x) {
  const NetTensor& weight = TensorOf(net, name + ".weight");
  const auto& bias = TensorOf(net, name + ".bias").data;
  const int out = int(weight.shape[0]), in = int(weight.shape[1]);
  std::vector<double> y(static_cast<size_t>(out));
  for (int o = 0; o < out; ++o) {
    double sum = bias[size_t(o)];
    for (int i = 0; i < in; ++i) sum += double(weight.data[size_t(o * in + i)]) * x[size_t(i)];
    y[size_t(o)] = sum;
  }
  return y;
}

// The WDL probabilities of a net of one global pooling block and the pooled value head, by hand.
std::vector<double> ReferenceWdl(const NetFile& net, const std::vector<float>& input) {
  const NetArchitecture& a = net.architecture;
  const int area = a.height * a.width;
  std::vector<int> cells;
  const std::vector<float> mask = BoardCellMask(a);
  for (int cell = 0; cell < area; ++cell) {
    if (mask[size_t(cell)] == 1.0f) cells.push_back(cell);
  }
  const Planes x =
      ReferenceConvBn(net, "input", Planes(input.begin(), input.end()), a.height, a.width,
                      /*relu=*/true);
  Planes y = ReferenceConvBn(net, "tower.0.conv1", x, a.height, a.width, /*relu=*/false);
  const Planes pooled_planes =
      ReferenceConvBn(net, "tower.0.pool", x, a.height, a.width, /*relu=*/true);
  const std::vector<double> bias =
      Linear(net, "tower.0.pool_fc", Pool(pooled_planes, a.global_pooling_channels, area, cells));
  for (int c = 0; c < a.channels; ++c) {
    for (int cell = 0; cell < area; ++cell) {
      double& v = y[size_t(c * area + cell)];
      v = std::max(0.0, v + bias[size_t(c)]);
    }
  }
  const Planes z = ReferenceConvBn(net, "tower.0.conv2", y, a.height, a.width, /*relu=*/false);
  Planes trunk(x.size());
  for (size_t i = 0; i < x.size(); ++i) trunk[i] = std::max(0.0, x[i] + z[i]);
  const Planes value = ReferenceConvBn(net, "value", trunk, a.height, a.width, /*relu=*/true);
  std::vector<double> hidden = Linear(net, "value_fc1", Pool(value, a.value_channels, area, cells));
  for (double& h : hidden) h = std::max(0.0, h);
  const std::vector<double> logits = Linear(net, "value_fc2", hidden);
  const double top = *std::max_element(logits.begin(), logits.end());
  double total = 0;
  std::vector<double> wdl(3);
  for (int i = 0; i < 3; ++i) total += wdl[size_t(i)] = std::exp(logits[size_t(i)] - top);
  for (double& p : wdl) p /= total;
  return wdl;
}

// A Chaco Rex b1c8-gpool-vpool net with its batch norms moved off the identity, so that the
// padding cells of the 9x19 grid carry values the pooling must leave out.
NetFile PooledNet(uint64_t seed) {
  NetFile net = FreshNetForGame<ChacoRex>("b1c8-gpool-vpool", seed);
  ShiftBatchNorms(net, seed);
  return net;
}

TEST(PoolingTest, PooledNetIsItsTensorsEvaluatedByHand) {
  using E = InputEncoding<ChacoRex>;
  const NetFile net = PooledNet(7);
  ASSERT_NE(net.Find("tower.0.pool.conv.weight"), nullptr);
  ASSERT_NE(net.Find("tower.0.pool_fc.weight"), nullptr);
  EXPECT_EQ(TensorOf(net, "value_fc1.weight").shape,
            (std::vector<int64_t>{net.architecture.value_hidden, 2 * 8}));
  std::vector<ChacoRex::Position> positions;
  vz::testing::ForRandomPositions<ChacoRex>(
      1, 6, 3,
      [&](const ChacoRex::Position& p, const ChacoRex::MoveList&) { positions.push_back(p); });
  const int batch = int(positions.size());
  ASSERT_EQ(batch, 6);
  std::vector<float> input(size_t(batch * E::kSize));
  for (int i = 0; i < batch; ++i) {
    E::Encode(positions[size_t(i)], 1, &input[size_t(i * E::kSize)]);
  }
  for (const bool fold : {false, true}) {
    NetRunner runner(net, "pooled.vznet", "cpu", "fp32", {.fold_batch_norm = fold});
    std::vector<float> policy(size_t(batch * E::kNumActions)), wdl(size_t(batch * 3));
    runner.RunAll(input.data(), batch, policy.data(), wdl.data());
    for (int i = 0; i < batch; ++i) {
      const std::vector<double> expected = ReferenceWdl(
          net,
          std::vector<float>(input.begin() + i * E::kSize, input.begin() + (i + 1) * E::kSize));
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(wdl[size_t(i * 3 + k)], expected[size_t(k)], 1e-4)
            << "position " << i << " outcome " << k << " fold " << fold;
      }
    }
  }
}

TEST(PoolingTest, NetFilesKeepThePoolingAsFormatVersion3) {
  const NetFile net = PooledNet(3);
  const std::string bytes = SerializeNetFile(net);
  const NetFile back = ParseNetFile(bytes, "p.vznet");
  EXPECT_EQ(back.format_version, 3);
  EXPECT_EQ(back.architecture, net.architecture);
  EXPECT_EQ(ErrorOf([&] { CheckNetForGame<ChacoRex>(back, "p.vznet"); }), "");
  // Nets without pooling keep the version they had.
  EXPECT_EQ(
      ParseNetFile(SerializeNetFile(FreshNetForGame<ChacoRex>("tiny", 1)), "t").format_version, 2);
  proto::Net message;
  ASSERT_TRUE(message.ParseFromString(bytes.substr(24)));
  EXPECT_EQ(message.architecture().value_head(), "pool");
  proto::Net old = message;
  old.set_format_version(2);
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(old), "p.vznet"); }),
            "net file p.vznet: pooling in a format version 2 file");
  proto::Net bad = message;
  bad.mutable_architecture()->set_value_head("attention");
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(bad), "p.vznet"); }),
            "net file p.vznet: unknown value head 'attention' (known: fc, pool)");
  bad = message;
  bad.mutable_architecture()->set_global_pooling_every(2);
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(bad), "p.vznet"); }),
            "net file p.vznet: architecture field global_pooling_every = 2 is out of range");
  bad = message;
  bad.mutable_architecture()->set_global_pooling_channels(9);
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(bad), "p.vznet"); }),
            "net file p.vznet: architecture field global_pooling_channels = 9 is out of range");
}

// The material head (option -mat): one output per piece type of the game, after the pooled value
// features; it needs the pooled value head and makes the net file format version 4.
TEST(PoolingTest, TheMaterialHeadHasOneOutputPerPieceType) {
  const NetArchitecture a = PresetArchitectureFor<ChacoRex>("tiny-gpool-vpool-mat");
  EXPECT_EQ(a.material_outputs, 5);  // pawn, knight, bishop, rook, queen
  EXPECT_EQ(PresetArchitectureFor<draughts::DraughtsGame>("tiny-mat-vpool").material_outputs, 2);
  EXPECT_EQ(PresetArchitectureFor<cuarenta::CuarentaGame>("tiny-vpool-mat").material_outputs, 6);
  EXPECT_EQ(PresetArchitectureFor<chad::ChadGame>("tiny-vpool-mat").material_outputs, 2);
  EXPECT_EQ(PresetArchitectureFor<ChacoRex>("tiny-gpool-vpool").material_outputs, 0);
  EXPECT_EQ(DescribeArchitecture(a),
            "1x16 gpool 4/1, policy conv 16/321, value pool 16/32, material 5, input 15x9x19, "
            "7285 actions");
  EXPECT_NE(ErrorOf([] { CheckPresetName("tiny-mat"); }).find("option 'mat' needs 'vpool'"),
            std::string::npos);
  EXPECT_NE(ErrorOf([] { CheckPresetName("tiny-vpool-mat-mat"); }).find("given twice"),
            std::string::npos);

  const NetFile net = FreshNetForGame<ChacoRex>("tiny-gpool-vpool-mat", 4);
  EXPECT_EQ(TensorOf(net, "material_fc.weight").shape, (std::vector<int64_t>{5, 32}));
  EXPECT_EQ(TensorOf(net, "material_fc.bias").shape, (std::vector<int64_t>{5}));
  const std::string bytes = SerializeNetFile(net);
  const NetFile back = ParseNetFile(bytes, "m.vznet");
  EXPECT_EQ(back.format_version, 4);
  EXPECT_EQ(back.architecture, net.architecture);
  EXPECT_EQ(ErrorOf([&] { CheckNetForGame<ChacoRex>(back, "m.vznet"); }), "");
  NetFile other = back;
  other.architecture.material_outputs = 2;
  EXPECT_EQ(ErrorOf([&] { CheckNetForGame<ChacoRex>(other, "m.vznet"); }),
            "net file m.vznet: a material head of 2 outputs, chaco-rex has 5 piece types");
  // A net without the head keeps its version, and plays the same with or without it: the head
  // only adds outputs that play never reads.
  EXPECT_EQ(ParseNetFile(SerializeNetFile(PooledNet(3)), "p").format_version, 3);
  proto::Net message;
  ASSERT_TRUE(message.ParseFromString(bytes.substr(24)));
  EXPECT_EQ(message.architecture().material_outputs(), 5u);
  proto::Net old = message;
  old.set_format_version(3);
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(old), "m.vznet"); }),
            "net file m.vznet: a material head in a format version 3 file");
  proto::Net bad = message;
  bad.mutable_architecture()->set_material_outputs(65);
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(bad), "m.vznet"); }),
            "net file m.vznet: architecture field material_outputs = 65 is out of range");
  bad = message;
  bad.mutable_architecture()->set_material_outputs(4);
  EXPECT_NE(ErrorOf([&] {
              Trainer t(ParseNetFile(FrameNetMessage(bad), "m.vznet"), {});
            }).find("tensor 'material_fc.weight' has shape [5, 32], the architecture needs"),
            std::string::npos);
}

// The ownership head (option -own): a 1x1 convolution of the tower to kOccupancyClasses logits
// per grid cell, with any value head; it makes the net file format version 5, and a net plays
// the same with or without it (play never reads it).
TEST(PoolingTest, TheOwnershipHeadIsAConvolutionToTheOccupancyClasses) {
  const NetArchitecture a = PresetArchitectureFor<ChacoRex>("small-own");
  EXPECT_TRUE(a.ownership);
  EXPECT_FALSE(PresetArchitectureFor<ChacoRex>("small").ownership);
  EXPECT_EQ(DescribeArchitecture(PresetArchitectureFor<ChacoRex>("tiny-gpool-vpool-mat-own")),
            "1x16 gpool 4/1, policy conv 16/321, value pool 16/32, material 5, ownership, input "
            "15x9x19, 7285 actions");
  EXPECT_NE(ErrorOf([] { CheckPresetName("tiny-own-own"); }).find("given twice"),
            std::string::npos);

  const NetFile net = FreshNetForGame<ChacoRex>("tiny-own", 4);
  EXPECT_EQ(TensorOf(net, "ownership.weight").shape, (std::vector<int64_t>{3, 16, 1, 1}));
  EXPECT_EQ(TensorOf(net, "ownership.bias").shape, (std::vector<int64_t>{3}));
  const std::string bytes = SerializeNetFile(net);
  const NetFile back = ParseNetFile(bytes, "o.vznet");
  EXPECT_EQ(back.format_version, 5);
  EXPECT_EQ(back.architecture, net.architecture);
  proto::Net message;
  ASSERT_TRUE(message.ParseFromString(bytes.substr(24)));
  EXPECT_TRUE(message.architecture().ownership());
  proto::Net old = message;
  old.set_format_version(4);
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(old), "o.vznet"); }),
            "net file o.vznet: an ownership head in a format version 4 file");
  // Without the head's tensors the file is refused; the same tensors without the flag too.
  NetFile tensorless = back;
  std::erase_if(tensorless.tensors,
                [](const NetTensor& t) { return t.name.rfind("ownership.", 0) == 0; });
  EXPECT_NE(ErrorOf([&] { Trainer t(tensorless, {}); }).find("ownership.weight"),
            std::string::npos);
  proto::Net flagless = message;
  flagless.mutable_architecture()->set_ownership(false);
  EXPECT_NE(ErrorOf([&] {
              Trainer t(ParseNetFile(FrameNetMessage(flagless), "o.vznet"), {});
            }).find("ownership"),
            std::string::npos);

  // The policy and value of a net with the head are those of the same tensors without it.
  NetFile headless = net;
  headless.architecture.ownership = false;
  headless.architecture.preset = "tiny";
  std::erase_if(headless.tensors,
                [](const NetTensor& t) { return t.name.rfind("ownership.", 0) == 0; });
  const std::vector<float> planes =
      vz::testing::EncodePlanes<InputEncoding<ChacoRex>>(ChacoRex::InitialPosition());
  NetRunner with(net, "o.vznet", "cpu", "fp32"), without(headless, "p.vznet", "cpu", "fp32");
  std::vector<float> policy_a(ChacoRex::kNumActions), policy_b(ChacoRex::kNumActions), wdl_a(3),
      wdl_b(3);
  with.RunAll(planes.data(), 1, policy_a.data(), wdl_a.data());
  without.RunAll(planes.data(), 1, policy_b.data(), wdl_b.data());
  EXPECT_EQ(policy_a, policy_b);
  EXPECT_EQ(wdl_a, wdl_b);
}

}  // namespace
}  // namespace vz::nets
