// vzero: an AlphaZero-style engine for Chaco Rex, Chad, Cuarenta and Portuguese draughts.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "app/commands.h"
#include "engine/core/error.h"

int main(int argc, char** argv) {
  CLI::App app{
      "vzero: AlphaZero-style engine for Chaco Rex, Chad, Cuarenta and Portuguese draughts"};
  app.require_subcommand(1);
  vz::app::AddVersionCommand(app);
  vz::app::AddPerftCommand(app);
  vz::app::AddShowCommand(app);
  vz::app::AddSearchCommand(app);
  vz::app::AddBenchCommand(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "vzero: %s\n", e.what());
    return 1;
  } catch (const vz::Error& e) {
    std::fprintf(stderr, "vzero: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vzero: unexpected error: %s\n", e.what());
    return 1;
  }
  return 0;
}
