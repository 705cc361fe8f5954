"""Attributes of the `npu` dialect: storage formats, weight data, and the cost of a task.

`#npu.format`, `#npu.external` and `#npu.elided` mean exactly what `#ge.format`,
`#ge.external` and `#ge.elided` mean: both dialects subclass the one implementation in
`ge_dialect.ir.encodings` (so `npu` never imports `ge`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import IntAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ge_dialect.ir.encodings import Elided, ExternalData, FormatEncoding
from ge_dialect.utils.parsing import parse_i64, parse_parameter_list


@irdl_attr_definition(init=False)  # the base's __init__
class FormatAttr(FormatEncoding):
    """A storage format, as the encoding of a launch's logical operand type:
    `#npu.format<FMT[, c0 = K][, groups = G]>` (NHWC, NC1HWC0, FRACTAL_Z or FRACTAL_NZ).

    `c0` is written only when it differs from the dtype's default (16; 32 for 1-byte
    types), `groups` only on FRACTAL_Z and only when > 1; the default layouts (NCHW for
    rank 4, ND otherwise) are written as no encoding.
    """

    name = "npu.format"


@irdl_attr_definition(init=False)  # the base's __init__
class ExternalDataAttr(ExternalData):
    """Weight data stored outside the IR: `#npu.external<"file", offset = O, length = L>`.

    The path is relative to the IR file's directory (or absolute); the bytes are the
    buffer's contents, little-endian, row-major, memory-mapped when read.
    """

    name = "npu.external"


@irdl_attr_definition(init=False)  # the base's __init__
class ElidedAttr(Elided):
    """Weight data elided when printing (`#npu.elided`): for reading only."""

    name = "npu.elided"


class Unit(StrEnum):
    """The unit a task runs on."""

    CUBE = "cube"
    VECTOR = "vector"
    COMM = "comm"
    NONE = "none"


_COUNTS = ("flops", "bytes_in", "bytes_out", "blocks")


@irdl_attr_definition
class CostAttr(ParametrizedAttribute):
    """The work of a task, from the cost module:
    `#npu.cost<unit, flops = F, bytes_in = I, bytes_out = O, blocks = B>`.

    `unit` is cube, vector, comm or none; the counts are integers >= 0, all written, in
    any order when parsing and in this order when printing.
    """

    name = "npu.cost"

    unit: StringAttr
    flops: IntAttr
    bytes_in: IntAttr
    bytes_out: IntAttr
    blocks: IntAttr

    def __init__(self, unit: str | Unit, flops: int, bytes_in: int, bytes_out: int, blocks: int):
        super().__init__(
            StringAttr(str(unit)),
            IntAttr(flops),
            IntAttr(bytes_in),
            IntAttr(bytes_out),
            IntAttr(blocks),
        )

    @property
    def unit_kind(self) -> Unit:
        return Unit(self.unit.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        start = parser.pos
        with parser.in_angle_brackets():
            pos = parser.pos
            unit = parser.parse_identifier(context_msg=" (cube, vector, comm or none)")
            if unit not in Unit._value2member_map_:
                parser.raise_error(
                    f"unknown unit '{unit}', expected cube, vector, comm or none",
                    pos,
                    parser.pos,
                )

            def count(key: str) -> Callable[[], int]:
                def parse() -> int:
                    pos = parser.pos
                    value = parse_i64(parser)
                    if value < 0:
                        parser.raise_error(
                            f"{key} must be non-negative, got {value}", pos, parser.pos
                        )
                    return value

                return parse

            values = parse_parameter_list(parser, "cost", {k: count(k) for k in _COUNTS})
        missing = [k for k in _COUNTS if k not in values]
        if missing:
            parser.raise_error(
                f"cost parameter '{missing[0]}' is missing (a cost names unit, flops, "
                "bytes_in, bytes_out and blocks)",
                start,
                parser.pos,
            )
        counts: list[Attribute] = []
        for key in _COUNTS:
            value = values[key]
            assert isinstance(value, int)
            counts.append(IntAttr(value))
        return (StringAttr(unit), *counts)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<{self.unit.data}, flops = {self.flops.data}, bytes_in = {self.bytes_in.data}, "
            f"bytes_out = {self.bytes_out.data}, blocks = {self.blocks.data}>"
        )

    def verify(self) -> None:
        if self.unit.data not in Unit._value2member_map_:
            raise VerifyException(
                f"unknown unit '{self.unit.data}', expected cube, vector, comm or none"
            )
        for key in _COUNTS:
            value = getattr(self, key).data
            if value < 0:
                raise VerifyException(f"{key} must be non-negative, got {value}")


__all__ = ["CostAttr", "ElidedAttr", "ExternalDataAttr", "FormatAttr", "Unit"]
