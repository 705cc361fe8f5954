"""Attributes of the `ge` dialect: the storage format encoding, constant data, enums."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ge_dialect.utils.parsing import parse_i64, parse_parameter_list, parse_string


class Format(StrEnum):
    NCHW = "NCHW"
    ND = "ND"
    NHWC = "NHWC"
    NC1HWC0 = "NC1HWC0"
    FRACTAL_Z = "FRACTAL_Z"


WRITABLE_FORMATS = (Format.NHWC, Format.NC1HWC0, Format.FRACTAL_Z)
"""The formats an encoding may name (the defaults NCHW and ND are written as no encoding)."""

C0_FORMATS = (Format.NC1HWC0, Format.FRACTAL_Z)
"""The formats that split channels into blocks of C0."""

C0_VALUES = (4, 8, 16, 32, 64)


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
                    + ", ".join(f.value for f in WRITABLE_FORMATS),
                    pos,
                    parser.pos,
                )

            def c0() -> int:
                pos = parser.pos
                value = parse_i64(parser)
                if value not in C0_VALUES:
                    parser.raise_error(
                        f"c0 must be one of 4, 8, 16, 32, 64, got {value}", pos, parser.pos
                    )
                return value

            def groups() -> int:
                pos = parser.pos
                value = parse_i64(parser)
                if value == 1:
                    parser.raise_error(
                        "groups = 1 is the default and must be omitted", pos, parser.pos
                    )
                return value

            values: dict[str, object] = {"c0": 0, "groups": 1}
            values.update(parse_parameter_list(parser, "format", {"c0": c0, "groups": groups}))
        c0_value, groups_value = values["c0"], values["groups"]
        assert isinstance(c0_value, int) and isinstance(groups_value, int)
        if (message := format_error(word, c0_value, groups_value)) is not None:
            parser.raise_error(message, start, parser.pos)
        return (StringAttr(word), IntAttr(c0_value), IntAttr(groups_value))

    def print_parameters(self, printer: Printer) -> None:
        text = self.format.data
        if self.c0.data:
            text += f", c0 = {self.c0.data}"
        if self.groups.data != 1:
            text += f", groups = {self.groups.data}"
        printer.print_string(f"<{text}>")

    def verify(self) -> None:
        if (message := format_error(self.format.data, self.c0.data, self.groups.data)) is not None:
            raise VerifyException(message)


def format_error(fmt: str, c0: int, groups: int) -> str | None:
    """Why `#ge.format<fmt, c0, groups>` is invalid on its own, or None."""
    if fmt in (Format.NCHW, Format.ND):
        return (
            f"explicit default format {fmt} is not allowed: write the tensor type without an "
            "encoding"
        )
    if fmt not in Format.__members__:
        return f"unknown format '{fmt}'"
    if c0 and fmt not in C0_FORMATS:
        return f"c0 is only meaningful for NC1HWC0 and FRACTAL_Z, not {fmt}"
    if c0 and c0 not in C0_VALUES:
        return f"c0 must be one of 4, 8, 16, 32, 64, got {c0}"
    if groups < 1:
        return f"groups must be positive, got {groups}"
    if groups != 1 and fmt != Format.FRACTAL_Z:
        return f"groups is only meaningful for FRACTAL_Z, not {fmt}"
    return None


@irdl_attr_definition
class ExternalDataAttr(ParametrizedAttribute):
    """Constant data stored outside the IR: `#ge.external<"file", offset = O, length = L>`.

    The path is relative to the IR file's directory (or absolute); the bytes are the
    constant's physical array, little-endian, row-major.  Loaded lazily and memory-mapped
    (`ge_dialect.ge.data`).
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
            offset = parse_i64(parser, allow_negative=False)
            parser.parse_punctuation(",")
            parser.parse_keyword("length")
            parser.parse_punctuation("=")
            length = parse_i64(parser, allow_negative=False)
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


class Reduction(StrEnum):
    SUM = "sum"
    PROD = "prod"
    MAX = "max"
    MIN = "min"


@irdl_attr_definition
class ReductionAttr(EnumAttribute[Reduction], SpacedOpaqueSyntaxAttribute):
    """The reduction of a collective: sum, prod, max or min."""

    name = "ge.reduction"
