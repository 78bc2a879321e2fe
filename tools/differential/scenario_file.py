'''The parts of an allocsim/scenario/v1 file the driver needs (allocsim's loader has validated it already).'''
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


class ScenarioError(Exception):
    pass


@dataclass
class Op:
    kind: str
    raw: dict[str, Any]

    def get(self, key: str, default: Any = None) -> Any:
        return self.raw.get(key, default)


# Start-state keys (backend/scenario/scenario_state.h, docs/DESIGN.md §4): the harness writes them into the
# backend's state after the backend is built and before the first step; upstream_run.py writes them into upstream's.
START_STATE_TOP = ('shared_map', 'cluster_policy', 'claims')
START_STATE_NODE = ('resource_version', 'owner', 'owner_epoch', 'mig_state', 'mig_state_generation', 'mig_layout',
                    'restore_record')


@dataclass
class Scenario:
    path: str
    authority: str
    apply_seconds: float
    mutants: list[str]
    nodes: list[dict[str, Any]]
    actors: list[tuple[str, list[Op]]]
    faults: dict[str, Any] | None
    max_steps: int
    names: list[str] = field(default_factory=list)
    start_state: list[str] = field(default_factory=list)  # the start-state keys the file sets (scenario_state.h)
    shared_map: dict[str, Any] | None = None  # top-level `shared_map` {entries, tombstone}, when the file has it
    cluster_policy: dict[str, Any] | None = None  # top-level `cluster_policy` {pointer, restore}, when it has it
    claims: list[dict[str, Any]] = field(default_factory=list)  # top-level `claims`: leftover claims at the start
    # backend/scenario/conditional_ops.h: each write-behind's background actor -> (its issuer, the op's index)
    behind: dict[str, tuple[str, int]] = field(default_factory=dict)
    # docs/DESIGN.md §4 "Owner identity": each actor's owner identity (its `owner`, else its name)
    owners: dict[str, str] = field(default_factory=dict)


def load(path: str) -> Scenario:
    try:
        with open(path, encoding='utf-8') as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise ScenarioError(f'{path}: {e}') from e
    if doc.get('schema') != 'allocsim/scenario/v1':
        raise ScenarioError(f'{path}: /schema: expected "allocsim/scenario/v1"')
    backend = doc.get('backend', {})
    actors = [(a['name'], [Op(o['op'], o) for o in a['script']]) for a in doc['actors']]
    # conditional_ops.h add_behind_actors: a background actor per write-behind op, after the file's actors, whose one
    # op is the issued one without `behind` and `when`.
    behind: dict[str, tuple[str, int]] = {}
    for name, ops in list(actors):
        for k, op in enumerate(ops):
            if op.get('behind'):
                raw = {key: v for key, v in op.raw.items() if key not in ('behind', 'when')}
                behind[f'{name}.behind{k}'] = (name, k)
                actors.append((f'{name}.behind{k}', [Op(op.kind, raw)]))
    sc = Scenario(path, backend.get('authority', 'device-plugin'), float(backend.get('mig_apply_seconds', 0)),
                  list(backend.get('mutants', [])), doc['nodes'], actors, doc.get('faults'),
                  int(doc.get('max_steps', 10000)))
    sc.names = [n for n, _ in actors]
    sc.start_state = [k for k in START_STATE_TOP if k in doc] + sorted(
        {k for n in doc['nodes'] for k in START_STATE_NODE if k in n})
    sc.shared_map, sc.cluster_policy = doc.get('shared_map'), doc.get('cluster_policy')
    sc.claims = list(doc.get('claims', []))
    sc.behind = behind
    sc.owners = {a['name']: a.get('owner', a['name']) for a in doc['actors']}
    sc.owners.update({name: name for name in behind})
    return sc


def node_labels(node: dict[str, Any]) -> dict[str, str]:
    '''scenario.h: without a "labels" key, the product and count labels of a plain GPU node.'''
    if 'labels' in node:
        return dict(node['labels'])
    return {'nvidia.com/gpu.product': node['product'], 'nvidia.com/gpu.count': str(node['gpu_count'])}
