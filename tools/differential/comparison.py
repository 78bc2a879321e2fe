'''
comparison.py: one allocsim record against upstream's run of the same schedule; the core that the command line
(differential.py) and the CI stage (stage.py) share.

The upstream backend is imported from $ALLOCSIM_UPSTREAM_DIR (its former name $ALLOCSIM_SEED_DIR is still read;
default: ../shared/pyref relative to the repository root): a directory holding memory_backend.py whose imports
resolve from it. load_upstream exits 77 (ctest: skipped) when it is missing.
'''
from __future__ import annotations

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


def load_upstream(tables: str):
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


def compare_records(port: dict, upstream: dict) -> str | None:
    '''None when they agree; else what differs first. The violation: the upstream side reports engine findings
    itself; an invariant only allocsim checks shows on upstream as the schedule ending early ("stopped").
    An invariant that fires after the last step, or at quiescence, leaves allocsim "stopped" while upstream,
    having run the same whole schedule, has nothing left to run: the same end, seen without invariants.'''
    pv = port.get('violation')
    if port.get('end') == 'stopped' and pv is not None and pv not in ENGINE_FINDINGS and \
            upstream.get('end') == 'quiescent':
        upstream = dict(upstream, end='stopped')
    for f in FIELDS:
        if port.get(f) != upstream.get(f):
            path, x, y = first_difference(port.get(f), upstream.get(f), f'/{f}')
            return f'{path}: allocsim {json.dumps(x)} vs upstream {json.dumps(y)}'
    pv, sv = port.get('violation'), upstream.get('violation')
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
                upstream = run_execution(mb, sc, port['schedule'], mutants)
            except (Unsupported, upstream_mutants.UnsupportedMutant) as e:
                counts['skipped'] += 1
                skip_reasons[str(e)] = skip_reasons.get(str(e), 0) + 1
                continue
            except Divergence as e:
                why = f'upstream cannot follow the schedule: {e}'
            else:
                why = compare_records(port, upstream)
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
