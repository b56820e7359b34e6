#!/usr/bin/env bash
# Installs everything, builds, and runs every test (labels unit, slow and gpu; gpu tests skip
# without a CUDA device), after the reliability checks of docs/reliability.md: the unit tests
# under AddressSanitizer + UndefinedBehaviorSanitizer (scripts/sanitize.sh), the threaded tests
# under ThreadSanitizer (scripts/tsan.sh), and a bounded run of every fuzz target
# (scripts/fuzz.sh: VZ_CI_FUZZ_RUNS inputs, default 20000, at most VZ_CI_FUZZ_SECONDS, default 20,
# per target). Each step prints its wall time. CTest's summary of the main build is printed last;
# exits non-zero if any step fails.
# Usage: scripts/test.sh [ctest options for the main build, e.g. -L unit]
# Env:   VZ_CI_SANITIZERS=0 skips the sanitizer and fuzz steps
set -euo pipefail
cd "$(dirname "$0")/.."
step() {
  local name="$1" start status=0
  shift
  start=$(date +%s)
  "$@" || status=$?
  echo "test.sh: $name: $(($(date +%s) - start)) s, exit $status"
  return "$status"
}
failed=()
step "main build" bash scripts/build.sh
if [[ "${VZ_CI_SANITIZERS:-1}" != 0 ]]; then
  step "asan+ubsan" bash scripts/sanitize.sh || failed+=(scripts/sanitize.sh)
  step "tsan" bash scripts/tsan.sh || failed+=(scripts/tsan.sh)
  VZ_FUZZ_SECONDS="${VZ_CI_FUZZ_SECONDS:-20}" \
    step "fuzz" bash scripts/fuzz.sh "${VZ_CI_FUZZ_RUNS:-20000}" || failed+=(scripts/fuzz.sh)
fi
step "main tests" ctest --test-dir "${VZ_BUILD_DIR:-build}" --output-on-failure \
  -j "${VZ_JOBS:-$(nproc)}" "$@" || failed+=(ctest)
if ((${#failed[@]})); then
  echo "test.sh: FAILED: ${failed[*]} (their output is above)"
  exit 1
fi
