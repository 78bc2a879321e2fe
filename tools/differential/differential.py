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

The upstream backend is imported from $ALLOCSIM_UPSTREAM_DIR (comparison.py says how). Exit codes: 0 every compared
schedule agreed, 1 a disagreement, 2 bad input, 77 the upstream directory is missing (ctest: skipped).
Python 3.10+, standard library only.
'''
from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import scenario_file  # noqa: E402
import stage  # noqa: E402
import upstream_mutants  # noqa: E402
from comparison import ROOT, compare_file, load_upstream  # noqa: E402
from upstream_run import run_execution  # noqa: E402
from upstream_world import Divergence, Unsupported  # noqa: E402


def cmd_seed(args) -> int:
    mb = load_upstream(args.tables)
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
    mb = load_upstream(args.tables)
    c = compare_file(mb, args.scenario, args.records, args.mutant, args.mutant)
    print(f'{args.scenario}: {c["compared"]} compared, {c["agreed"]} agreed, {c["skipped"]} skipped, '
          f'{c["disagreed"]} disagreed')
    return 1 if c['disagreed'] else 0


def main(argv: list[str]) -> int:
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
        load_upstream(args.tables)
        return stage.run_stage(args) if args.cmd == 'stage' else stage.run_selftest(args)
    except (scenario_file.ScenarioError, OSError, json.JSONDecodeError, KeyError) as e:
        print(f'differential: {e}', file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
