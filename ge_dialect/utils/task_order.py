"""Orders and happens-before of a task list on streams with events (no IR).

A task list is three parallel sequences: the stream of each task, its kind (a `TaskKind`:
only records and waits matter here) and its event (records and waits; ignored otherwise).
Each stream runs its tasks in list order; a wait may go on once its event has been recorded
(`Events`: the first record counts, and an event stays recorded).  Used by the simulator
(start order, deadlocks, the time model, the race checker), by `plan-memory` (which buffer's
lifetime ends before which begins) and by `assign-streams` (its deadlock-freedom check).
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar, overload

from xdsl.utils.str_enum import StrEnum


class TaskKind(StrEnum):
    """What a task does; prints (and serialises) as its value: "launch", "record", ..."""

    LAUNCH = "launch"
    RECORD = "record"
    WAIT = "wait"
    COPY = "copy"


LAUNCH, RECORD, WAIT, COPY = TaskKind.LAUNCH, TaskKind.RECORD, TaskKind.WAIT, TaskKind.COPY
"""The kinds as module constants, for the loops per task: in Python 3.11 `TaskKind.WAIT` is
a lookup through the enum's metaclass, several times slower than a module global."""

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
W = TypeVar("W")
D = TypeVar("D")

_RELEASED_NONE: tuple = ()


class Events(Generic[K, V, W]):
    """The one rule of events: a wait may go on once its event has been recorded.  The first
    record of an event counts: it publishes the event's value (what a wait then reads: a
    time, a vector clock, nothing) and the event stays recorded; a later record of it changes
    nothing.  A wait that may not go on yet leaves its waiter (a stream, say), which the
    event's first record releases.

    `K` is the event key (an event id, or a (rank, event) pair), `V` the published value,
    `W` the waiter."""

    __slots__ = ("_published", "_waiting")

    def __init__(self) -> None:
        self._published: dict[K, V] = {}
        self._waiting: dict[K, list[W]] = {}

    def record(self, event: K, value: V) -> Sequence[W]:
        """Records `event`, publishing `value`, unless it has been recorded already (then
        nothing changes).  The waiters this releases, in the order they waited."""
        if event in self._published:
            return _RELEASED_NONE
        self._published[event] = value
        return self._waiting.pop(event, _RELEASED_NONE)

    def wait(self, event: K, waiter: W) -> bool:
        """Whether a wait for `event` may go on now; when not, `waiter` waits until `event`'s
        first record releases it."""
        if event in self._published:
            return True
        self._waiting.setdefault(event, []).append(waiter)
        return False

    def recorded(self, event: K) -> bool:
        """Whether `event` has been recorded."""
        return event in self._published

    def __getitem__(self, event: K) -> V:
        """The value `event`'s first record published (KeyError if not recorded)."""
        return self._published[event]

    @overload
    def get(self, event: K) -> V | None: ...

    @overload
    def get(self, event: K, default: D) -> V | D: ...

    def get(self, event: K, default: object = None) -> object:
        """The value `event`'s first record published, `default` while it is not recorded."""
        return self._published.get(event, default)


def start_order(
    streams: Sequence[int], kinds: Sequence[TaskKind], events: Sequence[int]
) -> tuple[list[int], dict[int, int]]:
    """The tasks in an order the streams and events allow, always the earliest-listed task
    that may start; and, when some cannot start (a deadlock), the position in the list of
    the task each stuck stream is blocked at (`{}` when every task ran)."""
    queues: dict[int, list[int]] = {}
    for index, s in enumerate(streams):
        queues.setdefault(s, []).append(index)
    position = dict.fromkeys(queues, 0)
    recorded: Events[int, None, int] = Events()  # waiters: streams whose head waits
    ready: list[int] = []

    def offer(s: int) -> None:
        """Makes stream `s`'s next task ready, unless it is a wait that may not go on yet."""
        if position[s] < len(queues[s]):
            head = queues[s][position[s]]
            if kinds[head] != WAIT or recorded.wait(events[head], s):
                heapq.heappush(ready, head)

    for s in queues:
        offer(s)
    order: list[int] = []
    while ready:
        index = heapq.heappop(ready)
        order.append(index)
        if kinds[index] == RECORD:
            for s in recorded.record(events[index], None):
                heapq.heappush(ready, queues[s][position[s]])
        s = streams[index]
        position[s] += 1
        offer(s)
    stuck = {s: queues[s][position[s]] for s in sorted(queues) if position[s] < len(queues[s])}
    return order, stuck


def vector_clocks(
    order: Sequence[int],
    streams: Sequence[int],
    kinds: Sequence[TaskKind],
    events: Sequence[int],
) -> tuple[list[int], list[tuple[int, ...]]]:
    """The streams (sorted; clock component `k` is stream `lanes[k]`) and each task's vector
    clock, replaying `order` (a `start_order`): a task increments its stream's component, a
    wait joins its event's clock, a record publishes its stream's clock.  Task `a`
    happens before task `b` iff `clock[a][k] <= clock[b][k]` where `k` is `a`'s stream
    (and a != b)."""
    lanes = sorted(set(streams))
    lane = {s: k for k, s in enumerate(lanes)}
    now = {s: [0] * len(lanes) for s in lanes}
    published: Events[int, list[int], None] = Events()
    clocks: list[tuple[int, ...]] = [()] * len(streams)
    for index in order:
        s = streams[index]
        clock = now[s]
        clock[lane[s]] += 1
        kind = kinds[index]
        if kind == WAIT:
            other = published.get(events[index])
            if other is not None:
                for k, value in enumerate(other):
                    if value > clock[k]:
                        clock[k] = value
        elif kind == RECORD:
            published.record(events[index], list(clock))
        clocks[index] = tuple(clock)
    return lanes, clocks
