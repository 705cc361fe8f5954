"""The reduction and normalisation kernels (reduce_sum/mean/max/min, layer_norm, rms_norm)
against the reference interpreter, the interpreter against numpy formulas written here,
their cost, the builder's errors, and one `ge-run --check-numbers` run through the whole
pipeline.

The kernels compute in fp32 (fp16 upcasts: sums accumulate in fp32) with two-pass layer norm
statistics; the interpreter computes in float64 with `np.var`; the formulas here are a
third spelling (explicit sums and divisions).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers.support import assert_close
from xdsl.dialects.builtin import TensorType

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir import cost
from ge_dialect.ir.dialects import ge
from ge_dialect.ir.interpreter import run_function
from ge_dialect.sim.kernels import Operand, run_kernel
from ge_dialect.utils.errors import GeError

FLOATS = [np.float32, np.float16]
SHAPE = (2, 3, 5)


def rand(shape, dtype, seed=0, lo=-2.0, hi=2.0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype(dtype)


def nd(a: np.ndarray) -> Operand:
    return Operand(tuple(a.shape), a.dtype, "ND")


def interpret(build, inputs: list[np.ndarray]) -> tuple[np.ndarray, TensorType]:
    """Builds `build(builder, *input_handles)` with the builder, runs the interpreter; the
    output and its type."""
    b = GraphBuilder()
    handles = [b.input(f"x{i}", a.shape, a.dtype) for i, a in enumerate(inputs)]
    y = build(b, *handles)
    module = b.build([y])
    t = y.type
    assert isinstance(t, TensorType)
    (out,) = run_function(module, inputs)
    return out, t


def kernel(name: str, inputs: list[np.ndarray], out: np.ndarray, attrs) -> np.ndarray:
    (y,) = run_kernel(name, inputs, [nd(a) for a in inputs], [nd(out)], attrs)
    return y


# --------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------

REDUCTIONS = {
    "sum": lambda x, axes, keep: _explicit(x, axes, keep, "sum"),
    "mean": lambda x, axes, keep: (
        _explicit(x, axes, keep, "sum") / np.prod([x.shape[a] for a in (axes or range(x.ndim))])
    ),
    "max": lambda x, axes, keep: _explicit(x, axes, keep, "max"),
    "min": lambda x, axes, keep: _explicit(x, axes, keep, "min"),
}


def _explicit(x: np.ndarray, axes, keep: bool, how: str) -> np.ndarray:
    """The reduction by moving the reduced axes last and folding them one element at a time."""
    axes = list(axes) or list(range(x.ndim))
    kept = [a for a in range(x.ndim) if a not in axes]
    flat = np.transpose(x.astype(np.float64), kept + axes).reshape(
        [x.shape[a] for a in kept] + [-1]
    )
    acc = flat[..., 0].copy()
    for i in range(1, flat.shape[-1]):
        v = flat[..., i]
        acc = (
            acc + v if how == "sum" else np.maximum(acc, v) if how == "max" else np.minimum(acc, v)
        )
    if keep:
        acc = acc.reshape([1 if a in axes else d for a, d in enumerate(x.shape)])
    return acc


CASES = [([2], True), ([-1], False), ([0, 2], False), ([1, 0], True), ([], False), ([], True)]


@pytest.mark.parametrize("kind", sorted(REDUCTIONS))
@pytest.mark.parametrize("axes,keep", CASES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_reduce_interpreter_and_kernel(kind, axes, keep, dtype):
    x = rand(SHAPE, dtype)
    got, t = interpret(lambda b, h: b.reduce(kind, h, axes, keep), [x])
    norm = sorted(a % x.ndim for a in axes)
    expected = REDUCTIONS[kind](x, norm, keep).astype(dtype)
    assert got.shape == expected.shape == tuple(t.get_shape())
    assert_close(got, expected, dtype)
    attrs = {"axes": norm, "keepdims": keep}
    assert_close(kernel(f"reduce_{kind}", [x], got, attrs), got, dtype)


def test_reduce_over_every_axis_is_rank_0():
    x = rand(SHAPE, np.float32)
    got, t = interpret(lambda b, h: b.reduce("sum", h), [x])
    assert t.get_shape() == () and got.shape == ()
    assert_close(got, np.asarray(x.astype(np.float64).sum(), np.float32), np.float32)


def test_fp16_sum_accumulates_in_fp32():
    # 4096 ones in fp16 and one 0.5: an fp16 running sum stops at 2048 (ulp 2 there).
    x = np.ones((4097,), np.float16)
    x[-1] = 0.5
    (y,) = run_kernel(
        "reduce_sum", [x], [nd(x)], [Operand((), np.dtype(np.float16), "ND")], {"axes": []}
    )
    assert y.dtype == np.float16 and float(y) == 4096.0  # 4096.5 rounds to 4096 in fp16
    naive = np.float16(0)
    for v in x[:3000]:
        naive = np.float16(naive + v)
    assert float(naive) == 2048.0  # what an fp16 accumulator would give


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
def test_reduce_max_min_int8_exact(kind, dtype):
    x = (
        np.random.default_rng(3)
        .integers(0 if dtype == np.uint8 else -128, 127, SHAPE)
        .astype(dtype)
    )
    got, _ = interpret(lambda b, h: b.reduce(kind, h, [1]), [x])
    expected = x.max(axis=1) if kind == "max" else x.min(axis=1)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(
        kernel(f"reduce_{kind}", [x], got, {"axes": [1], "keepdims": False}), expected
    )


def test_reduce_builder_errors():
    b = GraphBuilder()
    x = b.input("x", SHAPE)
    with pytest.raises(GeError, match=r"^error: axis 3 is out of range for rank 3$"):
        b.reduce("sum", x, [3])
    with pytest.raises(GeError, match=r"^error: axes \[1, -2\] name a dim twice$"):
        b.reduce("mean", x, [1, -2])
    with pytest.raises(
        GeError, match=r"^error: unknown reduction 'prod' \(sum, mean, max or min\)$"
    ):
        b.reduce("prod", x, [0])
    i = b.input("i", SHAPE, "i8")
    with pytest.raises(GeError, match="operand 'input' must be f16 or f32, got i8"):
        b.build([b.reduce("sum", i, [0])])


# --------------------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------------------


def layer_norm_formula(x, w, b, axis, eps):
    x = x.astype(np.float64)
    axes = tuple(range(axis, x.ndim))
    n = np.prod(x.shape[axis:])
    mean = x.sum(axis=axes, keepdims=True) / n
    var = ((x - mean) ** 2).sum(axis=axes, keepdims=True) / n
    y = (x - mean) / np.sqrt(var + eps)
    if w is not None:
        y = y * w.astype(np.float64)
    if b is not None:
        y = y + b.astype(np.float64)
    return y


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("axis", [1, -1, 0])
@pytest.mark.parametrize("params", ["both", "weight", "none", "bias"])
def test_layer_norm(dtype, axis, params):
    x = rand(SHAPE, dtype, lo=-3, hi=5)  # a non-zero mean
    norm = SHAPE[axis % 3 :]
    w = rand(norm, dtype, seed=1) if params in ("both", "weight") else None
    bias = rand(norm, dtype, seed=2) if params in ("both", "bias") else None
    inputs = [x] + [a for a in (w, bias) if a is not None]

    def build(b, h, *ps):
        it = iter(ps)
        hw = next(it) if w is not None else None
        hb = next(it) if bias is not None else None
        return b.layer_norm(h, hw, hb, axis, 1e-3)

    got, _ = interpret(build, inputs)
    expected = layer_norm_formula(x, w, bias, axis % 3, np.float32(1e-3))
    assert_close(got, expected.astype(dtype), dtype)
    # A bias alone is given a weight of ones by the builder: the kernel sees both.
    kin = inputs if bias is None or w is not None else [x, np.ones(norm, dtype), bias]
    attrs = {"axis": axis % 3, "epsilon": 1e-3}
    assert_close(kernel("layer_norm", kin, got, attrs), got, dtype)


def test_layer_norm_kernel_statistics_are_two_pass():
    # A large common offset: one-pass E[x^2] - E[x]^2 in fp32 cancels catastrophically.
    x = (300 + rand((4, 64), np.float32, lo=-1, hi=1)).astype(np.float32)
    expected = layer_norm_formula(x, None, None, 1, 1e-5).astype(np.float32)
    got = kernel("layer_norm", [x], x, {"axis": 1, "epsilon": 1e-5})
    assert_close(got, expected, np.float32)
    mean = x.mean(axis=1, keepdims=True, dtype=np.float32)
    one_pass = (x * x).mean(axis=1, keepdims=True, dtype=np.float32) - mean * mean
    with pytest.raises(AssertionError, match="out of tolerance"):
        assert_close((x - mean) / np.sqrt(one_pass + np.float32(1e-5)), expected, np.float32)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("axis", [2, 1])
def test_rms_norm(dtype, axis):
    x = rand(SHAPE, dtype)
    w = rand(SHAPE[axis:], dtype, seed=1)
    got, _ = interpret(lambda b, h, hw: b.rms_norm(h, hw, axis, 1e-6), [x, w])
    xf = x.astype(np.float64)
    axes = tuple(range(axis, 3))
    ms = (xf * xf).sum(axis=axes, keepdims=True) / np.prod(SHAPE[axis:])
    expected = xf * (1 / np.sqrt(ms + np.float32(1e-6))) * w.astype(np.float64)
    assert_close(got, expected.astype(dtype), dtype)
    assert_close(kernel("rms_norm", [x, w], got, {"axis": axis, "epsilon": 1e-6}), got, dtype)


# --------------------------------------------------------------------------------------
# Cost
# --------------------------------------------------------------------------------------


def test_cost_counts_input_elements_on_the_vector_unit():
    b = GraphBuilder()
    x = b.input("x", (4, 1024), "f16")
    w = b.input("w", (1024,), "f16")
    outs = [b.reduce("sum", x, [1]), b.layer_norm(x, w, w, 1), b.rms_norm(x, w, 1)]
    module = b.build(outs)
    ops = {op.name: op for op in module.walk() if op.name.startswith("ge.")}
    s = cost.op_cost(ops["ge.reduce_sum"])
    assert s == cost.OpCost(4096, 8192, 8, "vector", 1)
    ln = cost.op_cost(ops["ge.layer_norm"])
    assert (ln.flops, ln.bytes_in, ln.bytes_out, ln.unit) == (7 * 4096, 8192 + 4096, 8192, "vector")
    rms = cost.op_cost(ops["ge.rms_norm"])
    assert (rms.flops, rms.bytes_in, rms.unit) == (4 * 4096, 8192 + 2048, "vector")


# --------------------------------------------------------------------------------------
# End to end
# --------------------------------------------------------------------------------------

GRAPH = """
func.func @main(%x: tensor<2x3x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<2x3x1xf32>, tensor<1x1x1xf32>, tensor<3xf32>, tensor<2x8xf32>,
        tensor<2x3x8xf32>, tensor<2x3x8xf32>) {
  %0 = ge.reduce_sum %x axes [2] keepdims : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %1 = ge.reduce_mean %x axes [] keepdims : tensor<2x3x8xf32> -> tensor<1x1x1xf32>
  %2 = ge.reduce_max %x axes [0, 2] : tensor<2x3x8xf32> -> tensor<3xf32>
  %3 = ge.reduce_min %x axes [1] : tensor<2x3x8xf32> -> tensor<2x8xf32>
  %4 = ge.layer_norm %x weight %w bias %b axis 2 : tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>
  %5 = ge.rms_norm %4, %w axis 2 : tensor<2x3x8xf32>, tensor<8xf32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<2x3x1xf32>, tensor<1x1x1xf32>, tensor<3xf32>,
      tensor<2x8xf32>, tensor<2x3x8xf32>, tensor<2x3x8xf32>
}
"""


@pytest.mark.parametrize("dtype", ["f32", "f16"])
def test_ge_run_check_numbers(dtype, tmp_path, capsys):
    from ge_dialect.tools.ge_run import main as ge_run

    text = GRAPH.replace("f32", dtype)
    path = tmp_path / "reduction.mlir"
    path.write_text(text)
    assert ge_run([str(path), "--check-numbers", "--report", "json"]) == 0
    checks = json.loads(capsys.readouterr().out)["checks"]
    assert len(checks) == 6 and all(c["within_tolerance"] for c in checks)
    module = api.parse(text, "reduction.mlir")
    api.compile(module, api.DEFAULT_PIPELINE)
    kinds = sorted(op.name for op in module.walk() if op.name.startswith("ge.") and "_" in op.name)
    assert kinds == [
        "ge.layer_norm",
        "ge.reduce_max",
        "ge.reduce_mean",
        "ge.reduce_min",
        "ge.reduce_sum",
        "ge.rms_norm",
    ]
    assert isinstance(ge.LayerNormOp, type)


def test_a_reduction_to_a_scalar_is_a_rank_0_output(tmp_path, capsys):
    from ge_dialect.tools.ge_run import main as ge_run

    path = tmp_path / "scalar.mlir"
    path.write_text(
        "func.func @main(%x: tensor<2x3xf32>) -> tensor<f32> {\n"
        "  %y = ge.reduce_sum %x axes [] : tensor<2x3xf32> -> tensor<f32>\n"
        "  func.return %y : tensor<f32>\n}\n"
    )
    assert ge_run([str(path), "--check-numbers"]) == 0
    out = capsys.readouterr().out
    assert "result0: shape [] float32" in out
    assert "check result0: max |error|" in out
