"""Tensor types of `ge` values: layout in the encoding, physical shapes, dense data.

`tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>` is a logical 1x17x8x8 tensor stored as NC1HWC0
(physical shape 1x2x8x8x16, padding lanes zero).  `physical_shape(type)` is the one place
that derives physical shapes; `to_logical`/`to_physical` move data between the two views.
Those functions, and dense data <-> numpy, are `ge_dialect.ir.encodings`' (shared with the
`npu` dialect, whose `#npu.format` they read as well), re-exported here.
"""

from __future__ import annotations

import functools

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from ge_dialect.ir import encodings
from ge_dialect.ir.dialects.ge.attributes import Format, FormatAttr
from ge_dialect.ir.encodings import (
    dense_from_numpy,
    dense_to_numpy,
    has_padding_lanes,
    padding_mask,
    physical_shape,
    tensor_c0,
    tensor_format,
    tensor_groups,
    to_logical,
    to_physical,
)


@functools.lru_cache(maxsize=1024)
def with_format(t: TensorType, fmt: Format | str, c0: int = 0, groups: int = 1) -> TensorType:
    """`t` with another storage format (default formats drop the encoding).

    Types are immutable values: equal arguments give the same object (a cache)."""
    return encodings.encoded(t, FormatAttr, fmt, c0, groups)


def verify_tensor_type(t: Attribute, what: str) -> TensorType:
    """Checks the rules a `ge` op puts on each operand/result type; returns it as TensorType."""
    return encodings.verify_tensor_type(t, what, FormatAttr)


def layout_str(t: TensorType) -> str:
    """A tensor type's layout as written: its encoding, or the default format's name."""
    return str(t.encoding) if isinstance(t.encoding, FormatAttr) else tensor_format(t).value


__all__ = [
    "dense_from_numpy",
    "dense_to_numpy",
    "has_padding_lanes",
    "layout_str",
    "padding_mask",
    "physical_shape",
    "tensor_c0",
    "tensor_format",
    "tensor_groups",
    "to_logical",
    "to_physical",
    "verify_tensor_type",
    "with_format",
]
