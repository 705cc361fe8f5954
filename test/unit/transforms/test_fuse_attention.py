"""`--fuse-attention` on tiny Hugging Face GPT-2 and Llama models (random weights, built
from configs: no downloads) as `import_torch` writes them, and the ATen
`scaled_dot_product_attention` importer.

Eager attention: after the pass the graph holds one `ge.flash_attention` per layer (and,
for Llama, a `ge.rotary_mul` for the query and the key) and no softmax; the interpreter
gives eager PyTorch's logits before and after, and the simulated NPU runs the fused graph
as the interpreter does.  SDPA attention imports straight to `ge.flash_attention`, and the
pass turns Llama's repeat_kv and the causal mask constant into grouped-query and causal
attention.  Chains built with the builder check the variants the models do not write.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers.support import ROOT
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir.dialects import ge
from ge_dialect.ir.interpreter import run_function
from transforms.fuse_attention import FuseAttentionPass

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402

from ge_dialect.frontend.torch_import import import_torch  # noqa: E402

FUSE = FuseAttentionPass.patterns  # type: ignore[attr-defined]


def _ops(module) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("ge.")]


def _heads(v) -> int:
    t = v.type
    assert isinstance(t, TensorType)
    return t.get_shape()[1]


class Logits(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids):
        return self.model(input_ids, use_cache=False)[0]


def _model(family: str, attention: str) -> nn.Module:
    torch.manual_seed(0)
    if family == "gpt2":
        config = transformers.GPT2Config(
            n_layer=1, n_head=2, n_embd=32, vocab_size=64, n_positions=16
        )
        model = transformers.GPT2LMHeadModel(config)
    else:
        config = transformers.LlamaConfig(
            num_hidden_layers=1,
            num_attention_heads=4,
            num_key_value_heads=2,
            hidden_size=32,
            intermediate_size=64,
            vocab_size=64,
            max_position_embeddings=16,
        )
        model = transformers.LlamaForCausalLM(config)
    model.config._attn_implementation = attention
    return Logits(model.eval()).eval()


@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_tiny_models_fuse_and_keep_their_numbers(family, attention):
    model = _model(family, attention)
    ids = torch.randint(0, 64, (1, 8), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        expected = model(ids).numpy()
    module = import_torch(model, (ids,))
    inputs = {"input_ids": ids.numpy()}
    before = _ops(module)
    if attention == "sdpa":  # imported whole: repeat_kv and the mask constant still there
        assert before.count("ge.flash_attention") == 1 and "ge.softmax" not in before
    else:
        assert "ge.flash_attention" not in before and "ge.softmax" in before
    (got,) = api.reference(module, inputs).values()
    assert api.within_tolerance(got, expected), api.max_error(got, expected)

    api.compile(module, "fuse-attention")
    after = _ops(module)
    assert after.count("ge.flash_attention") == 1 and "ge.softmax" not in after
    assert after.count("ge.rotary_mul") == (2 if family == "llama" else 0)
    (fa,) = [op for op in module.walk() if isinstance(op, ge.FlashAttentionOp)]
    assert fa.causal is not None and fa.mask is None
    heads = (4, 2) if family == "llama" else (2, 2)  # Llama: grouped-query attention
    assert (_heads(fa.query), _heads(fa.key)) == heads
    (fused,) = api.reference(module, inputs).values()
    assert api.within_tolerance(fused, expected), api.max_error(fused, expected)

    device = api.compile(module, "lower-to-device,plan-memory")
    (simulated,) = api.simulate(device, inputs).outputs.values()
    assert api.within_tolerance(simulated, fused), api.max_error(simulated, fused)


# --------------------------------------------------------------------------------------
# The scaled_dot_product_attention importer
# --------------------------------------------------------------------------------------


class Sdpa(nn.Module):
    def __init__(self, **kwargs):
        super().__init__()
        self.kwargs = kwargs

    def forward(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **self.kwargs)


class SdpaNoMask(nn.Module):
    def __init__(self, **kwargs):
        super().__init__()
        self.kwargs = kwargs

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, **self.kwargs)


def _qkv(n, nkv, sq, skv, d=8, dv=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (
        torch.randn(2, n, sq, d, generator=g),
        torch.randn(2, nkv, skv, d, generator=g),
        torch.randn(2, nkv, skv, dv, generator=g),
    )


def _check_sdpa(model: nn.Module, args, want_causal: bool, want_mask: bool):
    module = import_torch(model, args)
    (fa,) = [op for op in module.walk() if isinstance(op, ge.FlashAttentionOp)]
    assert (fa.causal is not None, fa.mask is not None) == (want_causal, want_mask)
    names = [p for p in ("q", "k", "v", "mask")][: len(args)]
    inputs = {name: a.numpy() for name, a in zip(names, args, strict=True)}
    (got,) = api.reference(module, inputs).values()
    with torch.no_grad():
        expected = model(*args).numpy()
    assert api.within_tolerance(got, expected), api.max_error(got, expected)


@pytest.mark.parametrize(
    "kind", ["bool", "float", "bool-row-masked-out", "float-broadcast"], ids=str
)
def test_sdpa_masks(kind):
    q, k, v = _qkv(4, 4, 5, 6)
    g = torch.Generator().manual_seed(3)
    if kind.startswith("bool"):
        mask = torch.rand(2, 1, 5, 6, generator=g) > 0.3
        mask[..., 0] = True
        if kind == "bool-row-masked-out":
            mask[0, 0, 2] = False  # PyTorch gives zeros for that row, as the op does
    elif kind == "float":
        mask = torch.randn(2, 4, 5, 6, generator=g)
    else:
        mask = torch.randn(5, 6, generator=g)
    _check_sdpa(Sdpa(scale=0.3), (q, k, v, mask), False, True)


@pytest.mark.parametrize("sq,skv", [(5, 5), (3, 7)])
def test_sdpa_is_causal_is_top_left(sq, skv):
    """PyTorch's causal mask is aligned top-left: with Sq != Skv it becomes an i1 mask."""
    q, k, v = _qkv(2, 2, sq, skv, dv=4)
    _check_sdpa(SdpaNoMask(is_causal=True), (q, k, v), sq == skv, sq != skv)


def test_sdpa_grouped_query_decode():
    q, k, v = _qkv(8, 2, 1, 9)
    _check_sdpa(SdpaNoMask(enable_gqa=True), (q, k, v), False, False)


def test_sdpa_through_the_torchair_backend():
    """`make_fx` on a CPU traces SDPA to `_scaled_dot_product_flash_attention_for_cpu`."""
    from ge_dialect import torchair as tng

    q, k, v = _qkv(2, 2, 4, 4)
    model = SdpaNoMask(is_causal=True).eval()
    with torch.no_grad():
        expected = model(q, k, v).numpy()
        backend = tng.get_npu_backend()
        compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
        actual = compiled(q, k, v).numpy()
    assert api.within_tolerance(actual, expected), api.max_error(actual, expected)
    result = backend.last_result
    assert result is not None and not result.findings
    (graph,) = backend.graphs  # lowered: one launch of the flash attention kernel
    launches = [t.kernel for t in graph.program.tasks if t.kernel is not None]
    assert "flash_attention" in launches and "softmax" not in launches


def test_sdpa_with_dropout_is_refused_at_its_line():
    q, k, v = _qkv(2, 2, 3, 3)
    with pytest.raises(api.GeError) as info:
        import_torch(SdpaNoMask(dropout_p=0.5), (q, k, v))
    message = str(info.value)
    assert "test_fuse_attention.py" in message
    assert "'aten.scaled_dot_product_attention.default': dropout_p=0.5" in message


# --------------------------------------------------------------------------------------
# Chains built with the builder
# --------------------------------------------------------------------------------------


def _chunks(name: str) -> list[str]:
    with open(os.path.join(ROOT, "test", "lit", "transforms", name)) as f:
        return f.read().split("// -----")


@pytest.mark.parametrize("chunk", range(len(_chunks("fuse-attention.mlir"))))
def test_the_lit_cases_keep_their_numbers(chunk):
    """Every case of test/lit/transforms/fuse-attention.mlir fuses (fewer ops) and computes
    what it computed, on random inputs."""
    module = api.parse(_chunks("fuse-attention.mlir")[chunk], "fuse-attention.mlir")
    rng = np.random.default_rng(chunk)
    (function,) = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    inputs = []
    for t in function.function_type.inputs.data:
        assert isinstance(t, TensorType)
        dtype = np.float16 if "f16" in str(t.element_type) else np.float32
        inputs.append(rng.uniform(-1, 1, tuple(t.get_shape())).astype(dtype))
    before, count = run_function(module, inputs), len(_ops(module))
    api.compile(module, "fuse-attention")
    assert len(_ops(module)) < count
    for got, expected in zip(run_function(module, inputs), before, strict=True):
        assert api.within_tolerance(got, expected), api.max_error(got, expected)


def _chain(scale: str, mask: str, gqa: bool, flat: bool, dtype: str):
    """An attention chain over q [1, 4, 5, 8], k and v [1, 2 or 4, 6, 8]."""
    b = GraphBuilder()
    q = b.input("q", (1, 4, 5, 8), dtype)
    nkv = 2 if gqa else 4
    k = b.input("k", (1, nkv, 6, 8), dtype)
    v = b.input("v", (1, nkv, 6, 8), dtype)
    if gqa:  # Hugging Face's repeat_kv
        k, v = (
            b.reshape(b.expand(b.reshape(t, (1, 2, 1, 6, 8)), (1, 2, 2, 6, 8)), (1, 4, 6, 8))
            for t in (k, v)
        )
    kt = b.transpose(k, (0, 1, 3, 2))
    if flat:
        s = b.reshape(b.matmul(b.reshape(q, (4, 5, 8)), b.reshape(kt, (4, 8, 6))), (1, 4, 5, 6))
    else:
        s = b.matmul(q, kt)
    np_dtype = np.float16 if dtype == "f16" else np.float32
    if scale == "mul":
        s = b.mul(s, b.const(np.asarray(0.3, np_dtype)))
    elif scale == "div":
        s = b.div(s, b.const(np.asarray(2.5, np_dtype)))
    rng = np.random.default_rng(7)
    if mask == "add":
        s = b.add(s, b.input("m", (1, 1, 5, 6), dtype))
    elif mask == "where":
        keep = rng.uniform(0, 1, (5, 6)) > 0.5
        keep[:, 0] = True
        s = b.where(b.const(keep), s, b.const(np.asarray(-1e4, np_dtype)))
    elif mask == "causal":
        additive = np.where(np.tril(np.ones((5, 6)), 1) > 0, 0.0, -np.inf).astype(np_dtype)
        s = b.add(s, b.const(additive))
    p = b.softmax(s, -1)
    if flat:
        y = b.reshape(b.matmul(b.reshape(p, (4, 5, 6)), b.reshape(v, (4, 6, 8))), (1, 4, 5, 8))
    else:
        y = b.matmul(p, v)
    return b.build([b.identity(y, name="y")])


@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize(
    "scale,mask,gqa,flat",
    [
        ("mul", "add", False, False),
        ("div", "where", True, True),
        ("none", "causal", True, False),
        ("mul", "none", False, True),
    ],
)
def test_builder_chains_fuse_to_one_op_with_the_same_numbers(scale, mask, gqa, flat, dtype):
    module = _chain(scale, mask, gqa, flat, dtype)
    np_dtype = np.float16 if dtype == "f16" else np.float32
    rng = np.random.default_rng(0)
    inputs = {
        "q": rng.uniform(-1, 1, (1, 4, 5, 8)).astype(np_dtype),
        "k": rng.uniform(-1, 1, (1, 2 if gqa else 4, 6, 8)).astype(np_dtype),
        "v": rng.uniform(-1, 1, (1, 2 if gqa else 4, 6, 8)).astype(np_dtype),
    }
    if mask == "add":
        inputs["m"] = rng.uniform(-2, 0, (1, 1, 5, 6)).astype(np_dtype)
    expected = api.reference(module, inputs)["y"]
    api.compile(module, "fuse-attention")
    assert _ops(module) == ["ge.flash_attention", "ge.identity"] or (
        mask == "where" and _ops(module) == ["ge.const", "ge.flash_attention", "ge.identity"]
    )
    (fa,) = [op for op in module.walk() if isinstance(op, ge.FlashAttentionOp)]
    assert (fa.causal is not None) == (mask == "causal")
    assert _heads(fa.key) == (2 if gqa else 4)
    got = api.reference(module, inputs)["y"]
    assert api.within_tolerance(got, expected), api.max_error(got, expected)
    device = api.compile(module, "lower-to-device,plan-memory")
    simulated = api.simulate(device, inputs).outputs["y"]
    assert api.within_tolerance(simulated, expected), api.max_error(simulated, expected)
