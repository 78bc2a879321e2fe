#!/usr/bin/env bash
# The nightly exhaustive sweep (README, "Nightly sweeps"): `allocsim sweep` with dfs + DPOR over scenarios/, JSON and
# JUnit reports in one directory, resumable after a kill (the checkpoint lives next to the reports).
#
#   tools/nightly/nightly.sh sweep [-o OUT] [-j JOBS] [-b BUDGET_S] [-s K/N] [--fresh] [SCENARIOS...]
#       OUT defaults to ./nightly-out, JOBS to 2, SCENARIOS to scenarios/. Writes OUT/sweep.json,
#       OUT/junit.xml, OUT/sweep.log and OUT/checkpoint.json. An existing OUT/checkpoint.json is resumed
#       (a restarted pod or CI job continues where it stopped); --fresh deletes it first. With -s K/N
#       the reports are shard reports, to be merged.
#   tools/nightly/nightly.sh merge OUT SHARD_REPORT.json...
#       Combines the N shard reports into OUT/sweep.json and OUT/junit.xml (allocsim merge).
#   tools/nightly/nightly.sh mutants [-o OUT] [-j JOBS] [MUTANTS_PY_ARGS...]
#       The mutation stage (scenarios/README.md, "Mechanical mutants"; hours: not for CI): clones this checkout into
#       OUT/clone, configures a cheap build there (Release -O1, no -Werror, no compiler cache) and runs
#       tools/nightly/mutants.py over every mechanical mutant of backend/model/memory_backend*.cpp, sweeping scenarios/
#       with preemption bound 2, then judging a mutant the sweep leaves alive by the port's unit tests (test_backend).
#       Writes OUT/mutants.json, OUT/mutants.txt (score and survivors) and OUT/mutants.log.
#   tools/nightly/nightly.sh swarm [-o OUT] [-j JOBS] [-s K/N] [-n SCENARIOS] [--seed S] [--fresh]
#       The swarm stage (docs/SWARM.md): `allocsim swarm` over SCENARIOS generated scenarios (default 2000; with
#       -s K/N this shard's share of them) from seed S (default: tonight's date as YYYYMMDD, UTC, printed, so
#       a night's findings replay from its seed; shards of one night must be given the same --seed). Writes
#       the findings and summary.json under OUT/swarm, OUT/swarm-junit.xml (one testcase per distinct
#       finding), OUT/swarm.log and OUT/swarm-checkpoint-S.json: an existing checkpoint is resumed (a restarted
#       pod continues), --fresh deletes it first. Then, unsharded or as shard 1, the generator check over
#       100,000 seeds (ALLOCSIM_SWARM_GENERATOR_SEEDS; 0 skips it) with build/tests/test_backend when that
#       binary exists. Findings on the faithful port are expected (scenarios/FINDINGS.md): exit 0 unless an error.
#   tools/nightly/nightly.sh swarm-merge OUT SHARD_OUT...
#       Merges the shards' OUT/swarm folders into OUT/swarm and OUT/swarm-junit.xml (allocsim swarm merge):
#       the same files the unsharded run writes.
#   tools/nightly/nightly.sh findings OUT [-H HISTORY] [-k KEEP] [--night NAME] [--fail-on-still-failing]
#       What changed since the nights before (allocsim findings diff): tonight's OUT (sweep.json, swarm/)
#       against the nights kept in HISTORY (default OUT/history; keep it somewhere that outlives OUT, e.g. a
#       CI cache), oldest first. Writes OUT/findings.txt, OUT/findings.json and OUT/findings.html, then
#       copies tonight's reports (sweep.json, sweep.html, the swarm folder) into HISTORY/NAME (default:
#       tonight's date, YYYYMMDD, UTC) and keeps the newest KEEP nights there (default 7: a finding seen in
#       some of the last week's nights only is "rare"). Exit 1 when a finding is new (with
#       --fail-on-still-failing also when one is still failing); the first night, with no history, exits 0.
#   tools/nightly/nightly.sh selfcheck [-o OUT] [-j JOBS] [-n SCENARIOS] [--seed S] [--fresh]
#       The verdict self-check at scale (README "Verdict self-check"): `allocsim selfcheck` over SCENARIOS
#       generated scenarios (default 10000) from seed S (default: tonight's date as YYYYMMDD, UTC, printed).
#       Writes OUT/selfcheck.json (the report), OUT/selfcheck/ (the files every contradiction's replay line
#       names), OUT/selfcheck.log and OUT/selfcheck-checkpoint-S.json: an existing checkpoint is resumed (a
#       restarted pod continues), --fresh deletes it first. Exit 1 on any contradiction.
#
# Environment: ALLOCSIM (the binary; default build/tools/allocsim under the repository root),
# ALLOCSIM_SWEEP_FLAGS (extra sweep flags, e.g. "--preemption-bound 2 --reduction none").
# Exit code: allocsim's (0 all expectations met, 1 not, 2 input error, 3 internal).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ALLOCSIM="${ALLOCSIM:-$ROOT/build/tools/allocsim}"

usage() {
  sed -n '2,46p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

mutants() {
  local out="nightly-out" jobs=2
  while [ $# -gt 0 ]; do
    case "$1" in
      -o) out="$2"; shift 2 ;;
      -j) jobs="$2"; shift 2 ;;
      -h|--help) usage ;;
      *) break ;;
    esac
  done
  mkdir -p "$out"
  out="$(cd "$out" && pwd)"
  rm -rf "$out/clone"
  git clone -q "$ROOT" "$out/clone"
  cmake -S "$out/clone" -B "$out/clone/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CXX_FLAGS_RELEASE=-O1 -DALLOCSIM_WERROR=OFF >"$out/mutants.log" 2>&1
  cmake --build "$out/clone/build" --target allocsim -j "$jobs" >>"$out/mutants.log" 2>&1
  python3 "$ROOT/tools/nightly/mutants.py" run "$out/clone" "$out/clone/build" --jobs "$jobs" \
          --json "$out/mutants.json" --text "$out/mutants.txt" "$@" 2>&1 | tee -a "$out/mutants.log"
}

# The mutation stage builds its own binary in a clone: it needs no ALLOCSIM.
if [ "${1:-}" = mutants ]; then
  shift
  mutants "$@"
  exit 0
fi

[ -x "$ALLOCSIM" ] || { echo "nightly.sh: $ALLOCSIM is not an executable (set ALLOCSIM, or build first)" >&2; exit 2; }

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  sweep)
    out="nightly-out" jobs=2 budget="" shard="1/1" fresh=0
    while [ $# -gt 0 ]; do
      case "$1" in
        -o) out="$2"; shift 2 ;;
        -j) jobs="$2"; shift 2 ;;
        -b) budget="$2"; shift 2 ;;
        -s) shard="$2"; shift 2 ;;
        --fresh) fresh=1; shift ;;
        -h|--help) usage ;;
        -*) echo "nightly.sh: unknown option $1" >&2; usage ;;
        *) break ;;
      esac
    done
    inputs=("$@")
    [ ${#inputs[@]} -eq 0 ] && inputs=("$ROOT/scenarios")
    mkdir -p "$out"
    [ "$fresh" -eq 1 ] && rm -f "$out/checkpoint.json"
    args=(sweep "${inputs[@]}" --strategy dfs --jobs "$jobs" --shard "$shard"
          --checkpoint "$out/checkpoint.json" --report-json "$out/sweep.json" --junit "$out/junit.xml")
    # The page (each first violation's trace, coverage) for an unsharded sweep; a merge writes its own JSON.
    [ "$shard" = 1/1 ] && args+=(--report-html "$out/sweep.html")
    [ -f "$out/checkpoint.json" ] && args+=(--resume "$out/checkpoint.json")
    [ -n "$budget" ] && args+=(--time-budget "$budget")
    # shellcheck disable=SC2206  # word splitting of the extra flags is intended
    [ -n "${ALLOCSIM_SWEEP_FLAGS:-}" ] && args+=(${ALLOCSIM_SWEEP_FLAGS})
    start=$(date +%s)
    set +e
    "$ALLOCSIM" "${args[@]}" >"$out/sweep.log" 2>&1
    rc=$?
    set -e
    cat "$out/sweep.log"
    echo "nightly.sh: sweep exit $rc after $(( $(date +%s) - start ))s; reports in $out" >&2
    exit "$rc"
    ;;
  swarm)
    out="nightly-out" jobs=2 shard="1/1" scenarios=2000 seed="$(date -u +%Y%m%d)" fresh=0
    while [ $# -gt 0 ]; do
      case "$1" in
        -o) out="$2"; shift 2 ;;
        -j) jobs="$2"; shift 2 ;;
        -s) shard="$2"; shift 2 ;;
        -n) scenarios="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --fresh) fresh=1; shift ;;
        -h|--help) usage ;;
        *) echo "nightly.sh: unknown option $1" >&2; usage ;;
      esac
    done
    mkdir -p "$out/swarm"
    [ "$fresh" -eq 1 ] && rm -f "$out/swarm-checkpoint-$seed.json"
    echo "nightly.sh: swarm --seed $seed --scenarios $scenarios --shard $shard" >&2
    args=(swarm --seed "$seed" --scenarios "$scenarios" --jobs "$jobs" --shard "$shard" --out "$out/swarm"
          --junit "$out/swarm-junit.xml" --report-html "$out/swarm/report.html"
          --checkpoint "$out/swarm-checkpoint-$seed.json")
    [ -f "$out/swarm-checkpoint-$seed.json" ] && args+=(--resume "$out/swarm-checkpoint-$seed.json")
    set +e
    "$ALLOCSIM" "${args[@]}" >"$out/swarm.log" 2>&1
    rc=$?
    set -e
    cat "$out/swarm.log"
    [ "$rc" -le 1 ] || exit "$rc"
    gen="$ROOT/build/tests/test_backend"
    seeds="${ALLOCSIM_SWARM_GENERATOR_SEEDS:-100000}"
    if [ -x "$gen" ] && [ "${shard%%/*}" = 1 ] && [ "$seeds" -gt 0 ]; then
      ALLOCSIM_SWARM_SEEDS="$seeds" "$gen" "swarm generator: every seed's scenario loads and reads back to the same document"
    fi
    exit 0
    ;;
  swarm-merge)
    [ $# -ge 2 ] || usage
    out="$1"; shift
    dirs=()
    for d in "$@"; do dirs+=("$d/swarm"); done
    mkdir -p "$out/swarm"
    set +e
    "$ALLOCSIM" swarm merge "${dirs[@]}" --out "$out/swarm" --junit "$out/swarm-junit.xml" \
      --report-html "$out/swarm/report.html"
    rc=$?
    set -e
    [ "$rc" -le 1 ] || exit "$rc"
    exit 0
    ;;
  findings)
    [ $# -ge 1 ] || usage
    out="$1"; shift
    history="$out/history" keep=7 night="$(date -u +%Y%m%d)" extra=()
    while [ $# -gt 0 ]; do
      case "$1" in
        -H) history="$2"; shift 2 ;;
        -k) keep="$2"; shift 2 ;;
        --night) night="$2"; shift 2 ;;
        --fail-on-still-failing) extra+=(--fail-on-still-failing); shift ;;
        -h|--help) usage ;;
        *) echo "nightly.sh: unknown option $1" >&2; usage ;;
      esac
    done
    case "$keep" in ''|*[!0-9]*|0) echo "nightly.sh: -k: expected a number of nights >= 1, got '$keep'" >&2; exit 2 ;; esac
    mkdir -p "$history"
    # The earlier nights, oldest first (names sort by date), without tonight's own copy of an earlier run.
    earlier=()
    while IFS= read -r d; do
      case "$d" in *.tmp) continue ;; esac  # a copy an earlier job did not finish
      [ -n "$d" ] && [ "$(basename "$d")" != "$night" ] && earlier+=("$d")
    done < <(find "$history" -mindepth 1 -maxdepth 1 -type d | LC_ALL=C sort)
    rc=0
    if [ ${#earlier[@]} -eq 0 ]; then
      echo "nightly.sh: findings: no earlier night in $history yet: nothing to compare tonight with" | tee "$out/findings.txt" >&2
    else
      set +e
      "$ALLOCSIM" findings diff "${earlier[@]}" "$out" --report-json "$out/findings.json" \
        --report-html "$out/findings.html" "${extra[@]}" >"$out/findings.txt"
      rc=$?
      set -e
      cat "$out/findings.txt"
      [ "$rc" -le 1 ] || exit "$rc"
    fi
    # Keep tonight's reports (the swarm folder whole: its replay lines name its trace files), then the newest
    # $keep nights.
    dest="$history/$night"
    rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
    for f in sweep.json sweep.html; do [ -f "$out/$f" ] && cp "$out/$f" "$dest.tmp/"; done
    [ -d "$out/swarm" ] && cp -r "$out/swarm" "$dest.tmp/swarm"
    rm -rf "$dest" && mv "$dest.tmp" "$dest"
    find "$history" -mindepth 1 -maxdepth 1 -type d ! -name '*.tmp' | LC_ALL=C sort | head -n "-$keep" | while IFS= read -r d; do
      rm -rf "$d"
    done
    exit "$rc"
    ;;
  selfcheck)
    out="nightly-out" jobs=2 scenarios=10000 seed="$(date -u +%Y%m%d)" fresh=0
    while [ $# -gt 0 ]; do
      case "$1" in
        -o) out="$2"; shift 2 ;;
        -j) jobs="$2"; shift 2 ;;
        -n) scenarios="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --fresh) fresh=1; shift ;;
        -h|--help) usage ;;
        *) echo "nightly.sh: unknown option $1" >&2; usage ;;
      esac
    done
    mkdir -p "$out/selfcheck"
    checkpoint="$out/selfcheck-checkpoint-$seed.json"
    [ "$fresh" -eq 1 ] && rm -f "$checkpoint"
    echo "nightly.sh: selfcheck --seed $seed --scenarios $scenarios" >&2
    args=(selfcheck --seed "$seed" --scenarios "$scenarios" --jobs "$jobs" --out "$out/selfcheck"
          --report-json "$out/selfcheck.json" --checkpoint "$checkpoint")
    [ -f "$checkpoint" ] && args+=(--resume "$checkpoint")
    start=$(date +%s)
    set +e
    "$ALLOCSIM" "${args[@]}" >"$out/selfcheck.log" 2>&1
    rc=$?
    set -e
    cat "$out/selfcheck.log"
    echo "nightly.sh: selfcheck exit $rc after $(( $(date +%s) - start ))s; report in $out/selfcheck.json" >&2
    exit "$rc"
    ;;
  merge)
    [ $# -ge 2 ] || usage
    out="$1"; shift
    mkdir -p "$out"
    exec "$ALLOCSIM" merge "$@" --report-json "$out/sweep.json" --junit "$out/junit.xml"
    ;;
  *)
    usage
    ;;
esac
