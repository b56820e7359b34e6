// Train configs (selfplay/train_config.h): the compiled-in presets, text parsing with file:line
// errors, `key=value` overrides of every field type, range validation naming the key, and the
// config hash.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "engine/registry.h"
#include "records/run_files.h"
#include "selfplay/replay_window.h"
#include "selfplay/train_config.h"
#include "tests/test_util.h"

namespace vz {
namespace {

using testing::ErrorOf;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

proto::TrainConfig Demo() { return PresetTrainConfig("chaco-rex", "demo"); }

// Every registered game has every preset, each one valid, naming its variant and preset.
TEST(TrainConfigTest, EveryPresetValidates) {
  EXPECT_EQ(TrainPresetNames(), (std::vector<std::string>{"demo", "long", "gpu"}));
  std::set<std::string> embedded;
  for (const EmbeddedTrainPreset& preset : EmbeddedTrainPresets()) {
    embedded.insert(std::string(preset.variant) + "/" + preset.preset);
  }
  EXPECT_EQ(embedded.size(), AllVariants().size() * TrainPresetNames().size());
  for (const Variant* variant : AllVariants()) {
    for (const std::string& name : TrainPresetNames()) {
      SCOPED_TRACE(std::string(variant->name()) + "/" + name);
      EXPECT_TRUE(embedded.count(std::string(variant->name()) + "/" + name));
      const proto::TrainConfig config = PresetTrainConfig(variant->name(), name);
      EXPECT_EQ(config.variant(), variant->name());
      EXPECT_EQ(config.preset(), name);
      EXPECT_EQ(ErrorOf([&] { ValidateTrainConfig(config); }), "");
      // The text written for the run directory reads back to the same config.
      const proto::TrainConfig again = ParseTrainConfigText(TrainConfigText(config), "written");
      EXPECT_EQ(again.SerializeAsString(), config.SerializeAsString());
      EXPECT_EQ(TrainConfigHash(again), TrainConfigHash(config));
    }
  }
  const proto::TrainConfig demo = Demo();
  EXPECT_GT(demo.stop().minutes(), 0);
  EXPECT_EQ(demo.selfplay().simulations(), demo.gating().simulations());
  EXPECT_EQ(PresetTrainConfig("chaco-rex", "gpu").stop().minutes(), 0);
}

TEST(TrainConfigTest, UnknownPresetsListTheKnownOnes) {
  const std::string variant = ErrorOf([] { PresetTrainConfig("chess", "demo"); });
  EXPECT_TRUE(Contains(variant, "'chess'")) << variant;
  EXPECT_TRUE(Contains(variant, "chaco-rex")) << variant;
  const std::string preset = ErrorOf([] { PresetTrainConfig("chad", "huge"); });
  EXPECT_TRUE(Contains(preset, "'huge'")) << preset;
  EXPECT_TRUE(Contains(preset, "demo, gpu")) << preset;
}

TEST(TrainConfigTest, OverridesOfEveryFieldType) {
  proto::TrainConfig config = Demo();
  ApplyConfigOverride(config, "selfplay.simulations=64");  // uint32
  EXPECT_EQ(config.selfplay().simulations(), 64u);
  ApplyConfigOverride(config, " selfplay.material_margin = -150 ");  // int32, spaces
  EXPECT_EQ(config.selfplay().material_margin(), -150);
  ApplyConfigOverride(config, "stop.train_steps=123456789012");  // uint64
  EXPECT_EQ(config.stop().train_steps(), 123456789012u);
  ApplyConfigOverride(config, "optimizer.learning_rate=0.5");  // float
  EXPECT_FLOAT_EQ(config.optimizer().learning_rate(), 0.5f);
  ApplyConfigOverride(config, "optimizer.weight_decay=1e-3");
  EXPECT_FLOAT_EQ(config.optimizer().weight_decay(), 1e-3f);
  ApplyConfigOverride(config, "optimizer.augment=false");  // bool
  EXPECT_FALSE(config.optimizer().augment());
  ApplyConfigOverride(config, "optimizer.augment=1");
  EXPECT_TRUE(config.optimizer().augment());
  ApplyConfigOverride(config, "strength.opponents= alphabeta:3 ,random");  // list of strings
  EXPECT_EQ(std::vector<std::string>(config.strength().opponents().begin(),
                                     config.strength().opponents().end()),
            (std::vector<std::string>{"alphabeta:3", "random"}));
  ApplyConfigOverride(config, "selfplay.adjudication=DRAW");  // enum
  EXPECT_EQ(config.selfplay().adjudication(), proto::DRAW);
  ApplyConfigOverride(config, "selfplay.adjudication=material");
  EXPECT_EQ(config.selfplay().adjudication(), proto::MATERIAL);
  ApplyConfigOverride(config, "variant=chad");  // string, top level
  EXPECT_EQ(config.variant(), "chad");
  ApplyConfigOverride(config, "selfplay.device=\"cuda:1\"");
  EXPECT_EQ(config.selfplay().device(), "cuda:1");
  ApplyConfigOverride(config, "net.preset=small");
  EXPECT_EQ(config.net().preset(), "small");
  // Overrides read values; ranges are ValidateTrainConfig's job.
  EXPECT_TRUE(Contains(ErrorOf([&] { ValidateTrainConfig(config); }), "selfplay.material_margin"));
  ApplyConfigOverride(config, "selfplay.material_margin=0");  // an even position is no win
  EXPECT_TRUE(Contains(ErrorOf([&] { ValidateTrainConfig(config); }), "selfplay.material_margin"));
  ApplyConfigOverride(config, "selfplay.material_margin=150");
  // Every game needs a searched move after its random opening.
  ApplyConfigOverride(config, "selfplay.max_plies=4");
  ApplyConfigOverride(config, "selfplay.random_opening_plies=4");
  EXPECT_TRUE(Contains(ErrorOf([&] { ValidateTrainConfig(config); }), "selfplay.max_plies"));
  ApplyConfigOverride(config, "selfplay.max_plies=150");
  EXPECT_EQ(ErrorOf([&] { ValidateTrainConfig(config); }), "");
}

TEST(TrainConfigTest, OverrideErrorsNameTheKey) {
  proto::TrainConfig config = Demo();
  const std::string before = config.SerializeAsString();
  auto error_of = [&](const std::string& assignment) {
    return ErrorOf([&] { ApplyConfigOverride(config, assignment); });
  };
  struct Case {
    std::string assignment, expected;
  };
  const Case cases[] = {
      {"selfplay.simulations", "missing '='"},
      {"=3", "empty key"},
      {"selfplay.simulationz=3", "config key selfplay.simulationz: unknown key"},
      {"selfply.simulations=3", "config key selfply.simulations: unknown key"},
      {"seed.x=3", "config key seed.x: unknown key"},
      {"selfplay=3", "config key selfplay: is a section"},
      {"selfplay.simulations=abc", "config key selfplay.simulations: 'abc' is not"},
      {"selfplay.simulations=-1", "config key selfplay.simulations: '-1' is not"},
      {"selfplay.simulations=99999999999", "config key selfplay.simulations"},
      {"selfplay.simulations=", "config key selfplay.simulations"},
      {"selfplay.simulations=3x", "config key selfplay.simulations"},
      {"selfplay.material_margin=1.5", "config key selfplay.material_margin"},
      {"optimizer.learning_rate=fast",
       "config key optimizer.learning_rate: 'fast' is not a number"},
      {"optimizer.learning_rate=1e300", "config key optimizer.learning_rate"},
      {"gating.enabled=maybe", "config key gating.enabled: 'maybe' is not a bool"},
      {"selfplay.adjudication=COIN", "config key selfplay.adjudication: 'COIN' is not one of"},
  };
  for (const Case& c : cases) {
    const std::string error = error_of(c.assignment);
    EXPECT_TRUE(Contains(error, c.expected)) << c.assignment << " -> " << error;
  }
  EXPECT_TRUE(Contains(error_of("selfplay.simulationz=3"), "simulations"));  // lists the fields
  EXPECT_EQ(config.SerializeAsString(), before);                             // nothing applied
}

TEST(TrainConfigTest, ValidationNamesTheKeyAndRange) {
  struct Case {
    std::string assignment, expected;
  };
  const Case cases[] = {
      {"selfplay.simulations=0", "config key selfplay.simulations: 0 is out of range 1..100000"},
      {"selfplay.concurrent_games=0", "config key selfplay.concurrent_games: 0 is out of range"},
      {"selfplay.resign_threshold=0.7",
       "config key selfplay.resign_threshold: 0.7 is out of range 0..0.5"},
      {"selfplay.resign_disabled_fraction=1.5", "config key selfplay.resign_disabled_fraction"},
      {"selfplay.adjudication=ADJUDICATION_UNSPECIFIED", "config key selfplay.adjudication"},
      {"selfplay.device=gpu", "config key selfplay.device: 'gpu' is not a device"},
      {"selfplay.device=cuda:x", "config key selfplay.device"},
      {"optimizer.device=tpu", "config key optimizer.device"},
      {"selfplay.precision=fp8", "config key selfplay.precision"},
      {"optimizer.precision=fp16", "config key optimizer.precision"},
      {"selfplay.max_plies=0", "config key selfplay.max_plies"},
      {"selfplay.gumbel_c_visit=0", "config key selfplay.gumbel_c_visit"},
      {"selfplay.temperature=-1", "config key selfplay.temperature"},
      {"variant=chess", "config key variant: unknown variant 'chess'"},
      {"net.preset=huge", "config key net.preset: net preset 'huge': unknown tower 'huge'"},
      {"net.preset=tiny-vpool-vpool",
       "config key net.preset: net preset 'tiny-vpool-vpool': option 'vpool' given twice"},
      {"replay.window_games=40",
       "config key replay.window_games: 40 is not used by replay.window_growth katago"},
      {"replay.window_growth=fixed", "config key replay.window_games: 0 is out of range 1.."},
      {"replay.window_growth=grow", "config key replay.window_growth: 'grow' is not one of"},
      {"replay.window_base_positions=0", "config key replay.window_base_positions: 0 is out"},
      {"replay.window_exponent=1.5", "config key replay.window_exponent: 1.5 is out of range"},
      {"replay.window_expansion=0", "config key replay.window_expansion"},
      {"replay.window_max_positions=100", "config key replay.window_max_positions: 100 is out"},
      {"replay.adjudicated_value_target=draw",
       "config key replay.adjudicated_value_target: 'draw' is not one of"},
      {"selfplay.cheap_simulations=16",
       "config key selfplay.cheap_simulations: 16 is out of range 1..15"},
      {"selfplay.full_search_fraction=1.5", "config key selfplay.full_search_fraction"},
      {"selfplay.resign_false_rate_target=2", "config key selfplay.resign_false_rate_target: 2"},
      {"selfplay.resign_disabled_fraction=0",
       "config key selfplay.resign_false_rate_target: 0.05 needs "
       "selfplay.resign_disabled_fraction above 0"},
      {"optimizer.optimizer=adam",
       "config key optimizer.optimizer: 'adam' is not one of sgd, adamw"},
      {"optimizer.schedule=linear", "config key optimizer.schedule"},
      {"optimizer.schedule=cosine", "config key optimizer.total_steps: 0 is out of range"},
      {"optimizer.learning_rate=0", "config key optimizer.learning_rate"},
      {"optimizer.momentum=1", "config key optimizer.momentum"},
      {"optimizer.material_loss_weight=-0.5", "config key optimizer.material_loss_weight"},
      {"optimizer.material_loss_weight=11", "config key optimizer.material_loss_weight"},
      {"optimizer.ownership_loss_weight=-1", "config key optimizer.ownership_loss_weight"},
      {"optimizer.ownership_loss_weight=10.5", "config key optimizer.ownership_loss_weight"},
      {"optimizer.batch_size=0", "config key optimizer.batch_size"},
      {"optimizer.checkpoint_every_steps=0", "config key optimizer.checkpoint_every_steps"},
      {"gating.games=21", "config key gating.games: 21 is odd"},
      {"gating.threshold=1.2", "config key gating.threshold"},
      {"gating.mode=coin", "config key gating.mode: 'coin' is not one of none, threshold, sprt"},
      {"strength.opponents=alphabeta:1,grandmaster", "config key strength.opponents"},
      {"strength.games=7", "config key strength.games: 7 is odd"},
      {"strength.games=0", "config key strength.games: 0 is out of range 2.."},
      {"strength.simulations=0", "config key strength.simulations"},
      {"evaluation.games=3", "config key evaluation.games"},
      {"stop.minutes=-1", "config key stop.minutes"},
  };
  for (const Case& c : cases) {
    proto::TrainConfig config = Demo();
    ApplyConfigOverride(config, c.assignment);
    const std::string error = ErrorOf([&] { ValidateTrainConfig(config); });
    EXPECT_TRUE(Contains(error, c.expected)) << c.assignment << " -> " << error;
  }
  // Playout cap randomisation on needs a fraction of full searches above 0.
  {
    proto::TrainConfig config = Demo();
    ApplyConfigOverride(config, "selfplay.cheap_simulations=4");
    EXPECT_EQ(ErrorOf([&] { ValidateTrainConfig(config); }), "");
    ApplyConfigOverride(config, "selfplay.full_search_fraction=0");
    const std::string error = ErrorOf([&] { ValidateTrainConfig(config); });
    EXPECT_TRUE(
        Contains(error, "config key selfplay.full_search_fraction: 0 is out of range (0, 1]"))
        << error;
  }
  // Switched off, gating needs no games; no evaluation needs no simulations; no strength checks
  // need no games.
  proto::TrainConfig config = Demo();
  ApplyConfigOverride(config, "gating.mode=none");
  ApplyConfigOverride(config, "gating.games=0");
  ApplyConfigOverride(config, "evaluation.games=0");
  ApplyConfigOverride(config, "evaluation.simulations=0");
  ApplyConfigOverride(config, "strength.every_checkpoints=0");
  ApplyConfigOverride(config, "strength.games=0");
  EXPECT_EQ(ErrorOf([&] { ValidateTrainConfig(config); }), "");
}

// gating.mode, the legacy gating.enabled of configs written before it, and the SPRT's parameters.
TEST(TrainConfigTest, GatingModesAndTheLegacySwitch) {
  // The presets: no gating on CPUs, the SPRT on GPUs.
  for (const Variant* variant : AllVariants()) {
    EXPECT_EQ(EffectiveGatingMode(PresetTrainConfig(variant->name(), "demo").gating()),
              GatingMode::kNone);
    EXPECT_EQ(EffectiveGatingMode(PresetTrainConfig(variant->name(), "gpu").gating()),
              GatingMode::kSprt);
  }
  // A config without a mode: the legacy switch decides, as before the modes.
  proto::TrainConfig legacy = ParseTrainConfigText(
      "variant: \"chad\"\ngating { enabled: true games: 16 threshold: 0.55 }\n", "old.txtpb");
  EXPECT_EQ(EffectiveGatingMode(legacy.gating()), GatingMode::kThreshold);
  legacy.mutable_gating()->set_enabled(false);
  EXPECT_EQ(EffectiveGatingMode(legacy.gating()), GatingMode::kNone);
  legacy.mutable_gating()->clear_enabled();
  EXPECT_EQ(EffectiveGatingMode(legacy.gating()), GatingMode::kNone);
  EXPECT_STREQ(GatingModeName(GatingMode::kSprt), "sprt");

  auto error_of = [](const std::vector<std::string>& assignments) {
    proto::TrainConfig config = Demo();
    for (const std::string& assignment : assignments) ApplyConfigOverride(config, assignment);
    return ErrorOf([&] { ValidateTrainConfig(config); });
  };
  // The legacy switch beside a mode must agree with it.
  EXPECT_EQ(error_of({"gating.enabled=false"}), "");  // mode none
  EXPECT_TRUE(Contains(error_of({"gating.enabled=true"}),
                       "config key gating.enabled: true contradicts gating.mode 'none'"));
  EXPECT_TRUE(Contains(error_of({"gating.mode=sprt", "gating.enabled=false"}),
                       "config key gating.enabled: false contradicts gating.mode 'sprt'"));
  EXPECT_EQ(error_of({"gating.mode=sprt", "gating.enabled=true"}), "");
  // Gating on needs games; the SPRT needs elo0 < elo1 and error rates in (0, 0.5).
  EXPECT_TRUE(Contains(error_of({"gating.mode=threshold", "gating.games=0"}),
                       "config key gating.games: 0 is out of range 2.."));
  EXPECT_EQ(error_of({"gating.mode=sprt"}), "");
  EXPECT_TRUE(Contains(error_of({"gating.mode=sprt", "gating.sprt.elo1=0"}),
                       "config key gating.sprt.elo1: 0 must be above gating.sprt.elo0 (0)"));
  EXPECT_TRUE(Contains(error_of({"gating.mode=sprt", "gating.sprt.alpha=0"}),
                       "config key gating.sprt.alpha: 0 is out of range (0, 0.5)"));
  EXPECT_TRUE(Contains(error_of({"gating.mode=sprt", "gating.sprt.beta=0.5"}),
                       "config key gating.sprt.beta"));
  // Outside mode sprt the SPRT's block is not checked for a test.
  EXPECT_EQ(error_of({"gating.sprt.alpha=0", "gating.sprt.elo1=-10"}), "");
}

// A run directory of a version before the switches of issue 18 has a config without them: it
// still validates, means the old behaviour (every new field at its zero value), and its hash is
// that of the same config written by the new version (an unset field is not serialized).
TEST(TrainConfigTest, ConfigsWithoutTheTargetSwitchesStillValidate) {
  proto::TrainConfig old = Demo();
  proto::SelfPlayConfig& s = *old.mutable_selfplay();
  s.set_gumbel_c_scale(1);
  s.clear_forced_moves_unsearched();
  s.clear_full_search_fraction();
  s.clear_cheap_simulations();
  s.clear_resign_false_rate_target();
  proto::ReplayConfig& r = *old.mutable_replay();
  r.clear_adjudicated_value_target();
  r.clear_window_growth();
  r.clear_window_base_positions();
  r.clear_window_exponent();
  r.clear_window_expansion();
  r.set_window_games(500);
  EXPECT_EQ(ErrorOf([&] { ValidateTrainConfig(old); }), "");
  const std::string text = TrainConfigText(old);
  for (const char* field :
       {"forced_moves_unsearched", "full_search_fraction", "cheap_simulations",
        "resign_false_rate_target", "adjudicated_value_target", "window_growth", "window_base"}) {
    EXPECT_FALSE(Contains(text, field)) << field;
  }
  EXPECT_EQ(TrainConfigHash(ParseTrainConfigText(text, "old config.txtpb")), TrainConfigHash(old));
  EXPECT_EQ(AdjudicatedValueOf(old.replay()), AdjudicatedValue::kResult);
  EXPECT_EQ(ReplayWindowSize(old.replay(), 1000000, 1).games, 500);
}

TEST(TrainConfigTest, TextErrorsNameFileLineAndKey) {
  const std::string text = "variant: \"chad\"\nselfplay {\n  simulations: 8\n  simulatons: 9\n}\n";
  const std::string typo = ErrorOf([&] { ParseTrainConfigText(text, "my.txtpb"); });
  EXPECT_TRUE(Contains(typo, "my.txtpb:4:")) << typo;
  EXPECT_TRUE(Contains(typo, "simulatons")) << typo;
  const std::string syntax = ErrorOf([] { ParseTrainConfigText("seed: 1\nnet {\n", "x.txtpb"); });
  EXPECT_TRUE(Contains(syntax, "x.txtpb:")) << syntax;
  const std::string type = ErrorOf([] { ParseTrainConfigText("\n\nseed: \"one\"\n", "y.txtpb"); });
  EXPECT_TRUE(Contains(type, "y.txtpb:3:")) << type;

  // The same through a file.
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("vz-config-" + std::to_string(getpid()) + ".txtpb"))
                               .string();
  std::ofstream(path) << text;
  const std::string from_file = ErrorOf([&] { ReadTrainConfigFile(path); });
  EXPECT_TRUE(Contains(from_file, path + ":4:")) << from_file;
  std::ofstream(path) << "# a comment\nvariant: \"cuarenta\"\nselfplay { simulations: 8 }\n";
  const proto::TrainConfig read = ReadTrainConfigFile(path);
  EXPECT_EQ(read.variant(), "cuarenta");
  EXPECT_EQ(read.selfplay().simulations(), 8u);
  std::filesystem::remove(path);
  const std::string missing = ErrorOf([&] { ReadTrainConfigFile(path); });
  EXPECT_TRUE(Contains(missing, path)) << missing;
}

TEST(TrainConfigTest, HashIgnoresStopAndDevicesAndFollowsEverythingElse) {
  const proto::TrainConfig base = Demo();
  const uint64_t hash = TrainConfigHash(base);
  EXPECT_EQ(TrainConfigHash(Demo()), hash);
  // When and where a run executes does not change the hash.
  for (const char* assignment :
       {"stop.minutes=99", "stop.train_steps=5", "stop.games=7", "preset=gpu",
        "selfplay.device=cuda:1", "selfplay.precision=bf16", "optimizer.device=cuda",
        "optimizer.precision=bf16", "selfplay.cpu_threads=3", "selfplay.actor_threads=4",
        "optimizer.cpu_threads=2"}) {
    proto::TrainConfig config = base;
    ApplyConfigOverride(config, assignment);
    EXPECT_EQ(TrainConfigHash(config), hash) << assignment;
  }
  // An explicit legacy `gating.enabled: false` means what no value means.
  proto::TrainConfig legacy = base;
  legacy.mutable_gating()->set_enabled(false);
  EXPECT_EQ(TrainConfigHash(legacy), hash);
  std::set<uint64_t> hashes = {hash};
  for (const char* assignment :
       {"seed=2", "net.preset=small", "selfplay.simulations=17", "selfplay.temperature=0.5",
        "replay.window_base_positions=20001", "replay.adjudicated_value_target=search",
        "replay.value_target_search_weight=0.25", "replay.material_horizon_plies=8",
        "optimizer.ownership_loss_weight=0.5", "warm_start.games=601",
        "evaluation.leaf_quiescence=false", "selfplay.leaf_quiescence=false",
        "selfplay.forced_moves_unsearched=false", "selfplay.gumbel_c_scale=1",
        "optimizer.augment=false", "gating.mode=threshold", "evaluation.games=22",
        "strength.games=2", "variant=chad"}) {
    proto::TrainConfig config = base;
    ApplyConfigOverride(config, assignment);
    EXPECT_TRUE(hashes.insert(TrainConfigHash(config)).second) << assignment;
  }
}

}  // namespace
}  // namespace vz
