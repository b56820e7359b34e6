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
# ccache (from setup.sh) makes rebuilds and fresh clones on the same machine cheap; paths are
# hashed relative to the checkout so that clones in other folders share the cache.
if command -v ccache >/dev/null && [[ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]]; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CMAKE_CUDA_COMPILER_LAUNCHER=ccache
fi
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${prefix_args[@]}" "$@"
cmake --build "$build_dir" -j "${VZ_JOBS:-$(nproc)}"
