"""Helpers shared by the graph passes (fuse, layout, pattern passes)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import FusedLoc, ModuleOp, NoneAttr, UnknownLoc
from xdsl.ir import Attribute, Operation, SSAValue

from ge_dialect import ge, stream
from ge_dialect.diagnostics import op_error
from ge_dialect.weights import const_logical


def refuse_assigned(module: ModuleOp, pass_name: str) -> None:
    """Graph passes run before stream assignment: refuse a module that carries stream.id."""
    for op in module.walk():
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
    return None if const is None else const_logical(const)


def same_label(ops: Sequence[Operation]) -> bool:
    """Whether all `ops` carry the same stream label (or none)."""
    labels = [op.attributes.get(stream.LABEL) for op in ops]
    return all(label == labels[0] for label in labels)


def fused_location(ops: Sequence[Operation]) -> Attribute:
    """The location of an op that replaces `ops`: their locations fused."""
    locations: list[Attribute] = []
    for op in ops:
        loc = op.location
        inner = loc.locations.data if isinstance(loc, FusedLoc) else (loc,)
        locations.extend(x for x in inner if not isinstance(x, UnknownLoc) and x not in locations)
    if not locations:
        return UnknownLoc()
    if len(locations) == 1:
        return locations[0]
    return FusedLoc(locations, NoneAttr())
