"""Elementwise kernels of the simulated NPU: activations, math functions (sin and cos
included), cast, binary arithmetic (add, sub, mul, div, maximum, minimum, pow), batch norm.

Floats compute in fp32 (fp16 upcasts) and round once when stored; `store` writes zero into
the padding lanes of an NC1HWC0 result, so a function with f(0) != 0 (exp, log, rsqrt,
reciprocal, a division) leaves them zero.  IEEE results (log(0) = -inf, sqrt(-1) = NaN,
1/0 = inf) are values here, not errors: numpy's warnings for them are silenced.  erf (and
GELU's erf form) is a power series below |x| = 1 and the Abramowitz-Stegun 7.1.26 rational
approximation above; tanh is `(1 - e) / (1 + e)` with `e = exp(-2|x|)` and the sign of x.
"""

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


def _math(f: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray, Attrs], np.ndarray]:
    """A math function of an fp32 array as a unary kernel body (IEEE results silenced)."""

    def body(x: np.ndarray, attrs: Attrs) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            return f(float_wide(x))

    body.__doc__ = f.__doc__
    return body


def _rsqrt(a: np.ndarray) -> np.ndarray:
    """1 / sqrt(x): inf at 0, NaN below."""
    return np.reciprocal(np.sqrt(a))


def _reciprocal(a: np.ndarray) -> np.ndarray:
    """1 / x: inf at +-0 with its sign."""
    return np.reciprocal(a)


def _tanh(a: np.ndarray) -> np.ndarray:
    """tanh(x) = sign(x) (1 - e) / (1 + e), e = exp(-2|x|) in (0, 1]: no overflow."""
    e = np.exp(-2 * np.abs(a))
    return np.copysign((1 - e) / (1 + e), a)


_ERF_SERIES = 12
"""Terms of erf's power series below |x| = 1 (the 12th is under 1e-10)."""

# Abramowitz and Stegun 7.1.26: erf(x) = 1 - t (a1 + t (a2 + ... a5 t)) exp(-x^2),
# t = 1 / (1 + p x), absolute error below 1.5e-7 for x >= 0.
_AS_P = 0.3275911
_AS_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def _erf(a: np.ndarray) -> np.ndarray:
    """erf(x): the power series `2/sqrt(pi) sum (-1)^n x^(2n+1) / (n! (2n+1))` for
    |x| < 1 (accurate relative to small results), Abramowitz-Stegun 7.1.26 above."""
    dtype = a.dtype.type
    x = np.abs(a)
    small = x < 1
    xs = np.where(small, x, dtype(0))
    x2 = xs * xs
    term = xs.copy()  # (-1)^n x^(2n+1) / n!
    series = xs.copy()
    for n in range(1, _ERF_SERIES):
        term *= -x2 / dtype(n)
        series += term / dtype(2 * n + 1)
    series *= dtype(2 / np.sqrt(np.pi))
    t = 1 / (1 + dtype(_AS_P) * x)
    poly = np.zeros_like(x)
    for coefficient in reversed(_AS_A):
        poly = (poly + dtype(coefficient)) * t
    tail = 1 - poly * np.exp(-x * x)
    return np.copysign(np.where(small, series, tail), a)


def _gelu(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """x/2 (1 + erf(x/sqrt(2))), or with `approximate` "tanh" the tanh form
    x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    a = float_wide(x)
    dtype = a.dtype.type
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if str(attrs.get("approximate", "none")) == "tanh":
            inner = dtype(np.sqrt(2 / np.pi)) * (a + dtype(0.044715) * a * a * a)
            return dtype(0.5) * a * (1 + _tanh(inner))
        return dtype(0.5) * a * (1 + _erf(a * dtype(1 / np.sqrt(2))))


def _identity(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    """x (a copy)."""
    return np.array(x, copy=True)


def cast(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
    """To the result's dtype, rounded once: floats to nearest even (overflow to inf),
    integers rint and saturate, bool `!= 0`."""
    (x,) = inputs
    return [store(fresh(cast_to(x, np.dtype(out_types[0].dtype)), x), out_types[0])]


_BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.true_divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "pow": np.power,
}


def _binary(name: str) -> Kernel:
    ufunc = _BINARY[name]

    def kernel(inputs: Arrays, in_types: Types, out_types: Types, attrs: Attrs) -> Arrays:
        a, b = inputs
        dtype = compute_dtype(np.result_type(a.dtype, b.dtype))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return [store(ufunc(a, b, dtype=dtype), out_types[0])]

    kernel.__doc__ = (
        f"numpy's {ufunc.__name__} of the stored arrays (broadcasting their stored shapes), "
        "in fp32 for floats (IEEE: x/0 = inf, (-8) ** 0.5 = NaN), exact then saturating for "
        "integers."
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
    "exp": _unary(_math(np.exp)),
    "log": _unary(_math(np.log)),
    "tanh": _unary(_math(_tanh)),
    "erf": _unary(_math(_erf)),
    "sqrt": _unary(_math(np.sqrt)),
    "rsqrt": _unary(_math(_rsqrt)),
    "neg": _unary(_math(np.negative)),
    "reciprocal": _unary(_math(_reciprocal)),
    "gelu": _unary(_gelu),
    "cast": cast,
    "add": _binary("add"),
    "sub": _binary("sub"),
    "mul": _binary("mul"),
    "div": _binary("div"),
    "maximum": _binary("maximum"),
    "minimum": _binary("minimum"),
    "pow": _binary("pow"),
}

# Trigonometry (rotary embeddings): numpy's sin and cos in fp32.
KERNELS["sin"] = _unary(_math(np.sin))
KERNELS["cos"] = _unary(_math(np.cos))
