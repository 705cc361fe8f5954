"""Comparisons, logic, where, sin and cos through the frontends, and folding at import.

ONNX (Equal, Less, LessOrEqual, Greater, GreaterOrEqual, Not, And, Or, Where, Sin, Cos,
opsets 17 and 21) against onnxruntime; ATen (eq/ne/lt/le/gt/ge .Tensor and .Scalar,
logical_not/and/or, bitwise_and/or/not on bool, where.self, sin, cos) against eager
PyTorch.  Folding at import: calls whose tensor operands are all known at import (or that
have none) become constants; a call that depends on a graph input never folds.  The
attention-mask chains of tiny GPT-2 and BERT models built from configs (no downloads)
fold away.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import onnx
import pytest
from helpers import onnx_ref
from onnx import helper
from xdsl.ir import Operation

from ge_dialect import api
from ge_dialect.frontend import import_onnx
from ge_dialect.ir.interpreter import run_function

pytest.importorskip("torch")
import torch  # noqa: E402
from torch import nn  # noqa: E402

from ge_dialect.frontend.torch_import import (  # noqa: E402
    FxConverter,
    export_decompositions,
    import_torch,
)

# --------------------------------------------------------------------------------------
# ONNX
# --------------------------------------------------------------------------------------


def _onnx_model(nodes, inputs: Mapping[str, np.ndarray], outputs: Mapping[str, object], opset):
    return onnx_ref.make_model(nodes, inputs, outputs, opset=opset, check=True)


def _onnx_inputs(dtype):
    rng = np.random.default_rng(41)
    x = rng.integers(-2, 3, (3, 8)).astype(dtype)
    y = rng.integers(-2, 3, (8,)).astype(dtype)
    x[0, :3] = np.nan
    y[1] = np.nan
    return {"x": x, "y": y}


@pytest.mark.parametrize("opset", [17, 21])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_onnx_against_onnxruntime(dtype, opset):
    n = helper.make_node
    nodes = [
        n("Equal", ["x", "y"], ["eq"]),
        n("Less", ["x", "y"], ["lt"]),
        n("LessOrEqual", ["x", "y"], ["le"]),
        n("Greater", ["x", "y"], ["gt"]),
        n("GreaterOrEqual", ["x", "y"], ["ge"]),
        n("Not", ["eq"], ["ne"]),
        n("And", ["ne", "le"], ["and"]),
        n("Or", ["and", "gt"], ["or"]),
        n("Sin", ["x"], ["sin"]),
        n("Cos", ["y"], ["cos"]),
        n("Where", ["or", "sin", "cos"], ["w"]),
    ]
    outputs = {k: bool for k in ("eq", "lt", "le", "gt", "ge", "ne", "and", "or")}
    outputs.update({"sin": dtype, "cos": dtype, "w": dtype})
    inputs = _onnx_inputs(dtype)
    model = _onnx_model(nodes, inputs, outputs, opset)
    refs = onnx_ref._session(model).run(list(outputs), inputs)
    module = import_onnx(model)
    got = run_function(module, list(inputs.values()))
    names = [op.name for op in module.walk() if op.name.startswith("ge.")]
    for kind in ("equal", "less", "less_equal", "greater", "greater_equal", "logical_not"):
        assert f"ge.{kind}" in names
    for name, actual, ref in zip(outputs, got, refs, strict=True):
        assert actual.dtype == ref.dtype and actual.shape == ref.shape, name
        if ref.dtype == np.bool_:
            np.testing.assert_array_equal(actual, ref, err_msg=name)
        else:
            assert api.within_tolerance(actual, ref), name


def test_onnx_comparison_of_mixed_types_is_refused():
    n = helper.make_node
    nodes = [n("Cast", ["y"], ["h"], to=onnx.TensorProto.FLOAT16), n("Less", ["x", "h"], ["m"])]
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4]),
            helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [4]),
        ],
        [helper.make_tensor_value_info("m", onnx.TensorProto.BOOL, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(api.GeError) as info:
        import_onnx(model)
    assert "Less of f32 and f16 operands" in str(info.value)


# --------------------------------------------------------------------------------------
# ATen
# --------------------------------------------------------------------------------------


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


def _ops(module) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const"]


def _check_torch(fn, *inputs):
    module = import_torch(Fn(fn), inputs)
    got = api.reference(module, {f"args_{i}": t.numpy() for i, t in enumerate(inputs)})
    expected = fn(*inputs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for actual, ref in zip(got.values(), expected, strict=True):
        ref = ref.numpy()
        assert actual.dtype == ref.dtype and actual.shape == ref.shape
        if ref.dtype == np.bool_ or ref.dtype.kind == "i":
            np.testing.assert_array_equal(actual, ref)
        else:
            assert api.within_tolerance(actual, ref)
    return _ops(module)


def _xy(dtype=torch.float32):
    g = torch.Generator().manual_seed(5)
    x = torch.randint(-2, 3, (3, 8), generator=g).to(dtype)
    y = torch.randint(-2, 3, (8,), generator=g).to(dtype)
    if dtype.is_floating_point:
        x[0, :3] = float("nan")
        y[1] = float("nan")
    return x, y


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.int32])
def test_aten_comparisons_against_eager(dtype):
    x, y = _xy(dtype)

    def fn(a, b):
        return (a == b, a != b, a < b, a <= b, a > b, a >= b, a == 1, a != 0, a < 1, a >= -1)

    ops = _check_torch(fn, x, y)
    kinds = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
    assert sorted(set(ops)) == sorted(f"ge.{k}" for k in kinds)


def test_aten_logic_where_sin_cos_against_eager():
    x, y = _xy()

    def fn(a, b):
        m = (a < b) & (a > -2)
        o = torch.logical_or(~m, torch.logical_not(a == a))
        n = torch.logical_and(o, b > 0) | m
        return torch.where(n, torch.sin(a), torch.cos(b)), n, torch.where(m, a, 0.5)

    ops = _check_torch(fn, x, y)
    for name in ("ge.logical_and", "ge.logical_or", "ge.logical_not", "ge.where", "ge.sin"):
        assert name in ops


def test_aten_bitwise_on_integers_is_refused():
    x = torch.ones(4, dtype=torch.int32)
    with pytest.raises(api.GeError) as info:
        import_torch(Fn(lambda a: a & a), (x,))
    assert "a logical and of a i32 tensor (only of bool)" in str(info.value)


# --------------------------------------------------------------------------------------
# Folding at import
# --------------------------------------------------------------------------------------


class MaskChain(nn.Module):
    """Builds a causal mask and position ids from arange/full/cumsum/eq/le/index/any, as Hugging
    Face models do, and applies it to the input."""

    def __init__(self):
        super().__init__()
        self.table: torch.Tensor
        self.register_buffer("table", torch.arange(16.0).reshape(4, 4))

    def forward(self, x):
        n = x.shape[-1]
        pos = torch.arange(n)
        causal = pos[None, :] <= pos[:, None]
        ones = torch.full((1, n), 1, dtype=torch.long)
        ids = ones.cumsum(-1) - 1
        keep = causal & (ids != 2) & (ids == ids)
        row = self.table[torch.tensor([1, 3])]  # index.Tensor on a buffer
        zero = torch.full_like(x, 0.0)  # only x's static shape matters
        any_row = keep.any(dim=-1, keepdim=True)
        scores = torch.where(keep & any_row, x, torch.scalar_tensor(-1e4)) + zero
        return scores + row.sum(), (x > 0) & keep


def test_the_mask_chain_folds_and_inputs_never_fold():
    x = torch.randn(4, 4)
    module = import_torch(MaskChain(), (x,))
    got = api.reference(module, {"x": x.numpy()})
    for actual, ref in zip(got.values(), MaskChain()(x), strict=True):
        assert (
            api.within_tolerance(actual, ref.numpy())
            if ref.is_floating_point()
            else (np.array_equal(actual, ref.numpy()))
        )
    ops = _ops(module)
    # what depends on x stays; arange, full, cumsum, le, ne, eq, index, any, full_like fold
    assert sorted(ops) == ["ge.add", "ge.add", "ge.greater", "ge.logical_and", "ge.where"]
    consts = [op for op in module.walk() if op.name == "ge.const"]
    mask = [c for c in consts if "i1" in str(c.results[0].type)]
    assert len(mask) == 2  # the where's mask and the and's: one folded value, two uses
    assert "ge.const" in api.print_module(module).split("ge.where")[0]


def test_a_node_depending_on_an_input_is_never_folded():
    """A call on x converts even when its value does not depend on x's values (x * 0)."""
    x = torch.randn(2, 3)
    module = import_torch(Fn(lambda a: a * 0.0 + torch.arange(3.0)), (x,))
    assert _ops(module) == ["ge.mul", "ge.add"]
    text = api.print_module(module)
    assert "ge.const dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>" in text


def _mask_converter(model, example) -> tuple[FxConverter, list]:
    """The converter of an exported Hugging Face model with its parameters known, and the
    call nodes with users (in graph order)."""
    from torch.export.graph_signature import InputKind

    ep = torch.export.export(model, (example,), kwargs=_kwargs(model), strict=False)
    ep = ep.run_decompositions(export_decompositions())
    state, constants = dict(ep.state_dict), dict(ep.constants or {})
    values: dict[str, torch.Tensor] = {
        s.arg.name: state.get(s.target, constants.get(s.target))  # type: ignore[misc]
        for s in ep.graph_signature.input_specs
        if s.kind != InputKind.USER_INPUT
    }
    c = FxConverter(ep.graph_module.graph, owner=ep.graph_module, constants=values)
    for node in ep.graph.nodes:
        if node.op == "placeholder" and node.name in values:
            c.known[node] = values[node.name]
    calls = [n for n in ep.graph.nodes if n.op == "call_function" and n.users]
    return c, calls


def _kwargs(model) -> dict:
    return {} if type(model).__name__ == "BertModel" else {"use_cache": False}


def _depends_on_input(node, memo: dict) -> bool:
    """Whether the values of `node` depend on those of the input ids."""
    if node not in memo:
        if node.op == "placeholder":
            memo[node] = node.name.startswith("input_ids")
        else:
            operands = node.all_input_nodes
            if str(node.target).startswith(("aten.full_like", "aten.zeros_like")):
                operands = operands[1:]  # its shape only
            memo[node] = any(_depends_on_input(n, memo) for n in operands)
    return memo[node]


@pytest.mark.parametrize("family", ["gpt2", "bert"])
def test_hugging_face_attention_masks_fold(family):
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    if family == "gpt2":
        config = transformers.GPT2Config(
            n_layer=1, n_head=2, n_embd=32, vocab_size=64, n_positions=16
        )
        model = transformers.GPT2LMHeadModel(config)
    else:
        config = transformers.BertConfig(
            num_hidden_layers=1,
            num_attention_heads=2,
            hidden_size=32,
            intermediate_size=64,
            vocab_size=64,
            max_position_embeddings=16,
        )
        model = transformers.BertModel(config)
    model.eval()
    model.config._attn_implementation = "eager"
    c, calls = _mask_converter(model, torch.randint(0, 64, (1, 8)))
    memo: dict = {}
    folded = {str(n.target) for n in calls if c._fold(n)}
    left = [n for n in calls if n not in c.known]
    assert all(_depends_on_input(n, memo) for n in left)  # whatever is left depends on ids
    assert not any(_depends_on_input(n, memo) for n in calls if n in c.known)
    mask_ops = {"aten.full.default", "aten.scalar_tensor.default"}
    if family == "gpt2":
        mask_ops |= {
            "aten.arange.start_step",
            "aten.cumsum.default",
            "aten.index.Tensor",
            "aten.le.Tensor",
            "aten.bitwise_and.Tensor",
        }
    assert mask_ops <= folded


def test_a_result_over_the_limit_is_not_folded(monkeypatch):
    """Over the limit, the call converts as usual (here: arange has no ge op)."""
    from ge_dialect.frontend import torch_import

    fn = Fn(lambda a: a + torch.arange(8.0))
    assert _ops(import_torch(fn, (torch.randn(8),))) == ["ge.add"]
    monkeypatch.setattr(torch_import, "FOLD_LIMIT_BYTES", 31)  # 8 f32 take 32 bytes
    with pytest.raises(api.GeError) as info:
        import_torch(fn, (torch.randn(8),))
    assert "unsupported PyTorch op 'aten.arange.start_step'" in str(info.value)


def test_tiny_gpt2_imports_with_its_masks_folded():
    """The whole model converts: the causal mask is one i1 constant of a `ge.where`, and the
    logits agree with eager PyTorch."""
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=64, n_positions=16)
    model = transformers.GPT2LMHeadModel(config).eval()
    model.config._attn_implementation = "eager"

    class Logits(nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids):
            return self.model(input_ids, use_cache=False)[0]

    ids = torch.randint(0, 64, (1, 8))
    module = import_torch(Logits().eval(), (ids,))
    ops = _ops(module)
    assert ops.count("ge.where") == 1 and "ge.logical_and" not in ops
    (where,) = [op for op in module.walk() if op.name == "ge.where"]
    assert isinstance(where.operands[0].owner, Operation)
    assert where.operands[0].owner.name == "ge.const"
    (logits,) = api.reference(module, {"input_ids": ids.numpy()}).values()
    with torch.no_grad():
        expected = Logits().eval()(ids).numpy()
    assert api.within_tolerance(logits, expected)


@pytest.mark.parametrize(
    "make,op",
    [(lambda: torch.rand(3), "aten.rand"), (lambda: torch.empty(3), "aten.empty")],
)
def test_random_and_uninitialised_values_are_never_folded(make, op):
    with pytest.raises(api.GeError) as info:
        import_torch(Fn(lambda a: a + make()), (torch.randn(3),))
    assert f"unsupported PyTorch op '{op}." in str(info.value)
