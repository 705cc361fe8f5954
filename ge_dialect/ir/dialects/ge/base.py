"""Abstract op families of the `ge` dialect and the verifier helpers they share.

As xDSL's arith and linalg do, each family is an abstract `IRDLOperation` that declares
its operands, results, properties, traits, assembly format, `__init__` and `verify_` once;
a concrete op (in `ops.py`) is its name, docstring and class constants:

- `UnaryElementwiseOp`: result type == input type (relu, sigmoid, clip, identity, ...);
- `BinaryElementwiseOp`: numpy broadcasting on logical shapes (add, sub, mul, div, maximum,
  minimum, pow);
- `ConvolutionOp`: conv2d and fused_conv2d;
- `PoolingOp`: max_pool and avg_pool;
- `CollectiveOp`: the HCCL collectives;
- `UnaryOp`: one operand, a result of another type (cast, global_avg_pool), and its
  `FoldingDataMovementOp`: data movement that folds into a constant (trans_data, reshape,
  flatten, transpose).

Verifier messages name the operand and the expected vs actual shape, type or format.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Mapping, Sequence
from typing import ClassVar, Literal

import numpy as np
from xdsl.dialects.builtin import (
    I64,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import ConstantLike, MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects.ge.attributes import C0_FORMATS, ExternalDataAttr, Format, FormatAttr
from ge_dialect.ir.dialects.ge.data import read_physical
from ge_dialect.ir.dialects.ge.types import (
    dense_from_numpy,
    layout_str,
    tensor_c0,
    tensor_format,
    tensor_groups,
    to_logical,
    to_physical,
    verify_tensor_type,
)
from ge_dialect.utils.dtypes import is_float, is_int8, type_name
from ge_dialect.utils.shapes import broadcast_shape, conv_output_size, pool_output_size

# --------------------------------------------------------------------------------------
# Verifier helpers
# --------------------------------------------------------------------------------------


def type_of(value: SSAValue, what: str) -> TensorType:
    """The type of an operand or result, checked by `verify_tensor_type`."""
    return verify_tensor_type(value.type, what)


def shape_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def num(value: float) -> str:
    """An f32 attribute value as a short decimal (7 significant digits)."""
    return f"{value:.7g}"


def check_finite(value: float, what: str) -> None:
    if not math.isfinite(value):
        raise VerifyException(f"{what} must be finite, got {num(value)}")


ACTIVATION_FORMATS = (Format.NCHW, Format.NHWC, Format.NC1HWC0)


def require_activation_format(t: TensorType, what: str) -> None:
    """A 4-D activation is stored as NCHW, NHWC or NC1HWC0 (never FRACTAL_Z)."""
    if tensor_format(t) not in ACTIVATION_FORMATS:
        raise VerifyException(
            f"{what} has format {tensor_format(t)}, expected NCHW, NHWC or NC1HWC0"
        )


def require_float_or_int8(t: TensorType, what: str) -> None:
    """Data movement and elementwise ops take f16, f32, i8 and ui8."""
    if not (is_float(t.element_type) or is_int8(t.element_type)):
        raise VerifyException(f"{what} must be f16, f32, i8 or ui8, got {t.element_type}")


def require_float(t: TensorType, what: str, quantised: str | None = None) -> None:
    """f16 or f32; an int8 operand of a `quantised` op (conv, matmul) is out of scope."""
    if quantised is not None and is_int8(t.element_type):
        raise VerifyException(
            f"{what} is {t.element_type}: a quantised {quantised} is out of scope (only f16 and "
            "f32 are supported)"
        )
    if not is_float(t.element_type):
        raise VerifyException(f"{what} must be f16 or f32, got {t.element_type}")


def require_default_layout(t: TensorType, what: str, op: str) -> None:
    if isinstance(t.encoding, FormatAttr):
        if what == "result":
            advice = (
                f"{op} produces default-layout (ND/NCHW) tensors; convert its result with "
                "ge.trans_data"
            )
        else:
            advice = (
                f"{op} takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first"
            )
        raise VerifyException(f"{what} has layout {layout_str(t)}: {advice}")


def require_rank4(t: TensorType, what: str = "operand 'input'", order: str = "NCHW") -> None:
    if t.get_num_dims() != 4:
        raise VerifyException(f"{what} must have rank 4 ({order}), got {t}")


def expect_shape(t: TensorType, expected: Sequence[int], what: str = "result") -> None:
    if tuple(t.get_shape()) != tuple(expected):
        raise VerifyException(
            f"{what} has shape {shape_str(t.get_shape())}, expected {shape_str(expected)}"
        )


def expect_element_type(
    t: TensorType, expected: Attribute, what: str = "result", of: str = "the input's"
) -> None:
    if t.element_type != expected:
        raise VerifyException(
            f"{what} has element type {t.element_type}, expected {expected} ({of})"
        )


def expect_layout(
    t: TensorType, expected: TensorType, what: str = "result", of: str = "the input's"
) -> None:
    if t.encoding != expected.encoding:
        raise VerifyException(
            f"{what} has layout {layout_str(t)}, expected {layout_str(expected)} ({of})"
        )


def check_window(
    what: str, values: Sequence[int], count: int, minimum: int, description: str
) -> None:
    """`values` are `count` integers >= `minimum` (strides, pads, dilations, kernel)."""
    if len(values) != count or min(values) < minimum:
        raise VerifyException(f"{what} must be {count} {description}, got {list(values)}")


def int_array(values: Sequence[int] | None, default: Sequence[int] = ()) -> DenseArrayBase:
    """An i64 array property holding `values` (`default` when None)."""
    return DenseArrayBase.from_list(i64, list(default if values is None else values))


STRIDES_DEFAULT = int_array([1, 1])
PADS_DEFAULT = int_array([0, 0, 0, 0])
ONE = IntegerAttr(1, i64)

# --------------------------------------------------------------------------------------
# Elementwise
# --------------------------------------------------------------------------------------


ElementTypes = Literal["float", "float_or_int8", "any"]
"""What a unary elementwise op takes: f16/f32, also i8/ui8, or any supported type."""


SMALL_FOLD = 16
"""An elementwise op whose operands are all constants folds into a constant when its result
has at most this many elements: the scalars a graph computes from constants (an attention
scale `1 / sqrt(d)` exported as arithmetic), not the weights (folding those would copy them)."""


def fold_small_elementwise(op: Operation) -> Sequence[Attribute] | None:
    """The folded value of elementwise `op` (see `SMALL_FOLD`), computed by the reference
    interpreter (float64, rounded once), or None."""
    t = op.results[0].type
    if not isinstance(t, TensorType) or math.prod(t.get_shape()) > SMALL_FOLD:
        return None
    physical = []
    for v in op.operands:
        source = v.owner
        if not isinstance(source, Operation) or not source.has_trait(ConstantLike):
            return None
        value = source.properties.get("value")
        if not isinstance(value, DenseIntOrFPElementsAttr) or not isinstance(v.type, TensorType):
            return None  # elided or external (large anyway), or not a ge constant
        physical.append(read_physical(value, v.type, source))
    from ge_dialect.ir.interpreter import evaluate  # lazily: it imports this dialect

    (result,) = evaluate(op, physical)
    return (dense_from_numpy(result, t.element_type),)


class UnaryElementwiseOp(IRDLOperation, HasFolderInterface, abc.ABC):
    """An elementwise op of one operand whose result has the input's type.

    `ELEMENT_TYPES` says what the input may be: floats (f16, f32), floats or int8 (i8,
    ui8), or any supported element type.
    """

    ELEMENT_TYPES: ClassVar[ElementTypes] = "float"

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, properties: Mapping[str, Attribute | None] | None = None):
        super().__init__(operands=[input], result_types=[input.type], properties=properties or {})

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        return fold_small_elementwise(self)

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        type_of(self.output, "result")
        kinds = type(self).ELEMENT_TYPES
        if kinds == "float" and not is_float(x.element_type):
            raise VerifyException(f"operand 'input' must be f16 or f32, got {x.element_type}")
        if kinds == "float_or_int8":
            require_float_or_int8(x, "operand 'input'")


class BinaryElementwiseOp(IRDLOperation, HasFolderInterface, abc.ABC):
    """An elementwise op of two operands with numpy-style broadcasting on logical shapes.

    Operands of the result's rank must share its layout; lower-rank operands broadcast from
    their default (ND) layout.  i8/ui8 arithmetic saturates.  `ELEMENT_TYPES` says what the
    operands may be: "float_or_int8" (f16, f32, i8, ui8) or "float" (f16, f32: for div and
    pow, whose integer forms need rounding and division-by-zero rules the graph does not
    carry).
    """

    ELEMENT_TYPES: ClassVar[ElementTypes] = "float_or_int8"

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)

    traits = traits_def(Pure())

    assembly_format = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[lhs, rhs], result_types=[result_type or lhs.type])

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        return fold_small_elementwise(self)

    def verify_(self) -> None:
        a = type_of(self.lhs, "operand 'lhs'")
        b = type_of(self.rhs, "operand 'rhs'")
        y = type_of(self.output, "result")
        if a.element_type != b.element_type:
            raise VerifyException(
                f"operand 'rhs' has element type {b.element_type}, expected {a.element_type} "
                "(the lhs's)"
            )
        if type(self).ELEMENT_TYPES == "float":
            require_float(a, "operand 'lhs'")
        else:
            require_float_or_int8(a, "operand 'lhs'")
        shape = broadcast_shape(a.get_shape(), b.get_shape())
        if shape is None:
            raise VerifyException(
                f"operands have shapes {shape_str(a.get_shape())} and "
                f"{shape_str(b.get_shape())}, which do not broadcast"
            )
        if tuple(y.get_shape()) != shape or y.element_type != a.element_type:
            raise VerifyException(
                f"result has type {y}, expected shape {shape_str(shape)} and element type "
                f"{a.element_type}"
            )
        for t, what in ((a, "lhs"), (b, "rhs")):
            if t.get_num_dims() != y.get_num_dims():
                continue
            if t.encoding != y.encoding:
                raise VerifyException(
                    f"operand '{what}' has layout {layout_str(t)}, expected {layout_str(y)} "
                    "(the result's)"
                )
            _require_no_blocked_broadcast(t, y, what)


_BLOCKED_DIMS = {Format.NC1HWC0: (1,), Format.FRACTAL_NZ: (-2, -1)}
"""The logical dims a storage format splits into blocks (C; a matrix's rows and columns)."""


def _require_no_blocked_broadcast(t: TensorType, y: TensorType, what: str) -> None:
    """A stored operand broadcasts lane by lane, so it must not broadcast along a dim its
    format splits into blocks: one value there sits in one lane, not in every one."""
    for dim in _BLOCKED_DIMS.get(tensor_format(t), ()):
        if t.get_shape()[dim] != y.get_shape()[dim]:
            raise VerifyException(
                f"operand '{what}' broadcasts along dim {dim % y.get_num_dims()}, which "
                f"{tensor_format(t)} stores in blocks: broadcast it in the default layout "
                "(ND/NCHW) first"
            )


# --------------------------------------------------------------------------------------
# Convolution and pooling
# --------------------------------------------------------------------------------------

CONV_ATTRIBUTES_FORMAT = (
    "(`strides` $strides^)? (`pads` $pads^)? (`dilations` $dilations^)? (`groups` $groups^)?"
)
_PADS_DESCRIPTION = "non-negative integers [top, bottom, left, right]"


class ConvolutionOp(IRDLOperation, abc.ABC):
    """A 2-D convolution (cross-correlation) of an NCHW input with OIHW weights.

    `pads` is GE's order [top, bottom, left, right]; `groups` splits channels.  The input
    may be NC1HWC0 and the filter FRACTAL_Z; the optional bias has one value per output
    channel.
    """

    input = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    output = result_def(TensorType)

    strides = prop_def(DenseArrayBase.constr(i64), default_value=STRIDES_DEFAULT)
    pads = prop_def(DenseArrayBase.constr(i64), default_value=PADS_DEFAULT)
    dilations = prop_def(DenseArrayBase.constr(i64), default_value=STRIDES_DEFAULT)
    groups = prop_def(IntegerAttr[I64], default_value=ONE)

    traits = traits_def(Pure())

    assembly_format = (
        "$input `,` $filter (`bias` $bias^)? " + CONV_ATTRIBUTES_FORMAT + " attr-dict `:` "
        "type($input) `,` type($filter) (`,` type($bias)^)? `->` type($output)"
    )

    def __init__(
        self,
        input: SSAValue,
        filter: SSAValue,
        bias: SSAValue | None,
        result_type: Attribute,
        strides: Sequence[int] | None = None,
        pads: Sequence[int] | None = None,
        dilations: Sequence[int] | None = None,
        groups: int = 1,
        *,
        extra_operands: Sequence[SSAValue | None] = (),
        extra_properties: Mapping[str, Attribute | None] | None = None,
    ):
        super().__init__(
            operands=[input, filter, bias, *extra_operands],
            result_types=[result_type],
            properties={
                "strides": int_array(strides, (1, 1)),
                "pads": int_array(pads, (0, 0, 0, 0)),
                "dilations": int_array(dilations, (1, 1)),
                "groups": IntegerAttr(groups, i64),
                **(extra_properties or {}),
            },
        )

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        w = type_of(self.filter, "operand 'filter'")
        y = type_of(self.output, "result")
        strides = self.strides.get_values()
        pads = self.pads.get_values()
        dilations = self.dilations.get_values()
        groups = self.groups.value.data
        check_window("strides", strides, 2, 1, "positive integers")
        check_window("dilations", dilations, 2, 1, "positive integers")
        check_window("pads", pads, 4, 0, _PADS_DESCRIPTION)
        if groups < 1:
            raise VerifyException(f"groups must be positive, got {groups}")
        for t, what in ((x, "input"), (w, "filter")):
            require_float(t, f"operand '{what}'", quantised="convolution")
        expect_element_type(w, x.element_type, "operand 'filter'", "the input's")
        require_rank4(x, order="NCHW")
        require_rank4(w, "operand 'filter'", order="OIHW")
        require_activation_format(x, "operand 'input'")
        if tensor_format(w) not in (Format.NCHW, Format.FRACTAL_Z):
            raise VerifyException(
                f"operand 'filter' has format {tensor_format(w)}, expected OIHW or FRACTAL_Z"
            )
        if tensor_format(w) == Format.FRACTAL_Z and tensor_groups(w) != groups:
            raise VerifyException(
                f"operand 'filter' is FRACTAL_Z with groups = {tensor_groups(w)}, expected "
                f"groups = {groups} (the op's)"
            )
        blocked = [
            (t, what, name)
            for t, what, name in (
                (x, "operand 'input'", "input"),
                (w, "operand 'filter'", "filter"),
                (y, "result", "result"),
            )
            if tensor_format(t) in C0_FORMATS
        ]
        for t, what, _ in blocked[1:]:
            first, _, first_name = blocked[0]
            if tensor_c0(t) != tensor_c0(first):
                raise VerifyException(
                    f"{what} has c0 = {tensor_c0(t)}, expected c0 = {tensor_c0(first)} "
                    f"(the {first_name}'s)"
                )
        n, c, h, wd = x.get_shape()
        o, ci, kh, kw = w.get_shape()
        if c % groups:
            raise VerifyException(
                f"operand 'input' has {c} channels, not a multiple of groups = {groups}"
            )
        if c != ci * groups:
            raise VerifyException(
                f"operand 'filter' has {ci} input channels per group, expected {c // groups} "
                f"(input channels {c} / groups {groups})"
            )
        if o % groups:
            raise VerifyException(
                f"operand 'filter' has {o} output channels, not a multiple of groups = {groups}"
            )
        ho = conv_output_size(h, kh, strides[0], pads[0], pads[1], dilations[0])
        wo = conv_output_size(wd, kw, strides[1], pads[2], pads[3], dilations[1])
        if ho < 1 or wo < 1:
            ekh, ekw = dilations[0] * (kh - 1) + 1, dilations[1] * (kw - 1) + 1
            raise VerifyException(
                f"the kernel {kh}x{kw} (dilated extent {ekh}x{ekw}) does not fit the padded "
                f"input {h + pads[0] + pads[1]}x{wd + pads[2] + pads[3]}"
            )
        expect_shape(y, (n, o, ho, wo))
        if y.element_type != x.element_type:
            raise VerifyException(
                f"result has element type {y.element_type}, expected {x.element_type}"
            )
        require_activation_format(y, "result")
        if self.bias is not None:
            b = type_of(self.bias, "operand 'bias'")
            if tuple(b.get_shape()) != (o,) or b.element_type != x.element_type:
                raise VerifyException(
                    f"operand 'bias' has type {b}, expected {TensorType(x.element_type, [o])}"
                )


POOLING_FORMAT = (
    "$input `kernel` $kernel (`strides` $strides^)? (`pads` $pads^)? (`ceil_mode` $ceil_mode^)? "
)


class PoolingOp(IRDLOperation, abc.ABC):
    """2-D pooling of an NCHW (or NHWC, NC1HWC0) tensor; the result keeps the layout.

    `pads` is [top, bottom, left, right], each smaller than the kernel; with `ceil_mode` the
    last window may overhang the padded input.
    """

    input = operand_def(TensorType)
    output = result_def(TensorType)
    kernel = prop_def(DenseArrayBase.constr(i64))
    strides = prop_def(DenseArrayBase.constr(i64), default_value=STRIDES_DEFAULT)
    pads = prop_def(DenseArrayBase.constr(i64), default_value=PADS_DEFAULT)
    ceil_mode = opt_prop_def(UnitAttr)

    traits = traits_def(Pure())

    assembly_format = POOLING_FORMAT + "attr-dict `:` type($input) `->` type($output)"

    def __init__(
        self,
        input: SSAValue,
        result_type: Attribute,
        kernel: Sequence[int],
        strides: Sequence[int] | None = None,
        pads: Sequence[int] | None = None,
        ceil_mode: bool = False,
        *,
        extra_properties: Mapping[str, Attribute | None] | None = None,
    ):
        super().__init__(
            operands=[input],
            result_types=[result_type],
            properties={
                "kernel": int_array(kernel),
                "strides": int_array(strides, (1, 1)),
                "pads": int_array(pads, (0, 0, 0, 0)),
                "ceil_mode": UnitAttr() if ceil_mode else None,
                **(extra_properties or {}),
            },
        )

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        require_float_or_int8(x, "operand 'input'")
        require_rank4(x)
        require_activation_format(x, "operand 'input'")
        kernel = self.kernel.get_values()
        strides = self.strides.get_values()
        pads = self.pads.get_values()
        check_window("kernel", kernel, 2, 1, "positive integers")
        check_window("strides", strides, 2, 1, "positive integers")
        check_window("pads", pads, 4, 0, _PADS_DESCRIPTION)
        for k, before, after in ((kernel[0], pads[0], pads[1]), (kernel[1], pads[2], pads[3])):
            if before >= k or after >= k:
                raise VerifyException(
                    f"pads {list(pads)} must be smaller than the kernel {list(kernel)} "
                    f"(a window would lie in the padding only)"
                )
        n, c, h, w = x.get_shape()
        ceil = self.ceil_mode is not None
        ho = pool_output_size(h, kernel[0], strides[0], pads[0], pads[1], ceil)
        wo = pool_output_size(w, kernel[1], strides[1], pads[2], pads[3], ceil)
        if ho < 1 or wo < 1:
            raise VerifyException(
                f"the kernel {kernel[0]}x{kernel[1]} does not fit the padded input "
                f"{h + pads[0] + pads[1]}x{w + pads[2] + pads[3]}"
            )
        expect_shape(y, (n, c, ho, wo))
        expect_element_type(y, x.element_type)
        expect_layout(y, x)


# --------------------------------------------------------------------------------------
# Collectives
# --------------------------------------------------------------------------------------


class CollectiveOp(IRDLOperation, abc.ABC):
    """An HCCL collective over the `rank_size` ranks of `group`.

    It communicates, so it has memory effects: CSE and DCE leave it alone.
    """

    input = operand_def(TensorType)
    output = result_def(TensorType)
    group = prop_def(StringAttr)
    rank_size = prop_def(IntegerAttr[I64])

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(
        self,
        input: SSAValue,
        group: str,
        rank_size: int,
        result_type: Attribute,
        *,
        extra_properties: Mapping[str, Attribute | None] | None = None,
    ):
        super().__init__(
            operands=[input],
            result_types=[result_type],
            properties={
                **(extra_properties or {}),
                "group": StringAttr(group),
                "rank_size": IntegerAttr(rank_size, i64),
            },
        )

    def verify_(self) -> None:
        x = type_of(self.input, "operand 'input'")
        y = type_of(self.output, "result")
        if not self.group.data:
            raise VerifyException("group must not be empty")
        if self.rank_size.value.data < 1:
            raise VerifyException(f"rank_size must be positive, got {self.rank_size.value.data}")
        if not (is_float(x.element_type) or type_name(x.element_type) in ("i8", "i32")):
            raise VerifyException(
                f"operand 'input' must be f16, f32, i8 or i32, got {x.element_type}"
            )
        expect_element_type(y, x.element_type)
        expect_layout(y, x)


# --------------------------------------------------------------------------------------
# One operand, a result of another type
# --------------------------------------------------------------------------------------


class UnaryOp(IRDLOperation, abc.ABC):
    """One operand and one result whose type the op's `verify_` relates to the input's.

    Both types are printed: `ge.cast %x : tensor<4xf32> -> tensor<4xf16>`.
    """

    input = operand_def(TensorType)
    output = result_def(TensorType)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(
        self,
        input: SSAValue,
        result_type: Attribute,
        properties: Mapping[str, Attribute | None] | None = None,
    ):
        super().__init__(operands=[input], result_types=[result_type], properties=properties or {})


# --------------------------------------------------------------------------------------
# Data movement that folds
# --------------------------------------------------------------------------------------

FOLD_LIMIT = 2**16
"""Constant folding makes constants of at most this many elements."""


class FoldingDataMovementOp(UnaryOp, HasFolderInterface, abc.ABC):
    """Moves the data of one operand; applied to a constant, it folds into a constant.

    Only results of at most `FOLD_LIMIT` elements fold; the `ge` dialect materialises them
    as a `ge.const` (the value is the physical dense array).
    """

    @abc.abstractmethod
    def compute(self, logical: np.ndarray) -> np.ndarray:
        """The op applied to the logical array of its constant operand."""

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        source = self.input.owner
        if not isinstance(source, Operation) or not source.has_trait(ConstantLike):
            return None
        value = source.properties.get("value")
        t, source_type = self.output.type, source.results[0].type
        if not isinstance(value, DenseIntOrFPElementsAttr | ExternalDataAttr):
            return None  # elided, or not a ge constant
        if not isinstance(t, TensorType) or not isinstance(source_type, TensorType):
            return None
        if math.prod(t.get_shape()) > FOLD_LIMIT:
            return None
        logical = self.compute(to_logical(source_type, read_physical(value, source_type, source)))
        return (dense_from_numpy(to_physical(t, logical), t.element_type),)
