"""The numerics of the simulated NPU: one numpy kernel per launch kind, on STORED arrays.

    run_kernel("relu", [x], [Operand((1, 17, 8, 8), np.float16, "NC1HWC0")],
               [Operand((1, 17, 8, 8), np.float16, "NC1HWC0")], {}) -> [y]

`inputs` are the physical arrays of the operands (`Operand.physical_shape`); the result is one
new physical array per out_type, of exactly its physical shape and dtype, never sharing memory
with an input.  An NC1HWC0 result has zero padding lanes.  `attrs` are the `ge` op's
properties as plain Python values (lists, int, float, str, bool); an absent unit attribute
is False.  Kernels follow the stored arrays: a binary op broadcasts the stored shapes as
numpy does, pooling windows run over the stored H and W axes of every lane, batch norm
multiplies by per-channel vectors laid out like the input (zero padded), so a layout
decision that is wrong for the stored arrays gives wrong numbers (or a shape error), as on
the device.

Numerics: floats narrower than fp32 upcast to fp32, compute, and round once; fp32 computes in
fp32 (GEMMs included: numpy's fp16 matmul has no BLAS path); integer arithmetic is exact in
int64 and saturates when stored (`ge.add`/`sub`/`mul` on i8/ui8); data movement is exact.
Convolutions (im2col + one matmul per group tile) live in `kernels_conv`.

The kernels here: conv2d, fused_conv2d, batch_norm; relu, relu6, leaky_relu, clip, sigmoid,
silu, identity, cast; add, sub, mul; max_pool, avg_pool, global_avg_pool; concat,
trans_data, reshape, flatten, transpose, copy; matmul, softmax; hcom_all_reduce,
hcom_all_gather (one simulated device: `rank_size` identical ranks, so sum is
rank_size * x, prod x ** rank_size, max/min x, all-gather rank_size copies along dim 0;
with rank_size 1 both are the identity).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ge_dialect import layout
from ge_dialect.sim.kernels_base import (
    F32,
    Attrs,
    Kernel,
    Operand,
    UnknownKernel,
    cast_to,
    channel_vector,
    compute_dtype,
    convert,
    flag,
    integer,
    ints,
    logical,
    physical,
    real,
    sigmoid_,
    spatial_axes,
    store,
    text,
)
from ge_dialect.sim.kernels_conv import conv2d

__all__ = ["KERNELS", "Operand", "UnknownKernel", "run_kernel"]

Arrays = list[np.ndarray]
Types = list[Operand]


def _fresh(result: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
    """`result`, copied if it shares memory with one of `inputs`."""
    if any(np.shares_memory(result, x) for x in inputs):
        return np.array(result, order="C", copy=True)
    return result


def _float_wide(x: np.ndarray) -> np.ndarray:
    """Floats in their compute dtype (fp32), integers in float64 (exact for int32)."""
    return x.astype(compute_dtype(x.dtype) if x.dtype.kind == "f" else np.float64, copy=False)


# --------------------------------------------------------------------------------------
# elementwise
# --------------------------------------------------------------------------------------


def _unary(f: Callable[[np.ndarray, Attrs], np.ndarray]) -> Kernel:
    def kernel(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
        (x,) = inputs
        return [store(_fresh(f(x, attrs), x), out_types[0])]

    kernel.__doc__ = f.__doc__
    return kernel


def _relu(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """max(x, 0) (exact in any dtype)."""
    return np.maximum(x, x.dtype.type(0))


def _relu6(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """min(max(x, 0), 6)."""
    return np.clip(_float_wide(x), 0, 6)


def _clip(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """min(max(x, min), max) with the f32 bounds."""
    return np.clip(_float_wide(x), real(attrs, "min", -np.inf), real(attrs, "max", np.inf))


def _leaky_relu(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """x if x >= 0 else alpha * x (alpha defaults to 0.01)."""
    a = _float_wide(x)
    return np.where(a >= 0, a, a * a.dtype.type(real(attrs, "alpha", 0.01)))


def _sigmoid(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """1 / (1 + exp(-x)), without overflow."""
    return sigmoid_(np.array(_float_wide(x), copy=True))


def _silu(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """x * sigmoid(x)."""
    a = _float_wide(x)
    return sigmoid_(np.array(a, copy=True)) * a


def _identity(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """x (a copy)."""
    return np.array(x, copy=True)


def cast(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """To the result's dtype, rounded once: floats to nearest even (overflow to inf),
    integers rint and saturate, bool `!= 0`."""
    (x,) = inputs
    return [store(_fresh(cast_to(x, np.dtype(out_types[0].dtype)), x), out_types[0])]


_BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def _binary(name: str) -> Kernel:
    ufunc = _BINARY[name]

    def kernel(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
        a, b = inputs
        dtype = compute_dtype(np.result_type(a.dtype, b.dtype))
        return [store(ufunc(a, b, dtype=dtype), out_types[0])]

    kernel.__doc__ = (
        f"numpy's {ufunc.__name__} of the stored arrays (broadcasting their stored shapes), "
        "in fp32 for floats, exact then saturating for integers."
    )
    return kernel


def batch_norm(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """`x * s + t` with `s = scale / sqrt(var + eps)`, `t = offset - mean * s` per channel,
    laid out like the input (zero padded lanes for NC1HWC0)."""
    x, scale, offset, mean, var = inputs
    xt = in_types[0]
    eps = real(attrs, "epsilon", 1e-5)
    # [C] vectors: float64 costs nothing here and rounds s and t once.
    s64 = scale.astype(np.float64) / np.sqrt(var.astype(np.float64) + eps)
    t64 = offset.astype(np.float64) - mean.astype(np.float64) * s64
    dtype = compute_dtype(x.dtype)
    s = channel_vector(s64.astype(dtype), xt)
    t = channel_vector(t64.astype(dtype), xt)
    out = np.multiply(x, s, dtype=dtype)
    out += t
    return [store(out, out_types[0])]


# --------------------------------------------------------------------------------------
# pooling
# --------------------------------------------------------------------------------------


def _window_counts(out: int, k: int, s: int, before: int, after: int, size: int, include: bool):
    """Per output position along one axis, how many window elements count for an average."""
    starts = np.arange(out) * s - before
    lo, hi = (-before, size + after) if include else (0, size)
    return np.clip(np.minimum(starts + k, hi) - np.maximum(starts, lo), 0, None)


def _pool(kind: str) -> Kernel:
    def kernel(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
        (x,) = inputs
        xt, yt = in_types[0], out_types[0]
        kh, kw = ints(attrs, "kernel", (1, 1))
        sh, sw = ints(attrs, "strides", (1, 1))
        top, bottom, left, right = ints(attrs, "pads", (0, 0, 0, 0))
        ah, aw = spatial_axes(xt)
        h, w = xt.shape[2], xt.shape[3]
        ho, wo = yt.shape[2], yt.shape[3]
        if kind == "max":
            dtype = x.dtype  # exact in the input's dtype
            fill = -np.inf if dtype.kind == "f" else np.iinfo(dtype).min
        else:
            dtype, fill = F32, 0
        # padded extent: the windows' reach (a ceil_mode overhang included), at least the input
        extent = [max((ho - 1) * sh + kh, top + h), max((wo - 1) * sw + kw, left + w)]
        if (top, left) == (0, 0) and extent == [h, w] and x.dtype == dtype:
            xp = x
        else:
            shape = list(x.shape)
            shape[ah], shape[aw] = extent
            xp = np.full(shape, fill, dtype=dtype)
            index = [slice(None)] * x.ndim
            index[ah], index[aw] = slice(top, top + h), slice(left, left + w)
            xp[tuple(index)] = x
        acc: np.ndarray | None = None
        index = [slice(None)] * x.ndim
        for i in range(kh):  # a short loop over kernel taps
            for j in range(kw):
                index[ah] = slice(i, i + sh * (ho - 1) + 1, sh)
                index[aw] = slice(j, j + sw * (wo - 1) + 1, sw)
                tap = xp[tuple(index)]
                if acc is None:
                    acc = np.array(tap, dtype=dtype, copy=True)
                elif kind == "max":
                    np.maximum(acc, tap, out=acc)
                else:
                    np.add(acc, tap, out=acc)
        assert acc is not None
        if kind == "avg":
            include = flag(attrs, "count_include_pad")
            ch = _window_counts(ho, kh, sh, top, bottom, h, include)
            cw = _window_counts(wo, kw, sw, left, right, w, include)
            shape = [1] * x.ndim
            shape[ah], shape[aw] = ho, wo
            acc /= np.outer(ch, cw).astype(F32).reshape(shape)
        return [store(acc, yt)]

    kernel.__doc__ = (
        f"{kind} pooling over the stored H and W axes of every lane (pads "
        "[top, bottom, left, right]; the output shape carries ceil_mode; padding never wins a "
        "max; an average divides by the window's elements inside the input, or inside the "
        "padded input with count_include_pad, a ceil_mode overhang never counting)."
    )
    return kernel


def global_avg_pool(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """The mean over the stored H and W axes, accumulated in fp32."""
    (x,) = inputs
    axes = spatial_axes(in_types[0])
    mean = np.asarray(np.mean(x, axis=axes, dtype=F32, keepdims=True))
    return [store(mean, out_types[0])]


# --------------------------------------------------------------------------------------
# data movement
# --------------------------------------------------------------------------------------

_NHWC_AXIS = (0, 3, 1, 2)  # logical NCHW axis -> stored NHWC axis


def _concat_nc1hwc0_channels(inputs: Arrays, in_types: Types, yt: Operand) -> np.ndarray:
    """Channel concat of NC1HWC0 arrays: each input's lanes shifted by its channel offset
    (two strided copies per input when the offset is not C0-aligned).  An input's padding
    lanes land on channels of later inputs, written afterwards, or on the result's padding
    lanes, zeroed when it is stored."""
    n, _, h, w = yt.shape
    c0 = yt.c0
    c1_out = layout.ceil_div(yt.shape[1], c0)
    out = np.zeros((n, c1_out, h, w, c0), dtype=yt.dtype)
    offset = 0
    for x, t in zip(inputs, in_types, strict=True):
        q, r = divmod(offset, c0)
        blocks = min(x.shape[1], c1_out - q)
        if r == 0:
            out[:, q : q + blocks] = x[:, :blocks]
        else:
            out[:, q : q + blocks, :, :, r:] = x[:, :blocks, :, :, : c0 - r]
            spill = min(x.shape[1], c1_out - q - 1)
            out[:, q + 1 : q + 1 + spill, :, :, :r] = x[:, :spill, :, :, c0 - r :]
        offset += t.shape[1]
    return out


def concat(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """Concatenation along logical `axis`: along its stored axis (NC1HWC0: N, C1, H, W keep
    their index), repacking the C0 lanes for a channel concat in NC1HWC0 whose offsets are
    not C0-aligned."""
    yt = out_types[0]
    axis = integer(attrs, "axis", 0)
    same = all((t.fmt, t.c0) == (yt.fmt, yt.c0) for t in in_types)
    if not same or yt.fmt == "FRACTAL_Z":
        parts = [logical(x, t) for x, t in zip(inputs, in_types, strict=True)]
        return [store(physical(np.concatenate(parts, axis=axis), yt), yt)]
    if yt.fmt == "NC1HWC0" and axis == 1:
        return [store(_concat_nc1hwc0_channels(inputs, in_types, yt), yt)]
    stored_axis = _NHWC_AXIS[axis] if yt.fmt == "NHWC" else axis
    return [store(np.concatenate(inputs, axis=stored_axis), yt)]


def trans_data(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """Between the input's and the result's formats, by `ge_dialect.layout` (exact)."""
    (x,) = inputs
    return [store(_fresh(convert(x, in_types[0], out_types[0]), x), out_types[0])]


def reshape(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """The same elements, row-major, in the result's shape (reshape and flatten)."""
    (x,) = inputs
    yt = out_types[0]
    return [store(np.array(x.reshape(yt.physical_shape), copy=True), yt)]


def transpose(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """Result dim i is input dim perm[i]."""
    (x,) = inputs
    perm = ints(attrs, "perm", tuple(reversed(range(x.ndim))))
    return [store(np.transpose(x, perm).copy(order="C"), out_types[0])]


def copy(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """Its input (a copy of the stored array)."""
    (x,) = inputs
    return [store(np.array(x, copy=True), out_types[0])]


# --------------------------------------------------------------------------------------
# matmul, softmax
# --------------------------------------------------------------------------------------


def matmul(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """`a @ b (+ bias)` over the last two dims, batch dims broadcasting; `transpose_a` /
    `transpose_b` swap an operand's last two dims first.  fp32 GEMM."""
    a, b = inputs[0], inputs[1]
    dtype = compute_dtype(np.result_type(a.dtype, b.dtype))
    a = a.astype(dtype, copy=False)
    b = b.astype(dtype, copy=False)
    if flag(attrs, "transpose_a"):
        a = np.swapaxes(a, -1, -2)
    if flag(attrs, "transpose_b"):
        b = np.swapaxes(b, -1, -2)
    out = np.matmul(a, b)
    has_bias = attrs.get("has_bias", len(inputs) > 2)
    if has_bias:
        out += inputs[2].astype(dtype, copy=False)
    return [store(out, out_types[0])]


def softmax(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """exp(x - max) / sum(exp(x - max)) along `axis`, in fp32."""
    (x,) = inputs
    axis = integer(attrs, "axis", -1)
    e = np.array(x, dtype=compute_dtype(x.dtype), copy=True)
    e -= e.max(axis=axis, keepdims=True)
    np.exp(e, out=e)
    e /= e.sum(axis=axis, keepdims=True)
    return [store(e, out_types[0])]


# --------------------------------------------------------------------------------------
# collectives (one simulated device)
# --------------------------------------------------------------------------------------


def hcom_all_reduce(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """The reduction over `rank_size` identical ranks: sum rank_size * x, prod
    x ** rank_size, max and min x (integers saturate); the identity with one rank."""
    (x,) = inputs
    ranks = integer(attrs, "rank_size", 1)
    reduction = text(attrs, "reduction", "sum")
    if ranks == 1 or reduction in ("max", "min"):
        out = np.array(x, copy=True)
    elif reduction == "sum":
        out = np.multiply(x, ranks, dtype=compute_dtype(x.dtype))
    elif reduction == "prod":
        base = x.astype(compute_dtype(x.dtype) if x.dtype.kind == "f" else np.float64)
        with np.errstate(over="ignore"):
            out = np.power(base, ranks)
    else:
        raise ValueError(f"hcom_all_reduce: unknown reduction {reduction!r}")
    return [store(out, out_types[0])]


def hcom_all_gather(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """`rank_size` copies of the input along dim 0 (each rank holds the same tensor)."""
    (x,) = inputs
    ranks = integer(attrs, "rank_size", 1)
    return [store(np.concatenate([x] * ranks, axis=0), out_types[0])]


# --------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------

KERNELS: dict[str, Kernel] = {
    "conv2d": conv2d,
    "fused_conv2d": conv2d,
    "batch_norm": batch_norm,
    "relu": _unary(_relu),
    "relu6": _unary(_relu6),
    "leaky_relu": _unary(_leaky_relu),
    "clip": _unary(_clip),
    "sigmoid": _unary(_sigmoid),
    "silu": _unary(_silu),
    "identity": _unary(_identity),
    "cast": cast,
    "add": _binary("add"),
    "sub": _binary("sub"),
    "mul": _binary("mul"),
    "max_pool": _pool("max"),
    "avg_pool": _pool("avg"),
    "global_avg_pool": global_avg_pool,
    "concat": concat,
    "trans_data": trans_data,
    "reshape": reshape,
    "flatten": reshape,
    "transpose": transpose,
    "copy": copy,
    "matmul": matmul,
    "softmax": softmax,
    "hcom_all_reduce": hcom_all_reduce,
    "hcom_all_gather": hcom_all_gather,
}
"""Kernel name (the `ge` op's name without "ge.") -> kernel(inputs, in_types, out_types,
attrs)."""


def run_kernel(
    kernel: str,
    inputs: list[np.ndarray],
    in_types: list[Operand],
    out_types: list[Operand],
    attrs: dict[str, object],
) -> list[np.ndarray]:
    """Runs kernel `kernel` on the physical `inputs`; one new physical array per out_type.

    Raises `UnknownKernel` for a name not in `KERNELS`, ValueError when an input's shape is
    not the physical shape of its Operand (or the result's would not be).
    """
    try:
        f = KERNELS[kernel]
    except KeyError:
        raise UnknownKernel(kernel) from None
    if len(inputs) != len(in_types):
        raise ValueError(f"{kernel}: {len(inputs)} inputs for {len(in_types)} operand types")
    for i, (x, t) in enumerate(zip(inputs, in_types, strict=True)):
        if tuple(x.shape) != t.physical_shape:
            raise ValueError(
                f"{kernel}: input #{i} has shape {tuple(x.shape)}, expected the physical "
                f"shape {t.physical_shape} of {t}"
            )
    return f(list(inputs), list(in_types), list(out_types), attrs)
