'''
The contract tables the port uses (backend/model/mig_geometry.cpp, backend/model/gfd.cpp), for the upstream side.

The runnable upstream copy (../shared/pyref) imports minimal stand-ins for upstream's ``mig_geometry`` and
``cluster.classify_gfd_labels`` (one A100-40GB table; no ``unknown`` class). These are inputs of the backend,
not its logic under test, so the driver installs the port's tables into the upstream module (``--tables port``,
the default). With an upstream checkout whose own tables are complete, ``--tables seed`` keeps them.
'''
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MigProfile:
    name: str
    compute_slices: int
    memory_slices: int
    memory_gib: int
    max_count: int
    starts: tuple[int, ...]


@dataclass(frozen=True)
class MigFamily:
    key: str
    compute_slices: int
    memory_slices: int
    memory_gib: int
    profiles: tuple[MigProfile, ...]


def _grid(g1s: int, g1l: int, g2: int, g3: int, g4: int, g7: int) -> tuple[MigProfile, ...]:
    return (MigProfile(f'1g.{g1s}gb', 1, 1, g1s, 7, (0, 1, 2, 3, 4, 5, 6)),
            MigProfile(f'1g.{g1l}gb', 1, 2, g1l, 4, (0, 2, 4, 6)),
            MigProfile(f'2g.{g2}gb', 2, 2, g2, 3, (0, 2, 4)),
            MigProfile(f'3g.{g3}gb', 3, 4, g3, 2, (0, 4)),
            MigProfile(f'4g.{g4}gb', 4, 4, g4, 1, (0,)),
            MigProfile(f'7g.{g7}gb', 7, 8, g7, 1, (0,)))


_A100_80 = _grid(10, 20, 20, 40, 40, 80)
FAMILIES = (
    MigFamily('A100-SXM4-80GB', 7, 8, 80, _A100_80),
    MigFamily('H100-80GB', 7, 8, 80, _A100_80),
    MigFamily('RTX-PRO-6000-Blackwell', 4, 4, 96, (MigProfile('1g.24gb', 1, 1, 24, 4, (0, 1, 2, 3)),
                                                   MigProfile('2g.48gb', 2, 2, 48, 2, (0, 2)),
                                                   MigProfile('4g.96gb', 4, 4, 96, 1, (0,)))),
    MigFamily('A100-80GB', 7, 8, 80, _A100_80),
    MigFamily('A100-40GB', 7, 8, 40, _grid(5, 10, 10, 20, 20, 40)),
    MigFamily('A30', 4, 4, 24, (MigProfile('1g.6gb', 1, 1, 6, 4, (0, 1, 2, 3)),
                                MigProfile('2g.12gb', 2, 2, 12, 2, (0, 2)),
                                MigProfile('4g.24gb', 4, 4, 24, 1, (0,)))),
    MigFamily('H100-NVL', 7, 8, 94, _grid(12, 24, 24, 47, 47, 94)),
    MigFamily('H200', 7, 8, 141, _grid(18, 35, 35, 71, 71, 141)),
)
# (how, text, family index): 'seed' = case-sensitive substring (upstream's keys), 'sub' = upper-cased substring,
# 'token' = a '-'-separated token of the upper-cased product.
_MATCHERS = (('seed', 'A100-SXM4-80GB', 0), ('seed', 'H100-80GB', 1), ('seed', 'RTX-PRO-6000-Blackwell', 2),
             ('sub', 'A100-80GB', 3), ('sub', 'A100-SXM4-40GB', 4), ('sub', 'A100-PCIE-40GB', 4),
             ('sub', 'A100-40GB', 4), ('token', 'A30', 5), ('sub', 'H100-NVL', 6), ('token', 'H200', 7))


def find_family(product: str) -> MigFamily | None:
    for how, text, index in _MATCHERS:
        if (how == 'seed' and text in product) or (how == 'sub' and text in product.upper()) or \
                (how == 'token' and text in product.upper().split('-')):
            return FAMILIES[index]
    return None


def smallest_profile(product: str, gib: float) -> MigProfile | None:
    family = find_family(product)
    if family is None:
        return None
    fitting = [p for p in family.profiles if p.memory_gib >= gib]
    return min(fitting, key=lambda p: (p.memory_gib, p.compute_slices), default=None)


def _placeable(family: MigFamily, layout: dict[str, int]) -> bool:
    by_name = {p.name: p for p in family.profiles}
    instances = sorted((by_name[n] for n, c in layout.items() for _ in range(c)), key=lambda p: -p.memory_slices)
    occupied = [False] * family.memory_slices

    def place(i: int) -> bool:
        if i == len(instances):
            return True
        p = instances[i]
        for start in p.starts:
            span = range(start, start + p.memory_slices)
            if span.stop > family.memory_slices or any(occupied[s] for s in span):
                continue
            for s in span:
                occupied[s] = True
            if place(i + 1):
                return True
            for s in span:
                occupied[s] = False
        return False
    return place(0)


def check_layout(product: str, layout: dict[str, int]) -> list[str]:
    family = find_family(product)
    if family is None:
        return [f'no independent geometry table for product {product!r}']
    by_name = {p.name: p for p in family.profiles}
    unknown = sorted(n for n in layout if n not in by_name)
    if unknown:
        return [f'unknown profile(s) {unknown} for {family.key}']
    memory = sum(by_name[n].memory_gib * c for n, c in layout.items())
    compute = sum(by_name[n].compute_slices * c for n, c in layout.items())
    slices = sum(by_name[n].memory_slices * c for n, c in layout.items())
    problems = []
    if memory > family.memory_gib:
        problems.append(f'requested {float(memory):g} GiB of MIG memory on a {float(family.memory_gib):g} GiB card')
    if compute > family.compute_slices:
        problems.append(f'requested {compute} compute slices on a card with {family.compute_slices}')
    if slices > family.memory_slices:
        problems.append(f'requested {slices} memory slices on a card with {family.memory_slices}')
    for n, c in layout.items():
        if c > by_name[n].max_count:
            problems.append(f'{c} x {n} exceeds the {by_name[n].max_count} instances the card allows')
    if not problems and not _placeable(family, layout):
        problems.append('no legal non-overlapping placement exists for this combination')
    return problems


def _digits(s: str) -> bool:
    return s != '' and all('0' <= ch <= '9' for ch in s)


def classify_gfd_labels(labels: dict[str, str]) -> str:
    '''backend/CONTRACT.md's four rules, as backend/model/gfd.cpp reads them (no advertised unit count here).'''
    product = labels.get('nvidia.com/gpu.product', '')
    replicas = labels.get('nvidia.com/gpu.replicas', '').strip()
    if labels.get('nvidia.com/gpu.sharing-strategy') == 'mps':
        return 'mps'
    if labels.get('nvidia.com/gpu.sharing-strategy') == 'time-slicing' or product.endswith('-SHARED') or \
            (_digits(replicas) and int(replicas) > 1):
        return 'time-sliced'
    capable = labels.get('nvidia.com/mig.capable')
    config = labels.get('nvidia.com/mig.config')
    applied = bool(config) and config != 'all-disabled' and labels.get('nvidia.com/mig.config.state') == 'success'
    if labels.get('nvidia.com/mig.strategy') == 'single' and capable is not None and capable.lower() == 'true' and \
            ('-MIG-' in product or applied):
        return 'mig'
    if any(k.startswith('nvidia.com/gpu') for k in labels):
        return 'physical'
    return 'unknown'


def install(module) -> None:
    '''Points the upstream module's imported table functions at these.'''
    module.smallest_profile = smallest_profile
    module.check_layout = check_layout
    module.classify_gfd_labels = classify_gfd_labels
