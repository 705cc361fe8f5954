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
matmul (the r-th block of W1's output columns, and of its bias and of any constant the
elementwise ops add or multiply per column), the elementwise ops on that block, and a
row-parallel second matmul (the r-th block of W2's rows) whose partial products a
`ge.hcom_all_reduce` (sum, group "tp", rank_size N) adds up; W2's bias is added once after
it.  The chain's hidden width must be a multiple of N.  Everything else is replicated
(every rank computes it whole), so every rank ends with the whole outputs.

**mode=data**: every input is split along dim 0 (its batch, a multiple of N); every value
computed from the inputs gets dim 0 / N, constants are replicated, and each output built
from the inputs is gathered with `ge.hcom_all_gather` (group "dp", rank_size N), so every
rank ends with the whole outputs.  A graph whose ops do not keep dim 0 as the batch (a
reshape folding it away, a softmax over it) fails verification with a located error.

With ranks=1 the function is only renamed and marked (`@f_rank0`).  Collectives have no
stream label: `assign-streams` puts them on the comm stream.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge
from ge_dialect.utils.errors import OptionError, op_error
from transforms import reports
from transforms.common import erase_dead
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
        functions = [
            f
            for f in op.body.block.ops
            if isinstance(f, func.FuncOp)
            and SHARD not in f.attributes
            and "npu.program" not in f.attributes
            and not f.is_declaration
        ]
        for fn in functions:
            split = _split_inputs(fn, self.ranks) if self.mode == "data" else {}
            anchor: Operation = fn
            for r in range(self.ranks):
                clone = fn.clone()
                clone.sym_name = StringAttr(f"{fn.sym_name.data}_rank{r}")
                if self.ranks == 1:
                    pass  # one rank: the whole graph, no collective
                elif self.mode == "tensor":
                    _tensor_parallel(clone, r, self.ranks)
                else:
                    _data_parallel(clone, self.ranks)
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


def _per_column(op: Operation, value: SSAValue, hidden: int) -> tuple[SSAValue, np.ndarray] | None:
    """An add or mul of `value` and a constant holding one value per column (shape [H] or
    [1, ..., H]): the constant operand and its array."""
    if not isinstance(op, ge.AddOp | ge.MulOp) or len(op.operands) != 2:
        return None
    other = op.operands[1] if op.operands[0] == value else op.operands[0]
    if other == value:
        return None
    array = _const_array(other)
    if array is None or array.ndim < 1 or array.shape[-1] != hidden:
        return None
    if any(d != 1 for d in array.shape[:-1]) or op.results[0].type != value.type:
        return None
    return other, array


def _chain(m1: ge.MatMulOp) -> tuple[list[Operation], ge.MatMulOp] | None:
    """The elementwise ops after `m1` and the matmul ending a Megatron pair, or None."""
    t = m1.output.type
    assert isinstance(t, TensorType)
    hidden = t.get_shape()[-1]
    value: SSAValue = m1.output
    ops: list[Operation] = []
    while True:
        user = _single_user(value)
        if user is None:
            return None
        if isinstance(user, ge.MatMulOp):
            if user.a != value or user.transpose_a is not None or _weight(user) is None:
                return None
            return ops, user
        if isinstance(user, ge.UnaryElementwiseOp) and user.results[0].type == value.type:
            ops.append(user)
        elif _per_column(user, value, hidden) is not None:
            ops.append(user)
        else:
            return None
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
        # column-parallel m1
        column_axis = 0 if m1.transpose_b is not None else 1
        _replace_const(m1, 1, _block(w1, column_axis, r, n))
        if m1.bias is not None:
            bias = _const_array(m1.bias)
            assert bias is not None  # checked above
            _replace_const(m1, 2, _block(bias, -1, r, n))
        shape = [*t1.get_shape()[:-1], hidden // n]
        value = _retype(m1.output, shape)
        for op in ops:
            per_column = _per_column(op, value, hidden)
            if per_column is not None:
                other, array = per_column
                index = 1 if op.operands[0] == value else 0
                _replace_const(op, index, _block(array, -1, r, n))
            value = _retype(op.results[0], shape)
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


def _split_inputs(fn: func.FuncOp, n: int) -> dict[str, int]:
    from ge_dialect.ir.interpreter import io_names

    names, _ = io_names(fn)
    split = {}
    for arg, name in zip(fn.body.block.args, names, strict=True):
        t = arg.type
        if not isinstance(t, TensorType) or t.get_num_dims() < 1:
            raise op_error(fn, f"shard: input '{name}' has no batch dim to split (mode=data)")
        batch = t.get_shape()[0]
        if batch % n:
            raise op_error(
                fn,
                f"shard: input '{name}' has batch {batch}, not a multiple of ranks={n} (mode=data)",
            )
        split[name] = 0
    return split


def _data_parallel(fn: func.FuncOp, n: int) -> None:
    batched: set[SSAValue] = set()
    for arg in list(fn.body.block.args):
        t = arg.type
        assert isinstance(t, TensorType)
        shape = list(t.get_shape())
        batched.add(_retype(arg, [shape[0] // n, *shape[1:]]))
    for op in list(fn.body.block.ops):
        if isinstance(op, func.ReturnOp):
            for i, value in enumerate(list(op.operands)):
                if value not in batched:
                    continue
                t = value.type
                assert isinstance(t, TensorType)
                shape = list(t.get_shape())
                gather = ge.HcomAllGatherOp(
                    value, "dp", n, _with_shape(t, [shape[0] * n, *shape[1:]])
                )
                gather.location = op.location
                Rewriter.insert_op(gather, InsertPoint.before(op))
                op.operands[i] = gather.output
            continue
        if not any(o in batched for o in op.operands):
            continue
        if op.regions:
            raise op_error(op, "shard: ops with regions cannot be split (mode=data)")
        for result in list(op.results):
            t = result.type
            if not isinstance(t, TensorType) or t.get_num_dims() < 1:
                raise op_error(op, "shard: a result without a batch dim (mode=data)")
            shape = list(t.get_shape())
            if shape[0] % n:
                raise op_error(
                    op, f"shard: result dim 0 is {shape[0]}, not a multiple of ranks={n}"
                )
            batched.add(_retype(result, [shape[0] // n, *shape[1:]]))
    fn.update_function_type()


__all__ = ["SHARD", "ShardPass"]
