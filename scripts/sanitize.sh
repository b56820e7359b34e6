#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer (-fno-sanitize-recover=all: the first finding
# aborts the process, so that its test fails) over every unit test of the engine-only build
# (-DVZ_USE_TORCH=OFF -DVZ_USE_CUDA=OFF, clang) in build-asan/, the CLI tests included (they run
# that build's instrumented vzero); LeakSanitizer runs with ASan. The same build carries the fuzz
# targets (scripts/fuzz.sh). Not covered: nets/ and everything that needs LibTorch or CUDA.
# Prints CTest's summary; exits non-zero on any finding or failing test. docs/reliability.md.
# Usage: scripts/sanitize.sh [ctest options, e.g. -R uci]
# Env:   VZ_ASAN_BUILD_DIR (default build-asan), VZ_JOBS (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitizer_build.sh
build_dir="${VZ_ASAN_BUILD_DIR:-build-asan}"
vz_sanitizer_build "$build_dir" address,undefined ON all
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
ctest --test-dir "$build_dir" -L unit --output-on-failure -j "${VZ_JOBS:-$(nproc)}" "$@"
