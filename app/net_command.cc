// `vzero net init`, `vzero net describe` and `vzero net diagnose`: create and inspect net files
// (nets/net_file.h) and measure what a net knows of material (research/net_diagnostics.h).

#include <fmt/core.h>

#include <memory>
#include <string>

#include "app/commands.h"
#include "build_info.h"
#include "nets/net_file.h"
#include "nets/variant_nets.h"
#include "research/net_diagnostics.h"

namespace vz::app {
namespace {

struct NetInitOptions {
  std::string variant;
  std::string preset = "small";
  std::string output;
  uint64_t seed = 1;
  std::string note;
};

void RunNetInit(const NetInitOptions& options) {
  nets::NetFile net = nets::FreshNetForVariant(options.variant, options.preset, options.seed);
  net.provenance.source_revision = VZ_GIT_REVISION;
  net.provenance.note = options.note;
  nets::WriteNetFile(options.output, net);
  fmt::print("wrote {}: {} {} ({}), {} parameters\n", options.output, net.game, options.preset,
             nets::DescribeArchitecture(net.architecture), net.ParameterCount());
}

void RunNetDescribe(const std::string& path) {
  const nets::NetFile net = nets::ReadNetFile(path);
  const nets::NetArchitecture& a = net.architecture;
  fmt::print("file             {}\n", path);
  fmt::print("format_version   {}\n", net.format_version);
  fmt::print("game             {}\n", net.game);
  fmt::print("input_encoding   {} v{}\n", net.input_encoding, net.input_version);
  fmt::print("action_encoding  {} v{}\n", net.action_encoding, net.action_version);
  fmt::print("architecture     {}\n", nets::DescribeArchitecture(a));
  fmt::print("preset           {}\n", a.preset.empty() ? "-" : a.preset);
  fmt::print("blocks           {}\n", a.blocks);
  fmt::print("channels         {}\n", a.channels);
  fmt::print("squeeze_excite   {}{}\n", a.squeeze_excitation ? "yes" : "no",
             a.squeeze_excitation ? fmt::format(" (ratio {})", a.se_ratio) : "");
  if (a.global_pooling_channels > 0) {
    fmt::print("global_pooling   {} channels in every {} block(s)\n", a.global_pooling_channels,
               a.global_pooling_every);
  } else {
    fmt::print("global_pooling   no\n");
  }
  fmt::print("input            {} planes x {} x {}\n", a.input_planes, a.height, a.width);
  if (a.policy_head == nets::PolicyHead::kConv) {
    fmt::print("policy           conv: {} channels -> {} planes -> {} actions\n", a.policy_channels,
               a.policy_planes, a.num_actions);
  } else {
    fmt::print("policy           fc: {} channels -> {} actions\n", a.policy_channels,
               a.num_actions);
  }
  if (a.value_head == nets::ValueHead::kPool) {
    fmt::print(
        "value            pool: {} channels -> mean, max over the board -> {} hidden -> WDL\n",
        a.value_channels, a.value_hidden);
  } else {
    fmt::print("value            fc: {} channels -> {} hidden -> WDL\n", a.value_channels,
               a.value_hidden);
  }
  if (a.material_outputs > 0) {
    fmt::print(
        "material         {} piece-type count differences, from the pooled value features "
        "(trained, not played)\n",
        a.material_outputs);
  }
  if (a.ownership) {
    fmt::print(
        "ownership        each cell's final occupant (empty, own, opponent's), a 1x1 "
        "convolution of the tower (trained, not played)\n");
  }
  fmt::print("tensors          {}\n", net.tensors.size());
  fmt::print("parameters       {} (stored values, batch-norm statistics included)\n",
             net.ParameterCount());
  fmt::print("training_steps   {}\n", net.provenance.training_steps);
  fmt::print("games            {}\n", net.provenance.games);
  fmt::print("parent           {}\n", net.provenance.parent.empty() ? "-" : net.provenance.parent);
  fmt::print("created          {}\n", net.provenance.created);
  fmt::print("source_revision  {}\n", net.provenance.source_revision);
  if (!net.provenance.note.empty()) fmt::print("note             {}\n", net.provenance.note);
  fmt::print("knowledge        {}\n",
             net.provenance.knowledge.empty() ? "- (not recorded)" : net.provenance.knowledge);
  try {
    nets::CheckNetForItsGame(net, path);
    fmt::print("compatible       yes (this build's encodings)\n");
  } catch (const Error& error) {
    fmt::print("compatible       no: {}\n", error.what());
  }
}

struct NetDiagnoseOptions {
  std::string file;
  research::NetDiagnosticsConfig config;
};

void RunNetDiagnose(const NetDiagnoseOptions& options) {
  const research::NetDiagnostics diagnostics =
      research::DiagnoseNetFile(options.file, options.config);
  fmt::print("{}",
             research::FormatNetDiagnostics(diagnostics, "Net " + options.file, options.config));
}

}  // namespace

void AddNetCommand(CLI::App& app) {
  CLI::App* command = app.add_subcommand("net", "Create and inspect network files");
  command->require_subcommand(1);

  auto init = std::make_shared<NetInitOptions>();
  CLI::App* init_command =
      command->add_subcommand("init", "Write a net with fresh weights for a game");
  init_command->add_option("--variant", init->variant, "Game name")->required();
  init_command->add_option("--preset", init->preset,
                           "Architecture: tiny, small, medium, large or bNcM, then any of -se, "
                           "-fc, -vpool, -gpool, -mat, -own (e.g. b6c32-gpool-vpool)");
  init_command->add_option("-o,--output", init->output, "Net file to write")->required();
  init_command->add_option("--seed", init->seed, "Seed of the initial weights");
  init_command->add_option("--note", init->note, "Free text stored in the provenance");
  init_command->callback([init] { RunNetInit(*init); });

  auto path = std::make_shared<std::string>();
  CLI::App* describe =
      command->add_subcommand("describe", "Print a net file's header and parameter count");
  describe->add_option("file", *path, "Net file")->required();
  describe->callback([path] { RunNetDescribe(*path); });

  auto diagnose = std::make_shared<NetDiagnoseOptions>();
  CLI::App* diagnose_command = command->add_subcommand(
      "diagnose",
      "Measure what a net knows of material on positions of its own games: its value's drop when "
      "one piece of each kind is removed, its agreement with alpha-beta, the share of its "
      "first-choice moves that lose material by alpha-beta's judgement");
  research::NetDiagnosticsConfig& c = diagnose->config;
  diagnose_command->add_option("file", diagnose->file, "Net file")->required();
  diagnose_command->add_option("--positions", c.positions, "Positions analysed")
      ->check(CLI::Range(2, 1000000));
  diagnose_command->add_option("--opening-plies", c.opening_plies, "Random plies opening a game")
      ->check(CLI::Range(0, 1000));
  diagnose_command->add_option("--sample-every", c.sample_every, "A position every N plies")
      ->check(CLI::Range(1, 1000));
  diagnose_command->add_option("--max-plies", c.max_plies, "Plies of a game at most")
      ->check(CLI::Range(1, 100000));
  diagnose_command->add_option("--judge-depth", c.judge_depth, "The judge is alphabeta:DEPTH")
      ->check(CLI::Range(2, 5));
  diagnose_command
      ->add_option("--blunder-margin", c.blunder_margin,
                   "Centipawns below alpha-beta's best that make a move material-losing")
      ->check(CLI::Range(0, 100000));
  diagnose_command->add_option("--seed", c.seed, "Seed of the random openings and removals");
  diagnose_command->callback([diagnose] { RunNetDiagnose(*diagnose); });
}

}  // namespace vz::app
