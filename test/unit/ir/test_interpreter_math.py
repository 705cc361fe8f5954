"""The reference interpreter on the math ops (exp, log, tanh, erf, sqrt, rsqrt, neg,
reciprocal, gelu; div, maximum, minimum, pow) against numpy and scipy formulas written here.

Edge values follow IEEE as numpy does: log(0) = -inf, log/sqrt/rsqrt of a negative NaN,
1/0 = inf, a negative base to a non-integer power NaN; NaN propagates through maximum and
minimum.  f16 results round once from the float64 value; NC1HWC0 results have zero padding
lanes (log, rsqrt and reciprocal of a zero padding lane would not be zero).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from helpers.support import assert_close, assert_exact, const, make_module, tensor
from scipy import special  # type: ignore[import-untyped]

from ge_dialect.ir.dialects import ge
from ge_dialect.ir.interpreter import run_function
from ge_dialect.utils.tolerance import outside, tolerance_for

EDGES = np.array(
    [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-3, 3.0, -30.0, np.inf, -np.inf, np.nan], np.float64
)
"""Values every unary op sees (with random ones)."""


def _gelu_erf(x):
    return 0.5 * x * (1 + special.erf(x / np.sqrt(2)))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


UNARY: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "exp": (ge.ExpOp, np.exp),
    "log": (ge.LogOp, np.log),
    "tanh": (ge.TanhOp, np.tanh),
    "erf": (ge.ErfOp, special.erf),
    "sqrt": (ge.SqrtOp, np.sqrt),
    "rsqrt": (ge.RsqrtOp, lambda x: 1 / np.sqrt(x)),
    "neg": (ge.NegOp, np.negative),
    "reciprocal": (ge.ReciprocalOp, lambda x: 1 / x),
    "gelu": (ge.GeluOp, _gelu_erf),
    "gelu_tanh": (lambda v: ge.GeluOp(v, "tanh"), _gelu_tanh),
}

BINARY: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "div": (ge.DivOp, np.true_divide),
    "maximum": (ge.MaximumOp, np.maximum),
    "minimum": (ge.MinimumOp, np.minimum),
    "pow": (ge.PowOp, np.power),
}


def assert_ieee_close(actual: np.ndarray, expected: np.ndarray, dtype) -> None:
    """The project's rule (`ge_dialect.utils.tolerance`) where NaN matches only NaN and an
    infinity only the same infinity (`support.assert_close` takes finite references only)."""
    assert actual.dtype == np.dtype(dtype) and actual.shape == expected.shape
    bad = outside(actual, expected, tolerance_for(dtype))
    assert not bad.any(), f"{actual[bad]} where {expected[bad]} was expected"


def _unary_module(make, t):
    return make_module([t], lambda x: make(x).output)


def _expected(f, x: np.ndarray, dtype) -> np.ndarray:
    with np.errstate(all="ignore"):
        return f(x.astype(np.float64)).astype(dtype)


def _inputs(dtype, shape=(3, 16)) -> np.ndarray:
    rng = np.random.default_rng(3)
    x = rng.uniform(-3, 3, shape)
    x.flat[: EDGES.size] = EDGES
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_vs_numpy(name, dtype):
    make, f = UNARY[name]
    x = _inputs(dtype)
    (y,) = run_function(_unary_module(make, tensor(x.shape, dtype)), [x])
    expected = _expected(f, x, dtype)
    assert_ieee_close(y, expected, dtype)


def test_edge_values_are_ieee():
    x = np.array([0.0, -0.0, -1.0, 4.0, -np.inf], np.float32)
    got = {
        name: run_function(_unary_module(UNARY[name][0], tensor(x.shape, np.float32)), [x])[0]
        for name in ("log", "sqrt", "rsqrt", "reciprocal", "exp")
    }
    inf, nan = np.inf, np.nan
    np.testing.assert_array_equal(
        got["log"], np.array([-inf, -inf, nan, math.log(4.0), nan], np.float32)
    )
    np.testing.assert_array_equal(got["sqrt"], [0.0, -0.0, nan, 2.0, nan])
    np.testing.assert_array_equal(got["rsqrt"], [inf, -inf, nan, 0.5, nan])
    np.testing.assert_array_equal(got["reciprocal"], [inf, -inf, -1.0, 0.25, -0.0])
    np.testing.assert_array_equal(got["exp"], np.exp(x.astype(np.float64)).astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["f32", "f16"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_vs_numpy_with_broadcasting(name, dtype):
    make, f = BINARY[name]
    rng = np.random.default_rng(4)
    a = rng.uniform(-3, 3, (2, 3, 4)).astype(dtype)
    b = rng.uniform(0.5, 2, (3, 1)).astype(dtype)
    out_t = tensor((2, 3, 4), dtype)
    module = make_module(
        [tensor(a.shape, dtype), tensor(b.shape, dtype)], lambda x, y: make(x, y, out_t).output
    )
    (y,) = run_function(module, [a, b])
    expected = _expected(lambda p: f(p, b.astype(np.float64)), a, dtype)
    assert_ieee_close(y, expected, dtype)


def test_binary_edge_values():
    a = np.array([1.0, -1.0, 0.0, -8.0, -8.0, 0.0, np.nan, 2.0], np.float32)
    b = np.array([0.0, 0.0, 0.0, 0.5, 3.0, -1.0, 1.0, np.nan], np.float32)
    t = tensor(a.shape, np.float32)
    out = {}
    for name, (make, _) in BINARY.items():
        module = make_module([t, t], lambda x, y, make=make: make(x, y, t).output)
        out[name] = run_function(module, [a, b])[0]
    inf, nan = np.inf, np.nan
    np.testing.assert_array_equal(
        out["div"], np.array([inf, -inf, nan, -16.0, -8 / 3, -0.0, nan, nan], np.float32)
    )
    np.testing.assert_array_equal(out["pow"], [1.0, 1.0, 1.0, nan, -512.0, inf, nan, nan])
    np.testing.assert_array_equal(out["maximum"], [1.0, 0.0, 0.0, 0.5, 3.0, 0.0, nan, nan])
    np.testing.assert_array_equal(out["minimum"], [0.0, -1.0, 0.0, -8.0, -8.0, -1.0, nan, nan])


def test_maximum_and_minimum_of_int8_are_exact():
    a = np.array([-128, 5, 127], np.int8)
    b = np.array([3, 5, -1], np.int8)
    t = tensor(a.shape, np.int8)
    for make, f in ((ge.MaximumOp, np.maximum), (ge.MinimumOp, np.minimum)):
        module = make_module([t, t], lambda x, y, make=make: make(x, y, t).output)
        assert_exact(run_function(module, [a, b])[0], f(a, b))


@pytest.mark.parametrize("name", ["exp", "log", "rsqrt", "reciprocal", "gelu"])
def test_nc1hwc0_result_has_zero_padding_lanes(name):
    """17 channels in blocks of 16: 15 padding lanes, where f(0) is 1, -inf or inf."""
    make, f = UNARY[name]
    x = np.abs(np.random.default_rng(5).uniform(0.5, 2, (1, 17, 2, 2))).astype(np.float32)
    module = make_module([], lambda: make(const(x, "NC1HWC0")).output)
    (stored,) = run_function(module, [], physical=True)
    assert stored.shape == (1, 2, 2, 2, 16)
    assert not stored[:, 1, :, :, 1:].any()
    (logical,) = run_function(module, [])
    assert_close(logical, _expected(f, x, np.float32), np.float32)


def test_gelu_forms_differ():
    """The tanh form is an approximation: at x = 1 it is off by about 1.6e-4 (more than the
    f32 tolerance), so the interpreter must not compute one form for both."""
    x = np.array([1.0], np.float32)
    t = tensor(x.shape, np.float32)
    exact = run_function(_unary_module(ge.GeluOp, t), [x])[0]
    approx = run_function(_unary_module(lambda v: ge.GeluOp(v, "tanh"), t), [x])[0]
    assert abs(float(exact[0]) - _gelu_erf(1.0)) < 1e-7
    assert abs(float(approx[0]) - _gelu_tanh(1.0)) < 1e-7
    assert abs(float(exact[0] - approx[0])) > 1e-4
