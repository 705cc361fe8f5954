"""The reduction and normalisation ops of the `ge` dialect.

- `ge.reduce_sum`, `ge.reduce_mean`, `ge.reduce_max`, `ge.reduce_min`: reduce over `axes`
  (sorted, distinct, non-negative; empty means every axis, as ONNX's default
  `noop_with_empty_axes=0`); `keepdims` keeps the reduced dims as 1, otherwise they are
  dropped (reducing every axis then gives a rank-0 tensor).
- `ge.layer_norm`: normalises over the dims [axis, rank) as ONNX LayerNormalization, with
  an optional weight and bias of the normalised shape.
- `ge.rms_norm`: `x * rsqrt(mean(x^2) + epsilon) * weight` over the dims [axis, rank).

All take default-layout (ND/NCHW) tensors.  `ge.softmax` and `ge.global_avg_pool` stay in
`ops.py`.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    TensorType,
    UnitAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects.ge.base import (
    check_finite,
    expect_element_type,
    expect_shape,
    int_array,
    num,
    require_default_layout,
    require_float,
    require_float_or_int8,
    shape_str,
    type_of,
)


def reduced_shape(shape: Sequence[int], axes: Sequence[int], keepdims: bool) -> list[int]:
    """The result shape of reducing `shape` over `axes` (empty: every axis)."""
    reduced = set(axes) if axes else set(range(len(shape)))
    if keepdims:
        return [1 if i in reduced else d for i, d in enumerate(shape)]
    return [d for i, d in enumerate(shape) if i not in reduced]


# --------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------


class ReduceOp(IRDLOperation, abc.ABC):
    """Reduces `input` over `axes` (empty: all of them); `keepdims` keeps them as size 1."""

    input = operand_def(TensorType)
    output = result_def(TensorType)
    axes = prop_def(DenseArrayBase.constr(i64))
    keepdims = opt_prop_def(UnitAttr)

    traits = traits_def(Pure())

    assembly_format = (
        "$input `axes` $axes (`keepdims` $keepdims^)? attr-dict `:` type($input) `->` type($output)"
    )

    ALLOWS_INT8: ClassVar[bool] = False
    """Whether i8/ui8 inputs are accepted (max and min: the result is one of the inputs)."""

    def __init__(
        self, input: SSAValue, axes: Sequence[int], keepdims: bool, result_type: Attribute
    ):
        super().__init__(
            operands=[input],
            result_types=[result_type],
            properties={
                "axes": int_array(axes),
                "keepdims": UnitAttr() if keepdims else None,
            },
        )

    def reduced_axes(self) -> tuple[int, ...]:
        """The axes reduced over, with an empty `axes` expanded to every axis."""
        axes = tuple(self.axes.get_values())
        if axes:
            return axes
        t = self.input.type
        assert isinstance(t, TensorType)
        return tuple(range(t.get_num_dims()))

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        if self.ALLOWS_INT8:
            require_float_or_int8(x, "operand 'input'")
        else:
            require_float(x, "operand 'input'")
        require_default_layout(x, "operand 'input'", self.name[3:])
        require_default_layout(y, "result", self.name[3:])
        axes = list(self.axes.get_values())
        rank = x.get_num_dims()
        if any(b <= a for a, b in zip(axes, axes[1:], strict=False)) or any(
            not 0 <= a < rank for a in axes
        ):
            raise VerifyException(
                f"axes {shape_str(axes)} must be distinct, increasing and in [0, {rank}) "
                f"for rank {rank}"
            )
        expect_shape(y, reduced_shape(x.get_shape(), axes, self.keepdims is not None))
        expect_element_type(y, x.element_type)


@irdl_op_definition
class ReduceSumOp(ReduceOp):
    """The sum over `axes` (f16 accumulates in f32 on the device).

    %y = ge.reduce_sum %x axes [1] keepdims : tensor<2x8xf32> -> tensor<2x1xf32>
    """

    name = "ge.reduce_sum"


@irdl_op_definition
class ReduceMeanOp(ReduceOp):
    """The mean over `axes` (f16 accumulates in f32 on the device).

    %y = ge.reduce_mean %x axes [] : tensor<2x8xf32> -> tensor<f32>
    """

    name = "ge.reduce_mean"


@irdl_op_definition
class ReduceMaxOp(ReduceOp):
    """The maximum over `axes` (f16, f32, i8 or ui8).

    %y = ge.reduce_max %x axes [0, 2] : tensor<2x3x4xi8> -> tensor<3xi8>
    """

    name = "ge.reduce_max"
    ALLOWS_INT8: ClassVar[bool] = True


@irdl_op_definition
class ReduceMinOp(ReduceOp):
    """The minimum over `axes` (f16, f32, i8 or ui8).

    %y = ge.reduce_min %x axes [1] : tensor<2x3xf16> -> tensor<2xf16>
    """

    name = "ge.reduce_min"
    ALLOWS_INT8: ClassVar[bool] = True


# --------------------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------------------


def _verify_norm(op: LayerNormOp | RmsNormOp, params: Sequence[tuple[str, SSAValue | None]]):
    """Shared checks: float default-layout input, axis in range, finite epsilon >= 0, and
    each present parameter of the normalised shape and the input's element type."""
    x = type_of(op.input, "operand 'input'")
    require_float(x, "operand 'input'")
    require_default_layout(x, "operand 'input'", op.name[3:])
    rank = x.get_num_dims()
    axis = op.axis.value.data
    if not 0 <= axis < rank:
        raise VerifyException(f"axis {axis} is out of range [0, {rank}) for rank {rank}")
    eps = op.epsilon.value.data
    check_finite(eps, "epsilon")
    if eps < 0:
        raise VerifyException(f"epsilon must be >= 0, got {num(eps)}")
    normalised = x.get_shape()[axis:]
    for name, value in params:
        if value is None:
            continue
        p = type_of(value, f"operand '{name}'")
        require_default_layout(p, f"operand '{name}'", op.name[3:])
        expect_shape(p, normalised, f"operand '{name}'")
        expect_element_type(p, x.element_type, f"operand '{name}'")


@irdl_op_definition
class LayerNormOp(IRDLOperation):
    """Layer normalisation over the dims [axis, rank), as ONNX LayerNormalization:

        y = (x - mean) / sqrt(var + epsilon) * weight + bias

    `weight` and `bias` are optional, of the normalised shape x.shape[axis:]; a bias needs
    a weight.

        %y = ge.layer_norm %x weight %w bias %b axis 1 epsilon 1.0e-05
               : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>
    """

    name = "ge.layer_norm"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    weight = opt_operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    output = result_def(T)
    axis = prop_def(IntegerAttr[I64])
    epsilon = prop_def(FloatAttr[Float32Type], default_value=FloatAttr(1e-5, f32))

    traits = traits_def(Pure())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    assembly_format = (
        "$input (`weight` $weight^)? (`bias` $bias^)? `axis` $axis (`epsilon` $epsilon^)? "
        "attr-dict `:` type($input) (`,` type($weight)^)? "
        "(`,` type($bias)^)?"
    )

    def __init__(
        self,
        input: SSAValue,
        weight: SSAValue | None,
        bias: SSAValue | None,
        axis: int,
        epsilon: float = 1e-5,
    ):
        super().__init__(
            operands=[input, weight, bias],
            result_types=[input.type],
            properties={"axis": IntegerAttr(axis, i64), "epsilon": FloatAttr(epsilon, f32)},
        )

    def verify_(self) -> None:
        _verify_norm(self, (("weight", self.weight), ("bias", self.bias)))
        if self.bias is not None and self.weight is None:
            # Kernels take the optional operands in order: a bias alone would read as a weight.
            raise VerifyException("operand 'bias' needs operand 'weight' (use a weight of ones)")


@irdl_op_definition
class RmsNormOp(IRDLOperation):
    """Root-mean-square normalisation over the dims [axis, rank) (GE's RmsNorm):

        y = x * rsqrt(mean(x^2) + epsilon) * weight

    `weight` has the normalised shape x.shape[axis:].

        %y = ge.rms_norm %x, %w axis 1 epsilon 1.0e-06 : tensor<2x8xf32>, tensor<8xf32>
    """

    name = "ge.rms_norm"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    weight = operand_def(TensorType)
    output = result_def(T)
    axis = prop_def(IntegerAttr[I64])
    epsilon = prop_def(FloatAttr[Float32Type], default_value=FloatAttr(1e-6, f32))

    traits = traits_def(Pure())

    assembly_format = (
        "$input `,` $weight `axis` $axis (`epsilon` $epsilon^)? attr-dict `:` type($input) `,` "
        "type($weight)"
    )

    def __init__(self, input: SSAValue, weight: SSAValue, axis: int, epsilon: float = 1e-6):
        super().__init__(
            operands=[input, weight],
            result_types=[input.type],
            properties={"axis": IntegerAttr(axis, i64), "epsilon": FloatAttr(epsilon, f32)},
        )

    def verify_(self) -> None:
        _verify_norm(self, (("weight", self.weight),))
