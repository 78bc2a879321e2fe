#!/usr/bin/env bash
# allocsim-update-schema (tools/schema/update_schema.cpp) on copies of the scenario schema: the committed file is
# up to date (exit 0, unchanged); a copy that lags the tables is reported by --check (exit 1, unchanged) and
# rewritten without it (then up to date); a file that is not a schema exits 2 naming the file, unchanged.
# Usage: check_update_schema.sh TOOL SCHEMA
set -euo pipefail
tool="$1"
schema="$2"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cp "$schema" "$dir/s.json"
"$tool" --check "$dir/s.json" >/dev/null || fail "the committed schema lags the tables"
cmp -s "$schema" "$dir/s.json" || fail "--check wrote the file"

# Lagging: drop one op's definition and one invariant name.
python3 - "$dir/s.json" "$dir/lag.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
del s["$defs"]["op_reject_binds"]
s["$defs"]["invariant_name"]["enum"].pop()
json.dump(s, open(sys.argv[2], "w"), indent=2, ensure_ascii=False)
PY
cp "$dir/lag.json" "$dir/lag.before"
set +e
"$tool" --check "$dir/lag.json" 2>"$dir/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "--check on a lagging copy exited $rc, want 1"
grep -q "lag.json: lags the op, invariant, mutant or barrier table; run tools/dev.sh schema" "$dir/err" ||
  fail "--check message: $(cat "$dir/err")"
cmp -s "$dir/lag.json" "$dir/lag.before" || fail "--check wrote the lagging copy"
"$tool" "$dir/lag.json" | grep -q "rewritten from the tables" || fail "no rewrite reported"
cmp -s "$dir/lag.json" "$schema" || fail "the rewritten copy differs from the committed schema"

# Not a schema: exit 2, the file named, nothing written.
echo '{"$defs": {}}' >"$dir/bad.json"
set +e
"$tool" "$dir/bad.json" 2>"$dir/err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a file without the table-owned parts exited $rc, want 2"
grep -q "bad.json: " "$dir/err" || fail "the error does not name the file: $(cat "$dir/err")"
[ "$(cat "$dir/bad.json")" = '{"$defs": {}}' ] || fail "the bad file was written"
echo "update-schema: up to date, lagging (check, rewrite) and malformed cases as expected"
