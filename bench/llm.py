"""Transformers on the simulated NPU: what fusion and streams do, and what compiling costs.

Small Hugging Face models are built from configs with seeded random weights (no download;
`transformers` from the `transformers` extra), imported with `import_torch` at a static
shape, and per model this prints, in one process:

- ops: the `ge` ops that do work (not constants) after import and `canonicalize,cse`, and
  after the transformer fusions (`fuse-attention,fuse-mlp`), with the fused ops counted;
- compile: the time of the whole pipeline (import not included), best of `--repeat`;
- latency: the simulated makespan (us, timing only) without and with the transformer
  fusions, each with one stream (`assign-streams{mode=single}`) and with automatic streams
  (`assign-streams{mode=auto}`); every pipeline also runs `fuse` and `to-nc1hwc0`;
- FRACTAL_NZ: the auto-stream makespans again with `to-fractal-nz` after `to-nc1hwc0`
  (not in the default pipeline), and their change;
- HBM: the bytes the ops read and write (the cost model's, what the device moves) before
  and after `fuse-attention`: the attention scores no longer go through HBM;
- numerics: the simulator's time for one run with numbers (fused, auto streams) against
  eager PyTorch's on one thread (`torch.set_num_threads(1)`), best of `--repeat` each, and
  the largest error of the simulator's outputs against eager.

A model whose import or compilation fails prints its error instead of its figures.  Nothing
here asserts.

    python bench/llm.py [--models gpt2,llama,mixtral,bert,vit,deepseek_v3] [--seq 64]
                        [--repeat 3]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)

from timer import measure  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect.utils.errors import GeError  # noqa: E402

EAGER = {"attn_implementation": "eager", "use_cache": False}
"""Attention as the model's own matmuls and softmax (what fuse-attention fuses; the sdpa
form imports as `ge.flash_attention` directly), and no KV cache in the outputs."""

BASE = "canonicalize,cse"
FUSIONS = "fuse-attention,fuse-mlp"
BACKEND = "lower-to-device,plan-memory"
FUSED_OPS = (
    "ge.flash_attention",
    "ge.rotary_mul",
    "ge.rms_norm",
    "ge.swi_glu",
    "ge.moe_gating_top_k",
    "ge.grouped_matmul",
)


def pipeline(fused: bool, streams: str, nz: bool = False) -> str:
    middle = f"{FUSIONS}," if fused else ""
    layout = "to-nc1hwc0,to-fractal-nz" if nz else "to-nc1hwc0"
    return f"{BASE},fuse,{middle}{layout},assign-streams{{mode={streams}}},{BACKEND}"


def _gpt2(seq: int) -> tuple[Any, tuple]:
    import torch
    from transformers import GPT2Config, GPT2Model

    config = GPT2Config(
        n_embd=256, n_layer=2, n_head=4, n_positions=max(seq, 64), vocab_size=512, **EAGER
    )
    return GPT2Model(config), (torch.randint(0, 512, (1, seq)),)


def _llama(seq: int) -> tuple[Any, tuple]:
    import torch
    from transformers import LlamaConfig, LlamaModel

    config = LlamaConfig(
        hidden_size=256,
        intermediate_size=688,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=512,
        max_position_embeddings=max(seq, 64),
        **EAGER,
    )
    return LlamaModel(config), (torch.randint(0, 512, (1, seq)),)


def _mixtral(seq: int) -> tuple[Any, tuple]:
    import torch
    from transformers import MixtralConfig, MixtralModel

    from ge_dialect.frontend.static_moe import static_moe

    config = MixtralConfig(
        hidden_size=256,
        intermediate_size=512,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        num_local_experts=4,
        num_experts_per_tok=2,
        vocab_size=512,
        max_position_embeddings=max(seq, 64),
        **EAGER,
    )
    model = MixtralModel(config)
    static_moe(model)
    return model, (torch.randint(0, 512, (1, seq)),)


def _bert(seq: int) -> tuple[Any, tuple]:
    import torch
    from transformers import BertConfig, BertModel

    config = BertConfig(
        hidden_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=1024,
        vocab_size=512,
        max_position_embeddings=max(seq, 64),
        **EAGER,
    )
    return BertModel(config, add_pooling_layer=False), (torch.randint(0, 512, (1, seq)),)


def _vit(seq: int) -> tuple[Any, tuple]:
    import torch
    from transformers import ViTConfig, ViTModel

    config = ViTConfig(
        hidden_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=1024,
        image_size=64,
        patch_size=8,
        **EAGER,
    )
    return ViTModel(config, add_pooling_layer=False), (torch.randn(1, 3, 64, 64),)


def _deepseek_v3(seq: int) -> tuple[Any, tuple]:
    import torch
    from transformers import DeepseekV3Config, DeepseekV3Model

    from ge_dialect.frontend.static_moe import static_moe

    config = DeepseekV3Config(
        hidden_size=256,
        intermediate_size=512,
        moe_intermediate_size=128,
        num_hidden_layers=2,
        first_k_dense_replace=1,
        n_routed_experts=4,
        num_experts_per_tok=2,
        n_group=2,
        topk_group=1,
        n_shared_experts=1,
        num_attention_heads=4,
        num_key_value_heads=4,
        q_lora_rank=64,
        kv_lora_rank=32,
        qk_rope_head_dim=16,
        qk_nope_head_dim=32,
        v_head_dim=32,
        vocab_size=512,
        max_position_embeddings=max(seq, 64),
        **EAGER,
    )
    model = DeepseekV3Model(config)
    static_moe(model)
    return model, (torch.randint(0, 512, (1, seq)),)


MODELS: dict[str, Callable[[int], tuple[Any, tuple]]] = {
    "gpt2": _gpt2,
    "llama": _llama,
    "mixtral": _mixtral,
    "bert": _bert,
    "vit": _vit,
    "deepseek_v3": _deepseek_v3,
}


def _work_ops(module: Any) -> Counter[str]:
    from ge_dialect.ir.dialects import ge

    return Counter(
        op.name
        for op in module.walk()
        if op.name.startswith("ge.") and not isinstance(op, ge.ConstOp)
    )


def _hbm_bytes(module: Any) -> int:
    from ge_dialect.ir.cost import op_cost
    from ge_dialect.ir.dialects import ge

    total = 0
    for op in module.walk():
        if op.name.startswith("ge.") and not isinstance(op, ge.ConstOp):
            cost = op_cost(op)
            total += cost.bytes_in + cost.bytes_out
    return total


def _makespan(module: Any, spec: str) -> float:
    compiled = api.compile(module.clone(), spec)
    return api.simulate(compiled, timing_only=True, check=False).report.makespan


def bench_model(name: str, seq: int, repeat: int) -> None:
    import torch

    from ge_dialect.frontend.torch_import import import_torch

    torch.manual_seed(0)
    model, inputs = MODELS[name](seq)
    model.eval()
    try:
        imported = import_torch(model, inputs)
    except GeError as e:
        print(f"{name}: {e}")
        return
    base = api.compile(imported.clone(), BASE)
    try:
        fused = api.compile(base.clone(), FUSIONS)
        attention = api.compile(base.clone(), "fuse-attention")
    except GeError as e:
        print(f"{name}: {e}")
        return
    before, after = _work_ops(base), _work_ops(fused)
    kinds = ", ".join(f"{op.split('.')[1]} {after[op]}" for op in FUSED_OPS if after[op])
    print(
        f"{name} (seq {seq}): ops {sum(before.values())} -> {sum(after.values())} after fusion"
        f" ({kinds or 'nothing fused'})"
    )
    spec = pipeline(True, "auto")
    compile_s, program = measure(lambda: api.compile(imported.clone(), spec), repeat=repeat)
    print(f"  compile {compile_s * 1e3:.0f} ms ({spec})")
    figures = {
        (fused_, streams): _makespan(imported, pipeline(fused_, streams))
        for fused_ in (False, True)
        for streams in ("single", "auto")
    }
    for fused_ in (False, True):
        one, auto = figures[(fused_, "single")], figures[(fused_, "auto")]
        label = "fused  " if fused_ else "unfused"
        print(f"  latency {label} 1 stream {one:9.2f} us, auto streams {auto:9.2f} us")
    print(
        f"  speed-up from fusion {figures[(False, 'single')] / figures[(True, 'single')]:.2f}x"
        f" (1 stream), {figures[(False, 'auto')] / figures[(True, 'auto')]:.2f}x (auto)"
    )
    nz = {
        fused_: _makespan(imported, pipeline(fused_, "auto", nz=True)) for fused_ in (False, True)
    }
    print(
        f"  with to-fractal-nz (auto streams): unfused {nz[False]:.2f} us"
        f" ({nz[False] / figures[(False, 'auto')] - 1:+.1%}), fused {nz[True]:.2f} us"
        f" ({nz[True] / figures[(True, 'auto')] - 1:+.1%})"
    )
    hbm_before, hbm_after = _hbm_bytes(base), _hbm_bytes(attention)
    print(
        f"  HBM bytes {hbm_before / 2**20:.2f} MiB -> {hbm_after / 2**20:.2f} MiB with"
        f" fuse-attention ({(hbm_before - hbm_after) / 2**20:.2f} MiB saved)"
    )
    device = api.device_program(program)
    names = [device.buffers[i].name for i in device.inputs]
    feed = {n: t.numpy() for n, t in zip(names, inputs, strict=True)}
    sim_s, result = measure(lambda: api.simulate(device, feed), repeat=repeat)
    torch.set_num_threads(1)
    with torch.no_grad():
        eager_s, eager = measure(lambda: model(*inputs), repeat=repeat)
    reference = eager[0] if isinstance(eager, tuple) else eager.last_hidden_state
    (output, *_rest) = result.outputs.values()
    error = float(np.max(np.abs(output - reference.numpy())))
    print(
        f"  numerics: simulator {sim_s * 1e3:.1f} ms, eager (1 thread) {eager_s * 1e3:.1f} ms,"
        f" ratio {sim_s / eager_s:.1f}x; max |error| {error:.2e}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--seq", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    start = time.perf_counter()
    for name in args.models.split(","):
        if name not in MODELS:
            parser.error(f"unknown model '{name}' (models: {', '.join(MODELS)})")
        bench_model(name, args.seq, args.repeat)
    print(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
