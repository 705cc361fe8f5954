"""The `ge` dialect: tensor-level graph ops modelled on Ascend Graph Engine's IR.

Ops have value semantics and work on *logical* shapes (NCHW for 4-D activations, OIHW for
conv weights).  A storage format lives in the tensor type's encoding, e.g.

    tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>

is a logical 1x17x8x8 tensor stored as NC1HWC0 (physical shape 1x2x8x8x16, padding lanes
zero).  No encoding means the default layout (NCHW for rank 4, ND otherwise); an explicit
default is rejected so that one layout has exactly one type.  `physical_shape(type)` is the
one place that derives physical shapes.

Only `ge.const` ever holds physical data: its dense value has the physical shape and no
encoding, or it refers to external data (`#ge.external<...>`) written beside the IR, or it
was elided for reading (`#ge.elided`).
"""

from __future__ import annotations

import abc
import math
from collections.abc import Callable, Sequence
from typing import ClassVar, cast

import numpy as np
from xdsl.dialects.builtin import (
    I64,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    Signedness,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
    i64,
)
from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects.utils import EnumAttribute
from xdsl.interfaces import HasCanonicalizationPatternsInterface, HasFolderInterface
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ge_dialect import layout

# --------------------------------------------------------------------------------------
# Element types
# --------------------------------------------------------------------------------------

_NP_DTYPES: dict[str, str] = {
    "f16": "<f2",
    "f32": "<f4",
    "f64": "<f8",
    "i8": "i1",
    "si8": "i1",
    "ui8": "u1",
    "i16": "<i2",
    "i32": "<i4",
    "i64": "<i8",
    "i1": "?",
}


def np_dtype(element_type: Attribute) -> np.dtype:
    """The numpy dtype of an MLIR element type (little-endian, as xDSL stores dense data)."""
    key = _type_key(element_type)
    if key not in _NP_DTYPES:
        raise ValueError(f"element type {element_type} has no numpy equivalent")
    return np.dtype(_NP_DTYPES[key])


def _type_key(t: Attribute) -> str:
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, IntegerType):
        prefix = {Signedness.SIGNLESS: "i", Signedness.SIGNED: "si", Signedness.UNSIGNED: "ui"}
        return f"{prefix[t.signedness.data]}{t.width.data}"
    return str(t)


def is_float(t: Attribute) -> bool:
    return isinstance(t, Float16Type | Float32Type)


def is_int8(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 8


def itemsize(t: Attribute) -> int:
    return np_dtype(t).itemsize


# --------------------------------------------------------------------------------------
# The format encoding
# --------------------------------------------------------------------------------------


class Format(StrEnum):
    NCHW = "NCHW"
    ND = "ND"
    NHWC = "NHWC"
    NC1HWC0 = "NC1HWC0"
    FRACTAL_Z = "FRACTAL_Z"


_WRITABLE_FORMATS = (Format.NHWC, Format.NC1HWC0, Format.FRACTAL_Z)
_C0_FORMATS = (Format.NC1HWC0, Format.FRACTAL_Z)
_C0_VALUES = (4, 8, 16, 32, 64)


def parse_parameter_list(
    parser: AttrParser, kind: str, parsers: dict[str, Callable[[], object]]
) -> dict[str, object]:
    """Parses `, key = value` pairs up to the closing `>`, each key at most once.

    `parsers` maps each allowed key to the function that parses its value.
    """
    values: dict[str, object] = {}
    while parser.parse_optional_punctuation(",") is not None:
        pos = parser.pos
        key = parser.parse_identifier(context_msg=f" ({' or '.join(parsers)})")
        if key not in parsers:
            parser.raise_error(
                f"unknown {kind} parameter '{key}', expected {' or '.join(parsers)}", pos, parser.pos
            )
        if key in values:
            parser.raise_error(f"{kind} parameter '{key}' is given twice", pos, parser.pos)
        parser.parse_punctuation("=")
        values[key] = parsers[key]()
    return values


@irdl_attr_definition
class FormatAttr(ParametrizedAttribute):
    """A storage format, written as a tensor encoding: `#ge.format<FMT[, c0 = K][, groups = G]>`.

    `c0` (0 here when omitted) is written only when it differs from the dtype's default
    (16; 32 for 1-byte types); `groups` only on FRACTAL_Z and only when > 1.  Logical dims
    stay in NCHW (OIHW) order whatever the format.
    """

    name = "ge.format"

    format: StringAttr
    c0: IntAttr
    groups: IntAttr

    def __init__(self, format: str | Format, c0: int = 0, groups: int = 1):
        super().__init__(StringAttr(str(format)), IntAttr(c0), IntAttr(groups))

    @property
    def fmt(self) -> Format:
        return Format(self.format.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            pos = parser.pos
            word = parser.parse_identifier(context_msg=" (a format name)")
            if word not in Format.__members__:
                parser.raise_error(
                    f"unknown format '{word}', expected one of "
                    + ", ".join(f.value for f in _WRITABLE_FORMATS),
                    pos,
                    parser.pos,
                )
            def c0() -> int:
                pos = parser.pos
                value = parser.parse_integer(allow_boolean=False)
                if value not in _C0_VALUES:
                    parser.raise_error(
                        f"c0 must be one of 4, 8, 16, 32, 64, got {value}", pos, parser.pos
                    )
                return value

            def groups() -> int:
                pos = parser.pos
                value = parser.parse_integer(allow_boolean=False)
                if value == 1:
                    parser.raise_error("groups = 1 is the default and must be omitted", pos, parser.pos)
                return value

            values = {"c0": 0, "groups": 1}
            values.update(parse_parameter_list(parser, "format", {"c0": c0, "groups": groups}))
        params = (StringAttr(word), IntAttr(values["c0"]), IntAttr(values["groups"]))
        if (message := _format_error(word, values["c0"], values["groups"])) is not None:
            parser.raise_error(message, start, parser.pos)
        return params

    def print_parameters(self, printer: Printer) -> None:
        text = self.format.data
        if self.c0.data:
            text += f", c0 = {self.c0.data}"
        if self.groups.data != 1:
            text += f", groups = {self.groups.data}"
        printer.print_string(f"<{text}>")

    def verify(self) -> None:
        if (message := _format_error(self.format.data, self.c0.data, self.groups.data)) is not None:
            raise VerifyException(message)


def _format_error(fmt: str, c0: int, groups: int) -> str | None:
    """Why `#ge.format<fmt, c0, groups>` is invalid on its own, or None."""
    if fmt in (Format.NCHW, Format.ND):
        return (
            f"explicit default format {fmt} is not allowed: write the tensor type without an "
            "encoding"
        )
    if fmt not in Format.__members__:
        return f"unknown format '{fmt}'"
    if c0 and fmt not in _C0_FORMATS:
        return f"c0 is only meaningful for NC1HWC0 and FRACTAL_Z, not {fmt}"
    if c0 and c0 not in _C0_VALUES:
        return f"c0 must be one of 4, 8, 16, 32, 64, got {c0}"
    if groups < 1:
        return f"groups must be positive, got {groups}"
    if groups != 1 and fmt != Format.FRACTAL_Z:
        return f"groups is only meaningful for FRACTAL_Z, not {fmt}"
    return None


def tensor_format(t: Attribute) -> Format:
    """The storage format of a tensor type (its default when it has no encoding)."""
    assert isinstance(t, TensorType)
    enc = t.encoding
    if isinstance(enc, FormatAttr):
        return enc.fmt
    return Format.NCHW if t.get_num_dims() == 4 else Format.ND


def tensor_c0(t: TensorType) -> int:
    """The C0 of an NC1HWC0/FRACTAL_Z tensor type (the dtype's default when not written)."""
    enc = t.encoding
    if isinstance(enc, FormatAttr) and enc.c0.data:
        return enc.c0.data
    return layout.default_c0(itemsize(t.element_type))


def tensor_groups(t: TensorType) -> int:
    enc = t.encoding
    return enc.groups.data if isinstance(enc, FormatAttr) else 1


def physical_shape(t: TensorType) -> tuple[int, ...]:
    """The shape of the array that stores a value of type `t` (padding lanes included)."""
    fmt = tensor_format(t)
    c0 = tensor_c0(t) if fmt in _C0_FORMATS else None
    return layout.physical_dims(
        tuple(t.get_shape()), fmt.value, c0, itemsize(t.element_type), tensor_groups(t)
    )


def with_format(t: TensorType, fmt: Format | str, c0: int = 0, groups: int = 1) -> TensorType:
    """`t` with another storage format (default formats drop the encoding)."""
    fmt = Format(fmt)
    if fmt in (Format.NCHW, Format.ND):
        return TensorType(t.element_type, t.get_shape())
    if c0 and c0 == layout.default_c0(itemsize(t.element_type)):
        c0 = 0
    return TensorType(t.element_type, t.get_shape(), FormatAttr(fmt, c0, groups))


def to_logical(t: TensorType, physical: np.ndarray) -> np.ndarray:
    """Physical array of a value of type `t` -> its logical NCHW/ND array."""
    fmt = tensor_format(t)
    if fmt in (Format.NCHW, Format.ND):
        return physical
    c0 = tensor_c0(t) if fmt in _C0_FORMATS else None
    return layout.to_logical(physical, fmt.value, tuple(t.get_shape()), c0, tensor_groups(t))


def to_physical(t: TensorType, logical: np.ndarray) -> np.ndarray:
    """Logical array -> the physical storage of a value of type `t` (padding zero)."""
    logical = np.asarray(logical, dtype=np_dtype(t.element_type))
    fmt = tensor_format(t)
    if fmt in (Format.NCHW, Format.ND):
        return logical
    c0 = tensor_c0(t) if fmt in _C0_FORMATS else None
    return layout.to_physical(logical, fmt.value, c0, tensor_groups(t))


def verify_tensor_type(t: Attribute, what: str) -> TensorType:
    """Checks the rules a `ge` op puts on each operand/result type; returns it as TensorType."""
    if not isinstance(t, TensorType):
        raise VerifyException(f"{what} must be a ranked tensor, got {t}")
    t = cast(TensorType, t)
    if any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"{what} must have a static shape, got {t}")
    if _type_key(t.element_type) not in _NP_DTYPES:
        raise VerifyException(f"{what} has unsupported element type {t.element_type}")
    enc = t.encoding
    if isinstance(enc, FormatAttr):
        fmt = enc.fmt
        if t.get_num_dims() != 4:
            raise VerifyException(
                f"{what}: format {fmt} needs a rank-4 tensor, got rank {t.get_num_dims()}"
            )
        if fmt == Format.FRACTAL_Z and t.get_shape()[0] % enc.groups.data:
            raise VerifyException(
                f"{what}: FRACTAL_Z with groups = {enc.groups.data} needs output channels "
                f"(dim 0) divisible by {enc.groups.data}, got {t.get_shape()[0]}"
            )
        default = layout.default_c0(itemsize(t.element_type))
        if enc.c0.data == default:
            raise VerifyException(
                f"{what}: c0 = {default} is the default for {t.element_type} and must be omitted"
            )
    elif not isinstance(enc, NoneAttr):
        raise VerifyException(f"{what} has an encoding that is not #ge.format: {enc}")
    return t


def layout_str(t: TensorType) -> str:
    """A tensor type's layout as written: its encoding, or the default format's name."""
    return str(t.encoding) if isinstance(t.encoding, FormatAttr) else tensor_format(t).value


def _num(value: float) -> str:
    """An f32 attribute value as a short decimal (7 significant digits)."""
    return f"{value:.7g}"


def _check_finite(value: float, what: str) -> None:
    if not math.isfinite(value):
        raise VerifyException(f"{what} must be finite, got {_num(value)}")


_ACTIVATION_FORMATS = (Format.NCHW, Format.NHWC, Format.NC1HWC0)


def _require_activation_format(t: TensorType, what: str) -> None:
    """A 4-D activation is stored as NCHW, NHWC or NC1HWC0 (never FRACTAL_Z)."""
    if tensor_format(t) not in _ACTIVATION_FORMATS:
        raise VerifyException(
            f"{what} has format {tensor_format(t)}, expected NCHW, NHWC or NC1HWC0"
        )


def _require_float_or_int8(t: TensorType, what: str) -> None:
    """Data movement and elementwise ops take f16, f32, i8 and ui8."""
    if not (is_float(t.element_type) or is_int8(t.element_type)):
        raise VerifyException(f"{what} must be f16, f32, i8 or ui8, got {t.element_type}")


def _shape_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _type_of(value: SSAValue, what: str) -> TensorType:
    return verify_tensor_type(value.type, what)


# --------------------------------------------------------------------------------------
# Dense data helpers
# --------------------------------------------------------------------------------------


def dense_from_numpy(array: np.ndarray, element_type: Attribute) -> DenseIntOrFPElementsAttr:
    """A dense attribute holding `array` (O(bytes): built from `tobytes()`, never a list)."""
    data = np.ascontiguousarray(array, dtype=np_dtype(element_type)).tobytes()
    return DenseIntOrFPElementsAttr(TensorType(element_type, array.shape), BytesAttr(data))


def dense_to_numpy(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """A read-only numpy view of a dense attribute (splats are broadcast)."""
    shape = tuple(attr.get_shape())
    flat = np.frombuffer(attr.data.data, dtype=np_dtype(attr.get_element_type()))
    if flat.size == 1 and math.prod(shape) != 1:
        return np.broadcast_to(flat, shape)
    return flat.reshape(shape)


def parse_string(parser: AttrParser, context_msg: str = "") -> str:
    """A string literal, including the escaped non-ASCII form the printer writes.

    xDSL lexes `"\\C3\\A9"` as a bytes literal, which `parse_str_literal` refuses.
    """
    pos = parser.pos
    if (text := parser.parse_optional_str_literal()) is not None:
        return text
    if (data := parser.parse_optional_bytes_literal()) is not None:
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            parser.raise_error("string literal is not valid UTF-8", pos, parser.pos)
    parser.raise_error("string literal expected" + context_msg)


@irdl_attr_definition
class ExternalDataAttr(ParametrizedAttribute):
    """Constant data stored outside the IR: `#ge.external<"file", offset = O, length = L>`.

    The path is relative to the IR file's directory (or absolute); the bytes are the
    constant's physical array, little-endian, row-major.  Loaded lazily and memory-mapped
    (`ge_dialect.weights`).
    """

    name = "ge.external"

    path: StringAttr
    offset: IntAttr
    length: IntAttr

    def __init__(self, path: str, offset: int, length: int):
        super().__init__(StringAttr(path), IntAttr(offset), IntAttr(length))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            path = parse_string(parser, " (the external data file)")
            parser.parse_punctuation(",")
            parser.parse_keyword("offset")
            parser.parse_punctuation("=")
            offset = parser.parse_integer(allow_boolean=False, allow_negative=False)
            parser.parse_punctuation(",")
            parser.parse_keyword("length")
            parser.parse_punctuation("=")
            length = parser.parse_integer(allow_boolean=False, allow_negative=False)
        return (StringAttr(path), IntAttr(offset), IntAttr(length))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_string_literal(self.path.data)
        printer.print_string(f", offset = {self.offset.data}, length = {self.length.data}>")


@irdl_attr_definition
class ElidedAttr(ParametrizedAttribute):
    """Marks a constant whose data was elided when printing (`#ge.elided`).

    Elided IR is for reading: it parses and verifies, but nothing can compute with it.
    """

    name = "ge.elided"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return ()


# --------------------------------------------------------------------------------------
# Ops
# --------------------------------------------------------------------------------------


@irdl_op_definition
class ConstOp(IRDLOperation):
    """A constant tensor.

    The value's data has the *physical* shape of the result type; when the result type has
    no encoding the two types are equal and are printed once:

        %b = ge.const dense<[0.5, -1.0]> : tensor<2xf32>
        %w = ge.const dense<"0x..."> : tensor<1x2x8x8x16xf16> -> tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>
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
        return ConstOp(dense_from_numpy(physical, result_type.element_type), result_type)

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
        printer.print_attribute(self.value)
        if isinstance(self.value, DenseIntOrFPElementsAttr):
            if self.value.type != self.output.type:
                printer.print_string(" -> ")
                printer.print_attribute(self.output.type)
        else:
            printer.print_string(" : ")
            printer.print_attribute(self.output.type)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        t = _type_of(self.output, "result")
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
                    f"value has shape {_shape_str(value.get_shape())}, expected the physical "
                    f"shape {_shape_str(expected)} of {t}"
                )
            if tensor_format(t) in _C0_FORMATS:
                physical = dense_to_numpy(value)
                if not np.array_equal(to_physical(t, to_logical(t, physical)), physical):
                    raise VerifyException(
                        f"value has nonzero padding lanes: every lane beyond the logical "
                        f"shape {_shape_str(t.get_shape())} of the {tensor_format(t)} constant "
                        "must be zero"
                    )
        elif isinstance(value, ExternalDataAttr):
            nbytes = math.prod(expected) * itemsize(t.element_type)
            if value.length.data != nbytes:
                raise VerifyException(
                    f"external data has length {value.length.data}, expected {nbytes} bytes "
                    f"for the physical shape {_shape_str(expected)} of {t}"
                )


class _ConvProps:
    """Checks shared by ge.conv2d and ge.fused_conv2d."""

    def verify_conv(self: IRDLOperation) -> None:  # type: ignore[misc]
        op = cast(Conv2DOp, self)
        x = _type_of(op.input, "operand 'input'")
        w = _type_of(op.filter, "operand 'filter'")
        y = _type_of(op.output, "result")
        strides = op.strides.get_values()
        pads = op.pads.get_values()
        dilations = op.dilations.get_values()
        groups = op.groups.value.data
        if len(strides) != 2 or min(strides) < 1:
            raise VerifyException(f"strides must be 2 positive integers, got {list(strides)}")
        if len(dilations) != 2 or min(dilations) < 1:
            raise VerifyException(f"dilations must be 2 positive integers, got {list(dilations)}")
        if len(pads) != 4 or min(pads) < 0:
            raise VerifyException(
                f"pads must be 4 non-negative integers [top, bottom, left, right], got {list(pads)}"
            )
        if groups < 1:
            raise VerifyException(f"groups must be positive, got {groups}")
        for t, what in ((x, "input"), (w, "filter")):
            if is_int8(t.element_type):
                raise VerifyException(
                    f"operand '{what}' is {t.element_type}: a quantised convolution is out of "
                    "scope (only f16 and f32 are supported)"
                )
            if not is_float(t.element_type):
                raise VerifyException(
                    f"operand '{what}' must be f16 or f32, got {t.element_type}"
                )
        if x.element_type != w.element_type:
            raise VerifyException(
                f"operand 'filter' has element type {w.element_type}, expected "
                f"{x.element_type} (the input's)"
            )
        if x.get_num_dims() != 4:
            raise VerifyException(f"operand 'input' must have rank 4 (NCHW), got {x}")
        if w.get_num_dims() != 4:
            raise VerifyException(f"operand 'filter' must have rank 4 (OIHW), got {w}")
        _require_activation_format(x, "operand 'input'")
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
            if tensor_format(t) in _C0_FORMATS
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
        ho = (h + pads[0] + pads[1] - dilations[0] * (kh - 1) - 1) // strides[0] + 1
        wo = (wd + pads[2] + pads[3] - dilations[1] * (kw - 1) - 1) // strides[1] + 1
        if ho < 1 or wo < 1:
            ekh, ekw = dilations[0] * (kh - 1) + 1, dilations[1] * (kw - 1) + 1
            raise VerifyException(
                f"the kernel {kh}x{kw} (dilated extent {ekh}x{ekw}) does not fit the padded "
                f"input {h + pads[0] + pads[1]}x{wd + pads[2] + pads[3]}"
            )
        expected = (n, o, ho, wo)
        if tuple(y.get_shape()) != expected:
            raise VerifyException(
                f"result has shape {_shape_str(y.get_shape())}, expected {_shape_str(expected)}"
            )
        if y.element_type != x.element_type:
            raise VerifyException(
                f"result has element type {y.element_type}, expected {x.element_type}"
            )
        _require_activation_format(y, "result")
        if op.bias is not None:
            b = _type_of(op.bias, "operand 'bias'")
            if tuple(b.get_shape()) != (o,) or b.element_type != x.element_type:
                raise VerifyException(
                    f"operand 'bias' has type {b}, expected {TensorType(x.element_type, [o])}"
                )


_STRIDES_DEFAULT = DenseArrayBase.from_list(i64, [1, 1])
_PADS_DEFAULT = DenseArrayBase.from_list(i64, [0, 0, 0, 0])
_ONE = IntegerAttr(1, i64)

_CONV_ATTRS = "(`strides` $strides^)? (`pads` $pads^)? (`dilations` $dilations^)? (`groups` $groups^)?"


def _ints(values: Sequence[int] | None, default: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(default if values is None else values))


@irdl_op_definition
class Conv2DOp(IRDLOperation, _ConvProps):
    """2-D convolution (cross-correlation) of an NCHW input with OIHW weights.

    `pads` is GE's order [top, bottom, left, right]; `groups` splits channels (a depthwise
    conv has groups == input channels).  The input may be NC1HWC0 and the filter FRACTAL_Z.

        %y = ge.conv2d %x, %w bias %b strides [2, 2] pads [1, 1, 1, 1] groups 2
               : tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<1x6x4x4xf32>
    """

    name = "ge.conv2d"

    input = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    output = result_def(TensorType)

    strides = prop_def(DenseArrayBase.constr(i64), default_value=_STRIDES_DEFAULT)
    pads = prop_def(DenseArrayBase.constr(i64), default_value=_PADS_DEFAULT)
    dilations = prop_def(DenseArrayBase.constr(i64), default_value=_STRIDES_DEFAULT)
    groups = prop_def(IntegerAttr[I64], default_value=_ONE)

    traits = traits_def(Pure())

    assembly_format = (
        "$input `,` $filter (`bias` $bias^)? " + _CONV_ATTRS + " attr-dict `:` "
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
    ):
        super().__init__(
            operands=[input, filter, bias],
            result_types=[result_type],
            properties={
                "strides": _ints(strides, (1, 1)),
                "pads": _ints(pads, (0, 0, 0, 0)),
                "dilations": _ints(dilations, (1, 1)),
                "groups": IntegerAttr(groups, i64),
            },
        )

    def verify_(self) -> None:
        self.verify_conv()


class Activation(StrEnum):
    NONE = "none"
    RELU = "relu"
    RELU6 = "relu6"
    LEAKY_RELU = "leaky_relu"
    SIGMOID = "sigmoid"


@irdl_attr_definition
class ActivationAttr(EnumAttribute[Activation], SpacedOpaqueSyntaxAttribute):
    """The activation of a fused conv: none, relu, relu6, leaky_relu or sigmoid."""

    name = "ge.activation"


@irdl_op_definition
class FusedConv2DOp(IRDLOperation, _ConvProps):
    """A conv with bias, residual add and activation fused: `act(conv(x, W) + b + residual)`.

    `alpha` is the slope of leaky_relu and is present exactly when activation is leaky_relu.
    The residual has the result's type, so its type is not printed.

        %y = ge.fused_conv2d %x, %w bias %b residual %r activation relu pads [1, 1, 1, 1]
               : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32> -> tensor<1x8x8x8xf32>
    """

    name = "ge.fused_conv2d"

    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(TensorType)
    filter = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    residual = opt_operand_def(T)
    output = result_def(T)

    strides = prop_def(DenseArrayBase.constr(i64), default_value=_STRIDES_DEFAULT)
    pads = prop_def(DenseArrayBase.constr(i64), default_value=_PADS_DEFAULT)
    dilations = prop_def(DenseArrayBase.constr(i64), default_value=_STRIDES_DEFAULT)
    groups = prop_def(IntegerAttr[I64], default_value=_ONE)
    activation = prop_def(ActivationAttr, default_value=ActivationAttr(Activation.NONE))
    alpha = opt_prop_def(FloatAttr[Float32Type])

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    assembly_format = (
        "$input `,` $filter (`bias` $bias^)? (`residual` $residual^)? "
        "(`activation` $activation^)? (`alpha` $alpha^)? " + _CONV_ATTRS + " attr-dict `:` "
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
            operands=[input, filter, bias, residual],
            result_types=[result_type],
            properties={
                "strides": _ints(strides, (1, 1)),
                "pads": _ints(pads, (0, 0, 0, 0)),
                "dilations": _ints(dilations, (1, 1)),
                "groups": IntegerAttr(groups, i64),
                "activation": ActivationAttr(Activation(activation)),
                "alpha": None if alpha is None else FloatAttr(alpha, f32),
            },
        )

    def verify_(self) -> None:
        self.verify_conv()
        act = self.activation.data
        if act == Activation.LEAKY_RELU and self.alpha is None:
            raise VerifyException("activation leaky_relu needs an alpha")
        if act != Activation.LEAKY_RELU and self.alpha is not None:
            raise VerifyException(f"alpha is only meaningful for leaky_relu, not {act}")
        if self.alpha is not None:
            _check_finite(self.alpha.value.data, "alpha")


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
        x = _type_of(self.input, "operand 'input'")
        y = _type_of(self.output, "result")
        if not is_float(x.element_type):
            raise VerifyException(f"operand 'input' must be f16 or f32, got {x.element_type}")
        if x.get_num_dims() != 4:
            raise VerifyException(f"operand 'input' must have rank 4, got {x}")
        _require_activation_format(x, "operand 'input'")
        c = x.get_shape()[1]
        allowed = " or ".join(
            f"tensor<{c}x{e}>" for e in dict.fromkeys((x.element_type, f32))
        )
        for name in ("scale", "offset", "mean", "variance"):
            p = _type_of(getattr(self, name), f"operand '{name}'")
            if tuple(p.get_shape()) != (c,) or p.element_type not in (x.element_type, f32):
                raise VerifyException(
                    f"operand '{name}' has type {p}, expected {allowed} (one value per channel)"
                )
        epsilon = self.epsilon.value.data
        _check_finite(epsilon, "epsilon")
        if epsilon < 0:
            raise VerifyException(f"epsilon must be non-negative, got {_num(epsilon)}")
        if y != x:
            raise VerifyException(f"result has type {y}, expected {x} (the input's)")


class _Unary:
    """Checks shared by the unary elementwise ops (result type == input type)."""

    ALLOW_INT8: ClassVar[bool] = False

    def verify_unary(self: IRDLOperation) -> None:  # type: ignore[misc]
        x = _type_of(self.operands[0], "operand 'input'")
        _type_of(self.results[0], "result")
        allowed = is_float(x.element_type) or (type(self).ALLOW_INT8 and is_int8(x.element_type))
        if not allowed:
            kinds = "f16, f32, i8 or ui8" if type(self).ALLOW_INT8 else "f16 or f32"
            raise VerifyException(f"operand 'input' must be {kinds}, got {x.element_type}")

    def verify_(self) -> None:
        self.verify_unary()  # type: ignore[attr-defined]


@irdl_op_definition
class ReluOp(_Unary, IRDLOperation):
    """`max(x, 0)` elementwise.

        %y = ge.relu %x : tensor<1x4x8x8xf32>
    """

    name = "ge.relu"
    ALLOW_INT8: ClassVar[bool] = True
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])


@irdl_op_definition
class Relu6Op(_Unary, IRDLOperation):
    """`min(max(x, 0), 6)` elementwise.

        %y = ge.relu6 %x : tensor<1x4x8x8xf16>
    """

    name = "ge.relu6"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])


@irdl_op_definition
class SigmoidOp(_Unary, IRDLOperation):
    """`1 / (1 + exp(-x))` elementwise (padding lanes of NC1HWC0 values stay zero).

        %y = ge.sigmoid %x : tensor<1x4x8x8xf32>
    """

    name = "ge.sigmoid"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])


@irdl_op_definition
class LeakyReluOp(_Unary, IRDLOperation):
    """`x if x >= 0 else alpha * x` elementwise; alpha defaults to 0.01.

        %y = ge.leaky_relu %x alpha 2.000000e-01 : tensor<1x4x8x8xf32>
    """

    name = "ge.leaky_relu"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)
    alpha = prop_def(FloatAttr[Float32Type], default_value=FloatAttr(0.01, f32))
    traits = traits_def(Pure())
    assembly_format = "$input (`alpha` $alpha^)? attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, alpha: float = 0.01):
        super().__init__(
            operands=[input], result_types=[input.type], properties={"alpha": FloatAttr(alpha, f32)}
        )

    def verify_(self) -> None:
        self.verify_unary()
        _check_finite(self.alpha.value.data, "alpha")


@irdl_op_definition
class ClipOp(_Unary, IRDLOperation, HasCanonicalizationPatternsInterface):
    """`min(max(x, min), max)` elementwise.

        %y = ge.clip %x min 0.000000e+00 max 6.000000e+00 : tensor<1x4x8x8xf32>
    """

    name = "ge.clip"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)
    min = prop_def(FloatAttr[Float32Type])
    max = prop_def(FloatAttr[Float32Type])
    traits = traits_def(Pure())
    assembly_format = "$input `min` $min `max` $max attr-dict `:` type($input)"

    def __init__(self, input: SSAValue, min: float, max: float):
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={"min": FloatAttr(min, f32), "max": FloatAttr(max, f32)},
        )

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return (ClipToRelu6(),)

    def verify_(self) -> None:
        self.verify_unary()
        lo, hi = self.min.value.data, self.max.value.data
        _check_finite(lo, "min")
        _check_finite(hi, "max")
        if lo > hi:
            raise VerifyException(f"min must not exceed max, got min = {_num(lo)}, max = {_num(hi)}")


class ClipToRelu6(RewritePattern):
    """`clip(0, 6)` is relu6.

        %y = ge.clip %x min 0.000000e+00 max 6.000000e+00 : tensor<4xf32>
      ->
        %y = ge.relu6 %x : tensor<4xf32>
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ClipOp, rewriter: PatternRewriter) -> None:
        if op.min.value.data != 0.0 or op.max.value.data != 6.0:
            return
        relu6 = Relu6Op(op.input)
        relu6.attributes.update(op.attributes)
        relu6.location = op.location
        rewriter.replace(op, relu6)


def broadcast_shape(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...] | None:
    """numpy's broadcast of two shapes, or None when they do not broadcast."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        da = a[-i] if i <= len(a) else 1
        db = b[-i] if i <= len(b) else 1
        if da != db and 1 not in (da, db):
            return None
        out.append(db if da == 1 else da)
    return tuple(reversed(out))


class _Binary:
    """Elementwise binary ops with numpy-style broadcasting on logical shapes.

    Rank-4 operands must share the result's format; lower-rank operands broadcast from
    their default (ND) layout.  i8/ui8 arithmetic saturates.
    """

    def verify_(self) -> None:
        op = cast(IRDLOperation, self)
        a = _type_of(op.operands[0], "operand 'lhs'")
        b = _type_of(op.operands[1], "operand 'rhs'")
        y = _type_of(op.results[0], "result")
        if a.element_type != b.element_type:
            raise VerifyException(
                f"operand 'rhs' has element type {b.element_type}, expected {a.element_type} "
                "(the lhs's)"
            )
        _require_float_or_int8(a, "operand 'lhs'")
        shape = broadcast_shape(a.get_shape(), b.get_shape())
        if shape is None:
            raise VerifyException(
                f"operands have shapes {_shape_str(a.get_shape())} and "
                f"{_shape_str(b.get_shape())}, which do not broadcast"
            )
        if tuple(y.get_shape()) != shape or y.element_type != a.element_type:
            raise VerifyException(
                f"result has type {y}, expected shape {_shape_str(shape)} and element type "
                f"{a.element_type}"
            )
        for t, what in ((a, "lhs"), (b, "rhs")):
            if t.get_num_dims() == y.get_num_dims() and t.encoding != y.encoding:
                raise VerifyException(
                    f"operand '{what}' has layout {layout_str(t)}, expected {layout_str(y)} "
                    "(the result's)"
                )


_BINARY_FORMAT = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)"


@irdl_op_definition
class AddOp(_Binary, IRDLOperation):
    """Elementwise `lhs + rhs` with numpy broadcasting (saturating for i8/ui8).

        %y = ge.add %a, %b : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
    """

    name = "ge.add"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = _BINARY_FORMAT

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[lhs, rhs], result_types=[result_type or lhs.type])


@irdl_op_definition
class SubOp(_Binary, IRDLOperation):
    """Elementwise `lhs - rhs` with numpy broadcasting (saturating for i8/ui8).

        %y = ge.sub %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    """

    name = "ge.sub"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = _BINARY_FORMAT

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[lhs, rhs], result_types=[result_type or lhs.type])


@irdl_op_definition
class MulOp(_Binary, IRDLOperation):
    """Elementwise `lhs * rhs` with numpy broadcasting (saturating for i8/ui8).

        %y = ge.mul %a, %s : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
    """

    name = "ge.mul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = _BINARY_FORMAT

    def __init__(self, lhs: SSAValue, rhs: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[lhs, rhs], result_types=[result_type or lhs.type])


FOLD_LIMIT = 2**16
"""Constant folding makes constants of at most this many elements."""


class _FoldsConstants(HasFolderInterface):
    """Folds the op applied to a constant into a constant (data movement only).

    Only trans_data, reshape, flatten and transpose fold, and only into results of at most
    `FOLD_LIMIT` elements; the `ge` dialect materialises the result as a `ge.const`.
    """

    @abc.abstractmethod
    def compute(self, logical: np.ndarray) -> np.ndarray:
        """The op applied to the logical array of its constant operand."""

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        source = self.operands[0].owner
        t = self.results[0].type
        if not isinstance(source, ConstOp) or isinstance(source.value, ElidedAttr):
            return None
        if not isinstance(t, TensorType) or math.prod(t.get_shape()) > FOLD_LIMIT:
            return None
        from ge_dialect.weights import const_logical

        logical = self.compute(const_logical(source))
        return (dense_from_numpy(to_physical(t, logical), t.element_type),)


class GeConstantMaterialization(ConstantMaterializationInterface):
    """Folded values become `ge.const` ops (the value is the physical dense array)."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation | None:
        if not isinstance(value, DenseIntOrFPElementsAttr) or not isinstance(type, TensorType):
            return None
        return ConstOp(value, type)


@irdl_op_definition
class TransDataOp(_FoldsConstants, IRDLOperation):
    """Changes a value's storage format; the logical shape and element type stay.

        %y = ge.trans_data %x : tensor<1x17x8x8xf16> -> tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>
    """

    name = "ge.trans_data"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, result_type: Attribute):
        super().__init__(operands=[input], result_types=[result_type])

    def compute(self, logical: np.ndarray) -> np.ndarray:
        return logical

    def verify_(self) -> None:
        x = _type_of(self.input, "operand 'input'")
        y = _type_of(self.output, "result")
        if tuple(x.get_shape()) != tuple(y.get_shape()):
            raise VerifyException(
                f"result has shape {_shape_str(y.get_shape())}, expected "
                f"{_shape_str(x.get_shape())} (the input's logical shape)"
            )
        if x.element_type != y.element_type:
            raise VerifyException(
                f"result has element type {y.element_type}, expected {x.element_type}"
            )
        if x.encoding == y.encoding:
            raise VerifyException(
                f"result has the input's format {tensor_format(x)}: trans_data must change it"
            )
        if Format.FRACTAL_Z in (tensor_format(x), tensor_format(y)) and Format.NC1HWC0 in (
            tensor_format(x),
            tensor_format(y),
        ):
            raise VerifyException("trans_data between NC1HWC0 and FRACTAL_Z is not supported")


# --------------------------------------------------------------------------------------
# Matmul, pooling, shape ops, softmax, cast, collectives
# --------------------------------------------------------------------------------------


def _require_default_layout(t: TensorType, what: str, op: str) -> None:
    if isinstance(t.encoding, FormatAttr):
        if what == "result":
            advice = f"{op} produces default-layout (ND/NCHW) tensors; convert its result with ge.trans_data"
        else:
            advice = f"{op} takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first"
        raise VerifyException(f"{what} has layout {layout_str(t)}: {advice}")


def _require_float(t: TensorType, what: str, quantised: str | None = None) -> None:
    if quantised is not None and is_int8(t.element_type):
        raise VerifyException(
            f"{what} is {t.element_type}: a quantised {quantised} is out of scope (only f16 and "
            "f32 are supported)"
        )
    if not is_float(t.element_type):
        raise VerifyException(f"{what} must be f16 or f32, got {t.element_type}")


def _expect_shape(t: TensorType, expected: Sequence[int], what: str = "result") -> None:
    if tuple(t.get_shape()) != tuple(expected):
        raise VerifyException(
            f"{what} has shape {_shape_str(t.get_shape())}, expected {_shape_str(expected)}"
        )


def _expect_element_type(
    t: TensorType, expected: Attribute, what: str = "result", of: str = "the input's"
) -> None:
    if t.element_type != expected:
        raise VerifyException(f"{what} has element type {t.element_type}, expected {expected} ({of})")


def _expect_layout(
    t: TensorType, expected: TensorType, what: str = "result", of: str = "the input's"
) -> None:
    if t.encoding != expected.encoding:
        raise VerifyException(
            f"{what} has layout {layout_str(t)}, expected {layout_str(expected)} ({of})"
        )


@irdl_op_definition
class MatMulOp(IRDLOperation):
    """Matrix product over the last two dims; leading (batch) dims broadcast as numpy's.

    `transpose_a`/`transpose_b` transpose the last two dims of an operand first; the
    optional `bias` (one value per output column) is added to every row.

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
        a = _type_of(self.a, "operand 'a'")
        b = _type_of(self.b, "operand 'b'")
        y = _type_of(self.output, "result")
        for t, what in ((a, "operand 'a'"), (b, "operand 'b'")):
            _require_float(t, what, "matmul")
            _require_default_layout(t, what, "matmul")
            if t.get_num_dims() < 2:
                raise VerifyException(f"{what} must have rank >= 2, got {t}")
        _expect_element_type(b, a.element_type, "operand 'b'", "that of operand 'a'")
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
                f"batch dims {_shape_str(sa[:-2])} and {_shape_str(sb[:-2])} do not broadcast"
            )
        _require_default_layout(y, "result", "matmul")
        _expect_shape(y, (*batch, sa[-2], sb[-1]))
        _expect_element_type(y, a.element_type, of="that of operand 'a'")
        if self.bias is not None:
            c = _type_of(self.bias, "operand 'bias'")
            if tuple(c.get_shape()) != (sb[-1],) or c.element_type != a.element_type:
                raise VerifyException(
                    f"operand 'bias' has type {c}, expected "
                    f"{TensorType(a.element_type, [sb[-1]])}"
                )


@irdl_op_definition
class SiluOp(_Unary, IRDLOperation):
    """`x * sigmoid(x)` elementwise.

        %y = ge.silu %x : tensor<1x4x8x8xf16>
    """

    name = "ge.silu"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])


def pool_output_size(size: int, kernel: int, stride: int, pad_begin: int, pad_end: int, ceil_mode: bool) -> int:
    """Output length of a pooling window sweep (ONNX/PyTorch rule).

    With `ceil_mode` the last window may overhang the padded input, but it must start inside
    the input or its leading padding.
    """
    span = size + pad_begin + pad_end - kernel
    if ceil_mode:
        out = -(-span // stride) + 1
        if (out - 1) * stride >= size + pad_begin:
            out -= 1
        return out
    return span // stride + 1


class _Pool:
    """Checks shared by ge.max_pool and ge.avg_pool."""

    def verify_(self) -> None:
        op = cast(MaxPoolOp, self)
        x = _type_of(op.input, "operand 'input'")
        y = _type_of(op.output, "result")
        _require_float_or_int8(x, "operand 'input'")
        if x.get_num_dims() != 4:
            raise VerifyException(f"operand 'input' must have rank 4 (NCHW), got {x}")
        _require_activation_format(x, "operand 'input'")
        kernel, strides, pads = (
            op.kernel.get_values(),
            op.strides.get_values(),
            op.pads.get_values(),
        )
        if len(kernel) != 2 or min(kernel) < 1:
            raise VerifyException(f"kernel must be 2 positive integers, got {list(kernel)}")
        if len(strides) != 2 or min(strides) < 1:
            raise VerifyException(f"strides must be 2 positive integers, got {list(strides)}")
        if len(pads) != 4 or min(pads) < 0:
            raise VerifyException(
                f"pads must be 4 non-negative integers [top, bottom, left, right], got {list(pads)}"
            )
        for k, before, after in ((kernel[0], pads[0], pads[1]), (kernel[1], pads[2], pads[3])):
            if before >= k or after >= k:
                raise VerifyException(
                    f"pads {list(pads)} must be smaller than the kernel {list(kernel)} "
                    f"(a window would lie in the padding only)"
                )
        n, c, h, w = x.get_shape()
        ceil = op.ceil_mode is not None
        ho = pool_output_size(h, kernel[0], strides[0], pads[0], pads[1], ceil)
        wo = pool_output_size(w, kernel[1], strides[1], pads[2], pads[3], ceil)
        if ho < 1 or wo < 1:
            raise VerifyException(
                f"the kernel {kernel[0]}x{kernel[1]} does not fit the padded input "
                f"{h + pads[0] + pads[1]}x{w + pads[2] + pads[3]}"
            )
        _expect_shape(y, (n, c, ho, wo))
        _expect_element_type(y, x.element_type)
        _expect_layout(y, x)


_POOL_FORMAT = (
    "$input `kernel` $kernel (`strides` $strides^)? (`pads` $pads^)? (`ceil_mode` $ceil_mode^)? "
)


@irdl_op_definition
class MaxPoolOp(_Pool, IRDLOperation):
    """2-D max pooling; padding never wins (it is -inf).

        %y = ge.max_pool %x kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] ceil_mode
               : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
    """

    name = "ge.max_pool"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    kernel = prop_def(DenseArrayBase.constr(i64))
    strides = prop_def(DenseArrayBase.constr(i64), default_value=_STRIDES_DEFAULT)
    pads = prop_def(DenseArrayBase.constr(i64), default_value=_PADS_DEFAULT)
    ceil_mode = opt_prop_def(UnitAttr)
    traits = traits_def(Pure())
    assembly_format = _POOL_FORMAT + "attr-dict `:` type($input) `->` type($output)"

    def __init__(
        self,
        input: SSAValue,
        result_type: Attribute,
        kernel: Sequence[int],
        strides: Sequence[int] | None = None,
        pads: Sequence[int] | None = None,
        ceil_mode: bool = False,
    ):
        super().__init__(
            operands=[input],
            result_types=[result_type],
            properties={
                "kernel": _ints(kernel, kernel),
                "strides": _ints(strides, (1, 1)),
                "pads": _ints(pads, (0, 0, 0, 0)),
                "ceil_mode": UnitAttr() if ceil_mode else None,
            },
        )


@irdl_op_definition
class AvgPoolOp(_Pool, IRDLOperation):
    """2-D average pooling.

    Each window is divided by the number of its elements inside the input, or, with
    `count_include_pad`, inside the padded input (a ceil_mode overhang never counts).

        %y = ge.avg_pool %x kernel [2, 2] strides [2, 2] pads [0, 1, 0, 1] count_include_pad
               : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
    """

    name = "ge.avg_pool"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    kernel = prop_def(DenseArrayBase.constr(i64))
    strides = prop_def(DenseArrayBase.constr(i64), default_value=_STRIDES_DEFAULT)
    pads = prop_def(DenseArrayBase.constr(i64), default_value=_PADS_DEFAULT)
    ceil_mode = opt_prop_def(UnitAttr)
    count_include_pad = opt_prop_def(UnitAttr)
    traits = traits_def(Pure())
    assembly_format = (
        _POOL_FORMAT
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
            operands=[input],
            result_types=[result_type],
            properties={
                "kernel": _ints(kernel, kernel),
                "strides": _ints(strides, (1, 1)),
                "pads": _ints(pads, (0, 0, 0, 0)),
                "ceil_mode": UnitAttr() if ceil_mode else None,
                "count_include_pad": UnitAttr() if count_include_pad else None,
            },
        )


@irdl_op_definition
class GlobalAvgPoolOp(IRDLOperation):
    """The mean over H and W of each channel: [N, C, H, W] -> [N, C, 1, 1].

        %y = ge.global_avg_pool %x : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>
    """

    name = "ge.global_avg_pool"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, result_type: Attribute):
        super().__init__(operands=[input], result_types=[result_type])

    def verify_(self) -> None:
        x = _type_of(self.input, "operand 'input'")
        y = _type_of(self.output, "result")
        _require_float_or_int8(x, "operand 'input'")
        if x.get_num_dims() != 4:
            raise VerifyException(f"operand 'input' must have rank 4 (NCHW), got {x}")
        _require_activation_format(x, "operand 'input'")
        n, c, _, _ = x.get_shape()
        _expect_shape(y, (n, c, 1, 1))
        _expect_element_type(y, x.element_type)
        _expect_layout(y, x)


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
            operands=[inputs], result_types=[result_type], properties={"axis": IntegerAttr(axis, i64)}
        )

    def verify_(self) -> None:
        if not self.inputs:
            raise VerifyException("needs at least one input")
        types = [_type_of(v, f"operand #{i}") for i, v in enumerate(self.inputs)]
        y = _type_of(self.output, "result")
        first = types[0]
        rank = first.get_num_dims()
        axis = self.axis.value.data
        if not 0 <= axis < rank:
            raise VerifyException(f"axis {axis} is out of range for rank {rank}")
        _require_float_or_int8(first, "operand #0")
        total = 0
        for i, t in enumerate(types):
            what = f"operand #{i}"
            if t.get_num_dims() != rank:
                raise VerifyException(f"{what} has rank {t.get_num_dims()}, expected {rank}")
            _expect_element_type(t, first.element_type, what, "that of operand #0")
            if t.encoding != first.encoding:
                raise VerifyException(
                    f"{what} has layout {layout_str(t)}, expected {layout_str(first)} "
                    "(that of operand #0)"
                )
            for d in range(rank):
                if d != axis and t.get_shape()[d] != first.get_shape()[d]:
                    raise VerifyException(
                        f"{what} has shape {_shape_str(t.get_shape())}, expected "
                        f"{_shape_str(first.get_shape())} except on axis {axis}"
                    )
            total += t.get_shape()[axis]
        expected = list(first.get_shape())
        expected[axis] = total
        _expect_shape(y, expected)
        _expect_element_type(y, first.element_type, of="that of operand #0")
        _expect_layout(y, first, of="that of operand #0")


@irdl_op_definition
class ReshapeOp(_FoldsConstants, IRDLOperation):
    """The same elements in row-major order under another static shape.

        %y = ge.reshape %x : tensor<1x64x1x1xf32> -> tensor<1x64xf32>
    """

    name = "ge.reshape"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, result_type: Attribute):
        super().__init__(operands=[input], result_types=[result_type])

    def compute(self, logical: np.ndarray) -> np.ndarray:
        return logical.reshape(tuple(self.output.type.get_shape()))

    def verify_(self) -> None:
        x = _type_of(self.input, "operand 'input'")
        y = _type_of(self.output, "result")
        _require_default_layout(x, "operand 'input'", "reshape")
        _require_default_layout(y, "result", "reshape")
        _expect_element_type(y, x.element_type)
        if math.prod(x.get_shape()) != math.prod(y.get_shape()):
            raise VerifyException(
                f"result has {math.prod(y.get_shape())} elements, expected "
                f"{math.prod(x.get_shape())} (the input's)"
            )


@irdl_op_definition
class FlattenOp(_FoldsConstants, IRDLOperation):
    """Collapses dims [0, axis) and [axis, rank) into a 2-D tensor (ONNX Flatten).

        %y = ge.flatten %x axis 1 : tensor<2x8x3x3xf32> -> tensor<2x72xf32>
    """

    name = "ge.flatten"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    axis = prop_def(IntegerAttr[I64], default_value=_ONE)
    traits = traits_def(Pure())
    assembly_format = "$input (`axis` $axis^)? attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, result_type: Attribute, axis: int = 1):
        super().__init__(
            operands=[input], result_types=[result_type], properties={"axis": IntegerAttr(axis, i64)}
        )

    def compute(self, logical: np.ndarray) -> np.ndarray:
        return logical.reshape(tuple(self.output.type.get_shape()))

    def verify_(self) -> None:
        x = _type_of(self.input, "operand 'input'")
        y = _type_of(self.output, "result")
        _require_default_layout(x, "operand 'input'", "flatten")
        axis = self.axis.value.data
        shape = x.get_shape()
        if not 0 <= axis <= len(shape):
            raise VerifyException(f"axis {axis} is out of range for rank {len(shape)}")
        _expect_shape(y, (math.prod(shape[:axis]), math.prod(shape[axis:])))
        _expect_element_type(y, x.element_type)


@irdl_op_definition
class TransposeOp(_FoldsConstants, IRDLOperation):
    """Permutes dims: result dim i is input dim perm[i].

        %y = ge.transpose %x perm [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
    """

    name = "ge.transpose"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    perm = prop_def(DenseArrayBase.constr(i64))
    traits = traits_def(Pure())
    assembly_format = "$input `perm` $perm attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, perm: Sequence[int], result_type: Attribute):
        super().__init__(
            operands=[input], result_types=[result_type], properties={"perm": _ints(perm, perm)}
        )

    def compute(self, logical: np.ndarray) -> np.ndarray:
        return np.transpose(logical, self.perm.get_values())

    def verify_(self) -> None:
        x = _type_of(self.input, "operand 'input'")
        y = _type_of(self.output, "result")
        _require_default_layout(x, "operand 'input'", "transpose")
        _require_default_layout(y, "result", "transpose")
        perm = list(self.perm.get_values())
        if sorted(perm) != list(range(x.get_num_dims())):
            raise VerifyException(
                f"perm {perm} is not a permutation of the {x.get_num_dims()} dims"
            )
        _expect_shape(y, [x.get_shape()[p] for p in perm])
        _expect_element_type(y, x.element_type)


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
        x = _type_of(self.input, "operand 'input'")
        _require_float(x, "operand 'input'")
        _require_default_layout(x, "operand 'input'", "softmax")
        axis = self.axis.value.data
        if not 0 <= axis < x.get_num_dims():
            raise VerifyException(f"axis {axis} is out of range for rank {x.get_num_dims()}")


@irdl_op_definition
class IdentityOp(IRDLOperation):
    """Its input, unchanged (any type and layout).

        %y = ge.identity %x : tensor<1x4x8x8xf32>
    """

    name = "ge.identity"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])

    def verify_(self) -> None:
        _type_of(self.input, "operand 'input'")


@irdl_op_definition
class CastOp(IRDLOperation):
    """Converts between f32 and f16 (round to nearest even); shape and layout stay.

        %y = ge.cast %x : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf16>
    """

    name = "ge.cast"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($output)"

    def __init__(self, input: SSAValue, result_type: Attribute):
        super().__init__(operands=[input], result_types=[result_type])

    def verify_(self) -> None:
        x = _type_of(self.input, "operand 'input'")
        y = _type_of(self.output, "result")
        _require_float(x, "operand 'input'")
        _require_float(y, "result")
        if x.element_type == y.element_type:
            raise VerifyException(f"result has the input's element type {x.element_type}: cast must change it")
        _expect_shape(y, x.get_shape())
        _expect_layout(y, x)


class Reduction(StrEnum):
    SUM = "sum"
    PROD = "prod"
    MAX = "max"
    MIN = "min"


@irdl_attr_definition
class ReductionAttr(EnumAttribute[Reduction], SpacedOpaqueSyntaxAttribute):
    """The reduction of a collective: sum, prod, max or min."""

    name = "ge.reduction"


class _Collective:
    """Checks shared by the HCCL collectives: a group name and a rank count."""

    def verify_collective(self) -> tuple[TensorType, TensorType]:
        op = cast(HcomAllReduceOp, self)
        x = _type_of(op.input, "operand 'input'")
        y = _type_of(op.output, "result")
        if not op.group.data:
            raise VerifyException("group must not be empty")
        if op.rank_size.value.data < 1:
            raise VerifyException(f"rank_size must be positive, got {op.rank_size.value.data}")
        if not (is_float(x.element_type) or _type_key(x.element_type) in ("i8", "i32")):
            raise VerifyException(
                f"operand 'input' must be f16, f32, i8 or i32, got {x.element_type}"
            )
        _expect_element_type(y, x.element_type)
        _expect_layout(y, x)
        return x, y


_COLLECTIVE_TRAITS = (MemoryReadEffect(), MemoryWriteEffect())


@irdl_op_definition
class HcomAllReduceOp(_Collective, IRDLOperation):
    """Reduces a tensor elementwise over the `rank_size` ranks of `group` (HCCL AllReduce).

    It communicates, so it has memory effects: CSE and DCE leave it alone.  On one
    simulated device it computes as rank 0 of `rank_size` identical ranks: sum gives
    rank_size * x, prod x ** rank_size, max and min give x.  Integer results saturate at
    the type's limits (as the saturating integer `ge.add`).

        %y = ge.hcom_all_reduce %x reduction sum group "world" rank_size 8 : tensor<1024xf32>
    """

    name = "ge.hcom_all_reduce"
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    output = result_def(T)
    reduction = prop_def(ReductionAttr)
    group = prop_def(StringAttr)
    rank_size = prop_def(IntegerAttr[I64])
    traits = traits_def(*_COLLECTIVE_TRAITS)
    assembly_format = (
        "$input `reduction` $reduction `group` $group `rank_size` $rank_size attr-dict "
        "`:` type($input)"
    )

    def __init__(self, input: SSAValue, reduction: Reduction | str, group: str, rank_size: int):
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={
                "reduction": ReductionAttr(Reduction(reduction)),
                "group": StringAttr(group),
                "rank_size": IntegerAttr(rank_size, i64),
            },
        )

    def verify_(self) -> None:
        self.verify_collective()


@irdl_op_definition
class HcomAllGatherOp(_Collective, IRDLOperation):
    """Concatenates the tensors of the `rank_size` ranks of `group` along dim 0 (HCCL AllGather).

    It has memory effects (never CSE'd or DCE'd).  On one simulated device every rank holds
    the same tensor, so the result is `rank_size` copies of it.

        %y = ge.hcom_all_gather %x group "world" rank_size 4 : tensor<2x8xf16> -> tensor<8x8xf16>
    """

    name = "ge.hcom_all_gather"
    input = operand_def(TensorType)
    output = result_def(TensorType)
    group = prop_def(StringAttr)
    rank_size = prop_def(IntegerAttr[I64])
    traits = traits_def(*_COLLECTIVE_TRAITS)
    assembly_format = (
        "$input `group` $group `rank_size` $rank_size attr-dict `:` type($input) `->` type($output)"
    )

    def __init__(self, input: SSAValue, group: str, rank_size: int, result_type: Attribute):
        super().__init__(
            operands=[input],
            result_types=[result_type],
            properties={"group": StringAttr(group), "rank_size": IntegerAttr(rank_size, i64)},
        )

    def verify_(self) -> None:
        x, y = self.verify_collective()
        if x.get_num_dims() < 1:
            raise VerifyException("operand 'input' must have rank >= 1")
        expected = list(x.get_shape())
        expected[0] *= self.rank_size.value.data
        _expect_shape(y, expected)


GE = Dialect(
    "ge",
    [
        ConstOp,
        Conv2DOp,
        FusedConv2DOp,
        BatchNormOp,
        ReluOp,
        Relu6Op,
        LeakyReluOp,
        SigmoidOp,
        ClipOp,
        AddOp,
        SubOp,
        MulOp,
        TransDataOp,
        MatMulOp,
        SiluOp,
        MaxPoolOp,
        AvgPoolOp,
        GlobalAvgPoolOp,
        ConcatOp,
        ReshapeOp,
        FlattenOp,
        TransposeOp,
        SoftmaxOp,
        IdentityOp,
        CastOp,
        HcomAllReduceOp,
        HcomAllGatherOp,
    ],
    [FormatAttr, ExternalDataAttr, ElidedAttr, ActivationAttr, ReductionAttr],
    [GeConstantMaterialization()],
)
