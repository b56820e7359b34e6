#!/usr/bin/env bash
# Installs the dependencies (scripts/setup.sh), configures and builds vzero into build/.
# Usage: scripts/build.sh [extra cmake -D options]
# Env:   VZ_BUILD_DIR (default build), VZ_VENV (see setup.sh), VZ_JOBS (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir="${VZ_BUILD_DIR:-build}"
venv="${VZ_VENV:-/opt/vzero/venv}"
prefix_args=()
if [[ -x "$venv/bin/python" ]]; then
  torch_prefix="$("$venv/bin/python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)"
  [[ -n "$torch_prefix" ]] && prefix_args+=("-DCMAKE_PREFIX_PATH=$torch_prefix")
fi
source scripts/ccache_env.sh
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix_args[@]}" "$@"
cmake --build "$build_dir" -j "${VZ_JOBS:-$(nproc)}"
