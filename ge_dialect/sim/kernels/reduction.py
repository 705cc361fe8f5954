"""Reduction and normalisation kernels of the simulated NPU: softmax, reduce_sum,
reduce_mean, reduce_max, reduce_min, layer_norm, rms_norm.

All work on default-layout (ND) operands.  Float reductions and statistics compute in
fp32 (fp16 upcasts, so it accumulates in fp32) and round once; integer max/min are exact.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ge_dialect.sim.kernels.base import (
    Arrays,
    Attrs,
    Kernel,
    Types,
    compute_dtype,
    flag,
    integer,
    ints,
    real,
    store,
    wide,
)


def softmax(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """exp(x - max) / sum(exp(x - max)) along `axis`, in fp32."""
    (x,) = inputs
    axis = integer(attrs, "axis", -1)
    e = np.array(x, dtype=compute_dtype(x.dtype), copy=True)
    e -= e.max(axis=axis, keepdims=True)
    np.exp(e, out=e)
    e /= e.sum(axis=axis, keepdims=True)
    return [store(e, out_types[0])]


KERNELS: dict[str, Kernel] = {"softmax": softmax}


def _axes(x: np.ndarray, attrs: Attrs) -> tuple[int, ...]:
    """The reduced axes: attribute `axes`, empty meaning every axis."""
    return ints(attrs, "axes", ()) or tuple(range(x.ndim))


def _reduce(name: str, f: Callable[..., np.ndarray]) -> Kernel:
    """A reduction kernel over `axes`: floats in fp32 (fp16 accumulates in fp32), integers
    exact in int64."""

    def kernel(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
        (x,) = inputs
        y = f(wide(x), axis=_axes(x, attrs), keepdims=flag(attrs, "keepdims"))
        return [store(np.array(y), out_types[0])]

    kernel.__name__ = kernel.__qualname__ = name
    kernel.__doc__ = f"reduce_{name[7:]} over `axes` (empty: all), `keepdims` keeps them as 1."
    return kernel


def _normalised(x: np.ndarray, attrs: Attrs) -> tuple[np.ndarray, tuple[int, ...]]:
    """`x` in its compute dtype and the normalised axes [axis, rank)."""
    xf = wide(x)
    return xf, tuple(range(integer(attrs, "axis", -1) % x.ndim, x.ndim))


def layer_norm(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """(x - mean) / sqrt(var + eps) * weight + bias over [axis, rank); fp32 statistics in
    two passes (the mean, then the mean of squared deviations)."""
    x, *params = inputs
    xf, axes = _normalised(x, attrs)
    eps = np.float32(real(attrs, "epsilon", 1e-5))
    d = xf - xf.mean(axis=axes, keepdims=True, dtype=xf.dtype)
    var = (d * d).mean(axis=axes, keepdims=True, dtype=xf.dtype)
    y = d / np.sqrt(var + eps)
    if params:  # the weight; a bias only ever comes with one
        y *= wide(params[0])
    if len(params) > 1:
        y += wide(params[1])
    return [store(y, out_types[0])]


def rms_norm(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """x * rsqrt(mean(x^2) + eps) * weight over [axis, rank), in fp32."""
    x, w = inputs
    xf, axes = _normalised(x, attrs)
    eps = np.float32(real(attrs, "epsilon", 1e-6))
    ms = (xf * xf).mean(axis=axes, keepdims=True, dtype=xf.dtype)
    y = xf / np.sqrt(ms + eps) * wide(w)
    return [store(y, out_types[0])]


KERNELS.update(
    {
        "reduce_sum": _reduce("reduce_sum", np.sum),
        "reduce_mean": _reduce("reduce_mean", np.mean),
        "reduce_max": _reduce("reduce_max", np.max),
        "reduce_min": _reduce("reduce_min", np.min),
        "layer_norm": layer_norm,
        "rms_norm": rms_norm,
    }
)
