"""Pipeline parallelism of `--shard`: stages of balanced cost, the values crossing a cut
sent and received (see `transforms.shard`)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge
from ge_dialect.utils.errors import op_error
from transforms.common import erase_dead
from transforms.shard.common import _retype, _with_shape
from transforms.shard.data import _plan


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


def _pipeline(fn: func.FuncOp, stage: int, stages: int, group: str, micro_batches: int = 1) -> None:
    """Keeps the ops of pipeline stage `stage` of `fn` (`_stage_cuts`; constants are not
    cut: each stage keeps those it reads): it receives the values of earlier stages it or
    a later stage uses (`ge.hcom_receive` from the previous stage, in definition order)
    and sends on those a later stage uses (`ge.hcom_send` to the next stage); the last
    stage returns the outputs, the others return nothing.  Every stage keeps all the
    inputs (a stage that does not read one ignores it).

    With `micro_batches` m > 1 the batch (dim 0 of the activations, as data parallel finds
    it: `_plan`) is cut into m micro-batches and the stage runs its ops m times, unrolled
    (GPipe's schedule): micro-batch i receives its values with sr_tag i, computes on rows
    [i * b / m, (i + 1) * b / m) of the split inputs (`ge.slice`) and sends its values on
    with sr_tag i as soon as it is done.  What the micro-batches share (values without the
    batch: weights computed from constants, say) is computed, received and sent once,
    before micro-batch 0, with sr_tag 0.  The last stage joins the micro-batches' outputs
    (`ge.concat` along dim 0).  Stage 1 of 2 with m = 2, for `%y = relu(%a)`:

        %a_mb0 = ge.hcom_receive src_rank 0 sr_tag 0 group "pp0" rank_size 2 : tensor<2x4xf32>
        %y_mb0 = ge.relu %a_mb0 : tensor<2x4xf32>
        %a_mb1 = ge.hcom_receive src_rank 0 sr_tag 1 group "pp0" rank_size 2 : tensor<2x4xf32>
        %y_mb1 = ge.relu %a_mb1 : tensor<2x4xf32>
        %y = ge.concat %y_mb0, %y_mb1 axis 0 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
        func.return %y : tensor<4x4xf32>
    """
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
    split = _micro_batch_values(fn, micro_batches, stages)
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
    link = _Link(stage, stages, group, ops[lo], ret)
    incoming = live(lo) if stage > 0 else []
    outgoing = live(hi) if stage < stages - 1 else []
    mine = ops[lo:hi]
    per = [o for o in mine if any(v in split for v in (*o.operands, *o.results))]
    copied = set(per)  # (the ops each micro-batch copies)
    once = [o for o in mine if o not in copied]
    for o in per:  # a copied op's value that is not split must stay within the copies
        for r in o.results:
            if r not in split and (r in outgoing or any(u.operation not in copied for u in r.uses)):
                raise op_error(
                    o,
                    f"--shard: micro-batches={micro_batches} cannot cut this op's value per "
                    "micro-batch: it does not carry the batch but follows a value that does "
                    f"(pp={stages})",
                )
    kept = set(once)
    shared: dict[SSAValue, SSAValue] = {}  # value -> its one copy on this stage
    for value in incoming:
        if value not in split:
            shared[value] = link.receive(value, 0, value.name_hint)
    for o in once:
        o.detach()
        o.operands = tuple(shared.get(v, v) for v in o.operands)
        Rewriter.insert_op(o, InsertPoint.before(ret))
    for value in outgoing:
        if value not in split:
            link.send(shared.get(value, value), 0)
    inputs = [a for a in block.args if a in split and any(u.operation in copied for u in a.uses)]
    batches = [
        link.micro_batch(i, micro_batches, shared, incoming, inputs, per, outgoing, split)
        for i in range(micro_batches if split else 0)
    ]
    if stage < stages - 1:
        ret.operands = ()
    else:
        ret.operands = tuple(
            _joined(v, batches, ret) if v in split else shared.get(v, v) for v in ret.operands
        )
    for o in reversed([o for o in ops if o not in kept]):
        Rewriter.erase_op(o)
    erase_dead([c for c in consts if not c.results[0].uses])
    if stage < stages - 1:
        fn.function_type = builtin.FunctionType.from_lists(list(fn.function_type.inputs.data), [])
        fn.res_attrs = None
    else:
        fn.update_function_type()


def _micro_batch_values(fn: func.FuncOp, m: int, stages: int) -> set[SSAValue]:
    """The values of `fn` carrying the batch (`_plan`) when it is cut into `m` > 1
    micro-batches, each retyped to one micro-batch (the inputs keep their type); none when
    m = 1.  A function without a batch to split is a located error."""
    split: set[SSAValue] = set()
    if m == 1:
        return split
    values, _ = _plan(fn, m, f"micro-batches={m}", f"pp={stages}")
    if not values:
        raise op_error(
            fn,
            f"--shard: micro-batches={m}: no input carries a batch to split (dim 0 of the "
            f"activations; a weight's dim 0 equal to it keeps it whole) (pp={stages})",
        )
    for value in values:
        t = value.type
        assert isinstance(t, TensorType)
        shape = t.get_shape()
        is_input = isinstance(value, BlockArgument)
        split.add(value if is_input else _retype(value, [shape[0] // m, *shape[1:]]))
    return split


@dataclass
class _Link:
    """Stage `stage`'s side of the pipeline: its receives from the previous stage and
    sends to the next (inserted before `ret`), and the micro-batches' copies of its ops."""

    stage: int
    stages: int
    group: str
    first: Operation  # (its location is the receives')
    ret: Operation

    def receive(self, value: SSAValue, tag: int, hint: str | None) -> SSAValue:
        recv = ge.HcomReceiveOp(value.type, self.stage - 1, self.group, self.stages, tag)
        recv.location = self.first.location
        recv.results[0].name_hint = hint
        Rewriter.insert_op(recv, InsertPoint.before(self.ret))
        return recv.results[0]

    def send(self, value: SSAValue, tag: int) -> None:
        send = ge.HcomSendOp(value, self.stage + 1, self.group, self.stages, tag)
        send.location = self.ret.location
        Rewriter.insert_op(send, InsertPoint.before(self.ret))

    def micro_batch(
        self,
        i: int,
        m: int,
        shared: dict[SSAValue, SSAValue],
        incoming: list[SSAValue],
        inputs: list[BlockArgument],
        ops: list[Operation],
        outgoing: list[SSAValue],
        split: set[SSAValue],
    ) -> dict[SSAValue, SSAValue]:
        """Micro-batch `i` of `m`: receives its `incoming` values (sr_tag i), slices its
        rows of the `inputs`, copies `ops` and sends its `outgoing` values (sr_tag i);
        gives each value's copy (`shared`: the values every micro-batch shares)."""
        mapping = dict(shared)
        for value in incoming:
            if value in split:
                mapping[value] = self.receive(value, i, _hint(value, i))
        for arg in inputs:
            mapping[arg] = _micro_batch(arg, i, m, self.ret)
        for o in ops:
            copy = o.clone(mapping)
            for r in copy.results:
                r.name_hint = _hint(r, i)
            Rewriter.insert_op(copy, InsertPoint.before(self.ret))
        for value in outgoing:
            if value in split:
                self.send(mapping[value], i)
        return mapping


def _hint(value: SSAValue, i: int) -> str | None:
    """The name of micro-batch `i`'s copy of `value`."""
    return f"{value.name_hint}_mb{i}" if value.name_hint else None


def _micro_batch(arg: BlockArgument, i: int, m: int, before: Operation) -> SSAValue:
    """Rows [i * b / m, (i + 1) * b / m) of the input `arg`."""
    t = arg.type
    assert isinstance(t, TensorType)
    rows = t.get_shape()[0] // m
    piece = ge.SliceOp(
        arg, [i * rows], [(i + 1) * rows], [0], [1], _with_shape(t, [rows, *t.get_shape()[1:]])
    )
    piece.location = before.location
    piece.results[0].name_hint = _hint(arg, i)
    Rewriter.insert_op(piece, InsertPoint.before(before))
    return piece.results[0]


def _joined(value: SSAValue, batches: list[dict[SSAValue, SSAValue]], ret: Operation) -> SSAValue:
    """The micro-batches' copies of the output `value` joined along dim 0 (an input
    returned as it is stays itself)."""
    if isinstance(value, BlockArgument):
        return value
    t = value.type
    assert isinstance(t, TensorType)
    pieces = [b[value] for b in batches]
    shape = [t.get_shape()[0] * len(pieces), *t.get_shape()[1:]]
    join = ge.ConcatOp(pieces, 0, _with_shape(t, shape))
    join.location = ret.location
    join.results[0].name_hint = value.name_hint
    Rewriter.insert_op(join, InsertPoint.before(ret))
    return join.results[0]
