#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover=all: the first finding
# aborts the process, so that its test fails) over the unit tests below of the engine-only build
# (-DVZ_USE_TORCH=OFF -DVZ_USE_CUDA=OFF, clang) in build-asan/, the CLI tests included (they run
# that build's instrumented vzero); LeakSanitizer runs with ASan. The same build carries the fuzz
# targets (scripts/fuzz.sh). To keep CI within its time on 2 cores, only these tests are built
# (`ctest -L unit` then runs just them): the typed conformance suite and perft tables of every
# game, each game's notation and rules tests, the search, the UCI engine, the analysis engine,
# self-play records, configs, matches and the CLI tests. VZ_ASAN_TESTS=all builds every unit
# test. Not covered: the games' encoding and reference tests (unless all), nets/ and everything
# that needs LibTorch or CUDA.
# Prints CTest's summary; exits non-zero on any finding or failing test. docs/reliability.md.
# Usage: scripts/sanitize.sh [ctest options, e.g. -R uci]
# Env:   VZ_ASAN_BUILD_DIR (default build-asan), VZ_JOBS (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitizer_build.sh
build_dir="${VZ_ASAN_BUILD_DIR:-build-asan}"
tests=(conformance_test perft_data_test
       draughts_notation_test draughts_rules_test cuarenta_notation_test cuarenta_rules_test
       chad_notation_test chad_rules_test chaco_rex_notation_test chaco_rex_rules_test
       search_mcts_test search_gumbel_test search_evaluator_test search_policy_test
       search_games_test time_manager_test search_cli_test uci_cli_test uci_engine_test
       selfplay_analysis_test analysis_cli_test play_cli_test selfplay_game_record_test
       selfplay_match_test selfplay_record_test selfplay_replay_window_test selfplay_stats_test
       selfplay_train_config_test run_dir_test)
if [[ "${VZ_ASAN_TESTS:-}" == all ]]; then tests=(all); fi
vz_sanitizer_build "$build_dir" address,undefined ON vzero fuzz "${tests[@]}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir "$build_dir" -L unit --output-on-failure -j "${VZ_JOBS:-$(nproc)}" "$@"
