"""GraphBuilder and ge_dialect.frontend.scope: TorchAir's stream semantics, and every op method.

The stream tests mirror TorchAir's own (tests/st/torchair_scope_st.py): labels and
priorities land on the ops built inside a scope, the innermost scope wins, ops outside any
scope carry no label, npu_wait_tensor adds an edge from the dependency and rebinds the
waited handle.
"""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
from helpers.support import ROOT
from xdsl.dialects import func
from xdsl.dialects.builtin import Float16Type, StringAttr, TensorType
from xdsl.printer import Printer

from ge_dialect.frontend.builder import NAME, GraphBuilder
from ge_dialect.frontend.scope import npu_stream_switch, npu_wait_tensor
from ge_dialect.ir.dialects import ge, stream
from ge_dialect.ir.interpreter import run_function
from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from ge_dialect.utils.errors import GeError


def printed(module) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


def label_of(tensor):
    return tensor.value.owner.attributes.get(stream.LABEL)


def torchair_example():
    """TorchAir's documented multi-stream example (docs/zh/ascend_ir/features/advanced/
    multi_stream.md): the scopes take the default priority 0 and inner parallelism."""
    with GraphBuilder("main") as b:
        in1, in2, in3, in4 = (b.input(n, [4, 4]) for n in ("in1", "in2", "in3", "in4"))
        add_result = b.add(in1, in2, name="add_result")
        with npu_stream_switch("1"):
            npu_wait_tensor(in4, add_result)
            mm_result = b.matmul(in3, in4, name="mm_result")
        mm1 = b.matmul(in3, in4, name="mm1")
        with npu_stream_switch("2"):
            npu_wait_tensor(in4, mm_result)
            add2 = b.add(in3, in4, name="add2")
        return b.build([add_result, mm_result, mm1, add2])


def test_torchair_example_prints_the_bundled_example():
    path = os.path.join(ROOT, "examples", "torchair_multistream.mlir")
    with open(path) as f:
        expected = LocatingParser(make_context(), f.read(), path).parse_module()
    assert printed(torchair_example()) == printed(expected)


def test_torchair_example_has_the_documented_defaults():
    """npu_stream_switch(tag) as documented: priority 0 (a reserved parameter the
    documentation says to leave at 0), inner parallelism on; mm1 and add_result unlabelled."""
    labels = {op.results[0].name_hint: op.attributes.get(stream.LABEL)
              for op in torchair_example().walk() if op.name in ("ge.add", "ge.matmul")}
    assert labels == {"add_result": None, "mm_result": stream.LabelAttr("1", 0, True),
                      "mm1": None, "add2": stream.LabelAttr("2", 0, True)}


def test_labels_and_priorities_land_on_the_ops_inside_a_scope():
    b = GraphBuilder()
    x = b.input("x", [4])
    outside = b.relu(x)
    with b.stream_switch("1", stream_priority=3, enable_inner_parallel=False):
        inside = b.sigmoid(outside)
    after = b.relu(inside)
    assert label_of(outside) is None and label_of(after) is None
    assert label_of(inside) == stream.LabelAttr("1", 3, False)
    b.build([after])


def test_innermost_scope_wins_and_the_outer_one_resumes():
    with GraphBuilder() as b:
        x = b.input("x", [4])
        with npu_stream_switch("outer", 1):
            a = b.relu(x)
            with npu_stream_switch("inner", 2, False):
                c = b.relu(a)
            d = b.relu(c)
        b.build([d])
    assert label_of(a) == stream.LabelAttr("outer", 1, True)
    assert label_of(c) == stream.LabelAttr("inner", 2, False)
    assert label_of(d) == stream.LabelAttr("outer", 1, True)


def test_a_label_is_one_attribute_for_every_scope_that_opens_it():
    """Uniqued as MLIR's context uniques attributes: two scopes of the same label share one
    object; a label that differs in its tag, priority or inner parallelism is another."""
    b = GraphBuilder()
    x = b.input("x", [4])
    ops = []
    for tag, priority, inner in [("1", 0, True), ("1", 0, True), ("2", 0, True),
                                 ("1", 3, True), ("1", 0, False), ("1", 0, True)]:
        with b.stream_switch(tag, priority, inner):
            ops.append(b.relu(x))  # (not built: a label has one priority per graph)
    first, again, other_tag, other_priority, serial, later = map(label_of, ops)
    assert first is again is later
    assert len({id(a) for a in (first, other_tag, other_priority, serial)}) == 4
    assert (other_tag, other_priority, serial) == (
        stream.LabelAttr("2", 0, True), stream.LabelAttr("1", 3, True),
        stream.LabelAttr("1", 0, False))


def test_wait_tensor_adds_the_edge_and_rebinds_the_handle():
    with GraphBuilder() as b:
        x = b.input("x", [4])
        dep = b.sigmoid(b.input("d", [4]))
        before = b.relu(x)
        original = x.value
        returned = npu_wait_tensor(x, dep)
        after = b.relu(x)
        module = b.build([before, after])
    assert returned is x
    wait = x.value.owner
    assert isinstance(wait, stream.WaitTensorOp)
    assert wait.input is original and wait.dependency is dep.value
    relu_before, relu_after = before.value.owner, after.value.owner
    assert isinstance(relu_before, ge.ReluOp) and isinstance(relu_after, ge.ReluOp)
    assert relu_before.operands[0] is original  # built before the wait: unaffected
    assert relu_after.operands[0] is x.value  # built after: uses the wait's result
    ins = [np.arange(4, dtype=np.float32) - 2, np.zeros(4, np.float32)]
    out_before, out_after = run_function(module, ins)
    np.testing.assert_array_equal(out_before, out_after)  # the wait is an identity


def test_unbalanced_scopes_are_errors():
    with GraphBuilder() as b:
        x = b.input("x", [4])
        with pytest.raises(GeError, match="exit without a matching npu_stream_switch enter"):
            npu_stream_switch("1").__exit__(None, None, None)
        scope = npu_stream_switch("1")
        scope.__enter__()
        y = b.relu(x)
        with pytest.raises(GeError, match=r"1 npu_stream_switch scope\(s\) were not exited"):
            b.build([y])
    with pytest.raises(GeError, match="no active GraphBuilder"):
        npu_stream_switch("1").__enter__()


def test_conflicting_priorities_of_one_label_are_refused_at_build():
    b = GraphBuilder()
    x = b.input("x", [4])
    with b.stream_switch("1", 0):
        y = b.relu(x)
    with b.stream_switch("1", 5):
        z = b.relu(y)
    with pytest.raises(GeError, match=r'stream label "1" with priority 5, but the label has priority 0'):
        b.build([z])


def test_arguments_and_results_carry_their_names():
    b = GraphBuilder("g")
    x = b.input("input.1", [2])
    y = b.relu(x, name="out:0")
    module = b.build([y, x])
    fn = module.body.block.first_op
    assert isinstance(fn, func.FuncOp) and fn.arg_attrs is not None and fn.res_attrs is not None
    assert [d.data[NAME] for d in fn.arg_attrs.data] == [StringAttr("input.1")]
    assert [d.data[NAME] for d in fn.res_attrs.data] == [StringAttr("out:0"), StringAttr("input.1")]
    text = printed(module)
    assert "%input.1" in text and "%out = ge.relu" in text  # sanitised SSA name hints


def test_a_builder_builds_once():
    b = GraphBuilder()
    x = b.input("x", [2])
    b.build([x])
    with pytest.raises(GeError, match="already built"):
        b.relu(x)


def test_every_op_method_builds_verified_ops_that_compute():
    rng = np.random.default_rng(0)
    b = GraphBuilder()
    x = b.input("x", [1, 4, 6, 6])
    w = b.const(rng.standard_normal((4, 2, 3, 3)).astype(np.float32))
    bias = b.const(np.full(4, 0.5, np.float32))
    p = b.const(np.ones(4, np.float32))
    conv = b.conv2d(x, w, bias, pads=[1, 1, 1, 1], groups=2)
    fused = b.fused_conv2d(x, w, bias, conv, "leaky_relu", 0.1, pads=[1, 1, 1, 1], groups=2)
    bn = b.batch_norm(fused, p, bias, bias, p, epsilon=1e-3)
    act = b.clip(b.leaky_relu(b.relu6(b.relu(b.silu(b.sigmoid(bn)))), 0.2), -1.0, 1.0)
    pooled = b.avg_pool(b.max_pool(act, [2, 2], [2, 2], ceil_mode=True), [2, 2], count_include_pad=True, pads=[1, 0, 1, 0])
    cat = b.concat([pooled, pooled], axis=1)
    g = b.global_avg_pool(b.mul(b.sub(cat, cat), b.add(cat, cat)))
    flat = b.flatten(g)
    mm = b.matmul(flat, b.const(np.ones((8, 3), np.float32)), b.const(np.ones(3, np.float32)))
    sm = b.softmax(b.transpose(b.reshape(mm, [3, -1]), [1, 0]), axis=-1)
    half = b.cast(b.identity(sm), "f16")
    ar = b.hcom_all_reduce(half, "max", "world", 2)
    ag = b.hcom_all_gather(ar, "world", 2)
    td = b.trans_data(b.trans_data(x, "NC1HWC0", c0=8), "NCHW")
    module = b.build([ag, td, conv])
    names = {op.name for op in module.walk()}
    assert {"ge.conv2d", "ge.fused_conv2d", "ge.batch_norm", "ge.silu", "ge.max_pool",
            "ge.avg_pool", "ge.global_avg_pool", "ge.concat", "ge.matmul", "ge.softmax",
            "ge.cast", "ge.hcom_all_reduce", "ge.hcom_all_gather", "ge.trans_data"} <= names
    xv = rng.uniform(-1, 1, (1, 4, 6, 6)).astype(np.float32)
    out_ag, out_td, out_conv = run_function(module, [xv])
    assert out_ag.shape == (2, 3) and out_ag.dtype == np.float16
    np.testing.assert_allclose(out_ag.astype(np.float32), np.full((2, 3), 1 / 3), rtol=1e-3)
    np.testing.assert_array_equal(out_td, xv)
    assert out_conv.shape == (1, 4, 6, 6)


def test_encoded_constants_and_inputs():
    b = GraphBuilder()
    x = b.input("x", [1, 17, 2, 2], "f16", format="NC1HWC0")
    c = b.const(np.ones((1, 17, 1, 1), np.float16), format="NC1HWC0")
    y = b.add(x, c)
    module = b.build([y])
    assert y.type == ge.with_format(TensorType(Float16Type(), [1, 17, 2, 2]), "NC1HWC0")
    const = c.value.owner
    assert isinstance(const, ge.ConstOp)
    assert ge.physical_shape(const.output.type) == (1, 2, 1, 1, 16)
    (out,) = run_function(module, [np.zeros((1, 17, 2, 2), np.float16)])
    np.testing.assert_array_equal(out, np.ones((1, 17, 2, 2), np.float16))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda b, x: b.reshape(x, [-1, -1]), "at most one dim may be -1"),
        (lambda b, x: b.reshape(x, [5, -1]), r"cannot reshape \[2, 3\] to \[5, -1\]"),
        (lambda b, x: b.softmax(x, axis=2), "axis 2 is out of range for rank 2"),
        (lambda b, x: b.add(x, b.input("y", [4])), r"shapes \[2, 3\] and \[4\] do not broadcast"),
        (lambda b, x: b.input("z", [2], "f64"), "unsupported element type 'f64'"),
    ],
)
def test_builder_mistakes_are_clear_errors(call, message):
    b = GraphBuilder()
    x = b.input("x", [2, 3])
    with pytest.raises(GeError, match=message):
        call(b, x)


def test_shape_mistakes_surface_as_verifier_errors_at_build():
    b = GraphBuilder()
    x = b.input("x", [1, 3, 4, 4])
    w = b.const(np.ones((2, 2, 3, 3), np.float32))
    y = b.conv2d(x, w)
    with pytest.raises(GeError, match=r"'ge.conv2d' op operand 'filter' has 2 input channels per group, expected 3"):
        b.build([y])


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda b, x: b.max_pool(x, [2**70, 1]), "kernel value 1180591620717411303424 does not fit"),
        (lambda b, x: b.max_pool(x, [1, 1], strides=[2**63, 1]), "strides value 9223372036854775808"),
        (lambda b, x: b.max_pool(x, [1]), r"kernel must be a list of 2 integers, got \[1\]"),
        (lambda b, x: b.conv2d(x, x, pads=[1, 1]), "pads must be a list of 4 integers"),
        (lambda b, x: b.transpose(x, [0, 1, 2, 7]), r"perm \[0, 1, 2, 7\] is not a permutation"),
        (lambda b, x: b.leaky_relu(x, alpha="a"), "alpha must be a number, got 'a'"),
        (lambda b, x: b.clip(x, None, 6.0), "min must be a number, got None"),
        (lambda b, x: b.avg_pool(b.input("v", [4]), [1, 1]), "must have rank 4, got shape"),
    ],
)
def test_bad_op_arguments_raise_ge_error(build, message):
    b = GraphBuilder()
    x = b.input("x", [1, 2, 4, 4])
    with pytest.raises(GeError, match=message):
        build(b, x)


def test_output_names_are_unique():
    b = GraphBuilder()
    x = b.input("x", [4])
    with pytest.raises(GeError, match="duplicate output name 'y'"):
        b.build([x, x], output_names=["y", "y"])
    b = GraphBuilder()
    x = b.input("x", [4])
    module = b.build([x, x])  # the default names stay unique
    assert "{ge.name = \"x\"}, tensor<4xf32> {ge.name = \"x_1\"}" in str(module)


def test_math_methods_build_verified_ops():
    b = GraphBuilder()
    x = b.input("x", [2, 3])
    s = b.input("s", [3])
    ys = [
        getattr(b, name)(x)
        for name in ("exp", "log", "tanh", "erf", "sqrt", "rsqrt", "neg", "reciprocal", "gelu")
    ]
    ys.append(b.gelu(x, approximate="tanh"))
    ys += [getattr(b, name)(x, s) for name in ("div", "maximum", "minimum", "pow")]
    module = b.build(ys)
    names = [op.name for op in module.walk() if op.name.startswith("ge.")]
    assert names == [
        "ge.exp", "ge.log", "ge.tanh", "ge.erf", "ge.sqrt", "ge.rsqrt", "ge.neg",
        "ge.reciprocal", "ge.gelu", "ge.gelu", "ge.div", "ge.maximum", "ge.minimum", "ge.pow",
    ]  # fmt: skip
    assert all(tuple(y.shape) == (2, 3) for y in ys)


def test_gelu_refuses_an_unknown_approximation():
    b = GraphBuilder()
    with pytest.raises(GeError) as info:
        b.gelu(b.input("x", [2]), approximate="fast")
    assert str(info.value) == "error: gelu approximate must be 'none' or 'tanh', got 'fast'"
