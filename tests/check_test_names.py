#!/usr/bin/env python3
"""Fails when a Catch2 test name would not become exactly one ctest test.

catch_discover_tests turns each name into a CMake list element: a ';' splits it, and an unbalanced '[' or ']'
makes CMake stop splitting until the bracket closes (a name with "[0, bound)" once folded 56 of test_sim's
cases into one ctest entry that ran none of them). A leading '-' is read by Catch as an option. Usage: check_test_names.py BINARY...; exit 0 when every name is safe, 1 otherwise.
"""
import subprocess
import sys

bad = []
total = 0
for binary in sys.argv[1:]:
    # Catch2 v2 exits with the number of names listed, so the exit code is not an error here.
    names = subprocess.run([binary, '--list-test-names-only'], check=False, capture_output=True,
                           text=True).stdout.splitlines()
    names = [n for n in names if n.strip()]
    total += len(names)
    seen = set()
    for n in names:
        if ';' in n or '[' in n or ']' in n or n.startswith('-') or n in seen:
            bad.append(f'{binary}: {n!r}')
        seen.add(n)
for b in bad:
    print(f'unsafe test name (contains ";", "[" or "]", starts with "-", or is repeated): {b}')
print(f'check_test_names: {total} names in {len(sys.argv) - 1} binaries, {len(bad)} unsafe')
sys.exit(1 if bad or total == 0 else 0)
