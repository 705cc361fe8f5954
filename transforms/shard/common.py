"""Helpers the parallelisms of `--shard` share: retyping values, reading and splitting
constant weights."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from ge_dialect.ir.dialects import ge
from transforms.common import erase_dead


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
