#!/usr/bin/env python3
"""The room order of backend/ (docs/DESIGN.md §1): each folder includes only itself and the folders below it.

  check_backend_rooms.py ROOT        check ROOT/backend; exit 0 when it keeps the order, else 1
  check_backend_rooms.py --selftest  check a small tree that breaks each rule once; exit 0 when all are reported

The rooms, bottom first: model, scenario, world, invariants, ops, system, swarm. A file of one room may include
a project header ("dir/file.h") of its own room or of a room below it, and of sim/ (model/ excepted: the port
includes nothing of sim/); never one of a room above, nor one of tools/. Every .h and .cpp under backend/ sits
in a room, so a new folder must be given its place here. Each broken rule prints one line naming the file, its
line and the include; the last line says how many includes were checked.
"""
import os
import re
import sys
import tempfile

ROOMS = ['model', 'scenario', 'world', 'invariants', 'ops', 'system', 'swarm']
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def check(root):
    """Returns (problems, includes checked) for the tree at `root`."""
    problems, checked = [], 0
    backend = os.path.join(root, 'backend')
    for dirpath, dirnames, filenames in os.walk(backend):
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(('.h', '.cpp')):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, '/')
            parts = rel.split('/')
            if len(parts) != 3 or parts[1] not in ROOMS:
                problems.append(f'{rel}: in no room of backend/ (rooms: {", ".join(ROOMS)})')
                continue
            room = ROOMS.index(parts[1])
            with open(path, encoding='utf-8') as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    top = target.split('/')[0]
                    if top not in ('backend', 'sim', 'tools'):
                        continue  # a header beside it, or a library's
                    checked += 1
                    allowed = ROOMS[:room + 1]
                    if top == 'backend':
                        target_room = target.split('/')[1] if target.count('/') >= 2 else ''
                        if target_room in allowed:
                            continue
                    elif top == 'sim' and parts[1] != 'model':
                        continue
                    problems.append(f'{rel}:{number} includes {target}: {parts[1]} may include '
                                    f'{", ".join("backend/" + r for r in allowed)}'
                                    f'{"" if parts[1] == "model" else " and sim/"}')
    return problems, checked


def selftest():
    files = {
        'backend/model/port.h': '#include "backend/model/contract.h"\n#include <vector>\n',
        'backend/model/clock.cpp': '#include "sim/world.h"\n',
        'backend/scenario/types.h': '#include "backend/model/port.h"\n#include "sim/order.h"\n',
        'backend/world/state.cpp': '#include "backend/ops/runner.h"\n#include "backend/world/state.h"\n',
        'backend/ops/runner.cpp': '#include "tools/allocsim/cli.h"\n',
        'backend/system/system.cpp': '#include "backend/swarm/gen.h"\n#include "backend/ops/runner.h"\n',
        'backend/stray.cpp': '',
    }
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w', encoding='utf-8') as f:
                f.write(text)
        problems, checked = check(root)
    want = [
        'backend/model/clock.cpp:1 includes sim/world.h',
        'backend/ops/runner.cpp:1 includes tools/allocsim/cli.h',
        'backend/stray.cpp: in no room',
        'backend/system/system.cpp:1 includes backend/swarm/gen.h',
        'backend/world/state.cpp:1 includes backend/ops/runner.h',
    ]
    got = sorted(problems)
    ok = checked == 9 and len(got) == len(want) and all(g.startswith(w) for g, w in zip(got, want))
    for line in got:
        print(line)
    print(f'selftest: {len(got)} problems in {checked} includes; expected {len(want)} in 9: '
          f'{"ok" if ok else "FAILED"}')
    return 0 if ok else 1


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split('\n\n')[0], file=sys.stderr)
        return 2
    if argv[1] == '--selftest':
        return selftest()
    if not os.path.isdir(os.path.join(argv[1], 'backend')):
        print(f'check_backend_rooms: {argv[1]}: no backend/ folder there', file=sys.stderr)
        return 2
    problems, checked = check(argv[1])
    for line in problems:
        print(line)
    print(f'{len(problems)} include(s) out of room order among {checked} checked')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
