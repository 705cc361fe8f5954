"""What every kernel of the simulated NPU shares: the operand description and the helpers
that turn a computed array into the stored result of an operand.

Kernels compute on STORED (physical) arrays: an NC1HWC0 operand of logical shape
[N, C, H, W] is an array [N, C1, H, W, C0], a FRACTAL_Z weight its fractal storage, a
FRACTAL_NZ matrix [..., M, N] its fractals [..., N1, M1, 16, C0], an NHWC operand
[N, H, W, C], an ND/NCHW operand its logical array.  Floats narrower than fp32 are upcast
to fp32, computed, and rounded once at the end; fp32 computes in fp32; integers compute in
a wider integer type and saturate when stored.  Every NC1HWC0 and FRACTAL_NZ result gets
its padding lanes (channel c1*C0 + c0 >= C; row >= M or column >= N) written zero,
whatever f(0) is.

The format maths are `ge_dialect.utils.layout`'s; nothing here re-derives an index map.

The attribute readers (`ints`, `integer`, `real`, ...) raise a ValueError naming the
attribute when its value has the wrong kind: a verified program never has one (a launch's
attributes are checked against its kernel's `ge` op, `npu.signatures`), but a kernel
called directly is not trusted to have been verified.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

import numpy as np

from ge_dialect.utils import layout

F32 = np.dtype(np.float32)


@dataclass(frozen=True)
class Operand:
    """What a launch says about one operand of a kernel.

    `shape` is the LOGICAL shape (NCHW order for rank 4, OIHW for weights), `fmt` the storage
    format ("ND", "NCHW", "NHWC", "NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ"), `c0` the C0 actually
    used (never 0) and `groups` the FRACTAL_Z groups.
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    fmt: str
    c0: int = 16
    groups: int = 1

    @property
    def physical_shape(self) -> tuple[int, ...]:
        return layout.physical_dims(
            self.shape, self.fmt, self.c0, np.dtype(self.dtype).itemsize, self.groups
        )


class UnknownKernel(KeyError):
    """No kernel of that name (a `KeyError`: `KERNELS[name]` failed)."""

    def __init__(self, kernel: str):
        super().__init__(kernel)
        self.kernel = kernel

    def __str__(self) -> str:
        return f"unknown kernel {self.kernel!r}"


Attrs = Mapping[str, object]
Kernel = Callable[[list[np.ndarray], list[Operand], list[Operand], Attrs], list[np.ndarray]]
"""kernel(inputs, in_types, out_types, attrs) -> one physical array per out_type."""


# --------------------------------------------------------------------------------------
# attributes
# --------------------------------------------------------------------------------------


def _is_integer(value: object) -> TypeGuard[int | np.integer]:
    """An integer attribute's value (true/false are flags, not integers)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def ints(attrs: Attrs, name: str, default: Sequence[int]) -> tuple[int, ...]:
    """A list-of-integers attribute (any iterable of integers but a string)."""
    value = attrs.get(name)
    if value is None:
        return tuple(int(v) for v in default)
    values = list(value) if isinstance(value, Iterable) and not isinstance(value, str) else None
    if values is None or not all(_is_integer(v) for v in values):
        raise ValueError(f"attribute '{name}' must be a list of integers, got {value!r}")
    return tuple(int(v) for v in values)


def text(attrs: Attrs, name: str, default: str) -> str:
    """A string or enum attribute (an enum attribute object is unwrapped through `.data`)."""
    value = attrs.get(name, default)
    value = getattr(value, "data", value)
    return str(getattr(value, "value", value))


def integer(attrs: Attrs, name: str, default: int) -> int:
    """An integer attribute."""
    value = attrs.get(name, default)
    if not _is_integer(value):
        raise ValueError(f"attribute '{name}' must be an integer, got {value!r}")
    return int(value)


def real(attrs: Attrs, name: str, default: float) -> float:
    """A float attribute as the f32 number it denotes (attributes are f32); an integer is
    taken as its value."""
    value = attrs.get(name, default)
    if isinstance(value, float | np.floating) or _is_integer(value):
        return float(np.float32(value))
    raise ValueError(f"attribute '{name}' must be a number, got {value!r}")


def flag(attrs: Attrs, name: str) -> bool:
    """A unit attribute: absent means False."""
    return bool(attrs.get(name, False))


# --------------------------------------------------------------------------------------
# dtypes and storing
# --------------------------------------------------------------------------------------


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """fp32 for floats of at most 4 bytes (fp16 upcasts), float64 stays; int64 for ints."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return F32 if dtype.itemsize <= 4 else dtype
    if dtype.kind in "iub":
        return np.dtype(np.int64)
    raise TypeError(f"kernels do not compute on {dtype}")


def wide(a: np.ndarray) -> np.ndarray:
    """`a` in its compute dtype (no copy when it already is)."""
    return a.astype(compute_dtype(a.dtype), copy=False)


def cast_to(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Rounds once to `dtype`: floats to nearest even (overflow gives inf), integers
    `rint` and saturate at the type's limits, bool is `!= 0`."""
    dtype = np.dtype(dtype)
    if a.dtype == dtype:
        return a
    if dtype.kind == "b":
        return a != 0
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if a.dtype.kind == "f":
            a = np.rint(a)
            with np.errstate(invalid="ignore"):
                return np.clip(a, info.min, info.max).astype(dtype)
        lo, hi = max(info.min, np.iinfo(np.int64).min), min(info.max, np.iinfo(np.int64).max)
        return np.clip(a, lo, hi).astype(dtype)
    with np.errstate(over="ignore"):  # f32 -> f16 overflow rounds to inf, as it should
        return a.astype(dtype)


def zero_padding_lanes(a: np.ndarray, t: Operand) -> np.ndarray:
    """Writes zero into the padding lanes of an NC1HWC0 or FRACTAL_NZ array (in place;
    returns it)."""
    if t.fmt == "FRACTAL_NZ":
        return layout.zero_fractal_nz_padding(a, t.shape)
    if t.fmt == "NC1HWC0":
        c = t.shape[1]
        c0 = a.shape[-1]
        if c % c0:
            a[:, c // c0, :, :, c % c0 :] = 0
    return a


def store(a: np.ndarray, t: Operand) -> np.ndarray:
    """The stored result for `t`: rounded once to its dtype, contiguous, padding lanes zero.

    `a` must be the kernel's own array (never a view of an input): its padding lanes may be
    written in place."""
    out = cast_to(np.asarray(a), t.dtype)
    if not (out.flags.c_contiguous and out.flags.writeable):
        out = np.array(out, order="C")
    expected = t.physical_shape
    if out.shape != expected:
        raise ValueError(f"kernel result has shape {out.shape}, expected {expected} for {t}")
    return zero_padding_lanes(out, t)


# --------------------------------------------------------------------------------------
# formats
# --------------------------------------------------------------------------------------


def spatial_axes(t: Operand) -> tuple[int, int]:
    """The stored axes of H and W of a rank-4 activation."""
    if t.fmt == "NHWC":
        return (1, 2)
    if len(t.shape) != 4:
        raise ValueError(f"expected a rank-4 activation, got {t}")
    return (2, 3)


def channel_vector(v: np.ndarray, t: Operand) -> np.ndarray:
    """A per-channel vector [C] shaped to broadcast against the stored array of `t`
    (zero padded to C1*C0 lanes for NC1HWC0)."""
    c = t.shape[1]
    if t.fmt == "NC1HWC0":
        c1 = layout.ceil_div(c, t.c0)
        padded = np.zeros(c1 * t.c0, dtype=v.dtype)
        padded[:c] = v
        return padded.reshape(1, c1, 1, 1, t.c0)
    if t.fmt == "NHWC":
        return v.reshape(1, 1, 1, c)
    return v.reshape(1, c, 1, 1)


def logical(a: np.ndarray, t: Operand) -> np.ndarray:
    """The logical array of a stored one (layout's converters)."""
    return layout.to_logical(a, t.fmt, t.shape, t.c0, t.groups)


def physical(a: np.ndarray, t: Operand) -> np.ndarray:
    """The stored array of a logical one (layout's converters)."""
    return layout.to_physical(a, t.fmt, t.c0, t.groups)


def convert(a: np.ndarray, src: Operand, dst: Operand) -> np.ndarray:
    """A stored array of `src`'s layout re-laid-out as `dst` (same logical shape)."""
    if (src.fmt, src.c0, src.groups) == (dst.fmt, dst.c0, dst.groups) or (
        src.fmt in ("ND", "NCHW") and dst.fmt in ("ND", "NCHW")
    ):
        return a
    return physical(logical(a, src), dst)


# --------------------------------------------------------------------------------------
# activations (in place on a compute-dtype array)
# --------------------------------------------------------------------------------------


def sigmoid_(a: np.ndarray) -> np.ndarray:
    """In-place logistic function, without overflow: e = exp(-|x|); x >= 0: 1/(1+e),
    else e/(1+e)."""
    neg = a < 0
    np.abs(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)  # e in (0, 1]
    num = np.where(neg, a, np.ones((), a.dtype))
    np.add(a, 1, out=a)
    np.divide(num, a, out=a)
    return a


def activation_(a: np.ndarray, name: str, alpha: float) -> np.ndarray:
    """Applies a fused conv's activation in place."""
    if name == "none":
        return a
    if name == "relu":
        return np.maximum(a, 0, out=a)
    if name == "relu6":
        return np.clip(a, 0, 6, out=a)
    if name == "leaky_relu":
        return np.multiply(a, a.dtype.type(alpha), out=a, where=a < 0)
    if name == "sigmoid":
        return sigmoid_(a)
    raise ValueError(f"unknown activation {name!r}")


Arrays = list[np.ndarray]


Types = list[Operand]
