'''
One execution of an allocsim scenario on the upstream Python backend, along a schedule allocsim printed, with
allocsim's own harness semantics (backend/system/backend_world.h), producing allocsim's comparable record
(backend/system/record.h).

Scheduling: one thread per actor, exactly one running at a time; control changes hands only at allocsim's
scheduling points: before every backend call (Call), at every ``faults.barrier`` (Barrier), and at a contended
acquire of the backend lock (LockWait; upstream's ``self._lock`` is replaced by a simulated re-entrant lock
whose waiter parks until the holder lets go). The schedule names one actor per step and every fault draw.
'''
from __future__ import annotations

import _thread
import threading
from typing import Any

from scenario_file import Scenario, Op

CALL, BARRIER, LOCKWAIT = 'call', 'barrier', 'lock-wait'


class Divergence(Exception):
    '''The schedule cannot be followed on upstream (an actor that is not runnable, a draw out of range, ...).'''


class Unsupported(Exception):
    '''Upstream cannot express this execution (a fault kind or mutant with no upstream counterpart).'''


class _Abort(BaseException):
    '''Unwinds a parked actor at the end of an execution (never caught by upstream code).'''


class _Crash(BaseException):
    def __init__(self, where: str) -> None:
        super().__init__(where)
        self.where = where


class InjectedError(Exception):
    pass


def parse_schedule(text: str, names: list[str]) -> list[tuple[str, Any]]:
    '''sim/schedule.h's v1 grammar: ("actor", name) and ("draw", value) choices.'''
    if not text.startswith('v1:'):
        raise Divergence(f'schedule {text!r}: expected the v1: prefix')
    out: list[tuple[str, Any]] = []
    body = text[3:]
    for item in body.split(',') if body else []:
        head, _, count = item.partition('*')
        n = int(count) if count else 1
        if head.startswith('#'):
            out += [('draw', int(head[1:]))] * n
        elif head.startswith('@'):
            out += [('actor', names[int(head[1:])])] * n
        else:
            if head not in names:
                raise Divergence(f'schedule names no actor {head!r}')
            out += [('actor', head)] * n
    return out


class Handoff:
    '''A semaphore of 0 or 1 on a raw lock, for the strict turn-taking between the engine and one actor thread:
    threading.Semaphore waits on a Condition written in Python, and these handoffs were most of the stage's time.
    A release while already released (an aborted actor's last one, which nobody waits for) is a no-op.'''

    def __init__(self) -> None:
        self._lock = _thread.allocate_lock()
        self._lock.acquire()

    def acquire(self) -> None:
        self._lock.acquire()

    def release(self) -> None:
        if self._lock.locked():
            self._lock.release()


class Ctx:
    '''The engine side: parks and resumes actor threads, follows the schedule, records steps.'''

    def __init__(self, names: list[str], schedule: list[tuple[str, Any]], max_steps: int) -> None:
        self.names = names
        self.schedule = schedule
        self.pos = 0
        self.max_steps = max_steps
        self.steps: list[list[Any]] = []  # [actor, kind, what, detail]
        self.crashes: list[list[Any]] = []
        self.go = {n: Handoff() for n in names}
        self.back = Handoff()
        self.state = {n: 'new' for n in names}  # new | point | blocked | done
        self.point_of: dict[str, tuple[str, str, str]] = {}
        self.waiting: dict[str, 'SimLock'] = {}
        self.crashed: dict[str, str] = {}
        self.exception: dict[str, str] = {}
        self.aborting = False
        self.fatal: Exception | None = None  # a Divergence or Unsupported raised inside an actor
        self.local = threading.local()

    def me(self) -> str:
        return self.local.name

    def _park(self) -> None:
        me = self.me()
        self.back.release()
        self.go[me].acquire()
        if self.aborting:
            raise _Abort()

    def point(self, kind: str, what: str, detail: str = '') -> None:
        me = self.me()
        self.state[me], self.point_of[me] = 'point', (kind, what, detail)
        self._park()

    def wait_for(self, lock: 'SimLock') -> None:
        me = self.me()
        holder = lock.holder
        self.state[me], self.waiting[me] = 'blocked', lock
        self.point_of[me] = (LOCKWAIT, 'lock.wait', f'held by {holder}' if holder is not None else '')
        self._park()
        self.waiting.pop(me, None)

    def draw(self, bound: int) -> int:
        if self.pos >= len(self.schedule) or self.schedule[self.pos][0] != 'draw':
            raise Divergence(f'choice {self.pos}: upstream draws (bound {bound}), the schedule has '
                             f'{self.schedule[self.pos] if self.pos < len(self.schedule) else "no choice left"}')
        value = self.schedule[self.pos][1]
        if value >= bound:
            raise Divergence(f'choice {self.pos}: draw {value} outside [0, {bound})')
        self.pos += 1
        return value

    def note(self, text: str) -> None:
        if self.steps:
            d = self.steps[-1][3]
            self.steps[-1][3] = f'{d} {text}' if d else text

    def runnable(self, n: str) -> bool:
        s = self.state[n]
        return s == 'point' or (s == 'blocked' and self.waiting[n].holder is None)


class SimLock:
    '''A re-entrant lock between actors; a contended acquire is a LockWait scheduling point.'''

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.holder: str | None = None
        self.depth = 0

    def acquire(self) -> None:
        me = self.ctx.me()
        while self.holder is not None and self.holder != me:
            self.ctx.wait_for(self)
        self.holder = me
        self.depth += 1

    def release(self) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.holder = None

    def __enter__(self) -> 'SimLock':
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()


class PerActorIds:
    '''``next(self._ids)`` answered per actor: "<actor>-<n>", so upstream's ids read "claim-flowA-2"
    (backend/system/backend_world.h).'''

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.counters = {n: 0 for n in ctx.names}

    def __iter__(self) -> 'PerActorIds':
        return self

    def __next__(self) -> str:
        me = self.ctx.me()
        self.counters[me] += 1
        return f'{me}-{self.counters[me]}'
