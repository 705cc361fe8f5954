"""TopK and scatter-add through the frontends: ONNX TopK and ScatterElements (reduction add)
against onnxruntime, ATen topk, scatter_add and stack against eager PyTorch, and the
refusals (ScatterElements without reduction add, a K that is not a constant).

Top-k values and indices are exact; scatter-adds compare within fp32 tolerance.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import onnx
import pytest
from helpers import onnx_ref
from helpers.support import assert_close
from onnx import helper

from ge_dialect.frontend import import_onnx
from ge_dialect.ir.interpreter import run_function
from ge_dialect.utils.errors import GeError

F32 = np.float32


def _model(
    nodes,
    inputs: Mapping[str, np.ndarray],
    outputs: Mapping[str, object],
    inits: Mapping[str, np.ndarray],
    opset: int = 18,
) -> onnx.ModelProto:
    return onnx_ref.make_model(nodes, inputs, outputs, inits, opset=opset)


def _check(nodes, inputs, outputs, inits, opset=18) -> list[str]:
    """Imports the model, runs the interpreter and onnxruntime, compares (integers and
    top-k values exactly); the names of the ge ops but constants."""
    model = _model(nodes, inputs, outputs, inits, opset)
    refs = onnx_ref._session(model).run(list(outputs), dict(inputs))
    module = import_onnx(model)
    got = run_function(module, list(inputs.values()))
    for actual, ref in zip(got, refs, strict=True):
        assert_close(actual, ref, ref.dtype)
    return [op.name for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const"]


def _x(shape, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(F32)


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("largest", [1, 0])
def test_onnx_topk(axis, largest):
    x = np.round(_x((4, 6)), 1)  # rounded: ties, lower index first
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=axis, largest=largest)
    ops = _check([node], {"x": x}, {"v": F32, "i": np.int64}, {"k": np.array([3], np.int64)})
    assert ops == ["ge.topk"]


def test_onnx_topk_then_scatter_elements_add():
    # the MoE combine: the top-k weights added at their experts into a [T, E] tensor
    x, zeros = _x((5, 4), 1), np.zeros((5, 4), F32)
    nodes = [
        helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1),
        helper.make_node("ScatterElements", ["z", "i", "v"], ["y"], axis=1, reduction="add"),
    ]
    ops = _check(nodes, {"x": x, "z": zeros}, {"y": F32}, {"k": np.array([2], np.int64)})
    assert ops == ["ge.topk", "ge.scatter_add"]


def test_onnx_scatter_elements_constant_indices_repeat_and_count_from_the_end():
    node = helper.make_node("ScatterElements", ["d", "i", "u"], ["y"], axis=0, reduction="add")
    indices = np.array([[0, -1, 2], [0, 1, -3]], np.int64)
    ops = _check([node], {"d": _x((3, 3), 2), "u": _x((2, 3), 3)}, {"y": F32}, {"i": indices})
    assert ops == ["ge.scatter_add"]


@pytest.mark.parametrize("reduction", ["none", "mul"])
def test_onnx_scatter_elements_other_reductions_are_refused(reduction):
    node = helper.make_node("ScatterElements", ["d", "i", "u"], ["y"], reduction=reduction)
    model = _model(
        [node], {"d": _x((3, 3)), "u": _x((1, 3))}, {"y": F32}, {"i": np.zeros((1, 3), np.int64)}
    )
    with pytest.raises(GeError, match=rf"reduction '{reduction}' \(only 'add' is supported\)"):
        import_onnx(model)


def test_onnx_topk_k_from_an_input_is_refused():
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"])
    model = _model(
        [node], {"x": _x((2, 4)), "k": np.array([2], np.int64)}, {"v": F32, "i": np.int64}, {}
    )
    with pytest.raises(GeError, match="TopK: non-constant K 'k'"):
        import_onnx(model)


# ---- ATen -------------------------------------------------------------------------------------

pytest.importorskip("torch")
import torch  # noqa: E402


class _Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _check_torch(fn, *inputs: torch.Tensor) -> list[str]:
    from ge_dialect.frontend.torch_import import import_torch

    model = _Fn(fn)
    module = import_torch(model, inputs)
    got = run_function(module, [t.numpy() for t in inputs])
    with torch.no_grad():
        expected = model(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(got) == len(expected)
    for actual, ref in zip(got, expected, strict=True):
        assert_close(actual, ref.numpy(), ref.numpy().dtype)
    return [op.name for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const"]


def test_aten_topk_scatter_add_and_stack():
    def route(logits: torch.Tensor):
        w, i = torch.topk(torch.softmax(logits, dim=-1), 2, dim=-1)
        routing = torch.zeros_like(logits).scatter_add(1, i, w)
        return w, i, torch.stack([routing, routing * 2], dim=1)

    logits = torch.from_numpy(_x((6, 4), 4))
    ops = _check_torch(route, logits)
    assert ops[:3] == ["ge.softmax", "ge.topk", "ge.scatter_add"]
    assert "ge.concat" in ops


@pytest.mark.parametrize("largest", [True, False])
def test_aten_topk_smallest_along_dim_0(largest):
    ops = _check_torch(
        lambda x: torch.topk(x, 3, dim=0, largest=largest), torch.from_numpy(_x((5, 3)))
    )
    assert ops == ["ge.topk"]


def test_aten_scatter_add_with_a_larger_src_is_refused():
    from ge_dialect.frontend.torch_import import import_torch

    def fn(x: torch.Tensor):
        return torch.zeros(4, 4).scatter_add(0, torch.zeros(1, 4, dtype=torch.int64), x)

    with pytest.raises(GeError, match="differ"):
        import_torch(_Fn(fn), (torch.ones(2, 4),))
