'''
allocsim's comparable record (backend/system/record.h) of an execution upstream ran (upstream_run.py): its steps,
barriers, outcomes, audit log and final state, in the port's field names.
'''
from __future__ import annotations

from typing import Any

from upstream_world import BARRIER


def record_state(ex: Any) -> dict[str, Any]:
    b = ex.b
    nodes = [{'name': n.name, 'owner': n.owner, 'owner_epoch': n.owner_epoch, 'resource_version': n.resource_version,
              'mig_config': n.mig_config, 'mig_state': n.mig_state, 'mig_state_generation': n.mig_state_generation,
              'mig_layout': [[k, v] for k, v in n.mig_layout.items()],
              'workloads': [[k, v] for k, v in n.workloads.items()], 'restore_record': n.restore_record}
             for n in b._nodes.values()]
    claims = []
    for c in b._claims.values():
        assignments = [[w, [[d.node, d.ordinal, d.uuid, d.mig_uuid, d.product, d.memory_bytes, d.mig_profile]
                            for d in devices]] for w, devices in c.plan.assignments.items()]
        claims.append({'claim_id': c.claim_id, 'owner': c.owner, 'generation': c.generation, 'nodes': list(c.nodes),
                       'status': c.status, 'workload_ready': c.workload_ready, 'entry_name': c.entry_name,
                       'plan_id': c.plan.plan_id, 'geometry': [[k, v] for k, v in c.plan.geometry.items()],
                       'assignments': assignments})
    return {'nodes': nodes, 'claims': claims, 'failed_reads': [[k, v] for k, v in b._failed_reads.items()],
            'shared_config': [[e, [[k, v] for k, v in m.items()]] for e, m in b._shared_config.items()],
            'shared_config_version': b._shared_config_version, 'shared_tombstone': b._shared_tombstone,
            'pointer': b._pointer, 'pointer_version': b._pointer_version, 'pointer_restore': b._pointer_restore,
            'pending_geometry': [[float(d), n, v] for d, n, v in b._pending_geometry],
            'failing_geometry': sorted(b._failing_geometry), 'clock': float(ex.clock.now())}


def record_execution(ex: Any, schedule: str, quiescent: bool, violation: str | None) -> dict[str, Any]:
    seen: dict[tuple[str, str], int] = {}
    steps, barriers = [], []
    for actor, kind, what, detail in ex.ctx.steps:
        seen[(actor, what)] = seen.get((actor, what), 0) + 1
        steps.append([actor, kind, what, seen[(actor, what)], detail])
        if kind == BARRIER:
            barriers.append([actor, what, detail])
    return {'schema': 'allocsim/record/v1', 'schedule': schedule, 'steps': steps,
            'end': 'quiescent' if quiescent else 'stopped', 'violation': violation, 'crashes': ex.ctx.crashes,
            'outcomes': {n: ex.actors[n].outcomes for n in ex.sc.names},
            'barriers': barriers, 'audit': [list(m) for m in ex.b.audit], 'state': record_state(ex)}
