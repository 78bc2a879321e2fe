'''
Catalogue mutants planted on upstream, so that a mutant scenario runs with the same defect on both sides.

A mutant is a subclass of the upstream backend whose method is upstream's own source with one textual change
(each ``old`` must occur exactly once, so a seed that moved on fails loudly instead of silently running
unmutated). Only mutants whose defect upstream's code can express are here; ``SUPPORTED`` lists them.
'''
from __future__ import annotations

import inspect
import textwrap
from typing import Any

# name -> [(method, old text, new text)], each mirroring backend/model/mutants.h's description of the defect.
MUTANTS: dict[str, list[tuple[str, str, str]]] = {
    'client-side-claim': [('reserve', 'if node.resource_version != seen_version:', 'if False:')],
    'stale-last-out': [('release', 'if not self._shared_config:',
                        'if not {k: v for k, v in seen.items() if k != claim.entry_name}:')],
    'release-keeps-owner': [('release', 'if node.owner == claim.owner and node.owner_epoch == claim.generation:',
                             'if False:')],
    'release-clears-any-owner': [('release',
                                  'if node.owner == claim.owner and node.owner_epoch == claim.generation:',
                                  'if node.owner is not None:')],
    'stale-plan-applied': [('reserve', 'if expected_generation is not None and expected_generation != current:',
                            'if False:')],
    'restore-record-overwritten': [('reserve', 'if node.restore_record is None:', 'if True:')],
    'strict-claim-lookup': [('observe', 'claim = self._claims.get(claim_id)', 'claim = self._claims[claim_id]')],
    'allocated-is-ready': [('_observe', 'grant = tuple(',
                            'status = CLAIM_READY if status == CLAIM_ALLOCATED else status\n    grant = tuple(')],
    'stale-success-readiness': [('reserve', "node.mig_state = 'pending'", 'pass'),
                                ('_observe', "node.mig_config == claim.entry_name and node.mig_state == 'success'",
                                 "node.mig_state == 'success'"),
                                ('_observe', 'and node.mig_state_generation >= node.resource_version - 0', '')],
    'partial-inventory-is-idle': [('inventory', 'occupancy = {} if partial else {n.name: sum(n.workloads.values())',
                                   'occupancy = {n.name: 0 if partial else sum(n.workloads.values())'),
                                  ('inventory', 'COMPLETENESS_PARTIAL if partial else COMPLETENESS_COMPLETE',
                                   'COMPLETENESS_COMPLETE')],
    'map-deleted-on-last-out': [('release', 'self._shared_tombstone = True',
                                 "self._record(operation_id, 'delete-map', 'videoflow-map', '')")],
    'lock-leak-on-pending-recovery': [('release', 'if keep_workloads or busy:',
                                       'if (keep_workloads or busy) and (self._lock.acquire() or True):')],
    'readiness-one-write-behind': [('_observe', 'node.resource_version - 0', 'node.resource_version - 1')],
    'restore-under-workloads': [('release', 'busy = [n for n in claim.nodes if self._nodes[n].workloads]',
                                 'busy = []')],
}
SUPPORTED = sorted(MUTANTS)
_cache: dict[tuple[str, ...], type] = {}


class UnsupportedMutant(Exception):
    pass


def backend_class(mb: Any, mutants: list[str]) -> type:
    key = tuple(sorted(set(mutants)))
    if not key:
        return mb.MemoryAllocationBackend
    if key in _cache:
        return _cache[key]
    missing = [m for m in key if m not in MUTANTS]
    if missing:
        raise UnsupportedMutant(f'mutant(s) {", ".join(missing)} cannot be planted on upstream')
    base = mb.MemoryAllocationBackend
    methods: dict[str, str] = {}
    for name in key:
        for method, old, new in MUTANTS[name]:
            src = methods.get(method) or textwrap.dedent(inspect.getsource(getattr(base, method)))
            if src.count(old) != 1:
                raise UnsupportedMutant(f'mutant {name}: expected {old!r} exactly once in upstream\'s {method}()')
            methods[method] = src.replace(old, new)
    namespace: dict[str, Any] = {}
    for method, src in methods.items():
        exec(compile(src, f'<seed {method} +{"+".join(key)}>', 'exec'), mb.__dict__, namespace)  # noqa: S102
    _cache[key] = type(f'Mutant_{"_".join(key)}', (base,), namespace)
    return _cache[key]
