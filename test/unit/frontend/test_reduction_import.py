"""The reduction and normalisation importers: ONNX ReduceSum/ReduceMean/ReduceMax/ReduceMin
(axes as the attribute and as a constant input) and LayerNormalization against onnxruntime;
ATen sum, mean, amax/amin, max/min (values only), layer_norm and native_layer_norm against
eager PyTorch; and the refusals (non-constant axes, used Mean/InvStdDev outputs, used
indices), each one clear error line.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import onnx
import pytest
from helpers import onnx_ref
from helpers.support import assert_close
from onnx import helper

from ge_dialect import api
from ge_dialect.frontend import import_onnx
from ge_dialect.ir.interpreter import run_function
from ge_dialect.utils.errors import GeError

F32, F16 = np.float32, np.float16


def make(nodes, inputs: Mapping[str, np.ndarray], outputs, inits=None, opset=17, check=True):
    return onnx_ref.make_model(nodes, inputs, outputs, inits, opset=opset, check=check)


def check(nodes, inputs, outputs, inits=None, opset=17):
    """Imports and runs the model on both sides; returns the module's ge op names."""
    model = make(nodes, inputs, outputs, inits, opset)
    names = [o.name for o in model.graph.output]
    refs = onnx_ref._session(model).run(names, dict(inputs))
    module = import_onnx(model)
    got = run_function(module, list(inputs.values()))
    for actual, ref in zip(got, refs, strict=True):
        assert_close(actual, ref, ref.dtype)
    return [op.name for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const"]


def x_of(shape=(2, 3, 5), dtype=F32, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(dtype)


def import_error(model) -> str:
    with pytest.raises(GeError) as e:
        import_onnx(model)
    text = str(e.value)
    assert "\n" not in text, text
    return text


# --------------------------------------------------------------------------------------
# ONNX reductions
# --------------------------------------------------------------------------------------

AXES = [[1], [-1], [0, -1], None]


@pytest.mark.parametrize("op", ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"])
@pytest.mark.parametrize("axes", AXES)
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("opset", [17, 18])
def test_onnx_reduce(op, axes, keepdims, opset):
    as_input = opset >= (13 if op == "ReduceSum" else 18)
    inits = {}
    ins = ["x"]
    attrs: dict = {"keepdims": keepdims}
    if axes is not None and as_input:
        inits["axes"] = np.asarray(axes, np.int64)
        ins.append("axes")
    elif axes is not None:
        attrs["axes"] = axes
    n = helper.make_node(op, ins, ["y"], name="r", **attrs)
    ops = check([n], {"x": x_of()}, ["y"], inits, opset)
    assert ops == [
        "ge."
        + {
            "ReduceSum": "reduce_sum",
            "ReduceMean": "reduce_mean",
            "ReduceMax": "reduce_max",
            "ReduceMin": "reduce_min",
        }[op]
    ]


def test_onnx_reduce_f16_and_normalised_axes():
    model = make(
        [helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0)],
        {"x": x_of(dtype=F16)},
        ["y"],
        {"axes": np.asarray([-1, 0], np.int64)},
    )
    text = str(import_onnx(model))
    assert "ge.reduce_sum %x axes [0, 2] : tensor<2x3x5xf16> -> tensor<3xf16>" in text
    check([helper.make_node("ReduceMean", ["x"], ["y"], axes=[-2])], {"x": x_of(dtype=F16)}, ["y"])


def test_onnx_noop_with_empty_axes_is_the_identity():
    n = helper.make_node("ReduceSum", ["x"], ["y"], noop_with_empty_axes=1)
    assert check([n], {"x": x_of()}, ["y"]) == ["ge.identity"]


def test_onnx_non_constant_axes_are_refused():
    x = x_of()
    nodes = [helper.make_node("ReduceSum", ["x", "a"], ["y"], name="sum")]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, x.shape),
            helper.make_tensor_value_info("a", onnx.TensorProto.FLOAT, [1]),
        ],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    assert "non-constant axes 'a'" in import_error(model)


def test_onnx_axes_attribute_in_a_new_opset_is_refused():
    n = helper.make_node("ReduceMax", ["x"], ["y"], name="m", axes=[1])
    model = make([n], {"x": x_of()}, ["y"], opset=18, check=False)
    assert "attribute 'axes' in opset 18 (axes is an input)" in import_error(model)


# --------------------------------------------------------------------------------------
# ONNX LayerNormalization
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [-1, 1])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("dtype", [F32, F16])
def test_onnx_layer_norm(axis, bias, dtype):
    x = x_of((2, 3, 4), dtype)
    norm = x.shape[axis % 3 :]
    inits = {"s": x_of(norm, dtype, 1)}
    if bias:
        inits["b"] = x_of(norm, dtype, 2)
    n = helper.make_node(
        "LayerNormalization", ["x", "s"] + (["b"] if bias else []), ["y"], axis=axis, epsilon=1e-3
    )
    assert check([n], {"x": x}, ["y"], inits) == ["ge.layer_norm"]


def test_onnx_layer_norm_extra_outputs_and_old_opsets_are_refused():
    n = helper.make_node("LayerNormalization", ["x", "s"], ["y", "mean"], name="ln")
    model = make([n], {"x": x_of()}, ["y", "mean"], {"s": x_of((5,))}, check=False)
    assert "the Mean and InvStdDev outputs (only Y is computed)" in import_error(model)
    n = helper.make_node("LayerNormalization", ["x", "s"], ["y"], name="ln")
    model = make([n], {"x": x_of()}, ["y"], {"s": x_of((5,))}, opset=16, check=False)
    assert "LayerNormalization is an opset 17 op, the model imports opset 16" in import_error(model)


# --------------------------------------------------------------------------------------
# ATen
# --------------------------------------------------------------------------------------

pytest.importorskip("torch")
import torch  # noqa: E402


class Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def torch_check(fn, *inputs) -> list[str]:
    """Imports `fn`, compares each output of the interpreter with eager PyTorch; the ge ops."""
    from ge_dialect.frontend.torch_import import import_torch

    module = import_torch(Fn(fn), inputs)
    got = api.reference(module, {f"args_{i}": v.numpy() for i, v in enumerate(inputs)})
    expected = fn(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for actual, e in zip(got.values(), expected, strict=True):
        e = e.detach().numpy()
        assert actual.shape == e.shape and actual.dtype == e.dtype
        assert api.within_tolerance(actual, e), f"max error {api.max_error(actual, e)}"
    return [op.name for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const"]


def tx(shape=(2, 3, 8), dtype=None, seed=0):
    g = torch.Generator().manual_seed(seed)
    t = torch.rand(*shape, generator=g) * 4 - 2
    return t if dtype is None else t.to(dtype)


@pytest.mark.parametrize(
    "fn,ops",
    [
        (lambda x: x.sum(-1), ["ge.reduce_sum"]),
        (lambda x: x.sum((0, 2), keepdim=True), ["ge.reduce_sum"]),
        (lambda x: x.sum(), ["ge.reduce_sum"]),
        (lambda x: x.mean(-1, keepdim=True), ["ge.reduce_mean"]),
        (lambda x: x.mean(), ["ge.reduce_mean"]),
        (lambda x: x.amax(1), ["ge.reduce_max"]),
        (lambda x: x.amin((-1, 0), keepdim=True), ["ge.reduce_min"]),
        (lambda x: torch.max(x, dim=-1).values, ["ge.reduce_max"]),
        (lambda x: torch.min(x, dim=1, keepdim=True)[0], ["ge.reduce_min"]),
        (lambda x: x.max(), ["ge.reduce_max"]),
    ],
)
def test_aten_reductions(fn, ops):
    assert torch_check(fn, tx()) == ops


def test_aten_reductions_f16():
    assert torch_check(lambda x: (x.sum(-1), x.mean(0)), tx(dtype=torch.float16)) == [
        "ge.reduce_sum",
        "ge.reduce_mean",
    ]


def test_aten_spatial_mean_stays_global_avg_pool():
    assert torch_check(lambda x: x.mean((2, 3)), tx((1, 4, 5, 5))) == [
        "ge.global_avg_pool",
        "ge.reshape",
    ]
    assert torch_check(lambda x: x.mean((1, 3)), tx((1, 4, 5, 5))) == ["ge.reduce_mean"]


def test_aten_max_indices_are_refused():
    from ge_dialect.frontend.torch_import import import_torch

    with pytest.raises(GeError, match=r"its indices are used by .*only the values of max.dim"):
        import_torch(Fn(lambda x: torch.max(x, dim=1)), (tx(),))


@pytest.mark.parametrize("affine", [True, False])
@pytest.mark.parametrize("shape", [(8,), (3, 8)])
def test_aten_layer_norm(affine, shape):
    ln = torch.nn.LayerNorm(shape, eps=1e-3, elementwise_affine=affine)
    if affine:
        with torch.no_grad():
            ln.weight.uniform_(0.5, 1.5)
            ln.bias.uniform_(-1, 1)
    assert torch_check(ln.eval(), tx()) == ["ge.layer_norm"]


def test_aten_layer_norm_bias_without_weight():
    b = tx((8,), seed=3)
    ops = torch_check(lambda x: torch.nn.functional.layer_norm(x, (8,), None, b), tx())
    assert ops == ["ge.layer_norm"]


def test_aten_native_layer_norm_statistics_are_refused():
    from ge_dialect.frontend.torch_import import import_torch

    def fn(x):
        y, mean, _ = torch.ops.aten.native_layer_norm(x, [8], None, None, 1e-5)
        return y + mean

    with pytest.raises(GeError, match=r"its mean or rstd output is used by .*only output 0"):
        import_torch(Fn(fn), (tx(),))
