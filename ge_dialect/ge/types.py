"""Tensor types of `ge` values: layout in the encoding, physical shapes, dense data.

`tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>` is a logical 1x17x8x8 tensor stored as NC1HWC0
(physical shape 1x2x8x8x16, padding lanes zero).  `physical_shape(type)` is the one place
that derives physical shapes; `to_logical`/`to_physical` move data between the two views.
"""

from __future__ import annotations

import functools
import math
from typing import cast

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntegerType,
    NoneAttr,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from ge_dialect import layout
from ge_dialect.ge.attributes import C0_FORMATS, Format, FormatAttr
from ge_dialect.utils.dtypes import is_supported, itemsize, np_dtype


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
    c0 = tensor_c0(t) if fmt in C0_FORMATS else None
    return layout.physical_dims(
        tuple(t.get_shape()), fmt.value, c0, itemsize(t.element_type), tensor_groups(t)
    )


@functools.lru_cache(maxsize=1024)
def with_format(t: TensorType, fmt: Format | str, c0: int = 0, groups: int = 1) -> TensorType:
    """`t` with another storage format (default formats drop the encoding).

    Types are immutable values: equal arguments give the same object (a cache)."""
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
    c0 = tensor_c0(t) if fmt in C0_FORMATS else None
    return layout.to_logical(physical, fmt.value, tuple(t.get_shape()), c0, tensor_groups(t))


def to_physical(t: TensorType, logical: np.ndarray) -> np.ndarray:
    """Logical array -> the physical storage of a value of type `t` (padding zero)."""
    logical = np.asarray(logical, dtype=np_dtype(t.element_type))
    fmt = tensor_format(t)
    if fmt in (Format.NCHW, Format.ND):
        return logical
    c0 = tensor_c0(t) if fmt in C0_FORMATS else None
    return layout.to_physical(logical, fmt.value, c0, tensor_groups(t))


@functools.lru_cache(maxsize=256)
def padding_mask(t: TensorType) -> np.ndarray:
    """The lanes of `t`'s physical array that hold no logical element (True), which a stored
    array keeps zero; all False for a format without padding."""
    if tensor_format(t) in (Format.NCHW, Format.ND):
        return np.zeros(physical_shape(t), dtype=bool)
    mask = to_physical(t, np.ones(tuple(t.get_shape()), dtype=np_dtype(t.element_type))) == 0
    mask.flags.writeable = False
    return mask


def verify_tensor_type(t: Attribute, what: str) -> TensorType:
    """Checks the rules a `ge` op puts on each operand/result type; returns it as TensorType."""
    if not isinstance(t, TensorType):
        raise VerifyException(f"{what} must be a ranked tensor, got {t}")
    if any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"{what} must have a static shape, got {t}")
    if not is_supported(t.element_type):
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


def dense_from_numpy(
    array: np.ndarray, element_type: Attribute, like: TensorType | None = None
) -> DenseIntOrFPElementsAttr:
    """A dense attribute holding `array` (O(bytes): built from `tobytes()`, never a list).

    `like`, a tensor type without encoding of the array's shape and element type, is used
    as the attribute's type instead of building an equal one."""
    if not isinstance(element_type, IntegerType | AnyFloat):
        raise ValueError(f"element type {element_type} cannot hold dense data")
    data = np.ascontiguousarray(array, dtype=np_dtype(element_type)).tobytes()
    if not (
        like is not None
        and like.element_type == element_type
        and isinstance(like.encoding, NoneAttr)
        and tuple(like.get_shape()) == array.shape
    ):
        like = TensorType(element_type, array.shape)
    return DenseIntOrFPElementsAttr(
        cast("TensorType[IntegerType | AnyFloat]", like), BytesAttr(data)
    )


def dense_to_numpy(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """A read-only numpy view of a dense attribute (splats are broadcast)."""
    shape = tuple(attr.get_shape())
    flat = np.frombuffer(attr.data.data, dtype=np_dtype(attr.get_element_type()))
    if flat.size == 1 and math.prod(shape) != 1:
        return np.broadcast_to(flat, shape)
    return flat.reshape(shape)
