// The convolutional policy head (nets/net_architecture.h, nets/model.h): its logits are the
// planes of a 3x3 then 1x1 convolution read at each game's PolicyPlane, checked against a
// plain C++ evaluation of the net's own tensors; net files keep either head (fc nets stay format
// version 1), and bad conv-head fields are rejected with one line.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/encodings.h"
#include "nets/fresh_net.h"
#include "nets/net_file.h"
#include "nets/net_runner.h"
#include "proto/net.pb.h"
#include "tests/nets/reference_net.h"
#include "tests/test_util.h"

namespace vz::nets {
namespace {

const bool kSingleThread = (SetCpuThreads(1), true);

using ChacoRex = chaco_rex::ChacoRexGame;
using Draughts = draughts::DraughtsGame;
using vz::testing::ErrorOf;
using vz::testing::FrameNetMessage;
using vz::testing::ReferenceConvBn;
using vz::testing::ShiftBatchNorms;
using vz::testing::TensorOf;

// The conv head's planes [policy_planes][height][width] for one position's input planes, from
// the tensors of `net` (which has no residual blocks).
std::vector<float> ReferencePolicyPlanes(const NetFile& net, const std::vector<float>& input) {
  const NetArchitecture& a = net.architecture;
  const std::vector<double> trunk = ReferenceConvBn(
      net, "input", std::vector<double>(input.begin(), input.end()), a.height, a.width, true);
  const std::vector<double> hidden = ReferenceConvBn(net, "policy", trunk, a.height, a.width, true);
  const NetTensor& weight = TensorOf(net, "policy_planes.weight");
  const NetTensor& bias = TensorOf(net, "policy_planes.bias");
  const int area = a.height * a.width;
  std::vector<float> planes(size_t(a.policy_planes * area));
  for (int p = 0; p < a.policy_planes; ++p) {
    for (int cell = 0; cell < area; ++cell) {
      double sum = bias.data[size_t(p)];
      for (int c = 0; c < a.policy_channels; ++c) {
        sum += double(weight.data[size_t(p * a.policy_channels + c)]) *
               hidden[size_t(c * area + cell)];
      }
      planes[size_t(p * area + cell)] = float(sum);
    }
  }
  return planes;
}

// A small conv-head net of game G without residual blocks, batch norms moved off the identity.
template <class G>
NetFile SmallConvNet(uint64_t seed) {
  NetArchitecture a = PresetArchitectureFor<G>("tiny");
  a.blocks = 0;
  a.channels = 4;
  a.policy_channels = 3;
  NetFile net = FreshNet(NetHeaderForGame<G>(a), seed);
  ShiftBatchNorms(net, seed);
  return net;
}

TEST(PolicyHeadTest, PresetsUseTheConvHeadWithTheGamesLayout) {
  const NetArchitecture conv = PresetArchitectureFor<ChacoRex>("tiny");
  EXPECT_EQ(conv.policy_head, PolicyHead::kConv);
  EXPECT_EQ(conv.policy_planes, InputEncoding<ChacoRex>::kPolicyPlanes);
  EXPECT_EQ(conv.policy_map, PolicyLayoutFor<ChacoRex>().map);
  const NetArchitecture fc = PresetArchitectureFor<ChacoRex>("tiny-fc");
  EXPECT_EQ(fc.policy_head, PolicyHead::kFc);
  EXPECT_EQ(fc.policy_planes, 0);
  EXPECT_TRUE(fc.policy_map.empty());
  EXPECT_EQ(fc.channels, conv.channels);
  EXPECT_EQ(fc.blocks, conv.blocks);
  // The point of the conv head: a small fraction of the fc head's weights.
  EXPECT_LT(FreshNetForGame<ChacoRex>("tiny", 1).ParameterCount() * 20,
            FreshNetForGame<ChacoRex>("tiny-fc", 1).ParameterCount());
}

TEST(PolicyHeadTest, LogitsAreTheConvPlanesAtEachActionsSlot) {
  using G = ChacoRex;
  using E = InputEncoding<G>;
  constexpr int kArea = E::kHeight * E::kWidth;
  const NetFile net = SmallConvNet<G>(5);
  std::vector<typename G::Position> positions;
  vz::testing::ForRandomPositions<G>(
      1, 9, 3, [&](const G::Position& p, const G::MoveList&) { positions.push_back(p); });
  ASSERT_EQ(positions.size(), 9u);
  const int batch = int(positions.size());
  std::vector<float> input(size_t(batch * E::kSize));
  for (int i = 0; i < batch; ++i) E::Encode(positions[size_t(i)], 1, &input[size_t(i * E::kSize)]);
  for (const bool fold : {true, false}) {
    NetRunner runner(net, "conv.vznet", "cpu", "fp32", {.fold_batch_norm = fold});
    std::vector<float> policy(size_t(batch * E::kNumActions)), wdl(size_t(batch * 3));
    runner.RunAll(input.data(), batch, policy.data(), wdl.data());
    for (int i = 0; i < batch; ++i) {
      const std::vector<float> planes = ReferencePolicyPlanes(
          net,
          std::vector<float>(input.begin() + i * E::kSize, input.begin() + (i + 1) * E::kSize));
      const float* logits = &policy[size_t(i * E::kNumActions)];
      for (int action = 0; action < E::kNumActions; ++action) {
        ASSERT_NEAR(logits[action], planes[size_t(net.architecture.policy_map[size_t(action)])],
                    1e-4)
            << "action " << action << " fold " << fold;
      }
      // And for the legal moves straight from the game's PolicyPlane.
      G::MoveList moves;
      G::GenerateMoves(positions[size_t(i)], moves);
      for (Move m : moves) {
        const int action = E::PolicyIndex(positions[size_t(i)], m);
        const PolicySlot slot = E::PolicyPlane(action);
        ASSERT_NEAR(logits[action], planes[size_t(slot.plane * kArea + slot.cell)], 1e-4);
      }
    }
  }
}

TEST(PolicyHeadTest, NetFilesKeepBothHeadsAndFcNetsStayVersion1) {
  for (const char* preset : {"tiny", "tiny-fc"}) {
    const NetFile net = FreshNetForGame<Draughts>(preset, 3);
    const NetFile back = ParseNetFile(SerializeNetFile(net), "r.vznet");
    EXPECT_EQ(back.architecture, net.architecture) << preset;
    EXPECT_EQ(back.format_version, std::string(preset) == "tiny" ? 2 : 1) << preset;
    ASSERT_EQ(back.tensors.size(), net.tensors.size());
    for (size_t i = 0; i < net.tensors.size(); ++i) {
      EXPECT_EQ(back.tensors[i].name, net.tensors[i].name);
      EXPECT_EQ(back.tensors[i].data, net.tensors[i].data);
    }
    EXPECT_EQ(ErrorOf([&] { CheckNetForGame<Draughts>(back, "r.vznet"); }), "") << preset;
    // Loads and evaluates as the original.
    using E = InputEncoding<Draughts>;
    std::vector<float> input(E::kSize);
    E::Encode(Draughts::InitialPosition(), 1, input.data());
    std::vector<float> a(E::kNumActions), b(E::kNumActions), wa(3), wb(3);
    NetRunner(net, "a", "cpu", "fp32").RunAll(input.data(), 1, a.data(), wa.data());
    NetRunner(back, "b", "cpu", "fp32").RunAll(input.data(), 1, b.data(), wb.data());
    EXPECT_EQ(a, b);
    EXPECT_EQ(wa, wb);
  }
}

proto::Net MessageOf(const NetFile& net) {
  const std::string bytes = SerializeNetFile(net);
  proto::Net message;
  EXPECT_TRUE(message.ParseFromString(bytes.substr(24)));
  return message;
}

TEST(PolicyHeadTest, AVersion1FileWithoutHeadFieldsIsAnFcNet) {
  // What the first vzero wrote: format version 1, no policy head fields at all.
  const NetFile fc = FreshNetForGame<Draughts>("tiny-fc", 2);
  proto::Net message = MessageOf(fc);
  EXPECT_EQ(message.format_version(), 1u);
  EXPECT_TRUE(message.architecture().policy_head().empty());
  EXPECT_EQ(message.architecture().policy_map_size(), 0);
  message.mutable_architecture()->clear_policy_head();
  const NetFile back = ParseNetFile(FrameNetMessage(message), "old.vznet");
  EXPECT_EQ(back.architecture.policy_head, PolicyHead::kFc);
  EXPECT_EQ(ErrorOf([&] { NetRunner runner(back, "old.vznet", "cpu"); }), "");
  // "fc" spelt out is the same head.
  message.mutable_architecture()->set_policy_head("fc");
  EXPECT_EQ(ParseNetFile(FrameNetMessage(message), "old.vznet").architecture, fc.architecture);
}

TEST(PolicyHeadTest, BadHeadFieldsAreRejectedWithOneLine) {
  const NetFile conv = FreshNetForGame<Draughts>("tiny", 2);
  proto::Net message = MessageOf(conv);
  message.mutable_architecture()->set_policy_head("dense");
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(message), "b.vznet"); }),
            "net file b.vznet: unknown policy head 'dense' (known: fc, conv)");
  message = MessageOf(conv);
  message.set_format_version(1);
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(message), "b.vznet"); }),
            "net file b.vznet: a conv policy head in a format version 1 file");
  message = MessageOf(conv);
  message.set_format_version(6);
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(message), "b.vznet"); }),
            "net file b.vznet: format version 6, this vzero reads versions 1 to 5");
  message = MessageOf(conv);
  message.mutable_architecture()->set_policy_map(7, 113 * 64);
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(message), "b.vznet"); }),
            "net file b.vznet: policy_map sends action 7 to 7232, outside the 7232 plane cells");
  message = MessageOf(conv);
  message.mutable_architecture()->set_policy_map(7, message.architecture().policy_map(6));
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(message), "b.vznet"); }),
            "net file b.vznet: policy_map sends action 7 to " +
                std::to_string(message.architecture().policy_map(6)) +
                ", which another action has");
  message = MessageOf(conv);
  message.mutable_architecture()->mutable_policy_map()->RemoveLast();
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(message), "b.vznet"); }),
            "net file b.vznet: architecture field policy_map size = 1023 is out of range");
  message = MessageOf(conv);
  message.mutable_architecture()->set_policy_planes(0);
  EXPECT_EQ(ErrorOf([&] { ParseNetFile(FrameNetMessage(message), "b.vznet"); }),
            "net file b.vznet: architecture field policy_planes = 0 is out of range");
  // A valid map that is not this build's layout of the game.
  NetFile swapped = conv;
  std::swap(swapped.architecture.policy_map[0], swapped.architecture.policy_map[1]);
  EXPECT_EQ(ErrorOf([&] { CheckNetForGame<Draughts>(swapped, "s.vznet"); }),
            "net file s.vznet: its conv policy head has another layout (113 planes) than this "
            "vzero's portuguese-draughts/from-to (113 planes)");
}

}  // namespace
}  // namespace vz::nets
