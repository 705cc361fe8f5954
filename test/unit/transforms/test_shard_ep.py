"""Expert parallelism of `--shard` (transforms/shard/expert.py): a MoE layer's experts
split over the ranks of an ep group, all-to-all dispatch and combine around the grouped
matmuls, alone (`shard{ranks=4 ep=4}`) and with tensor parallel (`ranks=8 ep=4 tp=2`).

- The numbers of every rank equal the reference interpreter's on the unsharded graph (a
  MoE layer built with GraphBuilder as `fuse-mlp` leaves one; a decoder layer of attention
  and MoE; a Hugging Face Mixtral layer after the fusions against eager PyTorch).
- The IR: per MoE layer two all-to-alls (dispatch, combine) and one all-gather in group
  "ep<k>", the stacked expert weights sliced to the rank's experts (and with tp, to its
  columns / rows, one all-reduce in "tp<i>").
- Experts or tokens that ep does not divide are located errors naming the op; ep with data
  parallel is an option error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers.support import assert_close
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder, Tensor
from ge_dialect.ir.dialects import ge
from ge_dialect.sim.program import python_value
from ge_dialect.utils.errors import GeError, OptionError
from transforms.shard import ShardPass

PIPELINE = "canonicalize,cse,lower-to-device,plan-memory"
F32 = np.dtype(np.float32)


def _weight(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.normal(0, 1 / math.sqrt(shape[-2]), shape).astype(np.float32)


def moe(b: GraphBuilder, x: Tensor, rng, experts=4, k=2, ffn=16) -> Tensor:
    """A MoE layer on tokens x [T, H] as `fuse-mlp` leaves Mixtral's: the router, every
    expert (a merged gate/up grouped matmul, swi_glu, a down grouped matmul) on every
    token, weighted by the routing weights (zero for the experts a token did not choose)
    and summed over the experts."""
    tokens, hidden = x.shape
    logits = b.matmul(x, b.const(_weight(rng, hidden, experts)))
    w, ids = b.moe_gating_top_k(logits, k, renorm=True)
    zeros = b.const(np.zeros((tokens, experts), np.float32))
    routing = b.scatter_add(zeros, ids, w, axis=1)
    xs = b.expand(b.reshape(x, [1, tokens, hidden]), [experts, tokens, hidden])
    h = b.grouped_matmul(xs, b.const(_weight(rng, experts, hidden, 2 * ffn)))
    y = b.grouped_matmul(b.swi_glu(h, dim=2), b.const(_weight(rng, experts, ffn, hidden)))
    r = b.reshape(b.transpose(routing, [1, 0]), [experts, tokens, 1])
    return b.reduce("sum", b.mul(y, r), axes=[0])


def moe_layer(tokens=8, hidden=32, experts=4, ffn=16, seed=0):
    rng = np.random.default_rng(seed)
    b = GraphBuilder("main")
    x = b.input("x", [tokens, hidden])
    y = b.add(x, moe(b, x, rng, experts, ffn=ffn), name="y")
    return b.build([y]), {"x": rng.uniform(-1, 1, (tokens, hidden)).astype(np.float32)}


def decoder_layer(seq=8, hidden=32, heads=4, kv_heads=2, experts=4, layers=1, seed=0):
    """Mixtral decoder layers as `fuse-attention,fuse-mlp` leave them (batch 1): RMSNorm,
    q/k/v projections, rotary, causal grouped-query `ge.flash_attention`, the output
    projection, a residual; RMSNorm, the MoE layer, a residual."""
    rng = np.random.default_rng(seed)
    dh = hidden // heads
    b = GraphBuilder("main")
    x = b.input("x", [1, seq, hidden])

    def norm(v: Tensor) -> Tensor:
        return b.rms_norm(v, b.const(rng.uniform(0.5, 1.5, hidden).astype(np.float32)))

    angles = rng.uniform(0, math.pi, (1, 1, seq, dh)).astype(np.float32)
    cos, sin = b.const(np.cos(angles)), b.const(np.sin(angles))
    for _ in range(layers):
        h = norm(x)

        def project(n: int, h: Tensor = h) -> Tensor:
            p = b.matmul(h, b.const(_weight(rng, hidden, n * dh)))
            return b.transpose(b.reshape(p, [1, seq, n, dh]), [0, 2, 1, 3])

        q = b.rotary_mul(project(heads), cos, sin)
        k = b.rotary_mul(project(kv_heads), cos, sin)
        o = b.flash_attention(q, k, project(kv_heads), causal=True)
        o = b.reshape(b.transpose(o, [0, 2, 1, 3]), [1, seq, hidden])
        x = b.add(x, b.matmul(o, b.const(_weight(rng, hidden, hidden))))
        tokens = b.reshape(norm(x), [seq, hidden])
        x = b.add(x, b.reshape(moe(b, tokens, rng, experts), [1, seq, hidden]))
    y = b.identity(x, name="y")
    return b.build([y]), {"x": rng.uniform(-1, 1, (1, seq, hidden)).astype(np.float32)}


def shape(value) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def rank_functions(module, options: str) -> list[func.FuncOp]:
    m = module.clone()
    api.compile(m, f"shard{{{options}}}")
    return [op for op in m.walk() if isinstance(op, func.FuncOp)]


def simulate(module, options: str, inputs):
    m = module.clone()
    api.compile(m, f"shard{{{options}}},{PIPELINE}")
    return api.simulate_ranks(m, inputs)


def collectives(fn: func.FuncOp) -> list[tuple[str, str, int, tuple, tuple]]:
    return [
        (o.name, o.group.data, o.rank_size.value.data, shape(o.operands[0]), shape(o.results[0]))
        for o in fn.walk()
        if isinstance(o, ge.CollectiveOp)
    ]


def expert_weights(fn: func.FuncOp) -> list[tuple[int, ...]]:
    return [shape(o.weight) for o in fn.walk() if isinstance(o, ge.GroupedMatmulOp)]


def test_moe_layer_on_4_ranks_ep4_matches_single_device():
    module, inputs = moe_layer()
    ref = api.reference(module, inputs)
    result = simulate(module, "ranks=4 ep=4", inputs)
    assert len(result.ranks) == 4
    for run in result.ranks:
        assert_close(run.outputs["y"], ref["y"], F32)
    assert not result.findings


def test_moe_layer_ir_ep4():
    """Rank e holds expert e (of 4) and token block e (2 of 8 tokens): the dispatch sends
    one copy of its block to every rank and receives every token; the combine sends each
    token block's partial sum to its rank; the all-gather gives every token back."""
    module, _ = moe_layer(tokens=8, hidden=32, experts=4)
    whole = {
        shape(o.results[0]): o.logical_array()
        for o in module.walk()
        if isinstance(o, ge.ConstOp) and len(shape(o.results[0])) == 3
    }
    for r, fn in enumerate(rank_functions(module, "ranks=4 ep=4")):
        info = python_value(fn.attributes["ge.shard"])
        assert (info["ep"], info["expert"], info["tp"], info["dp"]) == (4, r, 1, 1)
        assert collectives(fn) == [
            ("ge.hcom_all_to_all", "ep0", 4, (4, 2, 32), (1, 8, 32)),
            ("ge.hcom_all_to_all", "ep0", 4, (4, 2, 32), (4, 2, 32)),
            ("ge.hcom_all_gather", "ep0", 4, (2, 32), (8, 32)),
        ]
        dispatch, combine = [o for o in fn.walk() if isinstance(o, ge.HcomAllToAllOp)]
        assert (dispatch.split_dim.value.data, dispatch.concat_dim.value.data) == (0, 1)
        assert (combine.split_dim.value.data, combine.concat_dim.value.data) == (0, 0)
        assert expert_weights(fn) == [(1, 32, 32), (1, 16, 32)]
        for o in fn.walk():
            if isinstance(o, ge.GroupedMatmulOp):
                owner = o.weight.owner
                assert isinstance(owner, ge.ConstOp)
                full = whole[(4,) + shape(o.weight)[1:]]
                np.testing.assert_array_equal(owner.logical_array(), full[r : r + 1])
        (mine,) = [o for o in fn.walk() if isinstance(o, ge.SliceOp) and shape(o.input)[0] == 1]
        assert list(mine.starts.get_values()) == [2 * r]


def test_eight_experts_two_a_rank():
    module, inputs = moe_layer(tokens=8, experts=8, seed=1)
    ref = api.reference(module, inputs)
    fns = rank_functions(module, "ranks=4 ep=4")
    assert expert_weights(fns[3]) == [(2, 32, 32), (2, 16, 32)]
    for run in simulate(module, "ranks=4 ep=4", inputs).ranks:
        assert_close(run.outputs["y"], ref["y"], F32)


def test_decoder_layer_on_8_ranks_ep4_tp2_matches_single_device():
    """The issue's acceptance test: attention split by heads over tp=2, the experts over
    ep=4 (each expert's MLP over tp=2 too); every rank's output equals the unsharded
    graph's."""
    module, inputs = decoder_layer()
    ref = api.reference(module, inputs)
    result = simulate(module, "ranks=8 ep=4 tp=2", inputs)
    assert len(result.ranks) == 8
    for run in result.ranks:
        assert_close(run.outputs["y"], ref["y"], F32)
    assert not result.findings


def test_decoder_layer_ir_ep4_tp2():
    """rank = e * tp + t: group "tp<e>" holds ranks 2e, 2e+1 (attention and the experts'
    all-reduce), group "ep<t>" the ranks t, t+2, t+4, t+6."""
    module, _ = decoder_layer()
    for r, fn in enumerate(rank_functions(module, "ranks=8 ep=4 tp=2")):
        e, t = divmod(r, 2)
        info = python_value(fn.attributes["ge.shard"])
        assert (info["ep"], info["expert"], info["tp"]) == (4, e, 2)
        assert collectives(fn) == [
            ("ge.hcom_all_reduce", f"tp{e}", 2, (1, 8, 32), (1, 8, 32)),
            ("ge.hcom_all_to_all", f"ep{t}", 4, (4, 2, 32), (1, 8, 32)),
            ("ge.hcom_all_to_all", f"ep{t}", 4, (4, 2, 32), (4, 2, 32)),
            ("ge.hcom_all_reduce", f"tp{e}", 2, (2, 32), (2, 32)),
            ("ge.hcom_all_gather", f"ep{t}", 4, (2, 32), (8, 32)),
        ]
        # one expert a rank, its gate/up columns (8 of each 16-wide half), its down rows
        assert expert_weights(fn) == [(1, 32, 16), (1, 8, 32)]
        (fa,) = [o for o in fn.walk() if isinstance(o, ge.FlashAttentionOp)]
        assert shape(fa.query)[1] == 2


def test_two_decoder_layers_pp2_ep2_match_single_device():
    """Composed with pipeline stages (rank = s * ep + e): each stage splits the MoE layer
    it holds over its ep group "ep<s>"; the last stage's outputs equal the unsharded
    graph's."""
    module, inputs = decoder_layer(layers=2)
    ref = api.reference(module, inputs)
    for r, fn in enumerate(rank_functions(module, "ranks=4 ep=2 pp=2")):
        assert python_value(fn.attributes["ge.shard"])["expert"] == r % 2
        assert {c[1] for c in collectives(fn) if c[1].startswith("ep")} == {f"ep{r // 2}"}
    result = simulate(module, "ranks=4 ep=2 pp=2", inputs)
    assert_close(result.outputs["y"], ref["y"], F32)


def test_sixteen_ranks_tp2_ep4_pp2_match_single_device():
    """All three composed (`--shard=ranks=16,tp=2,ep=4,pp=2`): two decoder layers, one a
    stage, attention split by heads over tp, the MoE's experts over ep."""
    module, inputs = decoder_layer(layers=2)
    ref = api.reference(module, inputs)
    fns = rank_functions(module, "ranks=16 tp=2 ep=4 pp=2")
    assert len(fns) == 16
    assert {c[0] for c in collectives(fns[0])} >= {"ge.hcom_all_to_all", "ge.hcom_all_reduce"}
    result = simulate(module, "ranks=16 tp=2 ep=4 pp=2", inputs)
    assert_close(result.outputs["y"], ref["y"], F32)


@pytest.mark.parametrize(
    ("build", "options", "message"),
    [
        (
            lambda: moe_layer(experts=6)[0],
            "ranks=4 ep=4",
            "'ge.grouped_matmul' op --shard: 6 experts are not a multiple of ep=4",
        ),
        (
            lambda: moe_layer(tokens=6)[0],
            "ranks=4 ep=4",
            "'ge.grouped_matmul' op --shard: 6 tokens are not a multiple of ep=4",
        ),
        (
            lambda: moe_layer(ffn=6)[0],
            "ranks=8 ep=2 tp=4",
            "'ge.grouped_matmul' op --shard: expert hidden width 12 is not a multiple of "
            "tp=4 times 2 (the halves of swi_glu)",
        ),
    ],
)
def test_what_does_not_divide_is_located(build, options, message):
    with pytest.raises(GeError) as info:
        rank_functions(build(), options)
    text = str(info.value)
    assert message in text
    assert text.count("\n") == 0 and ": error: " in text


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (dict(ranks=8, ep=4), r"shard: ep=4 with data parallel \(ranks=8 > tp \* ep \* pp = 4\)"),
        (dict(ranks=6, ep=4), r"shard: ranks=6 is not a multiple of tp \* ep \* pp = 4"),
        (dict(ranks=4, ep=0), "shard: ep must be at least 1, got 0"),
    ],
)
def test_bad_combinations(options, message):
    with pytest.raises(OptionError, match=message):
        ShardPass(**options)


@pytest.mark.slow  # (torch.export of the model: about 6 s)
def test_hf_mixtral_layer_ep4_tp2_matches_eager():
    """A Hugging Face Mixtral layer (grouped-query attention, 4 experts top-2) made static
    (`static_moe`), imported by torch.export and fused (`fuse-attention,fuse-mlp`): on 8
    ranks with ep=4, tp=2 one MoE layer is split (two all-to-alls, one all-gather) and
    every rank's output equals eager PyTorch's."""
    import torch
    import transformers
    from helpers.hf_layers import fused_hf_layer

    torch.manual_seed(0)
    config = transformers.MixtralConfig(
        hidden_size=32, intermediate_size=32, num_hidden_layers=1, num_attention_heads=4,
        num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2, vocab_size=64,
        max_position_embeddings=16, attn_implementation="eager",
    )  # fmt: skip
    module, embeds, expected = fused_hf_layer(
        transformers.MixtralModel(config).eval(), 32, static=True
    )
    for fn in rank_functions(module, "ranks=8 ep=4 tp=2"):
        kinds = [(name, group[:2]) for name, group, *_ in collectives(fn)]
        assert kinds.count(("ge.hcom_all_to_all", "ep")) == 2
        assert kinds.count(("ge.hcom_all_gather", "ep")) == 1
        assert expert_weights(fn) == [(1, 32, 32), (1, 16, 32)]
    result = simulate(module, "ranks=8 ep=4 tp=2", {"embeds": embeds.numpy()})
    for run in result.ranks:
        (out,) = run.outputs.values()
        assert_close(out, expected, F32, whole_model=True)
