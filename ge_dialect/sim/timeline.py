"""What the time model computes: when each task of a program ran, on which stream, on how
many cores, and which record released which wait.

Times are exact: whole femtoseconds from the program's start (`*_fs` fields; the first task
may issue at 0), the one time base of the clock (`sim.timing`, which says why), its lower
bound, the report (`sim.report`) and the trace (`sim.trace`).  The float microseconds of
the properties (`start`, `end`, `duration`, ...) are for reading and printing only: each is
one correctly rounded division of the exact figure (`us`), so they keep its order (an
interval's `end` is never before its `start`, a makespan never below its bound).  The
report and the trace read this and nothing else of the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ge_dialect.sim.program import Program

FS_PER_US = 10**9
"""Femtoseconds per microsecond: the exact time base's unit."""


def us(fs: int) -> float:
    """An exact time (femtoseconds) as float microseconds, correctly rounded (so monotone:
    `a <= b` gives `us(a) <= us(b)`)."""
    return fs / FS_PER_US


@dataclass(frozen=True)
class Interval:
    """One task's run, in femtoseconds (the properties without `_fs` are microseconds).

    `unit` is the unit the task occupied: "cube", "vector" or "comm" for launches and
    copies (copies move bytes on the vector cores' data path), "event" for records and
    waits.  `ready_fs` is when the task could have started as far as its stream and events
    go (it may have waited for cores after that, so `start - ready` is its queueing delay;
    a wait starts when its stream reaches it, and ends `event_wait` after its event is
    recorded); `blocks` the number of blocks it was split into and `cores` the most cores
    its blocks held at once (0 for events).  `compute_fs` and `memory_fs` are a kernel
    block's time on its unit and its data movement time (the larger bounds the block), for
    the trace's args.  `core_time_fs` is what utilisation counts.
    """

    task: int
    stream: int
    unit: str
    ready_fs: int
    start_fs: int
    end_fs: int
    blocks: int = 0
    cores: int = 0
    compute_fs: int = 0
    memory_fs: int = 0
    core_time_fs: int = 0  # the sum over its blocks of the time each held a core

    @property
    def ready(self) -> float:
        return us(self.ready_fs)

    @property
    def start(self) -> float:
        return us(self.start_fs)

    @property
    def end(self) -> float:
        return us(self.end_fs)

    @property
    def duration(self) -> float:
        return us(self.end_fs - self.start_fs)

    @property
    def compute(self) -> float:
        return us(self.compute_fs)

    @property
    def memory(self) -> float:
        return us(self.memory_fs)

    @property
    def core_time(self) -> float:
        return us(self.core_time_fs)


@dataclass(frozen=True)
class Flow:
    """A record that released a wait: the record's task, the wait's task, their event."""

    record: int
    wait: int
    event: int


@dataclass
class Timeline:
    """The timed run of one program on one device (`rank` of the run, 0 on one device)."""

    program: Program
    intervals: list[Interval]  # by task index: intervals[i].task == i
    flows: list[Flow] = field(default_factory=list)
    rank: int = 0
    device: str = "npu"  # the profile's name, for the trace's process name

    @property
    def makespan_fs(self) -> int:
        """When the last task ended (femtoseconds); 0 for an empty program."""
        return max((i.end_fs for i in self.intervals), default=0)

    @property
    def makespan(self) -> float:
        """`makespan_fs` in microseconds."""
        return us(self.makespan_fs)
