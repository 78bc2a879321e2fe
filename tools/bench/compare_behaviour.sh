#!/usr/bin/env bash
# Compares what two allocsim binaries do on every scenario file: the check every speed change must pass
# ("every fingerprint, trace and report stays byte-identical"; tools/bench/README.md).
#   tools/bench/compare_behaviour.sh BEFORE/allocsim AFTER/allocsim [EXECUTIONS=2000]
# For each binary, from the repository root: `run FILE -n EXECUTIONS --no-corpus --fingerprints F` for every
# scenarios/**/*.json (stdout and exit code kept too), then `sweep scenarios/ --no-corpus --jobs 2
# --report-json R`. Prints the files that differ (diff -r of the two output folders) and exits 1 when any
# does, 0 when everything is byte-identical, 2 on usage errors. The sweep report may legitimately differ
# for a DPOR change (fewer executions, same traces and violations): its diff is printed for reading.
set -euo pipefail
if [ $# -lt 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
  echo "usage: $0 BEFORE-ALLOCSIM AFTER-ALLOCSIM [EXECUTIONS]" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N="${3:-2000}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT

behaviour() {  # BIN DIR
  local bin dir f name
  bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
  dir="$2"
  mkdir -p "$dir"
  cd "$ROOT"
  while IFS= read -r f; do
    name="${f//\//_}"
    status=0
    "$bin" run "$f" -n "$N" --no-corpus --no-trace --fingerprints "$dir/$name.fp" >"$dir/$name.out" 2>&1 || status=$?
    echo "$status" >"$dir/$name.rc"
  done < <(find scenarios -name '*.json' -not -path '*/schema/*' -not -path '*/.allocsim/*' | sort)
  "$bin" sweep scenarios/ --no-corpus --jobs 2 --report-json "$dir/sweep.json" >"$dir/sweep.out" 2>&1 || true
}

behaviour "$1" "$OUT/before"
behaviour "$2" "$OUT/after"
if diff -r "$OUT/before" "$OUT/after"; then
  echo "compare_behaviour: identical ($(find "$OUT/before" -name '*.fp' | wc -l) scenario files, $N executions each, and the sweep)"
else
  echo "compare_behaviour: the outputs above differ" >&2
  exit 1
fi
