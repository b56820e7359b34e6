#!/usr/bin/env bash
# Builds vzero's GPU path on a GPU machine that reaches no package registry, runs the `gpu` test
# label and the GPU benchmarks, and writes the results into one folder (docs/gpu.md explains them).
# About 8 minutes on a 16-core machine with one GPU.
#
# On that machine LibTorch is the one inside its own PyTorch (`python3 -c 'import torch;
# print(torch.utils.cmake_prefix_path)'`); the other C++ dependencies travel with the working tree
# as Debian packages in third_party/debs/ (fetched beforehand on a Debian 12 machine with network
# by scripts/fetch-debs.sh) and are unpacked here with `dpkg -x` into a prefix, never into /.
#
# Usage: scripts/gpu-check.sh [RESULTS_DIR]     (default: $OUT if set, else out/gpu-check)
# Steps, in order (VZ_GPU_CHECK_STEPS, comma-separated, default all):
#   environment  GPU, driver, nvcc, compiler, CMake and PyTorch versions -> environment.txt
#   deps         unpack third_party/debs/*.deb into the prefix, repoint absolute symlinks into it,
#                write a protoc wrapper that finds its libraries
#   configure    CMake (Ninja, Release) with CMAKE_PREFIX_PATH = prefix + LibTorch, protoc from
#                the prefix, VZ_USE_CUDA=ON, VZ_USE_TORCH=ON; prints where each package was found
#   build        the vzero binary, every *_gpu_test and bench/batched_rules_gpu_bench
#   test         ctest -L gpu -> ctest-gpu.log
#   bench        batched_rules_gpu_bench (rules kernels vs CPU twin, GPU vs LibTorch evaluator)
#                -> rules-bench.json
#   nnbench      `vzero nnbench` per game on cuda and on the CPU -> nnbench.txt
#   selfplay     `vzero train --preset gpu` for VZ_GPU_CHECK_SELFPLAY_MINUTES (default 0.5) of
#                Chad, if this build has `train` -> selfplay.txt
# Every step appends to gpu-check.log; summary.md gathers the figures at the end (at most 8 files
# in the results folder). Exit status: non-zero if the build or a gpu test failed.
# Env: VZ_PYTHON (python3), VZ_DEBS (third_party/debs), VZ_DEPS_PREFIX (/tmp/vzero-deps),
#      VZ_BUILD_DIR (build-gpu-check), VZ_GPU_CHECK_JOBS (nproc), VZ_GPU_CHECK_TARGETS (override
#      the build targets), VZ_GPU_CHECK_CMAKE_ARGS (extra configure arguments).
set -uo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
started=$(date +%s)

results="${1:-${OUT:-$root/out/gpu-check}}"
mkdir -p "$results"
results="$(cd "$results" && pwd)"
log="$results/gpu-check.log"
: >"$log"
python="${VZ_PYTHON:-python3}"
debs="${VZ_DEBS:-$root/third_party/debs}"
[[ -d "$debs" ]] && debs="$(cd "$debs" && pwd)"
prefix="${VZ_DEPS_PREFIX:-/tmp/vzero-deps}"
build="${VZ_BUILD_DIR:-$root/build-gpu-check}"
jobs="${VZ_GPU_CHECK_JOBS:-$(nproc)}"
steps=",${VZ_GPU_CHECK_STEPS:-environment,deps,configure,build,test,bench,nnbench,selfplay},"
status=0

say() { echo "gpu-check [$(($(date +%s) - started))s] $*" | tee -a "$log"; }
want() { [[ "$steps" == *",$1,"* ]]; }
fail() { say "FAILED: $*"; status=1; }
# Runs a command with its output appended to the log (and shown).
run_logged() { "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; }

if want environment; then
  say "environment"
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -srm), $(nproc) cores"
    [[ -r /etc/os-release ]] && echo "os: $(. /etc/os-release && echo "$PRETTY_NAME")"
    if command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader |
        sed 's/^/gpu: /'
    else
      echo "gpu: none (no nvidia-smi)"
    fi
    command -v nvcc >/dev/null && echo "nvcc: $(nvcc --version | tail -1)"
    echo "c++: $(c++ --version 2>/dev/null | head -1)"
    echo "cmake: $(cmake --version | head -1)"
    echo "ninja: $(ninja --version 2>/dev/null)"
    "$python" -c 'import torch; print("torch:", torch.__version__, "cuda", torch.version.cuda,
      "devices", torch.cuda.device_count())' 2>/dev/null || echo "torch: not importable by $python"
    echo "revision: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  } >"$results/environment.txt" 2>&1
  tee -a "$log" <"$results/environment.txt"
fi

if want deps; then
  say "unpacking $(ls "$debs"/*.deb 2>/dev/null | wc -l) packages from $debs into $prefix"
  if ! compgen -G "$debs/*.deb" >/dev/null; then
    fail "no .deb files in $debs: run scripts/fetch-debs.sh on a machine with network first"
    exit 1
  fi
  rm -rf "$prefix"
  mkdir -p "$prefix"
  for deb in "$debs"/*.deb; do
    if command -v dpkg >/dev/null; then
      dpkg -x "$deb" "$prefix" || fail "dpkg -x $deb"
    else  # not a Debian-like system: a .deb is an ar archive holding data.tar.*
      (cd "$prefix" && ar p "$deb" "$(ar t "$deb" | grep '^data.tar')" | tar -xJf - 2>/dev/null ||
       ar p "$deb" "$(ar t "$deb" | grep '^data.tar')" | tar -xf -) || fail "unpacking $deb"
    fi
  done
  # Debian's dev symlinks may be absolute (libz.so -> /lib/x86_64-linux-gnu/libz.so.1.2.13):
  # point each one whose target the prefix holds at that copy.
  while IFS= read -r link; do
    target="$(readlink "$link")"
    if [[ "$target" == /* && -e "$prefix$target" ]]; then ln -sfn "$prefix$target" "$link"; fi
  done < <(find "$prefix" -type l)
  # Merged /usr: libraries of packages that install into /lib are found under usr/lib too.
  for dir in "$prefix"/lib/*-linux-gnu; do
    [[ -d "$dir" ]] || continue
    mkdir -p "$prefix/usr/lib/$(basename "$dir")"
    for file in "$dir"/*; do
      [[ -e "$prefix/usr/lib/$(basename "$dir")/$(basename "$file")" ]] ||
        ln -s "$file" "$prefix/usr/lib/$(basename "$dir")/$(basename "$file")"
    done
  done
  # protoc needs the prefix's libprotoc and libprotobuf: a wrapper sets its library path only.
  cat >"$prefix/protoc" <<EOF
#!/usr/bin/env bash
export LD_LIBRARY_PATH="$(echo "$prefix"/usr/lib/*-linux-gnu)\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$prefix/usr/bin/protoc" "\$@"
EOF
  chmod +x "$prefix/protoc"
  run_logged "$prefix/protoc" --version || fail "protoc from the prefix does not run"
fi
libdirs="$(echo "$prefix"/usr/lib/*-linux-gnu)"

if want configure; then
  say "configure"
  torch_prefix="$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"
  [[ -n "$torch_prefix" ]] || fail "no LibTorch: '$python -c \"import torch\"' failed"
  # shellcheck disable=SC2206
  extra=(${VZ_GPU_CHECK_CMAKE_ARGS:-})
  if run_logged cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
       "-DCMAKE_PREFIX_PATH=$prefix/usr;$torch_prefix" \
       "-DProtobuf_PROTOC_EXECUTABLE=$prefix/protoc" \
       -DVZ_USE_CUDA=ON -DVZ_USE_TORCH=ON "${extra[@]}"; then
    say "packages found at:"
    grep -E '^(Protobuf_INCLUDE_DIR|Protobuf_LIBRARY_RELEASE|Protobuf_PROTOC_EXECUTABLE|fmt_DIR|spdlog_DIR|CLI11_DIR|nlohmann_json_DIR|GTest_DIR|benchmark_DIR|ZLIB_INCLUDE_DIR|ZLIB_LIBRARY_RELEASE|Torch_DIR|CMAKE_CUDA_COMPILER):' \
      "$build/CMakeCache.txt" | tee -a "$log"
  else
    fail "configure"
    exit 1
  fi
fi

if want build; then
  if [[ -n "${VZ_GPU_CHECK_TARGETS:-}" ]]; then
    read -r -a targets <<<"$VZ_GPU_CHECK_TARGETS"
  else
    targets=(vzero batched_rules_gpu_bench)
    while IFS= read -r source; do targets+=("$(basename "$source" .cc)"); done \
      < <(find "$root/tests" -name '*_gpu_test.cc' | sort)
  fi
  say "build (-j$jobs): ${targets[*]}"
  if cmake --build "$build" -j "$jobs" --target "${targets[@]}" >"$build/build.log" 2>&1; then
    say "build done"
  else
    tail -n 80 "$build/build.log" | tee -a "$log"
    fail "build (full log: $build/build.log)"
    exit 1
  fi
fi

# The built programs find the prefix's libraries through their RUNPATH; the library path is a
# belt and braces for anything loaded later.
export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

if want test; then
  say "ctest -L gpu"
  if ctest --test-dir "$build" -L gpu --output-on-failure -j 4 --timeout 300 \
       >"$results/ctest-gpu.log" 2>&1; then
    say "gpu tests passed: $(grep -E 'tests passed' "$results/ctest-gpu.log")"
  else
    fail "gpu tests: $(grep -E 'tests passed' "$results/ctest-gpu.log")"
  fi
  tail -n 30 "$results/ctest-gpu.log" >>"$log"
fi

if want bench; then
  say "batched_rules_gpu_bench"
  run_logged "$build/batched_rules_gpu_bench" --benchmark_out="$results/rules-bench.json" \
    --benchmark_out_format=json || say "benchmark exited with an error (see the log)"
fi

if want nnbench; then
  say "vzero nnbench"
  : >"$results/nnbench.txt"
  for variant in portuguese-draughts cuarenta chad chaco-rex; do
    run_logged "$build/vzero" nnbench --variant "$variant" --preset small --device cuda \
      --batch-sizes 1,16,64,256,1024,4096 --seconds 0.3 >>"$results/nnbench.txt" ||
      say "nnbench $variant on cuda failed"
    run_logged "$build/vzero" nnbench --variant "$variant" --preset small --device cpu \
      --batch-sizes 1,16,64,256 --seconds 0.3 --threads "$jobs" >>"$results/nnbench.txt" ||
      say "nnbench $variant on cpu failed"
  done
fi

if want selfplay; then
  minutes="${VZ_GPU_CHECK_SELFPLAY_MINUTES:-0.5}"
  if [[ "$minutes" == 0 ]] || ! "$build/vzero" train --help >/dev/null 2>&1; then
    say "self-play: skipped (minutes $minutes, or no \`vzero train\` in this build)"
  else
    say "self-play: vzero train --variant chad --preset gpu for $minutes minutes"
    run_dir="$(mktemp -d /tmp/vzero-selfplay.XXXXXX)"
    timeout $((${minutes%.*} * 60 + 180)) "$build/vzero" train --variant chad --preset gpu \
      --run-dir "$run_dir" --set "stop.minutes=$minutes" --no-status \
      >"$results/selfplay.txt" 2>&1 || say "self-play run ended with an error (see selfplay.txt)"
    tail -n 5 "$results/selfplay.txt" | tee -a "$log"
  fi
fi

say "summary"
{
  echo "# vzero gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ), $(($(date +%s) - started)) s"
  echo
  echo '```'
  cat "$results/environment.txt" 2>/dev/null
  echo '```'
  echo
  [[ -f "$results/ctest-gpu.log" ]] && echo "gpu tests: $(grep -E 'tests passed' "$results/ctest-gpu.log")"
  echo
  if [[ -f "$results/rules-bench.json" ]]; then
    "$python" - "$results/rules-bench.json" <<'EOF'
import json, sys
rows = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    parts = b["name"].split("/")  # Kind/game/path/batch/...
    if len(parts) < 4 or "items_per_second" not in b:
        continue
    rows.setdefault((parts[0], parts[1], parts[3]), {})[parts[2]] = b["items_per_second"]
for kind, paths in (("Rules", ("gpu", "cpu")), ("Evaluator", ("cuda", "torch"))):
    title = ("batched move generation + encoding, positions/s" if kind == "Rules"
             else "network evaluations/s (fresh small net, cuda:0)")
    print(f"## {kind}: {title}\n")
    print(f"| game | batch | {' | '.join(paths)} | ratio |")
    print("| --- | ---: | " + " | ".join("---:" for _ in paths) + " | ---: |")
    for (k, game, batch), values in sorted(rows.items(), key=lambda r: (r[0][1], int(r[0][2]))):
        if k != kind:
            continue
        cells = [f"{values[p]:,.0f}" if p in values else "-" for p in paths]
        ratio = (f"{values[paths[0]] / values[paths[1]]:.1f}x"
                 if all(p in values for p in paths) else "-")
        print(f"| {game} | {batch} | {' | '.join(cells)} | {ratio} |")
    print()
EOF
  fi
  if [[ -f "$results/nnbench.txt" ]]; then
    echo "## vzero nnbench"
    echo
    echo '```'
    cat "$results/nnbench.txt"
    echo '```'
  fi
  if [[ -f "$results/selfplay.txt" ]]; then
    echo "## self-play (chad, gpu preset)"
    echo
    echo '```'
    grep -E "positions/s|self-play positions" "$results/selfplay.txt" | tail -n 5
    echo '```'
  fi
} >"$results/summary.md" 2>&1
say "done in $(($(date +%s) - started)) s, status $status; results in $results"
exit "$status"
