"""The MoE and MLP kernels (topk, scatter_add, swi_glu, moe_gating_top_k, grouped_matmul)
and their interpreter implementations against plain-Python references written here, the
tie rule of top-k, out-of-range scatter indices, their cost, the builder's errors, and the
whole pipeline (lowering, planning, the simulator) against the interpreter.

Three spellings: the kernels select top-k by a `np.partition` threshold and accumulate
scatter-adds with `np.bincount`; the interpreter sorts fully and uses `np.add.at`; the
references here sort Python lists by (value, index) and add in loops.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.support import assert_close

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir import cost
from ge_dialect.ir.dialects import ge, npu
from ge_dialect.ir.interpreter import run_function
from ge_dialect.sim.kernels import Operand, run_kernel
from ge_dialect.sim.kernels.indexing import IndexOutOfRange
from ge_dialect.utils.errors import GeError

FLOATS = [np.float32, np.float16]


def rand(shape, dtype, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)


def nd(a: np.ndarray) -> Operand:
    return Operand(tuple(a.shape), a.dtype, "ND")


def interpret(build, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The interpreter's outputs of `build(builder, *inputs)` (a handle or a tuple)."""
    b = GraphBuilder()
    handles = [b.input(f"x{i}", a.shape, a.dtype) for i, a in enumerate(inputs)]
    out = build(b, *handles)
    outs = list(out) if isinstance(out, tuple) else [out]
    return run_function(b.build(outs), inputs)


def kernel(name: str, inputs: list[np.ndarray], like: list[np.ndarray], attrs) -> list:
    return run_kernel(name, inputs, [nd(a) for a in inputs], [nd(a) for a in like], attrs)


# --------------------------------------------------------------------------------------
# References
# --------------------------------------------------------------------------------------


def ref_topk(x: np.ndarray, k: int, axis: int, largest: bool, ordered: bool):
    """Each line along `axis` as a Python list sorted by (better value, lower index)."""
    moved = np.moveaxis(x.astype(np.float64), axis, -1)
    values = np.empty((*moved.shape[:-1], k))
    ids = np.empty((*moved.shape[:-1], k), dtype=np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        line = list(moved[pos])
        order = sorted(range(len(line)), key=lambda i: (-line[i] if largest else line[i], i))
        chosen = order[:k] if ordered else sorted(order[:k])
        ids[pos] = chosen
        values[pos] = [line[i] for i in chosen]
    return np.moveaxis(values, -1, axis), np.moveaxis(ids, -1, axis)


def ref_scatter_add(data, indices, updates, axis):
    out = data.astype(np.float64).copy()
    for pos in np.ndindex(*indices.shape):
        target = list(pos)
        i = int(indices[pos])
        target[axis] = i + data.shape[axis] if i < 0 else i
        out[tuple(target)] += float(updates[pos])
    return out


def ref_swi_glu(x, dim):
    half = x.shape[dim] // 2
    a = np.take(x.astype(np.float64), range(half), axis=dim)
    b = np.take(x.astype(np.float64), range(half, 2 * half), axis=dim)
    return a / (1 + np.exp(-a)) * b


def ref_gating(x, k, norm, renorm):
    x = x.astype(np.float64)
    if norm == "softmax":
        p = np.exp(x - x.max(axis=-1, keepdims=True))
        p = p / p.sum(axis=-1, keepdims=True)
    else:
        p = 1 / (1 + np.exp(-x))
    w, ids = ref_topk(p, k, x.ndim - 1, largest=True, ordered=True)
    if renorm:
        w = w / w.sum(axis=-1, keepdims=True)
    return w, ids


def ref_grouped(x, w):
    e, t, k = x.shape
    n = w.shape[2]
    out = np.zeros((e, t, n))
    for g in range(e):
        for i in range(t):
            for j in range(n):
                out[g, i, j] = sum(float(x[g, i, c]) * float(w[g, c, j]) for c in range(k))
    return out


# --------------------------------------------------------------------------------------
# topk
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("ordered", [True, False])
def test_topk(dtype, axis, largest, ordered):
    x = rand((3, 5, 6), dtype, seed=axis)
    k = 2
    values, ids = ref_topk(x, k, axis, largest, ordered)
    got_v, got_i = interpret(lambda b, h: b.topk(h, k, axis, largest, ordered), [x])
    kv, ki = kernel(
        "topk", [x], [got_v, got_i], {"k": k, "axis": axis, "largest": largest, "sorted": ordered}
    )
    for v, i in ((got_v, got_i), (kv, ki)):
        np.testing.assert_array_equal(i, ids)
        np.testing.assert_array_equal(v, values.astype(dtype))  # the chosen elements, exactly


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("ordered", [True, False])
def test_topk_ties_go_to_the_lower_index(largest, ordered):
    # many equal values, some at the k-th place: the lower indices win, in index order
    x = np.array([[1, 3, 3, 2, 3, 3, 1, 2], [5, 5, 5, 5, 5, 5, 5, 5]], np.float32)
    k = 3
    values, ids = ref_topk(x, k, 1, largest, ordered)
    expected = [[1, 2, 4], [0, 1, 2]] if largest else [[0, 6, 3], [0, 1, 2]]
    if not ordered:
        expected = [sorted(row) for row in expected]
    np.testing.assert_array_equal(ids, expected)  # the reference itself
    got_v, got_i = interpret(lambda b, h: b.topk(h, k, 1, largest, ordered), [x])
    kv, ki = kernel(
        "topk", [x], [got_v, got_i], {"k": k, "axis": 1, "largest": largest, "sorted": ordered}
    )
    np.testing.assert_array_equal(got_i, expected)
    np.testing.assert_array_equal(ki, expected)
    np.testing.assert_array_equal(kv, got_v)


@pytest.mark.parametrize("largest", [1, 0])
def test_topk_ties_as_onnxruntime(largest):
    # ONNX TopK: "if two elements are equal, the one with the lower index appears first"
    # (torch.topk on CPU leaves the order of ties unspecified)
    onnx_ref = pytest.importorskip("helpers.onnx_ref")
    helper = pytest.importorskip("onnx.helper")
    x = np.array([[0.5, 0.25, 0.5, 0.5, 0.25, 0.125], [1, 1, 1, 0, 0, 0]], np.float32)
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=largest)
    v, i = onnx_ref.run_graph(
        [node], {"x": x}, {"v": np.float32, "i": np.int64}, {"k": np.array([4], np.int64)}
    )
    got_v, got_i = interpret(lambda b, h: b.topk(h, 4, 1, bool(largest)), [x])
    kv, ki = kernel(
        "topk", [x], [got_v, got_i], {"k": 4, "axis": 1, "largest": bool(largest), "sorted": True}
    )
    for gv, gi in ((got_v, got_i), (kv, ki)):
        np.testing.assert_array_equal(gi, i)
        np.testing.assert_array_equal(gv, v)


# --------------------------------------------------------------------------------------
# scatter_add
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("axis", [0, 1])
def test_scatter_add_with_repeats_and_negative_indices(dtype, axis):
    data = rand((4, 6), dtype, seed=1)
    shape = (3, 5) if axis == 0 else (4, 3)
    size = data.shape[axis]
    indices = np.random.default_rng(2).integers(-size, size, shape).astype(np.int64)
    indices.flat[0] = indices.flat[1] = 1  # a repeat adds twice
    updates = rand(shape, dtype, seed=3)
    expected = ref_scatter_add(data, indices, updates, axis)
    (got,) = interpret(lambda b, d, i, u: b.scatter_add(d, i, u, axis), [data, indices, updates])
    (k,) = kernel("scatter_add", [data, indices, updates], [data], {"axis": axis})
    assert_close(got, expected, dtype)
    assert_close(k, expected, dtype)


def test_scatter_add_index_out_of_range():
    data, updates = np.zeros((2, 4), np.float32), np.ones((2, 1), np.float32)
    indices = np.array([[1], [4]], np.int64)
    with pytest.raises(IndexOutOfRange, match=r"indices hold 4 at \[1, 0\], out of range"):
        kernel("scatter_add", [data, indices, updates], [data], {"axis": 1})
    with pytest.raises(GeError, match=r"'ge.scatter_add' op indices hold 4 at \[1, 0\]"):
        interpret(lambda b, d, i, u: b.scatter_add(d, i, u, 1), [data, indices, updates])


# --------------------------------------------------------------------------------------
# swi_glu, moe_gating_top_k, grouped_matmul
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", [0, 2])
def test_swi_glu(dtype, dim):
    x = rand((4, 3, 6), dtype, seed=dim)
    expected = ref_swi_glu(x, dim)
    (got,) = interpret(lambda b, h: b.swi_glu(h, dim), [x])
    (k,) = kernel("swi_glu", [x], [got], {"dim": dim})
    assert_close(got, expected, dtype)
    assert_close(k, expected, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("norm", ["softmax", "sigmoid"])
@pytest.mark.parametrize("renorm", [True, False])
def test_moe_gating_top_k(dtype, norm, renorm):
    x = rand((7, 5), dtype, seed=4)
    x[0, :] = 0.5  # all experts tie: the lowest ids win
    w, ids = ref_gating(x, 2, norm, renorm)
    got_w, got_i = interpret(lambda b, h: b.moe_gating_top_k(h, 2, norm, renorm), [x])
    kw, ki = kernel(
        "moe_gating_top_k", [x], [got_w, got_i], {"k": 2, "norm": norm, "renorm": renorm}
    )
    np.testing.assert_array_equal(ids[0], [0, 1])
    for gw, gi in ((got_w, got_i), (kw, ki)):
        np.testing.assert_array_equal(gi, ids)
        assert_close(gw, w, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_grouped_matmul(dtype):
    x, w = rand((3, 4, 5), dtype, seed=5), rand((3, 5, 2), dtype, seed=6)
    expected = ref_grouped(x, w)
    (got,) = interpret(lambda b, a, c: b.grouped_matmul(a, c), [x, w])
    (k,) = kernel("grouped_matmul", [x, w], [got], {})
    assert_close(got, expected, dtype)
    assert_close(k, expected, dtype)


# --------------------------------------------------------------------------------------
# Cost, builder errors, the whole pipeline
# --------------------------------------------------------------------------------------


def test_cost():
    b = GraphBuilder()
    x = b.input("x", [4, 8, 16])
    w = b.input("w", [4, 16, 32])
    logits = b.input("l", [8, 4])
    y = b.grouped_matmul(x, w)
    g, _ = b.moe_gating_top_k(logits, 2, renorm=True)
    v, _ = b.topk(logits, 2)
    s = b.swi_glu(w)
    module = b.build([y, g, v, s])
    ops = {op.name: op for op in module.walk()}
    gm = cost.op_cost(ops["ge.grouped_matmul"])
    assert (gm.flops, gm.unit, gm.blocks) == (2 * 4 * 8 * 16 * 32, "cube", 4 * 1 * 2)
    # top 2 of 32 elements: 2 compares each; the gating adds the softmax's 5 and 2 per weight
    assert cost.op_cost(ops["ge.topk"]).flops == 2 * 32
    assert cost.op_cost(ops["ge.moe_gating_top_k"]).flops == 2 * 32 + 5 * 32 + 2 * 16
    assert cost.op_cost(ops["ge.swi_glu"]).flops == 6 * 4 * 16 * 16
    assert cost.op_cost(ops["ge.topk"]).unit == "vector"


def test_builder_errors():
    b = GraphBuilder()
    x = b.input("x", [4, 7])
    with pytest.raises(GeError, match=r"k 8 must be in \[1, 7\]"):
        b.topk(x, 8)
    with pytest.raises(GeError, match="odd size 7"):
        b.swi_glu(x)
    with pytest.raises(GeError, match="norm must be 'softmax' or 'sigmoid', got 'relu'"):
        b.moe_gating_top_k(x, 2, norm="relu")
    with pytest.raises(GeError, match=r"grouped_matmul takes x \[E, T, K\]"):
        b.grouped_matmul(x, x)


def test_pipeline_simulator_equals_interpreter():
    b = GraphBuilder()
    x = b.input("x", [6, 8])
    v, i = b.topk(x, 3, 1)
    s = b.scatter_add(b.input("d", [6, 8]), i, v, 1, name="s")
    w, ids = b.moe_gating_top_k(x, 2, renorm=True)
    y = b.grouped_matmul(b.input("a", [3, 4, 6]), b.input("b", [3, 6, 5]), name="y")
    g = b.swi_glu(x, 1, name="g")
    module = b.build([v, i, s, w, ids, y, g], ["v", "i", "s", "w", "ids", "y", "g"])
    inputs = {
        "x": np.round(rand((6, 8), np.float32, 7), 1),  # rounded: ties
        "d": rand((6, 8), np.float32, 8),
        "a": rand((3, 4, 6), np.float32, 9),
        "b": rand((3, 6, 5), np.float32, 10),
    }
    expected = api.reference(module, inputs)
    device = api.compile(module, "lower-to-device,plan-memory")
    launches = sorted({op.kernel.data for op in device.walk() if isinstance(op, npu.LaunchOp)})
    assert launches == ["grouped_matmul", "moe_gating_top_k", "scatter_add", "swi_glu", "topk"]
    got = api.simulate(device, inputs).outputs
    for name, ref in expected.items():
        assert_close(got[name], ref, ref.dtype)
    assert ge.TopKOp.name == "ge.topk"


def test_grouped_matmul_is_timed_as_the_batched_matmul_on_the_cube():
    """The device runs a grouped matmul as E GEMMs on the cube: the same time as the batched
    `ge.matmul` of the same shapes, and far less than the vector unit would take."""

    def makespan(grouped: bool) -> tuple[float, str]:
        b = GraphBuilder()
        x, w = b.input("x", [8, 64, 256], "f16"), b.input("w", [8, 256, 512], "f16")
        y = b.grouped_matmul(x, w) if grouped else b.matmul(x, w)
        device = api.compile(b.build([y], ["y"]), "lower-to-device,plan-memory")
        report = api.simulate(device, timing_only=True).report
        busy = sorted(unit for unit, time in report.unit_busy.items() if time > 0)
        return report.makespan, ",".join(busy)

    assert makespan(True) == makespan(False)
    assert makespan(True)[1] == "cube"
