"""The order an `npu` program's tasks start in, and its deadlock if it has one.

Each stream runs its tasks in issue order; a wait lets its stream go on once its event has
been recorded (`ge_dialect.utils.task_order.Events`: the first record counts, an event
stays recorded; ids are unique per program, as the lowering numbers them).  `start_order`
picks, among the tasks that may start, the one issued first, until every task has run, or
none may start: then the program deadlocks, and the finding names every blocked stream, the
wait it is blocked at and why (an event never recorded by any task, or recorded only behind
another blocked stream's wait: a cycle).  `after_records` makes any order of the tasks one
the events allow (each wait, and its stream's later tasks, moved after the record).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ge_dialect.sim.program import Program, Task
from ge_dialect.utils import task_order
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.task_order import RECORD, WAIT, Events


@dataclass(frozen=True)
class Finding:
    """Something wrong the simulator found: `kind` is "deadlock" (`start_order`), or "race",
    "clobber" or "uninitialized" (`sim.checker`); `tasks` are the task indices involved."""

    kind: str
    message: str
    tasks: tuple[int, ...] = ()


class SimulationError(GeError):
    """A program that cannot run to its end (a deadlock); `findings` says why."""

    def __init__(self, findings: list[Finding]):
        self.findings = findings
        super().__init__("\n".join(f"error: {f.message}" for f in findings))


@dataclass
class Schedule:
    """The start order of the tasks, and the deadlock, if the program has one."""

    order: list[int]
    findings: list[Finding] = field(default_factory=list)


def start_order(program: Program) -> Schedule:
    """Tasks in an order the streams and events allow: always the earliest-issued task that
    may start (`ge_dialect.utils.task_order.start_order`).  Linear in tasks."""
    tasks = program.tasks
    order, stuck = task_order.start_order(
        [t.stream for t in tasks], [t.kind for t in tasks], [t.event for t in tasks]
    )
    return Schedule(order, [deadlock(program, stuck)] if stuck else [])


def deadlock(program: Program, stuck: dict[int, int]) -> Finding:
    """Why the streams still holding tasks cannot go on (`stuck`: stream -> the task it is
    blocked at)."""
    records: dict[int, list[Task]] = {}
    for task in program.tasks:
        if task.kind == RECORD:
            records.setdefault(task.event, []).append(task)
    reasons = []
    for s, index in sorted(stuck.items()):
        wait = program.tasks[index]
        pending = records.get(wait.event, [])
        if not pending:
            why = "which no task records"
        else:
            where = ", ".join(f"stream {r.stream}" for r in pending)
            why = f"recorded on {where} only after a task that cannot start"
        reasons.append(f"stream {s} is blocked at the {wait.describe()}: event {wait.event}, {why}")
    return Finding("deadlock", "deadlock: " + "; ".join(reasons), tuple(sorted(stuck.values())))


def after_records(program: Program, order: Sequence[int]) -> list[int]:
    """`order` with every wait moved after its event's first record, and its stream's later
    tasks with it (the timed order puts a wait at the time its stream reached it, which may
    come before the record).  The other tasks keep their order; a stream blocked at a wait
    whose event is never recorded keeps the rest of its tasks (a deadlock, reported by
    `start_order`)."""
    tasks = program.tasks
    fixed: list[int] = []
    held: dict[int, list[int]] = {}  # stream -> its tasks from a wait not yet released on
    recorded: Events[int, None, int] = Events()  # waiters: the streams held at a wait
    for first in order:
        if tasks[first].stream in held:
            held[tasks[first].stream].append(first)
            continue
        work = [first]
        k = 0
        while k < len(work):
            index = work[k]
            k += 1
            task = tasks[index]
            s = task.stream
            if s in held:
                held[s].append(index)
            elif task.kind == WAIT and not recorded.wait(task.event, s):
                held[s] = [index]
            else:
                fixed.append(index)
                if task.kind == RECORD:
                    for released in recorded.record(task.event, None):
                        work.extend(held.pop(released))
    return fixed
