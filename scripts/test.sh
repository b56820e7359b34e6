#!/usr/bin/env bash
# Installs everything, builds, and runs every test (labels unit, slow and gpu; gpu tests skip
# without a CUDA device). Prints CTest's summary; exits non-zero if any test fails.
# Usage: scripts/test.sh [ctest options, e.g. -L unit]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir "${VZ_BUILD_DIR:-build}" --output-on-failure -j "${VZ_JOBS:-$(nproc)}" "$@"
