#!/usr/bin/env bash
# ctest: tools/completion/allocsim.bash, sourced into plain bash (no bash-completion package), completes the
# command lines below to exactly the words given. Run from the repository root (scenario file names).
#   tests/completion/check_completion.sh ALLOCSIM_BINARY
# Each case: the command line (the last word is the one being completed; a trailing space completes an empty
# word) and the expected COMPREPLY, space-separated, in order. The word lists come from the binary itself,
# so the mutant, invariant and strategy cases also check that the script reads them from `allocsim list`.
set -uo pipefail
BIN="${1:?usage: check_completion.sh ALLOCSIM_BINARY}"
# shellcheck source=../../tools/completion/allocsim.bash
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/completion/allocsim.bash"
failed=0 passed=0

check() {
  local line=$1 want=$2
  read -r -a COMP_WORDS <<<"$line"
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_WORDS[0]=$BIN
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _allocsim
  local got="${COMPREPLY[*]}"
  if [ "$got" = "$want" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL: "%s"\n  want: %s\n  got:  %s\n' "$line" "$want" "$got"
  fi
}

check "allocsim " "corpus findings list merge replay run selfcheck shrink swarm sweep trace help"
check "allocsim sw" "swarm sweep"
check "allocsim --v" "--version"
check "allocsim run --strat" "--strategy"
check "allocsim run --strategy " "random pct dfs dpor"
check "allocsim sweep --strategy d" "dfs dpor"
check "allocsim run --mutant stale-" "stale-last-out stale-success-readiness stale-plan-applied"
check "allocsim swarm --until no-d" "no-double-grant no-deadlock"
check "allocsim run --check-invariants " "incremental full"
check "allocsim run --reduction " "dpor states symmetry none"
check "allocsim run --reduction s" "states symmetry"
check "allocsim run --seed " ""
check "allocsim list " "barriers invariants mutants ops strategies"
check "allocsim help sh" "shrink"
check "allocsim trace " "explain order"
check "allocsim corpus p" "prune"
check "allocsim findings " "diff"
check "allocsim findings diff --fail" "--fail-on-still-failing"
check "allocsim swarm merge --rep" "--report-html --report-json --report-junit"
check "allocsim run scenarios/alloc-004-o" "scenarios/alloc-004-one-plan-two-claimants.json"
check "allocsim sweep scenarios/mut" "scenarios/mutants"
check "allocsim replay scenarios/mutants/stale-l" "scenarios/mutants/stale-last-out.json"
check "allocsim run scenarios/mutants/expected" ""
check "allocsim selfcheck --no-m" "--no-mutants"
check "allocsim selfcheck --mutant stale-l" "stale-last-out"
check "allocsim selfcheck scenarios/alloc-004-o" "scenarios/alloc-004-one-plan-two-claimants.json"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
