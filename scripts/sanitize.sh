#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover=all: the first finding
# aborts the process, so that its test fails) over unit tests of the engine-only build
# (-DVZ_USE_TORCH=OFF -DVZ_USE_CUDA=OFF, clang) in build-asan/; LeakSanitizer runs with ASan. The
# same build carries the fuzz targets (scripts/fuzz.sh). To keep CI within its time on 2 cores,
# only the tests listed below are built by default (`ctest -L unit` then runs just them): the
# typed conformance suite and perft tables of every game, MCTS and Gumbel search, the UCI engine
# in-process, the analysis engine, record chunks, the replay window, train configs, matches and
# the run directory. VZ_ASAN_TESTS=all builds and runs every unit test, the CLI tests included
# (they run this build's instrumented vzero). Never covered: nets/ and everything that needs
# LibTorch or CUDA.
# Prints CTest's summary; exits non-zero on any finding or failing test. docs/reliability.md.
# Usage: scripts/sanitize.sh [ctest options, e.g. -R uci]
# Env:   VZ_ASAN_BUILD_DIR (default build-asan), VZ_JOBS (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitizer_build.sh
build_dir="${VZ_ASAN_BUILD_DIR:-build-asan}"
# The default list (what CI runs): in-process tests of the parsers, the rules and the search.
tests=(conformance_test perft_data_test search_mcts_test search_driver_test search_gumbel_test
       uci_engine_test analysis_test game_record_test run_files_test selfplay_replay_window_test
       selfplay_train_config_test match_test run_dir_test)
if [[ "${VZ_ASAN_TESTS:-}" == all ]]; then tests=(all); fi
vz_sanitizer_build "$build_dir" address,undefined ON fuzz "${tests[@]}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir "$build_dir" -L unit --output-on-failure -j "${VZ_JOBS:-$(nproc)}" "$@"
