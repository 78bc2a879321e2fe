#!/usr/bin/env bash
# Records the three nights of tests/findings/ (README.md there). Usage: tests/findings/record.sh ALLOCSIM OUT
set -euo pipefail
B="$1"; OUT="$2"; SRC="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$SRC/../.." && pwd)"
work="$(mktemp -d)"; cd "$work"
mkdir -p scenarios
# scenario NAME SOURCE MUTANT: a copy of scenarios/SOURCE named NAME with backend.mutants = [MUTANT] ("" none)
scenario() {
  python3 - "$ROOT/scenarios/$2" "scenarios/$1.json" "$1" "$3" <<'PY'
import json, sys
src, dst, name, mutant = sys.argv[1:]
d = json.load(open(src))
d["name"] = name
d["backend"]["mutants"] = [mutant] if mutant else []
json.dump(d, open(dst, "w"), indent=2)
PY
}
night() {  # N: the sweep and the swarm of night N
  local n=$1; rm -rf scenarios/*; mkdir -p "$OUT/night-$n"
  scenario one-plan-two-claimants alloc-004-one-plan-two-claimants.json client-side-claim  # every night
  case $n in
    1) scenario last-out alloc-005-last-out.json ""
       scenario both-release alloc-005-both-release.json "" ;;
    2) scenario last-out alloc-005-last-out.json ""
       scenario both-release alloc-005-both-release.json release-keeps-owner ;;
    3) scenario last-out alloc-005-last-out.json stale-last-out
       scenario both-release alloc-005-both-release.json ""
       printf '{"schema": "allocsim/scenario/v1", "name": "broken"\n' >scenarios/broken.json ;;
  esac
  "$B" sweep scenarios/ --no-corpus --report-json "$OUT/night-$n/sweep.json" >/dev/null || true
  case $n in
    1|3) "$B" swarm --seed 1 --scenarios 8 --mutant stale-last-out --out "$OUT/night-$n/swarm" >/dev/null || true ;;
    2) "$B" swarm --seed 1 --scenarios 8 --out "$OUT/night-$n/swarm" >/dev/null || true ;;
  esac
}
night 1; night 2; night 3
rm -rf "$work"
