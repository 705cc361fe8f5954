"""What the time model computes: when each task of a program ran, on which stream, on how
many cores, and which record released which wait.

Times are microseconds from the program's start (the first task may issue at 0).  The
report (`sim.report`) and the trace (`sim.trace`) read this and nothing else of the model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ge_dialect.sim.program import Program


@dataclass(frozen=True)
class Interval:
    """One task's run.

    `unit` is the unit the task occupied: "cube", "vector" or "comm" for launches and
    copies (copies move bytes on the vector cores' data path), "event" for records and
    waits.  `ready` is when the task could have started as far as its stream and events go
    (it may have waited for cores after that, so `start - ready` is its queueing delay);
    `blocks` the number of blocks it was split into and `cores` the most cores its blocks
    held at once (0 for events).  `compute` and `memory` are a kernel block's time on its
    unit and its data movement time (the larger bounds the block), for the trace's args.
    `core_time` is what utilisation counts.
    """

    task: int
    stream: int
    unit: str
    ready: float
    start: float
    end: float
    blocks: int = 0
    cores: int = 0
    compute: float = 0.0
    memory: float = 0.0
    core_time: float = 0.0  # the sum over its blocks of the time each held a core

    @property
    def duration(self) -> float:
        return self.end - self.start


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
    def makespan(self) -> float:
        """When the last task ended (microseconds); 0 for an empty program."""
        return max((i.end for i in self.intervals), default=0.0)
