"""The interpreter's graph ops (matmul, silu, pooling, shape ops, softmax, identity, cast,
collectives) and the stream ops, against onnxruntime (the independent oracle) or plain numpy.

Tolerances are docs/architecture.md's (`assert_close` from support); data movement (max_pool,
concat, reshape, flatten, transpose, identity, cast) is exact.  NC1HWC0 tests run the graph
on physical arrays (`physical=True`) and check that padding lanes stay zero.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
import onnxruntime as ort
import pytest
from helpers import onnx_ref
from helpers.support import (
    FLOATS,
    ROOT,
    assert_close,
    assert_exact,
    distinct,
    make_module,
    onnx_pads,
    padding_lanes,
    parse_file,
    tensor,
    uniform,
)
from onnx import helper
from xdsl.dialects.builtin import TensorType, i32
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects import ge, stream
from ge_dialect.ir.interpreter import pool2d_reference, run_function
from ge_dialect.utils import dtypes, shapes

# ceil_mode pooling makes onnxruntime's static shape inference (which lacks the "drop the
# window that starts in the trailing padding" rule its kernel applies) print a warning.
ort.set_default_logger_severity(3)

TORCHAIR_EXAMPLE = os.path.join(ROOT, "examples", "torchair_multistream.mlir")
FLOAT_IDS = ["f32", "f16"]


def i32_tensor(shape) -> TensorType:
    return TensorType(i32, list(shape))


def run1(module, inputs, physical: bool = False) -> np.ndarray:
    (y,) = run_function(module, inputs, physical=physical)
    return y


# --------------------------------------------------------------------------------------
# matmul
# --------------------------------------------------------------------------------------

# name: (a shape, b shape, transpose_a, transpose_b, bias)
MATMUL_CASES = {
    "2d": ((3, 8), (8, 5), False, False, False),
    "2d_ta": ((8, 3), (8, 5), True, False, False),
    "2d_tb": ((3, 8), (5, 8), False, True, False),
    "2d_bias": ((3, 8), (8, 5), False, False, True),
    "2d_ta_tb_bias": ((8, 3), (5, 8), True, True, True),
    "3d_batch": ((2, 3, 8), (2, 8, 5), False, False, False),
    "3d_x_2d_tb_bias": ((2, 3, 8), (5, 8), False, True, True),
    "2d_x_3d": ((3, 8), (2, 8, 5), False, False, False),
    "4d_bcast_a1": ((2, 1, 3, 8), (3, 8, 5), False, False, False),
    "4d_bcast_both": ((2, 1, 3, 8), (1, 4, 8, 5), False, False, True),
    "4d_ta_tb_bcast": ((1, 2, 8, 3), (3, 1, 5, 8), True, True, False),
}


def matmul_reference(a, b, ta, tb, bias) -> np.ndarray:
    """onnxruntime: Gemm for 2-D operands, else Transpose + MatMul (+ Add)."""
    if a.ndim == 2 and b.ndim == 2 and (ta or tb or bias is not None):
        return onnx_ref.run_node("Gemm", [a, b] + ([] if bias is None else [bias]),
                                 transA=int(ta), transB=int(tb))
    nodes = []
    for flag, name, arr in ((ta, "a", a), (tb, "b", b)):
        if flag:
            perm = list(range(arr.ndim))
            perm[-1], perm[-2] = perm[-2], perm[-1]
            nodes.append(helper.make_node("Transpose", [name], [name + "T"], perm=perm))
    src_a = "aT" if ta else "a"
    src_b = "bT" if tb else "b"
    feed = {"a": a, "b": b}
    if bias is None:
        nodes.append(helper.make_node("MatMul", [src_a, src_b], ["y"]))
    else:
        nodes.append(helper.make_node("MatMul", [src_a, src_b], ["mm"]))
        nodes.append(helper.make_node("Add", ["mm", "c"], ["y"]))
        feed["c"] = bias
    (y,) = onnx_ref.run_graph(nodes, feed, ["y"])
    return y


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
@pytest.mark.parametrize("case", list(MATMUL_CASES))
def test_matmul_vs_onnxruntime(case, dtype):
    a_shape, b_shape, ta, tb, with_bias = MATMUL_CASES[case]
    rng = np.random.default_rng(101)
    a = uniform(rng, a_shape, dtype)
    b = (rng.normal(0, 8 ** -0.5, b_shape)).astype(dtype)
    n = b_shape[-2] if tb else b_shape[-1]
    bias = uniform(rng, (n,), dtype, -0.5, 0.5) if with_bias else None
    ref = matmul_reference(a, b, ta, tb, bias)
    out_t = tensor(ref.shape, dtype)
    args = [tensor(a_shape, dtype), tensor(b_shape, dtype)] + (
        [tensor((n,), dtype)] if with_bias else [])

    def body(av, bv, *rest):
        return ge.MatMulOp(av, bv, rest[0] if rest else None, out_t, ta, tb).output

    module = make_module(args, body)
    y = run1(module, [a, b] + ([bias] if with_bias else []))
    assert_close(y, ref, dtype)


def test_matmul_transposes_are_not_ignored():
    """A square case where dropping a transpose still type-checks but changes the numbers."""
    rng = np.random.default_rng(102)
    a, b = uniform(rng, (4, 4), np.float32), uniform(rng, (4, 4), np.float32)
    t = tensor((4, 4), np.float32)
    for ta, tb in [(True, False), (False, True), (True, True)]:
        module = make_module([t, t], lambda x, w: ge.MatMulOp(x, w, None, t, ta, tb).output)
        ref = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b)
        assert_close(run1(module, [a, b]), ref.astype(np.float32), np.float32)
        assert not np.allclose(ref, a.astype(np.float64) @ b)


# --------------------------------------------------------------------------------------
# silu
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_silu_vs_onnxruntime(dtype):
    rng = np.random.default_rng(103)
    x = uniform(rng, (2, 3, 4, 5), dtype, -8, 8)
    x.flat[:6] = np.array([0, -0.0, 30, -30, 11, -11], dtype)  # knees and far tails
    module = make_module([tensor(x.shape, dtype)], lambda v: ge.SiluOp(v).output)
    nodes = [helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Mul", ["x", "s"], ["y"])]
    (ref,) = onnx_ref.run_graph(nodes, {"x": x}, ["y"])
    assert_close(run1(module, [x]), ref, dtype)


def test_silu_nc1hwc0_keeps_padding_lanes_zero():
    x = uniform(np.random.default_rng(104), (1, 17, 3, 3), np.float16, -4, 4)
    t = tensor(x.shape, np.float16, "NC1HWC0")
    module = make_module([t], lambda v: ge.SiluOp(v).output)
    yp = run1(module, [ge.to_physical(t, x)], physical=True)
    assert np.all(padding_lanes(yp, 17) == 0)
    nodes = [helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Mul", ["x", "s"], ["y"])]
    (ref,) = onnx_ref.run_graph(nodes, {"x": x}, ["y"])
    assert_close(ge.to_logical(t, yp), ref, np.float16)


# --------------------------------------------------------------------------------------
# max_pool, avg_pool
# --------------------------------------------------------------------------------------

# name: (input NCHW, kernel, strides, GE pads [t, b, l, r], ceil_mode)
POOL_CASES = {
    "k2s2": ((1, 3, 6, 6), (2, 2), (2, 2), (0, 0, 0, 0), False),
    "k3s1_pad1": ((1, 2, 5, 5), (3, 3), (1, 1), (1, 1, 1, 1), False),
    # asymmetric: reading GE's [t, b, l, r] as ONNX's [t, l, b, r] gives other numbers
    "asym_pads": ((2, 3, 7, 6), (3, 2), (2, 1), (0, 2, 1, 0), False),
    "asym_pads2": ((1, 2, 6, 7), (2, 3), (1, 2), (1, 0, 0, 2), False),
    # ceil_mode: the 4th window would start in the bottom/right padding; the rule drops it
    "ceil_drop_5_k2_s2_p1": ((1, 2, 5, 5), (2, 2), (2, 2), (1, 1, 1, 1), True),
    # ceil_mode: the last window overhangs the (unpadded) input
    "ceil_overhang": ((1, 2, 6, 6), (3, 3), (2, 2), (0, 0, 0, 0), True),
    # ceil_mode: the last window holds an input row, a padding row and an overhang row
    "ceil_overhang_pad": ((1, 2, 6, 7), (3, 3), (2, 2), (1, 1, 0, 1), True),
    "ceil_asym": ((1, 3, 8, 5), (3, 2), (2, 2), (0, 2, 1, 0), True),
    "ceil_exact_fit": ((1, 2, 7, 7), (3, 3), (2, 2), (0, 0, 0, 0), True),
    "ceil_stride3": ((1, 2, 8, 9), (2, 3), (3, 3), (1, 0, 1, 1), True),
}
POOL_KINDS = {
    # name: (ge op, ONNX op, count_include_pad)
    "max": (ge.MaxPoolOp, "MaxPool", False),
    "avg": (ge.AvgPoolOp, "AveragePool", False),
    "avg_include_pad": (ge.AvgPoolOp, "AveragePool", True),
}


def pool_shape(x_shape, kernel, strides, pads, ceil) -> tuple[int, int, int, int]:
    n, c, h, w = x_shape
    return (n, c, shapes.pool_output_size(h, kernel[0], strides[0], pads[0], pads[1], ceil),
            shapes.pool_output_size(w, kernel[1], strides[1], pads[2], pads[3], ceil))


def build_pool(kind, x_t, kernel, strides, pads, ceil, out_fmt=None, c0=0):
    op, _, include = POOL_KINDS[kind]
    shape = pool_shape(x_t.get_shape(), kernel, strides, pads, ceil)
    y_t = tensor(shape, dtypes.np_dtype(x_t.element_type), out_fmt, c0)
    extra = {"count_include_pad": True} if include else {}
    return make_module([x_t], lambda v: op(v, y_t, kernel, strides, pads, ceil, **extra).output)


def onnx_pool(kind, x, kernel, strides, pads, ceil) -> np.ndarray:
    _, onnx_op, include = POOL_KINDS[kind]
    attrs = dict(kernel_shape=list(kernel), strides=list(strides), pads=onnx_pads(pads),
                 ceil_mode=int(ceil))
    if onnx_op == "AveragePool":
        attrs["count_include_pad"] = int(include)
    return onnx_ref.run_node(onnx_op, [x], **attrs)


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
@pytest.mark.parametrize("kind", list(POOL_KINDS))
@pytest.mark.parametrize("case", list(POOL_CASES))
def test_pool_vs_onnxruntime(case, kind, dtype):
    x_shape, kernel, strides, pads, ceil = POOL_CASES[case]
    # all negative: a max that lets the padding win (0) or an average that divides by the
    # wrong count gives other numbers
    x = uniform(np.random.default_rng(105), x_shape, dtype, -2.0, -0.25)
    module = build_pool(kind, tensor(x_shape, dtype), kernel, strides, pads, ceil)
    y = run1(module, [x])
    ref = onnx_pool(kind, x, kernel, strides, pads, ceil)
    if kind == "max":
        assert_exact(y, ref)
    else:
        assert_close(y, ref, dtype)


def test_pool_output_size_named_cases():
    # H=5, k=2, s=2, pads 1/1: ceil(5/2)+1 = 4 windows, but the 4th starts at padded row 6,
    # in the bottom padding: dropped, as without ceil_mode
    assert shapes.pool_output_size(5, 2, 2, 1, 1, True) == 3
    assert shapes.pool_output_size(5, 2, 2, 1, 1, False) == 3
    assert shapes.pool_output_size(6, 3, 2, 0, 0, True) == 3  # overhang window kept
    assert shapes.pool_output_size(6, 3, 2, 0, 0, False) == 2
    assert shapes.pool_output_size(6, 3, 2, 1, 1, True) == 4
    assert shapes.pool_output_size(7, 3, 2, 0, 0, True) == 3  # exact fit: ceil changes nothing
    assert onnx_pool("max", np.zeros((1, 1, 5, 5), np.float32), (2, 2), (2, 2),
                     (1, 1, 1, 1), True).shape == (1, 1, 3, 3)


def test_avg_pool_ceil_overhang_divisors_by_hand():
    """H = W = 6, k 3, s 2, pads 1/1, ceil: the last window covers input row 5, one padding
    row and one overhang row; the divisor is 1 (exclude pad) or 2 (include pad), never 3."""
    x = np.ones((1, 1, 6, 6), np.float32)
    x[0, 0, 5, :] = 4.0  # last input row
    t = tensor(x.shape, np.float32)
    pads = (1, 1, 0, 0)
    excl = run1(build_pool("avg", t, (3, 1), (2, 1), pads, True), [x])
    incl = run1(build_pool("avg_include_pad", t, (3, 1), (2, 1), pads, True), [x])
    assert excl.shape == incl.shape == (1, 1, 4, 6)
    # windows start at padded rows 0, 2, 4, 6 -> input rows [-1..1], [1..3], [3..5], [5..7]
    np.testing.assert_array_equal(excl[0, 0, :, 0], [1.0, 1.0, 2.0, 4.0])
    np.testing.assert_array_equal(incl[0, 0, :, 0], np.array([2 / 3, 1, 2, 2], np.float32))


def test_pool_output_size_and_values_vs_onnxruntime_grid():
    """Every (size, kernel, stride, pads < kernel, ceil) with the kernel inside the padded
    input: the rule gives onnxruntime's runtime shape, and the reference its numbers.

    Outside that domain (kernel > size + pads) they differ only where the rule gives < 1
    and the verifier rejects the op: onnxruntime floors by C++ truncation (1 output for
    -stride < span < 0 without ceil_mode) or fails; see test_pool_kernel_beyond_padded_input.
    """
    rng = np.random.default_rng(106)
    kinds = list(POOL_KINDS)
    checked = 0
    for size in range(1, 8):
        for k in range(1, 5):
            for s in range(1, 4):
                for pb in range(k):
                    for pe in range(k):
                        if size + pb + pe < k:
                            continue
                        for ceil in (False, True):
                            kind = kinds[checked % 3]
                            x = rng.uniform(-2, -0.25, (1, 1, size, 2)).astype(np.float32)
                            ref = onnx_pool(kind, x, (k, 1), (s, 1), (pb, pe, 0, 0), ceil)
                            mine = shapes.pool_output_size(size, k, s, pb, pe, ceil)
                            where = (size, k, s, pb, pe, ceil, kind)
                            assert ref.shape[2] == mine, where
                            got = pool2d_reference(x, kind[:3], (k, 1), (s, 1),
                                                   (pb, pe, 0, 0), ceil, kind.endswith("pad"))
                            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6,
                                                       err_msg=str(where))
                            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("size,k,s,pb,pe", [(1, 2, 2, 0, 0), (1, 3, 1, 0, 0), (2, 4, 2, 1, 0),
                                            (3, 4, 3, 0, 0)])
def test_pool_kernel_beyond_padded_input(size, k, s, pb, pe):
    """kernel > size + pads: without ceil_mode the rule gives < 1 and the verifier rejects
    the op (onnxruntime would give 1 by truncating division, or fail); with ceil_mode a
    rule result of 1 computes onnxruntime's number over the part inside the input."""
    x = uniform(np.random.default_rng(107), (1, 2, size, 3), np.float32)
    t = tensor(x.shape, np.float32)
    assert shapes.pool_output_size(size, k, s, pb, pe, False) < 1
    bad_y = tensor((1, 2, 1, 3), np.float32)
    with pytest.raises(VerifyException, match="does not fit the padded input"):
        make_module([t], lambda v: ge.MaxPoolOp(v, bad_y, (k, 1), (s, 1), (pb, pe, 0, 0)).output)
    if shapes.pool_output_size(size, k, s, pb, pe, True) == 1:
        for kind in POOL_KINDS:
            y = run1(build_pool(kind, t, (k, 1), (s, 1), (pb, pe, 0, 0), True), [x])
            assert_close(y, onnx_pool(kind, x, (k, 1), (s, 1), (pb, pe, 0, 0), True), np.float32)


def int_max_pool_reference(x, kernel, strides, pads, ceil) -> np.ndarray:
    """A loop over output positions, the window clipped to the input (padding never wins)."""
    n, c, h, w = x.shape
    _, _, ho, wo = pool_shape(x.shape, kernel, strides, pads, ceil)
    out = np.empty((n, c, ho, wo), x.dtype)
    for i in range(ho):
        r0 = i * strides[0] - pads[0]
        rows = slice(max(r0, 0), min(r0 + kernel[0], h))
        for j in range(wo):
            c0 = j * strides[1] - pads[2]
            cols = slice(max(c0, 0), min(c0 + kernel[1], w))
            out[:, :, i, j] = x[:, :, rows, cols].max(axis=(2, 3))
    return out


@pytest.mark.parametrize("dtype", [np.int8, np.uint8], ids=["i8", "ui8"])
@pytest.mark.parametrize("case", ["k3s1_pad1", "asym_pads", "ceil_drop_5_k2_s2_p1",
                                  "ceil_overhang_pad", "ceil_stride3"])
def test_max_pool_int8_vs_numpy(case, dtype):
    x_shape, kernel, strides, pads, ceil = POOL_CASES[case]
    info = np.iinfo(dtype)
    rng = np.random.default_rng(108)
    x = rng.integers(info.min, info.max + 1, x_shape).astype(dtype)
    if dtype == np.int8:
        x[0, 0] = rng.integers(-128, -100, x_shape[2:])  # all negative: zero padding would win
    module = build_pool("max", tensor(x_shape, dtype), kernel, strides, pads, ceil)
    assert_exact(run1(module, [x]), int_max_pool_reference(x, kernel, strides, pads, ceil))


# (dtype, c0): c0 0 is the dtype's default (16 for floats, 32 for 1-byte types)
NC1HWC0_DTYPES = [(np.float16, 0), (np.float32, 0), (np.float32, 8), (np.int8, 0)]


NC1HWC0_POOLS = [(d, c0, k) for d, c0 in NC1HWC0_DTYPES for k in POOL_KINDS
                 if d != np.int8 or k == "max"]  # int8 averages round: max only


@pytest.mark.parametrize("dtype,c0,kind", NC1HWC0_POOLS,
                         ids=[f"{np.dtype(d).name}-c0_{c0 or 'default'}-{k}"
                              for d, c0, k in NC1HWC0_POOLS])
def test_pool_nc1hwc0_17_channels(dtype, c0, kind):
    x_shape, kernel, strides, pads, ceil = (1, 17, 6, 7), (3, 3), (2, 2), (1, 1, 0, 1), True
    rng = np.random.default_rng(109)
    if dtype == np.int8:
        x = rng.integers(-128, 128, x_shape).astype(dtype)
    else:
        x = uniform(rng, x_shape, dtype, -2, -0.25)
    x_t = tensor(x_shape, dtype, "NC1HWC0", c0)
    module = build_pool(kind, x_t, kernel, strides, pads, ceil, "NC1HWC0", c0)
    yp = run1(module, [ge.to_physical(x_t, x)], physical=True)
    y_t = module.body.block.first_op.function_type.outputs.data[0]
    assert yp.shape == ge.physical_shape(y_t)
    assert yp.shape[-1] == (c0 or (32 if dtype == np.int8 else 16))
    lanes = padding_lanes(yp, 17)
    assert lanes.size > 0 and np.all(lanes == 0)
    y = ge.to_logical(y_t, yp)
    if dtype == np.int8:
        assert_exact(y, int_max_pool_reference(x, kernel, strides, pads, ceil))
    elif kind == "max":
        assert_exact(y, onnx_pool(kind, x, kernel, strides, pads, ceil))
    else:
        assert_close(y, onnx_pool(kind, x, kernel, strides, pads, ceil), dtype)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pool_nhwc(kind):
    x_shape, kernel, strides, pads, ceil = POOL_CASES["asym_pads"]
    x = uniform(np.random.default_rng(110), x_shape, np.float32)
    module = build_pool(kind, tensor(x_shape, np.float32, "NHWC"), kernel, strides, pads,
                        ceil, "NHWC")
    y = run1(module, [x])
    assert_close(y, onnx_pool(kind, x, kernel, strides, pads, ceil), np.float32)
    yp = run1(module, [x.transpose(0, 2, 3, 1)], physical=True)
    assert_exact(yp, y.transpose(0, 2, 3, 1))


# --------------------------------------------------------------------------------------
# global_avg_pool
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", [None, "NC1HWC0"], ids=["nchw", "nc1hwc0"])
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_global_avg_pool_vs_onnxruntime(dtype, fmt):
    c = 5 if fmt is None else 17
    x_shape = (2, c, 7, 6)
    x = uniform(np.random.default_rng(111), x_shape, dtype, -1, 3)
    x_t = tensor(x_shape, dtype, fmt)
    y_t = tensor((2, c, 1, 1), dtype, fmt)
    module = make_module([x_t], lambda v: ge.GlobalAvgPoolOp(v, y_t).output)
    ref = onnx_ref.run_node("GlobalAveragePool", [x])
    assert_close(run1(module, [x]), ref, dtype)
    if fmt is not None:
        yp = run1(module, [ge.to_physical(x_t, x)], physical=True)
        assert yp.shape == (2, 2, 1, 1, 16)
        assert np.all(padding_lanes(yp, c) == 0)


def test_global_avg_pool_f16_large_values_do_not_overflow():
    """The mean of fp16 values near 65504 fits fp16; their sum does not (round once)."""
    x = np.full((1, 2, 8, 8), 60000, np.float16)
    x[0, 1] = -65504
    y_t = tensor((1, 2, 1, 1), np.float16)
    module = make_module([tensor(x.shape, np.float16)],
                         lambda v: ge.GlobalAvgPoolOp(v, y_t).output)
    y = run1(module, [x])
    assert_exact(y, x.astype(np.float64).mean(axis=(2, 3), keepdims=True).astype(np.float16))


# --------------------------------------------------------------------------------------
# concat
# --------------------------------------------------------------------------------------

# name: (input shapes, axis)
CONCAT_CASES: dict[str, tuple[list[tuple[int, ...]], int]] = {
    "4d_axis0": ([(1, 3, 2, 4), (2, 3, 2, 4)], 0),
    "4d_axis1": ([(2, 3, 2, 4), (2, 1, 2, 4), (2, 5, 2, 4)], 1),
    "4d_axis2": ([(1, 2, 3, 4), (1, 2, 1, 4)], 2),
    "4d_axis3": ([(1, 2, 3, 1), (1, 2, 3, 4), (1, 2, 3, 2)], 3),
    "2d_axis0": ([(2, 5), (3, 5)], 0),
    "2d_axis1": ([(2, 5), (2, 1)], 1),
    "1d_single": ([(4,)], 0),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8], ids=["f32", "f16", "i8"])
@pytest.mark.parametrize("case", list(CONCAT_CASES))
def test_concat_vs_onnxruntime(case, dtype):
    shapes, axis = CONCAT_CASES[case]
    offset = 0
    xs = []
    for s in shapes:  # distinct values across inputs: a mixed-up order shows
        xs.append((distinct(s, np.float32) + offset).astype(dtype) if dtype != np.int8
                  else ((distinct(s, np.int16) + offset) % 120 + 1).astype(dtype))
        offset += int(np.prod(s))
    ref = onnx_ref.run_node("Concat", xs, axis=axis)
    out_t = tensor(ref.shape, dtype)
    module = make_module([tensor(x.shape, dtype) for x in xs],
                         lambda *vs: ge.ConcatOp(list(vs), axis, out_t).output)
    assert_exact(run1(module, xs), ref)


@pytest.mark.parametrize("dtype,c0", [(np.float16, 0), (np.float32, 0), (np.float32, 8)],
                         ids=["f16", "f32", "f32-c0_8"])
def test_concat_nc1hwc0_channels_17_plus_16(dtype, c0):
    a = distinct((1, 17, 2, 3), dtype)
    b = (distinct((1, 16, 2, 3), np.float32) + 1000).astype(dtype)
    a_t, b_t = tensor(a.shape, dtype, "NC1HWC0", c0), tensor(b.shape, dtype, "NC1HWC0", c0)
    y_t = tensor((1, 33, 2, 3), dtype, "NC1HWC0", c0)
    module = make_module([a_t, b_t], lambda x, y: ge.ConcatOp([x, y], 1, y_t).output)
    ref = onnx_ref.run_node("Concat", [a, b], axis=1)
    assert_exact(run1(module, [a, b]), ref)
    yp = run1(module, [ge.to_physical(a_t, a), ge.to_physical(b_t, b)], physical=True)
    eff = c0 or 16
    assert yp.shape == (1, -(-33 // eff), 2, 3, eff)
    assert np.all(padding_lanes(yp, 33) == 0)
    # b's channel 0 is logical channel 17, right after a's last lane: not at a block start
    assert yp[0, 17 // eff, 1, 2, 17 % eff] == b[0, 0, 1, 2]
    assert yp[0, 32 // eff, 0, 0, 32 % eff] == b[0, 15, 0, 0]
    assert_exact(ge.to_logical(y_t, yp), ref)


# --------------------------------------------------------------------------------------
# reshape, flatten, transpose
# --------------------------------------------------------------------------------------

RESHAPES = [((2, 3, 4), (4, 6)), ((1, 64, 1, 1), (1, 64)), ((2, 12), (2, 3, 2, 2)),
            ((5,), (1, 5, 1)), ((2, 3, 4), (24,))]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8], ids=["f32", "f16", "i8"])
@pytest.mark.parametrize("src,dst", RESHAPES, ids=[f"{a}->{b}" for a, b in RESHAPES])
def test_reshape_vs_onnxruntime(src, dst, dtype):
    x = distinct(src, dtype)
    module = make_module([tensor(src, dtype)],
                         lambda v: ge.ReshapeOp(v, tensor(dst, dtype)).output)
    node = helper.make_node("Reshape", ["x", "shape"], ["y"])
    (ref,) = onnx_ref.run_graph([node], {"x": x}, ["y"],
                                {"shape": np.array(dst, np.int64)})
    assert_exact(run1(module, [x]), ref)


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
@pytest.mark.parametrize("axis", [0, 1, 2, 4])
def test_flatten_vs_onnxruntime(axis, dtype):
    shape = (2, 3, 4, 5)
    x = distinct(shape, dtype)
    out = (int(np.prod(shape[:axis])), int(np.prod(shape[axis:])))
    module = make_module([tensor(shape, dtype)],
                         lambda v: ge.FlattenOp(v, tensor(out, dtype), axis).output)
    ref = onnx_ref.run_node("Flatten", [x], axis=axis)
    assert ref.shape == out
    assert_exact(run1(module, [x]), ref)


TRANSPOSES = [((2, 3, 4), (0, 2, 1)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4, 5), (0, 2, 3, 1)),
              ((2, 3, 4, 5), (3, 2, 1, 0)), ((3, 4), (1, 0)), ((2, 3, 4), (0, 1, 2))]


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
@pytest.mark.parametrize("shape,perm", TRANSPOSES, ids=[f"{s}-{p}" for s, p in TRANSPOSES])
def test_transpose_vs_onnxruntime(shape, perm, dtype):
    x = distinct(shape, dtype)
    out = tuple(shape[p] for p in perm)
    module = make_module([tensor(shape, dtype)],
                         lambda v: ge.TransposeOp(v, perm, tensor(out, dtype)).output)
    ref = onnx_ref.run_node("Transpose", [x], perm=list(perm))
    assert_exact(run1(module, [x]), ref)


# --------------------------------------------------------------------------------------
# softmax
# --------------------------------------------------------------------------------------

SOFTMAX_CASES = [((2, 10), 1), ((2, 10), 0), ((2, 3, 4), 0), ((2, 3, 4), 1), ((2, 3, 4), 2),
                 ((1, 3, 2, 5), 3)]


def softmax_module(shape, dtype, axis):
    return make_module([tensor(shape, dtype)], lambda v: ge.SoftmaxOp(v, axis).output)


@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
@pytest.mark.parametrize("shape,axis", SOFTMAX_CASES, ids=[f"{s}-{a}" for s, a in SOFTMAX_CASES])
def test_softmax_vs_onnxruntime(shape, axis, dtype):
    x = uniform(np.random.default_rng(112), shape, dtype, -4, 4)
    ref = onnx_ref.run_node("Softmax", [x], axis=axis)  # opset 13+ semantics: one axis
    assert_close(run1(softmax_module(shape, dtype, axis), [x]), ref, dtype)


@pytest.mark.parametrize("dtype,scale", [(np.float32, 1e4), (np.float32, 3e38),
                                         (np.float16, 6e4)], ids=["f32-1e4", "f32-3e38", "f16-6e4"])
def test_softmax_large_magnitude_does_not_overflow(dtype, scale):
    rng = np.random.default_rng(113)
    x = (rng.uniform(-1, 1, (3, 8)) * scale).astype(dtype)
    x[0] = (rng.uniform(-1, 0.5, 8) * scale).astype(dtype)
    x[0, 3] = np.asarray(scale, dtype)  # one clear winner in row 0
    x[1, :] = np.asarray(scale, dtype)  # a row of ties at the top of the range
    y = run1(softmax_module(x.shape, dtype, 1), [x])
    assert np.all(np.isfinite(y))
    np.testing.assert_allclose(y.astype(np.float64).sum(axis=1), 1,
                               rtol=1e-2 if dtype == np.float16 else 1e-5)
    assert y[0, 3] == 1
    np.testing.assert_array_equal(y[1], np.full(8, 1 / 8, dtype))
    assert_close(y, onnx_ref.run_node("Softmax", [x], axis=1), dtype)


# --------------------------------------------------------------------------------------
# identity, cast
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype,fmt", [(np.float32, None), (np.float16, None), (np.int8, None),
                                       (np.float16, "NC1HWC0"), (np.int8, "NC1HWC0")],
                         ids=["f32", "f16", "i8", "f16-nc1hwc0", "i8-nc1hwc0"])
def test_identity_exact(dtype, fmt):
    shape = (2, 17, 2, 3)
    x = (distinct(shape, dtype) if dtype == np.int8  # floats: not all exact in fp16
         else uniform(np.random.default_rng(121), shape, dtype, -3, 3))
    t = tensor(x.shape, dtype, fmt)
    module = make_module([t], lambda v: ge.IdentityOp(v).output)
    assert_exact(run1(module, [x]), x)
    xp = ge.to_physical(t, x)
    assert_exact(run1(module, [xp], physical=True), xp)


# f32 values whose f16 rounding is a trap: ties to even, subnormals, overflow, signed zero
CAST_SPECIALS = np.array([
    1.0, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -11 + 2 ** -20, -(1 + 3 * 2 ** -11),
    65504, 65519.99, 65520, -65520, 1e10, 2 ** -24, 2 ** -25, 3 * 2 ** -26, 2 ** -26, 1e-8,
    2 ** -14 - 2 ** -25, -0.0, 0.0, np.inf, -np.inf, 0.1, -0.3, 2049, 2051, 4097,
], np.float32)


def onnx_cast(x, to_dtype) -> np.ndarray:
    node = helper.make_node("Cast", ["x"], ["y"], to=onnx_ref.elem_type(to_dtype))
    (y,) = onnx_ref.run_graph([node], {"x": x}, {"y": to_dtype})
    return y


def test_cast_f32_to_f16_rounds_to_nearest_even_bitwise():
    rng = np.random.default_rng(114)
    x = np.concatenate([CAST_SPECIALS, rng.uniform(-70000, 70000, 500).astype(np.float32),
                        rng.standard_normal(500).astype(np.float32) * 1e-5])
    module = make_module([tensor(x.shape, np.float32)],
                         lambda v: ge.CastOp(v, tensor(x.shape, np.float16)).output)
    y = run1(module, [x])
    assert y.dtype == np.float16
    with np.errstate(over="ignore"):  # the reference overflows to inf on purpose
        expected = x.astype(np.float16)
    np.testing.assert_array_equal(y.view(np.uint16), expected.view(np.uint16))
    np.testing.assert_array_equal(y.view(np.uint16), onnx_cast(x, np.float16).view(np.uint16))
    # spot values: ties go to the even neighbour
    assert y[1] == 1.0 and y[2] == np.float16(1 + 2 ** -9) and y[11] == 0 and y[12] == 2 ** -24
    assert y[6] == 65504 and np.isposinf(y[7])


def test_cast_f32_nan_stays_nan():
    x = np.array([np.nan, -np.nan, 1.0], np.float32)
    module = make_module([tensor(x.shape, np.float32)],
                         lambda v: ge.CastOp(v, tensor(x.shape, np.float16)).output)
    y = run1(module, [x])
    assert np.isnan(y[:2]).all() and y[2] == 1


def test_cast_f16_to_f32_exact_for_every_f16():
    x = np.arange(2 ** 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    module = make_module([tensor(x.shape, np.float16)],
                         lambda v: ge.CastOp(v, tensor(x.shape, np.float32)).output)
    y = run1(module, [x])
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.view(np.uint32), x.astype(np.float32).view(np.uint32))
    finite = np.isfinite(x)
    np.testing.assert_array_equal(y[finite], onnx_cast(x, np.float32)[finite])


@pytest.mark.parametrize("src,dst", [(np.float32, np.float16), (np.float16, np.float32)],
                         ids=["f32-f16", "f16-f32"])
def test_cast_nc1hwc0_keeps_padding_zero(src, dst):
    x = uniform(np.random.default_rng(115), (2, 17, 3, 3), src, -3, 3)
    x_t, y_t = tensor(x.shape, src, "NC1HWC0"), tensor(x.shape, dst, "NC1HWC0")
    module = make_module([x_t], lambda v: ge.CastOp(v, y_t).output)
    yp = run1(module, [ge.to_physical(x_t, x)], physical=True)
    assert yp.dtype == dst and yp.shape == ge.physical_shape(y_t)
    assert np.all(padding_lanes(yp, 17) == 0)
    assert_exact(ge.to_logical(y_t, yp), x.astype(dst))


# --------------------------------------------------------------------------------------
# collectives
# --------------------------------------------------------------------------------------

I32 = np.iinfo(np.int32)


def ranks_reference(x: np.ndarray, reduction: str, ranks: int) -> np.ndarray:
    """Rank 0's result of `ranks` identical ranks, reduced exactly (float64 / Python ints)."""
    stacked = np.stack([x.astype(np.float64 if x.dtype.kind == "f" else object)] * ranks)
    reductions: dict[str, Callable[..., np.ndarray]] = {
        "sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}
    reduce = reductions[reduction]
    return reduce(stacked, axis=0)


def all_reduce_module(t, reduction, ranks):
    return make_module([t], lambda v: ge.HcomAllReduceOp(v, reduction, "world", ranks).output)


@pytest.mark.parametrize("ranks", [1, 3, 8])
@pytest.mark.parametrize("reduction", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("dtype", FLOATS, ids=FLOAT_IDS)
def test_all_reduce_floats_vs_numpy(dtype, reduction, ranks):
    x = uniform(np.random.default_rng(116), (4, 6), dtype, -1.5, 1.5)
    y = run1(all_reduce_module(tensor(x.shape, dtype), reduction, ranks), [x])
    ref = ranks_reference(x, reduction, ranks)
    assert_close(y, ref.astype(dtype), dtype)
    if reduction in ("max", "min") or ranks == 1:
        assert_exact(y, x)


@pytest.mark.parametrize("ranks", [1, 4, 8])
@pytest.mark.parametrize("reduction", ["sum", "prod", "max", "min"])
def test_all_reduce_i32_in_range_exact(reduction, ranks):
    x = np.array([[0, 1, -1, 7], [-13, 14, -2, 3]], np.int32)  # 14**8 < 2**31
    y = run1(all_reduce_module(i32_tensor(x.shape), reduction, ranks), [x])
    assert_exact(y, ranks_reference(x, reduction, ranks).astype(np.int32))


def test_all_reduce_i32_sum_saturates():
    """Pins the current choice: an i32 sum beyond int32 clamps to its limits (like the
    saturating int8 add), where HCCL/NCCL integer adds wrap modulo 2**32."""
    x = np.array([2 ** 28, -2 ** 28, 2 ** 30, 7, I32.min, I32.max, 268435455], np.int32)
    y = run1(all_reduce_module(i32_tensor(x.shape), "sum", 8), [x])
    exact = [8 * int(v) for v in x]
    assert y.tolist() == [min(max(v, I32.min), I32.max) for v in exact]
    assert y.tolist()[:4] == [I32.max, I32.min, I32.max, 56]
    assert y[6] == 8 * 268435455  # 2**31 - 8: the largest in-range value stays exact


@pytest.mark.parametrize("dtype,ranks,values", [
    (np.int32, 8, [256, -256, 1000, -3, 2]),
    (np.int8, 16, [16, -128, 2, 0, -1]),
], ids=["i32-rank8", "i8-rank16"])
def test_all_reduce_int_prod_saturates_like_sum(dtype, ranks, values):
    x = np.array(values, dtype)
    t = i32_tensor(x.shape) if dtype == np.int32 else tensor(x.shape, dtype)
    y = run1(all_reduce_module(t, "prod", ranks), [x])
    info = np.iinfo(dtype)
    assert y.tolist() == [min(max(int(v) ** ranks, info.min), info.max) for v in values]


def test_all_reduce_i8_sum_saturates():
    x = np.array([100, -100, 15, -16, 0], np.int8)
    y = run1(all_reduce_module(tensor(x.shape, np.int8), "sum", 8), [x])
    assert y.tolist() == [127, -128, 120, -128, 0]


@pytest.mark.parametrize("ranks", [1, 2, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32], ids=["f32", "f16", "i32"])
def test_all_gather_vs_numpy(dtype, ranks):
    x = distinct((2, 3), dtype) * (1 if dtype == np.int32 else dtype(-1))
    t = i32_tensor(x.shape) if dtype == np.int32 else tensor(x.shape, dtype)
    out = TensorType(t.element_type, [2 * ranks, 3])
    module = make_module([t], lambda v: ge.HcomAllGatherOp(v, "world", ranks, out).output)
    assert_exact(run1(module, [x]), np.concatenate([x] * ranks, axis=0))


def test_all_gather_and_all_reduce_nc1hwc0_keep_padding_zero():
    x = uniform(np.random.default_rng(117), (1, 17, 2, 2), np.float16)
    t = tensor(x.shape, np.float16, "NC1HWC0")
    out = tensor((3, 17, 2, 2), np.float16, "NC1HWC0")

    def body(v):
        return [ge.HcomAllGatherOp(v, "world", 3, out).output,
                ge.HcomAllReduceOp(v, "sum", "world", 3).output]

    module = make_module([t], body)
    gp, sp = run_function(module, [ge.to_physical(t, x)], physical=True)
    assert gp.shape == (3, 2, 2, 2, 16)
    assert np.all(padding_lanes(gp, 17) == 0) and np.all(padding_lanes(sp, 17) == 0)
    g, s = run_function(module, [x])
    assert_exact(g, np.concatenate([x] * 3))
    assert_close(s, (x.astype(np.float64) * 3).astype(np.float16), np.float16)


# --------------------------------------------------------------------------------------
# stream ops
# --------------------------------------------------------------------------------------


def test_wait_tensor_is_an_identity():
    rng = np.random.default_rng(118)
    x, d = uniform(rng, (3, 4), np.float32), uniform(rng, (2, 2), np.float16)

    def body(xv, dv):
        dep = ge.ReluOp(dv).output
        return stream.WaitTensorOp(xv, dep).output

    module = make_module([tensor(x.shape, np.float32), tensor(d.shape, np.float16)], body)
    assert_exact(run1(module, [x, d]), x)


def with_streams(use_events: bool):
    """add on stream 0; matmul of it on stream 1, after a record/wait pair (or none)."""
    t = tensor((4, 4), np.float32)

    def body(a, b):
        s = ge.AddOp(a, b)
        s.attributes[stream.ID] = stream.StreamIdAttr(0)
        if use_events:
            rec = stream.RecordOp([s.output, a])
            rec.attributes[stream.ID] = stream.StreamIdAttr(0)
            wait = stream.WaitOp(rec.event)
            wait.attributes[stream.ID] = stream.StreamIdAttr(1)
        mm = ge.MatMulOp(s.output, a, None, t)
        mm.attributes[stream.ID] = stream.StreamIdAttr(1)
        out = ge.SubOp(mm.output, b)
        out.attributes[stream.ID] = stream.StreamIdAttr(0)
        return [out.output, s.output]

    return make_module([t, t], body)


def test_record_and_wait_compute_as_without():
    rng = np.random.default_rng(119)
    a, b = uniform(rng, (4, 4), np.float32), uniform(rng, (4, 4), np.float32)
    with_ev = with_streams(True)
    stream.verify_streams(with_ev)
    ops = [op.name for op in with_ev.body.block.first_op.body.block.ops]
    assert "stream.record" in ops and "stream.wait" in ops
    got = run_function(with_ev, [a, b])
    plain = run_function(with_streams(False), [a, b])
    for g, p in zip(got, plain, strict=True):
        assert_exact(g, p)
    ref = (a.astype(np.float64) + b) @ a - b
    assert_close(got[0], ref.astype(np.float32), np.float32)


def test_torchair_multistream_example():
    module = parse_file(TORCHAIR_EXAMPLE)
    module.verify()
    stream.verify_streams(module)
    rng = np.random.default_rng(120)
    in1, in2, in3, in4 = (uniform(rng, (4, 4), np.float32) for _ in range(4))
    add_result, mm_result, mm1, add2 = run_function(module, [in1, in2, in3, in4])
    mm = (in3.astype(np.float64) @ in4).astype(np.float32)
    assert_exact(add_result, in1 + in2)
    assert_close(mm_result, mm, np.float32)
    assert_close(mm1, mm, np.float32)
    assert_exact(add2, in3 + in4)
