#!/usr/bin/env bash
# Issue 32's fusions on the CPU: compiles scripts/fusion_check.cc against the venv's LibTorch
# (scripts/setup.sh makes it) and prints its table of positions/s (docs/performance.md, "Fusions").
# Run it on an idle machine: it measures one thread. Usage: bash scripts/fusion-check.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${VZ_VENV:-/opt/vzero/venv}"
torch_dir="$("$venv/bin/python" -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null)" ||
  { echo "fusion-check: no LibTorch in $venv (run scripts/setup.sh, or set VZ_VENV)" >&2; exit 1; }
abi="$("$venv/bin/python" -c 'import torch; print(int(torch.compiled_with_cxx11_abi()))')"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
g++ -std=c++20 -O2 -D_GLIBCXX_USE_CXX11_ABI=$abi -I"$torch_dir/include" \
  -I"$torch_dir/include/torch/csrc/api/include" "$here/fusion_check.cc" -o "$work/fusion_check" \
  -L"$torch_dir/lib" -ltorch -ltorch_cpu -lc10 -Wl,-rpath,"$torch_dir/lib"
"$work/fusion_check"
