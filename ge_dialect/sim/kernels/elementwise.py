"""Elementwise kernels of the simulated NPU: activations, cast, add/sub/mul, batch norm."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ge_dialect.sim.kernels.base import (
    Arrays,
    Attrs,
    Kernel,
    Types,
    cast_to,
    channel_vector,
    compute_dtype,
    real,
    sigmoid_,
    store,
)


def fresh(result: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
    """`result`, copied if it shares memory with one of `inputs`."""
    if any(np.shares_memory(result, x) for x in inputs):
        return np.array(result, order="C", copy=True)
    return result


def float_wide(x: np.ndarray) -> np.ndarray:
    """Floats in their compute dtype (fp32), integers in float64 (exact for int32)."""
    return x.astype(compute_dtype(x.dtype) if x.dtype.kind == "f" else np.float64, copy=False)


def _unary(f: Callable[[np.ndarray, Attrs], np.ndarray]) -> Kernel:
    def kernel(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
        (x,) = inputs
        return [store(fresh(f(x, attrs), x), out_types[0])]

    kernel.__doc__ = f.__doc__
    return kernel


def _relu(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """max(x, 0) (exact in any dtype)."""
    return np.maximum(x, x.dtype.type(0))


def _relu6(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """min(max(x, 0), 6)."""
    return np.clip(float_wide(x), 0, 6)


def _clip(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """min(max(x, min), max) with the f32 bounds."""
    return np.clip(float_wide(x), real(attrs, "min", -np.inf), real(attrs, "max", np.inf))


def _leaky_relu(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """x if x >= 0 else alpha * x (alpha defaults to 0.01)."""
    a = float_wide(x)
    return np.where(a >= 0, a, a * a.dtype.type(real(attrs, "alpha", 0.01)))


def _sigmoid(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """1 / (1 + exp(-x)), without overflow."""
    return sigmoid_(np.array(float_wide(x), copy=True))


def _silu(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """x * sigmoid(x)."""
    a = float_wide(x)
    return sigmoid_(np.array(a, copy=True)) * a


def _identity(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """x (a copy)."""
    return np.array(x, copy=True)


def cast(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """To the result's dtype, rounded once: floats to nearest even (overflow to inf),
    integers rint and saturate, bool `!= 0`."""
    (x,) = inputs
    return [store(fresh(cast_to(x, np.dtype(out_types[0].dtype)), x), out_types[0])]


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


KERNELS: dict[str, Kernel] = {
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
}
