"""The race checker: read-after-write, write-after-read and write-after-write between tasks
that no stream order or event orders.

**Happens-before.**  Streams are threads (FastTrack, Flanagan & Freund, PLDI 2009): each
stream has a vector clock (a list of ints indexed by the stream's position in
`Program.streams`); a record releases its stream's clock into its event (an event stays
recorded once recorded: the first record counts, `task_order.Events`) and then ticks the
stream's own entry; a wait acquires its event's clock (a join).  A task's *epoch* is
(stream position, its stream's own clock, task index).  An epoch (s, c, _) happens before
a task of stream t iff `c <= clock[t][s]`.  Program inputs and weights count as written at
epoch (0, 0) by a virtual task that happens before every task (own clocks start at 1).

**Shadow memory.**  Per root buffer, an interval map of byte segments (`bounds`, the sorted
segment starts with the root's size at the end, and one state per segment), each state the
last write's epoch (or None) and the reads since it: None, one epoch while the reads are
totally ordered, or a dict stream -> (clock, task) when concurrent reads share the bytes.
An access touches only the segments it overlaps, splitting a segment on a partial overlap;
a write leaves one segment (its own epoch, no reads) over its whole range.  A task reads
its `inputs` and writes its `outputs` (a copy: its source, its dest); records and waits
touch no memory; weights are never written, so reads of them are not tracked.

**Findings.**  Each distinct (kind, earlier task, later task) once, `Finding("race",
message, (earlier, later))`, sorted by later task, then earlier, then kind (RAW, WAR, WAW).
"Earlier" is the access first in `order` (the simulated start order).  The message names the
bytes (the extent, in the first root where the pair races, of the bytes they race on), both
tasks, their streams and locations:

    race: read-after-write on bytes [0, 16) of allocation 0: launch 'relu' on stream 1
    (p.mlir:7:3) reads what launch 'relu' on stream 0 (p.mlir:6:3) writes, and no event
    orders them

(one line; "X writes what Y reads" for a write-after-read, "X writes what Y writes too" for
a write-after-write; buffers are named by `buffer_names`).  A wait whose event nothing
recorded is `start_order`'s deadlock, not a finding here: its stream's later tasks are not
replayed.  `order` may hold a wait before its record (the timed order places a wait where
its stream reached it): the replay moves the wait, and its stream's later tasks, after the
record (`order.after_records`).

Cost: linear in the accesses times the segments each touches, plus the number of streams per
wait (the join).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

import numpy as np

from ge_dialect.sim.order import Finding, after_records
from ge_dialect.sim.program import ALLOC, INPUT, OUTPUT, WEIGHT, Buffer, Program, Task
from ge_dialect.utils.task_order import RECORD, WAIT, Events

RAW, WAR, WAW = "read-after-write", "write-after-read", "write-after-write"
_RANK = {RAW: 0, WAR: 1, WAW: 2}
_VERB = {RAW: ("reads", "writes"), WAR: ("writes", "reads"), WAW: ("writes", "writes too")}

_VIRTUAL = (0, 0, -1)
"""The epoch of the virtual task that writes the program's inputs and weights."""

Epoch = tuple[int, int, int]
"""(stream position, its stream's own clock, task index)."""

Extent = tuple[int, int, int, list[int], list[list[Any]]]
"""A tracked buffer's bytes: (root, lo, hi) and its root's segment starts and states."""


def check(program: Program, order: Sequence[int]) -> list[Finding]:
    """The races of `program` when its tasks start in `order` (a start order its streams and
    events allow, e.g. the simulated one), as located findings."""
    replay = _Replay(program)
    run = replay.run
    tasks = program.tasks
    for index in after_records(program, order):
        run(tasks[index])
    return _findings(program, replay.found)


class _Replay:
    """The replay's state: each stream's vector clock, what each event's first record
    released (`task_order.Events`), the shadow memory and the races found so far."""

    __slots__ = ("position", "clocks", "released", "extents", "found")

    def __init__(self, program: Program):
        self.position = {s: i for i, s in enumerate(program.streams)}
        n = max(len(self.position), 1)
        self.clocks = [[1 if i == j else 0 for j in range(n)] for i in range(n)]
        self.released: Events[int, list[int], None] = Events()
        self.extents = _shadow_memory(program.buffers)
        self.found: dict[tuple[str, int, int], list[int]] = {}  # key -> [root, lo, hi]

    def run(self, task: Task) -> None:
        """Replays one task: a record, a wait, or a task that reads its inputs and then
        writes its outputs."""
        t = self.position[task.stream]
        clock = self.clocks[t]
        kind = task.kind
        if kind == RECORD:
            self.released.record(task.event, clock[:])
            clock[t] += 1
        elif kind == WAIT:
            other = self.released.get(task.event)
            if other is not None:
                self.clocks[t] = [a if a >= b else b for a, b in zip(clock, other, strict=True)]
        else:
            epoch = (t, clock[t], task.index)
            extents = self.extents
            for i in task.inputs:
                where = extents[i]
                if where is not None:
                    self._read(where, clock, epoch)
            for i in task.outputs:
                where = extents[i]
                if where is not None:
                    self._write(where, clock, epoch)

    def _read(self, where: Extent, clock: list[int], epoch: Epoch) -> None:
        """A read of bytes [lo, hi) of `root`: a race with an unordered last write; the read
        joins the segment's reads (one epoch while they are ordered, else one per stream)."""
        root, lo, hi, bs, ss = where
        t, now, index = epoch
        a = _split(bs, ss, lo) if lo else 0  # (the first segment starts at 0)
        z = _split(bs, ss, hi) if hi < bs[-1] else len(ss)
        for k in range(a, z):
            state = ss[k]
            w, r = state
            if w is not None and w[1] > clock[w[0]]:
                self._report(RAW, w[2], index, root, max(bs[k], lo), min(bs[k + 1], hi))
            if r is None:
                state[1] = epoch
            elif type(r) is tuple:
                if r[0] == t or r[1] <= clock[r[0]]:
                    state[1] = epoch
                else:
                    state[1] = {r[0]: (r[1], r[2]), t: (now, index)}
            else:
                r[t] = (now, index)

    def _write(self, where: Extent, clock: list[int], epoch: Epoch) -> None:
        """A write of bytes [lo, hi) of `root`: a race with an unordered last write or read;
        then one segment over the written range, this write's, with no reads."""
        root, lo, hi, bs, ss = where
        index = epoch[2]
        a = _split(bs, ss, lo) if lo else 0  # (the first segment starts at 0)
        z = _split(bs, ss, hi) if hi < bs[-1] else len(ss)
        for k in range(a, z):
            w, r = ss[k]
            s_lo, s_hi = max(bs[k], lo), min(bs[k + 1], hi)
            if w is not None and w[1] > clock[w[0]]:
                self._report(WAW, w[2], index, root, s_lo, s_hi)
            if r is None:
                continue
            if type(r) is tuple:
                if r[1] > clock[r[0]]:
                    self._report(WAR, r[2], index, root, s_lo, s_hi)
            else:
                for s, (c, reader) in r.items():
                    if c > clock[s]:
                        self._report(WAR, reader, index, root, s_lo, s_hi)
        del bs[a + 1 : z]
        ss[a:z] = [[epoch, None]]

    def _report(self, kind: str, earlier: int, later: int, root: int, lo: int, hi: int) -> None:
        """Notes a race (each (kind, earlier, later) once: the extent of its bytes in the
        first root where the pair races)."""
        key = (kind, earlier, later)
        where = self.found.get(key)
        if where is None:
            self.found[key] = [root, lo, hi]
        elif where[0] == root:
            where[1] = min(where[1], lo)
            where[2] = max(where[2], hi)


def _shadow_memory(buffers: list[Buffer]) -> list[Extent | None]:
    """The shadow memory, as each buffer's `Extent` (None when not tracked: weights, empty
    buffers).  Per root buffer with bytes: its segment starts (and its end), and one state
    [write, reads] per segment: at first one segment, written by the virtual task for
    inputs and weights, unwritten otherwise."""
    segments: dict[int, tuple[list[int], list[list[Any]]]] = {}
    for b in buffers:
        if b.root == b.index and b.nbytes > 0:
            written = _VIRTUAL if b.kind in (INPUT, WEIGHT) else None
            segments[b.index] = ([0, b.nbytes], [[written, None]])
    extents: list[Extent | None] = []
    for b in buffers:
        tracked = buffers[b.root].kind != WEIGHT and b.nbytes > 0
        extents.append(
            (b.root, b.offset, b.offset + b.nbytes, *segments[b.root]) if tracked else None
        )
    return extents


def _split(bs: list[int], ss: list[list[Any]], x: int) -> int:
    """The index of the segment starting at `x` (splitting the one holding it)."""
    if x >= bs[-1]:
        return len(ss)
    i = bisect_right(bs, x) - 1
    if bs[i] == x:
        return i
    bs.insert(i + 1, x)
    w, r = ss[i]
    ss.insert(i + 1, [w, dict(r) if type(r) is dict else r])
    return i + 1


def _findings(program: Program, found: dict[tuple[str, int, int], list[int]]) -> list[Finding]:
    """The races found, as findings sorted by later task, then earlier, then kind."""
    tasks = program.tasks
    keys = sorted(found, key=lambda k: (k[2], k[1], _RANK[k[0]]))
    names = buffer_names(program) if keys else {}
    findings = []
    for key in keys:
        kind, earlier, later = key
        root, lo, hi = found[key]
        first, second = _VERB[kind]
        message = (
            f"race: {kind} on bytes [{lo}, {hi}) of {names[root]}: "
            f"{tasks[later].describe()} {first} what {tasks[earlier].describe()} {second}, "
            "and no event orders them"
        )
        findings.append(Finding("race", message, (earlier, later)))
    return findings


def buffer_names(program: Program) -> dict[int, str]:
    """Root buffers as messages name them: `input 'x'`, `output 'y'`, `the workspace` (a
    flat i8 allocation; `workspace K` when there are several), `allocation K` (the K-th other
    `npu.alloc` in issue order, from 0), `weight K` (likewise)."""
    names: dict[int, str] = {}
    count: dict[str, int] = {}
    roots = [b for b in program.buffers if b.root == b.index]
    workspaces = sum(1 for b in roots if _is_workspace(b))
    for b in roots:
        if b.kind in (INPUT, OUTPUT):
            names[b.index] = f"{b.kind} '{b.name}'"
            continue
        kind = "allocation" if b.kind == ALLOC else str(b.kind)
        what = "workspace" if _is_workspace(b) else kind
        k = count.get(what, 0)
        count[what] = k + 1
        names[b.index] = (
            "the workspace" if what == "workspace" and workspaces == 1 else f"{what} {k}"
        )
    return names


def _is_workspace(buffer: Buffer) -> bool:
    return buffer.kind == ALLOC and len(buffer.shape) == 1 and buffer.dtype == np.int8
