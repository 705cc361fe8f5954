"""--schedule: GE's priority topological sort of each block, before stream assignment.

`assign-streams` keeps block order as each stream's issue order, so the block order is the
schedule.  This pass reorders the ops of every block of a `ge` graph by list scheduling:
among the ready ops (every producer already placed), it places first

1. a communication op (any `ge.hcom_*`: issue it as early as its inputs allow, so that the
   link is busy before compute needs its result),
2. then the op with the longest remaining path to the end of the block (the critical path
   first; an op's length is its work in the cost model, FLOPs plus bytes in and out, the
   figure `assign-streams` balances streams with),
3. then the op first in the original order (deterministic).

Dependencies are the data edges (operands, those of nested ops included; a
`stream.wait_tensor` passes on both its operands), the order of the ops that have effects
(collectives, point-to-point ops, in-place writes: they keep their relative order, so the
k-th collective of a group stays the k-th on every rank), the order of the ops of one
stream label, and `stream.record` / `stream.wait` of the input, which no op crosses.
Constants go right before their first user in the new order.  Only the order changes,
so the numbers are bit-identical.  A block whose order stays is left untouched.

    %a = ge.matmul %x, %w1 ...           %b = ge.matmul %x, %w2 ...
    %c = ge.relu %a ...           ->     %s = ge.hcom_all_reduce %b ...
    %b = ge.matmul %x, %w2 ...           %a = ge.matmul %x, %w1 ...
    %s = ge.hcom_all_reduce %b ...       %c = ge.relu %a ...

(when the path through the all-reduce is the longer one).  Statistics: `ops-moved`, the
fewest ops whose moving turns the old order into the new one.
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator, is_side_effect_free

from ge_dialect.ir.cost import op_cost
from ge_dialect.ir.dialects import ge, stream
from ge_dialect.utils.walk import walk_ops
from transforms import reports
from transforms.common import refuse_assigned


def is_communication(op: Operation) -> bool:
    """Whether `op` communicates: every `ge.hcom_*` op (collectives, send and receive)."""
    return op.name.startswith("ge.hcom_")


def work(op: Operation) -> int:
    """The work of `op` in the cost model: FLOPs plus bytes in and out."""
    cost = op_cost(op)
    return cost.flops + cost.bytes_in + cost.bytes_out


def dependencies(ops: list[Operation]) -> list[set[int]]:
    """The ops each of `ops` must follow (indices): data (nested ops' operands included),
    the order of ops with effects, of one stream label, and record / wait barriers."""
    preds: list[set[int]] = [set() for _ in ops]
    results = {id(r): k for k, op in enumerate(ops) for r in op.results}
    last_effect = -1
    last_label: dict[str, int] = {}
    barrier = -1
    since_barrier: list[int] = []
    for v, op in enumerate(ops):
        deps = preds[v]
        for inner in walk_ops(op):
            for value in inner.operands:
                u = results.get(id(value))
                if u is not None and u != v:
                    deps.add(u)
        if isinstance(op, stream.RecordOp | stream.WaitOp):
            deps.update(since_barrier)
            since_barrier = []
            barrier = v
        elif barrier >= 0:
            deps.add(barrier)
        since_barrier.append(v)
        if not isinstance(op, stream.WaitTensorOp) and (op.regions or not is_side_effect_free(op)):
            if last_effect >= 0:
                deps.add(last_effect)
            last_effect = v
        label = op.attributes.get(stream.LABEL)
        if isinstance(label, stream.LabelAttr):
            name = label.label.data
            if name in last_label:
                deps.add(last_label[name])
            last_label[name] = v
    return preds


def schedule_order(ops: list[Operation]) -> list[int]:
    """The new order of `ops` (a block's ops, no constants, no terminator) as indices."""
    n = len(ops)
    preds = dependencies(ops)
    succs: list[list[int]] = [[] for _ in ops]
    for v, deps in enumerate(preds):
        for u in sorted(deps):
            succs[u].append(v)
    rest = [0] * n  # the longest path from each op to the end, the op included
    for u in range(n - 1, -1, -1):  # the original order is topological
        rest[u] = work(ops[u]) + max((rest[v] for v in succs[u]), default=0)
    waiting = [len(deps) for deps in preds]
    ready = [(not is_communication(ops[v]), -rest[v], v) for v in range(n) if not waiting[v]]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, _, u = heapq.heappop(ready)
        order.append(u)
        for v in succs[u]:
            waiting[v] -= 1
            if not waiting[v]:
                heapq.heappush(ready, (not is_communication(ops[v]), -rest[v], v))
    assert len(order) == n, "the block's original order is topological"
    return order


def moves(order: list[int]) -> int:
    """The fewest ops whose moving turns 0..n-1 into `order`: n minus the longest
    increasing subsequence."""
    tails: list[int] = []
    for k in order:
        at = bisect.bisect_left(tails, k)
        if at == len(tails):
            tails.append(k)
        else:
            tails[at] = k
    return len(order) - len(tails)


def schedule_block(block: Block) -> int:
    """Reorders `block` (`schedule_order`); returns the ops moved (0: untouched)."""
    every = list(block.ops)
    terminator = every[-1] if every and every[-1].has_trait(IsTerminator) else None
    body = every[:-1] if terminator is not None else every
    consts = [op for op in body if isinstance(op, ge.ConstOp)]
    ops = [op for op in body if not isinstance(op, ge.ConstOp)]
    order = schedule_order(ops)
    moved = moves(order)
    if not moved:
        return 0
    const_of = {id(c.output): c for c in consts}
    placed: set[int] = set()
    new: list[Operation] = []
    for k in order:
        op = ops[k]
        for inner in walk_ops(op):
            for value in inner.operands:
                c = const_of.get(id(value))
                if c is not None and id(c) not in placed:
                    placed.add(id(c))
                    new.append(c)
        new.append(op)
    new += [c for c in consts if id(c) not in placed]  # used by the terminator, or unused
    for op in new:
        op.detach()
        if terminator is None:
            block.add_op(op)
        else:
            block.insert_op_before(op, terminator)
    return moved


@dataclass(frozen=True)
class SchedulePass(ModulePass):
    """Reorders each block of a `ge` graph: communication first, then the critical path."""

    name = "schedule"

    STATISTICS: ClassVar[dict[str, str]] = {
        "ops-moved": "the fewest ops whose moving turns the old block orders into the new",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        refuse_assigned(op, self.name)
        moved = 0
        for fn in walk_ops(op):
            if isinstance(fn, func.FuncOp):
                for block in fn.body.blocks:
                    moved += schedule_block(block)
        reports.count(op, self.name, "ops-moved", moved)
