#!/usr/bin/env bash
# Runs every libFuzzer target of tests/fuzz (tests/fuzz/README.md) for RUNS inputs each, starting
# from its seed corpus tests/fuzz/corpus/<target>/ (new inputs go to build-asan/fuzz/<target>/,
# never into the repository), under AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer
# in the engine-only clang build build-asan/ (scripts/sanitize.sh's build, fuzz targets only).
# Prints per target: inputs run, inputs/s, findings (a crash, leak, sanitizer report, invariant
# failure, timeout or out-of-memory stops a target; its input is saved as
# build-asan/fuzz/<target>/crash-*, leak-*, timeout-* or oom-*). Exits non-zero on any finding.
# Reproduce one: build-asan/<target> FILE.
# Usage: scripts/fuzz.sh [RUNS [TARGET...]]   (default 1000000 inputs, every target)
# Env:   VZ_ASAN_BUILD_DIR (default build-asan), VZ_JOBS (default: nproc),
#        VZ_FUZZ_TIMEOUT seconds per input before a timeout finding (default 20),
#        VZ_FUZZ_SECONDS at most this many seconds per target (default: no limit; CI sets one)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/sanitizer_build.sh
runs="${1:-1000000}"
shift || true
build_dir="${VZ_ASAN_BUILD_DIR:-build-asan}"
vz_sanitizer_build "$build_dir" address,undefined ON fuzz
targets=("$@")
if ((${#targets[@]} == 0)); then
  for source in tests/fuzz/*_fuzz.cc; do targets+=("$(basename "$source" .cc)"); done
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
summary=()
failed=0
for target in "${targets[@]}"; do
  work="$build_dir/fuzz/$target"
  mkdir -p "$work/corpus"
  log="$work/last.log"
  start=$(date +%s%N)
  status=0
  "$build_dir/$target" -runs="$runs" -timeout="${VZ_FUZZ_TIMEOUT:-20}" -rss_limit_mb=2560 \
    -max_len=4096 -max_total_time="${VZ_FUZZ_SECONDS:-0}" -print_final_stats=1 -artifact_prefix="$work/" \
    "$work/corpus" "tests/fuzz/corpus/$target" >"$log" 2>&1 || status=$?
  milliseconds=$((($(date +%s%N) - start) / 1000000))
  executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate="?"  # inputs per second of wall time, start-up and corpus loading included
  if [[ -n "$executed" ]]; then rate=$((executed * 1000 / (milliseconds > 0 ? milliseconds : 1))); fi
  findings=0
  if ((status != 0)); then
    findings=1
    failed=1
    echo "---- $target: finding (exit $status), last lines of $log:"
    grep -E "ERROR|SUMMARY|runtime error|fuzz invariant|Test unit written" "$log" | head -20 || true
    tail -5 "$log"
  fi
  summary+=("$(printf '%-20s %10s inputs %8s inputs/s %4s findings %6d.%01d s' "$target" \
    "${executed:-?}" "${rate:-?}" "$findings" $((milliseconds / 1000)) $((milliseconds % 1000 / 100)))")
done
echo "fuzz summary (${runs} inputs per target requested):"
printf '  %s\n' "${summary[@]}"
exit "$failed"
