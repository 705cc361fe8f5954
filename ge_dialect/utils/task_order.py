"""Orders and happens-before of a task list on streams with events (no IR).

A task list is three parallel sequences: the stream of each task, its kind ("record",
"wait" or anything else) and its event (records and waits; ignored otherwise).  Each stream
runs its tasks in list order; a wait may start once its event has been recorded (an event
stays recorded).  Used by the simulator (start order, deadlocks) and by `plan-memory`
(which buffer's lifetime ends before which begins).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence


def start_order(
    streams: Sequence[int], kinds: Sequence[str], events: Sequence[int]
) -> tuple[list[int], dict[int, int]]:
    """The tasks in an order the streams and events allow, always the earliest-listed task
    that may start; and, when some cannot start (a deadlock), the position in the list of
    the task each stuck stream is blocked at (`{}` when every task ran)."""
    queues: dict[int, list[int]] = {}
    for index, s in enumerate(streams):
        queues.setdefault(s, []).append(index)
    position = dict.fromkeys(queues, 0)
    recorded: set[int] = set()
    blocked_on: dict[int, list[int]] = {}  # event -> streams whose head waits for it
    ready: list[int] = []

    def offer(s: int) -> None:
        if position[s] < len(queues[s]):
            head = queues[s][position[s]]
            if kinds[head] == "wait" and events[head] not in recorded:
                blocked_on.setdefault(events[head], []).append(s)
            else:
                heapq.heappush(ready, head)

    for s in queues:
        offer(s)
    order: list[int] = []
    while ready:
        index = heapq.heappop(ready)
        order.append(index)
        if kinds[index] == "record" and events[index] not in recorded:
            recorded.add(events[index])
            for s in blocked_on.pop(events[index], []):
                heapq.heappush(ready, queues[s][position[s]])
        s = streams[index]
        position[s] += 1
        offer(s)
    stuck = {s: queues[s][position[s]] for s in sorted(queues) if position[s] < len(queues[s])}
    return order, stuck


def vector_clocks(
    order: Sequence[int], streams: Sequence[int], kinds: Sequence[str], events: Sequence[int]
) -> tuple[list[int], list[tuple[int, ...]]]:
    """The streams (sorted; clock component `k` is stream `lanes[k]`) and each task's vector
    clock, replaying `order` (a `start_order`): a task increments its stream's component, a
    wait joins its event's clock, a record publishes its stream's clock.  Task `a`
    happens before task `b` iff `clock[a][k] <= clock[b][k]` where `k` is `a`'s stream
    (and a != b)."""
    lanes = sorted(set(streams))
    lane = {s: k for k, s in enumerate(lanes)}
    now = {s: [0] * len(lanes) for s in lanes}
    published: dict[int, list[int]] = {}
    clocks: list[tuple[int, ...]] = [()] * len(streams)
    for index in order:
        s = streams[index]
        clock = now[s]
        clock[lane[s]] += 1
        if kinds[index] == "wait" and events[index] in published:
            other = published[events[index]]
            for k, value in enumerate(other):
                if value > clock[k]:
                    clock[k] = value
        elif kinds[index] == "record" and events[index] not in published:
            published[events[index]] = list(clock)
        clocks[index] = tuple(clock)
    return lanes, clocks
