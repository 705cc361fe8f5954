"""The element types ge-opt computes with: one table of names, MLIR types, numpy dtypes, ONNX
and PyTorch codes, and the tolerance a computed value is judged with.

np_dtype(f16)            -> dtype('float16')   (little-endian, as xDSL stores dense data)
element_type("ui8")      -> IntegerType(8, unsigned)
element_type(np.int32)   -> i32
type_name(f32)           -> "f32"
name_of(np.float16)      -> "f16"
tolerance(np.float16)    -> (0.01, 0.01)        ((rtol, k); None: compared exactly)

Every other module that needs one of these mappings derives it from `TABLE` (the ONNX
importer's element types, the PyTorch frontend's dtypes, the simulator's kernel model, the
tolerance rule of `utils.tolerance`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

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

FP32_TOLERANCE = (1e-4, 1e-5)
FP16_TOLERANCE = (1e-2, 1e-2)
WHOLE_MODEL_FP32_TOLERANCE = (1e-3, 1e-4)
"""(rtol, k) of `|a - b| <= k * max|ref| + rtol * |ref|`: an fp32 op or pass; a whole fp32
model against another implementation (onnxruntime, eager PyTorch); fp16 either way."""


@dataclass(frozen=True)
class ElementType:
    """One row of the table: an element type by its MLIR name."""

    name: str
    """As MLIR writes it: `f16`, `i8`, `ui8`, ..."""
    mlir: Attribute
    numpy: np.dtype
    """Little-endian, as xDSL stores dense data."""
    onnx: int | None = None
    """`onnx.TensorProto.DataType` code (kept here so that nothing needs onnx to know it)."""
    torch: str | None = None
    """The name of the `torch.dtype` (`torch.float16`) the PyTorch frontend accepts."""
    tolerance: tuple[float, float] | None = None
    """(rtol, k) a computed value of this type is judged with; None: exactly."""
    whole_model_tolerance: tuple[float, float] | None = None
    """(rtol, k) for a whole model against another implementation; None: as `tolerance`."""


# The first row of a numpy dtype is the one `element_type` picks for it (i8, not si8).
TABLE: tuple[ElementType, ...] = (
    ElementType("f16", Float16Type(), np.dtype("<f2"), 10, "float16", FP16_TOLERANCE),
    ElementType(
        "f32",
        Float32Type(),
        np.dtype("<f4"),
        1,
        "float32",
        FP32_TOLERANCE,
        WHOLE_MODEL_FP32_TOLERANCE,
    ),
    ElementType("f64", Float64Type(), np.dtype("<f8"), 11),
    ElementType("i8", IntegerType(8), np.dtype("i1"), 3, "int8"),
    ElementType("si8", IntegerType(8, Signedness.SIGNED), np.dtype("i1")),
    ElementType("ui8", IntegerType(8, Signedness.UNSIGNED), np.dtype("u1"), 2, "uint8"),
    ElementType("i16", IntegerType(16), np.dtype("<i2"), 5),
    ElementType("i32", IntegerType(32), np.dtype("<i4"), 6, "int32"),
    ElementType("i64", IntegerType(64), np.dtype("<i8"), 7, "int64"),
    ElementType("i1", IntegerType(1), np.dtype("?"), 9, "bool"),
)

_BY_NAME: dict[str, ElementType] = {row.name: row for row in TABLE}
_BY_NUMPY: dict[np.dtype, ElementType] = {}
for _row in TABLE:
    _BY_NUMPY.setdefault(_row.numpy, _row)

GRAPH_TYPES = ("f32", "f16", "i8", "ui8", "i32", "i64", "i1")
"""The element types of graph inputs and constants (what the builder and importers accept)."""

COMPUTE_FLOATS = ("f32", "f16")
"""The float types the ops compute in (`is_float`), which the ONNX importer accepts."""


def row(name: str) -> ElementType:
    """The row of the MLIR name `name` (KeyError if not in the table)."""
    return _BY_NAME[name]


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
    return type_name(t) in _BY_NAME


_FLOATS: dict[type, np.dtype] = {
    type(r.mlir): r.numpy
    for r in TABLE
    if isinstance(r.mlir, Float16Type | Float32Type | Float64Type)
}
"""The float element types' dtypes by class (a float type has no parameters)."""


def np_dtype(t: Attribute) -> np.dtype:
    """The numpy dtype of an MLIR element type (little-endian, as xDSL stores dense data)."""
    found = _FLOATS.get(type(t))
    if found is not None:
        return found
    name = type_name(t)
    if name not in _BY_NAME:
        raise ValueError(f"element type {t} has no numpy equivalent")
    return _BY_NAME[name].numpy


def element_type(
    spec: str | np.dtype | type | Attribute, names: Collection[str] = tuple(_BY_NAME)
) -> Attribute:
    """`"f32"`, a numpy dtype or scalar type, or an MLIR element type -> the MLIR element type.

    Raises ValueError for a name or dtype outside `names` (by default, the whole table).
    """
    if isinstance(spec, Attribute):
        return spec
    found = _BY_NAME.get(spec) if isinstance(spec, str) else None
    if found is None:
        found = _of_numpy(spec)
    if found is None or found.name not in names:
        raise ValueError(f"unsupported element type {spec!r}")
    return found.mlir


def _of_numpy(spec: object) -> ElementType | None:
    try:
        return _BY_NUMPY.get(np.dtype(spec))  # type: ignore[call-overload]
    except TypeError:
        return None


def name_of(dtype: np.dtype | type | str) -> str:
    """The MLIR name of a numpy dtype (`float16` -> `f16`); its numpy name if not in the
    table."""
    found = _of_numpy(dtype)
    return found.name if found is not None else str(np.dtype(dtype))


def tolerance(
    dtype: np.dtype | type | str, *, whole_model: bool = False
) -> tuple[float, float] | None:
    """(rtol, k) a computed array of numpy `dtype` is judged with (`utils.tolerance`); None:
    it must be exact (integers, booleans, and types nothing computes in)."""
    found = _of_numpy(dtype)
    if found is None:
        return None
    if whole_model and found.whole_model_tolerance is not None:
        return found.whole_model_tolerance
    return found.tolerance


def is_float(t: Attribute) -> bool:
    """f16 or f32 (the float types the ops compute in)."""
    return isinstance(t, Float16Type | Float32Type)


def is_int8(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 8


def itemsize(t: Attribute) -> int:
    return np_dtype(t).itemsize
