#!/usr/bin/env bash
# Replays one entry of tests/golden/manifest.tsv through the allocsim binary and compares its exit code and
# fingerprint (kind replay: the fingerprint on the first output line; kind fingerprints: the whole
# `--fingerprints` file) with what the manifest recorded. Exit 0 when both match, 1 when not, 2 on bad usage.
#
# usage: tests/golden/check.sh ALLOCSIM_BINARY NAME   (run from the repository root; ctest does)
set -uo pipefail
set -f  # arguments are word-split on purpose, never globbed (schedule strings hold "*")

[[ $# -eq 2 ]] || { echo "usage: check.sh ALLOCSIM_BINARY NAME" >&2; exit 2; }
bin="$1" name="$2"
line="$(awk -F'\t' -v n="$name" '$1 == n' tests/golden/manifest.tsv)"
[[ -n "$line" ]] || { echo "check.sh: no entry '$name' in tests/golden/manifest.tsv" >&2; exit 2; }
IFS=$'\t' read -r _ kind want_code want args <<< "$line"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
code=0
if [[ "$kind" == replay ]]; then
  out="$("$bin" $args 2>&1)" || code=$?
  got="$(printf '%s\n' "${out%%$'\n'*}" | sed -n 's/.*fingerprint \([0-9a-f]\{16\}\)$/\1/p')"
else
  out="$("$bin" ${args//\{OUT\}/$scratch/fp.txt} 2>&1)" || code=$?
  if cmp -s "$scratch/fp.txt" "$want"; then got="$want"; else got="(differs: diff $want against the run's file)"; fi
fi

ok=1
if [[ "$code" != "$want_code" ]]; then echo "$name: exit code $code, expected $want_code"; ok=0; fi
if [[ "$got" != "$want" ]]; then echo "$name: fingerprint $got, expected $want"; ok=0; fi
if [[ "$ok" == 1 ]]; then echo "$name: ok ($kind, exit $code)"; exit 0; fi
echo "command: allocsim $args"
if [[ "$kind" == fingerprints && -f "$scratch/fp.txt" ]]; then diff "$want" "$scratch/fp.txt" | head -5; fi
printf '%s\n' "$out" | head -40
echo "If this change of meaning is intended, see tests/golden/README.md (regenerate.sh)."
exit 1
