"""The reference interpreter of the `ge` dialect against onnxruntime (the independent oracle).

Numbers are compared with docs/architecture.md's rule `|a - b| <= atol + rtol*|ref|`, `atol = k*max|ref|`
(fp32: rtol 1e-4, k 1e-5; a whole model: rtol 1e-3, k 1e-4; fp16: rtol 1e-2, k 1e-2); data
movement is exact.  Layout tests feed logical arrays to graphs whose function arguments and
constants carry `#ge.format` encodings and, with `physical=True`, look at the stored arrays
(padding lanes, hand-computed element positions).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers import onnx_ref
from helpers.support import (
    FLOATS,
    ROOT,
    assert_close,
    assert_exact,
    const,
    conv_attrs,
    conv_out_shape,
    distinct,
    make_module,
    onnx_pads,
    padding_lanes,
    parse_file,
    tensor,
    uniform,
    weights,
)
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from onnx import helper
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import SSAValue

from ge_dialect.ir.dialects import ge
from ge_dialect.ir.interpreter import run_function
from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from ge_dialect.utils.errors import GeError

EXAMPLE = os.path.join(ROOT, "examples", "resnet_block.mlir")


# --------------------------------------------------------------------------------------
# Comparison
# --------------------------------------------------------------------------------------

def test_assert_close_implements_the_rule():
    ref = np.array([100.0, 1.0, -0.5], np.float32)
    # atol = 1e-5 * 100 = 1e-3 for every element; rtol 1e-4 on top
    assert_close(ref + np.float32(1.0e-3), ref, np.float32)
    with pytest.raises(AssertionError, match="out of tolerance"):
        assert_close(ref + np.array([0, 2e-3, 0], np.float32), ref, np.float32)
    assert_close((ref + np.array([0, 0.9, 0])).astype(np.float16), ref.astype(np.float16),
                 np.float16)  # atol = 1e-2 * 100 = 1.0
    with pytest.raises(AssertionError):
        assert_close(np.array([np.nan], np.float32), np.array([1.0], np.float32), np.float32)
    with pytest.raises(AssertionError, match="dtype"):
        assert_close(ref.astype(np.float16), ref, np.float32)
    with pytest.raises(AssertionError):
        assert_close(np.array([1], np.int8), np.array([2], np.int8), np.int8)


# --------------------------------------------------------------------------------------
# Building graphs
# --------------------------------------------------------------------------------------


def test_onnx_pads_order():
    assert onnx_pads([1, 2, 3, 4]) == [1, 3, 2, 4]


# --------------------------------------------------------------------------------------
# conv2d
# --------------------------------------------------------------------------------------

# name: (input NCHW, filter OIHW, strides, GE pads [t, b, l, r], dilations, groups)
CONV_CASES = {
    "plain": ((1, 3, 6, 6), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    "groups2": ((1, 4, 6, 5), (6, 2, 3, 3), (1, 1), (1, 1, 0, 2), (1, 1), 2),
    "depthwise": ((1, 4, 7, 7), (4, 1, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 4),
    "depthwise_x2": ((1, 3, 5, 5), (6, 1, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 3),
    "dilation2": ((1, 3, 9, 8), (2, 3, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1),
    "strides2": ((2, 3, 9, 8), (4, 3, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),
    # asymmetric: the ONNX order [t, l, b, r] read as GE's would give a different shape
    "asym_pads": ((1, 2, 6, 7), (3, 2, 2, 3), (1, 1), (2, 0, 1, 3), (1, 1), 1),
    "asym_pads2": ((1, 2, 5, 5), (2, 2, 3, 3), (1, 1), (0, 2, 3, 1), (1, 1), 1),
    "mixed": ((1, 4, 9, 8), (4, 2, 3, 2), (2, 1), (1, 2, 0, 1), (1, 2), 2),
}


def build_conv(x_shape, w, b, strides, pads, dilations, groups, dtype):
    out_t = tensor(conv_out_shape(x_shape, w.shape, strides, pads, dilations), dtype)

    def body(x):
        bias = None if b is None else const(b)
        return ge.Conv2DOp(x, const(w), bias, out_t, strides, pads, dilations, groups).output

    return make_module([tensor(x_shape, dtype)], body)


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f16"])
@pytest.mark.parametrize("with_bias", [False, True], ids=["nobias", "bias"])
@pytest.mark.parametrize("case", list(CONV_CASES), ids=list(CONV_CASES))
def test_conv2d_vs_onnxruntime(case, with_bias, dtype):
    x_shape, w_shape, strides, pads, dilations, groups = CONV_CASES[case]
    rng = np.random.default_rng(1)
    x = uniform(rng, x_shape, dtype)
    w = weights(rng, w_shape, dtype)
    b = uniform(rng, (w_shape[0],), dtype, -0.5, 0.5) if with_bias else None
    module = build_conv(x_shape, w, b, strides, pads, dilations, groups, dtype)
    (y,) = run_function(module, [x])
    ref = onnx_ref.run_node("Conv", [x, w] + ([b] if with_bias else []),
                            **conv_attrs(w_shape, strides, pads, dilations, groups))
    assert_close(y, ref, dtype)


@settings(max_examples=25)
@given(
    n=st.integers(1, 2),
    groups=st.integers(1, 3),
    cin_g=st.integers(1, 2),
    cout_g=st.integers(1, 2),
    kh=st.integers(1, 3),
    kw=st.integers(1, 3),
    hw=st.tuples(st.integers(1, 7), st.integers(1, 7)),
    strides=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    dilations=st.tuples(st.integers(1, 2), st.integers(1, 2)),
    pads=st.tuples(*[st.integers(0, 2)] * 4),
    with_bias=st.booleans(),
)
def test_conv2d_random_configs_vs_onnxruntime(n, groups, cin_g, cout_g, kh, kw, hw, strides,
                                              dilations, pads, with_bias):
    x_shape = (n, groups * cin_g, *hw)
    w_shape = (groups * cout_g, cin_g, kh, kw)
    out = conv_out_shape(x_shape, w_shape, strides, pads, dilations)
    assume(out[2] >= 1 and out[3] >= 1)
    rng = np.random.default_rng(7)
    x = uniform(rng, x_shape, np.float32)
    w = weights(rng, w_shape, np.float32)
    b = uniform(rng, (w_shape[0],), np.float32) if with_bias else None
    module = build_conv(x_shape, w, b, strides, pads, dilations, groups, np.float32)
    (y,) = run_function(module, [x])
    ref = onnx_ref.run_node("Conv", [x, w] + ([b] if with_bias else []),
                            **conv_attrs(w_shape, strides, pads, dilations, groups))
    assert_close(y, ref, np.float32)


# --------------------------------------------------------------------------------------
# conv2d on NC1HWC0 activations and FRACTAL_Z weights
# --------------------------------------------------------------------------------------

# name: (filter OIHW with C per group, groups); the input has 17 channels
FZ_FILTERS = {
    "dense": ((18, 17, 3, 3), 1),
    "depthwise": ((17, 1, 3, 3), 17),
    "depthwise_x2": ((34, 1, 3, 3), 17),
}
# (dtype, c0): c0 0 is the dtype's default (16)
FZ_DTYPES = [(np.float16, 0), (np.float32, 0), (np.float32, 8)]


@pytest.mark.parametrize("weight_as", ["const", "argument"])
@pytest.mark.parametrize("filt", list(FZ_FILTERS), ids=list(FZ_FILTERS))
@pytest.mark.parametrize("dtype,c0", FZ_DTYPES, ids=["f16", "f32", "f32-c0_8"])
def test_conv2d_nc1hwc0_fractal_z(dtype, c0, filt, weight_as):
    w_shape, groups = FZ_FILTERS[filt]
    x_shape = (1, 17, 5, 6)
    strides, pads, dilations = (1, 2), (1, 0, 2, 1), (1, 1)
    rng = np.random.default_rng(3)
    x = uniform(rng, x_shape, dtype)
    w = weights(rng, w_shape, dtype)
    b = uniform(rng, (w_shape[0],), dtype, -0.5, 0.5)
    x_t = tensor(x_shape, dtype, "NC1HWC0", c0)
    w_t = tensor(w_shape, dtype, "FRACTAL_Z", c0, groups)
    y_shape = conv_out_shape(x_shape, w_shape, strides, pads, dilations)
    y_t = tensor(y_shape, dtype, "NC1HWC0", c0)

    def body(xv, *rest):
        wv = rest[0] if rest else ge.ConstOp.from_numpy(w, w_t).output
        return ge.Conv2DOp(xv, wv, const(b), y_t, strides, pads, dilations, groups).output

    args = [x_t] + ([w_t] if weight_as == "argument" else [])
    module = make_module(args, body)
    inputs = [x] + ([w] if weight_as == "argument" else [])
    (y,) = run_function(module, inputs)
    ref = onnx_ref.run_node("Conv", [x, w, b],
                            **conv_attrs(w_shape, strides, pads, dilations, groups))
    assert_close(y, ref, dtype)

    # the same graph on physical arrays: 5-D output, padding lanes exactly zero
    phys_inputs = [ge.to_physical(x_t, x)] + (
        [ge.to_physical(w_t, w)] if weight_as == "argument" else [])
    (yp,) = run_function(module, phys_inputs, physical=True)
    assert yp.shape == ge.physical_shape(y_t)
    assert yp.shape[-1] == (c0 or 16)
    lanes = padding_lanes(yp, y_shape[1])
    assert lanes.size > 0
    assert np.all(lanes == 0)
    assert_exact(ge.to_logical(y_t, yp), y)


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f16"])
def test_conv2d_nhwc_input_and_output(dtype):
    x_shape, w_shape = (2, 3, 5, 4), (4, 3, 2, 2)
    pads = (1, 0, 0, 1)
    rng = np.random.default_rng(4)
    x = uniform(rng, x_shape, dtype)
    w = weights(rng, w_shape, dtype)
    x_t = tensor(x_shape, dtype, "NHWC")
    y_shape = conv_out_shape(x_shape, w_shape, pads=pads)
    y_t = tensor(y_shape, dtype, "NHWC")
    module = make_module([x_t], lambda v: ge.Conv2DOp(v, const(w), None, y_t, pads=pads).output)
    (y,) = run_function(module, [x])
    ref = onnx_ref.run_node("Conv", [x, w], **conv_attrs(w_shape, (1, 1), pads, (1, 1), 1))
    assert_close(y, ref, dtype)
    (yp,) = run_function(module, [ge.to_physical(x_t, x)], physical=True)
    assert_exact(yp, y.transpose(0, 2, 3, 1))


# --------------------------------------------------------------------------------------
# fused_conv2d
# --------------------------------------------------------------------------------------

ACTIVATIONS = {
    "none": (None, []),
    "relu": (None, ["Relu"]),
    "relu6": (None, ["Clip"]),
    "leaky_relu": (0.2, ["LeakyRelu"]),
    "sigmoid": (None, ["Sigmoid"]),
}


def onnx_activation(act: str, src: str, dst: str, alpha, dtype, inits: dict) -> list:
    if act == "none":
        return [helper.make_node("Identity", [src], [dst])]
    if act == "relu":
        return [helper.make_node("Relu", [src], [dst])]
    if act == "relu6":
        inits["lo"] = np.array(0, dtype)
        inits["hi"] = np.array(6, dtype)
        return [helper.make_node("Clip", [src, "lo", "hi"], [dst])]
    if act == "leaky_relu":
        return [helper.make_node("LeakyRelu", [src], [dst], alpha=alpha)]
    if act == "sigmoid":
        return [helper.make_node("Sigmoid", [src], [dst])]
    raise AssertionError(act)


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f16"])
@pytest.mark.parametrize("with_residual", [True, False], ids=["residual", "noresidual"])
@pytest.mark.parametrize("act", list(ACTIVATIONS))
def test_fused_conv2d_vs_onnxruntime(act, with_residual, dtype):
    alpha = ACTIVATIONS[act][0]
    x_shape, w_shape = (1, 4, 6, 6), (4, 2, 3, 3)
    strides, pads, dilations, groups = (1, 1), (1, 1, 0, 2), (1, 1), 2
    rng = np.random.default_rng(5)
    # scaled up so that relu6 and sigmoid see values beyond their knees
    x = uniform(rng, x_shape, dtype, -4, 4)
    w = weights(rng, w_shape, dtype) * np.asarray(3, dtype)
    b = uniform(rng, (w_shape[0],), dtype, -1, 1)
    y_shape = conv_out_shape(x_shape, w_shape, strides, pads, dilations)
    r = uniform(rng, y_shape, dtype, -3, 3)
    y_t = tensor(y_shape, dtype)

    def body(xv, *rest):
        return ge.FusedConv2DOp(xv, const(w), const(b), rest[0] if rest else None, y_t,
                                act, alpha, strides, pads, dilations, groups).output

    args = [tensor(x_shape, dtype)] + ([tensor(y_shape, dtype)] if with_residual else [])
    module = make_module(args, body)
    (y,) = run_function(module, [x, r] if with_residual else [x])

    inits = {"w": w, "b": b}
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["conv"],
                              **conv_attrs(w_shape, strides, pads, dilations, groups))]
    feed = {"x": x}
    src = "conv"
    if with_residual:
        nodes.append(helper.make_node("Add", ["conv", "r"], ["sum"]))
        feed["r"] = r
        src = "sum"
    nodes += onnx_activation(act, src, "y", alpha, dtype, inits)
    (ref,) = onnx_ref.run_graph(nodes, feed, ["y"], inits)
    assert_close(y, ref, dtype)


@pytest.mark.parametrize("act", ["sigmoid", "none"])
def test_fused_conv2d_nc1hwc0_keeps_padding_lanes_zero(act):
    """sigmoid(0) = 0.5 and a bias/residual add make padding lanes nonzero unless re-zeroed."""
    dtype = np.float16
    x_shape, w_shape = (1, 17, 4, 4), (17, 17, 3, 3)
    rng = np.random.default_rng(11)
    x = uniform(rng, x_shape, dtype)
    w = weights(rng, w_shape, dtype)
    b = uniform(rng, (17,), dtype, 0.5, 1.0)
    y_shape = conv_out_shape(x_shape, w_shape, pads=(1, 1, 1, 1))
    r = uniform(rng, y_shape, dtype)
    x_t = tensor(x_shape, dtype, "NC1HWC0")
    y_t = tensor(y_shape, dtype, "NC1HWC0")
    w_t = tensor(w_shape, dtype, "FRACTAL_Z")

    def body(xv, rv):
        return ge.FusedConv2DOp(xv, ge.ConstOp.from_numpy(w, w_t).output, const(b), rv, y_t,
                                act, pads=[1, 1, 1, 1]).output

    module = make_module([x_t, y_t], body)
    (yp,) = run_function(module, [ge.to_physical(x_t, x), ge.to_physical(y_t, r)],
                         physical=True)
    assert np.all(padding_lanes(yp, 17) == 0)
    (y,) = run_function(module, [x, r])
    inits = {"w": w, "b": b}
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["conv"], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["conv", "r"], ["sum"])]
    nodes += onnx_activation(act, "sum", "y", None, dtype, inits)
    (ref,) = onnx_ref.run_graph(nodes, {"x": x, "r": r}, ["y"], inits)
    assert_close(y, ref, dtype)


# --------------------------------------------------------------------------------------
# batch_norm
# --------------------------------------------------------------------------------------


def bn_params(rng, c):
    return (rng.uniform(0.5, 1.5, c).astype(np.float32),   # scale
            rng.uniform(-0.5, 0.5, c).astype(np.float32),  # offset
            rng.uniform(-0.3, 0.3, c).astype(np.float32),  # mean
            rng.uniform(0.1, 10.0, c).astype(np.float32))  # variance


@pytest.mark.parametrize("fmt", [None, "NC1HWC0"], ids=["nchw", "nc1hwc0"])
@pytest.mark.parametrize("dtype,param_dtype", [(np.float32, np.float32), (np.float16, np.float32),
                                               (np.float16, np.float16)],
                         ids=["f32", "f16-f32params", "f16-f16params"])
def test_batch_norm_vs_onnxruntime(dtype, param_dtype, fmt):
    c = 5 if fmt is None else 17
    x_shape = (2, c, 3, 4)
    rng = np.random.default_rng(13)
    x = uniform(rng, x_shape, dtype, -2, 2)
    scale, offset, mean, variance = (p.astype(param_dtype) for p in bn_params(rng, c))
    eps = 0.03  # non-default, large enough to matter next to variance 0.1
    x_t = tensor(x_shape, dtype, fmt)
    module = make_module(
        [x_t], lambda xv: ge.BatchNormOp(xv, const(scale), const(offset), const(mean),
                                         const(variance), epsilon=eps).output)
    (y,) = run_function(module, [x])
    ref = onnx_ref.run_node("BatchNormalization", [x, scale, offset, mean, variance], epsilon=eps)
    assert_close(y, ref, dtype)
    if fmt is not None:
        # offset != 0 and mean != 0: padding lanes must still be exactly zero
        (yp,) = run_function(module, [ge.to_physical(x_t, x)], physical=True)
        assert np.all(padding_lanes(yp, c) == 0)
        assert_exact(ge.to_logical(x_t, yp), y)


# --------------------------------------------------------------------------------------
# unary elementwise ops
# --------------------------------------------------------------------------------------

# name: (build ge op, ONNX op, ONNX extra inputs(dtype), ONNX attrs, exact)
UNARY = {
    "relu": (lambda v: ge.ReluOp(v), "Relu", lambda dt: [], {}, True),
    "relu6": (lambda v: ge.Relu6Op(v), "Clip",
              lambda dt: [np.array(0, dt), np.array(6, dt)], {}, True),
    "leaky_relu": (lambda v: ge.LeakyReluOp(v, 0.1), "LeakyRelu", lambda dt: [],
                   {"alpha": 0.1}, False),
    "leaky_relu_default": (lambda v: ge.LeakyReluOp(v), "LeakyRelu", lambda dt: [],
                           {"alpha": 0.01}, False),
    "sigmoid": (lambda v: ge.SigmoidOp(v), "Sigmoid", lambda dt: [], {}, False),
    # bounds exactly representable in fp16: clipping is then exact data movement
    "clip": (lambda v: ge.ClipOp(v, -0.5, 0.75), "Clip",
             lambda dt: [np.array(-0.5, dt), np.array(0.75, dt)], {}, True),
    "clip_inexact_bounds": (lambda v: ge.ClipOp(v, -0.3, 0.7), "Clip",
                            lambda dt: [np.array(-0.3, dt), np.array(0.7, dt)], {}, False),
}


def unary_input(dtype) -> np.ndarray:
    rng = np.random.default_rng(17)
    x = uniform(rng, (2, 3, 4, 5), dtype, -8, 8)
    # exact knees and far tails
    x.flat[:8] = np.array([0, -0.0, 6, -6, 0.75, -0.5, 30, -30], dtype)
    return x


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f16"])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_vs_onnxruntime(name, dtype):
    build, onnx_op, extra, attrs, exact = UNARY[name]
    x = unary_input(dtype)
    module = make_module([tensor(x.shape, dtype)], lambda v: build(v).output)
    (y,) = run_function(module, [x])
    ref = onnx_ref.run_node(onnx_op, [x, *extra(dtype)], **attrs)
    if exact:
        assert_exact(y, ref)
    else:
        assert_close(y, ref, dtype)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8], ids=["i8", "ui8"])
def test_relu_int8_exact(dtype):
    info = np.iinfo(dtype)
    x = np.arange(info.min, info.max + 1, dtype=np.int64).astype(dtype).reshape(1, 4, 8, 8)
    module = make_module([tensor(x.shape, dtype)], lambda v: ge.ReluOp(v).output)
    (y,) = run_function(module, [x])
    assert_exact(y, np.maximum(x, 0).astype(dtype))


@pytest.mark.parametrize("dtype,c0", FZ_DTYPES, ids=["f16", "f32", "f32-c0_8"])
def test_sigmoid_nc1hwc0_keeps_padding_lanes_zero(dtype, c0):
    x_shape = (2, 17, 3, 2)
    rng = np.random.default_rng(19)
    x = uniform(rng, x_shape, dtype, -4, 4)
    x_t = tensor(x_shape, dtype, "NC1HWC0", c0)
    module = make_module([x_t], lambda v: ge.SigmoidOp(v).output)
    (yp,) = run_function(module, [ge.to_physical(x_t, x)], physical=True)
    assert yp.shape == ge.physical_shape(x_t)
    lanes = padding_lanes(yp, 17)
    assert lanes.size > 0 and np.all(lanes == 0)  # sigmoid(0) = 0.5 must not leak in
    (y,) = run_function(module, [x])
    assert_exact(ge.to_logical(x_t, yp), y)
    assert_close(y, onnx_ref.run_node("Sigmoid", [x]), dtype)


# --------------------------------------------------------------------------------------
# binary elementwise ops
# --------------------------------------------------------------------------------------

BINARY = {"add": (ge.AddOp, "Add", np.add), "sub": (ge.SubOp, "Sub", np.subtract),
          "mul": (ge.MulOp, "Mul", np.multiply)}
BROADCASTS = {
    "same": ((2, 3, 4, 5), (2, 3, 4, 5)),
    "channel_rhs": ((2, 3, 4, 5), (1, 3, 1, 1)),
    "channel_lhs": ((1, 3, 1, 1), (2, 3, 4, 5)),
    "rank1_rhs": ((2, 3, 4, 5), (5,)),
    "rank1_lhs": ((5,), (2, 3, 4, 5)),
    "rank2_rhs": ((2, 3, 4, 5), (4, 1)),
    "both": ((2, 1, 4, 1), (1, 3, 1, 5)),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f16"])
@pytest.mark.parametrize("shapes", list(BROADCASTS))
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_broadcast_vs_onnxruntime(op, shapes, dtype):
    ge_op, onnx_op, _ = BINARY[op]
    a_shape, b_shape = BROADCASTS[shapes]
    rng = np.random.default_rng(23)
    a = uniform(rng, a_shape, dtype, -3, 3)
    b = uniform(rng, b_shape, dtype, -3, 3)
    out_t = tensor(np.broadcast_shapes(a_shape, b_shape), dtype)
    module = make_module([tensor(a_shape, dtype), tensor(b_shape, dtype)],
                         lambda x, y: ge_op(x, y, out_t).output)
    (y,) = run_function(module, [a, b])
    assert_close(y, onnx_ref.run_node(onnx_op, [a, b]), dtype)


@pytest.mark.parametrize("op", list(BINARY))
def test_binary_nc1hwc0_with_channel_constant_keeps_padding_zero(op):
    """x (NC1HWC0) op const[1, C, 1, 1] (NC1HWC0): the constant's padding must not leak."""
    ge_op, onnx_op, _ = BINARY[op]
    dtype = np.float16
    rng = np.random.default_rng(29)
    x = uniform(rng, (2, 17, 3, 3), dtype)
    c = uniform(rng, (1, 17, 1, 1), dtype, 1, 2)
    x_t = tensor(x.shape, dtype, "NC1HWC0")
    module = make_module([x_t], lambda v: ge_op(v, const(c, "NC1HWC0"), x_t).output)
    (yp,) = run_function(module, [ge.to_physical(x_t, x)], physical=True)
    assert np.all(padding_lanes(yp, 17) == 0)
    (y,) = run_function(module, [x])
    assert_close(y, onnx_ref.run_node(onnx_op, [x, c]), dtype)


# (op, dtype, lhs, rhs): expected = clip(exact integer result)
SATURATION = [
    ("add", np.int8, [100, -100, 50, 127, -128, 0], [100, -100, -50, 1, -1, 0]),
    ("add", np.uint8, [200, 0, 255, 100, 1, 128], [100, 0, 1, 100, 2, 127]),
    ("sub", np.int8, [-100, 100, 0, -128, 127, 5], [100, -100, -128, 1, -1, 5]),
    ("sub", np.uint8, [3, 0, 255, 200, 5, 0], [5, 1, 0, 100, 5, 255]),
    ("mul", np.int8, [100, -100, 12, -12, 11, -1], [2, 2, 11, 11, -12, -128]),
    ("mul", np.uint8, [16, 200, 15, 0, 1, 255], [16, 2, 17, 255, 255, 1]),
]


@pytest.mark.parametrize("op,dtype,lhs,rhs", SATURATION,
                         ids=[f"{o}-{np.dtype(d).name}" for o, d, _, _ in SATURATION])
def test_int8_arithmetic_saturates(op, dtype, lhs, rhs):
    ge_op, _, np_op = BINARY[op]
    a, b = np.array(lhs, dtype), np.array(rhs, dtype)
    info = np.iinfo(dtype)
    expected = np.clip(np_op(a.astype(np.int64), b.astype(np.int64)), info.min, info.max)
    t = tensor(a.shape, dtype)
    module = make_module([t, t], lambda x, y: ge_op(x, y).output)
    (y,) = run_function(module, [a, b])
    assert_exact(y, expected.astype(dtype))


def test_int8_add_spot_values():
    t8, tu8 = tensor((2,), np.int8), tensor((1,), np.uint8)
    m8 = make_module([t8, t8], lambda x, y: ge.AddOp(x, y).output)
    (y,) = run_function(m8, [np.array([100, -100], np.int8), np.array([100, -100], np.int8)])
    assert y.tolist() == [127, -128]
    mu8 = make_module([tu8, tu8], lambda x, y: ge.AddOp(x, y).output)
    (y,) = run_function(mu8, [np.array([200], np.uint8), np.array([100], np.uint8)])
    assert y.tolist() == [255]


def test_int8_add_nc1hwc0_broadcast():
    """int8 NC1HWC0 uses C0 = 32; [1, C, 1, 1] broadcast; saturates; padding stays zero."""
    rng = np.random.default_rng(31)
    a = rng.integers(-128, 128, (1, 33, 2, 3)).astype(np.int8)
    b = rng.integers(-128, 128, (1, 33, 1, 1)).astype(np.int8)
    a_t, b_t = tensor(a.shape, np.int8, "NC1HWC0"), tensor(b.shape, np.int8, "NC1HWC0")
    assert ge.physical_shape(a_t) == (1, 2, 2, 3, 32)
    module = make_module([a_t, b_t], lambda x, y: ge.AddOp(x, y, a_t).output)
    (y,) = run_function(module, [a, b])
    assert_exact(y, np.clip(a.astype(np.int32) + b, -128, 127).astype(np.int8))
    (yp,) = run_function(module, [ge.to_physical(a_t, a), ge.to_physical(b_t, b)],
                         physical=True)
    assert np.all(padding_lanes(yp, 33) == 0)


# --------------------------------------------------------------------------------------
# trans_data
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype,c0", [(np.float16, 0), (np.float32, 0), (np.float32, 8),
                                      (np.int8, 0), (np.uint8, 0)],
                         ids=["f16", "f32", "f32-c0_8", "i8", "ui8"])
def test_trans_data_nc1hwc0_round_trip(dtype, c0):
    x = distinct((2, 17, 3, 4), dtype)
    plain = tensor(x.shape, dtype)
    five = tensor(x.shape, dtype, "NC1HWC0", c0)

    def body(v):
        packed = ge.TransDataOp(v, five).output
        return [ge.TransDataOp(packed, plain).output, packed]

    module = make_module([plain], body)
    back, packed = run_function(module, [x])
    assert_exact(back, x)
    assert_exact(packed, x)  # logical view of the packed value
    _, packed_p = run_function(module, [x], physical=True)
    eff_c0 = c0 or (32 if np.dtype(dtype).itemsize == 1 else 16)
    assert packed_p.shape == (2, -(-17 // eff_c0), 3, 4, eff_c0)
    assert np.all(padding_lanes(packed_p, 17) == 0)
    # hand-computed: logical (n, c, h, w) at physical (n, c // C0, h, w, c % C0)
    for n, c, h, w in [(0, 16, 1, 2), (1, 5, 2, 3), (1, 0, 0, 0), (0, 9, 0, 1)]:
        assert packed_p[n, c // eff_c0, h, w, c % eff_c0] == x[n, c, h, w]


def test_trans_data_nc1hwc0_hand_position_f16():
    x = distinct((1, 17, 2, 3), np.float16)
    five = tensor(x.shape, np.float16, "NC1HWC0")
    module = make_module([tensor(x.shape, np.float16)],
                         lambda v: ge.TransDataOp(v, five).output)
    (p,) = run_function(module, [x], physical=True)
    assert p.shape == (1, 2, 2, 3, 16)
    assert p[0, 1, 1, 2, 0] == x[0, 16, 1, 2]
    assert p[0, 0, 1, 2, 15] == x[0, 15, 1, 2]
    assert np.all(p[0, 1, :, :, 1:] == 0)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8])
def test_trans_data_nhwc_round_trip(dtype):
    x = distinct((2, 3, 4, 5), dtype)
    plain = tensor(x.shape, dtype)
    nhwc = tensor(x.shape, dtype, "NHWC")

    def body(v):
        t = ge.TransDataOp(v, nhwc).output
        return [t, ge.TransDataOp(t, plain).output]

    module = make_module([plain], body)
    logical, back = run_function(module, [x])
    assert_exact(logical, x)
    assert_exact(back, x)
    phys, _ = run_function(module, [x], physical=True)
    assert phys.shape == (2, 4, 5, 3)
    assert phys[1, 3, 2, 0] == x[1, 0, 3, 2]
    assert phys[0, 1, 4, 2] == x[0, 2, 1, 4]
    assert_exact(phys, x.transpose(0, 2, 3, 1))


# name: (OIHW logical shape, C per group; groups, dtype, hand positions [(oihw), (fz)])
FZ_CONSTS = {
    # groups = 1: FZ[(c1*H + h)*W + w][n1][n0][c0] = W[n1*16 + n0][c1*C0 + c0][h][w]
    "dense_f16": ((18, 17, 3, 3), 1, np.float16,
                  [((17, 16, 2, 1), (16, 1, 1, 0)), ((3, 5, 0, 2), (2, 0, 3, 5))]),
    # groups = 2, cin 2, cout 3, C0 16: e_mult = min(lcm(16,2)/2=8, lcm(3,16)/3=16, 2) = 2
    # g = 1, c = 1, n = 2 -> dst_ci = 3, dst_co = 5
    "grouped_f32": ((6, 2, 3, 3), 2, np.float32, [((5, 1, 1, 2), ((0 * 3 + 1) * 3 + 2, 0, 5, 3))]),
    # depthwise 17: e_mult = 16, c1 = 1, g_dim = 2, n1 = 1 -> shape (18, 1, 16, 16)
    "depthwise_f16": ((17, 1, 3, 3), 17, np.float16,
                      [((16, 0, 1, 2), (((1 * 1 + 0) * 3 + 1) * 3 + 2, 0, 0, 0)),
                       ((5, 0, 2, 0), ((0 * 3 + 2) * 3 + 0, 0, 5, 5))]),
}


@pytest.mark.parametrize("name", list(FZ_CONSTS))
def test_trans_data_fractal_z_const_to_oihw(name):
    shape, groups, dtype, positions = FZ_CONSTS[name]
    w = distinct(shape, dtype)
    fz_t = tensor(shape, dtype, "FRACTAL_Z", 0, groups)
    plain = tensor(shape, dtype)

    def body():
        c = ge.ConstOp.from_numpy(w, fz_t).output
        return [ge.TransDataOp(c, plain).output, c]

    module = make_module([], body)
    oihw, fz_logical = run_function(module, [])
    assert_exact(oihw, w)
    assert_exact(fz_logical, w)
    oihw_p, fz = run_function(module, [], physical=True)
    assert_exact(oihw_p, w)
    assert fz.shape == ge.physical_shape(fz_t)
    for logical_idx, physical_idx in positions:
        assert fz[physical_idx] == w[logical_idx], (logical_idx, physical_idx)
    # every stored value appears exactly once; the rest is zero padding
    assert np.count_nonzero(fz) == w.size
    assert sorted(fz[fz != 0].tolist()) == sorted(w.ravel().tolist())


def test_fractal_z_depthwise_physical_shape():
    assert ge.physical_shape(tensor((17, 1, 3, 3), np.float16, "FRACTAL_Z", 0, 17)) == (
        18, 1, 16, 16)
    assert ge.physical_shape(tensor((18, 17, 3, 3), np.float16, "FRACTAL_Z")) == (18, 2, 16, 16)


def test_trans_data_oihw_to_fractal_z_argument():
    w = distinct((18, 17, 3, 3), np.float16)
    fz_t = tensor(w.shape, np.float16, "FRACTAL_Z")
    module = make_module([tensor(w.shape, np.float16)], lambda v: ge.TransDataOp(v, fz_t).output)
    (fz,) = run_function(module, [w], physical=True)
    assert fz.shape == (18, 2, 16, 16)
    assert fz[16, 1, 1, 0] == w[17, 16, 2, 1]
    (back,) = run_function(module, [w])
    assert_exact(back, w)


# --------------------------------------------------------------------------------------
# the bundled example, whole model
# --------------------------------------------------------------------------------------


def to_onnx(module: ModuleOp):
    """A direct translation of the example's ops into ONNX nodes and initializers."""
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    names: dict[SSAValue, str] = {}
    for i, arg in enumerate(fn.body.block.args):
        names[arg] = f"arg{i}"
    nodes, inits, outputs = [], {}, []
    for k, op in enumerate(fn.body.block.ops):
        out = f"v{k}"
        ins = [names[v] for v in op.operands]
        if isinstance(op, ge.ConstOp):
            inits[out] = np.array(op.logical_array())
        elif isinstance(op, ge.Conv2DOp):
            filter_type = op.filter.type
            assert isinstance(filter_type, TensorType)
            w_shape = filter_type.get_shape()
            nodes.append(helper.make_node("Conv", ins, [out], **conv_attrs(
                w_shape, op.strides.get_values(), op.pads.get_values(),
                op.dilations.get_values(), op.groups.value.data)))
        elif isinstance(op, ge.BatchNormOp):
            nodes.append(helper.make_node("BatchNormalization", ins, [out],
                                          epsilon=op.epsilon.value.data))
        elif isinstance(op, ge.ReluOp):
            nodes.append(helper.make_node("Relu", ins, [out]))
        elif isinstance(op, ge.AddOp):
            nodes.append(helper.make_node("Add", ins, [out]))
        elif isinstance(op, func.ReturnOp):
            outputs = ins
            continue
        else:
            raise AssertionError(f"unexpected op {op.name} in the example")
        names[op.results[0]] = out
    return nodes, inits, outputs


def test_resnet_block_example_vs_onnxruntime():
    module = parse_file(EXAMPLE)
    module.verify()
    nodes, inits, outputs = to_onnx(module)
    assert [n.op_type for n in nodes] == [
        "Conv", "BatchNormalization", "Relu", "Conv", "BatchNormalization", "Add", "Relu"]
    x = uniform(np.random.default_rng(37), (1, 8, 8, 8), np.float32)
    (y,) = run_function(module, [x])
    (ref,) = onnx_ref.run_graph(nodes, {"arg0": x}, outputs, inits)
    assert np.count_nonzero(ref) > ref.size // 4  # not a degenerate all-zero output
    assert_close(y, ref, np.float32, whole_model=True)


# --------------------------------------------------------------------------------------
# run_function errors
# --------------------------------------------------------------------------------------


def two_input_sub() -> ModuleOp:
    t = tensor((1, 3, 4, 4), np.float32)
    return make_module([t, t], lambda a, b: ge.SubOp(a, b).output)


def test_run_function_wrong_number_of_inputs():
    module = two_input_sub()
    x = np.zeros((1, 3, 4, 4), np.float32)
    with pytest.raises(GeError, match=r"@main takes 2 inputs, got 1"):
        run_function(module, [x])
    with pytest.raises(GeError, match=r"@main takes 2 inputs, got 3"):
        run_function(module, [x, x, x])


def test_run_function_wrong_input_shape():
    module = two_input_sub()
    x = np.zeros((1, 3, 4, 4), np.float32)
    with pytest.raises(GeError, match=r"input #1 has shape \[1, 3, 4\], expected \[1, 3, 4, 4\]"):
        run_function(module, [x, np.zeros((1, 3, 4), np.float32)])


def test_run_function_physical_expects_physical_shape():
    t = tensor((1, 17, 2, 2), np.float16, "NC1HWC0")
    module = make_module([t], lambda v: ge.ReluOp(v).output)
    x = np.zeros((1, 17, 2, 2), np.float16)
    with pytest.raises(GeError, match=r"input #0 has shape \[1, 17, 2, 2\], "
                                      r"expected \[1, 2, 2, 2, 16\]"):
        run_function(module, [x], physical=True)
    with pytest.raises(GeError, match=r"expected \[1, 17, 2, 2\]"):
        run_function(module, [ge.to_physical(t, x)])


def test_run_function_unknown_function():
    with pytest.raises(GeError, match=r"no function '@nope'"):
        run_function(two_input_sub(), [], function="nope")


def test_run_function_no_function():
    with pytest.raises(GeError, match="no function to run"):
        run_function(ModuleOp([]), [])


def test_parsed_splat_constant():
    text = (
        "func.func @f(%x: tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32> {\n"
        "  %s = ge.const dense<0.5> : tensor<1x3x1x1xf32>\n"
        "  %y = ge.mul %x, %s : (tensor<1x3x2x2xf32>, tensor<1x3x1x1xf32>) -> tensor<1x3x2x2xf32>\n"
        "  func.return %y : tensor<1x3x2x2xf32>\n"
        "}\n"
    )
    module = LocatingParser(make_context(), text, "splat.mlir").parse_module()
    module.verify()
    x = uniform(np.random.default_rng(41), (1, 3, 2, 2), np.float32)
    (y,) = run_function(module, [x])
    assert_exact(y, x * np.float32(0.5))


def test_run_function_elided_constant_built():
    t = tensor((2, 3), np.float32)
    module = make_module([t], lambda v: ge.AddOp(v, ge.ConstOp(ge.ElidedAttr(), t).output).output)
    with pytest.raises(GeError, match="elided"):
        run_function(module, [np.zeros((2, 3), np.float32)])


def test_run_function_elided_constant_parsed():
    text = (
        "func.func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {\n"
        "  %w = ge.const #ge.elided : tensor<4x4xf32>\n"
        "  %y = ge.add %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>\n"
        "  func.return %y : tensor<4x4xf32>\n"
        "}\n"
    )
    module = LocatingParser(make_context(), text, "elided.mlir").parse_module()
    module.verify()
    with pytest.raises(GeError, match=r"^elided\.mlir:2:\d+: error: 'ge.const' op .*elided"):
        run_function(module, [np.zeros((4, 4), np.float32)])


def test_run_function_mapping_inputs_in_order():
    module = two_input_sub()
    a = np.full((1, 3, 4, 4), 5, np.float32)
    b = np.ones((1, 3, 4, 4), np.float32)
    (y,) = run_function(module, {0: a, 1: b})
    assert_exact(y, a - b)


def test_run_function_mapping_inputs_by_index():
    module = two_input_sub()
    a = np.full((1, 3, 4, 4), 5, np.float32)
    b = np.ones((1, 3, 4, 4), np.float32)
    (y,) = run_function(module, {1: b, 0: a})
    assert_exact(y, a - b)


def test_run_function_mapping_bad_index_is_an_error():
    module = two_input_sub()
    a = np.zeros((1, 3, 4, 4), np.float32)
    with pytest.raises(GeError, match=r"takes inputs 0\.\.1, got keys \[0, 7\]"):
        run_function(module, {0: a, 7: a})
