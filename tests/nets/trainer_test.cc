// Training (nets/trainer.h): a tiny net overfits a small fixed set, export then import gives the
// same outputs, checkpoints resume exactly, the learning-rate schedule, and augmentation.

#include "nets/trainer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "engine/core/game_state.h"
#include "engine/core/zobrist.h"
#include "engine/encodings.h"
#include "nets/augment.h"
#include "nets/fresh_net.h"
#include "nets/net_runner.h"
#include "tests/nets/net_test_util.h"
#include "tests/test_util.h"

namespace vz::nets {
namespace {

using vz::testing::ErrorOf;

// `count` distinct positions of pseudo-random games of G (every fourth position of games of at
// most 60 plies) with their targets and legal masks.
template <Game G>
TrainingBatch FixedSet(int count, uint64_t seed) {
  return testing::RandomTrainingBatch<G>(count, seed, 60, 4);
}

// AdamW at 3e-3 with weight decay 1e-4: fast enough for a tiny net to overfit a small fixed set.
TrainerOptions OverfitOptions() {
  TrainerOptions options;
  options.optimizer = "adamw";
  options.learning_rate = 3e-3;
  options.weight_decay = 1e-4;
  return options;
}

// Both policy heads: "tiny" has the conv head, "tiny-fc" the fully connected one; and the
// pooled value head with a global pooling block (nets/net_architecture.h), which must train too.
class TrainerHeadTest : public ::testing::TestWithParam<const char*> {};
INSTANTIATE_TEST_SUITE_P(Heads, TrainerHeadTest,
                         ::testing::Values("tiny", "tiny-fc", "tiny-gpool-vpool"));

TEST_P(TrainerHeadTest, TinyNetOverfitsASmallFixedSet) {
  using G = draughts::DraughtsGame;
  const TrainingBatch set = FixedSet<G>(32, 1);
  Trainer trainer(FreshNetForGame<G>(GetParam(), 1), OverfitOptions());
  const TrainMetrics first = trainer.Evaluate(set);
  TrainMetrics last;
  for (int step = 0; step < 300; ++step) last = trainer.Step(set);
  const TrainMetrics after = trainer.Evaluate(set);
  // At the start: about ln(legal moves) + ln 3 ~ 2.3 + 1.1.
  EXPECT_GT(first.loss, 2.0);
  // The stated bound: below 0.25 (policy and value) after 300 steps, in eval mode too.
  EXPECT_LT(last.loss, 0.25) << "policy " << last.policy_loss << " value " << last.value_loss;
  EXPECT_LT(after.loss, 0.25) << "policy " << after.policy_loss << " value " << after.value_loss;
  EXPECT_GT(after.policy_accuracy, 0.95);
  EXPECT_GT(after.value_accuracy, 0.95);
  EXPECT_EQ(last.step, 300);
  EXPECT_GT(last.weight_penalty, 0.0);
}

// `set` with each sample's policy target spread over all of its legal moves (random weights
// summing to 1), so that every legal logit carries some of the loss.
TrainingBatch SpreadTargets(TrainingBatch set, int num_actions, uint64_t seed) {
  std::mt19937 random{uint32_t(seed)};
  for (int i = 0; i < set.size; ++i) {
    double sum = 0;
    for (int a = 0; a < num_actions; ++a) {
      const size_t k = size_t(i) * num_actions + a;
      set.policy[k] = set.legal[k] ? float(1 + random() % 100) : 0.0f;
      sum += set.policy[k];
    }
    for (int a = 0; a < num_actions; ++a) set.policy[size_t(i) * num_actions + a] /= float(sum);
  }
  return set;
}

// The legal-moves policy loss (TrainerOptions::legal_policy, the CPU's default) against the
// dense head's masked softmax: the same metrics, and the same weights after a few SGD steps.
template <Game G>
void ExpectTheLegalMovesLossIsTheDenseHeads(const char* preset) {
  const TrainingBatch set = SpreadTargets(FixedSet<G>(24, 3), InputEncoding<G>::kNumActions, 5);
  TrainerOptions options;
  options.legal_policy = false;
  Trainer dense(FreshNetForGame<G>(preset, 2), options);
  options.legal_policy = true;
  Trainer legal(FreshNetForGame<G>(preset, 2), options);
  const TrainMetrics a = dense.Evaluate(set), b = legal.Evaluate(set);
  EXPECT_NEAR(b.policy_loss, a.policy_loss, 1e-5 * a.policy_loss) << preset;
  EXPECT_NEAR(b.value_loss, a.value_loss, 1e-5 * a.value_loss) << preset;
  EXPECT_EQ(b.policy_accuracy, a.policy_accuracy) << preset;
  for (int step = 0; step < 3; ++step) {
    const TrainMetrics x = dense.Step(set), y = legal.Step(set);
    EXPECT_NEAR(y.loss, x.loss, 1e-4 * x.loss) << preset << " step " << step;
  }
  const NetFile p = dense.ExportNet(), q = legal.ExportNet();
  ASSERT_EQ(p.tensors.size(), q.tensors.size());
  float moved = 0;  // how far the dense trainer's weights moved: the comparison means something
  const NetFile start = FreshNetForGame<G>(preset, 2);
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    for (size_t k = 0; k < p.tensors[t].data.size(); ++k) {
      ASSERT_NEAR(q.tensors[t].data[k], p.tensors[t].data[k], 1e-4f)
          << preset << " " << p.tensors[t].name << "[" << k << "]";
      moved = std::max(moved, std::abs(p.tensors[t].data[k] - start.tensors[t].data[k]));
    }
  }
  EXPECT_GT(moved, 1e-3f) << preset;
}

TEST_P(TrainerHeadTest, TheLegalMovesLossIsTheDenseHeads) {
  ExpectTheLegalMovesLossIsTheDenseHeads<draughts::DraughtsGame>(GetParam());
}

TEST(TrainerTest, TheLegalMovesLossIsTheDenseHeadsOnTheHexBoard) {
  ExpectTheLegalMovesLossIsTheDenseHeads<chaco_rex::ChacoRexGame>("tiny-gpool-vpool");
}

TEST(TrainerTest, ExportThenImportGivesTheSameOutputs) {
  using G = chad::ChadGame;
  using E = InputEncoding<G>;
  const TrainingBatch set = FixedSet<G>(8, 2);
  Trainer trainer(FreshNetForGame<G>("tiny", 4), TrainerOptions{});
  for (int step = 0; step < 5; ++step) trainer.Step(set);  // batch norm statistics move too
  std::vector<float> policy(size_t(set.size) * E::kNumActions), wdl(size_t(set.size) * 3);
  trainer.Predict(set.planes.data(), set.size, policy.data(), wdl.data());

  const std::string path = "/tmp/vz_trainer_test_" + std::to_string(::getpid()) + ".vznet";
  WriteNetFile(path, trainer.ExportNet(17, "parent.vznet", "rev"));
  const NetFile back = ReadNetFile(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.provenance.training_steps, 5u);
  EXPECT_EQ(back.provenance.games, 17u);
  NetRunner runner(back, path, "cpu", "fp32");
  std::vector<float> policy2(policy.size()), wdl2(wdl.size());
  runner.RunAll(set.planes.data(), set.size, policy2.data(), wdl2.data());
  for (size_t i = 0; i < policy.size(); ++i) ASSERT_NEAR(policy[i], policy2[i], 1e-4) << i;
  for (size_t i = 0; i < wdl.size(); ++i) ASSERT_NEAR(wdl[i], wdl2[i], 1e-5) << i;
}

TEST(TrainerTest, CheckpointsResumeExactly) {
  using G = cuarenta::CuarentaGame;
  const TrainingBatch a = FixedSet<G>(8, 3), b = FixedSet<G>(8, 4);
  const NetFile start = FreshNetForGame<G>("tiny", 8);
  for (const char* optimizer : {"sgd", "adamw"}) {
    TrainerOptions options;
    options.optimizer = optimizer;
    options.schedule = "cosine";
    options.total_steps = 20;
    options.warmup_steps = 2;
    Trainer original(start, options);
    for (int step = 0; step < 4; ++step) original.Step(step % 2 ? a : b);
    const std::string path = "/tmp/vz_trainer_ckpt_" + std::to_string(::getpid()) + ".pt";
    original.SaveCheckpoint(path);
    const uint64_t random_after_save = original.NextRandom();
    for (int step = 0; step < 4; ++step) original.Step(step % 2 ? b : a);

    Trainer resumed(start, options);
    resumed.LoadCheckpoint(path);
    std::filesystem::remove(path);
    std::filesystem::remove(PreviousCheckpointPath(path));
    EXPECT_EQ(resumed.step(), 4);
    EXPECT_EQ(resumed.NextRandom(), random_after_save);
    for (int step = 0; step < 4; ++step) resumed.Step(step % 2 ? b : a);
    const NetFile x = original.ExportNet(), y = resumed.ExportNet();
    ASSERT_EQ(x.tensors.size(), y.tensors.size());
    for (size_t i = 0; i < x.tensors.size(); ++i) {
      EXPECT_EQ(x.tensors[i].data, y.tensors[i].data) << optimizer << " " << x.tensors[i].name;
    }
  }
}

TEST(TrainerTest, CheckpointOfAnotherArchitectureIsRejected) {
  using G = cuarenta::CuarentaGame;
  Trainer tiny(FreshNetForGame<G>("tiny", 1), TrainerOptions{});
  const std::string path = "/tmp/vz_trainer_ckpt_other_" + std::to_string(::getpid()) + ".pt";
  tiny.SaveCheckpoint(path);
  Trainer small(FreshNetForGame<G>("small", 1), TrainerOptions{});
  const std::string error = ErrorOf([&] { small.LoadCheckpoint(path); });
  EXPECT_NE(error.find("made for another game, encoding or architecture"), std::string::npos)
      << "loaded a tiny checkpoint into a small trainer: " << error;
  std::filesystem::remove(path);
}

TEST(TrainerTest, LearningRateSchedules) {
  const NetFile net = FreshNetForGame<draughts::DraughtsGame>("tiny", 1);
  TrainerOptions options;
  options.learning_rate = 0.1;
  options.schedule = "step";
  options.total_steps = 100;
  Trainer step(net, options);
  EXPECT_DOUBLE_EQ(step.LearningRate(0), 0.1);
  EXPECT_NEAR(step.LearningRate(50), 0.01, 1e-12);
  EXPECT_NEAR(step.LearningRate(99), 0.001, 1e-12);
  options.schedule = "cosine";
  options.warmup_steps = 10;
  Trainer cosine(net, options);
  EXPECT_NEAR(cosine.LearningRate(0), 0.01, 1e-12);
  EXPECT_NEAR(cosine.LearningRate(10), 0.1, 1e-12);
  EXPECT_NEAR(cosine.LearningRate(100), 0.001, 1e-12);
  options.schedule = "linear";
  EXPECT_THROW(Trainer(net, options), Error);
  options.schedule = "constant";
  options.optimizer = "lion";
  EXPECT_THROW(Trainer(net, options), Error);
}

TEST(AugmentTest, ChadDiagonalReflectionMovesPlanesAndPolicy) {
  using G = chad::ChadGame;
  using E = InputEncoding<G>;
  TrainingBatch set = FixedSet<G>(2, 5);
  // Ownership targets, distinct per cell: they move with the planes.
  set.ownership.resize(2 * 144);
  for (size_t k = 0; k < set.ownership.size(); ++k) set.ownership[k] = uint8_t(k % 251);
  const TrainingBatch original = set;
  ApplySymmetry<G>(set, 0, 1);
  // Own king on d4 = (3, 3) stays; a piece at (row r, column c) moves to (c, r).
  for (int plane = 0; plane < E::kPlanes; ++plane) {
    for (int r = 0; r < 12; ++r) {
      for (int c = 0; c < 12; ++c) {
        ASSERT_EQ(set.planes[size_t((plane * 12 + c) * 12 + r)],
                  original.planes[size_t((plane * 12 + r) * 12 + c)]);
      }
    }
  }
  for (int r = 0; r < 12; ++r) {
    for (int c = 0; c < 12; ++c) {
      ASSERT_EQ(set.ownership[size_t(c * 12 + r)], original.ownership[size_t(r * 12 + c)]);
    }
  }
  EXPECT_TRUE(std::equal(set.ownership.begin() + 144, set.ownership.end(),
                         original.ownership.begin() + 144));  // sample 1 untouched
  float moved = 0;
  for (int a = 0; a < E::kNumActions; ++a) {
    if (original.policy[size_t(a)] > 0) {
      moved += set.policy[size_t(E::SymmetricAction(1, a))];
    }
  }
  EXPECT_EQ(moved, 1.0f);
  ApplySymmetry<G>(set, 0, 1);
  EXPECT_EQ(set.planes, original.planes);
  EXPECT_EQ(set.policy, original.policy);
  EXPECT_EQ(set.legal, original.legal);
  EXPECT_EQ(set.ownership, original.ownership);
  // Draughts has no symmetry: augmentation leaves the batch alone.
  TrainingBatch draughts_set = FixedSet<draughts::DraughtsGame>(2, 6);
  const TrainingBatch draughts_copy = draughts_set;
  uint64_t state = 1;
  AugmentBatch<draughts::DraughtsGame>(draughts_set, [&] { return state = SplitMix64(state); });
  EXPECT_EQ(draughts_set.planes, draughts_copy.planes);
}

// Fault 3 of issue 17: a checkpoint with flipped bytes falls back to the previous one; a truncated
// one with nothing to fall back to is one line naming the file, never LibTorch's message.
TEST(TrainerTest, DamagedCheckpointsFallBackOrFailWithOneLine) {
  using G = cuarenta::CuarentaGame;
  const TrainingBatch a = FixedSet<G>(8, 3);
  const NetFile start = FreshNetForGame<G>("tiny", 8);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("vz_trainer_damaged_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "trainer.ckpt").string();
  Trainer original(start, TrainerOptions{});
  original.Step(a);
  original.SaveCheckpoint(path);  // step 1
  original.Step(a);
  original.SaveCheckpoint(path);  // step 2; step 1 becomes trainer.prev.ckpt
  auto read = [](const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  auto write = [](const std::string& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  };
  const std::string good = read(path);

  // 64 bytes flipped in the middle (the recipe): the previous checkpoint, with a warning.
  std::string flipped = good;
  for (size_t i = 0; i < 64; ++i) flipped[flipped.size() / 2 + i] ^= 0xff;
  write(path, flipped);
  {
    Trainer resumed(start, TrainerOptions{});
    const CheckpointLoad load = resumed.LoadCheckpoint(path);
    EXPECT_EQ(resumed.step(), 1);
    EXPECT_EQ(load.path, PreviousCheckpointPath(path));
    ASSERT_EQ(load.warnings.size(), 1u);
    EXPECT_NE(load.warnings[0].find("corrupted"), std::string::npos) << load.warnings[0];
  }
  // A checkpoint written before checksums (a bare LibTorch archive) loads, with a warning.
  write(path, good.substr(24));
  {
    Trainer resumed(start, TrainerOptions{});
    const CheckpointLoad load = resumed.LoadCheckpoint(path);
    EXPECT_EQ(resumed.step(), 2);
    ASSERT_EQ(load.warnings.size(), 1u);
    EXPECT_NE(load.warnings[0].find("no checksum"), std::string::npos);
    // ... and a damaged one of those is named, not LibTorch's "central directory" error.
    write(path, good.substr(24, (good.size() - 24) / 2));
    std::filesystem::remove(PreviousCheckpointPath(path));
    const std::string message = ErrorOf([&] { resumed.LoadCheckpoint(path); });
    EXPECT_NE(message.find(path), std::string::npos) << "loaded half an archive: " << message;
    EXPECT_NE(message.find("corrupted"), std::string::npos) << message;
    EXPECT_EQ(message.find("central directory"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  // Truncated, and no previous checkpoint: one line naming the file.
  write(path, good.substr(0, good.size() / 2));
  Trainer resumed(start, TrainerOptions{});
  const std::string message = ErrorOf([&] { resumed.LoadCheckpoint(path); });
  EXPECT_NE(message.find(path), std::string::npos) << "loaded a truncated checkpoint: " << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
  EXPECT_NE(ErrorOf([&] { ExportCheckpoint(path); }).find(path), std::string::npos);
  std::filesystem::remove_all(dir);
}

// Fault 2 of issue 17: a non-finite loss stops training before the update, and non-finite
// weights are never checkpointed.
TEST(TrainerTest, NonFiniteLossStopsTrainingAndIsNeverCheckpointed) {
  using G = cuarenta::CuarentaGame;
  NetFile net = FreshNetForGame<G>("tiny", 8);
  for (NetTensor& tensor : net.tensors) {
    if (tensor.name == "value_fc2.bias") tensor.data[0] = NAN;
  }
  Trainer trainer(net, TrainerOptions{});
  const std::string step_error = ErrorOf([&] { trainer.Step(FixedSet<G>(8, 3)); });
  EXPECT_NE(step_error.find("loss is not finite"), std::string::npos)
      << "a NaN loss was trained on: " << step_error;
  EXPECT_EQ(trainer.step(), 0);
  const std::string path = "/tmp/vz_trainer_nan_" + std::to_string(::getpid()) + ".ckpt";
  const std::string save_error = ErrorOf([&] { trainer.SaveCheckpoint(path); });
  EXPECT_NE(save_error.find("NaN or Inf"), std::string::npos)
      << "NaN weights were checkpointed: " << save_error;
  EXPECT_FALSE(std::filesystem::exists(path));
}

// The material head (TrainerOptions::material_weight, nets/net_architecture.h): with a weight it
// learns its targets (arbitrary per-sample numbers of a small fixed set: the head must fit them,
// not guess them from the planes), its loss is reported and counted in the total; with weight 0
// its weights never move; a batch without targets trains nothing of it; targets of the wrong
// size or not finite are refused with one line.
TEST(TrainerTest, TheMaterialHeadLearnsItsTargetsWithItsWeight) {
  using G = draughts::DraughtsGame;
  TrainingBatch set = FixedSet<G>(32, 1);
  std::mt19937 random{7};
  std::uniform_int_distribution<int> count(-3, 3);
  set.material.resize(32 * 2);
  for (float& target : set.material) target = float(count(random));
  const NetFile net = FreshNetForGame<G>("tiny-gpool-vpool-mat", 1);

  TrainerOptions options = OverfitOptions();
  options.material_weight = 1.0;
  Trainer trainer(net, options);
  const TrainMetrics first = trainer.Evaluate(set);
  EXPECT_GT(first.material_loss, 1.0);  // the targets' mean square is 4 (uniform in -3..3)
  EXPECT_NEAR(first.loss, first.policy_loss + first.value_loss + first.material_loss, 1e-4);
  for (int step = 0; step < 300; ++step) trainer.Step(set);
  const TrainMetrics after = trainer.Evaluate(set);
  EXPECT_LT(after.material_loss, 0.1 * first.material_loss);

  // Weight 0: the loss is reported, the head's weights stay as they were (no weight decay, which
  // would shrink them without any loss).
  options.material_weight = 0;
  options.weight_decay = 0;
  Trainer unweighted(net, options);
  for (int step = 0; step < 5; ++step) EXPECT_GT(unweighted.Step(set).material_loss, 0.0);
  const NetFile kept = unweighted.ExportNet();
  EXPECT_EQ(kept.Find("material_fc.weight")->data, net.Find("material_fc.weight")->data);
  EXPECT_NE(kept.Find("value_fc2.weight")->data, net.Find("value_fc2.weight")->data);

  // No targets: no material loss. A net without the head ignores them.
  TrainingBatch plain = set;
  plain.material.clear();
  EXPECT_EQ(trainer.Evaluate(plain).material_loss, 0.0);
  Trainer headless(FreshNetForGame<G>("tiny-gpool-vpool", 1), options);
  EXPECT_EQ(headless.Step(set).material_loss, 0.0);

  TrainingBatch bad = set;
  bad.material.pop_back();
  EXPECT_EQ(ErrorOf([&] { trainer.Step(bad); }),
            "training batch of 32: material has 63 values, expected 64 (2 piece types)");
  bad = set;
  bad.material[5] = NAN;
  EXPECT_EQ(ErrorOf([&] { trainer.Step(bad); }),
            "training batch: material target 1 of sample 2 is not finite (nan)");
  options.material_weight = -1;
  EXPECT_EQ(ErrorOf([&] { Trainer refused(net, options); }),
            "material loss weight -1 must be a finite number >= 0");
}

// The ownership head (TrainerOptions::ownership_weight, nets/net_architecture.h): with a weight
// it learns arbitrary per-cell classes of a small fixed set (the head must fit them), its loss is
// reported and counted in the total, and at the start it is about log 3 (a fresh head's three
// logits are near equal); only the board's own cells count (a class off the board changes
// nothing); with weight 0 its weights never move; a batch without targets trains nothing of it;
// targets of the wrong size or class are refused with one line.
TEST(TrainerTest, TheOwnershipHeadLearnsEachCellsOccupant) {
  using G = chaco_rex::ChacoRexGame;  // a board that is not its grid: 85 of 171 cells
  using E = InputEncoding<G>;
  constexpr int kArea = E::kHeight * E::kWidth;
  TrainingBatch set = FixedSet<G>(16, 1);
  std::mt19937 random{5};
  set.ownership.resize(size_t(16) * kArea);
  for (uint8_t& target : set.ownership) target = uint8_t(random() % kOccupancyClasses);
  const NetFile net = FreshNetForGame<G>("tiny-own", 1);
  EXPECT_NE(net.Find("ownership.weight"), nullptr);

  TrainerOptions options = OverfitOptions();
  options.ownership_weight = 1.0;
  Trainer trainer(net, options);
  const TrainMetrics first = trainer.Evaluate(set);
  EXPECT_NEAR(first.ownership_loss, std::log(3.0), 0.3);
  EXPECT_NEAR(first.loss, first.policy_loss + first.value_loss + first.ownership_loss, 1e-4);
  // Off-board cells (grid point 0 of Chaco Rex's 9x19 grid, a1, is no hexagon) are not counted.
  TrainingBatch off_board = set;
  for (int i = 0; i < 16; ++i) {
    uint8_t& target = off_board.ownership[size_t(i) * kArea];
    target = uint8_t((target + 1) % kOccupancyClasses);
  }
  EXPECT_EQ(trainer.Evaluate(off_board).ownership_loss, first.ownership_loss);
  for (int step = 0; step < 300; ++step) trainer.Step(set);
  const TrainMetrics after = trainer.Evaluate(set);
  EXPECT_LT(after.ownership_loss, 0.5 * first.ownership_loss);

  options.ownership_weight = 0;
  options.weight_decay = 0;
  Trainer unweighted(net, options);
  for (int step = 0; step < 5; ++step) EXPECT_GT(unweighted.Step(set).ownership_loss, 0.0);
  EXPECT_EQ(unweighted.ExportNet().Find("ownership.weight")->data,
            net.Find("ownership.weight")->data);

  TrainingBatch plain = set;
  plain.ownership.clear();
  EXPECT_EQ(trainer.Evaluate(plain).ownership_loss, 0.0);
  const std::vector<float> head = trainer.ExportNet().Find("ownership.weight")->data;
  trainer.Step(plain);
  EXPECT_EQ(trainer.ExportNet().Find("ownership.weight")->data, head);
  Trainer headless(FreshNetForGame<G>("tiny", 1), options);
  EXPECT_EQ(headless.Step(set).ownership_loss, 0.0);

  TrainingBatch bad = set;
  bad.ownership.pop_back();
  EXPECT_EQ(ErrorOf([&] { trainer.Step(bad); }),
            "training batch of 16: ownership has 2735 values, expected 2736 (171 cells)");
  bad = set;
  bad.ownership[kArea + 7] = 3;
  EXPECT_EQ(ErrorOf([&] { trainer.Step(bad); }),
            "training batch: ownership target of cell 7 of sample 1 is 3, not a class below 3");
  options.ownership_weight = NAN;
  EXPECT_EQ(ErrorOf([&] { Trainer refused(net, options); }),
            "ownership loss weight nan must be a finite number >= 0");
  EXPECT_EQ(trainer.step(), 301);
}

// bf16 mixed precision (TrainerOptions::precision) runs LibTorch's autocast on the CPU here, the
// same code as on a CUDA device: the first step's losses are the fp32 ones to bf16's precision,
// the weights stay fp32, and the net still learns the fixed set.
TEST(TrainerTest, Bf16MixedPrecisionTrainsLikeFp32) {
  using G = draughts::DraughtsGame;
  const TrainingBatch set = FixedSet<G>(32, 1);
  TrainerOptions options = OverfitOptions();
  Trainer fp32(FreshNetForGame<G>("tiny", 1), options);
  options.precision = "bf16";
  Trainer bf16(FreshNetForGame<G>("tiny", 1), options);
  const TrainMetrics reference = fp32.Evaluate(set);
  const TrainMetrics a = fp32.Step(set);
  const TrainMetrics b = bf16.Step(set);
  // bf16 keeps 8 bits of mantissa: about 0.4% relative error per operation.
  EXPECT_NEAR(b.policy_loss, a.policy_loss, 0.05 * a.policy_loss);
  EXPECT_NEAR(b.value_loss, a.value_loss, 0.05 * a.value_loss);
  EXPECT_NE(b.loss, a.loss) << "bf16 computed exactly what fp32 did: autocast was not on";
  const NetFile exported = bf16.ExportNet();
  for (const NetTensor& tensor : exported.tensors) {
    for (float value : tensor.data) ASSERT_TRUE(std::isfinite(value)) << tensor.name;
  }
  TrainMetrics last;
  for (int step = 0; step < 200; ++step) last = bf16.Step(set);
  EXPECT_LT(last.loss, 0.5 * a.loss)
      << "policy " << last.policy_loss << " value " << last.value_loss;
  // Autocast ends with each bf16 step: a fp32 trainer computes exactly what it did before.
  Trainer again(FreshNetForGame<G>("tiny", 1), TrainerOptions{});
  EXPECT_EQ(again.Evaluate(set).loss, reference.loss);
  EXPECT_EQ(bf16.precision(), "bf16");
  EXPECT_EQ(fp32.precision(), "fp32");
  options.precision = "auto";  // on the CPU: bf16 where CpuPrefersBf16 (AMX, AMD's AVX-512 BF16)
  EXPECT_EQ(Trainer(FreshNetForGame<G>("tiny", 1), options).precision(),
            CpuPrefersBf16() ? "bf16" : "fp32");
  options.precision = "fp16";
  EXPECT_NE(ErrorOf([&] {
              Trainer(FreshNetForGame<G>("tiny", 1), options);
            }).find("training precision 'fp16'"),
            std::string::npos);
}

}  // namespace
}  // namespace vz::nets
