#!/usr/bin/env bash
# Checks the shipped nets (models/): every models/*.vznet has its sha256 in a row of
# models/README.md, and loads in this build as a net of the game its name says
# (`vzero net describe`: the right game, compatible). Exit 0 when all pass, 1 naming each fault,
# 77 (skipped) when VZERO is a build without the networks.
#
#   bash scripts/check-models.sh [VZERO]      (VZERO defaults to build/vzero)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
vzero=${1:-$root/build/vzero}
readme=$root/models/README.md
if ! "$vzero" version | grep -q 'libtorch networks: built'; then
  echo "check-models.sh: $vzero is built without LibTorch: skipped"
  exit 77
fi
shopt -s nullglob
nets=("$root"/models/*.vznet)
if [[ ${#nets[@]} -eq 0 ]]; then
  echo "check-models.sh: no models/*.vznet"
  exit 1
fi
faults=0
for net in "${nets[@]}"; do
  name=$(basename "$net")
  game=${name%.vznet}
  sum=$(sha256sum "$net" | cut -d' ' -f1)
  if ! grep -q "$sum" "$readme"; then
    echo "check-models.sh: models/$name: sha256 $sum is not in models/README.md"
    faults=$((faults + 1))
  fi
  if ! description=$("$vzero" net describe "$net" 2>&1); then
    echo "check-models.sh: models/$name does not load: $description"
    faults=$((faults + 1))
    continue
  fi
  if ! grep -qE "^game +$game\$" <<<"$description"; then
    echo "check-models.sh: models/$name is not a net for $game: $(grep '^game' <<<"$description")"
    faults=$((faults + 1))
  fi
  if ! grep -qE '^compatible +yes' <<<"$description"; then
    echo "check-models.sh: models/$name does not fit this build: $(grep '^compatible' <<<"$description")"
    faults=$((faults + 1))
  fi
  echo "check-models.sh: models/$name ok ($sum)"
done
exit $((faults > 0))
