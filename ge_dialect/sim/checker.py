"""The memory checker: races (read-after-write, write-after-read and write-after-write
between tasks that no stream order or event orders) and clobbers (a read that sees bytes
another value wrote), on one replay of a start order.

**Happens-before.**  Streams are threads (FastTrack, Flanagan & Freund, PLDI 2009): each
stream has a vector clock (a list of ints indexed by the stream's position in
`Program.streams`); a record releases its stream's clock into its event (an event stays
recorded once recorded: the first record counts, `task_order.Events`) and then ticks the
stream's own entry; a wait acquires its event's clock (a join).  An access is tagged with its
stream s, its stream's own clock c and its task; it happens before a task of stream t iff
`c <= clock[t][s]`.  Program inputs count as written by a virtual task that happens before
every task (own clocks start at 1).

**Shadow memory.**  Per root buffer, an interval map of byte segments (`bounds`, the sorted
segment starts with the root's size at the end, and one state per segment).  A state holds
the segment's *unsettled* writes and reads, per stream a list of (clock, task) in replay
order, and the last write (`_State`).  An access is settled once it happens before every
access still to come: `c <= clock[u][s]` for every stream u with tasks left to replay (a
finished stream makes no more accesses); settled accesses are dropped as segments are
touched.  Every racing pair is found: an access races exactly with the unsettled accesses of
other streams that do not happen before it, and since one stream's clocks never decrease
those are the tail of its list (a scan from the end, one step per race).  Keeping only an
antichain (dropping an access once a later one of its kind follows it) would lose pairs: two
reads on one stream both unordered with a write on another would report the second only.
An access touches the segments it overlaps, splitting a segment on a partial overlap; a
write merges the segments it covers when their states end up equal.  A task reads its
`inputs` and then writes its `outputs` (a copy: its source, its dest); records and waits
touch no memory; weights are never written, so they are not tracked.  Cost: linear in the
accesses times the segments each touches times the streams with unsettled accesses there,
plus one step per race, plus the streams squared per record, wait and finished stream.  A
race-free program's accesses are found ordered at the first step of each scan; a program
whose streams never synchronise may have racing pairs quadratic in its tasks, each one
finding.

**Values and clobbers.**  A *value* is what a buffer means before memory planning: the chain
of `npu.view`s from a task's operand up to, not including, a workspace (a flat i8
allocation, `npu.is_workspace_type`, that no task accesses directly: a pool of bytes, as
`plan-memory` makes one), or up to its root buffer when there is no workspace.  So the
views a planner places in a workspace are distinct values, while a view of a value (a
reshape, a slice of an unplanned buffer) is that value; an i8 vector that a task writes is a
value, not a pool.  One more view is a value of its own: a launch's output that lies in the
bytes of one of its inputs (`in_place_outputs`: `scatter_update` writes its cache's new
value into the cache's own buffer), so that a read of the old cache after the update is a
clobber.  Each write records its value (the buffer index naming it) and its task
as the last write of every segment it covers, in replay order; a read of value v checks the
last write of each segment it covers.  A different value there is a *clobber*: under the
planned offsets the read sees bytes another value wrote, even when every access is ordered
(a planner that gave the bytes away too early).  No write at all there (nor the program's
inputs) is an *uninitialized* read: the simulator's zero-filled memory hides it, a device
would read whatever was left there; when the reader also races with a later write (a
write-after-read) the race is the finding, not this.  `check(..., clobber=False)`
skips both (the race checker alone).

**Findings.**  Each distinct (kind, earlier task, later task) once (an uninitialized read:
once per reader and value read), sorted by later task, then earlier, then kind (RAW, WAR,
WAW, clobber, uninitialized).  A race is
`Finding("race", message, (earlier, later))`, "earlier" the access first in `order` (the
simulated start order); the message names the bytes (the extent, in the first root where
the pair races, of the bytes they race on), both tasks, their streams and locations:

    race: read-after-write on bytes [0, 16) of allocation 0: launch 'relu' on stream 1
    (p.mlir:7:3) reads what launch 'relu' on stream 0 (p.mlir:6:3) writes, and no event
    orders them

(one line; "X writes what Y reads" for a write-after-read, "X writes what Y writes too" for
a write-after-write).  A clobber is `Finding("clobber", message, (writer, reader))`:

    clobber: launch 'add' on stream 0 (p.mlir:7:3) reads %a (the view at p.mlir:3:3) on
    bytes [0, 16) of the workspace, but launch 'sigmoid' on stream 0 (p.mlir:6:3) overwrote
    them with %b (the view at p.mlir:4:3)

and an uninitialized read `Finding("uninitialized", message, (reader,))`:

    uninitialized: launch 'relu' on stream 0 (p.mlir:3:3) reads bytes [0, 16) of
    allocation 0, which no task wrote before it

(buffers are named by `buffer_names`; a value that is a view of a workspace by its SSA name,
if the IR gives it one, and "the view at" its location).  A wait whose event nothing
recorded is `start_order`'s deadlock, not a finding here: its stream's later tasks are not
replayed.  `order` may hold a wait before
its record (the timed order places a wait where its stream reached it): the replay moves
the wait, and its stream's later tasks, after the record (`order.after_records`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

import numpy as np

from ge_dialect.sim.order import Finding, after_records
from ge_dialect.sim.program import ALLOC, INPUT, OUTPUT, VIEW, WEIGHT, Buffer, Program, Task
from ge_dialect.utils.task_order import LAUNCH, RECORD, WAIT, Events

RAW, WAR, WAW = "read-after-write", "write-after-read", "write-after-write"
CLOBBER, UNINITIALIZED = "clobber", "uninitialized"
_RANK = {RAW: 0, WAR: 1, WAW: 2, CLOBBER: 3, UNINITIALIZED: 4}
_VERB = {RAW: ("reads", "writes"), WAR: ("writes", "reads"), WAW: ("writes", "writes too")}

_State = list[Any]
"""One segment's state: [writes, reads, last].  `writes` and `reads` map a stream position
to its unsettled accesses there, [(clock, task), ...] in replay order (None when there are
none); `last` is the last write in replay order as (value, task) (task -1: the program's
input), or None while nothing wrote the segment."""

Extent = tuple[int, int, int, list[int], list[_State]]
"""A tracked buffer's bytes: (root, lo, hi) and its root's segment starts and states."""

_WRITES, _READS, _LAST = 0, 1, 2


def check(program: Program, order: Sequence[int], *, clobber: bool = True) -> list[Finding]:
    """The races of `program` when its tasks start in `order` (a start order its streams and
    events allow, e.g. the simulated one) and, with `clobber`, its clobbers and uninitialized
    reads, as located findings (module docstring)."""
    tasks = program.tasks
    replayed = after_records(program, order)
    replay = _Replay(program, replayed, clobber)
    run = replay.run
    for index in replayed:
        run(tasks[index])
    return _findings(program, replay)


class _Replay:
    """The replay's state: each stream's vector clock, what each event's first record
    released (`task_order.Events`), each stream's tasks left and the clocks below which
    accesses are settled, the shadow memory, each buffer's value, and what was found."""

    __slots__ = (
        "position",
        "clocks",
        "released",
        "left",
        "settled",
        "extents",
        "values",
        "races",
        "clobbers",
        "unwritten",
    )

    def __init__(self, program: Program, replayed: Sequence[int], clobber: bool):
        self.position = {s: i for i, s in enumerate(program.streams)}
        n = max(len(self.position), 1)
        self.clocks = [[1 if i == j else 0 for j in range(n)] for i in range(n)]
        self.released: Events[int, list[int], None] = Events()
        self.left = [0] * n
        for index in replayed:
            self.left[self.position[program.tasks[index].stream]] += 1
        self.settled = [0] * n
        self._settle()
        self.extents = _shadow_memory(program.buffers)
        self.values: list[int] | None = buffer_values(program) if clobber else None
        self.races: dict[tuple[str, int, int], list[int]] = {}  # key -> [root, lo, hi]
        # (reader, writer) -> [root, lo, hi, value read, value written]
        self.clobbers: dict[tuple[int, int], list[int]] = {}
        self.unwritten: dict[tuple[int, int], list[int]] = {}  # (reader, value) -> [root, lo, hi]

    def _settle(self) -> None:
        """Per stream s, the clock up to which its accesses are settled: the least
        `clock[u][s]` over the streams u with tasks left."""
        active = [c for c, n in zip(self.clocks, self.left, strict=True) if n]
        if active:
            self.settled = [min(column) for column in zip(*active, strict=True)]

    def run(self, task: Task) -> None:
        """Replays one task: a record, a wait, or a task that reads its inputs and then
        writes its outputs."""
        t = self.position[task.stream]
        clock = self.clocks[t]
        kind = task.kind
        self.left[t] -= 1
        if kind == RECORD:
            self.released.record(task.event, clock[:])
            clock[t] += 1
            self._settle()
            return
        if kind == WAIT:
            other = self.released.get(task.event)
            if other is not None:
                self.clocks[t] = [a if a >= b else b for a, b in zip(clock, other, strict=True)]
            self._settle()
            return
        entry = (clock[t], task.index)
        extents = self.extents
        values = self.values
        for i in task.inputs:
            where = extents[i]
            if where is not None:
                self._read(where, clock, t, entry, -1 if values is None else values[i])
        for i in task.outputs:
            where = extents[i]
            if where is not None:
                self._write(where, clock, t, entry, -1 if values is None else values[i])
        if not self.left[t]:
            self._settle()

    def _read(
        self, where: Extent, clock: list[int], t: int, entry: tuple[int, int], value: int
    ) -> None:
        """A read of bytes [lo, hi) of `root` by value `value` (-1: no clobber check): a race
        with each unsettled write it is not ordered after; then it joins the reads."""
        root, lo, hi, bs, ss = where
        index = entry[1]
        a = _split(bs, ss, lo) if lo else 0  # (the first segment starts at 0)
        z = _split(bs, ss, hi) if hi < bs[-1] else len(ss)
        settled = self.settled
        for k in range(a, z):
            state = ss[k]
            writes = state[_WRITES]
            if writes is not None and _prune(state, _WRITES, settled):
                for earlier in _racing(writes, clock, t):
                    self._report(RAW, earlier, index, root, max(bs[k], lo), min(bs[k + 1], hi))
            reads = state[_READS]
            if reads is not None and _prune(state, _READS, settled):
                mine = reads.get(t)
                if mine is None:
                    reads[t] = [entry]
                elif mine[-1] != entry:
                    mine.append(entry)
            else:
                state[_READS] = {t: [entry]}
            if value >= 0:
                last = state[_LAST]
                if last is None or (last[0] != value and last[1] >= 0):
                    self._note_value(last, index, value, root, max(bs[k], lo), min(bs[k + 1], hi))

    def _write(
        self, where: Extent, clock: list[int], t: int, entry: tuple[int, int], value: int
    ) -> None:
        """A write of bytes [lo, hi) of `root` for value `value`: a race with each unsettled
        write and read it is not ordered after; then it joins the writes and is the last
        write of the range, whose segments merge when their states are equal."""
        root, lo, hi, bs, ss = where
        index = entry[1]
        a = _split(bs, ss, lo) if lo else 0  # (the first segment starts at 0)
        z = _split(bs, ss, hi) if hi < bs[-1] else len(ss)
        settled = self.settled
        last = (value, index)
        for k in range(a, z):
            state = ss[k]
            for slot, kind in ((_WRITES, WAW), (_READS, WAR)):
                accesses = state[slot]
                if accesses is not None and _prune(state, slot, settled):
                    for earlier in _racing(accesses, clock, t):
                        s_lo, s_hi = max(bs[k], lo), min(bs[k + 1], hi)
                        self._report(kind, earlier, index, root, s_lo, s_hi)
            writes = state[_WRITES]
            if writes is None:
                state[_WRITES] = {t: [entry]}
            else:
                mine = writes.get(t)
                if mine is None:
                    writes[t] = [entry]
                elif mine[-1] != entry:
                    mine.append(entry)
            state[_LAST] = last
        if z - a > 1:
            first = ss[a]
            if all(ss[k] == first for k in range(a + 1, z)):
                del bs[a + 1 : z]
                del ss[a + 1 : z]

    def _report(self, kind: str, earlier: int, later: int, root: int, lo: int, hi: int) -> None:
        """Notes a race (each (kind, earlier, later) once: the extent of its bytes in the
        first root where the pair races)."""
        key = (kind, earlier, later)
        where = self.races.get(key)
        if where is None:
            self.races[key] = [root, lo, hi]
        elif where[0] == root:
            where[1] = min(where[1], lo)
            where[2] = max(where[2], hi)

    def _note_value(
        self, last: tuple[int, int] | None, reader: int, value: int, root: int, lo: int, hi: int
    ) -> None:
        """Notes a read of `value` whose bytes [lo, hi) of `root` were last written for
        another value (`last`: (value, writer)) or never (`last` None): a clobber per
        (reader, writer), an uninitialized read per (reader, value), each with the extent
        of its bytes in the first root where it happens."""
        if last is None:
            where = self.unwritten.setdefault((reader, value), [root, lo, hi])
        else:
            where = self.clobbers.setdefault((reader, last[1]), [root, lo, hi, value, last[0]])
        if where[0] == root:
            where[1] = min(where[1], lo)
            where[2] = max(where[2], hi)


def _prune(state: _State, slot: int, settled: list[int]) -> bool:
    """Drops the settled accesses of `state[slot]` (the slot becomes None when none is
    left); whether some are left."""
    accesses = state[slot]
    for s in list(accesses):
        entries = accesses[s]
        floor = settled[s]
        if entries[0][0] <= floor:
            if entries[-1][0] <= floor:
                del accesses[s]
            else:
                entries[:] = [e for e in entries if e[0] > floor]
    if accesses:
        return True
    state[slot] = None
    return False


def _racing(accesses: dict[int, list[tuple[int, int]]], clock: list[int], t: int) -> list[int]:
    """The tasks of `accesses` (per stream, in replay order) that a task of stream `t` at
    `clock` is not ordered after: of each other stream, the tail with clocks beyond what
    `clock` has seen of it (accesses of stream t itself always are ordered)."""
    racing: list[int] = []
    for s, entries in accesses.items():
        if s != t:
            seen = clock[s]
            j = len(entries)
            while j and entries[j - 1][0] > seen:
                j -= 1
                racing.append(entries[j][1])
    return racing


def _shadow_memory(buffers: list[Buffer]) -> list[Extent | None]:
    """The shadow memory, as each buffer's `Extent` (None when not tracked: weights, empty
    buffers).  Per root buffer with bytes: its segment starts (and its end), and one state
    per segment: at first one segment, with no accesses, its last write the virtual task's
    for inputs (their own value), none otherwise."""
    segments: dict[int, tuple[list[int], list[_State]]] = {}
    for b in buffers:
        if b.root == b.index and b.nbytes > 0:
            last = (b.index, -1) if b.kind == INPUT else None
            segments[b.index] = ([0, b.nbytes], [[None, None, last]])
    extents: list[Extent | None] = []
    for b in buffers:
        tracked = buffers[b.root].kind != WEIGHT and b.nbytes > 0
        extents.append(
            (b.root, b.offset, b.offset + b.nbytes, *segments[b.root]) if tracked else None
        )
    return extents


def _split(bs: list[int], ss: list[_State], x: int) -> int:
    """The index of the segment starting at `x` (splitting the one holding it)."""
    if x >= bs[-1]:
        return len(ss)
    i = bisect_right(bs, x) - 1
    if bs[i] == x:
        return i
    bs.insert(i + 1, x)
    w, r, last = ss[i]
    ss.insert(i + 1, [_copy(w), _copy(r), last])
    return i + 1


def _copy(accesses: dict[int, list[tuple[int, int]]] | None) -> Any:
    return None if accesses is None else {s: entries[:] for s, entries in accesses.items()}


def buffer_values(program: Program) -> list[int]:
    """Each buffer's value (module docstring), as the index of the buffer naming it: a view
    of a workspace names itself, and so does a launch's in-place output (`in_place_outputs`),
    another view its source's value, a root buffer itself."""
    accessed = {i for task in program.tasks for i in (*task.inputs, *task.outputs)}
    updated = in_place_outputs(program)
    values: list[int] = []
    for b in program.buffers:  # (a view comes after its source)
        source = b.source
        if source is None:
            values.append(b.index)
            continue
        pool = program.buffers[source]
        if (pool.kind == ALLOC and _is_workspace(pool) and source not in accessed) or (
            b.index in updated
        ):
            values.append(b.index)
        else:
            values.append(values[source])
    return values


def in_place_outputs(program: Program) -> set[int]:
    """The views a launch writes in the bytes of one of its own inputs (same root buffer):
    an in-place update (`scatter_update`'s output is a view of its cache).  Such a view is a
    value of its own: the launch leaves a new value in the old one's bytes, so a later read
    of the old value through any other buffer is a clobber."""
    buffers = program.buffers
    updated: set[int] = set()
    for task in program.tasks:
        if task.kind == LAUNCH:
            roots = {buffers[i].root for i in task.inputs}
            updated.update(
                o for o in task.outputs if buffers[o].kind == VIEW and buffers[o].root in roots
            )
    return updated


def _findings(program: Program, replay: _Replay) -> list[Finding]:
    """The races, clobbers and uninitialized reads found, as findings sorted by later task,
    then earlier, then kind."""
    tasks = program.tasks
    races = replay.races
    keyed: list[tuple[tuple[int, int, int, int], Any]] = []
    for kind, earlier, later in races:
        keyed.append(((later, earlier, _RANK[kind], 0), (kind, earlier, later)))
    for reader, writer in replay.clobbers:
        keyed.append(((reader, writer, _RANK[CLOBBER], 0), (CLOBBER, writer, reader)))
    war_readers = {earlier for kind, earlier, _ in races if kind == WAR}
    for reader, value in replay.unwritten:
        if reader not in war_readers:  # the race is the finding
            keyed.append(((reader, -1, _RANK[UNINITIALIZED], value), (reader, value)))
    keyed.sort(key=lambda item: item[0])
    names = buffer_names(program) if keyed else {}
    findings = []
    for _, key in keyed:
        if len(key) == 2:
            reader, value = key
            root, lo, hi = replay.unwritten[key]
            message = (
                f"{UNINITIALIZED}: {tasks[reader].describe()} reads "
                f"{_subject(program, value, root)}bytes [{lo}, {hi}) of {names[root]}, which "
                "no task wrote before it"
            )
            findings.append(Finding(UNINITIALIZED, message, (reader,)))
        elif key[0] == CLOBBER:
            _, writer, reader = key
            root, lo, hi, read, written = replay.clobbers[reader, writer]
            message = (
                f"{CLOBBER}: {tasks[reader].describe()} reads {_subject(program, read, root)}"
                f"bytes [{lo}, {hi}) of {names[root]}, but {tasks[writer].describe()} "
                f"overwrote them with {_value_name(program, written, names)}"
            )
            findings.append(Finding(CLOBBER, message, (writer, reader)))
        else:
            kind, earlier, later = key
            root, lo, hi = races[key]
            first, second = _VERB[kind]
            message = (
                f"race: {kind} on bytes [{lo}, {hi}) of {names[root]}: "
                f"{tasks[later].describe()} {first} what {tasks[earlier].describe()} {second}, "
                "and no event orders them"
            )
            findings.append(Finding("race", message, (earlier, later)))
    return findings


def _subject(program: Program, value: int, root: int) -> str:
    """The words naming a value read in `root`: nothing for the root itself, else
    "the view at LOC on "."""
    return "" if value == root else f"{_value_name(program, value, {})} on "


def _value_name(program: Program, value: int, names: dict[int, str]) -> str:
    """A value as messages name it: a view by its SSA name and location (`%a, the view at
    LOC`, or "the view at LOC" when it has no name), a root buffer by `names`."""
    buffer = program.buffers[value]
    if buffer.kind != VIEW:
        return names[value]
    where = f"the view at {buffer.location}"
    return f"{buffer.label} ({where})" if buffer.label else where


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
