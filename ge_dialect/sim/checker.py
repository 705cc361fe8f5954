"""The race checker: read-after-write, write-after-read and write-after-write between tasks
that no stream order or event orders.

**Happens-before.**  Streams are threads (FastTrack, Flanagan & Freund, PLDI 2009): each
stream has a vector clock (a list of ints indexed by the stream's position in
`Program.streams`); a record releases its stream's clock into its event (an event stays
recorded once recorded: the first record counts, as in `start_order`) and then ticks the
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
record.

Cost: linear in the accesses times the segments each touches, plus the number of streams per
wait (the join).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

import numpy as np

from ge_dialect.sim.order import Finding
from ge_dialect.sim.program import Buffer, Program

RAW, WAR, WAW = "read-after-write", "write-after-read", "write-after-write"
_RANK = {RAW: 0, WAR: 1, WAW: 2}
_VERB = {RAW: ("reads", "writes"), WAR: ("writes", "reads"), WAW: ("writes", "writes too")}


def check(program: Program, order: Sequence[int]) -> list[Finding]:
    """The races of `program` when its tasks start in `order` (a start order its streams and
    events allow, e.g. the simulated one), as located findings."""
    buffers = program.buffers
    tasks = program.tasks
    position = {s: i for i, s in enumerate(program.streams)}
    n = max(len(position), 1)
    clocks = [[1 if i == j else 0 for j in range(n)] for i in range(n)]
    released: dict[int, list[int]] = {}  # event -> the clock its first record released

    # shadow memory, per root: segment starts (and the end), states [write, reads]
    bounds: dict[int, list[int]] = {}
    states: dict[int, list[list[Any]]] = {}
    virtual = (0, 0, -1)
    for b in buffers:
        if b.root == b.index and b.nbytes > 0:
            bounds[b.index] = [0, b.nbytes]
            written = virtual if b.kind in ("input", "weight") else None
            states[b.index] = [[written, None]]

    # per buffer: (root, lo, hi), None when not tracked (weights, empty buffers)
    ranges: list[tuple[int, int, int] | None] = []
    for b in buffers:
        tracked = buffers[b.root].kind != "weight" and b.nbytes > 0
        ranges.append((b.root, b.offset, b.offset + b.nbytes) if tracked else None)

    found: dict[tuple[str, int, int], list[int]] = {}  # key -> [root, lo, hi]

    def report(kind: str, earlier: int, later: int, root: int, lo: int, hi: int) -> None:
        key = (kind, earlier, later)
        where = found.get(key)
        if where is None:
            found[key] = [root, lo, hi]
        elif where[0] == root:
            where[1] = min(where[1], lo)
            where[2] = max(where[2], hi)

    def split(bs: list[int], ss: list[list[Any]], x: int) -> int:
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

    for index in _after_records(program, order):
        task = tasks[index]
        kind = task.kind
        t = position[task.stream]
        clock = clocks[t]
        if kind == "record":
            if task.event not in released:
                released[task.event] = clock[:]
            clock[t] += 1
            continue
        if kind == "wait":
            other = released.get(task.event)
            if other is not None:
                clocks[t] = [a if a >= b else b for a, b in zip(clock, other, strict=True)]
            continue
        now = clock[t]
        epoch = (t, now, index)
        for i in task.inputs:
            where = ranges[i]
            if where is None:
                continue
            root, lo, hi = where
            bs, ss = bounds[root], states[root]
            a = split(bs, ss, lo)
            z = split(bs, ss, hi)
            for k in range(a, z):
                state = ss[k]
                w, r = state
                if w is not None and w[1] > clock[w[0]]:
                    report(RAW, w[2], index, root, max(bs[k], lo), min(bs[k + 1], hi))
                if r is None:
                    state[1] = epoch
                elif type(r) is tuple:
                    if r[0] == t or r[1] <= clock[r[0]]:
                        state[1] = epoch
                    else:
                        state[1] = {r[0]: (r[1], r[2]), t: (now, index)}
                else:
                    r[t] = (now, index)
        for i in task.outputs:
            where = ranges[i]
            if where is None:
                continue
            root, lo, hi = where
            bs, ss = bounds[root], states[root]
            a = split(bs, ss, lo)
            z = split(bs, ss, hi)
            for k in range(a, z):
                w, r = ss[k]
                s_lo, s_hi = max(bs[k], lo), min(bs[k + 1], hi)
                if w is not None and w[1] > clock[w[0]]:
                    report(WAW, w[2], index, root, s_lo, s_hi)
                if r is None:
                    continue
                if type(r) is tuple:
                    if r[1] > clock[r[0]]:
                        report(WAR, r[2], index, root, s_lo, s_hi)
                else:
                    for s, (c, reader) in r.items():
                        if c > clock[s]:
                            report(WAR, reader, index, root, s_lo, s_hi)
            # one segment over the written range: this write, no reads
            del bs[a + 1 : z]
            ss[a:z] = [[epoch, None]]

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


def _after_records(program: Program, order: Sequence[int]) -> list[int]:
    """`order` with every wait moved after its event's first record, and its stream's later
    tasks with it (the timed order puts a wait at the time its stream reached it, which may
    come before the record).  The other tasks keep their order; a stream blocked at a wait
    whose event is never recorded keeps the rest of its tasks (a deadlock, reported by
    `start_order`)."""
    tasks = program.tasks
    fixed: list[int] = []
    held: dict[int, list[int]] = {}  # stream -> its tasks from a wait not yet released on
    blocked: dict[int, list[int]] = {}  # event -> streams held at a wait for it
    recorded: set[int] = set()
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
            elif task.kind == "wait" and task.event not in recorded:
                held[s] = [index]
                blocked.setdefault(task.event, []).append(s)
            else:
                fixed.append(index)
                if task.kind == "record" and task.event not in recorded:
                    recorded.add(task.event)
                    for released in blocked.pop(task.event, ()):
                        work.extend(held.pop(released))
    return fixed


def buffer_names(program: Program) -> dict[int, str]:
    """Root buffers as messages name them: `input 'x'`, `output 'y'`, `the workspace` (a
    flat i8 allocation; `workspace K` when there are several), `allocation K` (the K-th other
    `npu.alloc` in issue order, from 0), `weight K` (likewise)."""
    names: dict[int, str] = {}
    count: dict[str, int] = {}
    roots = [b for b in program.buffers if b.root == b.index]
    workspaces = sum(1 for b in roots if _is_workspace(b))
    for b in roots:
        if b.kind in ("input", "output"):
            names[b.index] = f"{b.kind} '{b.name}'"
            continue
        what = "workspace" if _is_workspace(b) else "allocation" if b.kind == "alloc" else b.kind
        k = count.get(what, 0)
        count[what] = k + 1
        names[b.index] = (
            "the workspace" if what == "workspace" and workspaces == 1 else f"{what} {k}"
        )
    return names


def _is_workspace(buffer: Buffer) -> bool:
    return buffer.kind == "alloc" and len(buffer.shape) == 1 and buffer.dtype == np.int8
