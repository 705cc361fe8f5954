"""Comparisons, logic, where, sin and cos: the reference interpreter against numpy formulas
written here, the simulator's kernels against the interpreter, and `ge-run --check-numbers`
on a graph of all of them (with an i1 graph input and i1 results).

Comparisons follow IEEE: NaN is unequal to everything (itself included), so `not_equal` is
true and every other comparison false when either operand is NaN.
"""

from __future__ import annotations

import json
import operator

import numpy as np
import pytest
from helpers.support import make_module, tensor

from ge_dialect.ir.cost import op_cost
from ge_dialect.ir.dialects import ge
from ge_dialect.ir.interpreter import run_function
from ge_dialect.sim.kernels import Operand, run_kernel
from ge_dialect.utils import layout

COMPARISONS = {
    "equal": (ge.EqualOp, operator.eq),
    "not_equal": (ge.NotEqualOp, operator.ne),
    "less": (ge.LessOp, operator.lt),
    "less_equal": (ge.LessEqualOp, operator.le),
    "greater": (ge.GreaterOp, operator.gt),
    "greater_equal": (ge.GreaterEqualOp, operator.ge),
}
"""Kernel name -> (op class, the Python operator it must agree with element by element)."""

DTYPES = [np.float16, np.float32, np.int8, np.uint8, np.int32, np.int64, np.bool_]


def _values(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """Small values with many ties (so equal is sometimes true)."""
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    lo = 0 if np.dtype(dtype).kind == "u" else -3
    return rng.integers(lo, 4, shape).astype(dtype)


def _interpret(op_class, arrays: list[np.ndarray]) -> np.ndarray:
    types = [tensor(a.shape, a.dtype) for a in arrays]
    module = make_module(types, lambda *args: op_class(*args).output)
    (out,) = run_function(module, arrays)
    return out


def _operand(a: np.ndarray) -> Operand:
    return Operand(tuple(a.shape), a.dtype, "ND", layout.default_c0(a.dtype.itemsize), 1)


def _kernel(name: str, arrays: list[np.ndarray], out_shape, out_dtype) -> np.ndarray:
    out = np.empty(out_shape, out_dtype)
    (result,) = run_kernel(name, arrays, [_operand(a) for a in arrays], [_operand(out)], {})
    return result


def _expected(fn, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`fn` element by element on Python numbers (no numpy comparison involved)."""
    a2, b2 = np.broadcast_arrays(a, b)
    flat = [bool(fn(x.item(), y.item())) for x, y in zip(a2.ravel(), b2.ravel(), strict=True)]
    return np.array(flat, bool).reshape(a2.shape)


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_comparisons_interpreter_and_kernel(name, dtype):
    op_class, fn = COMPARISONS[name]
    rng = np.random.default_rng(31)
    a = _values(rng, (3, 1, 5), dtype)
    b = _values(rng, (4, 1), dtype)
    expected = _expected(fn, a, b)
    interp = _interpret(op_class, [a, b])
    assert interp.dtype == np.bool_ and interp.shape == (3, 4, 5)
    np.testing.assert_array_equal(interp, expected)
    np.testing.assert_array_equal(_kernel(name, [a, b], (3, 4, 5), bool), expected)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_comparisons_of_nan_and_infinities_are_ieee(name, dtype):
    op_class, fn = COMPARISONS[name]
    a = np.array([np.nan, np.nan, 1.0, np.inf, -np.inf, 0.0, -0.0], dtype)
    b = np.array([np.nan, 1.0, np.nan, np.inf, np.inf, -0.0, 0.0], dtype)
    expected = _expected(fn, a, b)  # Python floats: NaN unequal to all, -0.0 == 0.0
    assert expected[:3].tolist() == [name == "not_equal"] * 3
    np.testing.assert_array_equal(_interpret(op_class, [a, b]), expected)
    np.testing.assert_array_equal(_kernel(name, [a, b], a.shape, bool), expected)


def test_f16_compares_exactly():
    """Neighbouring f16 values (one ulp apart) compare as unequal and ordered."""
    a = np.array([1.0, 2048.0], np.float16)
    b = np.nextafter(a, np.float16(np.inf))
    assert _kernel("less", [a, b], a.shape, bool).tolist() == [True, True]
    assert _interpret(ge.EqualOp, [a, b]).tolist() == [False, False]


def test_logic_interpreter_and_kernels():
    rng = np.random.default_rng(32)
    p = rng.integers(0, 2, (4, 6)).astype(bool)
    q = rng.integers(0, 2, (1, 6)).astype(bool)
    cases = [
        ("logical_not", ge.LogicalNotOp, [p], ~p),
        ("logical_and", ge.LogicalAndOp, [p, q], p & q),
        ("logical_or", ge.LogicalOrOp, [p, q], p | q),
    ]
    for name, op_class, args, expected in cases:
        np.testing.assert_array_equal(_interpret(op_class, args), expected)
        np.testing.assert_array_equal(_kernel(name, args, expected.shape, bool), expected)
    out = _kernel("logical_not", [p], p.shape, bool)
    assert not np.shares_memory(out, p)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int64, np.int8, np.bool_])
def test_where_broadcasts_three_ways(dtype):
    rng = np.random.default_rng(33)
    c = rng.integers(0, 2, (4, 1)).astype(bool)
    a = _values(rng, (1, 5), dtype)
    b = _values(rng, (), dtype)
    expected = np.array([[a[0, j] if c[i, 0] else b for j in range(5)] for i in range(4)], dtype)
    np.testing.assert_array_equal(_interpret(ge.WhereOp, [c, a, b]), expected)
    out = _kernel("where", [c, a, b], (4, 5), dtype)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out, expected)


def test_where_keeps_nan_and_signed_zero():
    c = np.array([True, False, True, False])
    a = np.array([np.nan, 1.0, -0.0, 2.0], np.float32)
    b = np.array([5.0, np.nan, 3.0, -0.0], np.float32)
    for out in (_interpret(ge.WhereOp, [c, a, b]), _kernel("where", [c, a, b], (4,), np.float32)):
        assert np.isnan(out[0]) and np.isnan(out[1])
        assert np.signbit(out[2]) and np.signbit(out[3])


@pytest.mark.parametrize("fmt", [None, "NC1HWC0"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("name", ["sin", "cos"])
def test_sin_cos(name, dtype, fmt):
    """Against math.sin/cos; stored NC1HWC0 results keep zero padding lanes (cos(0) = 1)."""
    import math

    op_class = {"sin": ge.SinOp, "cos": ge.CosOp}[name]
    f = {"sin": math.sin, "cos": math.cos}[name]
    rng = np.random.default_rng(34)
    x = rng.uniform(-10, 10, (1, 17, 2, 3)).astype(dtype)
    x.flat[:5] = [0.0, np.pi, 1e4, np.inf, np.nan]
    t = tensor(x.shape, dtype, fmt)
    module = make_module([t], lambda v: op_class(v).output)
    stored = ge.to_physical(t, x)
    (phys,) = run_function(module, [stored], physical=True)
    logical = ge.to_logical(t, phys)
    expected = np.array([f(v) if math.isfinite(v) else math.nan for v in x.ravel().tolist()])
    rtol = 1e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(logical.ravel(), expected, rtol=rtol, atol=rtol)
    c0 = layout.default_c0(np.dtype(dtype).itemsize)
    operand = Operand(x.shape, np.dtype(dtype), fmt or "NCHW", c0, 1)
    (kernel,) = run_kernel(name, [stored], [operand], [operand], {})
    np.testing.assert_allclose(kernel, phys, rtol=rtol, atol=rtol)
    if fmt:
        assert not kernel[:, 1, :, :, 1:].any() and not phys[:, 1, :, :, 1:].any()


def test_cost():
    types = [tensor((4, 8), np.float32)]
    module = make_module(types, lambda x: ge.SinOp(x).output)
    (sin,) = [op for op in module.walk() if isinstance(op, ge.SinOp)]
    assert op_cost(sin).flops == 4 * 32
    module = make_module(types * 2, lambda x, y: ge.LessOp(x, y).output)
    (less,) = [op for op in module.walk() if isinstance(op, ge.LessOp)]
    cost = op_cost(less)
    assert (cost.flops, cost.bytes_out) == (32, 32)  # i1 is one byte


GRAPH = """\
func.func @main(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %k: tensor<4x8xi1>)
    -> (tensor<4x8xf32>, tensor<4x8xi1>) {
  %s = ge.sin %x : tensor<4x8xf32>
  %c = ge.cos %y : tensor<8xf32>
  %lt = ge.less %s, %c : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %le = ge.less_equal %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %gt = ge.greater %x, %y : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xi1>
  %ge = ge.greater_equal %s, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %eq = ge.equal %lt, %k : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %ne = ge.not_equal %le, %gt : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %n = ge.logical_not %eq : tensor<4x8xi1>
  %a = ge.logical_and %n, %ne : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %o = ge.logical_or %a, %ge : (tensor<4x8xi1>, tensor<4x8xi1>) -> tensor<4x8xi1>
  %w = ge.where %o, %s, %c : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  func.return %w, %o : tensor<4x8xf32>, tensor<4x8xi1>
}
"""


@pytest.mark.parametrize("level", ["0", "1"])
def test_ge_run_check_numbers(level, tmp_path, capsys):
    from ge_dialect.tools.ge_run import main as ge_run

    path = tmp_path / "compare.mlir"
    path.write_text(GRAPH)
    assert ge_run([str(path), "-O", level, "--check-numbers", "--report", "json"]) == 0
    checks = json.loads(capsys.readouterr().out)["checks"]
    assert len(checks) == 2 and all(c["within_tolerance"] for c in checks)
