#!/usr/bin/env python3
"""How many generated scenarios the swarm needs to find each catalogue mutant (docs/SWARM.md, "Measured").

Usage: swarm_mutants.py ALLOCSIM [--seeds 1-10] [--limit 1000] [--per-scenario 200] [--jobs 1] [--only M,M]
       swarm_mutants.py ALLOCSIM --faithful INV,INV [--seeds 1-10] [--limit 1000]

For every mutant file under scenarios/mutants/ (its backend.mutants names the mutant, its expect.violation
the invariant(s) that catch it), and each seed, runs
    allocsim swarm --seed S --mutant M --until INV... --scenarios LIMIT --out TMP
(--shrink-runs 100: shrinking keeps a violation's invariant, so how far it gets changes no number here,
only the time) and reads summary.json: the mutant is found at the first scenario (index + 1 = scenarios
needed) with a finding whose invariant is one of the mutant's and that the faithful port does not share
(`first_mutant_only_index`: the swarm runs each violating scenario on the faithful port too and counts a
violation as the mutant's only when the faithful port does not break the same way; --until stops there).
"faithful-shared" counts the seeds where a finding of the mutant's invariant met earlier was the faithful
port's too (the swarm skipped it).
Prints a Markdown table: mutant, invariant(s), median and worst scenarios over the seeds, found-in count,
faithful-shared seeds. Everything is deterministic; wall time is printed last and decides nothing.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def first_found(allocsim, seed, mutant, invariants, limit, per_scenario, jobs, shrink_runs=100):
    """(scenarios needed until a finding of `invariants` that is the mutant's alone (or, without a mutant, any
    finding of them), or None; whether a faithful-shared finding of them came first)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [allocsim, "swarm", "--seed", str(seed), "--scenarios", str(limit), "--per-scenario",
               str(per_scenario), "--jobs", str(jobs), "--shrink-runs", str(shrink_runs), "--out", out]
        if mutant:
            cmd += ["--mutant", mutant]
        for inv in invariants:
            cmd += ["--until", inv]
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        if rc not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)}: exit {rc}")
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
    mine = [f for f in summary["findings"] if f["invariant"] in invariants]
    if not mutant:
        hits = [f["first_index"] for f in mine]
        return (min(hits) + 1 if hits else None), False
    hits = [f["first_mutant_only_index"] for f in mine if f["first_mutant_only_index"] is not None]
    first = min(hits) + 1 if hits else None
    shared = any(f["first_index"] + 1 < (first or limit + 1) for f in mine)
    return first, shared


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("allocsim")
    ap.add_argument("--seeds", default="1-10")
    ap.add_argument("--limit", type=int, default=1000)
    ap.add_argument("--per-scenario", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", default="", help="comma-separated mutant names (default: every mutant file)")
    ap.add_argument("--faithful", default="",
                    help="instead: comma-separated invariants; scenarios until the faithful port violates each")
    a = ap.parse_args()
    lo, hi = (int(x) for x in a.seeds.split("-"))
    seeds = range(lo, hi + 1)
    t0 = time.monotonic()
    if a.faithful:
        print("| invariant (faithful port) | median | worst | found (of seeds) |")
        print("|---|---|---|---|")
        for inv in a.faithful.split(","):
            found = [first_found(a.allocsim, s, None, [inv], a.limit, a.per_scenario, a.jobs)[0] for s in seeds]
            hit = [n for n in found if n is not None]
            worst = max(hit) if len(hit) == len(found) else f">{a.limit}"
            print(f"| {inv} | {statistics.median(hit) if hit else '-'} | {worst} | {len(hit)}/{len(found)} |", flush=True)
        print(f"\n(wall time {time.monotonic() - t0:.0f} s)")
        return
    print("| mutant | invariant(s) | median | worst | found (of seeds) | faithful-shared seeds |")
    print("|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(ROOT, "scenarios", "mutants", "*.json"))):
        with open(path) as f:
            sc = json.load(f)
        mutant = sc["backend"]["mutants"][0]
        if a.only and mutant not in a.only.split(","):
            continue
        v = sc["expect"]["violation"]
        invariants = v if isinstance(v, list) else [v]
        found, shared = [], 0
        for s in seeds:
            n, sh = first_found(a.allocsim, s, mutant, invariants, a.limit, a.per_scenario, a.jobs)
            shared += sh
            found.append(n)
        hit = [n for n in found if n is not None]
        median = statistics.median(hit) if hit else "-"
        worst = max(hit) if len(hit) == len(found) else f">{a.limit}"
        print(f"| {mutant} | {', '.join(invariants)} | {median} | {worst} | {len(hit)}/{len(found)} | {shared} |",
              flush=True)
    print(f"\n(wall time {time.monotonic() - t0:.0f} s)")


if __name__ == "__main__":
    main()
