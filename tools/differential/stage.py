'''
The CI stage (`tools/dev.sh differential`) and the planted-mutant self-test.

Per scenario file: `allocsim run FILE --strategy dfs --executions CAP --record R`; when DPOR exhausts the tree
within CAP executions every schedule is compared (exhaustive), else `--strategy random --executions N --seed 1`
gives N schedules. Scenario files with mutants run them on both sides when the driver can plant the same mutant
on upstream (upstream_mutants.py), else the pairing is skipped and said so. Scenarios run in parallel (--jobs).
'''
from __future__ import annotations

import concurrent.futures
import glob
import io
import os
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout

import comparison
import scenario_file
import upstream_mutants

# The self-test's pairs: a catalogue mutant planted on the C++ side only, and a scenario whose schedules reach
# the defect, so that the comparison must fail.
SELFTEST = (('client-side-claim', 'scenarios/alloc-004-one-plan-two-claimants.json'),
            ('stale-last-out', 'scenarios/alloc-005-last-out.json'))


def allocsim_records(allocsim: str, scenario: str, out: str, flags: list[str]) -> str:
    r = subprocess.run([allocsim, 'run', scenario, '--record', out, '--no-shrink', '--no-trace', *flags],
                       capture_output=True, text=True, cwd=comparison.ROOT, check=False)
    if r.returncode not in (0, 1):
        raise RuntimeError(f'allocsim run {scenario} {" ".join(flags)} exited {r.returncode}: {r.stderr.strip()}')
    return r.stdout


def one_scenario(allocsim: str, scenario: str, cap: int, n_random: int, tables: str) -> tuple[str, dict, str]:
    mb = comparison.load_upstream(tables)
    t0 = time.monotonic()
    sc = scenario_file.load(os.path.join(comparison.ROOT, scenario))
    buf = io.StringIO()
    unplantable = [m for m in sc.mutants if m not in upstream_mutants.SUPPORTED]
    if unplantable:
        return scenario, {'compared': 0, 'agreed': 0, 'skipped': 0, 'disagreed': 0, 'mode': 'skipped',
                          'seconds': 0.0}, f'  skipped: mutant {", ".join(unplantable)} cannot be planted on upstream\n'
    with tempfile.TemporaryDirectory() as tmp:
        rec = os.path.join(tmp, 'records.jsonl')
        out = allocsim_records(allocsim, scenario, rec, ['--strategy', 'dfs', '--executions', str(cap)])
        if 'exhaustive: all' in out:
            mode = 'exhaustive (dpor)'
        else:
            mode = f'random {n_random} (dpor did not finish in {cap})'
            allocsim_records(allocsim, scenario, rec, ['--strategy', 'random', '--executions', str(n_random),
                                                       '--seed', '1'])
        with redirect_stdout(buf):
            counts = comparison.compare_file(mb, scenario, rec, [], [])
    counts['mode'] = mode
    counts['seconds'] = time.monotonic() - t0
    return scenario, counts, buf.getvalue()


def scenario_files() -> list[str]:
    files = sorted(glob.glob('scenarios/*.json', root_dir=comparison.ROOT)) + \
        sorted(glob.glob('scenarios/mutants/*.json', root_dir=comparison.ROOT))
    return files


def run_stage(args) -> int:
    if not os.access(args.allocsim, os.X_OK):
        print(f'differential: --allocsim {args.allocsim}: not an executable (build it first)', file=sys.stderr)
        return 2
    t0 = time.monotonic()
    totals = {'compared': 0, 'agreed': 0, 'skipped': 0, 'disagreed': 0}
    skipped_pairings = 0
    with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(one_scenario, args.allocsim, f, args.cap, args.random, args.tables)
                   for f in scenario_files()]
        for fut in futures:  # in file order, so the output is stable
            scenario, c, text = fut.result()
            print(f'{scenario}: {c["mode"]}: {c["compared"]} compared, {c["agreed"]} agreed, {c["skipped"]} skipped, '
                  f'{c["disagreed"]} disagreed ({c["seconds"]:.1f}s)')
            sys.stdout.write(text)
            skipped_pairings += c['mode'] == 'skipped'
            for k in totals:
                totals[k] += c[k]
    print(f'differential: {len(futures)} scenario files, {totals["compared"]} schedules compared, '
          f'{totals["agreed"]} agreed, {totals["skipped"]} skipped, {totals["disagreed"]} disagreed, '
          f'{skipped_pairings} mutant pairing(s) skipped; {time.monotonic() - t0:.0f}s')
    return 1 if totals['disagreed'] else 0


def run_selftest(args) -> int:
    '''Planting a catalogue mutant on the C++ side only must make the comparison fail.'''
    mb = comparison.load_upstream(args.tables)
    failed = 0
    for mutant, scenario in SELFTEST:
        with tempfile.TemporaryDirectory() as tmp:
            rec = os.path.join(tmp, 'records.jsonl')
            allocsim_records(args.allocsim, scenario, rec, ['--strategy', 'dfs', '--executions', '500',
                                                            '--mutant', mutant])
            with redirect_stdout(io.StringIO()):
                c = comparison.compare_file(mb, scenario, rec, [mutant], [], quiet=True)
        caught = c['disagreed'] > 0
        failed += not caught
        print(f'selftest: {mutant} planted on the C++ side only, {scenario}: {c["compared"]} compared, '
              f'{c["disagreed"]} disagreed -> {"caught" if caught else "NOT CAUGHT"}')
    # And the other way: the unmutated port agrees on every schedule of the clock scenario (README, "Deviations
    # from upstream" item 6).
    scenario = 'scenarios/alloc-021-readiness-stages.json'
    with tempfile.TemporaryDirectory() as tmp:
        rec = os.path.join(tmp, 'records.jsonl')
        allocsim_records(args.allocsim, scenario, rec, ['--strategy', 'dfs', '--executions', '5000'])
        c = comparison.compare_file(mb, scenario, rec, [], [])
    failed += c['disagreed'] > 0 or c['compared'] == 0
    print(f'selftest: {scenario} unmutated: {c["compared"]} compared, {c["agreed"]} agreed')
    return 1 if failed else 0
