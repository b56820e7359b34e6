#!/usr/bin/env bash
# Installs everything vzero needs on Debian 12, idempotently:
#   - Debian packages (compiler, CMake, protobuf, GoogleTest, CLI11, fmt, spdlog, nlohmann-json,
#     cpp-httplib for `vzero serve`, chromium + chromedriver + selenium for its browser test, ...)
#   - LibTorch, from PyPI's `torch` wheel pinned to the GPU machines' version, into a virtual
#     environment at a fixed path outside the checkout (created only when missing).
# Usage: scripts/setup.sh            (as root; safe to rerun)
# Env:   VZ_VENV   path of the virtual environment (default /opt/vzero/venv)
#        VZ_TORCH_VERSION  torch version to pin (default 2.11.0)
#        VZ_SKIP_TORCH=1   skip the LibTorch install (engine-only builds)
set -euo pipefail

VZ_VENV="${VZ_VENV:-/opt/vzero/venv}"
VZ_TORCH_VERSION="${VZ_TORCH_VERSION:-2.11.0}"

packages=(
  build-essential cmake ninja-build pkg-config git python3 python3-venv
  libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev zlib1g-dev
  gnuplot-nox hyperfine ccache
  libcpp-httplib-dev
  chromium chromium-driver python3-selenium
  clang libclang-rt-14-dev llvm
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages present"
fi

if [[ "${VZ_SKIP_TORCH:-0}" != 1 ]]; then
  if [[ -x "$VZ_VENV/bin/python" ]] &&
     "$VZ_VENV/bin/python" -c "import torch,sys; sys.exit(torch.__version__.split('+')[0] != '$VZ_TORCH_VERSION')" 2>/dev/null; then
    echo "setup: torch $VZ_TORCH_VERSION present in $VZ_VENV"
  else
    echo "setup: installing torch==$VZ_TORCH_VERSION into $VZ_VENV (several GB, once)"
    python_bin="$(command -v python3)"
    mkdir -p "$(dirname "$VZ_VENV")"
    [[ -x "$VZ_VENV/bin/python" ]] || "$python_bin" -m venv "$VZ_VENV"
    "$VZ_VENV/bin/pip" install --quiet --disable-pip-version-check "torch==$VZ_TORCH_VERSION"
  fi
fi
