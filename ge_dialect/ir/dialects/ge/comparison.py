"""Comparison, logic and selection ops of the `ge` dialect (attention masks of transformers).

- `ComparisonOp`: `ge.equal`, `not_equal`, `less`, `less_equal`, `greater`, `greater_equal`
  compare two tensors of one element type (f16, f32, i8, ui8, i32, i64 or i1) with numpy
  broadcasting and give i1 (bool).  Floats compare as IEEE does: NaN is unequal to
  everything (itself included), so `not_equal` is true and every other comparison false;
- `ge.logical_not`, `ge.logical_and`, `ge.logical_or` on i1 (broadcasting);
- `ge.where %cond, %a, %b`: `a` where `cond` (i1) is true, else `b`, three-way broadcasting.

All of them take and produce default-layout (ND/NCHW) tensors: they are mask arithmetic,
never on the hot path, so layout passes leave them alone.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Commutative, Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects.ge.base import require_default_layout, shape_str, type_of
from ge_dialect.utils.dtypes import type_name
from ge_dialect.utils.shapes import broadcast_shape

I1 = IntegerType(1)
"""The element type of a boolean tensor."""

COMPARABLE = ("f16", "f32", "i8", "ui8", "i32", "i64", "i1")
"""The element types a comparison takes (both operands alike)."""


def _bool_type(shape: Sequence[int]) -> TensorType:
    return TensorType(I1, list(shape))


def _broadcast(op: IRDLOperation, types: Sequence[tuple[TensorType, str]]) -> tuple[int, ...]:
    """The broadcast shape of the operands (named in `types`), all of default layout."""
    shape: tuple[int, ...] | None = ()
    for t, what in types:
        require_default_layout(t, f"operand '{what}'", op.name)
        assert shape is not None
        shape = broadcast_shape(shape, t.get_shape())
        if shape is None:
            shapes = " and ".join(shape_str(u.get_shape()) for u, _ in types)
            raise VerifyException(f"operands have shapes {shapes}, which do not broadcast")
    assert shape is not None
    return shape


def _expect_result(y: TensorType, shape: Sequence[int], element_type: Attribute, op: str) -> None:
    require_default_layout(y, "result", op)
    if tuple(y.get_shape()) != tuple(shape) or y.element_type != element_type:
        raise VerifyException(
            f"result has type {y}, expected shape {shape_str(shape)} and element type "
            f"{element_type}"
        )


def _require_bool(t: TensorType, what: str) -> None:
    if t.element_type != I1:
        raise VerifyException(f"{what} must be i1, got {t.element_type}")


class ComparisonOp(IRDLOperation, abc.ABC):
    """`lhs <op> rhs` elementwise with numpy broadcasting; the result is i1.

    `COMPARISON` is the numpy ufunc name the interpreter and the kernel apply.
    """

    COMPARISON: ClassVar[str]

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)

    traits = traits_def(Pure())

    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            a, b = lhs.type, rhs.type
            assert isinstance(a, TensorType) and isinstance(b, TensorType)
            shape = broadcast_shape(a.get_shape(), b.get_shape())
            result_type = _bool_type(shape if shape is not None else a.get_shape())
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        a = type_of(self.lhs, "operand 'lhs'")
        b = type_of(self.rhs, "operand 'rhs'")
        y = type_of(self.output, "result")
        if type_name(a.element_type) not in COMPARABLE:
            raise VerifyException(
                f"operand 'lhs' must be one of {', '.join(COMPARABLE)}, got {a.element_type}"
            )
        if a.element_type != b.element_type:
            raise VerifyException(
                f"operand 'rhs' has element type {b.element_type}, expected {a.element_type} "
                "(the lhs's)"
            )
        shape = _broadcast(self, ((a, "lhs"), (b, "rhs")))
        _expect_result(y, shape, I1, self.name)


@irdl_op_definition
class EqualOp(ComparisonOp):
    """`lhs == rhs` elementwise with numpy broadcasting (NaN == NaN is false).

    %m = ge.equal %a, %b : (tensor<2x8xi64>, tensor<i64>) -> tensor<2x8xi1>
    """

    name = "ge.equal"
    COMPARISON: ClassVar[str] = "equal"
    traits = traits_def(Pure(), Commutative())


@irdl_op_definition
class NotEqualOp(ComparisonOp):
    """`lhs != rhs` elementwise with numpy broadcasting (NaN != NaN is true).

    %m = ge.not_equal %a, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xi1>
    """

    name = "ge.not_equal"
    COMPARISON: ClassVar[str] = "not_equal"
    traits = traits_def(Pure(), Commutative())


@irdl_op_definition
class LessOp(ComparisonOp):
    """`lhs < rhs` elementwise with numpy broadcasting (false if either is NaN).

    %m = ge.less %a, %b : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xi1>
    """

    name = "ge.less"
    COMPARISON: ClassVar[str] = "less"


@irdl_op_definition
class LessEqualOp(ComparisonOp):
    """`lhs <= rhs` elementwise with numpy broadcasting (false if either is NaN).

    %m = ge.less_equal %a, %b : (tensor<8x1xi64>, tensor<1x8xi64>) -> tensor<8x8xi1>
    """

    name = "ge.less_equal"
    COMPARISON: ClassVar[str] = "less_equal"


@irdl_op_definition
class GreaterOp(ComparisonOp):
    """`lhs > rhs` elementwise with numpy broadcasting (false if either is NaN).

    %m = ge.greater %a, %b : (tensor<2x8xf16>, tensor<f16>) -> tensor<2x8xi1>
    """

    name = "ge.greater"
    COMPARISON: ClassVar[str] = "greater"


@irdl_op_definition
class GreaterEqualOp(ComparisonOp):
    """`lhs >= rhs` elementwise with numpy broadcasting (false if either is NaN).

    %m = ge.greater_equal %a, %b : (tensor<2x8xi32>, tensor<2x8xi32>) -> tensor<2x8xi1>
    """

    name = "ge.greater_equal"
    COMPARISON: ClassVar[str] = "greater_equal"


@irdl_op_definition
class LogicalNotOp(IRDLOperation):
    """`not x` elementwise on i1.

    %n = ge.logical_not %m : tensor<2x8xi1>
    """

    name = "ge.logical_not"

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        type_of(self.output, "result")
        _require_bool(x, "operand 'input'")
        require_default_layout(x, "operand 'input'", self.name)


class LogicalBinaryOp(IRDLOperation, abc.ABC):
    """A logical connective of two i1 tensors with numpy broadcasting; the result is i1.

    `LOGIC` is the numpy ufunc name the interpreter and the kernel apply.
    """

    LOGIC: ClassVar[str]

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)

    traits = traits_def(Pure(), Commutative())

    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        if result_type is None:
            a, b = lhs.type, rhs.type
            assert isinstance(a, TensorType) and isinstance(b, TensorType)
            shape = broadcast_shape(a.get_shape(), b.get_shape())
            result_type = _bool_type(shape if shape is not None else a.get_shape())
        super().__init__(operands=[lhs, rhs], result_types=[result_type])

    def verify_(self) -> None:
        a = type_of(self.lhs, "operand 'lhs'")
        b = type_of(self.rhs, "operand 'rhs'")
        y = type_of(self.output, "result")
        _require_bool(a, "operand 'lhs'")
        _require_bool(b, "operand 'rhs'")
        shape = _broadcast(self, ((a, "lhs"), (b, "rhs")))
        _expect_result(y, shape, I1, self.name)


@irdl_op_definition
class LogicalAndOp(LogicalBinaryOp):
    """`lhs and rhs` elementwise on i1 with numpy broadcasting.

    %m = ge.logical_and %a, %b : (tensor<8x8xi1>, tensor<1x8xi1>) -> tensor<8x8xi1>
    """

    name = "ge.logical_and"
    LOGIC: ClassVar[str] = "logical_and"


@irdl_op_definition
class LogicalOrOp(LogicalBinaryOp):
    """`lhs or rhs` elementwise on i1 with numpy broadcasting.

    %m = ge.logical_or %a, %b : (tensor<8x8xi1>, tensor<8x8xi1>) -> tensor<8x8xi1>
    """

    name = "ge.logical_or"
    LOGIC: ClassVar[str] = "logical_or"


@irdl_op_definition
class WhereOp(IRDLOperation):
    """`a` where `cond` is true, else `b`, elementwise with three-way numpy broadcasting.

    `cond` is i1; `a`, `b` and the result share one element type (any supported type).

    %y = ge.where %m, %a, %b : (tensor<1x8xi1>, tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    """

    name = "ge.where"

    condition = operand_def(TensorType)
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    output = result_def(TensorType)

    traits = traits_def(Pure())

    assembly_format = "$condition `,` $a `,` $b attr-dict `:` functional-type(operands, results)"

    def __init__(
        self,
        condition: SSAValue,
        a: SSAValue,
        b: SSAValue,
        result_type: Attribute | None = None,
    ):
        if result_type is None:
            c, x, y = condition.type, a.type, b.type
            assert isinstance(c, TensorType) and isinstance(x, TensorType)
            assert isinstance(y, TensorType)
            shape = broadcast_shape(c.get_shape(), x.get_shape())
            shape = broadcast_shape(shape or (), y.get_shape())
            result_type = TensorType(x.element_type, list(shape or x.get_shape()))
        super().__init__(operands=[condition, a, b], result_types=[result_type])

    def verify_(self) -> None:
        c = type_of(self.condition, "operand 'condition'")
        a = type_of(self.a, "operand 'a'")
        b = type_of(self.b, "operand 'b'")
        y = type_of(self.output, "result")
        _require_bool(c, "operand 'condition'")
        if a.element_type != b.element_type:
            raise VerifyException(
                f"operand 'b' has element type {b.element_type}, expected {a.element_type} "
                "(the a's)"
            )
        shape = _broadcast(self, ((c, "condition"), (a, "a"), (b, "b")))
        _expect_result(y, shape, a.element_type, self.name)


COMPARISON_OPS = (EqualOp, NotEqualOp, LessOp, LessEqualOp, GreaterOp, GreaterEqualOp)
LOGICAL_OPS = (LogicalAndOp, LogicalOrOp)
