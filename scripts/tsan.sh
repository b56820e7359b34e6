#!/usr/bin/env bash
# ThreadSanitizer over the threaded parts of the engine-only build (-DVZ_USE_TORCH=OFF
# -DVZ_USE_CUDA=OFF, clang) in build-tsan/: the UCI engine (search thread, rollout worker threads,
# stop/quit/isready while a search runs) in-process and through the instrumented vzero binary,
# the analysis engine and its command's reader thread, parallel matches, the run directory's
# concurrent writers. Only the target threaded_tests (CMakeLists.txt lists its tests) is built, so
# `ctest -L unit` there runs just those. Not covered: the LibTorch self-play actors, the trainer
# and the c10d threads (they need LibTorch).
# Prints CTest's summary; exits non-zero on any data race, deadlock report or failing test.
# Usage: scripts/tsan.sh [ctest options]
# Env:   VZ_TSAN_BUILD_DIR (default build-tsan), VZ_JOBS (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitizer_build.sh
build_dir="${VZ_TSAN_BUILD_DIR:-build-tsan}"
vz_sanitizer_build "$build_dir" thread OFF threaded_tests
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:second_deadlock_stack=1}"
ctest --test-dir "$build_dir" -L unit --output-on-failure -j "${VZ_JOBS:-$(nproc)}" "$@"
