#!/usr/bin/env python3
"""Nightly mutation stage: how many mechanical mutants of the backend port scenarios/ kill (scenarios/README.md,
"Mechanical mutants").

A mutant is one mechanical edit of one line of the backend port (backend/model/memory_backend*.cpp: the public
calls in memory_backend.cpp, their steps and helpers in the files beside it), of four operator classes:
  rel        a relational operator flipped (== <-> !=, < -> <=, <= -> <, > -> >=, >= -> >)
  negate-if  an `if (C)` condition negated to `if (!(C))`
  delete     a one-line statement (an assignment, increment or call) replaced by an empty statement
  const      a small integer constant (0-9) next to an operator bumped by one
For each one the stage edits a scratch clone's source, rebuilds the clone's `allocsim` target and sweeps
the clone's scenarios/ (`allocsim sweep --preemption-bound BOUND`). Verdicts:
  killed     the sweep exits non-zero (some scenario's expectation is not met); the sweep runs in check mode
             (--check-mode, default on: recycled storage poisoned, backend/model/check_mode.h). A mutant the sweep
             leaves alive is then judged by the port's unit tests (test_backend; --unit-tests, default on): a kill
             there is reported as `unit: FILE:LINE: failed: ...`, and the summary counts those kills apart
  survived   every expectation still holds
  stillborn  the mutant does not build
  equivalent listed in the equivalence file (a written argument that no behaviour differs): not run
Score = killed / (killed + survived): survivors with a written argument are `equivalent`, not survivors.

usage:
  mutants.py run CLONE BUILD [--bound K] [--jobs J] [--equivalent FILE] [--file NAME]... [--only FUNC]...
                             [--match TEXT]... [--kind KIND]... [--limit N] [--rerun JSON] [--json FILE]
                             [--text FILE] [--timeout S] [--check-mode on|off] [--unit-tests on|off]
  mutants.py list SOURCE... [--equivalent FILE]  # candidates as JSON lines and their count (no build);
                                                 # exit 1 when an equivalence row names no candidate of SOURCEs
  mutants.py merge REPORT.json... [--json FILE] [--text FILE]  # one report: each mutant's verdict from the last
                                                               # report that judged it (a --rerun's replace)

CLONE is a scratch clone (its sources are edited, and restored after every mutant and on exit); BUILD a
configured build folder of it (cheap: -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1
-DALLOCSIM_WERROR=OFF, no compiler cache). Exit code: 0 done (whatever the score), 2 bad input.
"""
import argparse
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time

# The port's files, relative to the clone: one function's lines are in one file, so a mutant's key (function,
# before, after) does not name its file.
SOURCES = os.path.join('backend', 'model', 'memory_backend*.cpp')
FLIPS = {'==': '!=', '!=': '==', '<': '<=', '<=': '<', '>': '>=', '>=': '>'}
# A relational operator with a space on each side: clang-format writes binary operators that way and
# template brackets, `->`, `<<` and `>>` never match.
REL_RE = re.compile(r'(?<= )(==|!=|<=|>=|<|>)(?= )')
CONST_RE = re.compile(r'(?<![\w.])([0-9])(?![\w.])')
# A declaration: a type (possibly qualified or templated) then a name; not mutated (it would not build).
DECL_RE = re.compile(r'^(?:const\s+|static\s+|constexpr\s+)*[A-Za-z_][\w:]*(?:<[^;=]*>)?[\s*&]+[A-Za-z_]\w*\s*[=({;\[]')
FUNC_RE = re.compile(r'^[A-Za-z_].*?([A-Za-z_]\w*)\s*\(')
INSTRUMENTATION = ('touch(', 'records_reads()', 'barrier(', 'ALLOCSIM_PORT_CHECK', 'poison', 'Pinned', 'check_mode()')
CHECK_FUNCTIONS = ('poison_reused', 'check_devices', 'check_plan', 'check_inventory', 'barrier_known', 'resize_fresh')  # the port's checks, whole
# A line of the mutant catalogue (backend/model/mutants.h, docs/DESIGN.md §6): an `if` or `while` whose condition
# holds only with a planted mutant on (`opt_.mutants.has(M)`, maybe `&& ...`), with the block it opens. The faithful
# port never runs it, so a mutant of it is a mutant of a planted bug, not of the protocol: left alone, like the
# checks. A condition that negates the mutant or joins it with `||` is the port's own branch and stays.
CATALOGUE_RE = re.compile(r'^(?:\}\s*else\s+)?(?:if|while) \(opt_\.mutants\.has\(Mutant::\w+\)(?: && [^|]*)?\)')
SKIP_WORDS = ('return', 'throw', 'break', 'continue', 'case ', 'default', 'using ', 'template', 'namespace', '}')


def code_of(line):
    """The line without its // comment and with string literals blanked (their text is not code)."""
    out, i, quote = [], 0, None
    while i < len(line):
        ch = line[i]
        if quote:
            if ch == '\\':
                out.append('__')
                i += 2
                continue
            out.append(quote if ch == quote else '_')
            quote = None if ch == quote else quote
        elif ch in '"\'':
            quote = ch
            out.append(ch)
        elif line.startswith('//', i):
            break
        else:
            out.append(ch)
        i += 1
    return ''.join(out).rstrip()


def fail(message):
    """Bad input: the message on stderr, exit 2."""
    print(f'mutants.py: {message}', file=sys.stderr)
    sys.exit(2)


def balanced(text):
    return text.count('(') == text.count(')') and text.count('{') == text.count('}')


def starts_statement(last):
    """Whether a line after the code line `last` begins a statement (not a continuation of one)."""
    if not last or last[-1] in ';{}':
        return True
    return re.search(r'(\belse|\b(if|for|while)\s*\(.*\))$', last) is not None


def line_mutants(i, line, code, s, function, starts):
    base = {'line': i + 1, 'function': function, 'before': line.strip()}
    if re.search(r'\b(if|while|return)\b', code) or ' ? ' in code:
        for m in REL_RE.finditer(code):
            new = line[:m.start()] + FLIPS[m.group(1)] + line[m.end():]
            yield dict(base, kind='rel', after=new.strip(), text=new)
    m = re.match(r'^(\s*(?:\}\s*else\s+)?if\s*\()(.*)(\)\s*\{?)$', code)
    if m and balanced(m.group(2)) and code == line.rstrip():
        new = m.group(1) + '!(' + m.group(2) + ')' + m.group(3)
        yield dict(base, kind='negate-if', after=new.strip(), text=new)
    if (starts and s.endswith(';') and balanced(s) and not s.startswith(SKIP_WORDS) and not DECL_RE.match(s)
            and ('=' in s or '++' in s or '(' in s)):
        new = re.match(r'^\s*', line).group(0) + ';  // mutant: statement deleted'
        yield dict(base, kind='delete', after=new.strip(), text=new)
    for m in CONST_RE.finditer(code):
        if re.search(r'[-+*/<>=]\s*$', code[:m.start()]) or re.match(r'\s*[-+*/<>=]', code[m.end():]):
            n = int(m.group(1))
            new = line[:m.start()] + str(n + 1) + line[m.end():]
            yield dict(base, kind='const', after=new.strip(), text=new)


def candidates(lines):
    """Yields dicts (line, function, kind, before, after, text) for every mutant of `lines`, in order.
    Lines of the simulator's instrumentation (touch, its records_reads() guard, barrier), of the port's checks (a
    check, a poisoning, a Pinned scope: backend/model/check_mode.h) and of the mutant catalogue (CATALOGUE_RE) are
    not the protocol and are left alone."""
    function, last = None, ''
    depth, catalogue = 0, None  # brace depth before the line; the depth a catalogue block opened at, if inside one
    for i, raw in enumerate(lines):
        line = raw.rstrip('\n')
        code = code_of(line)
        s = code.strip()
        if not s or s.startswith('#'):
            continue
        closed = depth - (len(s) - len(s.lstrip('}')))  # after the braces the line starts with (`} else {`)
        if catalogue is not None and closed <= catalogue:
            catalogue = None
        planted = CATALOGUE_RE.match(s) is not None and '||' not in s
        opens = planted and s.endswith('{') and catalogue is None
        in_catalogue = catalogue is not None or planted
        if opens:
            catalogue = closed  # `} else if (...) {` closes a block before it opens its own
        depth += code.count('{') - code.count('}')
        m = FUNC_RE.match(code)
        if m and not line.startswith((' ', '}')) and not s.endswith(';'):
            function = m.group(1)
        if (function and function not in CHECK_FUNCTIONS and line.startswith(' ') and not in_catalogue and
                not any(w in s for w in INSTRUMENTATION)):
            yield from line_mutants(i, line, code, s, function, starts_statement(last))
        last = s


def key(c):
    return (c['function'], c['before'], c['after'])


def load_equivalent(path):
    """{(function, before, after): why} from the equivalence file (a JSON list of objects)."""
    if not path:
        return {}
    try:
        rows = json.load(open(path))
        return {(r['function'], r['before'], r['after']): r['why'] for r in rows}
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f'{path}: not a list of {{function, before, after, why}} objects: {e}')


def run(cmd, cwd, timeout, env=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return 124, 'timeout'


def first_failure(log):
    """'FILE: [invariant: n]' for the first scenario not met (its violations), or FILE: its first reason."""
    lines = log.splitlines()
    for k, line in enumerate(lines):
        if line.startswith(('FAIL', 'NOT', 'not met')):
            file = line.split()[1].rstrip(':')
            m = re.search(r'violating (\[[^\]]*\])', line)
            if m:
                return f'{file}: {m.group(1)}'
            reason = lines[k + 1].strip() if k + 1 < len(lines) else ''
            return f'{file}: {reason}'[:200]
    return lines[-1][:200] if lines else ''


def judge(a, sources, c, exe):
    """Builds and sweeps one mutant (`sources`: path -> original lines); returns (verdict, by). The mutated file is
    written back as it was before this returns: the port is several files, and a mutant left in one while the next
    file's mutants are judged would judge two mutants at once (a killing one kills every later mutant)."""
    lines = sources[c['file']]
    open(c['file'], 'w').write(''.join(lines[:c['line'] - 1] + [c['text'] + '\n'] + lines[c['line']:]))
    try:
        return judge_built(a, c, exe)
    finally:
        open(c['file'], 'w').write(''.join(lines))


def judge_built(a, c, exe):
    """Builds the clone as its files are now and sweeps it: (verdict, by). A mutant the sweep leaves alive goes to
    the port's unit tests (`test_backend`, with --unit-tests on): they call what no scenario reaches (the throwing
    wrappers of the upstream's API, an error's wording), and a kill there is named `unit: FILE:LINE: failed: ...`,
    so the report tells the scenarios' kills from theirs."""
    rc, _ = run(['cmake', '--build', a.build, '--target', 'allocsim', '-j', str(a.jobs)], a.clone, a.timeout)
    if rc != 0:
        return 'stillborn', ''
    # Check mode (backend/model/check_mode.h) poisons recycled storage, so that a deleted assignment in a reuse
    # path shows in the sweep instead of keeping the previous execution's (usually equal) value.
    env = dict(os.environ, ALLOCSIM_CHECK_MODE='1' if a.check_mode == 'on' else '0')
    rc, log = run([exe, 'sweep', os.path.join(a.clone, 'scenarios'), '--preemption-bound', str(a.bound),
                   '--jobs', str(a.jobs)], a.clone, a.timeout, env)
    if rc != 0:
        return 'killed', first_failure(log).replace(a.clone + '/', '')
    if a.unit_tests == 'off':
        return 'survived', ''
    rc, log = run(['cmake', '--build', a.build, '--target', UNIT_TARGET, '-j', str(a.jobs)], a.clone, a.timeout)
    if rc != 0:
        return 'survived', f'{UNIT_TARGET} did not build: {log.strip().splitlines()[-1:]}'
    rc, log = run([unit_exe(a), '--abort', '--reporter', 'compact'], a.clone, a.timeout)
    return ('killed', 'unit: ' + first_unit_failure(log).replace(a.clone + '/', '')) if rc != 0 else ('survived', '')


# The port's unit tests (tests/backend/): the second judge of a mutant the sweep leaves alive.
UNIT_TARGET = 'test_backend'


def unit_exe(a):
    return os.path.join(a.build, 'tests', UNIT_TARGET)


def first_unit_failure(log):
    """The first failing check Catch2's compact reporter prints (file:line: failed: ...), else the log's end."""
    for line in log.splitlines():
        if re.match(r'\S+:\d+: failed', line):
            return line.strip()[:200]
    return (log.strip().splitlines() or ['(no output)'])[-1][:200]


VERDICTS = ('killed', 'survived', 'stillborn', 'equivalent')


def summary(results):
    """The verdicts' counts, the score (killed of those that build and have no equivalence argument) and how many
    kills only the unit tests made."""
    tally = {v: sum(r['verdict'] == v for r in results) for v in VERDICTS}
    live = tally['killed'] + tally['survived']
    return dict(tally, score=round(tally['killed'] / live if live else 0.0, 4), mutants=len(results),
                killed_by_unit_tests=sum(r['verdict'] == 'killed' and r['by'].startswith('unit: ') for r in results))


def report(results, text_path, json_path):
    s = summary(results)
    lines = [f"{s['mutants']} mutants: killed {s['killed']} ({s['killed_by_unit_tests']} of them by the unit tests "
             f"only), survived {s['survived']}, stillborn {s['stillborn']}, equivalent {s['equivalent']}; score "
             f"{s['score']:.1%} of {s['killed'] + s['survived']} that build and have no equivalence argument"]
    lines += [f"survived: {os.path.basename(r['file'])}: {r['function']}: {r['before']}  =>  {r['after']}"
              for r in results if r['verdict'] == 'survived']
    print('\n'.join(lines), flush=True)
    if text_path:
        open(text_path, 'w').write('\n'.join(lines) + '\n')
    if json_path:
        write_json(results, json_path)


def write_json(results, path):
    """The --json report, written whole to a temporary file and renamed (it is rewritten after every mutant)."""
    out = {'summary': summary(results), 'mutants': [{k: v for k, v in r.items() if k != 'text'} for r in results]}
    tmp = path + '.tmp'
    open(tmp, 'w').write(json.dumps(out, indent=1) + '\n')
    os.replace(tmp, path)


def load_survivors(path):
    """The keys of the mutants a previous run's --json report marks `survived` (to re-run only those)."""
    try:
        rows = json.load(open(path))['mutants']
        return {key(r) for r in rows if r['verdict'] == 'survived'}
    except (OSError, ValueError, KeyError, TypeError) as e:
        fail(f'--rerun {path}: not a mutants.py --json report: {e}')


def read_sources(paths):
    """{path: its lines (ends kept)} and every candidate of those files, each with its `file`, in path order."""
    sources, cands = {}, []
    for path in paths:
        sources[path] = open(path).read().splitlines(keepends=True)
        cands += [dict(c, file=path) for c in candidates(sources[path])]
    return sources, cands


def cmd_run(a):
    paths = sorted(glob.glob(os.path.join(a.clone, SOURCES)))
    if not paths or not os.path.isdir(a.build):
        fail(f'{os.path.join(a.clone, SOURCES)} (no file) or build folder {a.build} missing')
    sources, every = read_sources(paths)
    equivalent = load_equivalent(a.equivalent)
    survivors = load_survivors(a.rerun) if a.rerun else None
    cands = [c for c in every if (not a.file or os.path.basename(c['file']) in a.file) and
             (not a.only or c['function'] in a.only) and
             (not a.match or any(m in c['before'] or m in c['after'] for m in a.match)) and
             (not a.kind or c['kind'] in a.kind) and (survivors is None or key(c) in survivors)]
    if a.limit:
        cands = cands[:a.limit]
    exe = os.path.join(a.build, 'tools', 'allocsim')
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that `finally` restores the source
    if a.unit_tests == 'on':
        # Built once from the unmutated sources, with no limit (the first build compiles every test file); after
        # this a mutant costs one relink. It must pass as it is, or its kills would be the tests' own failures.
        rc, log = run(['cmake', '--build', a.build, '--target', UNIT_TARGET, '-j', str(a.jobs)], a.clone, None)
        if rc != 0:
            fail(f'{a.build}: {UNIT_TARGET} does not build from the unmutated sources:\n{log[-2000:]}')
        rc, log = run([unit_exe(a), '--reporter', 'compact'], a.clone, a.timeout)
        if rc != 0:
            fail(f'{unit_exe(a)} fails on the unmutated sources:\n{log[-2000:]}')
    results = []
    print(f'{len(cands)} mutants of {SOURCES}', flush=True)
    try:
        for k, c in enumerate(cands):
            t0 = time.time()
            why = equivalent.get(key(c))
            verdict, by = ('equivalent', why) if why else judge(a, sources, c, exe)
            results.append(dict(c, file=os.path.relpath(c['file'], a.clone), verdict=verdict, by=by,
                                seconds=round(time.time() - t0, 1)))
            print(f"[{k + 1}/{len(cands)}] {verdict:10} {c['function']}: {c['before'][:70]}  =>  "
                  f"{c['after'][:70]}  {by[:100]}", flush=True)
            if a.json:  # after every mutant, so that an interrupted run's report holds what it judged
                write_json(results, a.json)
    finally:
        for path, lines in sources.items():
            open(path, 'w').write(''.join(lines))
        run(['cmake', '--build', a.build, '--target', 'allocsim', '-j', str(a.jobs)], a.clone, a.timeout)
    report(results, a.text, a.json)
    return 0


def cmd_merge(a):
    """The --json reports in order, each mutant's verdict the last report's that judged it (a --rerun of the
    survivors after new tests replaces their verdicts and keeps every other one). Mutants are keyed by file,
    function and text, and by which occurrence of that text in the report they are."""
    merged = {}
    for path in a.report:
        if not os.path.isfile(path):
            fail(f'{path}: cannot open: no such file')
        try:
            rows = json.load(open(path))['mutants']
            seen = {}  # one line can appear twice in a function (two `x += 1;`): the k-th of each is one mutant
            for r in rows:
                if r['verdict'] not in VERDICTS or not isinstance(r['by'], str):
                    raise ValueError(f"a mutant's verdict is not one of {', '.join(VERDICTS)} or its `by` not a text")
                k = (r['file'],) + key(r)
                seen[k] = seen.get(k, 0) + 1
                merged[k + (seen[k],)] = r
        except (OSError, ValueError, KeyError, TypeError) as e:
            fail(f'{path}: not a mutants.py --json report: {e}')
    report(list(merged.values()), a.text, a.json)
    return 0


def cmd_list(a):
    for path in a.source:
        if not os.path.isfile(path):
            fail(f'{path}: no such file')
    _, cands = read_sources(a.source)
    equivalent = load_equivalent(a.equivalent)
    for c in cands:
        print(json.dumps({k: v for k, v in c.items() if k != 'text'}))
    kinds = {k: sum(c['kind'] == k for c in cands) for k in ('rel', 'negate-if', 'delete', 'const')}
    listed = sum(key(c) in equivalent for c in cands)
    print(f"{len(cands)} candidates: " + ', '.join(f'{k} {v}' for k, v in kinds.items()) +
          f"; {listed} listed as equivalent")
    # A row that names no candidate is stale (its line changed): its argument no longer covers anything.
    stale = sorted(set(equivalent) - {key(c) for c in cands})
    sys.stdout.flush()  # the count first, then the stale rows, in one captured stream
    for function, before, after in stale:
        print(f'stale equivalence row: {function}: {before}  =>  {after}', file=sys.stderr)
    return 1 if stale else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('run')
    r.add_argument('clone', help='a scratch clone of the repository (its port files are edited and restored)')
    r.add_argument('build', help="a configured build folder of the clone (the cheap build: the module's docstring)")
    r.add_argument('--bound', type=int, default=2, help='the sweep\'s --preemption-bound')
    r.add_argument('--jobs', type=int, default=2, help='build and sweep jobs')
    r.add_argument('--timeout', type=int, default=900, help='seconds per build or sweep')
    r.add_argument('--equivalent', default=os.path.join(os.path.dirname(__file__), 'mutants-equivalent.json'))
    r.add_argument('--file', action='append', default=[],
                   help='only mutants in this file of the port (its name, e.g. memory_backend_plan.cpp; repeatable)')
    r.add_argument('--only', action='append', default=[], help='only mutants in this function (repeatable)')
    r.add_argument('--match', action='append', default=[], help='only mutants whose line contains this text')
    r.add_argument('--rerun', help="only the mutants a previous run's --json report marks survived")
    r.add_argument('--kind', action='append', default=[], choices=['rel', 'negate-if', 'delete', 'const'])
    r.add_argument('--limit', type=int, default=0)
    r.add_argument('--check-mode', choices=['on', 'off'], default='on',
                   help="the sweeps' ALLOCSIM_CHECK_MODE (default on: recycled storage poisoned)")
    r.add_argument('--unit-tests', choices=['on', 'off'], default='on',
                   help=f'judge what the sweep leaves alive by the port\'s unit tests ({UNIT_TARGET}) too')
    r.add_argument('--json', help='write every verdict here (rewritten after each mutant)')
    r.add_argument('--text', help='write the score and the survivors here')
    li = sub.add_parser('list')
    li.add_argument('source', nargs='+')
    li.add_argument('--equivalent')
    me = sub.add_parser('merge',
                        help="combine --json reports: each mutant's verdict is the last report's that judged it")
    me.add_argument('report', nargs='+', help='mutants.py --json reports, oldest first')
    me.add_argument('--json', help='write the combined report here')
    me.add_argument('--text', help='write its score and survivors here')
    a = ap.parse_args()
    return {'run': cmd_run, 'list': cmd_list, 'merge': cmd_merge}[a.cmd](a)


if __name__ == '__main__':
    sys.exit(main())
