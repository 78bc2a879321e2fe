'''
Runs one execution of a scenario on upstream along a schedule, with allocsim's harness semantics
(backend/system/backend_world.h, ScriptRunner), and builds allocsim's comparable record (backend/system/record.h).
'''
from __future__ import annotations

import importlib
import os
import sys
import threading
from typing import Any

import contract_tables
import upstream_mutants
import upstream_start_state
from scenario_file import Scenario, node_labels
from upstream_record import record_execution
from upstream_world import (BARRIER, CALL, Ctx, Divergence, InjectedError, PerActorIds, SimLock, Unsupported, _Abort,
                        _Crash, parse_schedule)

_SHARING = {'exclusive': 'exclusive', 'isolated_mig': 'isolated-mig', 'cooperative': 'cooperative',
            'accounting_only': 'accounting-only'}
_RELEASE = {'released': 'released', 'stale': 'stale', 'pending-recovery': 'pending_recovery'}
_GIB = 1 << 30
_mb = None


def upstream_module(upstream_dir: str, tables: str = 'port') -> Any:
    '''Imports ``memory_backend`` from ``upstream_dir`` once (its own imports resolve from that directory).'''
    global _mb
    if _mb is None:
        if not os.path.isfile(os.path.join(upstream_dir, 'memory_backend.py')):
            raise FileNotFoundError(f'ALLOCSIM_UPSTREAM_DIR={upstream_dir}: no memory_backend.py there')
        sys.path.insert(0, os.path.abspath(upstream_dir))
        _mb = importlib.import_module('memory_backend')
        if tables == 'port':
            contract_tables.install(_mb)
    return _mb


def _fmt_arg(v: Any) -> str:
    return ','.join(str(x) for x in v) if isinstance(v, (list, tuple)) else str(v)


class Actor:
    def __init__(self, name: str, ops: list, owner: str) -> None:
        self.name, self.ops, self.owner = name, ops, owner
        self.outcomes: list[str | None] = [None] * len(ops)
        self.op_index = 0
        self.reserves = self.releases = self.recovers = 0
        self.inventory = None
        self.plan = None
        self.claim_id: str | None = None
        self.claim_generation = ''
        self.held: list[tuple[str, str]] = []
        self.last_released: tuple[str, str] | None = None
        self.dropped = False
        self.retry = 0  # the running op's retry (conditional_ops.h); 0 on its first attempt


# Faults upstream has no hook for (read_faults.h, backend/model/geometry_hooks.cpp): their scenarios are skipped.
HARNESS_ONLY_OPS = frozenset({'stale_reads', 'partial_reads', 'fail_geometry_for', 'geometry_no_effect',
                              'geometry_partial'})
# Foreign writes (backend/ops/op_foreign.cpp, docs/DESIGN.md §4): another controller's write, not an upstream
# call (upstream's API has no such writer). Replayed as the harness runs them: one Call point, then one write under the
# backend lock that bumps the written object's version (Execution.foreign_write).
FOREIGN_WRITE_OPS = frozenset({'set_labels', 'set_mig_state', 'write_shared_map', 'set_pointer'})
_MIG_CONFIG_LABEL = 'nvidia.com/mig.config'  # backend/scenario/op_syntax.h kMigConfigLabel
_MIG_STATE_LABEL = 'nvidia.com/mig.config.state'  # backend/scenario/op_syntax.h kMigStateLabel


def _advertised(node: Any, resource: str) -> int:
    '''backend/world/kubelet_admission.h advertised: what the node's device plugin advertises of `resource`.'''
    strategy = node.labels.get('nvidia.com/mig.strategy')
    if not node.mig_layout or strategy == 'none':
        return node.gpu_count if resource == 'nvidia.com/gpu' else 0
    if strategy == 'single':
        return sum(node.mig_layout.values()) if resource == 'nvidia.com/gpu' else 0
    if not resource.startswith('nvidia.com/mig-'):
        return 0
    return node.mig_layout.get(resource[len('nvidia.com/mig-'):], 0)


def _device_plugin_off(labels: dict[str, str]) -> bool:
    '''backend/world/admission_faults.h device_plugin_off: the node's operand labels turn its device plugin off.'''
    device_plugin = labels.get('nvidia.com/gpu.deploy.device-plugin')
    return labels.get('nvidia.com/gpu.deploy.operands') == 'false' or (device_plugin is not None and
                                                                        device_plugin != 'true')


def _map_entries(entries: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    '''Shared-map entries {entry: {node: 1}}, copied (the backend mutates its map; the scenario must not change).'''
    return {entry: dict(members) for entry, members in entries.items()}


def _retry_wanted(op: Any, out: str, retries: int) -> bool:
    '''conditional_ops.h: an attempt ending in one of retry.on is retried, at most retry.max times.'''
    retry = op.get('retry')
    if retry is None or retries >= int(retry['max']):
        return False
    on = retry['on']
    return out in ([on] if isinstance(on, str) else on)


class Execution:
    def __init__(self, mb: Any, sc: Scenario, schedule: str, mutants: list[str]) -> None:
        self.mb, self.sc = mb, sc
        self.ctx = Ctx(sc.names, parse_schedule(schedule, sc.names), sc.max_steps)
        cls = upstream_mutants.backend_class(mb, mutants)
        nodes = [mb.NodeFixture(n['name'], n['product'], n['gpu_count'], float(n['memory_gib']), labels=node_labels(n),
                                workloads=dict(n.get('workloads', {})), mig_config=n.get('mig_config', 'all-disabled'))
                 for n in sc.nodes]
        self.clock = mb.FakeClock(1000.0)
        self.b = cls(nodes, clock=self.clock, authority=sc.authority, mig_apply_seconds=sc.apply_seconds)
        self.b._lock = SimLock(self.ctx)
        self.b._ids = PerActorIds(self.ctx)
        self.apply_start_state()
        self.actors = {n: Actor(n, ops, sc.owners[n]) for n, ops in sc.actors}
        recovered = {op.get('flow') for _, ops in sc.actors for op in ops
                     if op.kind == 'recover' and op.get('wait', op.get('lease_seconds') is None)}  # only a waiting one
        self.life = {n: SimLock(self.ctx) for n in sc.names if n in recovered}
        # write-behind (conditional_ops.h): each background actor's gate, held by its issuer until it passed the op
        self.gates = {n: SimLock(self.ctx) for n in sc.behind}
        self.issued: set[str] = set()
        # recover with lease_seconds (backend/world/leases.h, harness-only: upstream has no lease): each leased
        # flow's last renewal, the clock at its latest op start or right after its own advance_clock.
        self.renewed = {op.get('flow'): self.clock.now() for _, ops in sc.actors for op in ops
                        if op.kind == 'recover' and op.get('lease_seconds') is not None}
        self.faults_fired = 0
        f = sc.faults or {}
        self.f_max, self.f_actors = int(f.get('max', 1)), f.get('actors')
        self.f_barriers: dict[str, list[str]] = f.get('barriers', {})
        self.f_reads: list[str] = f.get('fail_reads', [])
        self.f_geometry: list[str] = f.get('fail_geometry', [])
        self.refused: dict[str, int] = {}  # reject_binds: node -> binds still refused
        # compiled_scenario.h operand_labels or admission_fault_ops: a bind's kubelet may refuse it
        operand = ('nvidia.com/gpu.deploy.operands', 'nvidia.com/gpu.deploy.device-plugin')
        self.refusals_possible = any(k in operand for n in sc.nodes for k in node_labels(n)) or any(
            op.kind == 'reject_binds' or (op.kind == 'set_labels' and any(k in operand for k in op.get('set', {})))
            for _, ops in sc.actors for op in ops)
        # kubelet_admission.h PodResources: (node, workload) -> a resource other than nvidia.com/gpu
        self.pods: dict[tuple[str, str], str] = {}

    def apply_start_state(self) -> None:
        upstream_start_state.apply(self.mb, self.b, self.sc)

    # -- faults (backend/ops/: ActorCaller::fault_at, ScriptRunner::environment_fault) ----------------------------
    def _eligible(self, a: Actor) -> bool:
        return self.faults_fired < self.f_max and (not self.f_actors or a.name in self.f_actors)

    def barrier_hook(self, name: str, **kw: Any) -> None:
        a = self.actors[self.ctx.me()]
        self.ctx.point(BARRIER, name, ' '.join(f'{k}={_fmt_arg(v)}' for k, v in kw.items()))
        actions = self.f_barriers.get(name)
        if not actions or not self._eligible(a):
            return
        v = self.ctx.draw(1 + len(actions))
        if v == 0:
            return
        self.faults_fired += 1
        action = actions[v - 1]
        self.ctx.note(f'fault={action}')
        if action == 'crash':
            a.outcomes[a.op_index] = 'crashed'
            raise _Crash(name)
        if action == 'raise':
            raise InjectedError(name)
        a.dropped = True

    def call(self, a: Actor, what: str, detail: str = '') -> None:
        if a.retry:
            detail = f'{detail} retry={a.retry}' if detail else f'retry={a.retry}'
        self.ctx.point(CALL, what, detail)
        if not (self.f_reads or self.f_geometry) or not self._eligible(a):
            return
        reads = [k for k in self.f_reads if k not in self.b._failed_reads]
        nodes = [n for n in self.f_geometry if n not in self.b._failing_geometry]
        if not reads and not nodes:
            return
        v = self.ctx.draw(1 + len(reads) + len(nodes))
        if v == 0:
            return
        self.faults_fired += 1
        if v <= len(reads):
            self.ctx.note(f'fault=fail_reads:{reads[v - 1]}')
            self.b.fail_reads(reads[v - 1], 'timeout')
        else:
            node = nodes[v - 1 - len(reads)]
            self.ctx.note(f'fault=fail_geometry:{node}')
            self.b.fail_geometry(node)

    # -- the actor's script (backend/ops/script_runner.cpp) --------------------------------------------------------
    def run_actor(self, a: Actor) -> None:
        life = self.life.get(a.name)
        if life is not None:
            life.acquire()  # in the prologue: uncontended, not a scheduling point
        held = {k: b for b, (issuer, k) in self.sc.behind.items() if issuer == a.name}  # op index -> background
        for b in held.values():
            self.gates[b].acquire()  # in the prologue, before any background actor: uncontended
        gate = self.gates.get(a.name)
        if gate is not None:  # a background actor waits for its issuer to pass the op
            gate.acquire()
            gate.release()
        try:
            for k, op in enumerate(a.ops):
                a.op_index = k
                if a.name in self.renewed:  # a leased flow renews its lease at every op start
                    self.renewed[a.name] = self.clock.now()
                a.dropped = False
                a.retry = 0
                when = op.get('when')
                if op.get('behind'):  # only issued here; its background actor makes the write
                    met = when is None or a.outcomes[int(when['op'])] == when['outcome']
                    a.outcomes[k] = 'issued' if met else 'skipped'
                    if met:
                        self.issued.add(held[k])
                    self.gates[held[k]].release()
                    continue
                if a.name in self.sc.behind and a.name not in self.issued:
                    a.outcomes[k] = 'skipped'
                    continue
                if when is not None and a.outcomes[int(when['op'])] != when['outcome']:
                    a.outcomes[k] = 'skipped'  # conditional_ops.h: no call, no scheduling point
                    continue
                try:
                    out = self.execute(a, op)
                    while not a.dropped and _retry_wanted(op, out, a.retry):
                        a.retry += 1
                        out = self.execute(a, op)
                    a.outcomes[k] = 'unknown' if a.dropped else out
                except InjectedError:
                    a.outcomes[k] = 'error'
        finally:
            for b in held.values():
                if self.gates[b].holder == a.name:
                    self.gates[b].release()
            if life is not None:
                life.release()

    def requests(self, a: Actor, specs: list[dict[str, Any]]) -> list[Any]:
        out = []
        for r in specs:
            gib = r.get('minimum_usable_memory_gib')
            out.append(self.mb.WorkloadRequest(r['workload'], a.owner, _SHARING[r.get('sharing', 'exclusive')],
                                               int(r.get('devices', 1)), None if gib is None else int(gib * _GIB)))
        return out

    def inventory(self, a: Actor, scope: list[str] | None) -> str:
        obs = self.b.inventory({} if scope is None else {'nodes': scope})
        if obs.state != 'known':
            a.inventory = None
            return 'unknown'
        a.inventory = obs.value
        return 'partial' if obs.value.completeness == 'partial' else 'complete'

    def plan(self, a: Actor, specs: list[dict[str, Any]]) -> str:
        a.plan = self.b.plan(self.requests(a, specs), a.inventory)
        return 'feasible' if isinstance(a.plan, self.mb.FeasiblePlan) else 'infeasible'

    def reserve(self, a: Actor, plan: Any) -> str:
        a.reserves += 1
        try:
            # Under a shared owner identity the actor's name follows the owner (the port's ScriptRunner::reserve).
            op_id = f'{a.name}:op{a.reserves}' if a.owner == a.name else f'{a.owner}:{a.name}.op{a.reserves}'
            obs = self.b.reserve(plan, op_id, plan.generation)
        except self.mb.OwnershipConflict:
            return 'conflict'
        if a.dropped:
            return 'unknown'
        a.claim_id, a.claim_generation = obs.claim_id, obs.generation
        a.held.append((obs.claim_id, obs.generation))
        return 'claimed'

    def observe_once(self, a: Actor) -> str:
        obs = self.b.observe(a.claim_id)
        return obs.value.status if obs.state == 'known' else 'unknown'

    def execute(self, a: Actor, op: Any) -> str:
        k = op.kind
        if k == 'inventory':
            self.call(a, 'inventory')
            return self.inventory(a, op.get('nodes'))
        if k == 'plan':
            if a.inventory is None:
                return 'skipped'
            self.call(a, 'plan')
            return self.plan(a, op.get('requests', []))
        if k == 'reserve':
            return self.execute_reserve(a, op)
        if k in ('observe', 'await', 'mark_ready', 'reconcile') and a.claim_id is None:
            return 'skipped'
        if k == 'observe':
            self.call(a, 'observe')
            return self.observe_once(a)
        if k == 'await':
            for i in range(int(op.get('polls_max', 1))):
                self.call(a, 'observe', f'await={op.get("status")} poll={i + 1}')
                got = self.observe_once(a)
                if got == op.get('status') or got == 'failed':
                    return got
            return 'timeout'
        if k == 'mark_ready':
            self.call(a, 'mark_ready')
            self.b.mark_workload_ready(a.claim_id)
            return 'done'
        if k == 'reconcile':
            self.call(a, 'reconcile', f'desired={op.get("status")}')
            try:
                return self.b.reconcile(a.claim_id, op.get('status'), a.claim_generation).status
            except self.mb.OwnershipConflict:
                return 'conflict'
        if k == 'release':
            return self.release(a, op)
        if k == 'recover':
            lease = op.get('lease_seconds')
            return self.recover(a, op.get('flow'), bool(op.get('wait', lease is None)),
                                None if lease is None else float(lease))
        if k in FOREIGN_WRITE_OPS:
            return self.foreign_write(a, op)
        return self.test_hook(a, op)

    def bind(self, op: Any, node: str) -> str:
        if _device_plugin_off(self.b._nodes[node].labels):  # admission_faults.h: no device plugin, no GPU pod
            self.ctx.note(f'refused=device-plugin-off:{node}')
            return 'rejected'
        if self.refused.get(node, 0) > 0:  # reject_binds (admission_faults.h): the kubelet refuses the pod
            self.refused[node] -= 1
            self.ctx.note(f'fault=reject_binds:{node}')
            return 'rejected'
        if op.get('claim') is not None or op.get('resource') is not None:
            return self.admit_and_bind(op)
        self.b.bind_workload(node, op.get('workload'), int(op.get('units', 1)))
        self.pods.pop((node, op.get('workload')), None)
        return 'done'

    def refuse(self, why: str) -> str:
        self.ctx.note(f'refused={why}')
        return 'rejected'

    def admit_and_bind(self, op: Any) -> str:
        '''backend/ops/op_environment.cpp admit_and_bind (backend/world/kubelet_admission.h): the kubelet's checks of
        a bind that names its resource or its claim, then upstream's bind_workload, under the backend lock.'''
        node, workload = op.get('node'), op.get('workload')
        with self.b._lock:
            units, resource = int(op.get('units', 1)), op.get('resource')
            if op.get('claim') is not None:
                holder = self.actors[op.get('claim')]
                if holder.claim_id is None:
                    return self.refuse(f'no-claim:{holder.name}')
                claim = self.b._claims.get(holder.claim_id)
                if claim is None:
                    return self.refuse(f'claim-gone:{holder.claim_id}')
                if workload not in claim.plan.assignments:
                    return self.refuse(f'not-reserved:{workload}@{holder.claim_id}')
                spec = self.b.bindings(holder.claim_id, workload)
                selector = spec.placement.get('nodeSelector', {}).get('kubernetes.io/hostname')
                if selector != node:
                    return self.refuse(f'node-selector:{selector or "-"}')
                units, resource = spec.resources['resources']['limits']['nvidia.com/gpu'], 'nvidia.com/gpu'
                self.ctx.note(f'pod={resource}:{units}')
            n = self.b._nodes[node]
            held = sum(u for w, u in n.workloads.items()
                       if w != workload and self.pods.get((node, w), 'nvidia.com/gpu') == resource)
            free = _advertised(n, resource) - held
            if units > free:
                return self.refuse(f'insufficient:{resource}@{node} free={max(free, 0)}')
            self.b.bind_workload(node, workload, units)
            if resource == 'nvidia.com/gpu':
                self.pods.pop((node, workload), None)
            else:
                self.pods[(node, workload)] = resource
        return 'done'

    def test_hook(self, a: Actor, op: Any) -> str:
        k, node = op.kind, op.get('node')
        if k == 'bind_workload':
            if op.get('claim') is not None:
                self.call(a, k, f'node={node} workload={op.get("workload")} claim={op.get("claim")}')
            else:
                resource = f' resource={op.get("resource")}' if op.get('resource') is not None else ''
                self.call(a, k, f'node={node} workload={op.get("workload")} units={op.get("units", 1)}{resource}')
            # op_environment.cpp run_bind: where a kubelet can refuse, the checks and the bind hold the backend lock
            if self.refusals_possible:
                with self.b._lock:
                    return self.bind(op, node)
            return self.bind(op, node)
        elif k == 'reject_binds':
            # A harness fault (backend/world/admission_faults.h): the node's kubelet refuses the next binds; upstream's
            # bind_workload, its test kubelet, is simply not called for them.
            binds = int(op.get('binds', 1))
            self.call(a, k, f'node={node} binds={binds}')
            self.refused[node] = self.refused.get(node, 0) + binds
        elif k == 'unbind_workload':
            self.call(a, k, f'node={node} workload={op.get("workload")}')
            self.b.unbind_workload(node, op.get('workload'))
            self.pods.pop((node, op.get('workload')), None)
        elif k in ('fail_reads', 'restore_reads'):
            self.call(a, k, f'kind={op.get("kind")}')
            self.b.fail_reads(op.get('kind'), 'timeout' if k == 'fail_reads' else None)
        elif k == 'fail_geometry':
            self.call(a, k, f'node={node}')
            self.b.fail_geometry(node)
        elif k == 'advance_clock':
            seconds = float(op.get('seconds'))
            self.call(a, k, f'seconds={seconds:g}')
            # Upstream's tests: the clock moves (no lock), then the due writes apply (under the lock).
            self.clock.advance(seconds)
            if a.name in self.renewed:  # leases.h: a leased flow's own advance renews its lease in the same step
                self.renewed[a.name] = self.clock.now()
            self.b.apply_pending_geometry()
        else:
            raise Unsupported(f'op {k!r}')
        return 'done'

    def foreign_write(self, a: Actor, op: Any) -> str:
        '''backend/ops/op_foreign.cpp: one Call point (its detail as detail_<op> writes it), then one write under the
        backend lock bumping the written object's version. No audit row, no barrier; the outcome is always done.'''
        k, node, b = op.kind, op.get('node'), self.b
        if k == 'set_labels':
            put, remove = op.get('set', {}), op.get('remove', [])
            self.call(a, k, f'node={node} set={",".join(f"{x}={v}" for x, v in put.items())} '
                            f'remove={",".join(remove)}')
            with b._lock:
                n = b._nodes[node]
                for key, value in put.items():
                    n.labels[key] = value
                    if key == _MIG_CONFIG_LABEL:
                        n.mig_config = value  # upstream's field for that label follows it
                for key in remove:
                    n.labels.pop(key, None)
                n.resource_version += 1
        elif k == 'set_mig_state':
            state, generation = op.get('state'), op.get('generation')
            detail = f'node={node} state={state}'
            self.call(a, k, detail if generation is None else f'{detail} generation={generation}')
            with b._lock:
                n = b._nodes[node]
                n.mig_state = state
                if generation is not None:
                    n.mig_state_generation = int(generation)
                if _MIG_STATE_LABEL in n.labels:
                    n.labels[_MIG_STATE_LABEL] = state  # GFD's copy of the label says the same
                n.resource_version += 1
        elif k == 'write_shared_map':
            put, delete, replace = op.get('put', {}), op.get('delete', []), bool(op.get('replace', False))
            self.call(a, k, f'put={",".join(put)} delete={",".join(delete)} replace={"true" if replace else "false"}')
            with b._lock:
                if replace:
                    b._shared_config.clear()
                for entry in delete:
                    b._shared_config.pop(entry, None)
                for entry, members in _map_entries(put).items():
                    b._shared_config[entry] = members
                b._shared_config_version += 1
        else:  # set_pointer
            self.call(a, k, f'pointer={op.get("pointer")}')
            with b._lock:
                b._pointer = op.get('pointer')
                b._pointer_version += 1
        return 'done'

    def execute_reserve(self, a: Actor, op: Any) -> str:
        if 'requests' in op.raw:
            self.call(a, 'inventory', 'reserve=1')
            if self.inventory(a, None) == 'unknown':
                return 'unknown'
            self.call(a, 'plan', 'reserve=1')
            if self.plan(a, op.get('requests')) == 'infeasible':
                return 'infeasible'
            self.call(a, 'reserve')
            return self.reserve(a, a.plan)
        if op.get('plan_from') is not None:
            source = op.get('plan_from')
            self.call(a, 'reserve', f'plan_from={source}')
            plan = self.actors[source].plan if source in self.actors else None
            if plan is None:
                return 'skipped'
            if not isinstance(plan, self.mb.FeasiblePlan):
                return 'infeasible'
            return self.reserve(a, plan)
        if a.plan is None:
            return 'skipped'
        if not isinstance(a.plan, self.mb.FeasiblePlan):
            return 'infeasible'
        self.call(a, 'reserve')
        return self.reserve(a, a.plan)

    def release(self, a: Actor, op: Any) -> str:
        # backend/system/backend_world.h: the oldest claim held; with none held, the last released one again (a
        # duplicate release).
        duplicate = not a.held
        if duplicate and a.last_released is None:
            return 'skipped'
        claim_id, generation = a.last_released if duplicate else a.held[0]
        keep = bool(op.get('keep_workloads', False))
        detail = 'keep_workloads=true' if keep else ''
        if duplicate:
            detail += ' duplicate=true' if detail else 'duplicate=true'
        self.call(a, 'release', detail)
        a.releases += 1
        r = self.b.release(claim_id, f'{a.name}:release{a.releases}', generation, keep)
        if a.dropped:
            return 'unknown'
        status = _RELEASE[r.status]
        if status == 'released' and not duplicate:
            a.held.pop(0)
            a.last_released = (claim_id, generation)
            a.claim_id, a.claim_generation = a.held[-1] if a.held else (None, '')
        return status

    def recover(self, a: Actor, flow: str, wait: bool = True, lease: float | None = None) -> str:
        life = self.life.get(flow) if wait else None  # wait false: a sweeper, no wait for the flow's end
        if life is not None:
            life.acquire()  # blocks until the flow's actor has finished or crashed
            life.release()
        self.call(a, 'recover', f'flow={flow}')  # after the wait, as the port's op_recover.cpp
        if lease is not None:
            idle = self.clock.now() - self.renewed[flow]
            self.ctx.note(f'lease={"unexpired" if idle < lease else "expired"} idle={idle:g}s')
            if idle < lease:
                return 'unexpired'  # the sweeper believes the flow alive: it reads and writes nothing
        # The port's claims_of (no upstream counterpart): a locked read of the claims the flow's identity owns.
        identity = self.actors[flow].owner
        with self.b._lock:
            claims = [(c.claim_id, c.generation) for c in self.b._claims.values() if c.owner == identity]
        if a.owner == identity:  # a replica of the flow leaves out the claims it holds itself (op_recover.cpp)
            claims = [c for c in claims if c[0] not in {held for held, _ in a.held}]
        out = 'released' if claims else 'none'
        for claim_id, generation in claims:
            self.call(a, 'release', f'recover={flow} claim={claim_id}')
            a.recovers += 1
            r = self.b.release(claim_id, f'{a.name}:recover{a.recovers}', generation, False)
            if r.status != 'released' and out == 'released':
                out = _RELEASE[r.status]
        return out


# -- the engine loop (sim/engine.cpp) and the record (backend/system/record.h) ------------------------------------

def _thread_body(ex: Execution, name: str) -> None:
    ctx = ex.ctx
    ctx.local.name = name
    ctx.go[name].acquire()
    try:
        if not ctx.aborting:
            ex.run_actor(ex.actors[name])
    except _Abort:
        pass
    except _Crash as c:
        ctx.crashed[name] = c.where
    except (Divergence, Unsupported) as e:  # not the actor's fault: the run cannot go on (run_execution raises it)
        ctx.exception[name] = f'{type(e).__name__}: {e}'
        ctx.fatal = e
    except BaseException as e:  # noqa: BLE001 - an actor's exception is a finding (actor-exception)
        ctx.exception[name] = f'{type(e).__name__}: {e}'
    ctx.state[name] = 'done'
    ctx.back.release()


def run_execution(mb: Any, sc: Scenario, schedule: str, mutants: list[str]) -> dict[str, Any]:
    '''The record of one execution along ``schedule``. Raises Divergence or Unsupported.'''
    for _, ops in sc.actors:
        for op in ops:
            if op.kind in HARNESS_ONLY_OPS:
                raise Unsupported(f'op {op.kind!r}: a harness-only fault with no upstream hook')
    ex = Execution(mb, sc, schedule, mutants)
    ctx = ex.ctx
    previous = mb.faults.set_hook(ex.barrier_hook)
    threads = [threading.Thread(target=_thread_body, args=(ex, n), daemon=True) for n in sc.names]
    violation = None
    try:
        for n, t in zip(sc.names, threads):  # the prologue: each actor up to its first point, in order
            t.start()
            ctx.go[n].release()
            ctx.back.acquire()
            if n in ctx.exception:
                violation = 'actor-exception'
                break
        quiescent = False
        while violation is None:
            cands = [n for n in sc.names if ctx.runnable(n)]
            if not cands:
                if any(ctx.state[n] == 'blocked' for n in sc.names):
                    violation = 'no-deadlock'
                else:
                    quiescent = True
                break
            if len(ctx.steps) >= ctx.max_steps:
                violation = 'steps-bounded'
                break
            if ctx.pos >= len(ctx.schedule):
                break  # allocsim stopped here: an invariant fired after the last step
            kind, pick = ctx.schedule[ctx.pos]
            if kind != 'actor' or pick not in cands:
                raise Divergence(f'choice {ctx.pos}: schedule wants {kind} {pick}, runnable: {cands}')
            ctx.pos += 1
            pk, what, detail = ctx.point_of[pick]
            ctx.steps.append([pick, pk, what, detail])
            ctx.go[pick].release()
            ctx.back.acquire()
            if pick in ctx.crashed and not any(c[0] == pick for c in ctx.crashes):
                ctx.crashes.append([pick, len(ctx.steps) - 1, ctx.crashed[pick]])
                ctx.note(f'crashed={ctx.crashed[pick]}')
            if ctx.fatal is not None:
                raise ctx.fatal
            if pick in ctx.exception:
                violation = 'actor-exception'
                break
        if ctx.pos != len(ctx.schedule):
            raise Divergence(f'the execution ended with {len(ctx.schedule) - ctx.pos} choice(s) of the schedule left')
        if ctx.fatal is not None:
            raise ctx.fatal
        return record_execution(ex, schedule, quiescent, violation)
    finally:
        ctx.aborting = True
        for n, t in zip(sc.names, threads):
            if t.is_alive():
                ctx.go[n].release()
                t.join()
        mb.faults.set_hook(previous)
