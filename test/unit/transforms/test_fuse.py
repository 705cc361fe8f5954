"""`--fuse` (transforms/fuse.py): the graph before and after the pass computes the same numbers.

- A Hypothesis property test builds random conv / batch_norm / per-channel mul, add and
  sub (either operand order) / residual add / activation chains (groups incl. depthwise, strides, pads, dilations, with
  and without bias, fp32 and fp16), applies `FusePass` to a clone, verifies the result and
  compares both with the reference interpreter under docs/architecture.md's tolerances.  It also
  checks that the pass reached its fixpoint (nothing it could still fuse is left) and that
  it fused something in most examples, so it cannot pass vacuously.
- Directed tests pin each pattern and each refusal (multi-use, non-constant or elided
  weights, stream labels, wait_tensor, fp16 overflow/underflow, assigned modules, shared
  weights), exact float64 folding, locations, NC1HWC0 activations with FRACTAL_Z weights.
- ResNet- and MobileNet-style ONNX blocks built with `onnx.helper`, imported, canonicalized
  and fused leave no batch_norm and no activation that could have fused, and match
  onnxruntime (whole-model tolerance); the same through the `ge-opt` command line.

Random data follows docs/architecture.md: weights ~ N(0, 1/fan_in), inputs ~ U(-1, 1), BN variance in
[0.1, 10].  A fused fp16 chain is compared, under the fp16 tolerance, with the unfused fp16
graph and with the same graph computed in fp32 (the fp16 data is exact in fp32), both by
the same interpreter.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

import numpy as np
import onnx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import NodeProto, helper
from xdsl.dialects.builtin import (
    ArrayAttr,
    FusedLoc,
    ModuleOp,
    NameLoc,
    StringAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.printer import Printer
from xdsl.transforms.canonicalize import CanonicalizePass

from helpers import onnx_ref
from ge_dialect.ir.dialects import ge, stream
from ge_dialect.frontend.builder import GraphBuilder, Tensor
from ge_dialect.utils.errors import GeError
from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from ge_dialect.frontend import import_onnx
from ge_dialect.ir.interpreter import run_function
from ge_dialect.tools.ge_opt import main as ge_opt_main
from ge_dialect.ir.verify import verify_module
from helpers.support import assert_close, conv_attrs, uniform, weights
from transforms.common import operand_orders
from transforms.fuse import FusePass

F32, F16 = np.float32, np.float16
DTYPES = {"f32": F32, "f16": F16}
ACTIVATION_OPS = ("ge.relu", "ge.relu6", "ge.leaky_relu", "ge.sigmoid", "ge.clip")


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def fuse(module: ModuleOp) -> ModuleOp:
    """A fused clone of `module`, verified (op verifiers, dominance, stream rules)."""
    fused = module.clone()
    FusePass().apply(make_context(), fused)
    verify_module(fused, "<fused>")
    return fused


def ge_ops(module: ModuleOp) -> list[Operation]:
    return [op for op in module.walk() if op.name.startswith(("ge.", "stream."))]


def op_counts(module: ModuleOp) -> Counter[str]:
    return Counter(op.name for op in ge_ops(module))


OpT = TypeVar("OpT", bound=Operation)


def ops_of(module: ModuleOp, kind: type[OpT]) -> list[OpT]:
    """The ops of class `kind` in `module`, in walk order."""
    return [op for op in module.walk() if isinstance(op, kind)]


def const_array(value: SSAValue | None) -> np.ndarray:
    """The logical array of the `ge.const` that defines `value`."""
    assert value is not None and isinstance(value.owner, ge.ConstOp), value
    return value.owner.logical_array()


def entry_block(op: Operation) -> Block:
    """The block holding `op` (the function body in these tests)."""
    block = op.parent_block()
    assert block is not None
    return block


def text(module: ModuleOp) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def assert_same_numbers(before: ModuleOp, after: ModuleOp, inputs: Sequence[np.ndarray],
                        dtype) -> list[np.ndarray]:
    ref = run_function(before, list(inputs))
    out = run_function(after, list(inputs))
    assert len(out) == len(ref)
    for a, r in zip(out, ref):
        assert_close(a, r, dtype)
    return out


def bn_arrays(rng, c, dtype=F32) -> list[np.ndarray]:
    """gamma, beta, mean, variance: moderate values, variance in [0.1, 10]."""
    return [rng.uniform(0.5, 1.5, c).astype(dtype), rng.uniform(-0.5, 0.5, c).astype(dtype),
            rng.uniform(-0.3, 0.3, c).astype(dtype), rng.uniform(0.1, 10.0, c).astype(dtype)]


def bn_of(b: GraphBuilder, x: Tensor, arrays: Sequence[np.ndarray],
          epsilon: float = 1e-5) -> Tensor:
    """A batch_norm of `x` whose gamma, beta, mean and variance are constants of `arrays`."""
    gamma, beta, mean, var = (b.const(a) for a in arrays)
    return b.batch_norm(x, gamma, beta, mean, var, epsilon=epsilon)


def bn(b: GraphBuilder, x: Tensor, rng, dtype=F32, epsilon=1e-5) -> Tensor:
    return bn_of(b, x, bn_arrays(rng, x.shape[1], dtype), epsilon)


def locate(t: Tensor, name: str) -> Tensor:
    owner = t.value.owner
    assert isinstance(owner, Operation)
    owner.location = NameLoc(StringAttr(name), UnknownLoc())
    return t


def loc_names(loc: Attribute) -> set[str]:
    inner: Sequence[Attribute] = (loc,)
    if isinstance(loc, FusedLoc):
        assert isinstance(loc.locations, ArrayAttr)
        inner = loc.locations.data
    return {x.desc.data for x in inner if isinstance(x, NameLoc)}


# --------------------------------------------------------------------------------------
# What the pass could still fuse (its fixpoint), written from the documented conditions
# --------------------------------------------------------------------------------------


def _readable(value: SSAValue | None) -> bool:
    return (value is None or (isinstance(value.owner, ge.ConstOp)
                              and not isinstance(value.owner.value, ge.ElidedAttr)))


def _fusable_conv(value: SSAValue, user: Operation, allow_residual: bool) -> bool:
    conv = value.owner
    if not isinstance(conv, ge.Conv2DOp | ge.FusedConv2DOp):
        return False
    if not value.has_one_use() or not _readable(conv.filter) or not _readable(conv.bias):
        return False
    if conv.attributes.get(stream.LABEL) != user.attributes.get(stream.LABEL):
        return False
    if isinstance(conv, ge.FusedConv2DOp):
        if conv.activation.data != ge.Activation.NONE:
            return False
        if conv.residual is not None and not allow_residual:
            return False
    return True


def _per_channel(value: SSAValue, out_type) -> bool:
    if not _readable(value):
        return False
    t = value.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    if len(shape) > 4:
        return False
    shape = [1] * (4 - len(shape)) + shape
    return shape[0] == shape[2] == shape[3] == 1 and shape[1] in (1, out_type.get_shape()[1])


def missed_fusions(module: ModuleOp) -> list[Operation]:
    """Ops `--fuse` leaves although a conv producing their operand could absorb them."""
    missed: list[Operation] = []
    for op in module.walk():
        if isinstance(op, ge.BatchNormOp):
            if _fusable_conv(op.input, op, False) and all(
                    _readable(v) for v in (op.scale, op.offset, op.mean, op.variance)):
                missed.append(op)
        elif isinstance(op, ge.ReluOp | ge.Relu6Op | ge.LeakyReluOp | ge.SigmoidOp | ge.ClipOp):
            if isinstance(op, ge.ClipOp) and (op.min.value.data, op.max.value.data) != (0, 6):
                continue
            if _fusable_conv(op.input, op, True):
                missed.append(op)
        elif isinstance(op, ge.MulOp | ge.AddOp):
            out = op.output.type
            for v, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
                if v.type != out:
                    continue
                if _per_channel(other, out) and _fusable_conv(v, op, isinstance(op, ge.AddOp)):
                    missed.append(op)
                    break
                if isinstance(op, ge.AddOp) and other.type == out and _fusable_conv(v, op, False):
                    missed.append(op)
                    break
        elif isinstance(op, ge.SubOp):
            out = op.output.type
            # conv - t (a residual may stay), t - conv (the residual would change sign)
            for v, other, residual_ok in ((op.lhs, op.rhs, True), (op.rhs, op.lhs, False)):
                if v.type == out and _per_channel(other, out) and _fusable_conv(v, op,
                                                                                 residual_ok):
                    missed.append(op)
                    break
    return missed


# --------------------------------------------------------------------------------------
# Random chains (Hypothesis)
# --------------------------------------------------------------------------------------

CONST_SHAPES = ["1c11", "c11", "1", "1111", "hw", "full"]
ACTS = ["relu", "relu6", "clip06", "clip_other", "leaky_relu", "sigmoid"]


def _out_size(size, k, s, p0, p1, d):
    return (size + p0 + p1 - d * (k - 1) - 1) // s + 1


@st.composite
def conv_specs(draw, c: int, h: int, w: int, keep_shape: bool) -> dict:
    """A conv of a c-channel h x w input; `keep_shape` keeps the output shape (c, h, w)."""
    kind = draw(st.sampled_from(["dense", "grouped", "depthwise"]))
    divisors = [g for g in range(2, c + 1) if c % g == 0]
    if kind == "depthwise":
        groups = c
        cout = c * (1 if keep_shape else draw(st.integers(1, 2)))
    elif kind == "grouped" and divisors:
        groups = draw(st.sampled_from(divisors))
        cout = c if keep_shape else groups * draw(st.integers(1, 2))
    else:
        groups = 1
        cout = c if keep_shape else draw(st.integers(1, 8))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dilations = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    if keep_shape:
        strides = (1, 1)
        th, tw = dilations[0] * (kh - 1), dilations[1] * (kw - 1)
        top, left = draw(st.integers(0, th)), draw(st.integers(0, tw))
        pads = (top, th - top, left, tw - left)
    else:
        strides = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
        pads = tuple(draw(st.integers(0, 2)) for _ in range(4))
        if (_out_size(h, kh, strides[0], pads[0], pads[1], dilations[0]) < 1
                or _out_size(w, kw, strides[1], pads[2], pads[3], dilations[1]) < 1):
            kh = kw = 1
            dilations = (1, 1)
    return dict(cout=cout, groups=groups, kernel=(kh, kw), strides=strides, pads=pads,
                dilations=dilations, bias=draw(st.booleans()))


@st.composite
def post_ops(draw, keep_shape: bool, first: bool) -> tuple:
    kinds = ["bn", "mul", "add", "sub", "rsub", "residual", "act", "leak", "wait"]
    weights_ = [3, 2, 2, 1, 1, 3, 3, 1, 1] if first else [2, 1, 1, 1, 1, 1, 3, 1, 1]
    kind = draw(st.sampled_from([k for k, n in zip(kinds, weights_) for _ in range(n)]))
    if kind == "bn":
        return ("bn", draw(st.booleans()), draw(st.sampled_from([1e-5, 1e-3])))
    if kind in ("mul", "add", "sub", "rsub"):  # rsub: the constant minus the value
        return (kind, draw(st.sampled_from(CONST_SHAPES[:4] * 3 + CONST_SHAPES[4:])))
    if kind == "residual":
        kinds = ["input", "conv", "conv"] + (["identity"] * 2 if keep_shape else [])
        which = draw(st.sampled_from(kinds))
        if which == "conv":
            return ("residual", "conv", dict(bias=draw(st.booleans()), bn=draw(st.booleans()),
                                             before=draw(st.booleans()),
                                             lhs=draw(st.booleans()),
                                             groups1=draw(st.booleans())))
        return ("residual", which, dict(lhs=draw(st.booleans())))
    if kind == "act":
        act = draw(st.sampled_from(ACTS))
        alpha = draw(st.sampled_from([0.01, 0.2, 1.5])) if act == "leaky_relu" else None
        return ("act", act, alpha)
    return (kind,)


@st.composite
def chains(draw) -> dict:
    dtype = draw(st.sampled_from(["f32", "f16"]))
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 6))
    h, w = draw(st.integers(3, 7)), draw(st.integers(3, 7))
    input_shape = (n, c, h, w)
    blocks = []
    for _ in range(draw(st.integers(1, 3))):
        keep = draw(st.booleans())
        conv = draw(conv_specs(c, h, w, keep))
        post = [draw(post_ops(keep, i == 0)) for i in range(draw(st.integers(1, 4)))]
        # a stream label "1" on the conv and on each post op, now and then
        labels = [draw(st.sampled_from([False] * 5 + [True])) for _ in range(len(post) + 1)]
        blocks.append(dict(conv=conv, post=post, labels=labels))
        c = conv["cout"]
        kh, kw = conv["kernel"]
        top, bottom, left, right = conv["pads"]
        h = _out_size(h, kh, conv["strides"][0], top, bottom, conv["dilations"][0])
        w = _out_size(w, kw, conv["strides"][1], left, right, conv["dilations"][1])
    return dict(dtype=dtype, seed=draw(st.integers(0, 2**16)), input=input_shape, blocks=blocks)


def build_chain(spec: dict, compute: np.dtype | None = None) -> tuple[ModuleOp, list[np.ndarray]]:
    """The spec's graph and inputs.  Data is drawn in the spec's dtype and, with `compute`
    (fp32 for an fp16 spec), built in that dtype from the same (exactly representable) data."""
    dtype = np.dtype(DTYPES[spec["dtype"]])
    compute = np.dtype(dtype if compute is None else compute)
    rng = np.random.default_rng(spec["seed"])

    def data(a: np.ndarray, param_f32: bool = False) -> np.ndarray:
        a = a.astype(F32 if param_f32 else dtype)
        return a.astype(F32 if param_f32 else compute)

    b = GraphBuilder("main")
    inputs: list[np.ndarray] = []

    def arg(shape) -> Tensor:
        inputs.append(data(rng.uniform(-1, 1, shape)))
        return b.input(f"in{len(inputs) - 1}", shape, compute)

    def conv(x: Tensor, cs: dict, groups: int | None = None, bias: bool | None = None) -> Tensor:
        g = cs["groups"] if groups is None else groups
        wv = b.const(data(rng.normal(0, 1, (cs["cout"], x.shape[1] // g, *cs["kernel"]))
                          / np.sqrt(x.shape[1] // g * cs["kernel"][0] * cs["kernel"][1])))
        bias = cs["bias"] if bias is None else bias
        bv = b.const(data(rng.uniform(-0.5, 0.5, cs["cout"]))) if bias else None
        return b.conv2d(x, wv, bv, cs["strides"], cs["pads"], cs["dilations"], g)

    def constant(shape_kind: str, like: Tensor, mul: bool) -> Tensor:
        n, c, h, w = like.shape
        shape = {"1c11": (1, c, 1, 1), "c11": (c, 1, 1), "1": (1,), "1111": (1, 1, 1, 1),
                 "hw": (1, 1, h, w), "full": (1, c, h, w)}[shape_kind]
        if mul:
            values = rng.uniform(0.25, 4.0, shape) * rng.choice([-1.0, 1.0], shape)
        else:
            values = rng.uniform(-1, 1, shape)
        return b.const(data(values))

    def labelled(label: bool):
        return b.stream_switch("1") if label else contextlib.nullcontext()

    x = chain_in = arg(spec["input"])
    outputs: list[Tensor] = []
    for block in spec["blocks"]:
        cs, post = block["conv"], block["post"]
        block_in = x
        side_first = [p for p in post if p[0] == "residual" and p[1] == "conv" and p[2]["before"]]
        early: list[Tensor] = []
        for p in side_first:
            s = conv(block_in, cs, 1 if p[2]["groups1"] else None, p[2]["bias"])
            early.append(bn(b, s, rng) if p[2]["bn"] else s)
        with labelled(block["labels"][0]):
            x = conv(block_in, cs)
        for p, label in zip(post, block["labels"][1:], strict=True):
            kind = p[0]
            scope = labelled(label)
            scope.__enter__()
            if kind == "bn":
                arrays = [data(a, p[1]) for a in bn_arrays(rng, x.shape[1], np.float64)]
                x = bn_of(b, x, arrays, p[2])
            elif kind in ("mul", "add", "sub", "rsub"):
                k = constant(p[1], x, kind == "mul")
                if kind == "mul":
                    x = b.mul(x, k)
                elif kind == "add":
                    x = b.add(x, k)
                else:
                    x = b.sub(x, k) if kind == "sub" else b.sub(k, x)
            elif kind == "residual":
                which, opts = p[1], p[2]
                if which == "conv":
                    if opts["before"]:
                        other = early.pop(0)
                    else:
                        s = conv(block_in, cs, 1 if opts["groups1"] else None, opts["bias"])
                        other = bn(b, s, rng) if opts["bn"] else s
                elif which == "identity":
                    other = block_in
                else:
                    other = arg(x.shape)
                x = b.add(x, other) if opts["lhs"] else b.add(other, x)
            elif kind == "act":
                act, alpha = p[1], p[2]
                x = {"relu": lambda: b.relu(x), "relu6": lambda: b.relu6(x),
                     "clip06": lambda: b.clip(x, 0.0, 6.0),
                     "clip_other": lambda: b.clip(x, -0.5, 0.5),
                     "leaky_relu": lambda: b.leaky_relu(x, alpha),
                     "sigmoid": lambda: b.sigmoid(x)}[act]()
            elif kind == "wait":  # stream.wait_tensor: blocks a match across it
                x = b.wait_tensor(Tensor(b, x.value), chain_in)
            else:  # leak: the value is also a function result, so nothing fuses into it
                outputs.append(x)
            scope.__exit__(None, None, None)
    return b.build([x, *outputs]), inputs


def expects_fusion(spec: dict) -> bool:
    """Some block's conv is directly followed by an op the pass must absorb."""
    for block in spec["blocks"]:
        first = block["post"][0]
        if block["labels"][0] != block["labels"][1]:
            continue
        if first[0] in ("bn", "mul", "add", "sub", "rsub", "residual"):
            if first[0] in ("mul", "add", "sub", "rsub") and first[1] in ("hw", "full"):
                continue  # not per-channel (an add of a "full" constant fuses only at N = 1)
            return True
        if first[0] == "act" and first[1] != "clip_other":
            return True
    return False


FUSED_STATS: list[bool] = []


def _check_chain(spec: dict) -> None:
    dtype = np.dtype(DTYPES[spec["dtype"]])
    module, inputs = build_chain(spec)
    fused = fuse(module)
    before, after = op_counts(module), op_counts(fused)
    assert not missed_fusions(fused), f"left fusable: {[op.name for op in missed_fusions(fused)]}"
    did_fuse = after["ge.fused_conv2d"] > 0
    if expects_fusion(spec):
        assert did_fuse
        non_const = lambda c: sum(v for k, v in c.items() if k != "ge.const")  # noqa: E731
        assert non_const(after) < non_const(before)
    FUSED_STATS.append(did_fuse)
    # nothing but convs, batch_norm and elementwise ops may disappear
    for name in set(before) - {"ge.conv2d", "ge.batch_norm", "ge.mul", "ge.add", "ge.sub",
                               "ge.const", *ACTIVATION_OPS}:
        assert after[name] == before[name], name
    out = run_function(fused, inputs)
    refs = [run_function(module, inputs)]
    if dtype == np.float16:  # also the same graph in fp32 on the same (fp16-exact) data
        ref32, inputs32 = build_chain(spec, np.dtype(F32))
        refs.append(run_function(ref32, inputs32))
    for ref in refs:
        for a, r in zip(out, ref, strict=True):
            assert_close(a, r, dtype)


@settings(max_examples=100)
@given(spec=chains())
def test_random_chains_compute_the_same_after_fuse(spec):
    _check_chain(spec)


def test_random_chains_mostly_fuse():
    """Run after the property test: the examples were not vacuous."""
    if len(FUSED_STATS) < 20:
        pytest.skip("the property test did not run in this session")
    assert sum(FUSED_STATS) >= 0.75 * len(FUSED_STATS), f"{sum(FUSED_STATS)}/{len(FUSED_STATS)}"


# --------------------------------------------------------------------------------------
# Directed tests: each pattern, exact folding, placement and locations
# --------------------------------------------------------------------------------------


def conv_block(dtype=F32, bias=True, groups=1, c=4, cout=6, seed=0):
    """A builder with x -> conv2d (3x3, pads 1); returns (builder, rng, x, conv, w, b, input)."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder()
    x = b.input("x", [2, c, 5, 5], dtype)
    w = weights(rng, (cout, c // groups, 3, 3), dtype)
    bias_v = uniform(rng, (cout,), dtype, -0.5, 0.5) if bias else None
    conv = b.conv2d(x, b.const(w), None if bias_v is None else b.const(bias_v), pads=(1, 1, 1, 1),
                    groups=groups)
    return b, rng, x, conv, w, bias_v, uniform(rng, (2, c, 5, 5), dtype)


def only_fused(module: ModuleOp) -> ge.FusedConv2DOp:
    counts = op_counts(module)
    (op,) = ops_of(module, ge.FusedConv2DOp)
    assert set(counts) == {"ge.const", "ge.fused_conv2d"}, counts
    return op


@pytest.mark.parametrize("dtype", [F32, F16], ids=["f32", "f16"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "nobias"])
def test_batch_norm_folds_in_float64_and_rounds_once(dtype, bias):
    b, rng, _, conv, w, bv, x = conv_block(dtype, bias)
    params = bn_arrays(rng, 6, F32)
    y = b.batch_norm(conv, *(b.const(p) for p in params), epsilon=1e-3)
    module = b.build([y])
    fused = fuse(module)
    op = only_fused(fused)
    gamma, beta, mean, var = (p.astype(np.float64) for p in params)
    s = gamma / np.sqrt(var + float(np.float32(1e-3)))
    b0 = np.zeros(6) if bv is None else bv.astype(np.float64)
    np.testing.assert_array_equal(const_array(op.filter),
                                  (w.astype(np.float64) * s.reshape(-1, 1, 1, 1)).astype(dtype))
    np.testing.assert_array_equal(const_array(op.bias), ((b0 - mean) * s + beta).astype(dtype))
    assert op.activation.data == ge.Activation.NONE and op.residual is None
    assert_same_numbers(module, fused, [x], dtype)


def test_scale_and_shift_fold_into_weight_and_bias():
    b, rng, _, conv, w, bv, x = conv_block()
    s = rng.uniform(-2, 2, (1, 6, 1, 1)).astype(F32)
    t = rng.uniform(-1, 1, (6, 1, 1)).astype(F32)
    y = b.add(b.mul(b.const(s), conv), b.const(t))  # the conv on the rhs of the mul
    module = b.build([y])
    fused = fuse(module)
    op = only_fused(fused)
    s64, t64 = s.reshape(-1).astype(np.float64), t.reshape(-1).astype(np.float64)
    np.testing.assert_array_equal(const_array(op.filter),
                                  (w.astype(np.float64) * s64.reshape(-1, 1, 1, 1)).astype(F32))
    # two roundings: b*s, then + t
    np.testing.assert_array_equal(
        const_array(op.bias),
        (((bv.astype(np.float64) * s64).astype(F32)).astype(np.float64) + t64).astype(F32))
    assert_same_numbers(module, fused, [x], F32)


@pytest.mark.parametrize("dtype", [F32, F16], ids=["f32", "f16"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "nobias"])
@pytest.mark.parametrize("conv_first", [True, False], ids=["conv-minus-t", "t-minus-conv"])
def test_subtraction_of_a_per_channel_constant_folds(dtype, bias, conv_first):
    """conv - t: b' = b - t; t - conv = conv(x, -W) + (t - b): W' = -W (exact), b' = t - b
    in float64 rounded once; the reference interpreter computes the same numbers."""
    b, rng, _, conv, w, bv, x = conv_block(dtype, bias)
    t = uniform(rng, (1, 6, 1, 1), dtype)
    y = b.sub(conv, b.const(t)) if conv_first else b.sub(b.const(t), conv)
    module = b.build([y])
    fused = fuse(module)
    op = only_fused(fused)
    t64 = t.reshape(-1).astype(np.float64)
    b64 = np.zeros(6) if bv is None else bv.astype(np.float64)
    np.testing.assert_array_equal(const_array(op.filter), w if conv_first else -w)
    np.testing.assert_array_equal(const_array(op.bias),
                                  (b64 - t64 if conv_first else t64 - b64).astype(dtype))
    assert_same_numbers(module, fused, [x], dtype)


def test_subtraction_after_a_residual_folds_only_with_the_conv_first():
    """(conv + r) - t = conv + (b - t) + r folds; t - (conv + r) would need -r: it stays."""
    b, rng, xin, conv, *_, x = conv_block(c=6)
    t = b.const(uniform(rng, (6, 1, 1), F32))
    y1 = b.sub(b.add(conv, xin), t)
    conv2 = b.conv2d(xin, b.const(weights(rng, (6, 6, 3, 3), F32)), pads=(1, 1, 1, 1))
    y2 = b.sub(t, b.add(conv2, xin))
    module = b.build([y1, y2])
    fused = fuse(module)
    assert op_counts(fused) == Counter({"ge.const": 4, "ge.fused_conv2d": 2, "ge.sub": 1})
    (sub,) = ops_of(fused, ge.SubOp)
    assert isinstance(sub.lhs.owner, ge.ConstOp) and isinstance(sub.rhs.owner, ge.FusedConv2DOp)
    assert_same_numbers(module, fused, [x], F32)


@pytest.mark.parametrize("shape", [(1,), (1, 1, 1, 1), (6, 1, 1), (1, 6, 1, 1)])
def test_per_channel_constant_shapes_fold(shape):
    b, rng, _, conv, *_, x = conv_block(bias=False)
    y = b.add(b.mul(conv, b.const(rng.uniform(0.5, 2, shape).astype(F32))),
              b.const(rng.uniform(-1, 1, shape).astype(F32)))
    module = b.build([y])
    fused = fuse(module)
    only_fused(fused)
    assert_same_numbers(module, fused, [x], F32)


@pytest.mark.parametrize("shape", [(1, 1, 5, 5), (5,), (6, 5, 1), (2, 6, 1, 1)])
def test_constants_that_are_not_per_channel_do_not_fold(shape):
    """(5,) broadcasts over W, (6, 5, 1) over H, (2, 6, 1, 1) differs per batch element."""
    b, rng, _, conv, *_, x = conv_block(bias=False)
    y = b.mul(conv, b.const(rng.uniform(0.5, 2, shape).astype(F32)))
    module = b.build([y])
    fused = fuse(module)
    assert op_counts(fused) == op_counts(module)
    assert_same_numbers(module, fused, [x], F32)


def test_mul_by_a_non_constant_does_not_fold():
    b, rng, _, conv, *_, x = conv_block()
    s = b.input("s", [1, 6, 1, 1])
    module = b.build([b.mul(conv, s)])
    assert op_counts(fuse(module)) == op_counts(module)


@pytest.mark.parametrize("conv_first", [True, False], ids=["conv-lhs", "conv-rhs"])
def test_either_operand_order_of_mul_and_add_folds(conv_first):
    """ge.mul and ge.add are Commutative: the conv may be either operand."""
    b, rng, _, conv, *_, x = conv_block()
    s = b.const(rng.uniform(0.5, 2, (1, 6, 1, 1)).astype(F32))
    t = b.const(rng.uniform(-1, 1, (1, 6, 1, 1)).astype(F32))
    scaled = b.mul(conv, s) if conv_first else b.mul(s, conv)
    module = b.build([b.add(scaled, t) if conv_first else b.add(t, scaled)])
    fused = fuse(module)
    only_fused(fused)
    assert_same_numbers(module, fused, [x], F32)


def test_add_and_mul_of_other_ranks_are_left_alone():
    """A constant operand of a rank-1 add or mul is no conv's shift or scale (this crashed)."""
    b = GraphBuilder()
    x = b.input("x", [4], "f32")
    k = b.const(np.ones(4, F32))
    module = b.build([b.add(x, k), b.mul(k, x)])
    assert op_counts(fuse(module)) == op_counts(module)


def test_operand_orders_follow_the_commutative_trait():
    b = GraphBuilder()
    x, y = b.input("x", [4], "f32"), b.input("y", [4], "f32")
    outs = [b.add(x, y), b.mul(x, y), b.sub(x, y)]
    b.build(outs)
    add, mul, sub = (t.value.owner for t in outs)
    assert isinstance(add, ge.AddOp) and isinstance(mul, ge.MulOp) and isinstance(sub, ge.SubOp)
    assert operand_orders(add) == ((add.lhs, add.rhs), (add.rhs, add.lhs))
    assert operand_orders(mul) == ((mul.lhs, mul.rhs), (mul.rhs, mul.lhs))
    assert operand_orders(sub) == ((sub.lhs, sub.rhs),)  # not Commutative: as written only


# name: (builder call, activation, alpha)
ACTIVATION_CASES = {
    "relu": (lambda b, v: b.relu(v), "relu", None),
    "relu6": (lambda b, v: b.relu6(v), "relu6", None),
    "clip_0_6": (lambda b, v: b.clip(v, 0.0, 6.0), "relu6", None),
    "leaky_relu": (lambda b, v: b.leaky_relu(v, 0.2), "leaky_relu", 0.2),
    "sigmoid": (lambda b, v: b.sigmoid(v), "sigmoid", None),
}


@pytest.mark.parametrize("dtype", [F32, F16], ids=["f32", "f16"])
@pytest.mark.parametrize("case", list(ACTIVATION_CASES))
def test_activation_fuses(case, dtype):
    make, act, alpha = ACTIVATION_CASES[case]
    b, rng, _, conv, *_, x = conv_block(dtype)
    # scaled so that relu6 and sigmoid see values beyond their knees
    y = make(b, b.mul(conv, b.const(np.full((1, 6, 1, 1), 8, dtype))))
    module = b.build([y])
    fused = fuse(module)
    op = only_fused(fused)
    assert op.activation.data == act
    if alpha is None:
        assert op.alpha is None
    else:
        assert op.alpha is not None and op.alpha.value.data == pytest.approx(alpha)
    out = assert_same_numbers(module, fused, [x], dtype)
    if case in ("relu6", "clip_0_6"):
        assert (out[0] == 6).any() and (out[0] == 0).any()


@pytest.mark.parametrize("bounds", [(0.0, 4.0), (-6.0, 6.0), (-1.0, 0.0)])
def test_other_clips_do_not_fuse(bounds):
    b, rng, _, conv, *_, x = conv_block()
    module = b.build([b.clip(conv, *bounds)])
    fused = fuse(module)
    assert op_counts(fused) == op_counts(module)
    assert_same_numbers(module, fused, [x], F32)


def test_activation_of_an_activated_conv_does_not_fuse():
    b, rng, _, conv, *_, x = conv_block()
    module = b.build([b.sigmoid(b.relu(conv))])
    fused = fuse(module)
    counts = op_counts(fused)
    assert counts["ge.fused_conv2d"] == 1 and counts["ge.sigmoid"] == 1
    assert_same_numbers(module, fused, [x], F32)


def test_residual_then_activation_fuses_into_one_op():
    b, rng, xin, conv, *_, x = conv_block(c=6)
    module = b.build([b.relu(b.add(xin, bn(b, conv, rng)))])
    fused = fuse(module)
    op = only_fused(fused)
    assert op.residual == entry_block(op).args[0]  # the clone's %x
    assert op.activation.data == ge.Activation.RELU
    assert_same_numbers(module, fused, [x], F32)


@pytest.mark.parametrize("side_first", [True, False], ids=["side-first", "main-first"])
@pytest.mark.parametrize("main_lhs", [True, False], ids=["main-lhs", "main-rhs"])
def test_residual_of_two_convs_fuses_into_the_later(side_first, main_lhs):
    rng = np.random.default_rng(3)
    b = GraphBuilder()
    x = b.input("x", [1, 4, 6, 6])
    w_main, w_side = weights(rng, (8, 4, 3, 3), F32), weights(rng, (8, 4, 1, 1), F32)

    def side():
        return bn(b, b.conv2d(x, b.const(w_side), strides=(2, 2)), rng)

    s = side() if side_first else None
    m = bn(b, b.conv2d(x, b.const(w_main), strides=(2, 2), pads=(1, 1, 1, 1)), rng)
    if s is None:
        s = side()
    unrelated = b.sigmoid(x)  # between the convs and the add
    y = b.relu(b.add(m, s) if main_lhs else b.add(s, m))
    module = b.build([y, unrelated])
    fused = fuse(module)
    assert op_counts(fused) == Counter({"ge.const": 4, "ge.fused_conv2d": 2, "ge.sigmoid": 1})
    first, last = ops_of(fused, ge.FusedConv2DOp)
    later_kernel = (1, 1) if not side_first else (3, 3)
    filter_type = last.filter.type
    assert isinstance(filter_type, TensorType)
    assert tuple(filter_type.get_shape()[2:]) == later_kernel
    assert last.residual == first.output and last.activation.data == ge.Activation.RELU
    assert first.residual is None and first.activation.data == ge.Activation.NONE
    assert_same_numbers(module, fused, [uniform(rng, (1, 4, 6, 6), F32)], F32)


def test_residual_blocks_a_later_scale_and_batch_norm_but_not_a_shift():
    """s * (conv + r) and bn(conv + r) do not fold; (conv + r) + t does."""
    b, rng, xin, conv, *_, x = conv_block(c=6)
    r = b.add(conv, xin)
    y1 = b.mul(b.add(r, b.const(np.full((6, 1, 1), 0.5, F32))), b.const(np.full((6, 1, 1), 2, F32)))
    module = b.build([bn(b, y1, rng)])
    fused = fuse(module)
    assert op_counts(fused) == Counter({"ge.const": 7, "ge.fused_conv2d": 1, "ge.mul": 1,
                                        "ge.batch_norm": 1})
    assert_same_numbers(module, fused, [x], F32)


def test_residual_needs_identical_types():
    """A broadcast add is not a residual."""
    b, rng, _, conv, *_, x = conv_block(bias=False)
    r = b.input("r", [1, 6, 5, 5])
    module = b.build([b.add(conv, r)])
    assert op_counts(fuse(module)) == op_counts(module)


def test_full_chain_folds_into_one_op_at_the_last_position():
    """conv -> bn -> mul -> add(t) -> add(r) -> leaky_relu, with unrelated ops in between."""
    b, rng, xin, conv, *_, x = conv_block(c=6)
    names = iter(["conv", "bn", "mul", "shift", "res", "act"])
    locate(conv, next(names))
    y = locate(bn(b, conv, rng), next(names))
    side = b.sigmoid(xin, name="side")  # unrelated, between the matched ops
    y = locate(b.mul(y, b.const(uniform(rng, (1, 6, 1, 1), F32, 0.5, 2))), next(names))
    y = locate(b.add(y, b.const(uniform(rng, (1, 6, 1, 1), F32))), next(names))
    y = locate(b.add(side, y), next(names))
    y = locate(b.leaky_relu(y, 0.1), next(names))
    module = b.build([y])
    fused = fuse(module)
    body = [op for op in fused.walk() if op.name in ("ge.sigmoid", "ge.fused_conv2d")]
    assert [op.name for op in body] == ["ge.sigmoid", "ge.fused_conv2d"]
    side_op, op = body
    assert isinstance(side_op, ge.SigmoidOp) and isinstance(op, ge.FusedConv2DOp)
    assert op.residual == side_op.output and op.activation.data == ge.Activation.LEAKY_RELU
    assert loc_names(op.location) == {"conv", "bn", "mul", "shift", "res", "act"}
    assert_same_numbers(module, fused, [x], F32)


def test_fuse_is_idempotent():
    b, rng, xin, conv, *_, x = conv_block(c=6)
    module = b.build([b.relu(b.add(bn(b, conv, rng), xin))])
    once = fuse(module)
    twice = fuse(once)
    assert text(twice) == text(once)


# --------------------------------------------------------------------------------------
# Directed tests: refusals
# --------------------------------------------------------------------------------------


def test_conv_with_another_user_does_not_fuse():
    b, rng, _, conv, *_, x = conv_block()
    module = b.build([bn(b, conv, rng), b.sigmoid(conv)])
    fused = fuse(module)
    assert op_counts(fused) == op_counts(module)


def test_conv_that_is_a_function_result_does_not_fuse():
    b, rng, _, conv, *_, x = conv_block()
    module = b.build([b.relu(conv), conv])
    fused = fuse(module)
    assert op_counts(fused) == op_counts(module)
    assert_same_numbers(module, fused, [x], F32)


def test_fused_result_with_several_users_is_fine():
    b, rng, _, conv, *_, x = conv_block()
    y = bn(b, conv, rng)
    module = b.build([b.sigmoid(y), b.relu(y)])
    fused = fuse(module)
    assert op_counts(fused) == Counter({"ge.const": 2, "ge.fused_conv2d": 1, "ge.sigmoid": 1,
                                        "ge.relu": 1})
    assert_same_numbers(module, fused, [x], F32)


def test_weight_as_a_function_argument_blocks_every_pattern():
    b = GraphBuilder()
    x = b.input("x", [1, 4, 5, 5])
    w = b.input("w", [6, 4, 3, 3])
    rng = np.random.default_rng(0)
    module = b.build([b.relu(bn(b, b.conv2d(x, w), rng))])
    assert op_counts(fuse(module)) == op_counts(module)


def test_non_constant_batch_norm_parameter_blocks_the_fold():
    b, rng, _, conv, *_, x = conv_block()
    gamma, beta, mean, _ = bn_arrays(rng, 6)
    var = b.input("var", [6])
    module = b.build([b.batch_norm(conv, b.const(gamma), b.const(beta), b.const(mean), var)])
    assert op_counts(fuse(module)) == op_counts(module)


def test_elided_weight_blocks_folding():
    b, rng, _, conv, *_, x = conv_block(bias=False)
    module = b.build([bn(b, conv, rng)])
    (conv_op,) = ops_of(module, ge.Conv2DOp)
    w_op = conv_op.filter.owner
    assert isinstance(w_op, ge.ConstOp)
    w_op.properties["value"] = ge.ElidedAttr()
    assert op_counts(fuse(module)) == op_counts(module)


def test_shared_weight_is_not_changed():
    rng = np.random.default_rng(4)
    b = GraphBuilder()
    x = b.input("x", [1, 4, 5, 5])
    w = b.const(weights(rng, (4, 4, 3, 3), F32))
    bias = b.const(uniform(rng, (4,), F32))
    c1 = b.conv2d(x, w, bias, pads=(1, 1, 1, 1))
    c2 = b.conv2d(x, w, bias, pads=(1, 1, 1, 1))
    module = b.build([bn(b, c1, rng), c2])
    w_before = const_array(w.value).copy()
    fused = fuse(module)
    counts = op_counts(fused)
    assert counts["ge.fused_conv2d"] == 1 and counts["ge.conv2d"] == 1
    (plain,) = ops_of(fused, ge.Conv2DOp)
    np.testing.assert_array_equal(const_array(plain.filter), w_before)
    xin = uniform(rng, (1, 4, 5, 5), F32)
    assert_same_numbers(module, fused, [xin], F32)
    # the unfused conv computes exactly what it did
    np.testing.assert_array_equal(run_function(fused, [xin])[1], run_function(module, [xin])[1])


def test_stream_labels_must_match_and_are_kept():
    rng = np.random.default_rng(5)
    b = GraphBuilder()
    x = b.input("x", [1, 4, 5, 5])
    with b.stream_switch("1", stream_priority=2):
        c1 = b.conv2d(x, b.const(weights(rng, (4, 4, 3, 3), F32)), pads=(1, 1, 1, 1))
        y1 = b.relu(bn(b, c1, rng))
        c2 = b.conv2d(y1, b.const(weights(rng, (4, 4, 3, 3), F32)), pads=(1, 1, 1, 1))
    y2 = b.relu(c2)  # on the default stream: does not fuse into c2
    module = b.build([y2])
    fused = fuse(module)
    assert op_counts(fused) == Counter({"ge.const": 3, "ge.fused_conv2d": 1, "ge.conv2d": 1,
                                        "ge.relu": 1})
    (f,) = ops_of(fused, ge.FusedConv2DOp)
    assert f.attributes[stream.LABEL] == stream.LabelAttr("1", 2, True)
    assert f.activation.data == ge.Activation.RELU
    assert_same_numbers(module, fused, [uniform(rng, (1, 4, 5, 5), F32)], F32)


def test_wait_tensor_between_conv_and_activation_blocks_the_match():
    rng = np.random.default_rng(6)
    b = GraphBuilder()
    x = b.input("x", [1, 4, 5, 5])
    d = b.input("d", [4])
    c = b.conv2d(x, b.const(weights(rng, (4, 4, 3, 3), F32)), pads=(1, 1, 1, 1))
    b.wait_tensor(c, b.sigmoid(d))
    module = b.build([b.relu(c)])
    fused = fuse(module)
    assert op_counts(fused) == op_counts(module)


@pytest.mark.parametrize("case", ["overflow", "bias_overflow", "underflow"])
def test_fp16_folding_refused_when_it_cannot_round(case):
    b, rng, _, conv, *_, x = conv_block(F16, bias=False)
    if case == "overflow":  # s = 6e4 / sqrt(1e-5): W*s overflows fp16
        y = b.batch_norm(conv, b.const(np.full(6, 6e4, F32)), b.const(np.zeros(6, F32)),
                         b.const(np.zeros(6, F32)), b.const(np.zeros(6, F32)))
    elif case == "bias_overflow":  # W*s fits, (0 - mean)*s does not
        y = b.batch_norm(conv, b.const(np.full(6, 10.0, F32)), b.const(np.zeros(6, F32)),
                         b.const(np.full(6, 1e4, F32)), b.const(np.full(6, 1e-3, F32)))
    else:  # s = 2^-24 (the least fp16 subnormal): W*s rounds to zero where |W| < 0.5
        y = b.mul(conv, b.const(np.full((6, 1, 1), 2.0**-24, F16)))
    module = b.build([y])
    fused = fuse(module)
    assert text(fused) == text(module)


def test_fp32_folds_what_fp16_refuses():
    b, rng, _, conv, *_, x = conv_block(F32, bias=False)
    module = b.build([b.mul(conv, b.const(np.full((6, 1, 1), 1e-9, F32)))])
    fused = fuse(module)
    only_fused(fused)
    assert_same_numbers(module, fused, [x], F32)


def test_degenerate_batch_norm_is_refused_silently():
    """var + eps == 0 on a channel: s is infinite, the fold is refused, and nothing is printed."""
    b, rng, _, conv, *_, x = conv_block()
    var = np.ones(6, F32)
    var[2] = 0.0
    y = b.batch_norm(conv, b.const(np.ones(6, F32)), b.const(np.zeros(6, F32)),
                     b.const(np.zeros(6, F32)), b.const(var), epsilon=0.0)
    module = b.build([y])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fused = fuse(module)
    assert text(fused) == text(module)


def test_assigned_module_is_refused():
    b, rng, _, conv, *_, x = conv_block()
    module = b.build([b.relu(conv)])
    for op in ge_ops(module):
        op.attributes[stream.ID] = stream.StreamIdAttr(0)
    with pytest.raises(GeError, match=r"'ge.const' op is assigned to a stream: --fuse .* "
                       r"before --assign-streams"):
        FusePass().apply(make_context(), module)


# --------------------------------------------------------------------------------------
# NC1HWC0 activations and FRACTAL_Z weights
# --------------------------------------------------------------------------------------

# name: (filter OIHW, groups); the input has 17 channels
FZ_FILTERS = {"dense": ((18, 17, 3, 3), 1), "depthwise": ((17, 1, 3, 3), 17),
              "depthwise_x2": ((34, 1, 3, 3), 17)}


@pytest.mark.parametrize("filt", list(FZ_FILTERS))
@pytest.mark.parametrize("dtype,c0", [(F16, 0), (F32, 0), (F32, 8)], ids=["f16", "f32", "f32-c0_8"])
def test_nc1hwc0_input_and_fractal_z_weights(dtype, c0, filt):
    w_shape, groups = FZ_FILTERS[filt]
    rng = np.random.default_rng(7)
    b = GraphBuilder()
    x = b.input("x", [1, 17, 5, 6], dtype, format="NC1HWC0", c0=c0)
    w = b.const(weights(rng, w_shape, dtype), format="FRACTAL_Z", c0=c0, groups=groups)
    cout = w_shape[0]
    conv = b.conv2d(x, w, b.const(uniform(rng, (cout,), dtype, -0.5, 0.5)), strides=(1, 2),
                    pads=(1, 0, 2, 1), groups=groups)
    y = bn_of(b, conv, bn_arrays(rng, cout, F32))
    y = b.mul(y, b.const(uniform(rng, (1, cout, 1, 1), dtype, 0.5, 2), format="NC1HWC0", c0=c0))
    y = b.add(y, b.const(uniform(rng, (cout, 1, 1), dtype)))
    r = b.input("r", list(y.shape), dtype, format="NC1HWC0", c0=c0)
    y = b.sigmoid(b.add(r, y))
    module = b.build([y])
    fused = fuse(module)
    op = only_fused(fused)
    assert op.filter.type == w.type  # FRACTAL_Z with the op's groups and c0
    assert op.input.type == x.type and op.output.type == y.type
    assert op.residual == entry_block(op).args[1] and op.activation.data == ge.Activation.SIGMOID
    inputs = [uniform(rng, x.shape, dtype), uniform(rng, r.shape, dtype)]
    assert_same_numbers(module, fused, inputs, dtype)
    # physical arrays: padding lanes of the fused result stay zero (sigmoid(0) != 0)
    phys = [ge.to_physical(x.type, inputs[0]), ge.to_physical(r.type, inputs[1])]
    (yp,) = run_function(fused, phys, physical=True)
    np.testing.assert_array_equal(ge.to_physical(y.type, ge.to_logical(y.type, yp)), yp)


# --------------------------------------------------------------------------------------
# The command line
# --------------------------------------------------------------------------------------


def test_cli_refuses_an_assigned_module(tmp_path, capsys):
    b, rng, _, conv, *_, x = conv_block()
    module = b.build([b.relu(bn(b, conv, rng))])
    for op in ge_ops(module):
        op.attributes[stream.ID] = stream.StreamIdAttr(0)
    path = tmp_path / "assigned.mlir"
    source = text(module)
    path.write_text(source)
    code = ge_opt_main([str(path), "--fuse"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    m = re.fullmatch(rf"{re.escape(str(path))}:(\d+):(\d+): error: '(ge\.\w+)' op is assigned "
                     r"to a stream: --fuse rewrites graphs before stream assignment; run it "
                     r"before --assign-streams", lines[0])
    assert m, lines[0]
    line = source.splitlines()[int(m.group(1)) - 1]
    assert f"= {m.group(3)} " in line and line.index("%") + 1 == int(m.group(2))


def test_cli_fuses_external_weights(tmp_path, capsys):
    """ge-opt --fuse reads weights stored beside the IR and writes folded ones inline."""
    b, rng, xin, conv, *_, x = conv_block(c=6)
    module = b.build([b.relu(b.add(bn(b, conv, rng), xin))])
    src = tmp_path / "in.mlir"
    src.write_text(text(module))
    ext = tmp_path / "ext.mlir"
    assert ge_opt_main([str(src), "-o", str(ext), "--externalize-constants-if-larger", "0"]) == 0
    assert "#ge.external" in ext.read_text()
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "fused.mlir"
    assert ge_opt_main([str(ext), "--fuse", "-o", str(out)]) == 0, capsys.readouterr().err
    printed = out.read_text()
    assert "ge.batch_norm" not in printed and "ge.relu" not in printed
    parsed = LocatingParser(make_context(), printed, str(out)).parse_module()
    assert op_counts(parsed)["ge.fused_conv2d"] == 1
    assert_same_numbers(module, parsed, [x], F32)


# --------------------------------------------------------------------------------------
# ONNX models: a ResNet-style and a MobileNet-style block
# --------------------------------------------------------------------------------------


def _onnx_conv(nodes, inits, rng, name, src, cin, cout, k, stride=1, groups=1, bias=False):
    w = weights(rng, (cout, cin // groups, k, k), F32)
    inits[f"{name}.w"] = w
    ins = [src, f"{name}.w"]
    if bias:
        inits[f"{name}.b"] = uniform(rng, (cout,), F32, -0.5, 0.5)
        ins.append(f"{name}.b")
    p = (k - 1) // 2
    nodes.append(helper.make_node("Conv", ins, [name], name=name,
                                  **conv_attrs(w.shape, (stride, stride), (p, p, p, p), (1, 1),
                                               groups)))
    return name


def _onnx_bn(nodes, inits, rng, name, src, c):
    names = [f"{name}.{p}" for p in ("gamma", "beta", "mean", "var")]
    for n, a in zip(names, bn_arrays(rng, c)):
        inits[n] = a
    nodes.append(helper.make_node("BatchNormalization", [src, *names], [name], name=name,
                                  epsilon=1e-5))
    return name


def _onnx_clip6(nodes, inits, name, src):
    inits.setdefault("zero", np.array(0, F32))
    inits.setdefault("six", np.array(6, F32))
    nodes.append(helper.make_node("Clip", [src, "zero", "six"], [name], name=name))
    return name


def resnet_model(rng):
    """Identity block (conv-bn-relu-conv-bn-add(x)-relu), then a projection block whose
    shortcut is conv-bn (the residual add of two convs)."""
    nodes: list[NodeProto] = []
    inits: dict[str, np.ndarray] = {}
    v = _onnx_conv(nodes, inits, rng, "conv1", "x", 8, 8, 3)
    v = _onnx_bn(nodes, inits, rng, "bn1", v, 8)
    nodes.append(helper.make_node("Relu", [v], ["relu1"], name="relu1"))
    v = _onnx_conv(nodes, inits, rng, "conv2", "relu1", 8, 8, 3, bias=True)
    v = _onnx_bn(nodes, inits, rng, "bn2", v, 8)
    nodes.append(helper.make_node("Add", [v, "x"], ["add1"], name="add1"))
    nodes.append(helper.make_node("Relu", ["add1"], ["relu2"], name="relu2"))
    v = _onnx_conv(nodes, inits, rng, "conv3", "relu2", 8, 16, 3, stride=2)
    v = _onnx_bn(nodes, inits, rng, "bn3", v, 16)
    nodes.append(helper.make_node("Relu", [v], ["relu3"], name="relu3"))
    v = _onnx_conv(nodes, inits, rng, "conv4", "relu3", 16, 16, 3)
    v = _onnx_bn(nodes, inits, rng, "bn4", v, 16)
    s = _onnx_conv(nodes, inits, rng, "down", "relu2", 8, 16, 1, stride=2)
    s = _onnx_bn(nodes, inits, rng, "down_bn", s, 16)
    nodes.append(helper.make_node("Add", [v, s], ["add2"], name="add2"))
    nodes.append(helper.make_node("Relu", ["add2"], ["y"], name="relu4"))
    return nodes, inits, (1, 8, 8, 8), 5


def mobilenet_model(rng):
    """Inverted residual: expand 1x1 conv-bn-clip(0,6), depthwise 3x3 conv-bn-clip(0,6),
    pointwise 1x1 conv-bn, + x; then a stride-2 depthwise/pointwise pair without residual."""
    nodes: list[NodeProto] = []
    inits: dict[str, np.ndarray] = {}
    v = _onnx_conv(nodes, inits, rng, "expand", "x", 8, 24, 1)
    v = _onnx_bn(nodes, inits, rng, "expand_bn", v, 24)
    v = _onnx_clip6(nodes, inits, "expand_relu6", v)
    v = _onnx_conv(nodes, inits, rng, "dw", v, 24, 24, 3, groups=24)
    v = _onnx_bn(nodes, inits, rng, "dw_bn", v, 24)
    v = _onnx_clip6(nodes, inits, "dw_relu6", v)
    v = _onnx_conv(nodes, inits, rng, "project", v, 24, 8, 1)
    v = _onnx_bn(nodes, inits, rng, "project_bn", v, 8)
    nodes.append(helper.make_node("Add", [v, "x"], ["add"], name="add"))
    v = _onnx_conv(nodes, inits, rng, "dw2", "add", 8, 16, 3, stride=2, groups=8, bias=True)
    v = _onnx_bn(nodes, inits, rng, "dw2_bn", v, 16)
    v = _onnx_clip6(nodes, inits, "dw2_relu6", v)
    v = _onnx_conv(nodes, inits, rng, "pw2", v, 16, 12, 1)
    _onnx_bn(nodes, inits, rng, "y", v, 12)
    return nodes, inits, (1, 8, 7, 7), 5


MODELS = {"resnet": resnet_model, "mobilenet": mobilenet_model}


def _standalone_activations(module: ModuleOp) -> list[Operation]:
    """Activations whose input is a conv result with one use: they could have fused."""
    return [op for op in module.walk() if op.name in ACTIVATION_OPS
            and isinstance(op.operands[0].owner, ge.Conv2DOp | ge.FusedConv2DOp)
            and op.operands[0].has_one_use()]


@pytest.mark.parametrize("name", list(MODELS))
def test_onnx_block_fuses_completely_and_matches_onnxruntime(name):
    rng = np.random.default_rng(11)
    nodes, inits, x_shape, n_convs = MODELS[name](rng)
    x = uniform(rng, x_shape, F32)
    model = onnx_ref.make_model(nodes, {"x": x}, ["y"], inits)
    (ref,) = onnx_ref.run_graph(nodes, {"x": x}, ["y"], inits)
    module = import_onnx(model)
    assert op_counts(module)["ge.batch_norm"] == n_convs
    CanonicalizePass().apply(make_context(), module)
    verify_module(module, "<canonicalized>")
    fused = fuse(module)
    counts = op_counts(fused)
    assert counts["ge.batch_norm"] == 0 and not _standalone_activations(fused)
    assert set(counts) == {"ge.const", "ge.fused_conv2d"}, counts  # nothing else is left
    assert counts["ge.fused_conv2d"] == n_convs
    assert not missed_fusions(fused)
    # every fused op is located at the ONNX nodes it replaced
    for op in ops_of(fused, ge.FusedConv2DOp):
        names = loc_names(op.location)
        assert any(n.startswith(("conv", "expand", "dw", "project", "pw", "down")) for n in names)
        if op.activation.data != ge.Activation.NONE:
            assert any("relu" in n for n in names), names
    (y,) = run_function(fused, [x])
    assert_close(y, ref, F32, whole_model=True)
    (y0,) = run_function(module, [x])
    assert_close(y, y0, F32)


@pytest.mark.parametrize("name", list(MODELS))
def test_cli_canonicalize_and_fuse_onnx(name, tmp_path, capsys):
    rng = np.random.default_rng(12)
    nodes, inits, x_shape, n_convs = MODELS[name](rng)
    x = uniform(rng, x_shape, F32)
    path = tmp_path / f"{name}.onnx"
    onnx.save(onnx_ref.make_model(nodes, {"x": x}, ["y"], inits), str(path))
    code = ge_opt_main([str(path), "--canonicalize", "--fuse"])
    out, err = capsys.readouterr()
    assert code == 0, err
    for op_name in ("ge.batch_norm", *ACTIVATION_OPS, "ge.conv2d "):
        assert op_name not in out
    assert out.count("ge.fused_conv2d") == n_convs
    parsed = LocatingParser(make_context(), out, "out.mlir").parse_module()
    (ref,) = onnx_ref.run_graph(nodes, {"x": x}, ["y"], inits)
    (y,) = run_function(parsed, [x])
    assert_close(y, ref, F32, whole_model=True)
