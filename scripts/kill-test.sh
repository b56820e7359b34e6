#!/usr/bin/env bash
# The kill test of docs/reliability.md: `vzero train` (a tiny Portuguese-draughts run) killed with
# SIGKILL at N random moments (default 20), resumed each time, then run to a normal end; checks
# that every finished game is in the records exactly once, the step never goes back, no candidate
# is promoted twice, no temporary file is left, and a second `vzero train` on the run directory is
# refused while the first runs. Prints a table of the kills and a PASS or FAIL line.
# The checks live in tests/selfplay/train_kill_cli_slow_test.cc (ctest runs it with 3 kills).
#
# Usage: scripts/kill-test.sh [--kills N] [--seed S] [--max-seconds T] [--build DIR] [--keep]
set -euo pipefail

kills=20
seed=1
max_seconds=8
build=build
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --kills) kills="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --max-seconds) max_seconds="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "kill-test.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

cd "$(dirname "$0")/.."
test_binary="$build/train_kill_cli_slow_test"
if [ ! -x "$test_binary" ] || [ ! -x "$build/vzero" ]; then
  echo "kill-test.sh: build the targets first: cmake --build $build --target vzero train_kill_cli_slow_test" >&2
  exit 2
fi
export VZ_KILLS="$kills" VZ_KILL_SEED="$seed" VZ_KILL_MAX_SECONDS="$max_seconds"
if [ "$keep" = 1 ]; then export VZ_KEEP_TEST_DIR=1; fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"$test_binary" --gtest_brief=1 >"$log" 2>&1 || status=$?
# The table and the final line; gtest's own lines only when something failed.
grep -E '^(kill test|kill |  *[0-9]+  |      second|final run)' "$log" || true
if [ "$status" = 0 ] && grep -q '^final run' "$log"; then
  echo "PASS: $kills kills, seed $seed"
else
  grep -vE '^(kill test|kill |  *[0-9]+  |      second|final run)' "$log" | tail -40
  echo "FAIL: $kills kills, seed $seed (exit $status)"
  exit 1
fi
