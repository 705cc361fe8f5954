"""Attributes of the `ge` dialect: the storage format encoding, constant data, enums.

`#ge.format`, `#ge.external` and `#ge.elided` are thin subclasses of the implementation
they share with the `npu` dialect (`ge_dialect.ir.encodings`), which also defines `Format`
and the format rules re-exported here.
"""

from __future__ import annotations

from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum

from ge_dialect.ir.encodings import (
    C0_FORMATS,
    C0_VALUES,
    WRITABLE_FORMATS,
    Elided,
    ExternalData,
    Format,
    FormatEncoding,
    format_error,
)


@irdl_attr_definition(init=False)  # the base's __init__
class FormatAttr(FormatEncoding):
    """A storage format, written as a tensor encoding: `#ge.format<FMT[, c0 = K][, groups = G]>`.

    `c0` (0 here when omitted) is written only when it differs from the dtype's default
    (16; 32 for 1-byte types); `groups` only on FRACTAL_Z and only when > 1.  Logical dims
    stay in NCHW (OIHW) order whatever the format.  NHWC, NC1HWC0 and FRACTAL_Z are for
    rank-4 tensors; FRACTAL_NZ (cube matmul operands, `#ge.format<FRACTAL_NZ>`) for any rank
    >= 2, stored as 16 x C0 fractals of the last two dims.  Parsing, printing and
    verification are `ge_dialect.ir.encodings.FormatEncoding`'s (shared with `#npu.format`).
    """

    name = "ge.format"


@irdl_attr_definition(init=False)  # the base's __init__
class ExternalDataAttr(ExternalData):
    """Constant data stored outside the IR: `#ge.external<"file", offset = O, length = L>`.

    The path is relative to the IR file's directory (or absolute); the bytes are the
    constant's physical array, little-endian, row-major.  Loaded lazily and memory-mapped
    (`ge_dialect.ir.dialects.ge.data`).
    """

    name = "ge.external"


@irdl_attr_definition(init=False)  # the base's __init__
class ElidedAttr(Elided):
    """Marks a constant whose data was elided when printing (`#ge.elided`).

    Elided IR is for reading: it parses and verifies, but nothing can compute with it.
    """

    name = "ge.elided"


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


__all__ = [
    "C0_FORMATS",
    "C0_VALUES",
    "WRITABLE_FORMATS",
    "Activation",
    "ActivationAttr",
    "ElidedAttr",
    "ExternalDataAttr",
    "Format",
    "FormatAttr",
    "Reduction",
    "ReductionAttr",
    "format_error",
]
