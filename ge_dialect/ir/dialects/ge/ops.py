"""The ops of the `ge` dialect: tensor-level graph ops with value semantics.

Ops work on *logical* shapes (NCHW for 4-D activations, OIHW for conv weights); a storage
format lives in the tensor type's encoding.  Only `ge.const` ever holds physical data.
Most ops belong to a family in `base.py`, which declares their operands, format and
verifier; an op here is its name, docstring and class constants.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    NoneAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
    i32,
    i64,
)
from xdsl.interfaces import HasCanonicalizationPatternsInterface
from xdsl.ir import Attribute, Operation, SSAValue
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
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import Commutative, ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects.ge.attributes import (
    C0_FORMATS,
    Activation,
    ActivationAttr,
    ElidedAttr,
    ExternalDataAttr,
    Format,
    Reduction,
    ReductionAttr,
)
from ge_dialect.ir.dialects.ge.base import (
    CONV_ATTRIBUTES_FORMAT,
    ONE,
    POOLING_FORMAT,
    BinaryElementwiseOp,
    CollectiveOp,
    ConvolutionOp,
    ElementTypes,
    FoldingDataMovementOp,
    PoolingOp,
    UnaryElementwiseOp,
    UnaryOp,
    check_finite,
    expect_element_type,
    expect_layout,
    expect_shape,
    int_array,
    num,
    require_activation_format,
    require_default_layout,
    require_float,
    require_float_or_int8,
    require_rank4,
    shape_str,
    type_of,
)
from ge_dialect.ir.dialects.ge.data import read_physical
from ge_dialect.ir.dialects.ge.types import (
    dense_from_numpy,
    dense_to_numpy,
    has_padding_lanes,
    padding_mask,
    physical_shape,
    tensor_format,
    to_logical,
    to_physical,
)
from ge_dialect.utils.dtypes import GRAPH_TYPES, is_float, itemsize, type_name
from ge_dialect.utils.floats import print_dense
from ge_dialect.utils.shapes import broadcast_shape

# --------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------


@irdl_op_definition
class ConstOp(IRDLOperation):
    """A constant tensor.

    The value's data has the *physical* shape of the result type; when the result type has
    no encoding the two types are equal and are printed once:

        %b = ge.const dense<[0.5, -1.0]> : tensor<2xf32>
        %w = ge.const dense<"0x..."> : tensor<1x2x8x8x16xf16>
               -> tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>
        %e = ge.const #ge.external<"model.weights", offset = 0, length = 4096> : tensor<1024xf32>
        %x = ge.const #ge.elided : tensor<64x64x3x3xf32>
    """

    name = "ge.const"

    value = prop_def(DenseIntOrFPElementsAttr | ExternalDataAttr | ElidedAttr)
    output = result_def(TensorType)

    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: Attribute, result_type: Attribute | None = None):
        if result_type is None:
            assert isinstance(value, DenseIntOrFPElementsAttr)
            result_type = value.type
        super().__init__(properties={"value": value}, result_types=[result_type])

    @staticmethod
    def from_numpy(logical: np.ndarray, result_type: TensorType) -> ConstOp:
        """A constant of `result_type` holding the logical array `logical`."""
        physical = to_physical(result_type, logical)
        value = dense_from_numpy(physical, result_type.element_type, like=result_type)
        return ConstOp.create(properties={"value": value}, result_types=[result_type])

    @property
    def tensor_type(self) -> TensorType:
        t = self.output.type
        assert isinstance(t, TensorType)
        return t

    def is_readable(self) -> bool:
        """Whether the data can be read (it was not elided)."""
        return not isinstance(self.value, ElidedAttr)

    def physical_array(self) -> np.ndarray:
        """The stored array (read-only; memory-mapped for external data)."""
        return read_physical(self.value, self.tensor_type, self)

    def logical_array(self) -> np.ndarray:
        """The logical (NCHW/OIHW/ND) array."""
        return to_logical(self.tensor_type, self.physical_array())

    @classmethod
    def parse(cls, parser: Parser) -> ConstOp:
        if parser.parse_optional_keyword("dense") is not None:
            dense = parser.parse_dense_int_or_fp_elements_attr(None)
            result_type: Attribute = dense.type
            if parser.parse_optional_punctuation("->") is not None:
                result_type = parser.parse_type()
            value: Attribute = dense
        else:
            value = parser.parse_attribute()
            parser.parse_punctuation(":")
            result_type = parser.parse_type()
        attrs = parser.parse_optional_attr_dict()
        op = cls(value, result_type)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        if isinstance(self.value, DenseIntOrFPElementsAttr):
            # Exact on any printer: float elements re-parse to the same bits.
            print_dense(printer, self.value)
        else:
            printer.print_attribute(self.value)
        if isinstance(self.value, DenseIntOrFPElementsAttr):
            if self.value.type != self.output.type:
                printer.print_string(" -> ")
                printer.print_attribute(self.output.type)
        else:
            printer.print_string(" : ")
            printer.print_attribute(self.output.type)
        printer.print_op_attributes(self.attributes)

    def verifier_key_without_data(self) -> tuple[object, ...] | None:
        """What `verify_` reads when it does not read the data (so that located verification
        can share its result among constants), or None when it does: a C0 format with
        padding lanes, whose data the verifier reads, or a type too malformed to tell."""
        t = self.output.type
        if isinstance(t, TensorType) and tensor_format(t) in C0_FORMATS:
            try:
                if has_padding_lanes(t):
                    return None
            except (ValueError, TypeError, KeyError):  # the verifier's to report
                return None
        value = self.value
        if isinstance(value, DenseIntOrFPElementsAttr):
            return (ConstOp, t, DenseIntOrFPElementsAttr, value.type)
        return (ConstOp, t, value)  # external (its length) or elided

    def verify_(self) -> None:
        t = type_of(self.output, "result")
        expected = physical_shape(t)
        value = self.value
        if isinstance(value, DenseIntOrFPElementsAttr):
            if value.get_element_type() != t.element_type:
                raise VerifyException(
                    f"value has element type {value.get_element_type()}, "
                    f"expected {t.element_type} (the result's)"
                )
            if not isinstance(value.type, TensorType) or not isinstance(
                value.type.encoding, NoneAttr
            ):
                raise VerifyException("value must be a dense tensor without encoding")
            if tuple(value.get_shape()) != expected:
                raise VerifyException(
                    f"value has shape {shape_str(value.get_shape())}, expected the physical "
                    f"shape {shape_str(expected)} of {t}"
                )
            if tensor_format(t) in C0_FORMATS and has_padding_lanes(t):
                physical = dense_to_numpy(value)
                if np.any(physical[padding_mask(t)]):  # NaN counts as nonzero
                    raise VerifyException(
                        f"value has nonzero padding lanes: every lane beyond the logical "
                        f"shape {shape_str(t.get_shape())} of the {tensor_format(t)} constant "
                        "must be zero"
                    )
        elif isinstance(value, ExternalDataAttr):
            nbytes = math.prod(expected) * itemsize(t.element_type)
            if value.length.data != nbytes:
                raise VerifyException(
                    f"external data has length {value.length.data}, expected {nbytes} bytes "
                    f"for the physical shape {shape_str(expected)} of {t}"
                )


class GeConstantMaterialization(ConstantMaterializationInterface):
    """Folded values become `ge.const` ops (the value is the physical dense array)."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation | None:
        if not isinstance(value, DenseIntOrFPElementsAttr) or not isinstance(type, TensorType):
            return None
        return ConstOp(value, type)


# --------------------------------------------------------------------------------------
# Convolution and batch norm
# --------------------------------------------------------------------------------------


@irdl_op_definition
class Conv2DOp(ConvolutionOp):
    """2-D convolution (cross-correlation) of an NCHW input with OIHW weights.

    `pads` is GE's order [top, bottom, left, right]; `groups` splits channels (a depthwise
    conv has groups == input channels).  The input may be NC1HWC0 and the filter FRACTAL_Z.

        %y = ge.conv2d %x, %w bias %b strides [2, 2] pads [1, 1, 1, 1] groups 2
               : tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<1x6x4x4xf32>
    """

    name = "ge.conv2d"


_FUSED_SEGMENTS = {
    (has_bias, has_residual): DenseArrayBase.from_list(i32, (1, 1, has_bias, has_residual))
    for has_bias in (False, True)
    for has_residual in (False, True)
}
"""The operand segment sizes of a `ge.fused_conv2d`, by (has bias, has residual)."""


_ACTIVATION_ATTRS = {a: ActivationAttr(a) for a in Activation}
"""One attribute per activation (attributes are immutable values)."""


@irdl_op_definition
class FusedConv2DOp(ConvolutionOp):
    """A conv with bias, residual add and activation fused: `act(conv(x, W) + b + residual)`.

    `alpha` is the slope of leaky_relu and is present exactly when activation is leaky_relu.
    The residual has the result's type, so its type is not printed.

        %y = ge.fused_conv2d %x, %w bias %b residual %r activation relu pads [1, 1, 1, 1]
               : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32> -> tensor<1x8x8x8xf32>
    """

    name = "ge.fused_conv2d"

    # IRDL orders a subclass's fields before its base's: the family's operands and
    # properties are listed again here so that the residual and the activation come last.
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = ConvolutionOp.input
    filter = ConvolutionOp.filter
    bias = ConvolutionOp.bias
    residual = opt_operand_def(T)
    output = result_def(T)

    strides = ConvolutionOp.strides
    pads = ConvolutionOp.pads
    dilations = ConvolutionOp.dilations
    groups = ConvolutionOp.groups
    activation = prop_def(ActivationAttr, default_value=ActivationAttr(Activation.NONE))
    alpha = opt_prop_def(FloatAttr[Float32Type])

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    assembly_format = (
        "$input `,` $filter (`bias` $bias^)? (`residual` $residual^)? "
        "(`activation` $activation^)? (`alpha` $alpha^)? "
        + CONV_ATTRIBUTES_FORMAT
        + " attr-dict `:` "
        "type($input) `,` type($filter) (`,` type($bias)^)? `->` type($output)"
    )

    def __init__(
        self,
        input: SSAValue,
        filter: SSAValue,
        bias: SSAValue | None,
        residual: SSAValue | None,
        result_type: Attribute,
        activation: Activation | str = Activation.NONE,
        alpha: float | None = None,
        strides: Sequence[int] | None = None,
        pads: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        groups: int = 1,
    ):
        super().__init__(
            input,
            filter,
            bias,
            result_type,
            strides,
            pads,
            dilations,
            groups,
            extra_operands=[residual],
            extra_properties={
                "activation": ActivationAttr(Activation(activation)),
                "alpha": None if alpha is None else FloatAttr(alpha, f32),
            },
        )

    @classmethod
    def like(
        cls,
        conv: ConvolutionOp,
        filter: SSAValue,
        bias: SSAValue | None,
        residual: SSAValue | None,
        result_type: Attribute,
        activation: Activation = Activation.NONE,
        alpha: float | None = None,
    ) -> FusedConv2DOp:
        """A fused conv with `conv`'s input, strides, pads, dilations and groups (the same
        attribute objects: nothing is rebuilt) and the given operands and epilogue."""
        properties: dict[str, Attribute] = {
            name: conv.properties[name] for name in ("strides", "pads", "dilations", "groups")
        }
        properties["activation"] = _ACTIVATION_ATTRS.get(activation) or ActivationAttr(activation)
        if alpha is not None:
            properties["alpha"] = FloatAttr(alpha, f32)
        properties["operandSegmentSizes"] = _FUSED_SEGMENTS[bias is not None, residual is not None]
        operands = [conv.input, filter, *(v for v in (bias, residual) if v is not None)]
        return cls.create(operands=operands, result_types=[result_type], properties=properties)

    def verify_(self) -> None:
        super().verify_()
        act = self.activation.data
        if act == Activation.LEAKY_RELU and self.alpha is None:
            raise VerifyException("activation leaky_relu needs an alpha")
        if act != Activation.LEAKY_RELU and self.alpha is not None:
            raise VerifyException(f"alpha is only meaningful for leaky_relu, not {act}")
        if self.alpha is not None:
            check_finite(self.alpha.value.data, "alpha")


@irdl_op_definition
class BatchNormOp(IRDLOperation):
    """Inference batch normalisation over the channel axis (axis 1) of a rank-4 tensor:

        y = scale * (x - mean) / sqrt(variance + epsilon) + offset

    The four parameters are rank-1 tensors of C elements (f32, or the input's float type).

        %y = ge.batch_norm %x, %scale, %offset, %mean, %var epsilon 1.0e-03
               : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
               -> tensor<1x4x8x8xf32>
    """

    name = "ge.batch_norm"

    input = operand_def(TensorType)
    scale = operand_def(TensorType)
    offset = operand_def(TensorType)
    mean = operand_def(TensorType)
    variance = operand_def(TensorType)
    output = result_def(TensorType)
    epsilon = prop_def(FloatAttr[Float32Type], default_value=FloatAttr(1e-5, f32))

    traits = traits_def(Pure())

    assembly_format = (
        "$input `,` $scale `,` $offset `,` $mean `,` $variance (`epsilon` $epsilon^)? "
        "attr-dict `:` functional-type(operands, results)"
    )

    def __init__(
        self,
        input: SSAValue,
        scale: SSAValue,
        offset: SSAValue,
        mean: SSAValue,
        variance: SSAValue,
        epsilon: float = 1e-5,
    ):
        super().__init__(
            operands=[input, scale, offset, mean, variance],
            result_types=[input.type],
            properties={"epsilon": FloatAttr(epsilon, f32)},
        )

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        if not is_float(x.element_type):
            raise VerifyException(f"operand 'input' must be f16 or f32, got {x.element_type}")
        if x.get_num_dims() != 4:
            raise VerifyException(f"operand 'input' must have rank 4, got {x}")
        require_activation_format(x, "operand 'input'")
        c = x.get_shape()[1]
        allowed = " or ".join(f"tensor<{c}x{e}>" for e in dict.fromkeys((x.element_type, f32)))
        for name, value in (
            ("scale", self.scale),
            ("offset", self.offset),
            ("mean", self.mean),
            ("variance", self.variance),
        ):
            p = type_of(value, f"operand '{name}'")
            if tuple(p.get_shape()) != (c,) or p.element_type not in (x.element_type, f32):
                raise VerifyException(
                    f"operand '{name}' has type {p}, expected {allowed} (one value per channel)"
                )
        epsilon = self.epsilon.value.data
        check_finite(epsilon, "epsilon")
        if epsilon < 0:
            raise VerifyException(f"epsilon must be non-negative, got {num(epsilon)}")
        if y != x:
            raise VerifyException(f"result has type {y}, expected {x} (the input's)")


# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------


@irdl_op_definition
class ReluOp(UnaryElementwiseOp):
    """`max(x, 0)` elementwise.

    %y = ge.relu %x : tensor<1x4x8x8xf32>
    """

    name = "ge.relu"
    ELEMENT_TYPES: ClassVar[ElementTypes] = "float_or_int8"


@irdl_op_definition
class Relu6Op(UnaryElementwiseOp):
    """`min(max(x, 0), 6)` elementwise.

    %y = ge.relu6 %x : tensor<1x4x8x8xf16>
    """

    name = "ge.relu6"


@irdl_op_definition
class SigmoidOp(UnaryElementwiseOp):
    """`1 / (1 + exp(-x))` elementwise (padding lanes of NC1HWC0 values stay zero).

    %y = ge.sigmoid %x : tensor<1x4x8x8xf32>
    """

    name = "ge.sigmoid"


@irdl_op_definition
class SiluOp(UnaryElementwiseOp):
    """`x * sigmoid(x)` elementwise.

    %y = ge.silu %x : tensor<1x4x8x8xf16>
    """

    name = "ge.silu"


@irdl_op_definition
class IdentityOp(UnaryElementwiseOp):
    """Its input, unchanged (any type and layout); canonicalize replaces it by its input.

    %y = ge.identity %x : tensor<1x4x8x8xf32>
    """

    name = "ge.identity"
    ELEMENT_TYPES: ClassVar[ElementTypes] = "any"

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        return (self.input,)


@irdl_op_definition
class LeakyReluOp(UnaryElementwiseOp):
    """`x if x >= 0 else alpha * x` elementwise; alpha defaults to 0.01.

    %y = ge.leaky_relu %x alpha 2.000000e-01 : tensor<1x4x8x8xf32>
    """

    name = "ge.leaky_relu"
    alpha = prop_def(FloatAttr[Float32Type], default_value=FloatAttr(0.01, f32))
    assembly_format = "$input (`alpha` $alpha^)? attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, alpha: float = 0.01):
        super().__init__(input, {"alpha": FloatAttr(alpha, f32)})

    def verify_(self) -> None:
        super().verify_()
        check_finite(self.alpha.value.data, "alpha")


@irdl_op_definition
class ClipOp(UnaryElementwiseOp, HasCanonicalizationPatternsInterface):
    """`min(max(x, min), max)` elementwise; canonicalize turns clip(0, 6) into relu6.

    %y = ge.clip %x min 0.000000e+00 max 6.000000e+00 : tensor<1x4x8x8xf32>
    """

    name = "ge.clip"
    min = prop_def(FloatAttr[Float32Type])
    max = prop_def(FloatAttr[Float32Type])
    assembly_format = "$input `min` $min `max` $max attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, min: float, max: float):
        super().__init__(input, {"min": FloatAttr(min, f32), "max": FloatAttr(max, f32)})

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from transforms.canonicalization.ge import ClipToRelu6  # lazily, as xDSL does

        return (ClipToRelu6(),)

    def verify_(self) -> None:
        super().verify_()
        lo, hi = self.min.value.data, self.max.value.data
        check_finite(lo, "min")
        check_finite(hi, "max")
        if lo > hi:
            raise VerifyException(f"min must not exceed max, got min = {num(lo)}, max = {num(hi)}")


# Math functions (transformer graphs: GELU, layer norm, attention scaling).  Each computes
# on every lane; a stored NC1HWC0 result still has zero padding lanes (f(0) is 1 for exp,
# -inf for log, inf for rsqrt and reciprocal).


@irdl_op_definition
class ExpOp(UnaryElementwiseOp):
    """`e ** x` elementwise (overflow gives inf).

    %y = ge.exp %x : tensor<2x8xf32>
    """

    name = "ge.exp"


@irdl_op_definition
class LogOp(UnaryElementwiseOp):
    """The natural logarithm elementwise: `log(0)` is -inf, a negative input gives NaN.

    %y = ge.log %x : tensor<2x8xf32>
    """

    name = "ge.log"


@irdl_op_definition
class TanhOp(UnaryElementwiseOp):
    """The hyperbolic tangent elementwise.

    %y = ge.tanh %x : tensor<2x8xf16>
    """

    name = "ge.tanh"


@irdl_op_definition
class ErfOp(UnaryElementwiseOp):
    """The Gauss error function `erf(x) = 2/sqrt(pi) * integral_0^x exp(-t*t) dt` elementwise.

    %y = ge.erf %x : tensor<2x8xf32>
    """

    name = "ge.erf"


@irdl_op_definition
class SqrtOp(UnaryElementwiseOp):
    """The square root elementwise: a negative input gives NaN.

    %y = ge.sqrt %x : tensor<2x8xf32>
    """

    name = "ge.sqrt"


@irdl_op_definition
class RsqrtOp(UnaryElementwiseOp):
    """`1 / sqrt(x)` elementwise: `rsqrt(0)` is inf, a negative input gives NaN.

    %y = ge.rsqrt %x : tensor<2x8xf32>
    """

    name = "ge.rsqrt"


@irdl_op_definition
class NegOp(UnaryElementwiseOp):
    """`-x` elementwise.

    %y = ge.neg %x : tensor<2x8xf16>
    """

    name = "ge.neg"


@irdl_op_definition
class ReciprocalOp(UnaryElementwiseOp):
    """`1 / x` elementwise: `1 / 0` is inf (with the sign of the zero).

    %y = ge.reciprocal %x : tensor<2x8xf32>
    """

    name = "ge.reciprocal"


GELU_APPROXIMATIONS = ("none", "tanh")
"""The values of `ge.gelu`'s `approximate` (PyTorch's and ONNX Gelu-20's)."""


@irdl_op_definition
class GeluOp(UnaryElementwiseOp):
    """The Gaussian error linear unit elementwise, as PyTorch and ONNX Gelu (opset 20):
    `approximate "none"` (the default) is `x/2 * (1 + erf(x/sqrt(2)))`, `approximate "tanh"`
    is `x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))`.

    %y = ge.gelu %x approximate "tanh" : tensor<2x8xf32>
    """

    name = "ge.gelu"
    approximate = prop_def(StringAttr, default_value=StringAttr("none"))
    assembly_format = "$input (`approximate` $approximate^)? attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, approximate: str = "none"):
        super().__init__(input, {"approximate": StringAttr(approximate)})

    def verify_(self) -> None:
        super().verify_()
        if self.approximate.data not in GELU_APPROXIMATIONS:
            raise VerifyException(
                f'approximate must be "none" or "tanh", got "{self.approximate.data}"'
            )


@irdl_op_definition
class AddOp(BinaryElementwiseOp):
    """Elementwise `lhs + rhs` with numpy broadcasting (saturating for i8/ui8).

    %y = ge.add %a, %b : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
    """

    name = "ge.add"
    traits = traits_def(Commutative())


@irdl_op_definition
class SubOp(BinaryElementwiseOp):
    """Elementwise `lhs - rhs` with numpy broadcasting (saturating for i8/ui8).

    %y = ge.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    """

    name = "ge.sub"


@irdl_op_definition
class MulOp(BinaryElementwiseOp):
    """Elementwise `lhs * rhs` with numpy broadcasting (saturating for i8/ui8).

    %y = ge.mul %a, %s : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
    """

    name = "ge.mul"
    traits = traits_def(Commutative())


@irdl_op_definition
class DivOp(BinaryElementwiseOp):
    """Elementwise `lhs / rhs` (true division, f16/f32 only) with numpy broadcasting:
    `x / 0` is inf or -inf, `0 / 0` NaN.

    %y = ge.div %a, %b : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    """

    name = "ge.div"
    ELEMENT_TYPES: ClassVar[ElementTypes] = "float"


@irdl_op_definition
class MaximumOp(BinaryElementwiseOp):
    """Elementwise `max(lhs, rhs)` with numpy broadcasting (NaN if either is NaN).

    %y = ge.maximum %a, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
    """

    name = "ge.maximum"
    traits = traits_def(Commutative())


@irdl_op_definition
class MinimumOp(BinaryElementwiseOp):
    """Elementwise `min(lhs, rhs)` with numpy broadcasting (NaN if either is NaN).

    %y = ge.minimum %a, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
    """

    name = "ge.minimum"
    traits = traits_def(Commutative())


@irdl_op_definition
class PowOp(BinaryElementwiseOp):
    """Elementwise `lhs ** rhs` (f16/f32 only) with numpy broadcasting: a negative base
    with a non-integer exponent gives NaN, `0 ** -1` inf.

    %y = ge.pow %a, %e : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    """

    name = "ge.pow"
    ELEMENT_TYPES: ClassVar[ElementTypes] = "float"


# --------------------------------------------------------------------------------------
# Data movement
# --------------------------------------------------------------------------------------


@irdl_op_definition
class TransDataOp(FoldingDataMovementOp):
    """Changes a value's storage format; the logical shape and element type stay.

    %y = ge.trans_data %x : tensor<1x17x8x8xf16> -> tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>
    """

    name = "ge.trans_data"

    def compute(self, logical: np.ndarray) -> np.ndarray:
        return logical

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        if tuple(x.get_shape()) != tuple(y.get_shape()):
            raise VerifyException(
                f"result has shape {shape_str(y.get_shape())}, expected "
                f"{shape_str(x.get_shape())} (the input's logical shape)"
            )
        if x.element_type != y.element_type:
            raise VerifyException(
                f"result has element type {y.element_type}, expected {x.element_type}"
            )
        if x.encoding == y.encoding:
            raise VerifyException(
                f"result has the input's format {tensor_format(x)}: trans_data must change it"
            )
        formats = (tensor_format(x), tensor_format(y))
        if Format.FRACTAL_Z in formats and Format.NC1HWC0 in formats:
            raise VerifyException("trans_data between NC1HWC0 and FRACTAL_Z is not supported")
        if Format.FRACTAL_NZ in formats:
            other = formats[0] if formats[1] == Format.FRACTAL_NZ else formats[1]
            if other not in (Format.ND, Format.NCHW, Format.FRACTAL_NZ):
                raise VerifyException(
                    f"trans_data between {other} and FRACTAL_NZ is not supported: FRACTAL_NZ "
                    "converts to and from the default layout (ND/NCHW) only"
                )


@irdl_op_definition
class ReshapeOp(FoldingDataMovementOp):
    """The same elements in row-major order under another static shape.

    %y = ge.reshape %x : tensor<1x64x1x1xf32> -> tensor<1x64xf32>
    """

    name = "ge.reshape"

    def compute(self, logical: np.ndarray) -> np.ndarray:
        return logical.reshape(tuple(type_of(self.output, "result").get_shape()))

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        require_default_layout(x, "operand 'input'", "reshape")
        require_default_layout(y, "result", "reshape")
        expect_element_type(y, x.element_type)
        if math.prod(x.get_shape()) != math.prod(y.get_shape()):
            raise VerifyException(
                f"result has {math.prod(y.get_shape())} elements, expected "
                f"{math.prod(x.get_shape())} (the input's)"
            )


@irdl_op_definition
class FlattenOp(FoldingDataMovementOp):
    """Collapses dims [0, axis) and [axis, rank) into a 2-D tensor (ONNX Flatten).

    %y = ge.flatten %x axis 1 : tensor<2x8x3x3xf32> -> tensor<2x72xf32>
    """

    name = "ge.flatten"
    axis = prop_def(IntegerAttr[I64], default_value=ONE)
    assembly_format = "$input (`axis` $axis^)? attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, result_type: Attribute, axis: int = 1):
        super().__init__(input, result_type, {"axis": IntegerAttr(axis, i64)})

    def compute(self, logical: np.ndarray) -> np.ndarray:
        return logical.reshape(tuple(type_of(self.output, "result").get_shape()))

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        require_default_layout(x, "operand 'input'", "flatten")
        axis = self.axis.value.data
        shape = x.get_shape()
        if not 0 <= axis <= len(shape):
            raise VerifyException(f"axis {axis} is out of range for rank {len(shape)}")
        expect_shape(y, (math.prod(shape[:axis]), math.prod(shape[axis:])))
        expect_element_type(y, x.element_type)


@irdl_op_definition
class TransposeOp(FoldingDataMovementOp):
    """Permutes dims: result dim i is input dim perm[i].

    %y = ge.transpose %x perm [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
    """

    name = "ge.transpose"
    perm = prop_def(DenseArrayBase.constr(i64))
    assembly_format = "$input `perm` $perm attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, perm: Sequence[int], result_type: Attribute):
        super().__init__(input, result_type, {"perm": int_array(perm)})

    def compute(self, logical: np.ndarray) -> np.ndarray:
        return np.transpose(logical, self.perm.get_values())

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        require_default_layout(x, "operand 'input'", "transpose")
        require_default_layout(y, "result", "transpose")
        perm = list(self.perm.get_values())
        if sorted(perm) != list(range(x.get_num_dims())):
            raise VerifyException(
                f"perm {perm} is not a permutation of the {x.get_num_dims()} dims"
            )
        expect_shape(y, [x.get_shape()[p] for p in perm])
        expect_element_type(y, x.element_type)


@irdl_op_definition
class ConcatOp(IRDLOperation):
    """Joins tensors along `axis` (a logical dim; all inputs share rank, type and layout).

    %y = ge.concat %a, %b axis 1 : tensor<1x16x4x4xf16>, tensor<1x8x4x4xf16> -> tensor<1x24x4x4xf16>
    """

    name = "ge.concat"
    inputs = var_operand_def(TensorType)
    output = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64])
    traits = traits_def(Pure())
    assembly_format = "$inputs `axis` $axis attr-dict `:` type($inputs) `->` type($output)"

    def __init__(self, inputs: Sequence[SSAValue], axis: int, result_type: Attribute):
        super().__init__(
            operands=[inputs],
            result_types=[result_type],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("needs at least one input")
        types = [type_of(v, f"operand #{i}") for i, v in enumerate(self.inputs)]
        y = type_of(self.output, "result")
        first = types[0]
        rank = first.get_num_dims()
        axis = self.axis.value.data
        if not 0 <= axis < rank:
            raise VerifyException(f"axis {axis} is out of range for rank {rank}")
        require_float_or_int8(first, "operand #0")
        total = 0
        for i, t in enumerate(types):
            what = f"operand #{i}"
            if t.get_num_dims() != rank:
                raise VerifyException(f"{what} has rank {t.get_num_dims()}, expected {rank}")
            expect_element_type(t, first.element_type, what, "that of operand #0")
            expect_layout(t, first, what, "that of operand #0")
            for d in range(rank):
                if d != axis and t.get_shape()[d] != first.get_shape()[d]:
                    raise VerifyException(
                        f"{what} has shape {shape_str(t.get_shape())}, expected "
                        f"{shape_str(first.get_shape())} except on axis {axis}"
                    )
            total += t.get_shape()[axis]
        expected = list(first.get_shape())
        expected[axis] = total
        expect_shape(y, expected)
        expect_element_type(y, first.element_type, of="that of operand #0")
        expect_layout(y, first, of="that of operand #0")


@irdl_op_definition
class CastOp(UnaryOp):
    """Converts to f32 or f16 (round to nearest even) from f32, f16 or a graph integer
    type (i1, i8, ui8, i32, i64: a mask or ids as floats); shape and layout stay.

    %y = ge.cast %x : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf16>
    %m = ge.cast %mask : tensor<2x8xi64> -> tensor<2x8xf32>
    """

    name = "ge.cast"

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        if type_name(x.element_type) not in GRAPH_TYPES:
            raise VerifyException(
                f"operand 'input' must be {', '.join(GRAPH_TYPES)}, got {x.element_type}"
            )
        require_float(y, "result")
        if x.element_type == y.element_type:
            raise VerifyException(
                f"result has the input's element type {x.element_type}: cast must change it"
            )
        expect_shape(y, x.get_shape())
        expect_layout(y, x)


# --------------------------------------------------------------------------------------
# Matmul, softmax
# --------------------------------------------------------------------------------------


@irdl_op_definition
class MatMulOp(IRDLOperation):
    """Matrix product over the last two dims; leading (batch) dims broadcast as numpy's.

    `transpose_a`/`transpose_b` transpose the last two dims of an operand first; the
    optional `bias` (one value per output column) is added to every row.  `a`, `b` and the
    result are ND, or FRACTAL_NZ (the cube's operand format); the bias is ND.

        %y = ge.matmul %a, %b bias %c transpose_b
               : tensor<2x8x16xf32>, tensor<32x16xf32>, tensor<32xf32> -> tensor<2x8x32xf32>
    """

    name = "ge.matmul"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    output = result_def(TensorType)
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)
    traits = traits_def(Pure())
    assembly_format = (
        "$a `,` $b (`bias` $bias^)? (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)? "
        "attr-dict `:` type($a) `,` type($b) (`,` type($bias)^)? `->` type($output)"
    )

    def __init__(
        self,
        a: SSAValue,
        b: SSAValue,
        bias: SSAValue | None,
        result_type: Attribute,
        transpose_a: bool = False,
        transpose_b: bool = False,
    ):
        super().__init__(
            operands=[a, b, bias],
            result_types=[result_type],
            properties={
                "transpose_a": UnitAttr() if transpose_a else None,
                "transpose_b": UnitAttr() if transpose_b else None,
            },
        )

    def verify_(self) -> None:
        a = type_of(self.a, "operand 'a'")
        b = type_of(self.b, "operand 'b'")
        y = type_of(self.output, "result")
        for t, what in ((a, "operand 'a'"), (b, "operand 'b'")):
            require_float(t, what, "matmul")
            if tensor_format(t) != Format.FRACTAL_NZ:
                require_default_layout(t, what, "matmul")
            if t.get_num_dims() < 2:
                raise VerifyException(f"{what} must have rank >= 2, got {t}")
        expect_element_type(b, a.element_type, "operand 'b'", "that of operand 'a'")
        sa, sb = list(a.get_shape()), list(b.get_shape())
        if self.transpose_a is not None:
            sa[-2], sa[-1] = sa[-1], sa[-2]
        if self.transpose_b is not None:
            sb[-2], sb[-1] = sb[-1], sb[-2]
        if sa[-1] != sb[-2]:
            raise VerifyException(
                f"contraction dims differ: operand 'a' has K = {sa[-1]}, operand 'b' has "
                f"K = {sb[-2]} (after transposes)"
            )
        batch = broadcast_shape(sa[:-2], sb[:-2])
        if batch is None:
            raise VerifyException(
                f"batch dims {shape_str(sa[:-2])} and {shape_str(sb[:-2])} do not broadcast"
            )
        if tensor_format(y) != Format.FRACTAL_NZ:
            require_default_layout(y, "result", "matmul")
        expect_shape(y, (*batch, sa[-2], sb[-1]))
        expect_element_type(y, a.element_type, of="that of operand 'a'")
        if self.bias is not None:
            c = type_of(self.bias, "operand 'bias'")
            if tuple(c.get_shape()) != (sb[-1],) or c.element_type != a.element_type:
                raise VerifyException(
                    f"operand 'bias' has type {c}, expected {TensorType(a.element_type, [sb[-1]])}"
                )


@irdl_op_definition
class SoftmaxOp(IRDLOperation):
    """`exp(x) / sum(exp(x))` along `axis`.

    %y = ge.softmax %x axis 1 : tensor<2x10xf32>
    """

    name = "ge.softmax"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)
    axis = prop_def(IntegerAttr[I64])
    traits = traits_def(Pure())
    assembly_format = "$input `axis` $axis attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, axis: int):
        super().__init__(
            operands=[input], result_types=[input.type], properties={"axis": IntegerAttr(axis, i64)}
        )

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        require_float(x, "operand 'input'")
        require_default_layout(x, "operand 'input'", "softmax")
        axis = self.axis.value.data
        if not 0 <= axis < x.get_num_dims():
            raise VerifyException(f"axis {axis} is out of range for rank {x.get_num_dims()}")


# --------------------------------------------------------------------------------------
# Pooling
# --------------------------------------------------------------------------------------


@irdl_op_definition
class MaxPoolOp(PoolingOp):
    """2-D max pooling; padding never wins (it is -inf).

    %y = ge.max_pool %x kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] ceil_mode
           : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
    """

    name = "ge.max_pool"


@irdl_op_definition
class AvgPoolOp(PoolingOp):
    """2-D average pooling.

    Each window is divided by the number of its elements inside the input, or, with
    `count_include_pad`, inside the padded input (a ceil_mode overhang never counts).

        %y = ge.avg_pool %x kernel [2, 2] strides [2, 2] pads [0, 1, 0, 1] count_include_pad
               : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
    """

    name = "ge.avg_pool"
    count_include_pad = opt_prop_def(UnitAttr)
    assembly_format = (
        POOLING_FORMAT
        + "(`count_include_pad` $count_include_pad^)? attr-dict `:` type($input) `->` type($output)"
    )

    def __init__(
        self,
        input: SSAValue,
        result_type: Attribute,
        kernel: Sequence[int],
        strides: Sequence[int] | None = None,
        pads: Sequence[int] | None = None,
        ceil_mode: bool = False,
        count_include_pad: bool = False,
    ):
        super().__init__(
            input,
            result_type,
            kernel,
            strides,
            pads,
            ceil_mode,
            extra_properties={"count_include_pad": UnitAttr() if count_include_pad else None},
        )


@irdl_op_definition
class GlobalAvgPoolOp(UnaryOp):
    """The mean over H and W of each channel: [N, C, H, W] -> [N, C, 1, 1].

    %y = ge.global_avg_pool %x : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>
    """

    name = "ge.global_avg_pool"

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        require_float_or_int8(x, "operand 'input'")
        require_rank4(x)
        require_activation_format(x, "operand 'input'")
        n, c, _, _ = x.get_shape()
        expect_shape(y, (n, c, 1, 1))
        expect_element_type(y, x.element_type)
        expect_layout(y, x)


# --------------------------------------------------------------------------------------
# Collectives
# --------------------------------------------------------------------------------------


@irdl_op_definition
class HcomAllReduceOp(CollectiveOp):
    """Reduces a tensor elementwise over the `rank_size` ranks of `group` (HCCL AllReduce).

    It communicates, so it has memory effects: CSE and DCE leave it alone.  On one
    simulated device it computes as rank 0 of `rank_size` identical ranks: sum gives
    rank_size * x, prod x ** rank_size, max and min give x.  Integer results saturate at
    the type's limits (as the saturating integer `ge.add`).

        %y = ge.hcom_all_reduce %x reduction sum group "world" rank_size 8 : tensor<1024xf32>
    """

    name = "ge.hcom_all_reduce"

    # The result has the input's type: both are declared here, with the reduction.
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)
    reduction = prop_def(ReductionAttr)

    assembly_format = (
        "$input `reduction` $reduction `group` $group `rank_size` $rank_size attr-dict "
        "`:` type($input)"
    )

    def __init__(self, input: SSAValue, reduction: Reduction | str, group: str, rank_size: int):
        super().__init__(
            input,
            group,
            rank_size,
            input.type,
            extra_properties={"reduction": ReductionAttr(Reduction(reduction))},
        )


@irdl_op_definition
class HcomAllGatherOp(CollectiveOp):
    """Concatenates the tensors of the `rank_size` ranks of `group` along dim 0 (HCCL AllGather).

    It has memory effects (never CSE'd or DCE'd).  On one simulated device every rank holds
    the same tensor, so the result is `rank_size` copies of it.

        %y = ge.hcom_all_gather %x group "world" rank_size 4 : tensor<2x8xf16> -> tensor<8x8xf16>
    """

    name = "ge.hcom_all_gather"

    assembly_format = (
        "$input `group` $group `rank_size` $rank_size attr-dict `:` type($input) `->` type($output)"
    )

    def verify_(self) -> None:
        super().verify_()
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        if x.get_num_dims() < 1:
            raise VerifyException("operand 'input' must have rank >= 1")
        expected = list(x.get_shape())
        expected[0] *= self.rank_size.value.data
        expect_shape(y, expected)


# Trigonometry (rotary position embeddings).  A stored NC1HWC0 result keeps zero padding
# lanes although cos(0) is 1.


@irdl_op_definition
class SinOp(UnaryElementwiseOp):
    """The sine elementwise (radians; inf and NaN give NaN).

    %y = ge.sin %x : tensor<2x8xf32>
    """

    name = "ge.sin"


@irdl_op_definition
class CosOp(UnaryElementwiseOp):
    """The cosine elementwise (radians; inf and NaN give NaN).

    %y = ge.cos %x : tensor<2x8xf32>
    """

    name = "ge.cos"
