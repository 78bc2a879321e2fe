#!/usr/bin/env python3
"""Function lengths of clang-formatted C++ sources: the house limit of 80 lines a function (README "House rules").

  function_lengths.py [--max N] [--top K] FILE...

A function is a definition that starts at column 0 (its `template <...>` line, if any, counts) and ends at
the first later line that is exactly `}` (clang-format closes every top-level body there); its length counts
both lines and everything between (comments and blank lines included, lambdas included). Prints
`LINES FILE:LINE NAME` for the K longest (default all, longest first) and a summary line; exit 1 when any
function is longer than --max (default: no limit), 2 on bad usage.
"""
import argparse
import re
import sys

START = re.compile(r'^(?!namespace\b|struct\b|class\b|enum\b|using\b|static_assert\b|#|//|\}|\s)(.*?)([~\w:]+|operator\S+)\s*\(')


def functions(path):
    """Yields (first line number, length, name) of each function defined at column 0 of `path`."""
    lines = open(path, encoding='utf-8').read().split('\n')
    i = 0
    while i < len(lines):
        line = lines[i]
        m = START.match(line)
        if m and not line.rstrip().endswith(';'):
            first = i - 1 if i > 0 and lines[i - 1].startswith('template <') else i
            j = i
            # a declaration that continues over lines ends with `;` before any `{`
            while j < len(lines) and '{' not in lines[j] and not lines[j].rstrip().endswith(';'):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith(';') and '{' not in lines[j]:
                i = j + 1
                continue
            if j < len(lines) and lines[j].rstrip().endswith('}') and lines[j].count('{') == lines[j].count('}'):
                yield first + 1, j - first + 1, m.group(2)  # a one-line body
                i = j + 1
                continue
            k = j + 1
            while k < len(lines) and lines[k] != '}':
                k += 1
            yield first + 1, k - first + 1, m.group(2)
            i = k + 1
            continue
        i += 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--max', type=int, default=0)
    p.add_argument('--top', type=int, default=0)
    p.add_argument('files', nargs='+')
    a = p.parse_args()
    rows = []
    for f in a.files:
        try:
            rows += [(n, f, line, name) for line, n, name in functions(f)]
        except OSError as e:
            print(f'function_lengths.py: {f}: {e.strerror}', file=sys.stderr)
            return 2
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    for n, f, line, name in rows[:a.top or len(rows)]:
        print(f'{n:5} {f}:{line} {name}')
    over = [r for r in rows if a.max and r[0] > a.max]
    longest = rows[0][0] if rows else 0
    print(f'{len(rows)} functions in {len(a.files)} files; longest {longest} lines; '
          f'{sum(r[0] > 80 for r in rows)} over 80' + (f'; {len(over)} over --max {a.max}' if a.max else ''))
    return 1 if over else 0


if __name__ == '__main__':
    sys.exit(main())
