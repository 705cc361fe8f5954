"""Tensor parallelism of `--shard`: Megatron's MLP split (MatMul chains, SwiGLU) and
attention split by heads (see `transforms.shard`)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge
from ge_dialect.utils.errors import op_error
from transforms.common import erase_dead
from transforms.shard.common import (
    _block,
    _const_array,
    _new_const,
    _replace_const,
    _retype,
)


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


def _keeps_last(op: Operation) -> bool:
    """Whether `op` is a reshape keeping the last dim (folding or unfolding the others:
    [B, S, H] <-> [B*S, H], as PyTorch's linear layers are imported)."""
    if not isinstance(op, ge.ReshapeOp):
        return False
    before, after = _shape(op.operands[0]), _shape(op.results[0])
    return bool(before) and bool(after) and before[-1] == after[-1]


def _sibling(op: Operation, value: SSAValue, m1: ge.MatMulOp) -> ge.MatMulOp | None:
    """The up projection of SwiGLU: when `op` multiplies `value` by another matmul of
    `m1`'s input with a constant 2-D weight and `value`'s type (`silu(x@Wg) * (x@Wu)`),
    that matmul (split by columns as `m1` is), else None."""
    if not isinstance(op, ge.MulOp) or len(op.operands) != 2:
        return None
    other = op.operands[1] if op.operands[0] == value else op.operands[0]
    up = other.owner
    if (
        other == value
        or not isinstance(up, ge.MatMulOp)
        or up is m1
        or up.a != m1.a
        or up.transpose_a is not None
        or _weight(up) is None
        or other.type != value.type
        or _single_user(other) is not op
        or (up.bias is not None and _const_array(up.bias) is None)
    ):
        return None
    return up


_SWIGLU = -1
"""The index marking a `ge.swi_glu` in a chain (its input's halves are gate and up)."""


def _chain(m1: ge.MatMulOp) -> tuple[list[tuple[Operation, int | None]], ge.MatMulOp] | None:
    """The ops after `m1`, each with the index of its per-column constant operand (None for
    a unary op, the operand index of the up projection for SwiGLU's `*`, `_SWIGLU` for a
    `ge.swi_glu` over the last dim), and the matmul ending a Megatron pair; or None.  Read
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
        last = len(value.type.get_shape()) - 1 if isinstance(value.type, TensorType) else -1
        if isinstance(user, ge.UnaryElementwiseOp) and user.results[0].type == value.type:
            ops.append((user, None))
        elif _keeps_last(user):
            ops.append((user, None))  # (a reshape folding or unfolding the token dims)
        elif (
            isinstance(user, ge.SwiGluOp)
            and user.dim.value.data == last
            and not any(i == _SWIGLU for _, i in ops)
        ):
            ops.append((user, _SWIGLU))
            hidden //= 2
        elif (up := _sibling(user, value, m1)) is not None:
            ops.append((user, list(user.operands).index(up.output)))
        else:
            index = _per_column(user, value, hidden)
            if index is None:
                return None
            ops.append((user, index))
        value = user.results[0]


def _column_split(m: ge.MatMulOp, r: int, n: int, halves: bool) -> None:
    """Makes `m` column-parallel: the r-th of `n` column blocks of its weight and bias (of
    each half with `halves`, a merged gate/up weight)."""
    w = _weight(m)
    assert w is not None
    column_axis = 0 if m.transpose_b is not None else 1
    parts = 2 if halves else 1

    def block(array: np.ndarray, axis: int) -> np.ndarray:
        pieces = np.split(array, parts, axis=axis)
        return np.concatenate([_block(p, axis, r, n) for p in pieces], axis=axis)

    _replace_const(m, 1, block(w, column_axis))
    if m.bias is not None:
        bias = _const_array(m.bias)
        assert bias is not None  # checked by the caller
        _replace_const(m, 2, block(bias, -1))
    t = m.output.type
    assert isinstance(t, TensorType)
    _retype(m.output, [*t.get_shape()[:-1], t.get_shape()[-1] // n])


def _tensor_parallel(
    fn: func.FuncOp, r: int, n: int, group: str = "tp", strict: bool = False
) -> None:
    """Splits each Megatron pair of `fn` over the `n` ranks of `group`, as rank r; a pair
    whose hidden width is not a multiple of `n` stays replicated, or with `strict` is a
    located error."""
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
        t1 = m1.output.type
        assert isinstance(t1, TensorType)
        hidden = t1.get_shape()[-1]
        halves = any(i == _SWIGLU for _, i in ops)
        if m1.bias is not None and _const_array(m1.bias) is None:
            continue  # a bias not known: stays replicated
        if hidden % (2 * n if halves else n):
            if strict:
                raise op_error(
                    m1,
                    f"--shard: hidden width {hidden} is not a multiple of tp={n}"
                    + (" times 2 (the halves of swi_glu)" if halves else ""),
                )
            continue  # cannot split evenly: stays replicated
        # column-parallel m1 (and SwiGLU's up projection), the per-column constants after
        # it (a bias added by a `ge.add` rather than carried by the matmul, a scale)
        _column_split(m1, r, n, halves)
        width = hidden // n
        for op, index in ops:
            if index == _SWIGLU:
                width //= 2
            elif index is not None:
                up = op.operands[index].owner
                if isinstance(up, ge.MatMulOp):
                    _column_split(up, r, n, False)
                else:
                    array = _const_array(op.operands[index])
                    assert array is not None  # (`_per_column` read it)
                    _replace_const(op, index, _block(array, -1, r, n))
            _retype(op.results[0], [*_shape(op.results[0])[:-1], width])
        _row_parallel(m2, r, n, group)


def _heads_back(
    value: SSAValue, axis: int
) -> tuple[list[tuple[SSAValue, int]], ge.MatMulOp] | None:
    """From a flash attention operand (heads on `axis`) back to its projection: the values
    on the way, each with its head axis, and the matmul with a constant 2-D weight whose
    output columns are the heads; None for another form.  The way may hold transposes,
    reshapes splitting the last dim into [heads, D], and `ge.rotary_mul` whose cos/sin do
    not vary per head."""
    chain: list[tuple[SSAValue, int]] = []
    while True:
        if _single_user(value) is None:
            return None
        chain.append((value, axis))
        op = value.owner
        shape = value.type.get_shape() if isinstance(value.type, TensorType) else ()
        if isinstance(op, ge.TransposeOp):
            value, axis = op.input, op.perm.get_values()[axis]
        elif isinstance(op, ge.RotaryMulOp):
            for table in (op.operands[1], op.operands[2]):
                t = table.type
                at = axis - len(shape) + (t.get_num_dims() if isinstance(t, TensorType) else 0)
                if not isinstance(t, TensorType) or (at >= 0 and t.get_shape()[at] != 1):
                    return None
            value = op.operands[0]
        elif isinstance(op, ge.ReshapeOp):
            before = _shape(op.operands[0])
            if _keeps_last(op) and axis == len(shape) - 1:
                value, axis = op.operands[0], len(before) - 1
                continue
            if axis != len(shape) - 2 or before != [*shape[:-2], shape[-2] * shape[-1]]:
                return None
            value, axis = op.operands[0], len(before) - 1
        elif isinstance(op, ge.MatMulOp):
            ok = op.transpose_a is None and _weight(op) is not None and axis == len(shape) - 1
            if not ok or (op.bias is not None and _const_array(op.bias) is None):
                return None
            chain.pop()  # (the matmul's output is retyped by `_column_split`)
            return chain, op
        else:
            return None


def _heads_forward(value: SSAValue) -> tuple[list[tuple[SSAValue, int]], ge.MatMulOp] | None:
    """From a flash attention's output (heads on dim 1) to the output projection: the
    values on the way with their head axis, and the matmul contracting over the heads."""
    chain: list[tuple[SSAValue, int]] = []
    axis = 1
    while True:
        chain.append((value, axis))
        op = _single_user(value)
        shape = value.type.get_shape() if isinstance(value.type, TensorType) else ()
        if isinstance(op, ge.TransposeOp):
            axis = list(op.perm.get_values()).index(axis)
        elif isinstance(op, ge.ReshapeOp):
            after = _shape(op.results[0])
            merged = [*shape[:-2], shape[-2] * shape[-1]] if len(shape) >= 2 else None
            if _keeps_last(op) and axis == len(shape) - 1:
                axis = len(after) - 1
            elif axis != len(shape) - 2 or after != merged:
                return None
            else:
                axis = len(shape) - 2
        elif isinstance(op, ge.MatMulOp):
            ok = op.a == value and op.transpose_a is None and _weight(op) is not None
            return (chain, op) if ok and axis == len(shape) - 1 else None
        else:
            return None
        value = op.results[0]


def _row_parallel(m2: ge.MatMulOp, r: int, n: int, group: str) -> None:
    """Makes `m2` row-parallel (the r-th block of its weight's rows), then sums the
    partial products with a `ge.hcom_all_reduce` and adds its bias once, after it."""
    w2 = _weight(m2)
    assert w2 is not None
    row_axis = 1 if m2.transpose_b is not None else 0
    w2_block = _new_const(_block(w2, row_axis, r, n), m2.b, m2)
    old_w2 = m2.b.owner
    assert isinstance(old_w2, ge.ConstOp)  # (`_weight` read it)
    partial = ge.MatMulOp(
        m2.a, w2_block, None, m2.output.type, transpose_b=m2.transpose_b is not None
    )
    partial.attributes.update(m2.attributes)
    reduce = ge.HcomAllReduceOp(partial.output, "sum", group, n)
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
    # m2, then its old weight unless another op reads it (its input and bias are read by
    # the new ops)
    erase_dead([m2, old_w2], follow_producers=False)


def _shape(value: SSAValue) -> list[int]:
    t = value.type
    assert isinstance(t, TensorType)
    return list(t.get_shape())


def _split_axis(value: SSAValue, axis: int, n: int) -> None:
    shape = _shape(value)
    shape[axis] //= n
    _retype(value, shape)


def _attention_parallel(fn: func.FuncOp, r: int, n: int, group: str, strict: bool) -> None:
    """Splits each attention block of `fn` by heads over the `n` ranks of `group`: the q,
    k and v projections column-parallel (rank r takes the r-th block of heads, of the kv
    heads with grouped-query attention), `ge.flash_attention` on those heads, the output
    projection row-parallel with one all-reduce.  Supported form: `ge.flash_attention`
    (after `fuse-attention`, or built so) whose q/k/v come from `x @ W` through reshapes
    to [.., heads, D], transposes and `ge.rotary_mul`, and whose output reaches the output
    projection through transposes and a reshape merging [heads, D]; a mask must not vary
    per head.  Another form stays replicated."""
    for fa in [o for o in fn.body.walk() if isinstance(o, ge.FlashAttentionOp)]:
        if fa.mask is not None:
            mask = fa.mask.type
            if not isinstance(mask, TensorType) or (
                mask.get_num_dims() == 4 and mask.get_shape()[1] != 1
            ):
                continue
        sides = [_heads_back(v, 1) for v in (fa.query, fa.key, fa.value)]
        after = _heads_forward(fa.output)
        if after is None or any(s is None for s in sides):
            continue
        projections = [s[1] for s in sides if s is not None]
        if len({id(p) for p in projections}) != 3:
            continue  # a projection shared by q, k or v: stays replicated
        heads = [_shape(v)[1] for v in (fa.query, fa.key)]
        if any(h % n for h in heads):
            if strict:
                raise op_error(
                    fa,
                    f"--shard: {heads[0]} query heads and {heads[1]} key/value heads are "
                    f"not both multiples of tp={n}",
                )
            continue
        for side in sides:
            assert side is not None
            chain, proj = side
            _column_split(proj, r, n, False)
            for value, axis in reversed(chain):
                _split_axis(value, axis, n)
        chain, out = after
        for value, axis in chain:
            _split_axis(value, axis, n)
        _row_parallel(out, r, n, group)
