#!/usr/bin/env bash
# ThreadSanitizer over the threaded parts of the engine-only build (-DVZ_USE_TORCH=OFF
# -DVZ_USE_CUDA=OFF, clang) in build-tsan/: the UCI engine (search thread, rollout worker threads,
# stop/quit/isready while a search runs) in-process and through the instrumented vzero binary,
# the analysis engine and its command's reader thread, parallel matches, the run directory's
# concurrent writers, the task team and the self-play actor groups on it (with the uniform
# evaluator), the trainer's batch prefetch. By default (CI) only the in-process tests are built:
# uci_engine_test, analysis_test, match_test, run_dir_test, task_team_test,
# concurrent_actors_test and batch_prefetch_test; VZ_TSAN_TESTS=all builds the
# target threaded_tests (CMakeLists.txt lists it), which adds the instrumented vzero and the CLI
# tests that drive it (uci_cli_test, analysis_cli_test). `ctest -L unit` there runs only what was
# built. Not covered: the LibTorch evaluators inside the actor groups, the trainer and the c10d
# threads (they need LibTorch).
# Prints CTest's summary; exits non-zero on any data race, deadlock report or failing test.
# Usage: scripts/tsan.sh [ctest options]
# Env:   VZ_TSAN_BUILD_DIR (default build-tsan), VZ_JOBS (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitizer_build.sh
build_dir="${VZ_TSAN_BUILD_DIR:-build-tsan}"
targets=(uci_engine_test line_io_test analysis_test match_test run_dir_test task_team_test
         concurrent_actors_test batch_prefetch_test)
if [[ "${VZ_TSAN_TESTS:-}" == all ]]; then targets=(threaded_tests); fi
vz_sanitizer_build "$build_dir" thread OFF "${targets[@]}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:second_deadlock_stack=1}"
ctest --test-dir "$build_dir" -L unit --output-on-failure -j "${VZ_JOBS:-$(nproc)}" "$@"
