"""Tiny Hugging Face transformers through both PyTorch paths, against eager PyTorch.

GPT-2, BERT (a padding attention mask and token types as inputs), Llama (grouped-query
attention), ViT (a conv patch embedding), Mixtral (sparse MoE) and DeepSeek-V3 (a dense
layer, then a MoE layer: grouped sigmoid routing with a correction bias, a shared expert)
are built from tiny configs (no downloads), with eager attention; the MoE blocks are made
static (`static_moe`) after the eager output is taken from the original blocks.  They go
through `import_torch` (torch.export; the numbers
of the reference interpreter) and through the `torch.compile` backend (`ge_dialect.torchair`;
the numbers of the simulated NPU), in fp32 (the whole-model tolerance) and in fp16
(`model.half()`, fp16 inputs; the fp16 tolerance).  Weights are drawn with
`initializer_range` 0.2 (the default 0.02 leaves the output of a one-layer model to its
embeddings and final norm), so that attention and the MLP weigh in every output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
import torch  # noqa: E402
from torch import nn  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect import torchair as tng  # noqa: E402
from ge_dialect.frontend.static_moe import static_moe  # noqa: E402
from ge_dialect.frontend.torch_import import import_torch  # noqa: E402

SMALL = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2)
INIT = 0.2
EAGER = "eager"


def _gpt2() -> nn.Module:
    config = transformers.GPT2Config(
        n_layer=1,
        n_head=2,
        n_embd=32,
        vocab_size=64,
        n_positions=16,
        initializer_range=INIT,
        attn_implementation=EAGER,
    )
    return transformers.GPT2LMHeadModel(config)


def _bert() -> nn.Module:
    config = transformers.BertConfig(
        **SMALL,
        vocab_size=64,
        max_position_embeddings=16,
        initializer_range=INIT,
        attn_implementation=EAGER,
    )
    return transformers.BertModel(config)


def _llama() -> nn.Module:
    config = transformers.LlamaConfig(
        **SMALL, num_key_value_heads=1, vocab_size=64, max_position_embeddings=16,
        initializer_range=INIT, attn_implementation=EAGER,
    )  # fmt: skip
    return transformers.LlamaForCausalLM(config)


def _vit() -> nn.Module:
    config = transformers.ViTConfig(
        **SMALL,
        image_size=16,
        patch_size=4,
        num_channels=3,
        initializer_range=INIT,
        attn_implementation=EAGER,
    )
    return transformers.ViTModel(config, add_pooling_layer=False)


def _mixtral() -> nn.Module:
    config = transformers.MixtralConfig(
        **SMALL, num_key_value_heads=1, num_local_experts=4, num_experts_per_tok=2,
        vocab_size=64, max_position_embeddings=16, initializer_range=INIT,
        attn_implementation=EAGER,
    )  # fmt: skip
    return transformers.MixtralForCausalLM(config)


def _deepseek() -> nn.Module:
    config = transformers.DeepseekV3Config(
        **{**SMALL, "num_hidden_layers": 2}, num_key_value_heads=2, moe_intermediate_size=16,
        vocab_size=64, max_position_embeddings=16, first_k_dense_replace=1, q_lora_rank=16,
        kv_lora_rank=16, qk_rope_head_dim=8, qk_nope_head_dim=8, v_head_dim=8,
        n_routed_experts=4, num_experts_per_tok=2, n_group=2, topk_group=1, n_shared_experts=1,
        initializer_range=INIT, attn_implementation=EAGER,
    )  # fmt: skip
    model = transformers.DeepseekV3ForCausalLM(config)
    router = model.model.layers[1].mlp.gate  # the MoE layer's
    with torch.no_grad():  # a correction bias that counts in the choice
        router.e_score_correction_bias.copy_(torch.linspace(-0.05, 0.05, 4))
    return model


def _ids(batch: int = 1) -> torch.Tensor:
    return torch.randint(0, 64, (batch, 8), generator=torch.Generator().manual_seed(1))


def _bert_inputs() -> dict[str, torch.Tensor]:
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[1, 5:] = 0  # the second sequence is padded
    types = torch.zeros(2, 8, dtype=torch.long)
    types[:, 4:] = 1
    return {"input_ids": _ids(2), "attention_mask": mask, "token_type_ids": types}


def _pixels() -> dict[str, torch.Tensor]:
    return {"pixel_values": torch.randn(1, 3, 16, 16, generator=torch.Generator().manual_seed(2))}


@dataclass(frozen=True)
class Family:
    make: Callable[[], nn.Module]
    inputs: Callable[[], dict[str, torch.Tensor]]
    kwargs: tuple[tuple[str, object], ...] = (("use_cache", False),)
    moe_blocks: int = 0
    """How many MoE blocks `static_moe` replaces (after the eager output is taken)."""


FAMILIES = {
    "gpt2": Family(_gpt2, lambda: {"input_ids": _ids()}),
    "bert": Family(_bert, _bert_inputs, ()),
    "llama": Family(_llama, lambda: {"input_ids": _ids()}),
    "vit": Family(_vit, _pixels, ()),
    "mixtral": Family(_mixtral, lambda: {"input_ids": _ids()}, moe_blocks=1),
    "deepseek_v3": Family(_deepseek, lambda: {"input_ids": _ids()}, moe_blocks=1),
}


class FirstOutput(nn.Module):
    """The model called by keyword on `names`, returning its first output (the logits or
    the last hidden state)."""

    def __init__(self, model: nn.Module, names: list[str], kwargs: dict[str, object]):
        super().__init__()
        self.model = model
        self.names = names
        self.kwargs = kwargs

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        return self.model(**dict(zip(self.names, args, strict=True)), **self.kwargs)[0]


@pytest.fixture(scope="module")
def built() -> Callable[[str, torch.dtype], tuple[nn.Module, list[torch.Tensor], np.ndarray]]:
    """(model, inputs, eager output) of a family in a dtype, built once per module."""
    cache: dict[tuple[str, torch.dtype], tuple[nn.Module, list[torch.Tensor], np.ndarray]] = {}

    def get(name: str, dtype: torch.dtype) -> tuple[nn.Module, list[torch.Tensor], np.ndarray]:
        if (name, dtype) not in cache:
            family = FAMILIES[name]
            torch.manual_seed(0)
            model = family.make().eval().to(dtype)
            config: Any = model.config
            assert config._attn_implementation == EAGER
            named = family.inputs()
            inputs = [t.to(dtype) if t.is_floating_point() else t for t in named.values()]
            wrapper = FirstOutput(model, list(named), dict(family.kwargs)).eval()
            with torch.no_grad():
                expected = wrapper(*inputs).numpy()
            assert expected.dtype == np.dtype(str(dtype).removeprefix("torch."))
            assert np.isfinite(expected).all()
            assert static_moe(model) == family.moe_blocks
            cache[name, dtype] = (wrapper, inputs, expected)
        return cache[name, dtype]

    return get


DTYPES = [pytest.param(torch.float32, id="fp32"), pytest.param(torch.float16, id="fp16")]


def _assert_close(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    error = api.max_error(actual, expected)
    assert api.within_tolerance(actual, expected, whole_model=True), f"max |error| {error:.3g}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", FAMILIES)
def test_import_torch_equals_eager(built, name, dtype):
    model, inputs, expected = built(name, dtype)
    module = import_torch(model, inputs)
    names = [f"args_{i}" for i in range(len(inputs))]
    (actual,) = api.reference(
        module, {n: t.numpy() for n, t in zip(names, inputs, strict=True)}
    ).values()
    _assert_close(actual, expected)
    ops = {op.name for op in module.walk()}
    assert "ge.softmax" in ops and "ge.matmul" in ops  # eager attention, converted


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", FAMILIES)
def test_the_backend_equals_eager(built, name, dtype):
    model, inputs, expected = built(name, dtype)
    torch._dynamo.reset()  # a fresh cache: never Dynamo's eager fallback past its limit
    backend = tng.get_npu_backend()
    compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
    with torch.no_grad():
        actual = compiled(*inputs).numpy()
    assert backend.compilations == 1  # one graph, run on the simulated NPU
    result = backend.last_result
    assert result is not None and not result.findings
    _assert_close(actual, expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm_topk_prob", [True, False])
def test_static_deepseek_v3_block_equals_the_eager_block(norm_topk_prob, dtype):
    """8 experts in 4 groups, the best 2 groups, the top 3 experts: the static block's
    output equals the eager block's (which combines in fp32); the group restriction and the
    correction bias both change the eager output here, so a static form that dropped
    either would fail."""
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3MoE

    config = transformers.DeepseekV3Config(
        hidden_size=16, moe_intermediate_size=8, n_routed_experts=8, num_experts_per_tok=3,
        n_group=4, topk_group=2, n_shared_experts=2, norm_topk_prob=norm_topk_prob,
    )  # fmt: skip
    torch.manual_seed(3)
    block = DeepseekV3MoE(config).eval()
    router: Any = block.gate
    nn.init.normal_(router.weight, std=0.5)
    with torch.no_grad():
        router.e_score_correction_bias.copy_(torch.linspace(-0.2, 0.2, 8))
    block = block.to(dtype)
    x = torch.randn(2, 6, 16).to(dtype)

    def eager(topk_group: int, bias_scale: float) -> torch.Tensor:
        kept = router.topk_group, router.e_score_correction_bias.clone()
        router.topk_group = topk_group
        router.e_score_correction_bias.mul_(bias_scale)
        try:
            return block(x)
        finally:
            router.topk_group = kept[0]
            router.e_score_correction_bias.copy_(kept[1])

    with torch.no_grad():
        expected = eager(2, 1.0)
        assert not torch.equal(eager(4, 1.0), expected)  # every group allowed
        assert not torch.equal(eager(2, 0.0), expected)  # no correction bias
        assert static_moe(block) == 1
        actual = block(x)
    assert actual.dtype == dtype
    assert api.within_tolerance(actual.numpy(), expected.numpy()), api.max_error(
        actual.numpy(), expected.numpy()
    )


def test_static_moe_refuses_a_deepseek_v3_block_without_its_router():
    class DeepseekV3MoE(nn.Module):  # the name, not the block
        def __init__(self) -> None:
            super().__init__()
            self.experts = nn.ModuleList()
            self.shared_experts = nn.Identity()
            self.gate = nn.Linear(2, 2)

    with pytest.raises(TypeError, match=r"has no gate\.e_score_correction_bias, gate\.n_"):
        static_moe(DeepseekV3MoE())


def test_the_backend_refuses_a_graph_that_writes_its_input():
    """Functionalization turns `y += 1` into an add; writing an input in place is refused
    (the compiled graph would not write it back)."""

    class Writes(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            x.add_(1.0)
            return x * 2.0

    class Local(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = x * 2.0
            y += 1.0
            return y

    torch._dynamo.reset()
    x = torch.randn(4)
    compiled = torch.compile(Local(), backend=tng.get_npu_backend(), dynamic=False)
    assert torch.equal(compiled(x), x * 2.0 + 1.0)
    compiled = torch.compile(Writes(), backend=tng.get_npu_backend(), dynamic=False)
    with pytest.raises(api.GeError, match="writes its input 'x' in place"):
        compiled(x.clone())


def test_mask_arithmetic_of_an_integer_input():
    """What BERT does to a padding mask: a cast to float (`ge.cast` of an i64), `1.0 - m` (a
    number first), a cast to bool (`m != 0`, as the sdpa path writes)."""

    class MaskOps(nn.Module):
        def forward(self, m: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            inverted = 1.0 - m.to(torch.float32)
            return inverted * -100.0, m.to(torch.bool)

    m = torch.tensor([[1, 1, 0, 0], [1, 0, 2, -3]])
    module = import_torch(MaskOps(), (m,))
    ops = [op.name for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const"]
    assert ops == ["ge.cast", "ge.sub", "ge.mul", "ge.not_equal"]
    got = list(api.reference(module, {"m": m.numpy()}).values())
    expected = MaskOps()(m)
    np.testing.assert_array_equal(got[0], expected[0].numpy())
    np.testing.assert_array_equal(got[1], expected[1].numpy())
