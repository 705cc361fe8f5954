"""The element types ge-opt computes with: one table of names, MLIR types and numpy dtypes.

np_dtype(f16)            -> dtype('float16')   (little-endian, as xDSL stores dense data)
element_type("ui8")      -> IntegerType(8, unsigned)
element_type(np.int32)   -> i32
type_name(f32)           -> "f32"
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

_SIGNEDNESS_PREFIX = {Signedness.SIGNLESS: "i", Signedness.SIGNED: "si", Signedness.UNSIGNED: "ui"}

# name -> (MLIR element type, numpy dtype).  The first name of a numpy dtype is the one
# `element_type` picks for it (i8, not si8).
_TABLE: dict[str, tuple[Attribute, np.dtype]] = {
    "f16": (Float16Type(), np.dtype("<f2")),
    "f32": (Float32Type(), np.dtype("<f4")),
    "f64": (Float64Type(), np.dtype("<f8")),
    "i8": (IntegerType(8), np.dtype("i1")),
    "si8": (IntegerType(8, Signedness.SIGNED), np.dtype("i1")),
    "ui8": (IntegerType(8, Signedness.UNSIGNED), np.dtype("u1")),
    "i16": (IntegerType(16), np.dtype("<i2")),
    "i32": (IntegerType(32), np.dtype("<i4")),
    "i64": (IntegerType(64), np.dtype("<i8")),
    "i1": (IntegerType(1), np.dtype("?")),
}
GRAPH_TYPES = ("f32", "f16", "i8", "ui8", "i32", "i64", "i1")
"""The element types of graph inputs and constants (what the builder and importers accept)."""

_BY_NUMPY: dict[np.dtype, str] = {}
for _name, (_, _dtype) in _TABLE.items():
    _BY_NUMPY.setdefault(_dtype, _name)


def type_name(t: Attribute) -> str:
    """An element type as written in MLIR (`f16`, `i8`, `ui8`, ...)."""
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, IntegerType):
        return f"{_SIGNEDNESS_PREFIX[t.signedness.data]}{t.width.data}"
    return str(t)


def is_supported(t: Attribute) -> bool:
    """Whether `t` is in the table (has a numpy equivalent)."""
    return type_name(t) in _TABLE


_FLOATS: dict[type, np.dtype] = {type(t): d for t, d in _TABLE.values() if t.name.startswith("f")}
"""The float element types' dtypes by class (a float type has no parameters)."""


def np_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype of an MLIR element type (little-endian, as xDSL stores dense data)."""
    found = _FLOATS.get(type(t))
    if found is not None:
        return found
    name = type_name(t)
    if name not in _TABLE:
        raise ValueError(f"element type {t} has no numpy equivalent")
    return _TABLE[name][1]


def element_type(
    spec: str | np.dtype | type | Attribute, names: Collection[str] = tuple(_TABLE)
) -> Attribute:
    """`"f32"`, a numpy dtype or scalar type, or an MLIR element type -> the MLIR element type.

    Raises ValueError for a name or dtype outside `names` (by default, the whole table).
    """
    if isinstance(spec, Attribute):
        return spec
    name = spec if isinstance(spec, str) and spec in _TABLE else None
    if name is None:
        try:
            name = _BY_NUMPY.get(np.dtype(spec))
        except TypeError:
            name = None
    if name is None or name not in names:
        raise ValueError(f"unsupported element type {spec!r}")
    return _TABLE[name][0]


def is_float(t: Attribute) -> bool:
    """f16 or f32 (the float types the ops compute in)."""
    return isinstance(t, Float16Type | Float32Type)


def is_int8(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 8


def itemsize(t: Attribute) -> int:
    return np_dtype(t).itemsize
