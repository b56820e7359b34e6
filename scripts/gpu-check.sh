#!/usr/bin/env bash
# Builds vzero's GPU path on a GPU machine that reaches no package registry and measures it, in one
# call that fits a 9-minute budget with room to rerun (issue 19): every step has its own timeout,
# the headline figures come first, and a PASS/FAIL/seconds table is printed last and saved.
#
# On that machine LibTorch is the one inside its own PyTorch (`python3 -c 'import torch;
# print(torch.utils.cmake_prefix_path)'`); the other C++ dependencies travel with the working tree
# as Debian packages in third_party/debs/ (fetched beforehand on a Debian 12 machine with network
# by scripts/fetch-debs.sh) and are unpacked here with `dpkg -x` into a prefix, never into /.
#
# Usage: scripts/gpu-check.sh [RESULTS_DIR]     (default: $OUT if set, else out/gpu-check)
# Steps, in order (VZ_GPU_CHECK_STEPS, comma-separated, default all), each with a timeout:
#   environment  GPU, driver, nvcc, compiler, CMake and PyTorch versions -> environment.txt
#   deps         unpack third_party/debs/*.deb into the prefix, repoint absolute symlinks and the
#                pkg-config files' /usr into it, write a protoc wrapper that finds its libraries
#   configure    CMake (Ninja, Release) with CMAKE_PREFIX_PATH = prefix + LibTorch, protoc from
#                the prefix, the prefix's multiarch include folder (OpenSSL's configuration
#                headers), VZ_USE_CUDA=ON, VZ_USE_TORCH=ON, the benchmarks on
#   build        -j all cores: the vzero binary, every *_gpu_test and bench/batched_rules_gpu_bench
#   settings     `vzero train --print-config` of the headline-sp and train steps' options: a key or
#                value the config refuses fails here, in a second (CTest runs this step on every
#                build: gpu_check_settings) -> settings-{selfplay,train}.{txtpb,err}
#   headline-nn  `vzero nnbench` of the 10x128 net (preset medium) of Chaco Rex on cuda at batches
#                1024..8192 without CUDA graphs (the default) and with them (`--cuda-graphs true`:
#                the figure that decides whether they should be on), then at 4096 in NCHW (what
#                the channels-last layout brings) -> nnbench-headline.txt
#   headline-sp  60 s of Chaco Rex self-play (`vzero train --preset gpu` with the medium net, 32
#                simulations and cheap searches of a quarter of that, no gating, no strength
#                checks, no end-of-run evaluation) -> selfplay.txt
#   train        90 s of the same with training on the GPU: the replay buffer starts training at
#                20,000 positions and the trainer is not held back by self-play (no cap of samples
#                per new position): the trainer's steps and samples/s, bf16 mixed precision
#                -> train.txt
#   test         ctest -L gpu -> ctest-gpu.log
#   bench        batched_rules_gpu_bench (rules kernels vs CPU twin; the GPU evaluator vs the
#                LibTorch evaluator) -> rules-bench.json
#   nnbench      `vzero nnbench` of the small net per game on cuda and on the CPU -> nnbench.txt
# summary.md gathers the figures and the step table (also table.txt); gpu-check.log has every
# step's output. Exit status: non-zero if any step failed or ran out of time.
# Env: VZ_PYTHON (python3), VZ_DEBS (third_party/debs), VZ_DEPS_PREFIX (/tmp/vzero-deps),
#      VZ_BUILD_DIR (build-gpu-check), VZ_GPU_CHECK_JOBS (nproc), VZ_GPU_CHECK_TARGETS (override
#      the build targets), VZ_GPU_CHECK_CMAKE_ARGS (extra configure arguments),
#      VZ_GPU_CHECK_SELFPLAY_SECONDS (60), VZ_GPU_CHECK_SIMULATIONS (32),
#      VZ_GPU_CHECK_SELFPLAY_ARGS (more `vzero train` options for the settings, headline-sp and
#      train steps, e.g.
#      "--set selfplay.actor_threads=8 --set selfplay.concurrent_games=4096").
set -uo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
started=$(date +%s)

results="${1:-${OUT:-$root/out/gpu-check}}"
mkdir -p "$results"
results="$(cd "$results" && pwd)"
log="$results/gpu-check.log"
: >"$log"
table="$results/table.txt"
: >"$table"
python="${VZ_PYTHON:-python3}"
debs="${VZ_DEBS:-$root/third_party/debs}"
[[ -d "$debs" ]] && debs="$(cd "$debs" && pwd)"
prefix="${VZ_DEPS_PREFIX:-/tmp/vzero-deps}"
build="${VZ_BUILD_DIR:-$root/build-gpu-check}"
jobs="${VZ_GPU_CHECK_JOBS:-$(nproc)}"
selfplay_seconds="${VZ_GPU_CHECK_SELFPLAY_SECONDS:-60}"
simulations="${VZ_GPU_CHECK_SIMULATIONS:-32}"
selfplay_args="${VZ_GPU_CHECK_SELFPLAY_ARGS:-}"
steps=",${VZ_GPU_CHECK_STEPS:-environment,deps,configure,build,settings,headline-nn,headline-sp,train,test,bench,nnbench},"
status=0

say() { echo "gpu-check [$(($(date +%s) - started))s] $*" | tee -a "$log"; }
want() { [[ "$steps" == *",$1,"* ]]; }
fail() { say "FAILED: $*"; status=1; }
# Runs a command with its output appended to the log (and shown).
run_logged() { "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; }
# step NAME SECONDS FUNCTION: runs FUNCTION (a shell function of this script) in a subshell under a
# timeout, records PASS / FAIL / TIMEOUT and its seconds in the table. A failed `deps`, `configure`
# or `build` ends the check (nothing after them can run).
step() {
  local name="$1" limit="$2" fn="$3" begin result rc
  want "$name" || return 0
  begin=$(date +%s)
  say "step $name (timeout ${limit}s)"
  ( export -f "$fn" say run_logged fail train_args run_train 2>/dev/null; timeout --kill-after=10 "$limit" bash -c "$fn" ) \
    && rc=0 || rc=$?
  case "$rc" in
    0) result=PASS ;;
    124|137) result=TIMEOUT ;;
    *) result="FAIL($rc)" ;;
  esac
  printf '| %-12s | %-8s | %5d |\n' "$name" "$result" $(($(date +%s) - begin)) >>"$table"
  if [[ "$result" != PASS ]]; then
    fail "step $name: $result"
    case "$name" in deps|configure|build) finish ;; esac
  fi
}
export root results log python debs prefix build jobs selfplay_seconds simulations selfplay_args started

step_environment() {
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
    echo "revision: $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)"
  } >"$results/environment.txt" 2>&1
  tee -a "$log" <"$results/environment.txt"
}

step_deps() {
  say "unpacking $(ls "$debs"/*.deb 2>/dev/null | wc -l) packages from $debs into $prefix"
  if ! compgen -G "$debs/*.deb" >/dev/null; then
    say "no .deb files in $debs: run scripts/fetch-debs.sh on a machine with network first"
    return 1
  fi
  rm -rf "$prefix"
  mkdir -p "$prefix"
  for deb in "$debs"/*.deb; do
    if command -v dpkg >/dev/null; then
      dpkg -x "$deb" "$prefix" || { say "dpkg -x $deb failed"; return 1; }
    else  # not a Debian-like system: a .deb is an ar archive holding data.tar.*
      (cd "$prefix" && ar p "$deb" "$(ar t "$deb" | grep '^data.tar')" | tar -xJf - 2>/dev/null ||
       ar p "$deb" "$(ar t "$deb" | grep '^data.tar')" | tar -xf -) || { say "unpacking $deb failed"; return 1; }
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
  # pkg-config files (cpp-httplib, and the OpenSSL, Brotli and zlib it requires) name /usr: point
  # them into the prefix, or CMake would look for the headers and libraries in /usr.
  while IFS= read -r pc; do
    PREFIX="$prefix" perl -pi -e 's#^(prefix|exec_prefix|libdir|includedir)=/usr#$1=$ENV{PREFIX}/usr#' "$pc"
  done < <(find "$prefix" -name '*.pc')
  # protoc needs the prefix's libprotoc and libprotobuf: a wrapper sets its library path only.
  cat >"$prefix/protoc" <<EOF
#!/usr/bin/env bash
export LD_LIBRARY_PATH="$(echo "$prefix"/usr/lib/*-linux-gnu)\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$prefix/usr/bin/protoc" "\$@"
EOF
  chmod +x "$prefix/protoc"
  run_logged "$prefix/protoc" --version || { say "protoc from the prefix does not run"; return 1; }
}

step_configure() {
  torch_prefix="$("$python" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"
  [[ -n "$torch_prefix" ]] || { say "no LibTorch: '$python -c \"import torch\"' failed"; return 1; }
  # Debian keeps OpenSSL's configuration headers (which cpp-httplib's header includes) in the
  # multiarch folder, a default include folder of Debian's compiler only: name the prefix's. A
  # CMAKE_CXX_FLAGS in VZ_GPU_CHECK_CMAKE_ARGS comes later and replaces this one.
  local cxx_flags="" dir
  for dir in "$prefix"/usr/include/*-linux-gnu; do
    [[ -d "$dir" ]] && cxx_flags+="${cxx_flags:+ }-isystem $dir"
  done
  extra=()
  [[ -n "$cxx_flags" ]] && extra+=("-DCMAKE_CXX_FLAGS=$cxx_flags")
  # shellcheck disable=SC2206
  extra+=(${VZ_GPU_CHECK_CMAKE_ARGS:-})
  if run_logged cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
       "-DCMAKE_PREFIX_PATH=$prefix/usr;$torch_prefix" \
       "-DProtobuf_PROTOC_EXECUTABLE=$prefix/protoc" \
       -DVZ_USE_CUDA=ON -DVZ_USE_TORCH=ON -DVZ_BUILD_BENCHMARKS=ON "${extra[@]}"; then
    say "packages found at:"
    grep -E '^(Protobuf_INCLUDE_DIR|Protobuf_LIBRARY_RELEASE|Protobuf_PROTOC_EXECUTABLE|fmt_DIR|spdlog_DIR|CLI11_DIR|nlohmann_json_DIR|GTest_DIR|benchmark_DIR|ZLIB_INCLUDE_DIR|ZLIB_LIBRARY_RELEASE|CPP_HTTPLIB_INCLUDE_DIRS|pkgcfg_lib_CPP_HTTPLIB_cpp-httplib|Torch_DIR|CMAKE_CUDA_COMPILER):' \
      "$build/CMakeCache.txt" | tee -a "$log"
  else
    return 1
  fi
}

step_build() {
  local targets source
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
    say "build failed (full log: $build/build.log)"
    return 1
  fi
}

step_headline_nn() {
  local rc=0
  say "nnbench: Chaco Rex, 10x128 (medium), cuda, batches 1024..8192, CUDA graphs off (default)"
  run_logged "$build/vzero" nnbench --variant chaco-rex --preset medium --device cuda \
    --batch-sizes 1024,2048,4096,8192 --seconds 2 | tee "$results/nnbench-headline.txt"
  [[ "${PIPESTATUS[0]}" == 0 ]] || rc=1
  # What the CUDA graphs bring (they stay off by default until this says they help; a failed
  # capture prints a warning and the rows are then eager), and what channels-last brings.
  say "nnbench: the same with CUDA graphs on"
  run_logged "$build/vzero" nnbench --variant chaco-rex --preset medium --device cuda \
    --batch-sizes 1024,2048,4096,8192 --seconds 2 --cuda-graphs true |
    tee -a "$results/nnbench-headline.txt"
  [[ "${PIPESTATUS[0]}" == 0 ]] || rc=1
  say "nnbench: at 4096 in NCHW (graphs off)"
  run_logged "$build/vzero" nnbench --variant chaco-rex --preset medium --device cuda \
    --batch-sizes 4096 --seconds 2 --layout nchw | tee -a "$results/nnbench-headline.txt"
  [[ "${PIPESTATUS[0]}" == 0 ]] || rc=1
  return "$rc"
}

# The `vzero train` options of the headline-sp step (train_args selfplay) and the train step
# (train_args train), one per line: the settings step checks them with --print-config.
train_args() {
  printf '%s\n' --variant chaco-rex --preset gpu --no-status \
    --set net.preset=medium --set "selfplay.simulations=$simulations" \
    --set "selfplay.cheap_simulations=$(( simulations / 4 > 0 ? simulations / 4 : 1 ))" \
    --set gating.mode=none --set evaluation.games=0 --set strength.every_checkpoints=0
  case "$1" in
    selfplay) printf '%s\n' --set "stop.minutes=$(awk "BEGIN { print $selfplay_seconds / 60 }")" ;;
    train) printf '%s\n' --set replay.min_positions=20000 --set replay.max_samples_per_new_sample=0 \
             --set stop.minutes=1.5 ;;
  esac
  # shellcheck disable=SC2086
  [[ -z "$selfplay_args" ]] || printf '%s\n' $selfplay_args
}

step_settings() {
  local kind args rc=0
  for kind in selfplay train; do
    mapfile -t args < <(train_args "$kind")
    if "$build/vzero" train "${args[@]}" --print-config >"$results/settings-$kind.txtpb" \
         2>"$results/settings-$kind.err"; then
      say "settings of the $kind step: accepted"
    else
      say "settings of the $kind step refused: $(cat "$results/settings-$kind.err")"
      rc=1
    fi
  done
  return "$rc"
}

# Runs `vzero train` with the options of `train_args KIND` in a new run directory: its output into
# $results/FILE, the last LINES of it into the log, then the run's last three metrics lines of
# type TYPE appended to FILE. Returns vzero's exit status.
run_train() {
  local kind="$1" file="$2" lines="$3" type="$4" run_dir args rc
  run_dir="$(mktemp -d "/tmp/vzero-$kind.XXXXXX")"
  mapfile -t args < <(train_args "$kind")
  "$build/vzero" train "${args[@]}" --run-dir "$run_dir" >"$results/$file" 2>&1
  rc=$?
  tail -n "$lines" "$results/$file" | tee -a "$log"
  grep -h "\"type\":\"$type\"" "$run_dir/metrics.jsonl" 2>/dev/null | tail -n 3 >>"$results/$file"
  return "$rc"
}

step_headline_sp() {
  say "self-play: Chaco Rex, medium net, $simulations simulations, $selfplay_seconds s"
  run_train selfplay selfplay.txt 8 selfplay
}

step_train() {
  say "training: Chaco Rex, medium net, 90 s, training from 20000 positions"
  run_train train train.txt 4 train
}

step_test() {
  ctest --test-dir "$build" -L gpu --output-on-failure -j 4 --timeout 120 \
    >"$results/ctest-gpu.log" 2>&1
  local rc=$?
  tail -n 30 "$results/ctest-gpu.log" >>"$log"
  say "gpu tests: $(grep -E 'tests passed' "$results/ctest-gpu.log")"
  return "$rc"
}

step_bench() {
  run_logged "$build/batched_rules_gpu_bench" --benchmark_out="$results/rules-bench.json" \
    --benchmark_out_format=json --benchmark_min_time=0.05
}

step_nnbench() {
  local variant rc=0
  : >"$results/nnbench.txt"
  for variant in portuguese-draughts cuarenta chad chaco-rex; do
    run_logged "$build/vzero" nnbench --variant "$variant" --preset small --device cuda \
      --batch-sizes 256,1024,4096 --seconds 0.3 >>"$results/nnbench.txt" || rc=1
    run_logged "$build/vzero" nnbench --variant "$variant" --preset small --device cpu \
      --batch-sizes 1,64,256 --seconds 0.3 --threads "$jobs" >>"$results/nnbench.txt" || rc=1
  done
  return "$rc"
}

summary() {
  echo "# vzero gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ), $(($(date +%s) - started)) s"
  echo
  echo '```'
  cat "$results/environment.txt" 2>/dev/null
  echo '```'
  echo
  for file in nnbench-headline.txt selfplay.txt train.txt; do
    [[ -f "$results/$file" ]] || continue
    echo "## $file"
    echo
    echo '```'
    grep -vE '^\s*$' "$results/$file" | tail -n 20
    echo '```'
    echo
  done
  [[ -f "$results/ctest-gpu.log" ]] && echo "gpu tests: $(grep -E 'tests passed' "$results/ctest-gpu.log")"
  echo
  if [[ -f "$results/rules-bench.json" ]]; then
    "$python" - "$results/rules-bench.json" <<'PY'
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
PY
  fi
  if [[ -f "$results/nnbench.txt" ]]; then
    echo "## vzero nnbench (small nets)"
    echo
    echo '```'
    cat "$results/nnbench.txt"
    echo '```'
    echo
  fi
  echo "## steps"
  echo
  echo "| step         | result   | s     |"
  echo "| ------------ | -------- | ----: |"
  cat "$table"
}

# Writes summary.md, prints the step table last, and exits with the overall status.
finish() {
  summary >"$results/summary.md" 2>&1
  say "done in $(($(date +%s) - started)) s, status $status; results in $results"
  echo
  echo "| step         | result   | s     |"
  echo "| ------------ | -------- | ----: |"
  cat "$table"
  exit "$status"
}

step environment 30 step_environment
step deps 60 step_deps
# The built programs find the prefix's libraries through their RUNPATH; the library path is a
# belt and braces for anything loaded later.
if want deps || [[ -d "$prefix/usr/lib" ]]; then
  libdirs="$(echo "$prefix"/usr/lib/*-linux-gnu)"
  export LD_LIBRARY_PATH="$libdirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
step configure 90 step_configure
step build 300 step_build
step settings 30 step_settings
step headline-nn 90 step_headline_nn
step headline-sp $((selfplay_seconds + 60)) step_headline_sp
step train 150 step_train
step test 120 step_test
step bench 60 step_bench
step nnbench 60 step_nnbench
finish
