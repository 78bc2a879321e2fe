#!/usr/bin/env python3
"""The reserver family: how far an exhaustive reduction gets as actors are added (docs/DESIGN.md §2,
"Canonical states and state caching").

N identical reservers, each `inventory`, `plan` (one exclusive card), `reserve` and, with release, `release`,
on two 2-card A100 nodes. For each N and each reduction, one `allocsim run --strategy dfs --reduction R` to
exhaustion (or to the time limit): wall seconds, peak RSS, executions, and for `states` and `symmetry` the distinct
states (orbits, under `symmetry`).
A benchmark, not a test: wall time on a shared machine moves with the load, so compare rows of one run.

  tools/bench/family.py --allocsim build/tools/allocsim --actors 2-4 --reductions dpor,states,symmetry --timeout 300
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

NODE_LABELS = {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.count": "2",
               "nvidia.com/gpu.memory": "81920", "nvidia.com/mig.capable": "true"}


def family(n, release):
    def node(name):
        return {"name": name, "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80,
                "labels": dict(NODE_LABELS)}
    actors = []
    for i in range(n):
        script = [{"op": "inventory"},
                  {"op": "plan", "requests": [{"workload": f"w{i}", "devices": 1, "sharing": "exclusive"}]},
                  {"op": "reserve"}]
        if release:
            script.append({"op": "release"})
        actors.append({"name": f"r{i}", "script": script})
    return {"schema": "allocsim/scenario/v1", "name": f"family-{n}{'-release' if release else ''}",
            "backend": {"authority": "managed-mig", "mig_apply_seconds": 0, "mutants": []},
            "nodes": [node("n1"), node("n2")], "actors": actors, "invariants": "all"}


def run(binary, path, reduction, timeout):
    # GNU time reports the child's own peak RSS; a timeout stops the run with SIGTERM, and allocsim then prints
    # what it explored so far.
    cmd = ["/usr/bin/time", "-f", "peak_rss_kb=%M", "timeout", str(timeout), binary, "run", path,
           "--strategy", "dfs", "--reduction", reduction, "--executions", "1000000000000"]
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    out, done = p.stdout, "exhaustive: all" in p.stdout
    m = re.search(r"peak_rss_kb=(\d+)", p.stderr)
    row = {"wall_s": round(wall, 2), "exhausted": done, "peak_rss_mib": round(int(m.group(1)) / 1024, 1) if m else None}
    m = re.search(r"(\d+) executions,", out)
    row["executions"] = int(m.group(1)) if m else None
    m = re.search(r"states: (\d+) visited, (\d+) stored", out)
    if m:
        row["states_visited"], row["states_distinct"] = int(m.group(1)), int(m.group(2))
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--allocsim", default="build/tools/allocsim")
    ap.add_argument("--actors", default="2-3", help="N or LO-HI")
    ap.add_argument("--reductions", default="dpor,states,symmetry")
    ap.add_argument("--release", choices=["no", "yes", "both"], default="both")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per run")
    ap.add_argument("--json", action="store_true", help="one JSON object per row instead of a table")
    a = ap.parse_args()
    lo, _, hi = a.actors.partition("-")
    sizes = range(int(lo), int(hi or lo) + 1)
    releases = {"no": [False], "yes": [True], "both": [False, True]}[a.release]
    if not os.access(a.allocsim, os.X_OK):
        sys.exit(f"--allocsim: {a.allocsim} is not an executable")
    if not os.access("/usr/bin/time", os.X_OK):
        sys.exit("/usr/bin/time (GNU time, Debian package `time`) is needed for the peak RSS")
    if not a.json:
        print("| N | release | reduction | exhausted | wall s | executions | distinct states | peak RSS MiB |")
        print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for release in releases:
            for n in sizes:
                path = os.path.join(tmp, f"family-{n}-{release}.json")
                with open(path, "w") as f:
                    json.dump(family(n, release), f)
                for r in a.reductions.split(","):
                    row = run(a.allocsim, path, r, a.timeout)
                    row.update(n=n, release=release, reduction=r)
                    if a.json:
                        print(json.dumps(row), flush=True)
                    else:
                        print(f"| {n} | {'yes' if release else 'no'} | {r} | {'yes' if row['exhausted'] else 'no'} | "
                              f"{row['wall_s']} | {row['executions']} | {row.get('states_distinct', '')} | "
                              f"{row['peak_rss_mib'] or ''} |", flush=True)


if __name__ == "__main__":
    main()
