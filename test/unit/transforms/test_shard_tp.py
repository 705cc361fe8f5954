"""Tensor parallelism of `--shard` (transforms/shard/) on SwiGLU MLP blocks, alone and
composed with data parallelism (`shard{ranks=4 tp=2}`: dp = 2).

- Llama's MLP `(silu(x@Wg) * (x@Wu)) @ Wd` and its merged form `swi_glu(x@[Wg|Wu]) @ Wd`
  (vllm-ascend's) split gate and up by columns, down by rows, with exactly one all-reduce
  per block; the numbers of every rank equal the reference interpreter's on the unsharded
  graph.
- Composed: rank = d * tp + t; the all-reduce is in group "tp<d>", the all-gather of the
  outputs in group "dp<t>", and each tensor-parallel pair of ranks gets one batch slice.
- A bad combination (ranks not a multiple of tp * ep * pp) and a hidden width that tp does
  not divide are one-line errors, the latter located at the matmul.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers.support import assert_close
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir.dialects import ge
from ge_dialect.sim.program import python_value
from ge_dialect.utils.errors import GeError, OptionError
from transforms.shard import ShardPass

PIPELINE = "canonicalize,cse,assign-streams{mode=auto},lower-to-device,plan-memory"


def swiglu_mlp(merged: bool, batch=4, d=32, hidden=64, dtype=np.float32, seed=0):
    """Two stacked SwiGLU MLP blocks with a residual each (x + mlp(x))."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder("main")
    x = b.input("x", [batch, d], dtype=dtype)
    h = x
    for _ in range(2):
        wg, wu = (rng.normal(0, 1 / math.sqrt(d), (d, hidden)).astype(dtype) for _ in "gu")
        wd = b.const(rng.normal(0, 1 / math.sqrt(hidden), (hidden, d)).astype(dtype))
        if merged:
            act = b.swi_glu(b.matmul(h, b.const(np.concatenate([wg, wu], axis=1))))
        else:
            act = b.mul(b.silu(b.matmul(h, b.const(wg))), b.matmul(h, b.const(wu)))
        h = b.add(h, b.matmul(act, wd))
    y = b.relu(h, name="y")
    return b.build([y]), {"x": rng.uniform(-1, 1, (batch, d)).astype(dtype)}


def shape(value) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def sharded(module, options: str):
    m = module.clone()
    api.compile(m, f"shard{{{options}}},{PIPELINE}")
    return m


def rank_functions(module, options: str) -> list[func.FuncOp]:
    m = module.clone()
    api.compile(m, f"shard{{{options}}}")
    return [op for op in m.walk() if isinstance(op, func.FuncOp)]


@pytest.mark.parametrize("merged", [False, True])
@pytest.mark.parametrize("ranks", [2, 4])
def test_swiglu_mlp_tensor_parallel_matches_single_device(merged, ranks):
    module, inputs = swiglu_mlp(merged)
    ref = api.reference(module, inputs)
    fns = rank_functions(module, f"ranks={ranks} mode=tensor")
    for fn in fns:
        reduces = [o for o in fn.walk() if isinstance(o, ge.HcomAllReduceOp)]
        assert [(o.group.data, o.rank_size.value.data) for o in reduces] == [("tp", ranks)] * 2
        # gate and up (or the merged weight) hold 1/ranks of the columns, down of the rows
        shapes = {shape(o.b) for o in fn.walk() if isinstance(o, ge.MatMulOp)}
        assert shapes == {(32, (128 if merged else 64) // ranks), (64 // ranks, 32)}
    result = api.simulate_ranks(sharded(module, f"ranks={ranks} mode=tensor"), inputs)
    for run in result.ranks:
        assert_close(run.outputs["y"], ref["y"], np.dtype(np.float32))
    assert not result.findings


def test_merged_swiglu_weight_takes_a_block_of_each_half():
    module, _ = swiglu_mlp(True, d=2, hidden=4)
    (w,) = [
        o for o in module.walk() if isinstance(o, ge.ConstOp) and o.logical_array().shape == (2, 8)
    ][:1]
    whole = w.logical_array()
    fn = rank_functions(module, "ranks=2 mode=tensor")[1]
    merged = [o for o in fn.walk() if isinstance(o, ge.MatMulOp)][0]
    owner = merged.b.owner
    assert isinstance(owner, ge.ConstOp)
    # rank 1: columns 2..3 of the gate half [0, 4) and 6..7 of the up half [4, 8)
    np.testing.assert_array_equal(owner.logical_array(), whole[:, [2, 3, 6, 7]])


def test_tp_composed_with_data_parallel():
    module, inputs = swiglu_mlp(False, batch=4)
    ref = api.reference(module, inputs)
    fns = rank_functions(module, "ranks=4 tp=2")
    for r, fn in enumerate(fns):
        d, t = divmod(r, 2)
        info = python_value(fn.attributes["ge.shard"])
        assert info["tp"] == 2 and info["dp"] == 2 and info["part"] == d
        assert info["split"] == {"x": 0}
        groups = [
            (type(o).__name__, o.group.data)
            for o in fn.walk()
            if isinstance(o, ge.HcomAllReduceOp | ge.HcomAllGatherOp)
        ]
        assert groups == [("HcomAllReduceOp", f"tp{d}")] * 2 + [("HcomAllGatherOp", f"dp{t}")]
        assert shape(fn.body.block.args[0]) == (2, 32)
    result = api.simulate_ranks(sharded(module, "ranks=4 tp=2"), inputs)
    for run in result.ranks:
        assert_close(run.outputs["y"], ref["y"], np.dtype(np.float32))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (dict(ranks=6, tp=4), "shard: ranks=6 is not a multiple of tp * ep * pp = 4"),
        (dict(ranks=4, tp=-1), "shard: tp must be at least 0, got -1"),
        (dict(ranks=4, micro_batches=0), "shard: micro-batches must be at least 1, got 0"),
    ],
)
def test_bad_combinations(options, message):
    with pytest.raises(OptionError, match=message.replace("*", r"\*")):
        ShardPass(**options)


def test_width_not_divisible_is_located():
    module, _ = swiglu_mlp(False, hidden=6)
    with pytest.raises(GeError) as info:
        rank_functions(module, "ranks=4 tp=4")
    text = str(info.value)
    assert "'ge.matmul' op --shard: hidden width 6 is not a multiple of tp=4" in text
    assert text.count("\n") <= 1


def llama_block(batch=2, seq=8, hidden=32, heads=4, kv_heads=2, ffn=64, seed=0):
    """A Llama decoder layer as `fuse-attention,fuse-mlp` leave it: RMSNorm, q/k/v
    projections, rotary, causal grouped-query `ge.flash_attention`, the output projection,
    a residual; RMSNorm, a SwiGLU MLP, a residual."""
    rng = np.random.default_rng(seed)
    dh = hidden // heads
    b = GraphBuilder("main")
    x = b.input("x", [batch, seq, hidden])

    def weight(rows, cols):
        return b.const(rng.normal(0, 1 / math.sqrt(rows), (rows, cols)).astype(np.float32))

    def norm(v):
        return b.rms_norm(v, b.const(rng.uniform(0.5, 1.5, hidden).astype(np.float32)))

    angles = rng.uniform(0, math.pi, (1, 1, seq, dh)).astype(np.float32)
    cos, sin = b.const(np.cos(angles)), b.const(np.sin(angles))
    h = norm(x)

    def project(n):
        p = b.matmul(h, weight(hidden, n * dh))
        return b.transpose(b.reshape(p, [batch, seq, n, dh]), [0, 2, 1, 3])

    q = b.rotary_mul(project(heads), cos, sin)
    k = b.rotary_mul(project(kv_heads), cos, sin)
    v = project(kv_heads)
    o = b.flash_attention(q, k, v, causal=True)
    o = b.reshape(b.transpose(o, [0, 2, 1, 3]), [batch, seq, hidden])
    x = b.add(x, b.matmul(o, weight(hidden, hidden)))
    g = norm(x)
    act = b.mul(b.silu(b.matmul(g, weight(hidden, ffn))), b.matmul(g, weight(hidden, ffn)))
    y = b.add(x, b.matmul(act, weight(ffn, hidden)), name="y")
    return b.build([y]), {"x": rng.uniform(-1, 1, (batch, seq, hidden)).astype(np.float32)}


@pytest.mark.parametrize("options", ["ranks=2 mode=tensor", "ranks=4 tp=2", "ranks=2 tp=2"])
def test_llama_block_tensor_parallel_matches_single_device(options):
    module, inputs = llama_block()
    ref = api.reference(module, inputs)
    for fn in rank_functions(module, options):
        # one all-reduce per block (attention, MLP), and the heads split
        assert sum(isinstance(o, ge.HcomAllReduceOp) for o in fn.walk()) == 2
        (fa,) = [o for o in fn.walk() if isinstance(o, ge.FlashAttentionOp)]
        assert shape(fa.query)[1] == 2 and shape(fa.key)[1] == 1
    result = api.simulate_ranks(sharded(module, options), inputs)
    for run in result.ranks:
        assert_close(run.outputs["y"], ref["y"], np.dtype(np.float32))


def test_kv_heads_not_divisible_is_located():
    module, _ = llama_block(kv_heads=2, heads=4)
    with pytest.raises(GeError, match="'ge.flash_attention' op --shard: 4 query heads and 2"):
        rank_functions(module, "ranks=4 tp=4")


@pytest.mark.slow  # (torch.export of the model: about 7 s)
def test_hf_llama_after_fusions_tensor_parallel_matches_eager():
    """A Hugging Face Llama layer (grouped-query, imported by torch.export), after
    `fuse-attention,fuse-mlp` (its linears are 2-D matmuls between reshapes; its MLP a
    merged gate/up matmul and `ge.swi_glu`): split with one all-reduce per block, and the
    ranks' outputs equal eager PyTorch's."""
    import torch
    import transformers
    from helpers.hf_layers import fused_hf_layer

    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
        num_key_value_heads=2, vocab_size=64, max_position_embeddings=16,
        attn_implementation="eager",
    )  # fmt: skip
    module, embeds, expected = fused_hf_layer(transformers.LlamaModel(config).eval(), 32)
    for rank in rank_functions(module, "ranks=2 tp=2"):
        assert sum(isinstance(o, ge.HcomAllReduceOp) for o in rank.walk()) == 2
        (fa,) = [o for o in rank.walk() if isinstance(o, ge.FlashAttentionOp)]
        assert shape(fa.query)[1] == 2 and shape(fa.key)[1] == 1
    result = api.simulate_ranks(sharded(module, "ranks=2 tp=2"), {"embeds": embeds.numpy()})
    for run in result.ranks:
        (out,) = run.outputs.values()
        assert_close(out, expected, np.dtype(np.float32), whole_model=True)
