#!/usr/bin/env bash
# allocsim-update-schema (tools/schema/update_schema.cpp) on copies of the scenario schema: the committed file is
# up to date (exit 0, unchanged); a copy that lags the tables is reported by --check (exit 1, unchanged) and
# rewritten without it (then up to date); a copy whose layout alone differs is told apart; usage errors, a schema
# missing a part the tables write and a file that is not a schema exit 2 naming the file (and the part), unchanged.
# Usage: check_update_schema.sh TOOL SCHEMA
set -euo pipefail
tool="$1"
schema="$2"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect_exit WANT ARGS...: runs the tool on ARGS, its stderr into $dir/err, and fails unless it exits WANT.
expect_exit() {
  local want="$1" rc=0
  shift
  "$tool" "$@" 2>"$dir/err" || rc=$?
  [ "$rc" -eq "$want" ] || fail "arguments '$*' exited $rc, want $want: $(cat "$dir/err")"
}

cp "$schema" "$dir/s.json"
"$tool" --check "$dir/s.json" >/dev/null || fail "the committed schema lags the tables"
cmp -s "$schema" "$dir/s.json" || fail "--check wrote the file"

# Lagging: drop one op's definition and one invariant name.
python3 - "$dir/s.json" "$dir/lag.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
del s["$defs"]["op_reject_binds"]
s["$defs"]["invariant_name"]["enum"].pop()
open(sys.argv[2], "w").write(json.dumps(s, indent=2, ensure_ascii=False) + "\n")
PY
cp "$dir/lag.json" "$dir/lag.before"
expect_exit 1 --check "$dir/lag.json"
grep -q "lag.json: lags the op, invariant, mutant or barrier table; run tools/dev.sh schema" "$dir/err" ||
  fail "--check message: $(cat "$dir/err")"
cmp -s "$dir/lag.json" "$dir/lag.before" || fail "--check wrote the lagging copy"
"$tool" "$dir/lag.json" | grep -q "rewritten from the tables" || fail "no rewrite reported"
cmp -s "$dir/lag.json" "$schema" || fail "the rewritten copy differs from the committed schema"

# The layout alone differs (no trailing newline): said apart from a lag.
head -c -1 "$schema" >"$dir/layout.json"
expect_exit 1 --check "$dir/layout.json"
grep -q "layout.json: holds what the tables write, but not in the written layout" "$dir/err" ||
  fail "layout message: $(cat "$dir/err")"

# Usage errors: exit 2 with the usage line.
for args in "" "--check" "--check a b"; do
  # shellcheck disable=SC2086 # the words are the arguments
  expect_exit 2 $args
  grep -q "usage: allocsim-update-schema \[--check\] FILE" "$dir/err" || fail "no usage for '$args': $(cat "$dir/err")"
done

# Not a schema, or missing a part the tables write: exit 2, the file and the part named, nothing written.
echo '{"$defs": {"op": {"properties": {"op": {}}}}}' >"$dir/part.json"
expect_exit 2 "$dir/part.json"
grep -q "part.json: /\$defs/expect: missing or not an object" "$dir/err" || fail "part message: $(cat "$dir/err")"

# A folder: exit 2, named.
expect_exit 2 "$dir"
grep -q "a folder, not a schema file" "$dir/err" || fail "folder message: $(cat "$dir/err")"

# Not a schema: exit 2, the file named, nothing written.
echo '{"$defs": {}}' >"$dir/bad.json"
expect_exit 2 "$dir/bad.json"
grep -q "bad.json: " "$dir/err" || fail "the error does not name the file: $(cat "$dir/err")"
[ "$(cat "$dir/bad.json")" = '{"$defs": {}}' ] || fail "the bad file was written"
echo "update-schema: up to date, lagging (check, rewrite) and malformed cases as expected"
