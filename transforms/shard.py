"""--shard: splits a `ge` graph over ranks, one function per rank, with HCCL collectives.

    ge-opt --shard=ranks=4,mode=tensor model.mlir

**One program per rank.**  Each function `@f` becomes `@f_rank0` ... `@f_rank{N-1}` (the
original is removed), each a whole `ge` graph for its rank, marked
`ge.shard = {rank = r, ranks = N, mode = "...", split = {name = dim, ...}}` (`split`: the
inputs whose dim `dim` is split over the ranks, rank r taking the r-th slice; the other
inputs are replicated).  Every later pass (fuse, layouts, streams, lowering, memory
planning) runs on each rank's function as on any other, the functions differ only in
their weights, and `api.simulate_ranks` runs the `npu` programs together.  (One program
per rank rather than one program with a rank dimension: GE itself compiles a graph per
rank, and every pass and the simulator's program form stay as they are.)

**mode=tensor** (Megatron's MLP split): a MatMul chain `matmul(x, W1) -> elementwise ops
-> matmul(., W2)` with constant 2-D weights becomes, on rank r, a column-parallel first
matmul (the r-th block of W1's output columns, and of its bias, whether the matmul carries
it or a `ge.add` after it adds it, and of any constant the elementwise ops add or multiply
per column), the elementwise ops on that block, and a row-parallel second matmul (the r-th
block of W2's rows) whose partial products a `ge.hcom_all_reduce` (sum, group "tp",
rank_size N) adds up; W2's bias (its own operand, or a `ge.add` after it) is added once
after it.  The chain's hidden width must be a multiple of N.  Everything else is
replicated (every rank computes it whole), so every rank ends with the whole outputs.

**mode=data**: the activations are split along dim 0, their batch (`_Batches`): rank r
takes the r-th block of every input that carries the batch (a multiple of N), every value
computed from them along dim 0 has dim 0 / N, and each such output is gathered with
`ge.hcom_all_gather` (group "dp", rank_size N), so every rank ends with the whole outputs.
Weights are never split: a value stays whole (every rank holds or computes it whole) when
it is a constant, a weight (a matmul's right-hand operand, whose dim 0 is the contraction
dim; a conv's filter, a bias, batch-norm parameters), broadcast along the batch, or
combined elementwise with such a value (TorchAir's example computes `in3 @ in4` and
`in3 + in4`: both stay whole; `in1` and `in2`, only added, are split).  An op that would
mix a split batch (a softmax over dim 0, a transpose moving it, a reshape or flatten
folding it, a concat along it, a matmul contracting over it, an op the pass does not know)
is refused with one located error, as is a split input whose batch is not a multiple of N:

    m.mlir:4:3: error: 'ge.softmax' op --shard: cannot split input 'x' along the batch:
        this softmax normalises over dim 0 (mode=data)

With ranks=1 the function is only renamed and marked (`@f_rank0`).  A module already
assigned to streams is refused (as by `fuse`): shard rewrites graphs before stream
assignment.  Collectives have no stream label: `assign-streams` puts them on the comm
stream; mode labels then moves one onto the stream of its producers and users when
nothing there would run beside it (GE's ineffective multi-stream rule), mode auto keeps
them on the comm stream.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Literal

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge, stream
from ge_dialect.utils.errors import OptionError, op_error
from transforms import reports
from transforms.common import erase_dead, refuse_assigned
from transforms.options import check_literal_options

Mode = Literal["tensor", "data"]

SHARD = "ge.shard"
"""The function attribute of a rank's function."""


@dataclass(frozen=True)
class ShardPass(ModulePass):
    """Splits each function over ranks: one function per rank, with HCCL collectives."""

    name = "shard"

    STATISTICS: ClassVar[dict[str, str]] = {
        "rank-functions": "functions made, one per rank of each sharded function",
        "collectives": "ge.hcom_all_reduce and ge.hcom_all_gather ops inserted (all ranks)",
    }

    ranks: int = 2
    mode: Mode = "tensor"

    def __post_init__(self) -> None:
        check_literal_options(self)
        if self.ranks < 1:
            raise OptionError(f"shard: ranks must be at least 1, got {self.ranks}")

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        refuse_assigned(op, self.name)
        functions = [
            f
            for f in op.body.block.ops
            if isinstance(f, func.FuncOp)
            and SHARD not in f.attributes
            and "npu.program" not in f.attributes
            and not f.is_declaration
        ]
        for fn in functions:
            anchor: Operation = fn
            for r in range(self.ranks):
                clone = fn.clone()
                clone.sym_name = StringAttr(f"{fn.sym_name.data}_rank{r}")
                split: dict[str, int] = {}
                if self.ranks == 1:
                    pass  # one rank: the whole graph, no collective
                elif self.mode == "tensor":
                    _tensor_parallel(clone, r, self.ranks)
                else:
                    split = _data_parallel(clone, self.ranks)
                clone.attributes[SHARD] = DictionaryAttr(
                    {
                        "rank": IntegerAttr(r, i64),
                        "ranks": IntegerAttr(self.ranks, i64),
                        "mode": StringAttr(self.mode),
                        "split": DictionaryAttr(
                            {name: IntegerAttr(dim, i64) for name, dim in split.items()}
                        ),
                    }
                )
                Rewriter.insert_op(clone, InsertPoint.after(anchor))
                anchor = clone
            Rewriter.erase_op(fn)
        made = [
            f for f in op.body.block.ops if isinstance(f, func.FuncOp) and SHARD in f.attributes
        ]
        collectives = sum(
            isinstance(o, ge.HcomAllReduceOp | ge.HcomAllGatherOp) for f in made for o in f.walk()
        )
        reports.count(op, self.name, "rank-functions", len(made))
        reports.count(op, self.name, "collectives", collectives)


# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def _with_shape(t: TensorType, shape: list[int]) -> TensorType:
    return TensorType(t.element_type, shape, t.encoding)


def _retype(value: SSAValue, shape: list[int]) -> SSAValue:
    t = value.type
    assert isinstance(t, TensorType)
    name = value.name_hint
    new = Rewriter.replace_value_with_new_type(value, _with_shape(t, shape))
    new.name_hint = name
    return new


def _const_array(value: SSAValue) -> np.ndarray | None:
    """The logical array of a readable `ge.const` feeding `value`, else None."""
    owner = value.owner
    if isinstance(owner, ge.ConstOp) and owner.is_readable():
        return owner.logical_array()
    return None


def _new_const(array: np.ndarray, like: SSAValue, before: Operation) -> SSAValue:
    t = like.type
    assert isinstance(t, TensorType)
    const = ge.ConstOp.from_numpy(
        np.ascontiguousarray(array), TensorType(t.element_type, array.shape)
    )
    old = like.owner
    const.results[0].name_hint = like.name_hint
    if isinstance(old, Operation):
        const.location = old.location
    Rewriter.insert_op(const, InsertPoint.before(before))
    return const.results[0]


def _replace_const(op: Operation, index: int, array: np.ndarray) -> None:
    """Makes operand `index` of `op` a new constant `array` (after the old constant, which
    is erased once nothing else uses it)."""
    old = op.operands[index]
    op.operands[index] = _new_const(array, old, op)
    owner = old.owner
    if isinstance(owner, ge.ConstOp):
        erase_dead([owner])


def _block(array: np.ndarray, axis: int, r: int, n: int) -> np.ndarray:
    return np.split(array, n, axis=axis)[r]


# --------------------------------------------------------------------------------------
# tensor parallel
# --------------------------------------------------------------------------------------


def _single_user(value: SSAValue) -> Operation | None:
    uses = list(value.uses)
    return uses[0].operation if len(uses) == 1 else None


def _weight(m: ge.MatMulOp) -> np.ndarray | None:
    w = _const_array(m.b)
    return w if w is not None and w.ndim == 2 else None


def _per_column(op: Operation, value: SSAValue, hidden: int) -> int | None:
    """The index of the constant operand of `op` when `op` adds or multiplies `value` by a
    constant holding one value per column (shape [H] or [1, ..., H]), else None."""
    if not isinstance(op, ge.AddOp | ge.MulOp) or len(op.operands) != 2:
        return None
    index = 1 if op.operands[0] == value else 0
    if op.operands[index] == value:
        return None
    array = _const_array(op.operands[index])
    if array is None or array.ndim < 1 or array.shape[-1] != hidden:
        return None
    if any(d != 1 for d in array.shape[:-1]) or op.results[0].type != value.type:
        return None
    return index


def _chain(m1: ge.MatMulOp) -> tuple[list[tuple[Operation, int | None]], ge.MatMulOp] | None:
    """The elementwise ops after `m1`, each with the index of its per-column constant
    operand (None for a unary op), and the matmul ending a Megatron pair; or None.  Read
    before any rewrite: the checks compare the ops' types with `m1`'s whole width."""
    t = m1.output.type
    assert isinstance(t, TensorType)
    hidden = t.get_shape()[-1]
    value: SSAValue = m1.output
    ops: list[tuple[Operation, int | None]] = []
    while True:
        user = _single_user(value)
        if user is None:
            return None
        if isinstance(user, ge.MatMulOp):
            if user.a != value or user.transpose_a is not None or _weight(user) is None:
                return None
            return ops, user
        if isinstance(user, ge.UnaryElementwiseOp) and user.results[0].type == value.type:
            ops.append((user, None))
        else:
            index = _per_column(user, value, hidden)
            if index is None:
                return None
            ops.append((user, index))
        value = user.results[0]


def _tensor_parallel(fn: func.FuncOp, r: int, n: int) -> None:
    for m1 in [o for o in fn.body.walk() if isinstance(o, ge.MatMulOp)]:
        if m1.parent is None or m1.transpose_a is not None:
            continue
        w1 = _weight(m1)
        if w1 is None:
            continue
        found = _chain(m1)
        if found is None:
            continue
        ops, m2 = found
        w2 = _weight(m2)
        assert w2 is not None
        t1 = m1.output.type
        assert isinstance(t1, TensorType)
        hidden = t1.get_shape()[-1]
        if hidden % n or (m1.bias is not None and _const_array(m1.bias) is None):
            continue  # cannot split evenly, or a bias not known: stays replicated
        # column-parallel m1, and the per-column constants after it (a bias added by a
        # `ge.add` rather than carried by the matmul, a scale)
        column_axis = 0 if m1.transpose_b is not None else 1
        _replace_const(m1, 1, _block(w1, column_axis, r, n))
        if m1.bias is not None:
            bias = _const_array(m1.bias)
            assert bias is not None  # checked above
            _replace_const(m1, 2, _block(bias, -1, r, n))
        shape = [*t1.get_shape()[:-1], hidden // n]
        _retype(m1.output, shape)
        for op, index in ops:
            if index is not None:
                array = _const_array(op.operands[index])
                assert array is not None  # (`_per_column` read it)
                _replace_const(op, index, _block(array, -1, r, n))
            _retype(op.results[0], shape)
        # row-parallel m2, then the all-reduce and the bias
        row_axis = 1 if m2.transpose_b is not None else 0
        w2_block = _new_const(_block(w2, row_axis, r, n), m2.b, m2)
        old_w2 = m2.b.owner
        assert isinstance(old_w2, ge.ConstOp)  # (`_weight` read it)
        partial = ge.MatMulOp(
            m2.a, w2_block, None, m2.output.type, transpose_b=m2.transpose_b is not None
        )
        partial.attributes.update(m2.attributes)
        reduce = ge.HcomAllReduceOp(partial.output, "sum", "tp", n)
        reduce.attributes.update(m2.attributes)
        for o in (partial, reduce):
            o.location = m2.location
        Rewriter.insert_op([partial, reduce], InsertPoint.before(m2))
        result: SSAValue = reduce.output
        if m2.bias is not None:
            add = ge.AddOp(result, m2.bias, m2.output.type)
            add.attributes.update(m2.attributes)
            add.location = m2.location
            Rewriter.insert_op(add, InsertPoint.before(m2))
            result = add.results[0]
        result.name_hint = m2.output.name_hint
        m2.output.replace_all_uses_with(result)
        # m2, then its old weight unless another op reads it (its input and bias are read
        # by the new ops)
        erase_dead([m2, old_w2], follow_producers=False)


# --------------------------------------------------------------------------------------
# data parallel
# --------------------------------------------------------------------------------------


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
)
"""Ops whose one operand's dim 0 is their result's whenever the two dims are equal
(`_relate` checks: a reshape or flatten that changes dim 0 folds the batch away)."""


def _rule(op: Operation) -> _Rule:
    """How `op` treats dim 0 (see `_Rule`)."""
    if isinstance(op, _ALONG_DIM0):
        return _Rule(along=[op.operands[0]])
    if isinstance(op, stream.WaitTensorOp):
        return _Rule(along=[op.input])  # (its dependency orders, it is not read)
    if isinstance(op, ge.ConstOp):
        return _Rule()
    if isinstance(op, ge.BinaryElementwiseOp):
        return _broadcast_rule(op)
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


def _plan(fn: func.FuncOp, n: int) -> tuple[list[SSAValue], dict[str, int]]:
    """The values of `fn` to split over `n` ranks (arguments, then results in block order)
    and the split inputs by name; refuses (a located error) an input whose batch is not a
    multiple of `n` and an op that would mix a split batch."""
    from ge_dialect.ir.interpreter import io_names

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
                f"--shard: input '{name}' has batch {batch}, not a multiple of ranks={n} "
                "(mode=data)",
            )
        split[name] = 0
    for op, value, why in batches.mixing:
        if batches.is_split(value):
            name = first_input[batches.find(value)]  # (a split set holds an input)
            raise op_error(
                op, f"--shard: cannot split input '{name}' along the batch: {why} (mode=data)"
            )
    values: list[SSAValue] = [a for a in args if batches.is_split(a)]
    values += [r for op in fn.body.block.ops for r in op.results if batches.is_split(r)]
    return values, split


def _data_parallel(fn: func.FuncOp, n: int) -> dict[str, int]:
    """Splits the batch of `fn`'s activations over `n` ranks (`_plan`), all-gathers the
    split results it returns, and gives the split inputs by name."""
    if len(fn.body.blocks) != 1:
        raise op_error(
            fn,
            f"has {len(fn.body.blocks)} blocks: --shard handles function bodies of one block "
            "only (mode=data)",
        )
    values, split = _plan(fn, n)
    now_split = set()
    for value in values:
        t = value.type
        assert isinstance(t, TensorType)
        shape = list(t.get_shape())
        now_split.add(_retype(value, [shape[0] // n, *shape[1:]]))
    ret = fn.body.block.last_op
    assert isinstance(ret, func.ReturnOp)
    for i, value in enumerate(list(ret.operands)):
        if value not in now_split:
            continue
        t = value.type
        assert isinstance(t, TensorType)
        shape = list(t.get_shape())
        gather = ge.HcomAllGatherOp(value, "dp", n, _with_shape(t, [shape[0] * n, *shape[1:]]))
        gather.location = ret.location
        Rewriter.insert_op(gather, InsertPoint.before(ret))
        ret.operands[i] = gather.output
    fn.update_function_type()
    return split


__all__ = ["SHARD", "ShardPass"]
