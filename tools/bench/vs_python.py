#!/usr/bin/env python3
"""Side by side: the upstream Python backend under its thread-per-actor explorer against `allocsim run`.

One bench run, the same scenario files on both sides, the same scheduling-point model (a point before every
backend call, at every barrier, at every contended lock acquire: the oracle's `--points calls`):

  python side:  python3 PYREF/scenario_oracle.py FILE --random N --seed 0 --points calls
  allocsim:     BIN run FILE --strategy random --executions N --no-corpus      (for every --allocsim BIN)

CPU time per execution: each command runs at N and at 2N executions (N per side, see below), and the CPU time of the child
(getrusage(RUSAGE_CHILDREN) user + system, before and after) at 2N minus that at N is the cost of N
executions without process start-up, imports, scenario loading and whatever a run does once. Each size runs
--repeat times and its least CPU time is kept (load on a shared machine only ever adds CPU time); the sides
take turns within each repeat.

Same model, checked rather than assumed: steps per execution on both sides (from each tool's own summary
line), the fraction of violating executions, and the distribution of op outcomes (per actor, op and word:
the python side's counts come from running the oracle's own random driver in-process, N executions, since
its command line prints only which words were seen). A difference beyond sampling noise (4 standard errors)
is printed in the table's `model` column; `same` means none was found.

Usage: tools/bench/vs_python.py [--allocsim BIN]... [--pyref DIR] [-n N] [--cpp-n N] [--repeat R] [SCENARIO...]
Defaults: --allocsim build-rel/tools/allocsim (else build/tools/allocsim), --pyref ../shared/pyref relative to
the repository root, N = 2000 on the python side and 20000 on allocsim's (a few hundred milliseconds of CPU
each, so that the difference is well above the clock's resolution), the 2-reserver scenario (ALLOC-004 one
plan, two claimants) and ALLOC-005 last-out. Exit 2 on bad input (a missing file, binary or pyref directory, named), 1 when a tool fails.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SCENARIOS = ["scenarios/alloc-004-one-plan-two-claimants.json", "scenarios/alloc-005-last-out.json"]

# The oracle's summary line (describe_exploration) and allocsim run's ("N executions, S steps, V violating").
PY_SUMMARY = re.compile(r"random x\d+ seed \d+: (\d+) schedules .*?, (\d+) violating, (\d+) steps, (\d+) lock-waits")
CPP_SUMMARY = re.compile(r"^\s+(\d+) executions, (\d+) steps, (\d+) violating", re.M)
CPP_OUTCOME = re.compile(r"^  (\S+) (\S+): (.*)$")

# Run in a child python: the oracle's own random driver, N executions, the outcome of every op counted.
PY_DISTRIBUTION = r"""
import collections, json, sys
sys.path.insert(0, sys.argv[1])
import scenario_oracle as so
sc = so.load_scenario(sys.argv[2])
ex = so.random_runs(sc, so.Options(points='calls'), int(sys.argv[3]), 0)
counts = collections.Counter()
for key, n in ex.outcome_counts.items():
    for part in key.split(' | '):
        actor, _, ops = part.partition(': ')
        for op_word in ops.split():
            op, _, word = op_word.partition('=')
            counts[f'{actor} {op} {word}'] += n
print(json.dumps({'executions': ex.schedules, 'counts': counts}))
"""


class BadInput(Exception):
    pass


def child_cpu_seconds() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(cmd: list[str]) -> tuple[float, str]:
    """Runs `cmd` to completion; returns its CPU time and stdout. A failing tool (exit 2 or 3, or a crash) is
    an error; exit 1 (an expectation not met) is a result like any other."""
    t0 = child_cpu_seconds()
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    t = child_cpu_seconds() - t0
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr.strip()}")
    return t, p.stdout


def python_cmd(pyref: str, scenario: str, n: int) -> list[str]:
    return [sys.executable, os.path.join(pyref, "scenario_oracle.py"), scenario, "--random", str(n), "--seed", "0",
            "--points", "calls"]


def cpp_cmd(binary: str, scenario: str, n: int) -> list[str]:
    return [binary, "run", scenario, "--strategy", "random", "--executions", str(n), "--no-corpus"]


def parse_py(out: str) -> dict:
    m = PY_SUMMARY.search(out)
    if not m:
        raise RuntimeError(f"no summary line in the oracle's output:\n{out}")
    execs, violating, steps, _ = map(int, m.groups())
    return {"executions": execs, "steps": steps, "violating": violating}


def parse_cpp(out: str) -> dict:
    m = CPP_SUMMARY.search(out)
    if not m:
        raise RuntimeError(f"no summary line in allocsim's output:\n{out}")
    execs, steps, violating = map(int, m.groups())
    counts: dict[str, int] = {}
    section = out.split("\noutcomes:\n", 1)[1] if "\noutcomes:\n" in out else ""
    for line in section.splitlines():
        om = CPP_OUTCOME.match(line)
        if not om:
            break
        for part in om.group(3).split(", "):
            word, _, n = part.rpartition(" ")
            counts[f"{om.group(1)} {om.group(2)} {word}"] = int(n)
    return {"executions": execs, "steps": steps, "violating": violating, "counts": counts}


def per_execution_costs(sides: list, repeat: int) -> list[tuple[float, str]]:
    """For each side (cmd_of, n): (least CPU(2N) - least CPU(N)) / N over `repeat` runs of each size, and the
    output of its last 2N run. Load only ever adds CPU time, so the least of each size is the closest to its
    cost (the difference of the least values is steadier than the least of the differences); the sides take
    turns within each repeat, so a change of load over the bench run falls on all of them alike."""
    t1s = [[] for _ in sides]
    t2s = [[] for _ in sides]
    outs = [""] * len(sides)
    for _ in range(repeat):
        for k, (cmd_of, n) in enumerate(sides):
            t1s[k].append(timed(cmd_of(n))[0])
            t2, outs[k] = timed(cmd_of(2 * n))
            t2s[k].append(t2)
    return [((min(t2s[k]) - min(t1s[k])) / n, outs[k]) for k, (_, n) in enumerate(sides)]


def differs(k1: int, n1: int, k2: int, n2: int) -> bool:
    """Two binomial proportions further apart than 4 standard errors (plus one count, for rare words)."""
    p1, p2 = k1 / n1, k2 / n2
    p = (k1 + k2) / (n1 + n2)
    se = math.sqrt(max(p * (1 - p), 1e-12) * (1 / n1 + 1 / n2))
    return abs(p1 - p2) > 4 * se + 1 / min(n1, n2)


def model_check(py: dict, cpp: dict, py_dist: dict) -> str:
    """'same', or what differs between the two sides (steps/execution, violations, op outcomes)."""
    notes = []
    spe_py, spe_cpp = py["steps"] / py["executions"], cpp["steps"] / cpp["executions"]
    # Steps per execution: a mean over executions whose spread is a few steps; 5% is far outside the noise.
    if abs(spe_py - spe_cpp) > 0.05 * max(spe_py, spe_cpp):
        notes.append(f"steps/execution {spe_py:.2f} vs {spe_cpp:.2f}")
    if differs(py["violating"], py["executions"], cpp["violating"], cpp["executions"]):
        notes.append(f"violating {py['violating']}/{py['executions']} vs {cpp['violating']}/{cpp['executions']}")
    n_py, n_cpp = py_dist["executions"], cpp["executions"]
    for key in sorted(set(py_dist["counts"]) | set(cpp["counts"])):
        k_py, k_cpp = py_dist["counts"].get(key, 0), cpp["counts"].get(key, 0)
        if differs(k_py, n_py, k_cpp, n_cpp):
            notes.append(f"{key} {k_py / n_py:.3f} vs {k_cpp / n_cpp:.3f}")
    return "same" if not notes else "DIFFERS: " + "; ".join(notes)


def bench_scenario(scenario: str, args) -> list[str]:
    sides = [(lambda n: python_cmd(args.pyref, scenario, n), args.n)]
    sides += [((lambda b: lambda n: cpp_cmd(b, scenario, n))(binary), args.cpp_n) for binary in args.allocsim]
    costs = per_execution_costs(sides, args.repeat)
    py_cost, py = costs[0][0], parse_py(costs[0][1])
    _, dist_out = timed([sys.executable, "-c", PY_DISTRIBUTION, args.pyref, scenario, str(args.n)])
    py_dist = json.loads(dist_out)
    cells = [os.path.basename(scenario).removesuffix(".json"), f"{py['steps'] / py['executions']:.2f}"]
    rates, models = [], []
    for cost, out in costs[1:]:
        cpp = parse_cpp(out)
        cells.append(f"{cpp['steps'] / cpp['executions']:.2f}")
        rates.append(1 / cost if cost > 0 else math.inf)
        models.append(model_check(py, cpp, py_dist))
    cells.append(f"{1 / py_cost:,.0f}")
    cells += [f"{r:,.0f}" for r in rates]
    cells += [f"{r * py_cost:,.1f}x" for r in rates]
    cells.append(" / ".join(models) if len(set(models)) > 1 else models[0])
    return cells


def print_table(header: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for r in rows:
        print("| " + " | ".join(r) + " |")


def parse_args(argv: list[str]):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenarios", nargs="*", help="scenario files (default: ALLOC-004 two claimants, ALLOC-005)")
    ap.add_argument("--allocsim", action="append", metavar="BIN",
                    help="an allocsim binary (repeatable: a before and an after compared in one run)")
    ap.add_argument("--pyref", default=os.path.join(ROOT, "..", "shared", "pyref"),
                    help="directory of scenario_oracle.py (default: ../shared/pyref from the repository root)")
    ap.add_argument("-n", type=int, default=2000, help="python executions N (it also runs 2N; default 2000)")
    ap.add_argument("--cpp-n", type=int, default=20000,
                    help="allocsim executions N (it also runs 2N; default 20000: enough CPU time to measure)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each size, the least CPU time kept (default 3)")
    args = ap.parse_args(argv)
    if args.n <= 0 or args.cpp_n <= 0 or args.repeat <= 0:
        raise BadInput("-n, --cpp-n and --repeat must be positive")
    if not args.allocsim:
        found = [b for b in ("build-rel/tools/allocsim", "build/tools/allocsim") if os.path.isfile(os.path.join(ROOT, b))]
        if not found:
            raise BadInput("--allocsim: no binary given and none built at build-rel/ or build/tools/allocsim")
        args.allocsim = [found[0]]
    args.allocsim = [os.path.abspath(os.path.join(ROOT, b)) for b in args.allocsim]
    for b in args.allocsim:
        if not os.access(b, os.X_OK):
            raise BadInput(f"--allocsim: {b} is not an executable file")
    args.pyref = os.path.abspath(args.pyref)
    if not os.path.isfile(os.path.join(args.pyref, "scenario_oracle.py")):
        raise BadInput(f"--pyref: {args.pyref}/scenario_oracle.py is missing: the python side cannot run "
                       "(give the directory of upstream's runnable reference with --pyref DIR)")
    args.scenarios = [os.path.abspath(s) for s in (args.scenarios or [os.path.join(ROOT, s) for s in DEFAULT_SCENARIOS])]
    for s in args.scenarios:
        if not os.path.isfile(s):
            raise BadInput(f"scenario {s}: no such file")
    return args


def main(argv: list[str]) -> int:
    try:
        args = parse_args(argv)
    except BadInput as e:
        print(f"vs_python.py: {e}", file=sys.stderr)
        return 2
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; python N = {args.n}, allocsim N = "
          f"{args.cpp_n}, each also at 2N, least of {args.repeat} runs per size; CPU time of the child processes")
    for i, b in enumerate(args.allocsim, 1):
        print(f"cpp{i} = {b}")
    k = range(1, len(args.allocsim) + 1)
    header = (["scenario", "steps/exec py"] + [f"steps/exec cpp{i}" for i in k] + ["exec/s py"]
              + [f"exec/s cpp{i}" for i in k] + [f"cpp{i}/py" for i in k] + ["model"])
    try:
        rows = [bench_scenario(s, args) for s in args.scenarios]
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print(f"vs_python.py: {e}", file=sys.stderr)
        return 1
    print_table(header, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
