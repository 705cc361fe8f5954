"""Gather, slice, split and expand through the frontends: ONNX (opsets 17-21) against
onnxruntime, ATen (embedding, index_select, select.int, slice.Tensor, split_with_sizes,
split.Tensor, chunk, expand) against eager PyTorch.

Data movement is exact, so every comparison is exact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
import pytest
from helpers import onnx_ref
from onnx import helper

from ge_dialect import api
from ge_dialect.frontend import import_onnx
from ge_dialect.ir.interpreter import run_function
from ge_dialect.utils.errors import GeError

F32, F16 = np.float32, np.float16
INT64_MAX = 2**63 - 1


def _model(
    nodes,
    inputs: Mapping[str, np.ndarray],
    outputs: Sequence[str],
    inits: Mapping[str, np.ndarray],
    opset: int,
) -> onnx.ModelProto:
    return onnx_ref.make_model(nodes, inputs, outputs, inits, opset=opset)


def _check(nodes, inputs, outputs, inits, opset=17) -> list[str]:
    """Imports the model, runs it in the interpreter and onnxruntime, compares exactly;
    returns the names of the ge ops (constants left out)."""
    model = _model(nodes, inputs, outputs, inits, opset)
    refs = onnx_ref._session(model).run(list(outputs), dict(inputs))
    module = import_onnx(model)
    got = run_function(module, list(inputs.values()))
    assert len(got) == len(refs)
    for actual, ref in zip(got, refs, strict=True):
        assert actual.dtype == ref.dtype and actual.shape == ref.shape
        np.testing.assert_array_equal(actual, ref)
    return [op.name for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const"]


def _x(shape, dtype=F32, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype)


def _ints(*values) -> np.ndarray:
    return np.array(values, dtype=np.int64)


# ---- ONNX -------------------------------------------------------------------------------------


@pytest.mark.parametrize("opset", [17, 21])
@pytest.mark.parametrize(
    "axis, indices",
    [
        (0, np.array([[0, -1, 3], [9, -10, 2]], np.int64)),
        (1, np.array([3, -4], np.int32)),
        (-1, np.array(2, np.int64)),
    ],
)
def test_onnx_gather(opset, axis, indices):
    x = {"x": _x((10, 4, 5) if axis == 0 else (2, 4, 5))}
    node = helper.make_node("Gather", ["x", "i"], ["y"], axis=axis)
    assert _check([node], x, ["y"], {"i": indices}, opset) == ["ge.gather"]


def test_onnx_gather_of_constants_folds():
    x = {"x": _x((3,))}
    nodes = [
        helper.make_node("Gather", ["w", "i"], ["g"]),
        helper.make_node("Add", ["x", "g"], ["y"]),
    ]
    inits = {"w": _x((4, 3), seed=1), "i": _ints(-1)}
    assert _check(nodes, x, ["y"], inits) == ["ge.add"]


def test_onnx_gather_out_of_range_constant_index_is_refused():
    node = helper.make_node("Gather", ["x", "i"], ["y"], name="g")
    model = _model([node], {"x": _x((5, 2))}, ["y"], {"i": _ints(1, 5)}, 17)
    with pytest.raises(GeError) as e:
        import_onnx(model)
    assert str(e.value) == (
        "model: error: cannot import 1 node: 'g' (Gather: indices hold 5 at [1], out of range "
        "for axis 0 of size 5)"
    )


@pytest.mark.parametrize("opset", [17, 21])
def test_onnx_slice_clamps_and_steps(opset):
    x = {"x": _x((3, 8, 6), F16)}
    inits = {
        "s": _ints(1, -4, -100),
        "e": _ints(INT64_MAX, 100, 2),
        "a": _ints(1, 2, 0),
        "st": _ints(3, 2, 1),
    }
    node = helper.make_node("Slice", ["x", "s", "e", "a", "st"], ["y"])
    assert _check([node], x, ["y"], inits, opset) == ["ge.slice"]


def test_onnx_slice_default_axes_and_steps():
    node = helper.make_node("Slice", ["x", "s", "e"], ["y"])
    inits = {"s": _ints(1, 0), "e": _ints(3, -1)}
    assert _check([node], {"x": _x((4, 5))}, ["y"], inits) == ["ge.slice"]


def test_onnx_slice_negative_step_is_refused():
    node = helper.make_node("Slice", ["x", "s", "e", "a", "st"], ["y"], name="s")
    inits = {"s": _ints(-1), "e": _ints(-INT64_MAX), "a": _ints(0), "st": _ints(-1)}
    model = _model([node], {"x": _x((4,))}, ["y"], inits, 17)
    with pytest.raises(GeError) as e:
        import_onnx(model)
    assert str(e.value) == (
        "model: error: cannot import 1 node: 's' (Slice: steps [-1]: only positive steps are "
        "supported)"
    )


def test_onnx_split_by_sizes():
    node = helper.make_node("Split", ["x", "sp"], ["a", "b", "c"], axis=1)
    names = _check([node], {"x": _x((2, 7))}, ["a", "b", "c"], {"sp": _ints(2, 0, 5)})
    assert names == ["ge.slice"] * 3


def test_onnx_split_equal_parts_opset_17():
    node = helper.make_node("Split", ["x"], ["a", "b"], axis=-1)
    assert _check([node], {"x": _x((2, 6))}, ["a", "b"], {}) == ["ge.slice"] * 2


def test_onnx_split_num_outputs_opset_18_last_part_smaller():
    node = helper.make_node("Split", ["x"], ["a", "b", "c"], axis=0, num_outputs=3)
    assert _check([node], {"x": _x((7, 2))}, ["a", "b", "c"], {}, opset=18) == ["ge.slice"] * 3


@pytest.mark.parametrize("shape", [(2, 3, 4), (3, 1), (1, 1, 1, 4)])
def test_onnx_expand(shape):
    node = helper.make_node("Expand", ["x", "s"], ["y"])
    assert _check([node], {"x": _x((3, 1))}, ["y"], {"s": _ints(*shape)}) == ["ge.expand"]


# ---- the builder --------------------------------------------------------------------------------


def test_builder_infers_the_result_shapes():
    from ge_dialect.frontend.builder import GraphBuilder

    b = GraphBuilder()
    x = b.input("x", [4, 6])
    i = b.input("i", [5], "int32")
    g = b.gather(x, i, axis=-1)
    s = b.slice(x, [-1, 1], [INT64_MAX, 6], axes=[-2, 1], steps=[1, 2])
    e = b.expand(s, [3, 1, 1])
    assert (g.shape, s.shape, e.shape) == ((4, 5), (1, 3), (3, 1, 3))


@pytest.mark.parametrize(
    "build, message",
    [
        (
            lambda b, x: b.slice(x, [0], [1], steps=[0]),
            "error: slice steps must be positive, got [0]",
        ),
        (lambda b, x: b.slice(x, [0], [1], axes=[2]), "error: axis 2 is out of range for rank 2"),
        (lambda b, x: b.expand(x, [3, 4]), "error: cannot expand shape [4, 6] to [3, 4]"),
        (lambda b, x: b.gather(x, x, 0), "'ge.gather' op operand 'indices' must be i32 or i64"),
    ],
)
def test_builder_mistakes(build, message):
    from ge_dialect.frontend.builder import GraphBuilder

    b = GraphBuilder()
    x = b.input("x", [4, 6])
    with pytest.raises(GeError) as e:
        build(b, x)
        b.build([x])
    assert message in str(e.value)


# ---- ATen -------------------------------------------------------------------------------------

pytest.importorskip("torch")
import torch  # noqa: E402


class _Fn(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _check_torch(model, *inputs) -> list[str]:
    """Imports `model`, compares every output of the interpreter with eager PyTorch exactly;
    returns the names of the ge ops."""
    from ge_dialect.frontend.torch_import import import_torch

    module = import_torch(model, inputs)
    got = run_function(module, [t.numpy() for t in inputs])
    with torch.no_grad():
        expected = model(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    assert len(got) == len(expected)
    for actual, ref in zip(got, expected, strict=True):
        np.testing.assert_array_equal(actual, ref.numpy())
        assert actual.dtype == ref.numpy().dtype
    return [op.name for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const"]


class _Embedding(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.emb = torch.nn.Embedding(10, 6)
        self.pos = torch.nn.Embedding(4, 6)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1])
        return self.emb(ids) + self.pos(positions)


def test_aten_embedding_lookup_matches_eager_torch():
    ids = torch.tensor([[0, 9, 3, 3], [2, 2, 7, 1]])
    names = _check_torch(_Embedding().eval(), ids)
    assert names.count("ge.gather") == 1  # the position lookup (all constants) folds at import


def test_aten_embedding_out_of_range_index_is_a_located_error():
    from ge_dialect.frontend.torch_import import import_torch

    model = _Embedding().eval()
    module = import_torch(model, (torch.tensor([[0, 1, 2, 3]]),))
    with pytest.raises(GeError) as e:
        api.reference(module, {"ids": np.array([[0, 1, 10, 3]])})
    assert (
        "error: 'ge.gather' op indices hold 10 at [0, 2], out of range for axis 0 of size 10 "
        "(an index must lie in [-10, 10))" in str(e.value)
    )
    assert str(e.value).startswith(__file__ + ":")  # located at the model's line


def test_aten_index_select_select_and_slice():
    x = torch.randn(3, 8, 5, generator=torch.Generator().manual_seed(1))
    index = torch.tensor([4, -1, 0])

    def fn(x):
        return (
            torch.index_select(x, 2, index.abs()),
            x.select(1, -1),
            x[:, 1::3, -2:],
            x[1:100, :2],
            x[:, :],
        )

    names = _check_torch(_Fn(fn), x)
    assert names.count("ge.gather") == 1 and "ge.reshape" in names


def test_aten_split_chunk_and_expand():
    x = torch.randn(2, 7, 1, generator=torch.Generator().manual_seed(2))

    def fn(x):
        a, b, c = x.split([1, 4, 2], dim=1)
        d, e = x.split(4, dim=1)
        f = x.chunk(3, dim=1)[-1]
        return a, b, c, d, e, f, x.expand(3, 2, 7, 4), x.expand(-1, -1, 1)

    names = _check_torch(_Fn(fn), x)
    assert names.count("ge.expand") == 1
