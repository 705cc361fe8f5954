"""Helpers shared by the graph passes (fuse, to-nc1hwc0, shard, pattern passes): the one
remover of dead ops, the location of a fused op, operand and label questions."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, cast

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    FileLineColLoc,
    FusedLoc,
    LocationAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    UnknownLoc,
)
from xdsl.ir import Operation, SSAValue
from xdsl.traits import (
    Commutative,
    IsTerminator,
    MemoryEffect,
    NoMemoryEffect,
    SymbolOpInterface,
)
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from ge_dialect.ir.dialects import ge, stream
from ge_dialect.utils.errors import op_error
from ge_dialect.utils.scope_attrs import SCOPE_ATTRS
from ge_dialect.utils.walk import walk_ops

if TYPE_CHECKING:
    from xdsl.pattern_rewriter import PatternRewriter


# --------------------------------------------------------------------------------------
# Dead ops
# --------------------------------------------------------------------------------------


def erase_dead(
    ops: Iterable[Operation],
    *,
    follow_producers: bool = True,
    rewriter: PatternRewriter | None = None,
) -> None:
    """The passes' one remover of dead ops.

    Erases each op of `ops`, in that order (give users before their producers), that is
    still in a block and has no use left, whatever its effects: the ops a rewrite replaced,
    or the candidates a pass picked (only its constants and conversions, say).  Then, with
    `follow_producers`, the producers of the erased ops' operands that this leaves trivially
    dead (`is_dead`), and theirs in turn, last found first, as xDSL's greedy rewrite driver
    erases them; without it, nothing else (a pass that must not erase the input's own dead
    ops lists its candidates users first, so that one reverse walk erases whole chains).

    Through `rewriter` when given: each erasure is announced to its listeners (a walker's
    worklist), in the order above.  Otherwise the ops are detached directly, with no
    listener to notify (`_erase_unused`: the passes that drive their own walk, for speed).
    """
    erase = _erase_unused if rewriter is None else rewriter.erase
    producers: list[Operation] = []
    for op in ops:
        if op.parent is None or _has_use(op):
            continue
        if follow_producers:
            producers.extend(_producers(op))
        erase(op)
    while producers:
        op = producers.pop()
        if op.parent is not None and is_dead(op):
            producers.extend(_producers(op))
            erase(op)


def is_dead(op: Operation) -> bool:
    """xDSL's `is_trivially_dead(op)` (no use, no effect beyond its results, neither a
    terminator nor a symbol), from a per-class answer where the class alone decides."""
    if _has_use(op):
        return False
    cls = type(op)
    pure = _DEAD_IF_UNUSED.get(cls)
    if pure is None:
        pure = _DEAD_IF_UNUSED[cls] = _dead_if_unused(op)
    if pure and not op.regions:
        return True
    return is_trivially_dead(op)


_DEAD_IF_UNUSED: dict[type[Operation], bool] = {}
"""Per op class: whether an op of it without regions is trivially dead once its results are
unused (`_dead_if_unused`)."""


def _dead_if_unused(op: Operation) -> bool:
    """Whether `op`'s class declares no memory effect at all (every `MemoryEffect` trait a
    `NoMemoryEffect`) and is neither a terminator nor a symbol (`would_be_trivially_dead`,
    for an op of that class without regions)."""
    effects = op.get_traits_of_type(MemoryEffect)  # type: ignore[type-abstract]
    return (
        bool(effects)
        and all(isinstance(t, NoMemoryEffect) for t in effects)
        and not op.has_trait(IsTerminator, value_if_unregistered=False)
        and not op.has_trait(SymbolOpInterface, value_if_unregistered=False)
    )


def _has_use(op: Operation) -> bool:
    """Whether a result of `op` has a use."""
    for result in op.results:  # (a loop: no generator per op)
        if result.first_use is not None:
            return True
    return False


def _producers(op: Operation) -> list[Operation]:
    """The ops defining `op`'s operands (not the block arguments), in operand order."""
    return [v.owner for v in op.operands if isinstance(v.owner, Operation)]


def _erase_unused(op: Operation) -> None:
    """Erases `op`, whose results have no use, from its block: what `Rewriter.erase_op`
    does, but for replacing the (no) uses of each result by a new `ErasedSSAValue`, and
    without a rewriter's listeners."""
    block = op.parent
    assert block is not None
    block.detach_op(op)
    op.drop_all_references()


# --------------------------------------------------------------------------------------
# Other helpers
# --------------------------------------------------------------------------------------


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


def inherit_scope_attrs(new: Operation, ops: Sequence[Operation]) -> None:
    """Gives `new`, the op replacing `ops`, each TorchAir scope attribute
    (`ge_dialect.utils.scope_attrs.SCOPE_ATTRS`: core limit, super kernel) that all of
    `ops` (constants aside: scopes leave them bare) carry with one value, unless it has its
    own or is a constant:

        %a = ge.conv2d ... {_op_aicore_num = "8"}   %b = ge.relu %a {_op_aicore_num = "8"}
        ->  %b = ge.fused_conv2d ... {_op_aicore_num = "8"}
    """
    if isinstance(new, ge.ConstOp):
        return
    pieces = [op for op in ops if not isinstance(op, ge.ConstOp)]
    for name in SCOPE_ATTRS:
        values = [op.attributes.get(name) for op in pieces]
        if values and values[0] is not None and name not in new.attributes:
            if all(v == values[0] for v in values):
                new.attributes[name] = values[0]


def fused_location(ops: Sequence[Operation]) -> LocationAttr:
    """The location of an op that replaces `ops`: their locations fused (nested fused
    locations flattened, unknown ones and repeats left out, in order of first appearance);
    one location as itself, none as `UnknownLoc`."""
    locations: list[LocationAttr] = []
    for op in ops:
        loc = op.location
        inner: Sequence[LocationAttr] = (loc,)
        if type(loc) is FusedLoc:  # its parameter is typed `Attribute`: an array of locations
            inner = cast("ArrayAttr[LocationAttr]", loc.locations).data
        for x in inner:  # (`type() is`: the builtin locations have no subclasses)
            if type(x) is not UnknownLoc and not any(_same_location(x, y) for y in locations):
                locations.append(x)
    if not locations:
        return UnknownLoc()
    if len(locations) == 1:
        return locations[0]
    return FusedLoc(ArrayAttr(locations), _NO_METADATA)


_NO_METADATA = NoneAttr()


def _same_location(a: LocationAttr, b: LocationAttr) -> bool:
    """`a == b`, answered without comparing all parameters where a cheap look tells (a
    comparison of two attributes walks their parameters)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False  # dataclass equality: attributes of different classes differ
    if isinstance(a, NameLoc) and a.desc.data != cast(NameLoc, b).desc.data:
        return False
    if isinstance(a, FileLineColLoc):
        c = cast(FileLineColLoc, b)
        if a.line.data != c.line.data or a.column.data != c.column.data:
            return False
    return a == b
