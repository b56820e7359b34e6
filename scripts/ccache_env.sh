#!/usr/bin/env bash
# Sourced by scripts/build.sh and scripts/sanitizer_build.sh: compiles through ccache (installed by
# setup.sh) when it is present and no launcher was chosen, with paths hashed relative to the
# checkout so that rebuilds and fresh clones on the same machine share the cache.
if command -v ccache >/dev/null && [[ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]]; then
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}" CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CMAKE_CUDA_COMPILER_LAUNCHER=ccache
fi
