"""Data parallelism of `--shard`: the batch analysis and the split (see
`transforms.shard`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge, stream
from ge_dialect.utils.errors import op_error
from transforms.shard.common import _retype


class _Batches:
    """Which values of a function carry the batch (dim 0) of its inputs.

    A union-find over the values: the values of one set are split together or not at all
    (an op's result with the operands whose dim 0 becomes its dim 0).  A set is kept whole
    (replicated: every rank holds or computes it whole) when one of its values must be
    (`whole`): a weight (a matmul's right-hand operand, a conv's filter, a bias, batch-norm
    parameters), an operand broadcast along the batch, a constant, a value without dims, a
    result computed from whole operands only.  The result of an op that mixes the batch (a
    softmax over dim 0, a reshape folding it, ...) is whole too (`mixed`), and its operands
    are listed in `mixing`: such an operand is kept whole when the op's result is used as a
    weight (say a transposed weight), and otherwise must not be split: the pass refuses.
    The other sets are split."""

    def __init__(self) -> None:
        self.parent: dict[SSAValue, SSAValue] = {}
        self.whole: set[SSAValue] = set()  # roots of the sets kept whole for their use
        self.mixed: set[SSAValue] = set()  # roots of the sets holding a mixing op's result
        self.mixing: list[tuple[Operation, SSAValue, str]] = []

    def find(self, value: SSAValue) -> SSAValue:
        root = value
        while (parent := self.parent.setdefault(root, root)) is not root:
            root = parent
        while value is not root:  # path compression
            value, self.parent[value] = self.parent[value], root
        return root

    def union(self, a: SSAValue, b: SSAValue) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra
            for marks in (self.whole, self.mixed):
                if rb in marks:
                    marks.add(ra)

    def keep_whole(self, value: SSAValue) -> None:
        self.whole.add(self.find(value))

    def used_whole(self, value: SSAValue) -> bool:
        return self.find(value) in self.whole

    def is_split(self, value: SSAValue) -> bool:
        if value not in self.parent:
            return False
        root = self.find(value)
        return root not in self.whole and root not in self.mixed

    def settle(self) -> None:
        """Keeps whole the operands of the mixing ops whose result is used whole, until
        nothing changes (later ops first: a chain of them settles in one sweep)."""
        changed = True
        while changed:
            changed = False
            for op, value, _ in reversed(self.mixing):
                if not self.used_whole(value) and any(self.used_whole(r) for r in op.results):
                    self.keep_whole(value)
                    changed = True


def _dim0(value: SSAValue) -> int | None:
    """Dim 0 of `value`'s tensor type, None without dims."""
    t = value.type
    if isinstance(t, TensorType) and t.get_num_dims() >= 1:
        return t.get_shape()[0]
    return None


@dataclass
class _Rule:
    """How an op treats dim 0: the operands whose dim 0 is its results' (`along`), those
    kept whole (`whole`), and those whose batch it mixes, each with why (`mixing`)."""

    along: list[SSAValue] = field(default_factory=list)
    whole: list[SSAValue] = field(default_factory=list)
    mixing: list[tuple[SSAValue, str]] = field(default_factory=list)


_UNKNOWN = "the pass does not know how this op treats dim 0"

_ALONG_DIM0 = (
    ge.UnaryElementwiseOp,
    ge.CastOp,
    ge.TransDataOp,
    ge.PoolingOp,
    ge.GlobalAvgPoolOp,
    ge.ReshapeOp,
    ge.FlattenOp,
    ge.SwiGluOp,
)
"""Ops whose one operand's dim 0 is their result's whenever the two dims are equal
(`_relate` checks: a reshape or flatten that changes dim 0 folds the batch away, as does a
swi_glu over dim 0)."""


def _rule(op: Operation) -> _Rule:
    """How `op` treats dim 0 (see `_Rule`)."""
    if isinstance(op, _ALONG_DIM0):
        return _Rule(along=[op.operands[0]])
    if isinstance(op, stream.WaitTensorOp):
        return _Rule(along=[op.input])  # (its dependency orders, it is not read)
    if isinstance(op, ge.ConstOp):
        return _Rule()
    if isinstance(op, ge.BinaryElementwiseOp | ge.FlashAttentionOp | ge.RotaryMulOp):
        return _broadcast_rule(op)  # (attention per batch; a mask, cos, sin broadcast)
    if isinstance(op, ge.RmsNormOp) and op.axis.value.data > 0:
        return _broadcast_rule(op)  # (normalises the last dims; the weight broadcast)
    if isinstance(op, ge.MatMulOp):
        return _matmul_rule(op)
    if isinstance(op, ge.ConvolutionOp):
        residual = [op.residual] if isinstance(op, ge.FusedConv2DOp) and op.residual else []
        return _Rule(along=[op.input, *residual], whole=[op.filter, *_opt(op.bias)])
    if isinstance(op, ge.BatchNormOp):
        return _Rule(along=[op.input], whole=list(op.operands[1:]))
    if isinstance(op, ge.TransposeOp):
        if op.perm.get_values()[0] == 0:
            return _Rule(along=[op.input])
        return _Rule(mixing=[(op.input, "this transpose moves dim 0")])
    if isinstance(op, ge.SoftmaxOp):
        if op.axis.value.data != 0:
            return _Rule(along=[op.input])
        return _Rule(mixing=[(op.input, "this softmax normalises over dim 0")])
    if isinstance(op, ge.ConcatOp):
        if op.axis.value.data != 0:
            return _Rule(along=list(op.inputs))
        return _Rule(mixing=[(v, "this concat joins along dim 0") for v in op.inputs])
    return _Rule(mixing=[(v, _UNKNOWN) for v in op.operands])


def _opt(value: SSAValue | None) -> list[SSAValue]:
    return [] if value is None else [value]


def _broadcast_rule(op: Operation) -> _Rule:
    """An elementwise op with numpy broadcasting: an operand of the result's rank and dim 0
    carries the batch; one broadcast along it (a bias, a [1, C] scale) is kept whole."""
    rule = _Rule()
    result = op.results[0]
    rank = _rank(result)
    for value in op.operands:
        same = _rank(value) == rank and _dim0(value) == _dim0(result)
        (rule.along if same else rule.whole).append(value)
    return rule


def _rank(value: SSAValue) -> int:
    t = value.type
    return t.get_num_dims() if isinstance(t, TensorType) else 0


def _matmul_rule(op: ge.MatMulOp) -> _Rule:
    """A 2-D product's batch is the rows of `a` (M): `b` is a weight, whose dim 0 is the
    contraction dim (never split).  With batch dims (rank >= 3), an operand of the result's
    rank and dim 0 carries the batch, one broadcast along it is kept whole."""
    if _rank(op.output) == 2:
        rule = _Rule(whole=[op.b, *_opt(op.bias)])
        if op.transpose_a is None:
            rule.along.append(op.a)
        else:
            rule.mixing.append((op.a, "this matmul contracts over dim 0 of its operand 'a'"))
        return rule
    return _broadcast_rule(op)  # (the bias, of rank 1, is broadcast: kept whole)


def _relate(fn: func.FuncOp) -> _Batches:
    """The batch sets of `fn`'s values (`_Batches`), from every op's `_rule`."""
    batches = _Batches()
    for arg in fn.body.block.args:
        if _dim0(arg) is None:
            batches.keep_whole(arg)
    for op in fn.body.block.ops:
        if isinstance(op, func.ReturnOp):
            continue
        rule = _Rule(mixing=[(v, _UNKNOWN) for v in op.operands]) if op.regions else _rule(op)
        along = [v for v in rule.along if _along(v, op)]
        rule.mixing += [(v, _FOLDS) for v in rule.along if v not in along]
        for value in rule.whole:
            batches.keep_whole(value)
        for value, why in rule.mixing:
            batches.mixing.append((op, value, why))
        for result in op.results:
            if rule.mixing:
                batches.mixed.add(batches.find(result))
            elif not along or _dim0(result) is None:
                batches.keep_whole(result)  # computed whole from whole operands
            for value in along:
                batches.union(value, result)
    batches.settle()
    return batches


_FOLDS = "its result does not keep its operand's dim 0"


def _along(value: SSAValue, op: Operation) -> bool:
    """Whether `value`'s dim 0 can be the batch of every result of `op`: equal dims."""
    dim = _dim0(value)
    return dim is not None and all(_dim0(r) == dim for r in op.results)


def _plan(
    fn: func.FuncOp, n: int, parts: str = "", why: str = "mode=data"
) -> tuple[list[SSAValue], dict[str, int]]:
    """The values of `fn` to split over `n` ranks (arguments, then results in block order)
    and the split inputs by name; refuses (a located error) an input whose batch is not a
    multiple of `n` and an op that would mix a split batch.  The errors name the `n` parts
    (`parts`, by default `ranks=n`) and say `why` the batch is split."""
    from ge_dialect.ir.interpreter import io_names

    parts = parts or f"ranks={n}"
    batches = _relate(fn)
    names, _ = io_names(fn)
    args = fn.body.block.args
    first_input: dict[SSAValue, str] = {}
    split: dict[str, int] = {}
    for arg, name in zip(args, names, strict=True):
        if not batches.is_split(arg):
            continue
        first_input.setdefault(batches.find(arg), name)
        batch = _dim0(arg)
        assert batch is not None  # (a value without dims is kept whole)
        if batch % n:
            raise op_error(
                fn,
                f"--shard: input '{name}' has batch {batch}, not a multiple of {parts} ({why})",
            )
        split[name] = 0
    for op, value, mixes in batches.mixing:
        if batches.is_split(value):
            name = first_input[batches.find(value)]  # (a split set holds an input)
            raise op_error(
                op, f"--shard: cannot split input '{name}' along the batch: {mixes} ({why})"
            )
    values: list[SSAValue] = [a for a in args if batches.is_split(a)]
    values += [r for op in fn.body.block.ops for r in op.results if batches.is_split(r)]
    return values, split


def _data_parallel(
    fn: func.FuncOp, n: int, group: str = "dp", gather: bool = True
) -> dict[str, int]:
    """Splits the batch of `fn`'s activations over `n` ranks (`_plan`), all-gathers the
    split results it returns (unless not `gather`: pipeline stages gather them on the last
    stage, `_gather_outputs`), and gives the split inputs by name."""
    if len(fn.body.blocks) != 1:
        raise op_error(
            fn,
            f"has {len(fn.body.blocks)} blocks: --shard handles function bodies of one block "
            "only (mode=data)",
        )
    outputs = list(fn.function_type.outputs.data)
    values, split = _plan(fn, n)
    for value in values:
        t = value.type
        assert isinstance(t, TensorType)
        shape = list(t.get_shape())
        _retype(value, [shape[0] // n, *shape[1:]])
    if gather:
        _gather_outputs(fn, outputs, n, group)
    fn.update_function_type()
    return split


def _gather_outputs(fn: func.FuncOp, outputs: Sequence[Attribute], n: int, group: str) -> None:
    """All-gathers (`ge.hcom_all_gather` over the `n` ranks of `group`) each value `fn`
    returns whose type is not its whole output's (`outputs`, the types before the split):
    the rank's slice of the batch."""
    ret = fn.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    for i, (value, whole) in enumerate(zip(list(ret.operands), outputs, strict=True)):
        if value.type == whole:
            continue
        gather = ge.HcomAllGatherOp(value, group, n, whole)
        gather.location = ret.location
        Rewriter.insert_op(gather, InsertPoint.before(ret))
        ret.operands[i] = gather.output
    fn.update_function_type()
