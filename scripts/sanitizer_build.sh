#!/usr/bin/env bash
# Configures and builds an engine-only sanitizer build with clang (sourced by scripts/sanitize.sh,
# scripts/tsan.sh and scripts/fuzz.sh; not meant to be run alone).
# Usage: vz_sanitizer_build BUILD_DIR SANITIZERS FUZZ(ON|OFF) [targets...]
# Env:   VZ_JOBS (default: nproc)
# The build has no LibTorch and no CUDA (-DVZ_USE_TORCH=OFF -DVZ_USE_CUDA=OFF): engine/, serve/,
# selfplay/ (without the network parts) and the vzero binary of that configuration. Optimized
# (-O1) with VZ_DCHECK on (no NDEBUG) and line tables for readable stacks.
source scripts/ccache_env.sh
vz_sanitizer_build() {
  local build_dir="$1" sanitizers="$2" fuzz="$3"
  shift 3
  local configure=(-S . -B "$build_dir" -G Ninja
    -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only"
    -DVZ_USE_TORCH=OFF -DVZ_USE_CUDA=OFF -DVZ_BUILD_BENCHMARKS=OFF
    "-DVZ_SANITIZE=$sanitizers" "-DVZ_FUZZ=$fuzz")
  mkdir -p "$build_dir"
  cmake "${configure[@]}" >"$build_dir/configure.log" 2>&1 ||
    { cat "$build_dir/configure.log"; return 1; }
  local targets=()
  for target in "$@"; do targets+=(--target "$target"); done
  cmake --build "$build_dir" -j "${VZ_JOBS:-$(nproc)}" "${targets[@]}"
}
