#!/usr/bin/env bash
# Move generation against Stockfish's (issue 32; docs/performance.md): leaves per second of one
# core, `vzero perft` (bulk counting) of every game against Stockfish's `go perft 7` from the chess
# start position, in ROUNDS rounds (default 3), each round Stockfish then every game; the ratio is
# taken per round and the median over the rounds is printed. Stockfish's time is its whole process
# less its start-up (`uci`, `isready`, `quit` alone, timed in the same round). A benchmark: it
# measures and prints, it asserts nothing. Stop other jobs on the machine first.
#
#   bash scripts/perft-vs-stockfish.sh [VZERO [ROUNDS]]   (VZERO defaults to build/vzero)
#
# Needs Debian's `stockfish` package (/usr/games/stockfish, or STOCKFISH=PATH).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
vzero=${1:-$root/build/vzero}
rounds=${2:-3}
stockfish=${STOCKFISH:-/usr/games/stockfish}
if [[ ! $rounds =~ ^[1-9][0-9]*$ ]]; then
  echo "perft-vs-stockfish.sh: ROUNDS must be a positive integer, not '$rounds'" >&2
  exit 1
fi
if [[ ! -f $stockfish || ! -x $stockfish ]]; then
  echo "perft-vs-stockfish.sh: $stockfish not found (apt-get install stockfish, or set STOCKFISH)" >&2
  exit 1
fi
if [[ ! -f $vzero || ! -x $vzero ]]; then
  echo "perft-vs-stockfish.sh: $vzero is not an executable" >&2
  exit 1
fi
# game and depth: a few seconds each on one core
games=("portuguese-draughts 12" "cuarenta 6" "chaco-rex 6" "chad 5")

now() { echo "$EPOCHREALTIME"; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
results=()  # "game round leaves_per_s"
for ((r = 1; r <= rounds; ++r)); do
  t0=$(now)
  printf 'uci\nisready\nquit\n' | "$stockfish" > /dev/null
  t1=$(now)
  printf 'uci\nisready\ngo perft 7\nisready\nquit\n' | "$stockfish" > "$out"
  t2=$(now)
  leaves=$(awk '/Nodes searched/ {print $3}' "$out")
  if [[ -z $leaves ]]; then
    echo "perft-vs-stockfish.sh: $stockfish printed no 'Nodes searched' line" >&2
    exit 1
  fi
  nps=$(awk -v n="$leaves" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {printf "%.0f", n / ((c - b) - (b - a))}')
  results+=("stockfish $r $nps")
  echo "round $r: stockfish go perft 7: $leaves leaves, $(awk -v x="$nps" 'BEGIN {printf "%.1f", x / 1e6}') M/s" >&2
  for entry in "${games[@]}"; do
    read -r game depth <<< "$entry"
    line=$("$vzero" perft --variant "$game" --depth "$depth" | tail -n 1)
    nps=$(awk '{for (i = 1; i < NF; ++i) if ($i == "nps") print $(i + 1)}' <<< "$line")
    if [[ -z $nps ]]; then
      echo "perft-vs-stockfish.sh: '$vzero perft --variant $game' printed no nps: '$line'" >&2
      exit 1
    fi
    results+=("$game $r $nps")
    echo "round $r: $game depth $depth: $line" >&2
  done
done

printf '%s\n' "${results[@]}" | awk -v rounds="$rounds" '
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { nps[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
  END {
    printf "%-20s %-28s %s\n", "game", "M leaves/s by round", "/ Stockfish (median of rounds)"
    for (g = 1; g <= k; ++g) {
      name = order[g]; list = ""
      for (r = 1; r <= rounds; ++r) {
        list = list sprintf("%s%.1f", r > 1 ? ", " : "", nps[name, r] / 1e6)
        ratio[r] = nps[name, r] / nps["stockfish", r]
      }
      printf "%-20s %-28s %.2fx\n", name, list, median(ratio, rounds)
    }
  }'
