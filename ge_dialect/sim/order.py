"""The order an `npu` program's tasks start in, and its deadlock if it has one.

Each stream runs its tasks in issue order; a wait lets its stream go on once its event has
been recorded (an event stays recorded: ids are unique per program, as the lowering numbers
them).  `start_order` picks, among the tasks that may start, the one issued first, until
every task has run, or none may start: then the program deadlocks, and the finding names
every blocked stream, the wait it is blocked at and why (an event never recorded by any
task, or recorded only behind another blocked stream's wait: a cycle).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ge_dialect.sim.program import Program, Task
from ge_dialect.utils import task_order
from ge_dialect.utils.errors import GeError


@dataclass(frozen=True)
class Finding:
    """Something wrong the simulator found: `kind` is "deadlock" (`start_order`) or "race"
    (`sim.checker`); `tasks` are the task indices involved."""

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
        if task.kind == "record":
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
