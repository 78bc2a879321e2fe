#!/usr/bin/env python3
'''
differential.py: is the port upstream, on every schedule allocsim explores?

  differential.py seed SCENARIO --schedule v1:... [--mutant M]     upstream's record of one schedule (JSON)
  differential.py compare SCENARIO --records FILE [--mutant M]     every record `allocsim run --record FILE`
                                                                   wrote, against upstream along its schedule
  differential.py stage [--allocsim BIN] [--budget SECONDS]        every scenario in scenarios/ and
                                                                   scenarios/mutants/ (the CI stage)
  differential.py selftest [--allocsim BIN]                        a mutant planted on the C++ side only
                                                                   must make the comparison fail (two mutants)

The upstream backend is imported from $ALLOCSIM_UPSTREAM_DIR (its former name $ALLOCSIM_SEED_DIR is still read; default: ../shared/pyref relative to the repository
root): a directory holding memory_backend.py whose imports resolve from it. Exit codes: 0 every compared
schedule agreed, 1 a disagreement, 2 bad input, 77 the upstream directory is missing (ctest: skipped).
Python 3.10+, standard library only.
'''
from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import scenario_file  # noqa: E402
import upstream_mutants  # noqa: E402
from upstream_run import run_execution, upstream_module  # noqa: E402
from upstream_world import Divergence, Unsupported  # noqa: E402

EXIT_SKIP = 77
FIELDS = ('schedule', 'steps', 'end', 'crashes', 'outcomes', 'barriers', 'audit', 'state')
ENGINE_FINDINGS = ('no-deadlock', 'steps-bounded', 'actor-exception')


def upstream_dir() -> str:
    return os.environ.get('ALLOCSIM_UPSTREAM_DIR') or os.environ.get('ALLOCSIM_SEED_DIR') or os.path.join(ROOT, '..', 'shared', 'pyref')


def load_seed(tables: str):
    path = upstream_dir()
    if not os.path.isfile(os.path.join(path, 'memory_backend.py')):
        print(f'differential: SKIP: no upstream backend at ALLOCSIM_UPSTREAM_DIR={path} (memory_backend.py missing); '
              f'set ALLOCSIM_UPSTREAM_DIR to a checkout of upstream to run the differential comparison',
              file=sys.stderr)
        sys.exit(EXIT_SKIP)
    return upstream_module(path, tables)


def first_difference(a, b, where=''):
    '''The JSON path of the first place two values differ, with both values there.'''
    if type(a) is not type(b) and not (isinstance(a, (int, float)) and isinstance(b, (int, float))):
        return where, a, b
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if a.get(k) != b.get(k):
                return first_difference(a.get(k), b.get(k), f'{where}/{k}')
    elif isinstance(a, list):
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b):
                return f'{where}/{i}', a[i] if i < len(a) else '(none)', b[i] if i < len(b) else '(none)'
            if a[i] != b[i]:
                return first_difference(a[i], b[i], f'{where}/{i}')
    return where, a, b


def compare_records(port: dict, seed: dict) -> str | None:
    '''None when they agree; else what differs first. The violation: the upstream side reports engine findings
    itself; an invariant only allocsim checks shows on upstream as the schedule ending early ("stopped").
    An invariant that fires after the last step, or at quiescence, leaves allocsim "stopped" while upstream,
    having run the same whole schedule, has nothing left to run: the same end, seen without invariants.'''
    pv = port.get('violation')
    if port.get('end') == 'stopped' and pv is not None and pv not in ENGINE_FINDINGS and \
            seed.get('end') == 'quiescent':
        seed = dict(seed, end='stopped')
    for f in FIELDS:
        if port.get(f) != seed.get(f):
            path, x, y = first_difference(port.get(f), seed.get(f), f'/{f}')
            return f'{path}: allocsim {json.dumps(x)} vs upstream {json.dumps(y)}'
    pv, sv = port.get('violation'), seed.get('violation')
    if (pv in ENGINE_FINDINGS or sv in ENGINE_FINDINGS) and pv != sv:
        return f'/violation: allocsim {pv} vs upstream {sv}'
    if port['end'] == 'stopped' and pv is None:
        return '/violation: allocsim stopped with no violation'
    return None


def pair(scenario: str, schedule: str, mutants: list[str], upstream_mutants_: list[str]) -> str:
    m = ''.join(f' --mutant {x}' for x in mutants)
    s = ''.join(f' --mutant {x}' for x in upstream_mutants_)
    return (f'    allocsim replay {scenario} --schedule {schedule}{m}\n'
            f'    python3 tools/differential/differential.py seed {scenario} --schedule {schedule}{s}')


def compare_file(mb, scenario: str, records: str, cpp_mutants: list[str], py_mutants: list[str],
                 quiet: bool = False) -> dict[str, int]:
    '''Compares every record of `records`; returns counts (compared, agreed, skipped, disagreed).'''
    sc = scenario_file.load(scenario)
    mutants = sc.mutants + py_mutants
    counts = {'compared': 0, 'agreed': 0, 'skipped': 0, 'disagreed': 0}
    skip_reasons: dict[str, int] = {}
    with open(records, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            try:
                port = json.loads(line)
                port['schedule']  # noqa: B018 - a record without its schedule is bad input
            except (ValueError, KeyError, TypeError) as e:
                raise scenario_file.ScenarioError(f'{records}:{number}: not an allocsim record: {e}') from e
            try:
                seed = run_execution(mb, sc, port['schedule'], mutants)
            except (Unsupported, upstream_mutants.UnsupportedMutant) as e:
                counts['skipped'] += 1
                skip_reasons[str(e)] = skip_reasons.get(str(e), 0) + 1
                continue
            except Divergence as e:
                seed, why = None, f'upstream cannot follow the schedule: {e}'
            else:
                why = compare_records(port, seed)
            counts['compared'] += 1
            if why is None:
                counts['agreed'] += 1
                continue
            counts['disagreed'] += 1
            if not quiet and counts['disagreed'] <= 5:
                print(f'DISAGREE {scenario} #{port.get("index")}: {why}\n'
                      f'{pair(scenario, port["schedule"], cpp_mutants, py_mutants)}')
    for why, n in skip_reasons.items():
        if not quiet:
            print(f'  skipped {n} schedule(s) of {scenario}: {why}')
    return counts


def cmd_seed(args) -> int:
    mb = load_seed(args.tables)
    sc = scenario_file.load(args.scenario)
    try:
        rec = run_execution(mb, sc, args.schedule, sc.mutants + args.mutant)
    except (Unsupported, upstream_mutants.UnsupportedMutant) as e:
        print(f'differential: upstream cannot express this execution: {e}', file=sys.stderr)
        return 0
    except Divergence as e:
        print(f'differential: diverged: {e}', file=sys.stderr)
        return 1
    print(json.dumps(rec, sort_keys=True))
    return 0


def cmd_compare(args) -> int:
    mb = load_seed(args.tables)
    c = compare_file(mb, args.scenario, args.records, args.mutant, args.mutant)
    print(f'{args.scenario}: {c["compared"]} compared, {c["agreed"]} agreed, {c["skipped"]} skipped, '
          f'{c["disagreed"]} disagreed')
    return 1 if c['disagreed'] else 0


def main(argv: list[str]) -> int:
    import stage  # noqa: PLC0415 - the stage's own module
    p = argparse.ArgumentParser(prog='differential.py', description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--tables', choices=('port', 'seed'), default='port',
                   help='MIG and GFD tables for upstream: the port\'s (default; the stand-ins of the runnable copy '
                        'know one card) or the upstream directory\'s own')
    sub = p.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('seed')
    s.add_argument('scenario')
    s.add_argument('--schedule', required=True)
    s.add_argument('--mutant', action='append', default=[])
    c = sub.add_parser('compare')
    c.add_argument('scenario')
    c.add_argument('--records', required=True)
    c.add_argument('--mutant', action='append', default=[])
    for name in ('stage', 'selftest'):
        t = sub.add_parser(name)
        t.add_argument('--allocsim', default=os.path.join(os.environ.get('ALLOCSIM_BUILD_DIR', os.path.join(ROOT, 'build')),
                                                          'tools', 'allocsim'))
        t.add_argument('--jobs', type=int, default=int(os.environ.get('ALLOCSIM_JOBS', '2')))
        t.add_argument('--cap', type=int, default=10000, help='stage: DPOR executions before falling back to random')
        t.add_argument('--random', type=int, default=2000, help='stage: random schedules when DPOR does not finish')
    args = p.parse_args(argv)
    try:
        if args.cmd == 'seed':
            return cmd_seed(args)
        if args.cmd == 'compare':
            return cmd_compare(args)
        load_seed(args.tables)
        return stage.run_stage(args) if args.cmd == 'stage' else stage.run_selftest(args)
    except (scenario_file.ScenarioError, OSError, json.JSONDecodeError, KeyError) as e:
        print(f'differential: {e}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
