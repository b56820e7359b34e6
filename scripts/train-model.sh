#!/usr/bin/env bash
# Trains the net vzero ships for one game, models/GAME.vznet, from nothing, and prints what
# models/README.md records of it (revision, positions, CPU time, sha256).
#
#   bash scripts/train-model.sh GAME [--init-net] [--set KEY=VALUE ...]
#
# GAME: chaco-rex, chad, cuarenta or portuguese-draughts. The run is the game's PRESET (default
# demo; configs/GAME/PRESET.txtpb: for the chess-likes a warm start from alphabeta:2 games, then
# self-play) with MINUTES of self-play and training (default 15 for the demo, the preset's own
# stop.minutes for another preset, e.g. 100 for `PRESET=long`) in runs/model-GAME. Resumable:
# run the same command again after an interruption and the run continues from its checkpoint.
# When the run directory is gone, --init-net starts a new run from the committed
# models/GAME.vznet instead of random weights. Each `--set KEY=VALUE` after them goes to
# `vzero train` as it is (a config override, e.g. `--set warm_start.player=` to skip the warm start
# of a run that continues a warm-started net). The run's newest best net is copied to
# models/GAME.vznet. Environment: VZ_BIN (the vzero binary, default build/vzero), PRESET,
# MINUTES, VZ_MODEL_RUN (the run directory).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
usage() {
  echo "usage: bash scripts/train-model.sh GAME [--init-net] [--set KEY=VALUE ...]" >&2
  exit 2
}
[[ $# -ge 1 ]] || usage
game=$1
shift
init_net=false
if [[ ${1:-} == --init-net ]]; then
  init_net=true
  shift
fi
overrides=()
while [[ $# -gt 0 ]]; do
  [[ $1 == --set && $# -ge 2 && $2 == *=* ]] || usage
  overrides+=(--set "$2")
  shift 2
done
case $game in
  chaco-rex|chad|cuarenta|portuguese-draughts) ;;
  *) echo "train-model.sh: unknown game '$game' (chaco-rex, chad, cuarenta, portuguese-draughts)" >&2
     exit 2 ;;
esac
vzero=${VZ_BIN:-$root/build/vzero}
preset=${PRESET:-demo}
minutes=${MINUTES:-}
if [[ -z $minutes && $preset == demo ]]; then minutes=15; fi
run=${VZ_MODEL_RUN:-$root/runs/model-$game}
model=$root/models/$game.vznet

args=(train --variant "$game" --preset "$preset" --run-dir "$run" --no-status)
if [[ -n $minutes ]]; then args+=(--set "stop.minutes=$minutes"); fi
if $init_net; then
  if [[ -d $run ]]; then
    echo "train-model.sh: $run exists; resuming it (--init-net applies only to a new run)" >&2
  elif [[ -f $model ]]; then
    args+=(--init-net "$model")
  else
    echo "train-model.sh: --init-net: $model does not exist" >&2
    exit 1
  fi
fi

args+=("${overrides[@]}")
echo "train-model.sh: $vzero ${args[*]}"
start=$(date +%s)
"$vzero" "${args[@]}"
best=$(ls "$run"/nets/best-*.vznet 2>/dev/null | sort | tail -n 1 || true)
if [[ -z $best ]]; then
  echo "train-model.sh: $run/nets has no best net" >&2
  exit 1
fi
cp "$best" "$model.tmp" && mv "$model.tmp" "$model"
echo "train-model.sh: $best -> $model ($(( $(date +%s) - start )) s wall clock this invocation)"
"$vzero" net describe "$model" | grep -E 'architecture|training_steps|games|source_revision|knowledge'
grep -h '"type":"session"' "$run"/metrics.jsonl 2>/dev/null | tail -n 1 || true
sha256sum "$model"
