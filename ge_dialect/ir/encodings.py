"""Storage formats and constant data shared by the `ge` and `npu` dialects.

Both dialects write a storage format as a tensor encoding and hold constant data inline,
in an external file or not at all (elided).  This module is the one implementation of
those attributes and of the maths on tensor types that carry them; each dialect declares
thin subclasses that only set `name` (`#ge.format` / `#npu.format`, `#ge.external` /
`#npu.external`, `#ge.elided` / `#npu.elided`).  xDSL 0.75 takes parameters declared in
a base class, but makes only the decorated class a dataclass: each base is a frozen
dataclass itself, or its subclasses would compare equal whatever their parameters.

- `FormatEncoding`: `<FMT[, c0 = K][, groups = G]>`, parsed, printed and verified;
- `ExternalData`: `<"file", offset = O, length = L>`; `Elided`: no parameters;
- `tensor_format`, `physical_shape`, `to_logical`, `to_physical`, `padding_mask`: a tensor
  type whose encoding is any `FormatEncoding` (NCHW/ND when it has none);
- `dense_from_numpy` / `dense_to_numpy`: dense attributes <-> numpy, O(bytes);
- `set_data_dir` / `resolve` / `read_physical`: where external data is read from.

It sits in the IR layer (it needs the format maths of `ge_dialect.utils.layout` and the located
errors of `ge_dialect.utils.errors`, which a leaf utility may not import) and imports no
dialect, so that `npu` never imports `ge`.
"""

from __future__ import annotations

import functools
import math
import os
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import (
    AnyFloat,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    IntAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ge_dialect.utils import layout
from ge_dialect.utils.dtypes import is_supported, itemsize, np_dtype
from ge_dialect.utils.errors import op_error
from ge_dialect.utils.parsing import parse_i64, parse_parameter_list, parse_string

# --------------------------------------------------------------------------------------
# Formats
# --------------------------------------------------------------------------------------


class Format(StrEnum):
    NCHW = "NCHW"
    ND = "ND"
    NHWC = "NHWC"
    NC1HWC0 = "NC1HWC0"
    FRACTAL_Z = "FRACTAL_Z"
    FRACTAL_NZ = "FRACTAL_NZ"


WRITABLE_FORMATS = (Format.NHWC, Format.NC1HWC0, Format.FRACTAL_Z, Format.FRACTAL_NZ)
"""The formats an encoding may name (the defaults NCHW and ND are written as no encoding)."""

C0_FORMATS = (Format.NC1HWC0, Format.FRACTAL_Z, Format.FRACTAL_NZ)
"""The formats that split a dim into blocks of C0 (channels; FRACTAL_NZ's last dim)."""

C0_VALUES = (4, 8, 16, 32, 64)


@dataclass(frozen=True, init=False)
class FormatEncoding(ParametrizedAttribute):
    """A storage format, written as a tensor encoding: `<FMT[, c0 = K][, groups = G]>`.

    `c0` (0 here when omitted) is written only when it differs from the dtype's default
    (16; 32 for 1-byte types); `groups` only on FRACTAL_Z and only when > 1.  Logical dims
    stay in NCHW (OIHW) order whatever the format; FRACTAL_NZ stores any rank >= 2 as
    fractals of its last two dims, 16 rows by C0 columns.  A dialect's format attribute is
    an `@irdl_attr_definition` subclass that sets `name`.
    """

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
    """Why the format encoding `<fmt, c0, groups>` is invalid on its own, or None."""
    if fmt in (Format.NCHW, Format.ND):
        return (
            f"explicit default format {fmt} is not allowed: write the tensor type without an "
            "encoding"
        )
    if fmt not in Format.__members__:
        return f"unknown format '{fmt}'"
    if c0 and fmt not in C0_FORMATS:
        return f"c0 is only meaningful for NC1HWC0, FRACTAL_Z and FRACTAL_NZ, not {fmt}"
    if c0 and c0 not in C0_VALUES:
        return f"c0 must be one of 4, 8, 16, 32, 64, got {c0}"
    if groups < 1:
        return f"groups must be positive, got {groups}"
    if groups != 1 and fmt != Format.FRACTAL_Z:
        return f"groups is only meaningful for FRACTAL_Z, not {fmt}"
    return None


# --------------------------------------------------------------------------------------
# Constant data attributes
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, init=False)
class ExternalData(ParametrizedAttribute):
    """Constant data stored outside the IR: `<"file", offset = O, length = L>`.

    The path is relative to the IR file's directory (or absolute); the bytes are the
    constant's physical array, little-endian, row-major.  Loaded lazily and memory-mapped
    (`read_physical`).  A dialect's attribute is a subclass that sets `name`.
    """

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


@dataclass(frozen=True, init=False)
class Elided(ParametrizedAttribute):
    """Marks a constant whose data was elided when printing.

    Elided IR is for reading: it parses and verifies, but nothing can compute with it.
    A dialect's attribute is a subclass that sets `name`.
    """

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return ()


# --------------------------------------------------------------------------------------
# Tensor types with a format encoding
# --------------------------------------------------------------------------------------


def tensor_format(t: Attribute) -> Format:
    """The storage format of a tensor type (its default when it has no encoding)."""
    assert isinstance(t, TensorType)
    enc = t.encoding
    if isinstance(enc, FormatEncoding):
        return enc.fmt
    return Format.NCHW if t.get_num_dims() == 4 else Format.ND


def tensor_c0(t: TensorType) -> int:
    """The C0 of an NC1HWC0/FRACTAL_Z/FRACTAL_NZ tensor type (the dtype's default when not
    written)."""
    enc = t.encoding
    if isinstance(enc, FormatEncoding) and enc.c0.data:
        return enc.c0.data
    return layout.default_c0(itemsize(t.element_type))


def tensor_groups(t: TensorType) -> int:
    enc = t.encoding
    return enc.groups.data if isinstance(enc, FormatEncoding) else 1


def physical_shape(t: TensorType) -> tuple[int, ...]:
    """The shape of the array that stores a value of type `t` (padding lanes included)."""
    fmt = tensor_format(t)
    c0 = tensor_c0(t) if fmt in C0_FORMATS else None
    return layout.physical_dims(
        tuple(t.get_shape()), fmt.value, c0, itemsize(t.element_type), tensor_groups(t)
    )


def encoded(
    t: TensorType, encoding: type[FormatEncoding], fmt: Format | str, c0: int = 0, groups: int = 1
) -> TensorType:
    """`t` stored in `fmt`, with an encoding of class `encoding` (default formats drop the
    encoding; a `c0` equal to the dtype's default is not written)."""
    fmt = Format(fmt)
    if fmt in (Format.NCHW, Format.ND):
        return TensorType(t.element_type, t.get_shape())
    if c0 and c0 == layout.default_c0(itemsize(t.element_type)):
        c0 = 0
    return TensorType(t.element_type, t.get_shape(), encoding(fmt, c0, groups))


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


@functools.lru_cache(maxsize=1024)
def has_padding_lanes(t: TensorType) -> bool:
    """Whether `t`'s physical array has lanes that hold no logical element (`padding_mask`
    is not all False): a 16x16x3x3 FRACTAL_Z weight has none, a 17-channel NC1HWC0 has."""
    return bool(padding_mask(t).any())


def verify_tensor_type(t: Attribute, what: str, encoding: type[FormatEncoding]) -> TensorType:
    """Checks a tensor type whose storage format is an encoding of class `encoding`: ranked,
    static, a supported element type, and a format that fits it; returns it as TensorType."""
    if not isinstance(t, TensorType):
        raise VerifyException(f"{what} must be a ranked tensor, got {t}")
    if any(d < 0 for d in t.get_shape()):
        raise VerifyException(f"{what} must have a static shape, got {t}")
    if not is_supported(t.element_type):
        raise VerifyException(f"{what} has unsupported element type {t.element_type}")
    enc = t.encoding
    if isinstance(enc, encoding):
        fmt = enc.fmt
        if fmt == Format.FRACTAL_NZ and t.get_num_dims() < 2:
            raise VerifyException(
                f"{what}: format FRACTAL_NZ needs a tensor of rank >= 2 (its last two dims are "
                f"the matrix), got rank {t.get_num_dims()}"
            )
        if fmt != Format.FRACTAL_NZ and t.get_num_dims() != 4:
            raise VerifyException(
                f"{what}: format {fmt} needs a rank-4 tensor, got rank {t.get_num_dims()}"
            )
        if fmt == Format.FRACTAL_Z and t.get_shape()[0] % enc.groups.data:
            raise VerifyException(
                f"{what}: FRACTAL_Z with groups = {enc.groups.data} needs output channels "
                f"(dim 0) divisible by {enc.groups.data}, got {t.get_shape()[0]}"
            )
        if fmt == Format.FRACTAL_Z and enc.groups.data > 1 and 0 in t.get_shape()[:2]:
            raise VerifyException(
                f"{what}: FRACTAL_Z with groups = {enc.groups.data} needs non-empty channels "
                f"(dims 0 and 1), got {'x'.join(map(str, t.get_shape()))}"
            )
        default = layout.default_c0(itemsize(t.element_type))
        if enc.c0.data == default:
            raise VerifyException(
                f"{what}: c0 = {default} is the default for {t.element_type} and must be omitted"
            )
    elif not isinstance(enc, NoneAttr):
        raise VerifyException(f"{what} has an encoding that is not #{encoding.name}: {enc}")
    return t


# --------------------------------------------------------------------------------------
# Dense data
# --------------------------------------------------------------------------------------


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
        like = _data_type(element_type, array.shape)
    # What `DenseIntOrFPElementsAttr(like, BytesAttr(data))` builds, without xDSL's generic
    # check of its parameters, which hold here by construction (MLIR's `get`, not
    # `getChecked`): a tensor type without encoding of an integer or float element type,
    # and the bytes of exactly its number of elements.
    attr = DenseIntOrFPElementsAttr.__new__(DenseIntOrFPElementsAttr)
    object.__setattr__(attr, "type", like)
    object.__setattr__(attr, "data", BytesAttr(data))
    return attr


_DATA_TYPES: dict[tuple[Attribute, tuple[int, ...]], TensorType] = {}
"""The tensor types of dense data built so far, by element type and shape (one object per
type: types are immutable values); bounded, emptied at `_DATA_TYPES_LIMIT` entries."""
_DATA_TYPES_LIMIT = 1024


def _data_type(element_type: Attribute, shape: tuple[int, ...]) -> TensorType:
    key = (element_type, shape)
    t = _DATA_TYPES.get(key)
    if t is None:
        if len(_DATA_TYPES) >= _DATA_TYPES_LIMIT:
            _DATA_TYPES.clear()
        t = _DATA_TYPES[key] = TensorType(element_type, shape)
    return t


def dense_to_numpy(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """A read-only numpy view of a dense attribute (splats are broadcast)."""
    t = attr.type
    shape = t.get_shape()
    flat = np.frombuffer(attr.data.data, dtype=np_dtype(t.element_type))
    if flat.size == 1 and math.prod(shape) != 1:
        return np.broadcast_to(flat, shape)
    return flat.reshape(shape)


# --------------------------------------------------------------------------------------
# Where constant data is read from
# --------------------------------------------------------------------------------------

_DATA_DIRS: weakref.WeakKeyDictionary[Operation, str] = weakref.WeakKeyDictionary()


def _toplevel(op: Operation) -> Operation:
    while (parent := op.parent_op()) is not None:
        op = parent
    return op


def set_data_dir(module: Operation, directory: str) -> None:
    """Records that `module` was read from a file in `directory`."""
    _DATA_DIRS[module] = directory or "."


def recorded_data_dir(op: Operation) -> str | None:
    """The directory recorded for `op`'s module by `set_data_dir`, or None."""
    return _DATA_DIRS.get(_toplevel(op))


def data_dir(op: Operation) -> str:
    """The directory relative external-data paths of `op`'s module are resolved against."""
    return _DATA_DIRS.get(_toplevel(op), ".")


def resolve(path: str, op: Operation) -> str:
    """An external data path of `op` as a path the process can open."""
    return path if os.path.isabs(path) else os.path.join(data_dir(op), path)


def read_physical(
    value: Attribute,
    shape: Sequence[int],
    element_type: Attribute,
    op: Operation,
    directory: Callable[[Operation], str] = data_dir,
) -> np.ndarray:
    """The array of shape `shape` that constant data `value` held by `op` stores (read-only).

    Dense data is viewed, external data is memory-mapped (relative paths are resolved
    against `directory(op)`); elided data, a missing file or a short file is a located
    error at `op`.
    """
    if isinstance(value, DenseIntOrFPElementsAttr):
        return dense_to_numpy(value)
    if isinstance(value, Elided):
        raise op_error(
            op, "constant data was elided when this IR was printed; it cannot be computed with"
        )
    assert isinstance(value, ExternalData)
    path = value.path.data
    if not os.path.isabs(path):
        path = os.path.join(directory(op), path)
    dtype = np_dtype(element_type)
    offset, length = value.offset.data, value.length.data
    try:
        size = os.path.getsize(path)
    except OSError as e:
        raise op_error(op, f"cannot open external data '{path}': {e.strerror}") from None
    if offset + length > size:
        raise op_error(
            op,
            f"external data '{path}' has {size} bytes, the constant needs bytes "
            f"[{offset}, {offset + length})",
        )
    if length == 0:
        return np.zeros(tuple(shape), dtype)
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=tuple(shape))
