'''
A scenario's start state written into upstream's backend, as backend/scenario/scenario_state.cpp apply_start_state
writes it into the port's, after each backend's constructor: the start-state node fields, the shared map, the
ClusterPolicy pointer and the leftover claims (docs/DESIGN.md §4, "Start state" and "Start claims"). Upstream has
no entry point for any of them but the node fields, so this writes its attributes directly, as the port does.
'''
from __future__ import annotations

from typing import Any

import contract_tables
from scenario_file import START_STATE_NODE, Scenario

_GIB = 1 << 30


def apply(mb: Any, b: Any, sc: Scenario) -> None:
    '''A key the file leaves out is not written: upstream keeps its own NodeFixture / constructor default there,
    which the harness's default is meant to equal (scenario.h); if the two ever drift apart, the final states
    compared differ.'''
    for spec in sc.nodes:
        n = b._nodes[spec['name']]
        for key in START_STATE_NODE:  # the NodeFixture fields of the same names
            if key in spec:
                value = spec[key]
                setattr(n, key, dict(value) if isinstance(value, dict) else value)
    if sc.shared_map is not None:
        b._shared_config = {entry: dict(members) for entry, members in sc.shared_map.get('entries', {}).items()}
        b._shared_tombstone = bool(sc.shared_map.get('tombstone', False))
    if sc.cluster_policy is not None:
        b._pointer = sc.cluster_policy.get('pointer', mb.DEFAULT_POINTER)
        b._pointer_restore = sc.cluster_policy.get('restore')
    for spec in sc.claims:
        b._claims[spec['id']] = start_claim(mb, b, spec, sc.authority)


def start_claim(mb: Any, b: Any, spec: dict[str, Any], authority: str) -> Any:
    '''scenario_claims.cpp apply_start_claims: the claim upstream's reserve would have left, its devices built as
    upstream's inventory and plan build them, its entry named as reserve names it (managed-mig, with geometry, once
    past pending: reserve names the entry in the block that sets allocated).'''
    assignments = {}
    for workload, devices in spec['assignments'].items():
        built = []
        for d in devices:
            n = b._nodes[d['node']]
            if 'ordinal' in d:
                i = d['ordinal']
                built.append(mb.DeviceIdentity(n.name, i, f'GPU-{n.name}-{i}', None, n.product,
                                               int(n.memory_gib * _GIB), None))
            else:
                p = next(p for p in contract_tables.find_family(n.product).profiles if p.name == d['profile'])
                built.append(mb.DeviceIdentity(n.name, None, None, f"MIG-{n.name}-{p.name}-{d['index']}",
                                               n.product, int(p.memory_gib * _GIB), p.name))
        assignments[workload] = tuple(built)
    geometry = {node: ','.join(f'{k}:{v}' for k, v in sorted(layout.items()))
                for node, layout in spec.get('geometry', {}).items()}
    plan = mb.FeasiblePlan(assignments, geometry, '', 'start', ())
    nodes = sorted({d.node for devices in assignments.values() for d in devices if d.node})
    claim = mb._Claim(spec['id'], spec['owner'], plan, spec['generation'], nodes,
                      status=spec.get('status', 'allocated'), workload_ready=bool(spec.get('workload_ready')))
    if geometry and authority == mb.AUTHORITY_MANAGED_MIG and claim.status != 'pending':
        claim.entry_name = f"videoflow-{spec['owner']}-{spec['generation']}"
    return claim
