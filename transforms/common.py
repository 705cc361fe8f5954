"""Helpers shared by the graph passes (fuse, to-nc1hwc0, pattern passes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    FusedLoc,
    LocationAttr,
    ModuleOp,
    NoneAttr,
    UnknownLoc,
)
from xdsl.ir import Operation, SSAValue
from xdsl.traits import Commutative

from ge_dialect.ir.dialects import ge, stream
from ge_dialect.utils.errors import op_error
from ge_dialect.utils.walk import walk_ops


def erase_unused(op: Operation) -> None:
    """Erases `op`, whose results have no use, from its block: what `Rewriter.erase_op`
    does, but for replacing the (no) uses of each result by a new `ErasedSSAValue`, and
    without a rewriter's listeners (for passes that have none)."""
    block = op.parent
    assert block is not None and all(r.first_use is None for r in op.results)
    block.detach_op(op)
    op.drop_all_references()


def refuse_assigned(module: ModuleOp, pass_name: str) -> None:
    """Graph passes run before stream assignment: refuse a module that carries stream.id."""
    for op in walk_ops(module):
        if stream.ID in op.attributes:
            raise op_error(
                op,
                f"is assigned to a stream: --{pass_name} rewrites graphs before stream "
                f"assignment; run it before --assign-streams",
            )


def constant_of(value: SSAValue) -> ge.ConstOp | None:
    """The `ge.const` defining `value` when its data can be read (not elided)."""
    owner = value.owner
    if isinstance(owner, ge.ConstOp) and not isinstance(owner.value, ge.ElidedAttr):
        return owner
    return None


def logical_constant(value: SSAValue) -> np.ndarray | None:
    """The logical array of a readable constant, else None."""
    const = constant_of(value)
    return None if const is None else const.logical_array()


def operand_orders(op: Operation) -> tuple[tuple[SSAValue, SSAValue], ...]:
    """The orders in which a pattern may read the two operands of the binary `op`, as
    (first, second) pairs: the written order, then, if `op` is `Commutative`, the swapped one.

        for conv_value, other in operand_orders(add):   # ge.add: (lhs, rhs), (rhs, lhs)
            ...                                         # ge.sub: (lhs, rhs) only
    """
    lhs, rhs = op.operands
    if op.has_trait(Commutative):
        return ((lhs, rhs), (rhs, lhs))
    return ((lhs, rhs),)


def same_label(ops: Sequence[Operation]) -> bool:
    """Whether all `ops` carry the same stream label (or none)."""
    labels = [op.attributes.get(stream.LABEL) for op in ops]
    return all(label == labels[0] for label in labels)


def fused_location(ops: Sequence[Operation]) -> LocationAttr:
    """The location of an op that replaces `ops`: their locations fused."""
    locations: list[LocationAttr] = []
    for op in ops:
        loc = op.location
        inner: Sequence[LocationAttr] = (loc,)
        if isinstance(loc, FusedLoc):  # its parameter is typed `Attribute`: an array of locations
            inner = cast("ArrayAttr[LocationAttr]", loc.locations).data
        locations.extend(x for x in inner if not isinstance(x, UnknownLoc) and x not in locations)
    if not locations:
        return UnknownLoc()
    if len(locations) == 1:
        return locations[0]
    return FusedLoc(ArrayAttr(locations), NoneAttr())
