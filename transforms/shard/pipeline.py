"""Pipeline parallelism of `--shard`: stages of balanced cost, the values crossing a cut
sent and received (see `transforms.shard`)."""

from __future__ import annotations

from xdsl.dialects import builtin, func
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge
from ge_dialect.utils.errors import op_error
from transforms.common import erase_dead


def _stage_cuts(ops: list[Operation], stages: int) -> list[int]:
    """The op indices where each stage starts (and the end): stage s holds the ops
    [cuts[s], cuts[s + 1]), a topological prefix each.  Balanced by cost (FLOPs plus bytes
    read and written, `ge_dialect.ir.cost`): stage s ends just before or just after the op
    whose running cost reaches (s + 1) / stages of the total, whichever is nearer, so a
    stage misses its share by at most one op; every stage keeps at least one op."""
    from ge_dialect.ir.cost import op_cost

    costs = []
    for o in ops:
        cost = op_cost(o)
        costs.append(cost.flops + cost.bytes_in + cost.bytes_out)
    total = sum(costs) or 1
    cuts = [0]
    running = 0
    for i, c in enumerate(costs):
        running += c
        s = len(cuts)
        if s < stages and running * stages >= s * total:
            # the op reaching the share: in this stage or the next, whichever leaves the
            # prefix nearer the share
            before = (running - c) * stages
            nearer = s * total - before < running * stages - s * total and i > cuts[-1]
            cuts.append(i if nearer else i + 1)
    while len(cuts) < stages:  # (too few ops with cost: single-op stages at the end)
        cuts.append(min(cuts[-1] + 1, len(ops)))
    cuts.append(len(ops))
    return cuts


def _pipeline(fn: func.FuncOp, stage: int, stages: int, group: str) -> None:
    """Keeps the ops of pipeline stage `stage` of `fn` (`_stage_cuts`; constants are not
    cut: each stage keeps those it reads): it receives the
    values of earlier stages it or a later stage uses (`ge.hcom_receive` from the previous
    stage, in definition order) and sends on those a later stage uses (`ge.hcom_send` to
    the next stage); the last stage returns the outputs, the others return nothing.  Every
    stage keeps all the inputs (a stage that does not read one ignores it)."""
    if len(fn.body.blocks) != 1:
        raise op_error(fn, "--shard: pp handles function bodies of one block only")
    block = fn.body.block
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    ops = [o for o in block.ops if o is not ret and not isinstance(o, ge.ConstOp)]
    consts = [o for o in block.ops if isinstance(o, ge.ConstOp)]  # (every stage its own)
    if len(ops) < stages:
        raise op_error(fn, f"--shard: {len(ops)} ops cannot make pp={stages} stages")
    cuts = _stage_cuts(ops, stages)
    index = {o: i for i, o in enumerate(ops)}
    index[ret] = len(ops)

    def live(cut: int) -> list[SSAValue]:
        """The results of ops before `cut` used at or after it, in definition order."""
        return [
            r
            for o in ops[:cut]
            for r in o.results
            if any(index[u.operation] >= cut for u in r.uses)
        ]

    lo, hi = cuts[stage], cuts[stage + 1]
    incoming = live(lo) if stage > 0 else []
    outgoing = live(hi) if stage < stages - 1 else []
    received: dict[SSAValue, SSAValue] = {}
    first = ops[lo]
    for value in incoming:
        recv = ge.HcomReceiveOp(value.type, stage - 1, group, stages)
        recv.location = first.location
        recv.results[0].name_hint = value.name_hint
        Rewriter.insert_op(recv, InsertPoint.before(first))
        received[value] = recv.results[0]
        for use in list(value.uses):
            if index.get(use.operation, -1) >= lo:
                use.operation.operands[use.index] = recv.results[0]
    for value in outgoing:
        send = ge.HcomSendOp(received.get(value, value), stage + 1, group, stages)
        send.location = ret.location
        Rewriter.insert_op(send, InsertPoint.before(ret))
    if stage < stages - 1:
        ret.operands = ()
    for o in reversed(ops[hi:]):
        Rewriter.erase_op(o)
    for o in reversed(ops[:lo]):
        Rewriter.erase_op(o)
    erase_dead([c for c in consts if not c.results[0].uses])
    if stage < stages - 1:
        fn.function_type = builtin.FunctionType.from_lists(list(fn.function_type.inputs.data), [])
        fn.res_attrs = None
    else:
        fn.update_function_type()
