"""--plan-memory: every activation buffer of an `npu` program into one workspace, reusing
bytes where the streams and events allow it.

**Lifetimes.**  The tasks' happens-before is stream order plus record -> wait
(`ge_dialect.utils.task_order`: vector clocks over a start order).  A buffer (an
`npu.alloc`, with the views of it) is accessed by the tasks that read or write it; buffer A
may give its bytes to buffer B only if every task that accesses A happens before the task
that first writes B.  Two buffers neither of which may follow the other *conflict* and get
disjoint bytes.  The pass never adds events: a buffer a later stream may still read is not
reused before an event says it has been.

**In place.**  An elementwise launch (activations, add/sub/mul, batch_norm, cast to a type
of the same size) writes its output into its input's bytes when the input is an
allocation of the same type, this launch is its last access, and every other access of
it happens before this launch (so no other stream still reads it).

A `scatter_update` is in place already: `--lower-to-device` makes its output a view of
the buffer it updates, so the launch is one more access of that allocation (through its
view), and the view stays a view of it once the allocation is placed in the workspace.

**Offsets.**  Sizes are physical and rounded up to `alignment` (512 bytes, as GE).
`ge_dialect.utils.offsets.assign_offsets` places the buffers given their conflicts; when
its peak is above the stream-aware bound, `search=exact` (the default) hands its placement
to the exact search (`ge_dialect.utils.offset_search.minimise_peak`, at most `budget`
work, deterministic), which lowers the peak towards the bound and proves it optimal where
it can; `search=none` keeps the heuristic's placement.  On the lowered zoo models the
heuristic already sits at the bound (the search does not run); on generated programs it
ends up to 11% above it and the search reaches the bound in well under a second
(bench/plan_search.py, test_plan_memory_search.py).  Weights stay `npu.weight` (read-only,
outside the workspace); graph inputs and outputs stay the program's arguments.

**Symmetric memory.**  In a module of rank programs (`ge.shard = {rank, ...}`, after
`--shard`), the buffers collectives read and write (a launch `hcom_*`'s inputs and
outputs that are allocations; a send's input and its receive's output count as one) sit
at the same offset on every rank, as HCCL's symmetric memory wants: a communication
region at the start of each rank's workspace holds one slot per (group, k-th collective
of the group, operand), or per (group, sender, receiver, tag, k-th message), sized by the
largest over the ranks and laid out in one sorted order, so identical on every rank (a
buffer several collectives name, say an all-reduce's output another group all-gathers,
joins their slots into one).
Those buffers are never merged in place and never share bytes; the rest are planned after
the region as on one device.  A program without `ge.shard` is planned as before.  On each
rank of a tensor-parallel MLP (`@mlp_rank0`, `@mlp_rank1`), after:

    %h = npu.view %workspace[1024] ...                 (after the region)
    %0 = npu.view %workspace[0] ...                    (slot of tp's collective 0, input 0)
    %p = npu.view %workspace[512] ...                  (slot of tp's collective 0, output 0)
    npu.launch "hcom_all_reduce"(%0) -> (%p) ...       npu.memory = {..., comm_bytes = 1024}

**Result.**  `%ws = npu.alloc : memref<Nxi8>` first in the body, every allocation replaced
by `npu.view %ws[offset]` of its type (views of it keep viewing it), and the figures as the
function attribute `npu.memory = {peak, no_reuse, sequential_bound, stream_bound, buffers,
optimal}` (bytes; `optimal` is 1 when the peak is proven optimal; rank programs add
`comm_offset` and `comm_bytes`, the region, and are judged on the part after it): the workspace
size; the sum of the allocations' aligned sizes (no reuse, no in place); the most aligned
bytes live at one point of the task list (`max_live`, as XLA's heap simulator); the heaviest
set of buffers no two of which are ordered (`max_weight_antichain` of the lifetime order,
exact by min-flow), which no plan can beat.
The bounds count the buffers after in-place merging (a launch's input and the output it
overwrites are one buffer).

Before:

    %a = npu.alloc : memref<1x1x8x8x16xf16>
    npu.launch "relu"(%x) -> (%a) stream 0 ...
    %b = npu.alloc : memref<1x1x8x8x16xf16>
    npu.launch "sigmoid"(%a) -> (%b) stream 0 ...

After:

    %ws = npu.alloc : memref<4096xi8>
    %a = npu.view %ws[0] : memref<4096xi8> -> memref<1x1x8x8x16xf16>
    npu.launch "relu"(%x) -> (%a) stream 0 ...
    %b = npu.view %ws[0] : memref<4096xi8> -> memref<1x1x8x8x16xf16>   (in place)
    npu.launch "sigmoid"(%a) -> (%b) stream 0 ...
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, MemRefType, i8, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from ge_dialect.ir.dialects import npu
from ge_dialect.utils.antichain import max_weight_antichain
from ge_dialect.utils.errors import OptionError, op_error
from ge_dialect.utils.offset_search import Outcome, minimise_peak
from ge_dialect.utils.offsets import assign_offsets, max_live
from ge_dialect.utils.task_order import (
    COPY,
    LAUNCH,
    RECORD,
    WAIT,
    TaskKind,
    start_order,
    vector_clocks,
)
from transforms import reports

IN_PLACE_KERNELS = frozenset(
    (
        "relu",
        "relu6",
        "sigmoid",
        "silu",
        "leaky_relu",
        "clip",
        "identity",
        "add",
        "sub",
        "mul",
        "batch_norm",
        "cast",
        "exp",
        "log",
        "tanh",
        "erf",
        "sqrt",
        "rsqrt",
        "neg",
        "reciprocal",
        "gelu",
        "div",
        "maximum",
        "minimum",
        "pow",
        "sin",
        "cos",
    )
)
"""Kernels that read each input element once, at the position they write: their output may
take an input's bytes."""

MEMORY = "npu.memory"
SEARCH_BUDGET = 20_000
"""Default exact-search work per program (offset_search: a node costs 1 + its buffers / 64)."""
SHARD = "ge.shard"

CommKey = tuple[str, int, int, int, int, int, int]
"""A slot of the communication region: `(group, 0, 0, 0, 0, k, operand)` for operand
`operand` (inputs first, then outputs) of the k-th collective of `group`, `(group, 1,
sender, receiver, tag, k, 0)` for the k-th message of a send/receive pair (group ranks)."""


def _buffer_bytes(alloc: npu.AllocOp) -> int:
    t = alloc.results[0].type
    assert isinstance(t, MemRefType)
    return npu.byte_size(t)


def _task_table(
    ops: list[Operation],
) -> tuple[list[Operation], list[int], list[TaskKind], list[int]]:
    """The tasks among `ops` (issue order) and their streams, kinds and events."""
    tasks: list[Operation] = []
    streams: list[int] = []
    kinds: list[TaskKind] = []
    events: list[int] = []
    for op in ops:
        if isinstance(op, npu.RecordOp | npu.WaitOp):
            kinds.append(RECORD if isinstance(op, npu.RecordOp) else WAIT)
            events.append(op.event.value.data)
            streams.append(op.stream.value.data)
        elif isinstance(op, npu.LaunchOp | npu.CopyOp):
            kinds.append(LAUNCH if isinstance(op, npu.LaunchOp) else COPY)
            events.append(-1)
            streams.append(op.stream.value.data)
        else:
            continue
        tasks.append(op)
    return tasks, streams, kinds, events


def _aligned(size: int, alignment: int) -> int:
    return -(-size // alignment) * alignment


@dataclass
class _Slot:
    """Allocations that share bytes (one, or several merged in place)."""

    allocs: list[npu.AllocOp]
    size: int
    accesses: list[int] = field(default_factory=list)  # task indices
    writes: list[int] = field(default_factory=list)


@dataclass
class _Lifetimes:
    """The tasks of a program in a start order, and their happens-before (vector clocks,
    `task_order`): task `a` happens before task `b` iff `before(a, b)`."""

    tasks: list[Operation]
    streams: list[int]
    order: list[int]
    position: dict[int, int]  # task -> its place in `order`
    lane: dict[int, int]  # stream -> its clock component
    clocks: list[tuple[int, ...]]

    def before(self, a: int, b: int) -> bool:
        """Whether task `a` happens before task `b` (stream order and events)."""
        k = self.lane[self.streams[a]]
        return a != b and self.clocks[a][k] <= self.clocks[b][k]


def _lifetimes(ops: list[Operation]) -> _Lifetimes:
    """The start order and vector clocks of the tasks among `ops` (a deadlock is an error
    at the wait that can never go on)."""
    tasks, streams, kinds, events = _task_table(ops)
    order, stuck = start_order(streams, kinds, events)
    if stuck:
        wait = tasks[min(stuck.values())]
        raise op_error(
            wait, "--plan-memory: the program deadlocks here (this wait can never go on)"
        )
    lanes, clocks = vector_clocks(order, streams, kinds, events)
    lane = {s: k for k, s in enumerate(lanes)}
    position = {t: p for p, t in enumerate(order)}
    return _Lifetimes(tasks, streams, order, position, lane, clocks)


def _accesses(op: Operation) -> list[tuple[SSAValue, bool]]:
    """The buffers a task reads (False) and writes (True)."""
    if isinstance(op, npu.LaunchOp):
        return [(v, False) for v in op.inputs] + [(v, True) for v in op.outputs]
    if isinstance(op, npu.CopyOp):
        return [(op.source, False), (op.dest, True)]
    return []


class _Planner:
    """Plans one program's buffers (`run`); keeps the pass statistics."""

    def __init__(
        self,
        fn: func.FuncOp,
        alignment: int,
        in_place: bool,
        budget: int,
        comm: _CommRegion | None = None,
    ):
        self.fn = fn
        self.alignment = alignment
        self.in_place = in_place
        self.budget = budget  # exact search work (0: the heuristic only)
        self.comm = comm  # rank programs: the communication region's layout
        self.buffers = self.reused = self.merged = 0  # the pass statistics

    def run(self) -> None:
        """Plans the program: lifetimes, in-place merges, conflicts, offsets; rewrites the
        allocations into views of the workspace and records the figures."""
        ops = list(self.fn.body.block.ops)
        life = _lifetimes(ops)
        allocs = [op for op in ops if isinstance(op, npu.AllocOp)]
        slot_of = self._slots_with_accesses(ops, allocs, life)
        fixed = self.comm.offsets(self.fn) if self.comm is not None else {}
        if self.in_place:
            self._merge_in_place(
                life.tasks, life.order, life.position, slot_of, life.before, set(fixed)
            )
        slots: list[_Slot] = []
        for alloc in allocs:
            slot = slot_of[alloc]
            if slot.allocs[0] is alloc:
                slots.append(slot)
        sizes = [s.size for s in slots]
        ordered = self._ordered(*_frontiers(slots, life))
        stream_bound, _ = max_weight_antichain(sizes, _edges(ordered))
        if self.comm is None:
            placed = self._place(sizes, ordered, stream_bound)
            offsets, peak = placed.placement.offsets, placed.placement.peak
        else:
            offsets, peak, placed = self._place_after_region(slots, ordered, fixed)
        no_reuse = sum(_aligned(_buffer_bytes(a), self.alignment) for a in allocs)
        self._rewrite(slots, offsets, peak)
        self.buffers = sum(len(s.allocs) for s in slots)
        self.merged = self.buffers - len(slots)
        self.reused = _reusing(offsets, sizes)
        figures = {
            "peak": peak,
            "no_reuse": no_reuse,
            "sequential_bound": max_live(sizes, _spans(slots), self.alignment),
            "stream_bound": stream_bound,
            "buffers": self.buffers,
            "optimal": int(placed.proven),
        }
        if self.comm is not None:
            figures |= {"comm_offset": 0, "comm_bytes": self.comm.size}
        self.fn.attributes[MEMORY] = DictionaryAttr(
            {name: IntegerAttr(value, i64) for name, value in figures.items()}
        )

    def _slots_with_accesses(
        self, ops: list[Operation], allocs: list[npu.AllocOp], life: _Lifetimes
    ) -> dict[npu.AllocOp, _Slot]:
        """A slot per allocation, with the tasks that access it (through its views), in
        start order."""
        root: dict[SSAValue, npu.AllocOp] = {}  # the allocation each buffer value lives in
        for op in ops:
            if isinstance(op, npu.AllocOp):
                root[op.results[0]] = op
            elif isinstance(op, npu.ViewOp) and op.source in root:
                root[op.results[0]] = root[op.source]
        slot_of: dict[npu.AllocOp, _Slot] = {
            alloc: _Slot([alloc], _aligned(_buffer_bytes(alloc), self.alignment))
            for alloc in allocs
        }
        for task in life.order:
            for value, write in _accesses(life.tasks[task]):
                owner = root.get(value)
                if owner is not None:
                    slot = slot_of[owner]
                    slot.accesses.append(task)
                    if write:
                        slot.writes.append(task)
        return slot_of

    def _place_after_region(
        self, slots: list[_Slot], ordered: np.ndarray, fixed: dict[npu.AllocOp, int]
    ) -> tuple[list[int], int, Outcome]:
        """Offsets and peak with the communication region first: the collectives' buffers
        at their slots' offsets (`fixed`), the others planned after the region."""
        assert self.comm is not None
        rest = [i for i, slot in enumerate(slots) if slot.allocs[0] not in fixed]
        sub = ordered[np.ix_(rest, rest)]
        sizes = [slots[i].size for i in rest]
        bound, _ = max_weight_antichain(sizes, _edges(sub))
        placed = self._place(sizes, sub, bound)
        offsets = [fixed.get(slot.allocs[0], 0) for slot in slots]
        for i, offset in zip(rest, placed.placement.offsets, strict=True):
            offsets[i] = self.comm.size + offset
        return offsets, self.comm.size + placed.placement.peak, placed

    def _place(self, sizes: list[int], ordered: np.ndarray, bound: int) -> Outcome:
        """Offsets by the heuristic, then (with a budget) by the exact search towards
        `bound`, the stream-aware bound; whether the peak is proven optimal."""
        conflicts = _conflicts(ordered)
        placement = assign_offsets(sizes, conflicts, self.alignment, lower_bound=bound)
        if placement.peak <= bound or not self.budget:
            return Outcome(placement, placement.peak <= bound, bound, 0)
        return minimise_peak(
            sizes,
            conflicts,
            self.alignment,
            start_offsets=placement.offsets,
            lower_bound=bound,
            budget=self.budget,
        )

    @staticmethod
    def _ordered(frontier: np.ndarray, writer: np.ndarray) -> np.ndarray:
        """ordered[a, b]: every access of slot a happens before slot b's first write (in
        row blocks, so that memory stays linear in slots times a block)."""
        n = frontier.shape[0]
        out = np.zeros((n, n), dtype=bool)
        step = max(1, 4_000_000 // max(1, n * max(1, frontier.shape[1])))
        for start in range(0, n, step):
            block = frontier[start : start + step, None, :] <= writer[None, :, :]
            out[start : start + step] = block.all(axis=2)
        np.fill_diagonal(out, False)
        return out

    def _merge_in_place(
        self,
        tasks: list[Operation],
        order: list[int],
        position: dict[int, int],
        slot_of: dict[npu.AllocOp, _Slot],
        happens_before: Callable[[int, int], bool],
        pinned: set[npu.AllocOp],
    ) -> None:
        """Lets an elementwise launch write into its input's slot (see the module docstring);
        the `pinned` allocations (the communication region's) are never merged."""
        for t in order:
            op = tasks[t]
            if not isinstance(op, npu.LaunchOp) or op.kernel.data not in IN_PLACE_KERNELS:
                continue
            if len(op.outputs) != 1 or not isinstance(op.outputs[0].owner, npu.AllocOp):
                continue
            out_alloc = op.outputs[0].owner
            if out_alloc in pinned:
                continue
            out_slot = slot_of[out_alloc]
            if len(out_slot.allocs) != 1 or out_slot.writes[:1] != [t]:
                continue
            for value in op.inputs:
                if (
                    not isinstance(value.owner, npu.AllocOp)
                    or value.owner in pinned
                    or value.type != out_alloc.results[0].type
                ):
                    continue
                slot = slot_of[value.owner]
                if slot is out_slot or slot.size != out_slot.size:
                    continue
                if max(slot.accesses, key=position.__getitem__) != t:
                    continue  # read again after this launch
                if not all(a == t or happens_before(a, t) for a in slot.accesses):
                    continue  # another stream may still read it
                slot.allocs.append(out_alloc)
                slot.accesses.extend(out_slot.accesses)
                slot.writes.extend(out_slot.writes)
                slot.accesses.sort(key=position.__getitem__)
                slot.writes.sort(key=position.__getitem__)
                slot_of[out_alloc] = slot
                break

    def _rewrite(self, slots: list[_Slot], offsets: list[int], peak: int) -> None:
        block = self.fn.body.block
        if not slots:
            return
        workspace = npu.AllocOp(MemRefType(i8, [max(peak, 1)]))
        workspace.results[0].name_hint = "workspace"
        block.insert_op_before(workspace, block.first_op)  # type: ignore[arg-type]
        for slot, offset in zip(slots, offsets, strict=True):
            for alloc in slot.allocs:
                t = alloc.results[0].type
                assert isinstance(t, MemRefType)
                view = npu.ViewOp(workspace.results[0], offset, t)
                view.results[0].name_hint = alloc.results[0].name_hint
                view.location = alloc.location
                block.insert_op_before(view, alloc)
                alloc.results[0].replace_all_uses_with(view.results[0])
                block.erase_op(alloc)


def _rank(fn: func.FuncOp) -> int | None:
    """The rank of a rank program (`ge.shard`'s `rank`), None otherwise."""
    shard = fn.attributes.get(SHARD)
    rank = shard.data.get("rank") if isinstance(shard, DictionaryAttr) else None
    return rank.value.data if isinstance(rank, IntegerAttr) else None


def _collectives(fn: func.FuncOp) -> list[npu.LaunchOp]:
    """The collective launches (`hcom_*`) of `fn`, in issue order."""
    return [
        op
        for op in fn.body.block.ops
        if isinstance(op, npu.LaunchOp) and op.kernel.data.startswith("hcom_")
    ]


def _launch_int(op: npu.LaunchOp, name: str) -> int:
    value = op.attrs.data.get(name)
    return value.value.data if isinstance(value, IntegerAttr) else 0


def _launch_group(op: npu.LaunchOp) -> str:
    value = op.attrs.data.get("group")
    return value.data if isinstance(value, builtin.StringAttr) else ""


class _CommRegion:
    """The communication region of a module's rank programs, laid out identically on every
    rank.  Each `CommKey` names one buffer on each rank that holds that collective; the
    buffers named by one key, and (transitively) the keys naming one buffer (a collective's
    output that another group's collective reads), form one slot: sized by the largest, at
    one offset everywhere, slots in the order of their smallest key."""

    def __init__(self, programs: list[tuple[int, func.FuncOp]], alignment: int):
        members: dict[str, list[int]] = {}  # group -> its ranks (world order)
        for rank, fn in sorted(programs, key=lambda p: p[0]):
            for op in _collectives(fn):
                ranks = members.setdefault(_launch_group(op), [])
                if rank not in ranks:
                    ranks.append(rank)
        self.members = members
        named: dict[CommKey, list[npu.AllocOp]] = {}
        for rank, fn in sorted(programs, key=lambda p: p[0]):
            for key, alloc in self._keys(rank, fn):
                named.setdefault(key, []).append(alloc)
        parent: dict[npu.AllocOp, npu.AllocOp] = {}

        def find(a: npu.AllocOp) -> npu.AllocOp:
            while parent.setdefault(a, a) is not a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        for allocs in named.values():
            for alloc in allocs[1:]:
                parent[find(alloc)] = find(allocs[0])
        first: dict[npu.AllocOp, CommKey] = {}  # slot (its root) -> its smallest key
        for key in sorted(named):
            first.setdefault(find(named[key][0]), key)
        # per slot, per program: its buffers (one, unless a program puts two in one slot:
        # then they sit side by side, and `check_symmetric` will name the difference)
        held: dict[npu.AllocOp, dict[Operation | None, list[npu.AllocOp]]] = {}
        for alloc in parent:
            held.setdefault(find(alloc), {}).setdefault(alloc.parent_op(), []).append(alloc)
        self.offset: dict[npu.AllocOp, int] = {}
        self.size = 0
        for root in sorted(first, key=first.__getitem__):
            widest = 0
            for allocs in held[root].values():
                at = self.size
                for alloc in allocs:
                    self.offset[alloc] = at
                    at += _aligned(_buffer_bytes(alloc), alignment)
                widest = max(widest, at - self.size)
            self.size += widest

    def _keys(self, rank: int, fn: func.FuncOp) -> list[tuple[CommKey, npu.AllocOp]]:
        """The keys of rank `rank`'s collective buffers, each with the allocation it names
        (of the buffer, or the one it views); arguments are the caller's and take none."""
        keys: list[tuple[CommKey, npu.AllocOp]] = []
        seq: dict[str, int] = {}
        messages: dict[tuple[str, int, int, int], int] = {}
        for op in _collectives(fn):
            group = _launch_group(op)
            kernel = op.kernel.data
            if kernel in ("hcom_send", "hcom_receive"):
                me = self.members[group].index(rank)
                tag = _launch_int(op, "sr_tag")
                src, dst = (
                    (me, _launch_int(op, "dest_rank"))
                    if kernel == "hcom_send"
                    else (_launch_int(op, "src_rank"), me)
                )
                k = messages.get((group, src, dst, tag), 0)
                messages[(group, src, dst, tag)] = k + 1
                values = [*op.inputs, *op.outputs][:1]
                named = [((group, 1, src, dst, tag, k, 0), v) for v in values]
            else:
                k = seq.get(group, 0)
                seq[group] = k + 1
                values = [*op.inputs, *op.outputs]
                named = [((group, 0, 0, 0, 0, k, i), v) for i, v in enumerate(values)]
            for key, value in named:
                owner = value.owner
                while isinstance(owner, npu.ViewOp):  # a view's bytes are its allocation's
                    owner = owner.source.owner
                if isinstance(owner, npu.AllocOp):
                    keys.append((key, owner))
        return keys

    def offsets(self, fn: func.FuncOp) -> dict[npu.AllocOp, int]:
        """The allocations of rank program `fn` that sit in the region, at their slots."""
        return {
            op: self.offset[op]
            for op in fn.body.block.ops
            if isinstance(op, npu.AllocOp) and op in self.offset
        }


def _frontiers(slots: list[_Slot], life: _Lifetimes) -> tuple[np.ndarray, np.ndarray]:
    """Per slot and lane: the clock of its last access (`frontier`), and of its first write
    with its own lane one back (`writer`: a buffer may follow another only strictly after
    it; -1 without a write)."""
    lanes = len(life.lane)
    frontier = np.zeros((len(slots), lanes), dtype=np.int64)
    writer = np.full((len(slots), lanes), -1, dtype=np.int64)
    for i, slot in enumerate(slots):
        for task in slot.accesses:
            k = life.lane[life.streams[task]]
            frontier[i, k] = max(frontier[i, k], life.clocks[task][k])
        if slot.writes:
            w = min(slot.writes, key=life.position.__getitem__)
            writer[i] = life.clocks[w]
            writer[i, life.lane[life.streams[w]]] -= 1
    return frontier, writer


def _spans(slots: list[_Slot]) -> list[tuple[int, int]]:
    """Per slot, [first, last + 1) of the task indices that access it ([0, 0) if none)."""
    return [
        (min(slot.accesses), max(slot.accesses) + 1) if slot.accesses else (0, 0) for slot in slots
    ]


def _conflicts(ordered: np.ndarray) -> list[list[int]]:
    """Per slot, the other slots neither of which may follow the other."""
    n = ordered.shape[0]
    conflicts = [[int(j) for j in np.flatnonzero(~(ordered[i] | ordered[:, i]))] for i in range(n)]
    return [[j for j in conflicts[i] if j != i] for i in range(n)]


def _edges(ordered: np.ndarray) -> list[tuple[int, int]]:
    """The pairs (a, b) of slots where b may follow a."""
    return [(int(a), int(b)) for a, b in zip(*np.nonzero(ordered), strict=True)]


def _reusing(offsets: list[int], sizes: list[int]) -> int:
    """How many of the buffers (in program order) share bytes with an earlier one."""
    starts = np.asarray(offsets, dtype=np.int64)
    ends = starts + np.asarray(sizes, dtype=np.int64)
    return sum(
        bool(np.any((starts[:i] < ends[i]) & (ends[:i] > starts[i]))) for i in range(len(sizes))
    )


@dataclass(frozen=True)
class PlanMemoryPass(ModulePass):
    """Plans an npu program's activation buffers into one workspace (stream-aware reuse)."""

    name = "plan-memory"

    STATISTICS: ClassVar[dict[str, str]] = {
        "buffers": "activation buffers planned into the workspace",
        "buffers-reused": "buffers placed in bytes an earlier buffer also uses",
        "in-place": "launches writing into their input's buffer",
    }

    alignment: int = 512
    in_place: bool = True
    search: str = "exact"
    budget: int = SEARCH_BUDGET

    def __post_init__(self) -> None:
        if self.alignment < 1 or self.alignment & (self.alignment - 1):
            raise OptionError(
                f"plan-memory: alignment must be a power of two, got {self.alignment}"
            )
        if self.search not in ("none", "exact"):
            raise OptionError(f"plan-memory: search must be none or exact, got '{self.search}'")
        if self.budget < 0:
            raise OptionError(f"plan-memory: budget must be >= 0, got {self.budget}")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        counts = dict.fromkeys(self.STATISTICS, 0)
        todo = [
            f
            for f in op.walk()
            if isinstance(f, func.FuncOp)
            and npu.PROGRAM in f.attributes
            and MEMORY not in f.attributes
        ]
        ranked = [(rank, fn) for fn in todo if (rank := _rank(fn)) is not None]
        comm = _CommRegion(ranked, self.alignment) if ranked else None
        for fn in todo:
            region = comm if _rank(fn) is not None else None
            budget = self.budget if self.search == "exact" else 0
            planner = _Planner(fn, self.alignment, self.in_place, budget, region)
            planner.run()
            counts["buffers"] += planner.buffers
            counts["buffers-reused"] += planner.reused
            counts["in-place"] += planner.merged
        for statistic, n in counts.items():
            reports.count(op, self.name, statistic, n)
