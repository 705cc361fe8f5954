"""`--fuse-mlp` on tiny Hugging Face models, and the static MoE form it relies on.

- Llama (one layer): the RMS norms become `ge.rms_norm`, the MLP's gate/up projections one
  matmul and a `ge.swi_glu`; the logits equal eager PyTorch before and after, and the
  simulator equals the interpreter on the fused graph.
- Mixtral (one layer, 4 experts, top 2) with `static_moe`: through `import_torch`, the
  fused graph holds `ge.moe_gating_top_k`, two `ge.grouped_matmul`s, a `ge.swi_glu` and
  `ge.rms_norm`s and equals eager; through the `torch.compile` backend the same kernels run
  on the simulated NPU and the logits equal eager.
- `static_moe` itself: the static Mixtral and Qwen2-MoE blocks equal the eager blocks.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from ge_dialect import api
from ge_dialect.ir.dialects import npu

pytest.importorskip("torch")
import torch  # noqa: E402

transformers = pytest.importorskip("transformers")

from ge_dialect.frontend.static_moe import static_moe  # noqa: E402
from ge_dialect.frontend.torch_import import import_torch  # noqa: E402

SMALL = dict(
    vocab_size=64,
    hidden_size=32,
    num_hidden_layers=1,
    num_attention_heads=4,
    num_key_value_heads=2,
    max_position_embeddings=32,
    attn_implementation="eager",
    use_cache=False,
)


def _ids(seed: int = 0) -> torch.Tensor:
    return torch.randint(0, 64, (1, 8), generator=torch.Generator().manual_seed(seed))


def _mixtral() -> torch.nn.Module:
    torch.manual_seed(0)
    config = transformers.MixtralConfig(
        intermediate_size=48, num_local_experts=4, num_experts_per_tok=2, **SMALL
    )
    return transformers.MixtralForCausalLM(config).eval()


def _ge_ops(module) -> Counter:
    return Counter(op.name for op in module.walk() if op.name.startswith("ge."))


def _logits(module, ids: torch.Tensor) -> np.ndarray:
    outputs = api.reference(module, {"input_ids": ids.numpy()})
    return next(iter(outputs.values()))


def _simulated(module, ids: torch.Tensor) -> np.ndarray:
    device = api.compile(module.clone(), "lower-to-device,plan-memory")
    return next(iter(api.simulate(device, {"input_ids": ids.numpy()}).outputs.values()))


def test_llama_mlp_and_rms_norm_fuse_and_keep_their_numbers():
    torch.manual_seed(0)
    config = transformers.LlamaConfig(intermediate_size=64, **SMALL)
    model = transformers.LlamaForCausalLM(config).eval()
    ids = _ids()
    with torch.no_grad():
        expected = model(ids).logits.numpy()
    module = import_torch(model, (ids,))
    assert api.within_tolerance(_logits(module, ids), expected)

    # after cse, as in the default pipeline: the gate and up projections share x's reshape
    api.compile(module, "canonicalize,cse,fuse-mlp")
    ops = _ge_ops(module)
    assert ops["ge.rms_norm"] == 3 and ops["ge.swi_glu"] == 1 and ops["ge.silu"] == 0
    fused = _logits(module, ids)
    assert api.within_tolerance(fused, expected), api.max_error(fused, expected)
    simulated = _simulated(module, ids)
    assert api.within_tolerance(simulated, fused), api.max_error(simulated, fused)


def test_mixtral_static_moe_imports_fuses_and_keeps_its_numbers():
    model = _mixtral()
    ids = _ids(1)
    with torch.no_grad():
        expected = model(ids).logits.numpy()
    assert static_moe(model) == 1
    module = import_torch(model, (ids,))
    before = _ge_ops(module)
    assert before["ge.topk"] == 1 and before["ge.scatter_add"] == 1
    assert api.within_tolerance(_logits(module, ids), expected)

    api.compile(module, "fuse-mlp")
    ops = _ge_ops(module)
    assert ops["ge.moe_gating_top_k"] == 1 and ops["ge.topk"] == 0 and ops["ge.softmax"] == 1
    assert ops["ge.grouped_matmul"] == 2 and ops["ge.swi_glu"] == 1 and ops["ge.rms_norm"] == 3
    # left: q, k, v, o, the two of attention, the router and the lm head
    assert ops["ge.matmul"] == 8
    fused = _logits(module, ids)
    assert api.within_tolerance(fused, expected), api.max_error(fused, expected)
    simulated = _simulated(module, ids)
    assert api.within_tolerance(simulated, fused), api.max_error(simulated, fused)


@pytest.mark.slow
def test_mixtral_through_the_torch_compile_backend():
    from ge_dialect import torchair as tng

    model = _mixtral()
    ids = _ids(2)
    with torch.no_grad():
        expected = model(ids).logits
    static_moe(model)
    config = tng.CompilerConfig()
    config.pipeline = "fuse-mlp," + api.DEFAULT_PIPELINE
    backend = tng.get_npu_backend(compiler_config=config)
    compiled = torch.compile(model, backend=backend, dynamic=False, fullgraph=True)
    with torch.no_grad():
        got = compiled(ids).logits
    assert api.within_tolerance(got.numpy(), expected.numpy())
    (graph,) = backend.graphs
    kernels = {op.kernel.data for op in graph.module.walk() if isinstance(op, npu.LaunchOp)}
    assert {"moe_gating_top_k", "grouped_matmul", "swi_glu", "rms_norm"} <= kernels
    assert "topk" not in kernels and "silu" not in kernels


def test_static_mixtral_block_equals_the_eager_block():
    from transformers.models.mixtral.modeling_mixtral import MixtralSparseMoeBlock

    config = transformers.MixtralConfig(
        hidden_size=16, intermediate_size=24, num_local_experts=5, num_experts_per_tok=2
    )
    torch.manual_seed(3)
    block = MixtralSparseMoeBlock(config).eval()
    x = torch.randn(2, 6, 16)
    with torch.no_grad():
        y, logits = block(x)
        assert static_moe(block) == 1
        y_static, logits_static = block(x)
    torch.testing.assert_close(logits_static, logits, rtol=0, atol=0)
    torch.testing.assert_close(y_static, y, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("norm_topk_prob", [True, False])
def test_static_qwen2_moe_block_equals_the_eager_block(norm_topk_prob):
    from transformers.models.qwen2_moe.modeling_qwen2_moe import Qwen2MoeSparseMoeBlock

    config = transformers.Qwen2MoeConfig(
        hidden_size=16,
        moe_intermediate_size=8,
        shared_expert_intermediate_size=12,
        num_experts=4,
        num_experts_per_tok=2,
        norm_topk_prob=norm_topk_prob,
    )
    torch.manual_seed(4)
    block = Qwen2MoeSparseMoeBlock(config).eval()
    x = torch.randn(1, 5, 16)
    with torch.no_grad():
        y, _ = block(x)
        assert static_moe(block) == 1
        y_static, _ = block(x)
    torch.testing.assert_close(y_static, y, rtol=1e-5, atol=1e-6)


def test_static_moe_refuses_a_block_it_does_not_know():
    class MixtralSparseMoeBlock(torch.nn.Module):  # the name, not the block
        pass

    with pytest.raises(TypeError, match="has no gate, experts, top_k"):
        static_moe(MixtralSparseMoeBlock())
    assert static_moe(torch.nn.Linear(2, 2)) == 0
