"""Several ranks: simulated step time, scaling efficiency and three cluster ratios.

Four models, fp16, each sharded with the `shard` pass (or built per rank, below),
compiled with `canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto},lower-to-device,
plan-memory` and simulated timing-only with `api.simulate_ranks` on the shipped topologies
(`default_topology`: one 8-NPU Ascend 910 server up to 8 ranks, two servers over RoCE for
16, eight servers for 32 and 64):

- a Llama decoder block (RMSNorm, q/k/v projections, rotary, causal grouped-query
  `ge.flash_attention`, the output projection, a residual; RMSNorm, a SwiGLU MLP, a
  residual; by default Llama-3-8B's sizes: hidden 4096, 32 heads, 8 key/value heads,
  intermediate 14336, on 8 sequences of 512 tokens) on 1 to 64 ranks: tensor parallel
  inside a server (`tp` = min(ranks, 8): attention by heads, the MLP Megatron's way, one
  all-reduce each) and data parallel across servers (dp = ranks / 8: each server a replica
  on its slice of the sequences, the outputs all-gathered), `shard{ranks=N tp=T}`;
- a MoE layer in the static form (`ge_dialect/frontend/static_moe.py`: RMSNorm, the
  router, `ge.moe_gating_top_k`, every expert on every token as two `ge.grouped_matmul`s
  around `ge.swi_glu`, weighted by the routing and summed, a residual; by default 64
  experts, top 8, hidden 2048, expert intermediate 1408, 4096 tokens) on 1 to 64 ranks:
  expert parallel (`shard{ranks=N ep=N}`) when the shard pass accepts it, else data
  parallel: each rank's program is the layer on its tokens / N (built so: the static form
  has no batch dim the shard pass could split), its output all-gathered; the table says
  which ran;
- a transformer MLP block (tokens x d -> 4d -> d, relu), tensor-parallel (Megatron's split,
  one all-reduce), on 1 to 16 ranks;
- ResNet-50 (torchvision's layout; batch-norm folded by `fuse`), data-parallel over the
  batch, its logits all-gathered, on 1 to 16 ranks.

The ranks of a data-parallel run are identical programs, so one is compiled and run as
every rank.  Per configuration it prints the step time (the last rank's end), the scaling
efficiency against one rank (strong scaling: the same global batch, T1 / (N x TN)),
compute utilisation (Computing / step), communication ratio (Communication / step) and
overlap efficiency (Overlapped / Communication), as means over ranks; the imbalance across
ranks; the collectives' algorithms and costs; and the compile and simulation wall times.
The usual targets: compute utilisation > 85%, communication ratio < 15%, overlap
efficiency > 70%.

Then, for one multi-rank configuration of the Llama block and of the MoE layer
(`--gain-ranks`: 2 and 8 ranks by default), the step with `schedule`, with
`assign-streams{mode=auto comm-streams=2}` and with `overlap{chunks=k}` (k = 2, 4, 8)
against the plain pipeline (same process; race checker on; the Llama block then takes x as
[tokens, hidden], since `overlap` cuts 2-D matmuls), and the simulator's own wall time on
the largest rank count.

    python bench/ranks.py [--only llama,moe,mlp,resnet50] [--ranks 1,2,4,8,16,32,64]
        [--batch 8] [--seq 512] [--hidden 4096] [--heads 32] [--kv-heads 8] [--ffn 14336]
        [--tokens 4096] [--moe-hidden 2048] [--experts 64] [--top-k 8] [--moe-ffn 1408]
        [--mlp-tokens 4096] [--d 2048] [--resnet-batch 32] [--gain-ranks 2,8]
"""

from __future__ import annotations

import argparse
import gc
import math
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.sim.program import read_program
from ge_dialect.sim.topology import default_topology
from ge_dialect.utils.errors import GeError

REST = (
    "canonicalize,cse,fuse,to-nc1hwc0,{extra}assign-streams{{mode=auto{streams}}},"
    "lower-to-device,plan-memory"
)
SMALL_RANKS = (1, 2, 4, 8, 16)
LLM_RANKS = (1, 2, 4, 8, 16, 32, 64)
SERVER = 8  # NPUs per server: tensor parallel inside, data parallel across


def rest(extra: str = "", comm_streams: int = 1) -> str:
    streams = f" comm-streams={comm_streams}" if comm_streams > 1 else ""
    return REST.format(extra=extra, streams=streams)


def normal(rng: np.random.Generator, shape: tuple[int, ...], fan_in: int) -> np.ndarray:
    return (rng.standard_normal(shape, dtype=np.float32) / math.sqrt(fan_in)).astype(np.float16)


# ----------------------------------------------------------------------------- models


def llama_block(
    batch: int, seq: int, hidden: int, heads: int, kv_heads: int, ffn: int, flat: bool = False
):
    """One Llama decoder layer on x [batch, seq, hidden] (the batch is what data parallel
    splits), or with `flat` on x [batch * seq, hidden] (2-D matmuls, which `overlap` cuts;
    the attention's reshapes then go through [batch, seq, hidden], the form `shard` splits
    by heads)."""
    rng = np.random.default_rng(0)
    dh = hidden // heads
    tokens = [batch * seq] if flat else [batch, seq]
    b = GraphBuilder("llama")
    x = b.input("x", [*tokens, hidden], dtype="f16")

    def weight(rows: int, cols: int):
        return b.const(normal(rng, (rows, cols), rows))

    def norm(v):
        return b.rms_norm(v, b.const(rng.uniform(0.5, 1.5, hidden).astype(np.float16)))

    angles = rng.uniform(0, math.pi, (1, 1, seq, dh))
    cos = b.const(np.cos(angles).astype(np.float16))
    sin = b.const(np.sin(angles).astype(np.float16))
    h = norm(x)

    def project(n: int):
        p = b.matmul(h, weight(hidden, n * dh))
        if flat:
            p = b.reshape(p, [batch, seq, n * dh])
        return b.transpose(b.reshape(p, [batch, seq, n, dh]), [0, 2, 1, 3])

    q = b.rotary_mul(project(heads), cos, sin)
    k = b.rotary_mul(project(kv_heads), cos, sin)
    o = b.flash_attention(q, k, project(kv_heads), causal=True)
    o = b.reshape(b.transpose(o, [0, 2, 1, 3]), [batch, seq, hidden])
    if flat:
        o = b.reshape(o, [*tokens, hidden])
    x = b.add(x, b.matmul(o, weight(hidden, hidden)))
    g = norm(x)
    act = b.mul(b.silu(b.matmul(g, weight(hidden, ffn))), b.matmul(g, weight(hidden, ffn)))
    return b.build([b.add(x, b.matmul(act, weight(ffn, hidden)), name="y")])


def moe_weights(hidden: int, experts: int, ffn: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    return {
        "norm": rng.uniform(0.5, 1.5, hidden).astype(np.float16),
        "router": normal(rng, (hidden, experts), hidden),
        "up": normal(rng, (experts, hidden, 2 * ffn), hidden),
        "down": normal(rng, (experts, ffn, hidden), ffn),
    }


def moe_layer(tokens: int, top_k: int, w: dict[str, np.ndarray], gather: int = 1):
    """The static-form MoE layer on [tokens, hidden]: every expert on every token, the
    routing weights zero for the experts a token did not choose.  `gather` > 1: the
    output all-gathered over that many ranks (group "dp"), as `shard{mode=data}` ends."""
    experts, hidden, _ = w["up"].shape
    b = GraphBuilder("moe")
    x = b.input("x", [tokens, hidden], dtype="f16")
    h = b.rms_norm(x, b.const(w["norm"]))
    gates, ids = b.moe_gating_top_k(b.matmul(h, b.const(w["router"])), top_k, renorm=True)
    zeros = b.const(np.zeros((tokens, experts), np.float16))
    routing = b.scatter_add(zeros, ids, gates, axis=1)
    xe = b.expand(b.reshape(h, [1, tokens, hidden]), [experts, tokens, hidden])
    up = b.grouped_matmul(xe, b.const(w["up"]))
    down = b.grouped_matmul(b.swi_glu(up), b.const(w["down"]))
    r = b.reshape(b.transpose(routing, [1, 0]), [experts, tokens, 1])
    if gather == 1:
        return b.build([b.add(x, b.reduce("sum", b.mul(down, r), [0]), name="y")])
    y = b.add(x, b.reduce("sum", b.mul(down, r), [0]))
    return b.build([b.hcom_all_gather(y, "dp", gather, name="y")])


def mlp_block(tokens: int, d: int):
    rng = np.random.default_rng(0)
    b = GraphBuilder("mlp")
    x = b.input("x", [tokens, d], dtype="f16")
    w1 = b.const(normal(rng, (d, 4 * d), d))
    b1 = b.const(np.zeros(4 * d, np.float16))
    w2 = b.const(normal(rng, (4 * d, d), 4 * d))
    b2 = b.const(np.zeros(d, np.float16))
    h = b.relu(b.matmul(x, w1, bias=b1))
    return b.build([b.matmul(h, w2, bias=b2, name="y")])


def resnet50(batch: int):
    rng = np.random.default_rng(0)
    b = GraphBuilder("resnet50")

    def conv_bn(x, cin, cout, k, stride, relu):
        w = b.const(normal(rng, (cout, cin, k, k), cin * k * k))
        p = k // 2
        y = b.conv2d(x, w, strides=[stride, stride], pads=[p, p, p, p])
        one = np.ones(cout, np.float16)
        y = b.batch_norm(y, b.const(one), b.const(0 * one), b.const(0 * one), b.const(one))
        return b.relu(y) if relu else y

    def bottleneck(x, cin, mid, stride):
        out = conv_bn(x, cin, mid, 1, 1, True)
        out = conv_bn(out, mid, mid, 3, stride, True)
        out = conv_bn(out, mid, 4 * mid, 1, 1, False)
        skip = conv_bn(x, cin, 4 * mid, 1, stride, False) if stride != 1 or cin != 4 * mid else x
        return b.relu(b.add(out, skip))

    x = b.input("x", [batch, 3, 224, 224], dtype="f16")
    y = conv_bn(x, 3, 64, 7, 2, True)
    y = b.max_pool(y, [3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for mid, blocks, stride in ((64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)):
        for i in range(blocks):
            y = bottleneck(y, cin, mid, stride if i == 0 else 1)
            cin = 4 * mid
    y = b.flatten(b.global_avg_pool(y))
    fc = b.const(normal(rng, (2048, 1000), 2048))
    return b.build([b.matmul(y, fc, bias=b.const(np.zeros(1000, np.float16)), name="logits")])


# ----------------------------------------------------------------------------- runs


class Run:
    """One compiled and simulated configuration: what ran, its report and how long it
    took (not the programs: a 64-rank run holds gigabytes of weights)."""

    def __init__(self, plan: str, result: Any, compile_s: float, sim_s: float) -> None:
        self.plan, self.compile_s, self.sim_s = plan, compile_s, sim_s
        self.report = result.report
        self.topology: str = result.topology.name
        self.ranks = len(result.ranks)
        self.races = len(result.findings)

    @property
    def step(self) -> float:
        return self.report.makespan


def sharded(module: ModuleOp, shard: str, ranks: int, tail: str, check: bool = False) -> Run:
    """`module` through `shard{...},tail`, every rank simulated."""
    start = time.perf_counter()
    m = module.clone()
    api.compile(m, f"shard{{{shard}}},{tail}")
    mid = time.perf_counter()
    result = api.simulate_ranks(m, topology=default_topology(ranks), timing_only=True, check=check)
    return Run(shard, result, mid - start, time.perf_counter() - mid)


def identical(module: ModuleOp, ranks: int, tail: str, check: bool = False) -> Run:
    """Data parallel of identical rank programs: `module` is one rank's (its first input
    split over the ranks), compiled once and run as every rank."""
    start = time.perf_counter()
    m = module.clone()
    api.compile(m, tail)
    (program,) = [read_program(f) for f in m.body.block.ops if isinstance(f, func.FuncOp)]
    mid = time.perf_counter()
    splits = {program.buffers[program.inputs[0]].name: 0}
    result = api.simulate_ranks(
        [program] * ranks,
        topology=default_topology(ranks),
        timing_only=True,
        check=check,
        splits=splits,
    )
    plan = f"dp={ranks}" if ranks > 1 else "-"
    return Run(plan, result, mid - start, time.perf_counter() - mid)


def data_parallel(module: ModuleOp, ranks: int) -> Run:
    """`shard{mode=data}` on rank 0 only (every rank's program is the same)."""
    start = time.perf_counter()
    m = module.clone()
    api.compile(m, f"shard{{ranks={ranks} mode=data}}")
    for fn in [f for f in m.body.block.ops if isinstance(f, func.FuncOp)][1:]:
        fn.detach()
        fn.erase()
    run = identical(m, ranks, rest())
    run.compile_s = time.perf_counter() - start - run.sim_s
    return run


def tensor_parallel(module: ModuleOp, ranks: int) -> Run:
    run = sharded(module, f"ranks={ranks} mode=tensor", ranks, rest())
    run.plan = f"tp={ranks}" if ranks > 1 else "-"
    return run


def llama_run(module: ModuleOp, ranks: int, tail: str, check: bool = False) -> Run:
    tp = min(ranks, SERVER)
    run = sharded(module, f"ranks={ranks} tp={tp}", ranks, tail, check)
    run.plan = "-" if ranks == 1 else f"tp={tp}" + (f" dp={ranks // tp}" if ranks > tp else "")
    return run


class Moe:
    """The MoE layer's runs: expert parallel if the shard pass takes `ep`, else data
    parallel of identical per-rank programs (tokens / N each)."""

    def __init__(self, tokens: int, top_k: int, weights: dict[str, np.ndarray]) -> None:
        self.tokens, self.top_k, self.weights = tokens, top_k, weights
        self.whole = moe_layer(tokens, top_k, weights)
        self.refused: str | None = None

    def run(self, ranks: int, tail: str, check: bool = False) -> Run:
        if ranks > 1:
            try:
                run = sharded(self.whole, f"ranks={ranks} ep={ranks}", ranks, tail, check)
                run.plan = f"ep={ranks}"
                return run
            except GeError as e:
                if self.refused is None:
                    print(f"  (shard{{ranks={ranks} ep={ranks}}} refused: {e}; data parallel)")
                self.refused = str(e)
            per_rank = moe_layer(self.tokens // ranks, self.top_k, self.weights, ranks)
            return identical(per_rank, ranks, tail, check)
        run = sharded(self.whole, "ranks=1 mode=tensor", 1, tail, check)
        run.plan = "-"
        return run


# ----------------------------------------------------------------------------- tables


def collectives(run: Run) -> str:
    kinds: dict[str, list[float]] = {}
    for c in run.report.extra["collectives"]:
        key = f"{c['kind']} {c['algorithm']} over {'/'.join(c['link_types']) or '-'}"
        kinds.setdefault(key, []).append(c["cost_us"])
    # per rank: each collective is listed once per group instance
    return "; ".join(f"{k} {max(v):.1f} us x{len(v)}" for k, v in kinds.items()) or "-"


def table(title: str, configs: list[int], runner: Callable[[int], Run]) -> list[Run]:
    print(f"\n{title}")
    print(
        f"{'ranks':>5} {'topology':<15} {'parallel':<10} {'step us':>10} {'scaling':>8} "
        f"{'compute':>8} {'comm':>7} {'overlap':>8} {'imbal.':>7}  collectives  "
        "[compile s, simulate s]"
    )
    runs = []
    base = None
    for ranks in configs:
        run = runner(ranks)
        gc.collect()  # (the compiled IR is cyclic: without this, runs pile up gigabytes)
        r = run.report
        base = run.step * ranks if base is None else base
        overlap = r.overlap_efficiency
        print(
            f"{ranks:>5} {run.topology:<15} {run.plan:<10} {run.step:>10.1f} "
            f"{base / (ranks * run.step):>8.1%} {r.compute_utilisation:>8.1%} "
            f"{r.communication_ratio:>7.1%} "
            f"{'n/a' if overlap is None else f'{overlap:.1%}':>8} "
            f"{r.extra['imbalance']['makespan']:>7.1%}  {collectives(run)}  "
            f"[{run.compile_s:.1f}, {run.sim_s:.1f}]",
            flush=True,
        )
        runs.append(run)
    return runs


VARIANTS = [
    ("schedule", "schedule,", 1),
    ("comm-streams=2", "", 2),
    ("overlap{chunks=2}", "overlap{chunks=2},", 1),
    ("overlap{chunks=4}", "overlap{chunks=4},", 1),
    ("overlap{chunks=8}", "overlap{chunks=8},", 1),
    ("overlap{chunks=4},schedule + comm-streams=2", "overlap{chunks=4},schedule,", 2),
]


def gains(title: str, runner: Callable[[str, bool], Run]) -> None:
    """The step of each variant against the plain pipeline, race checker on."""
    base = runner(rest(), True)
    print(f"\n{title}: {base.plan}, plain pipeline {base.step:.1f} us")
    print(f"{'variant':<46} {'step us':>10} {'before/after':>13} {'races':>6}")
    for name, extra, streams in VARIANTS:
        run = runner(rest(extra, streams), True)
        gc.collect()
        races = run.races
        print(f"{name:<46} {run.step:>10.1f} {base.step / run.step:>13.3f} {races:>6}", flush=True)


def wall_times(name: str, runs: list[Run]) -> None:
    last = runs[-1]
    ranks = last.ranks
    print(
        f"{name} on {ranks} ranks: compile {last.compile_s:.1f} s, "
        f"api.simulate_ranks {last.sim_s:.1f} s (timing only, race checker off)"
    )


def bench_llama(args: argparse.Namespace, ranks: list[int], gain_ranks: list[int]) -> list[Run]:
    """The Llama block's table and gains (its modules freed on return)."""
    sizes = (args.batch, args.seq, args.hidden, args.heads, args.kv_heads, args.ffn)
    llama = llama_block(*sizes)
    runs = table(
        f"Llama decoder block, {args.batch} x {args.seq} tokens, hidden {args.hidden}, "
        f"{args.heads} heads ({args.kv_heads} kv), intermediate {args.ffn}, fp16 "
        f"(tensor parallel inside a server, data parallel across)",
        ranks,
        partial(llama_run, llama, tail=rest()),
    )
    del llama
    gc.collect()
    flat = llama_block(*sizes, flat=True)
    for n in gain_ranks:
        gains(
            f"Llama block on {n} ranks (x as [tokens, hidden]: overlap cuts 2-D matmuls)",
            partial(llama_run, flat, n),
        )
    return runs


def bench_moe(args: argparse.Namespace, ranks: list[int], gain_ranks: list[int]) -> list[Run]:
    """The MoE layer's table and gains (its weights freed on return)."""
    moe = Moe(args.tokens, args.top_k, moe_weights(args.moe_hidden, args.experts, args.moe_ffn))
    runs = table(
        f"MoE layer (static form), {args.tokens} tokens, hidden {args.moe_hidden}, "
        f"{args.experts} experts top {args.top_k}, expert intermediate {args.moe_ffn}, fp16",
        ranks,
        lambda n: moe.run(n, rest()),
    )
    for n in gain_ranks:
        gains(f"MoE layer on {n} ranks", partial(moe.run, n))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="llama,moe,mlp,resnet50")
    parser.add_argument("--ranks", default=",".join(map(str, LLM_RANKS)))
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=512)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--kv-heads", type=int, default=8)
    parser.add_argument("--ffn", type=int, default=14336)
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--moe-hidden", type=int, default=2048)
    parser.add_argument("--experts", type=int, default=64)
    parser.add_argument("--top-k", type=int, default=8)
    parser.add_argument("--moe-ffn", type=int, default=1408)
    parser.add_argument("--mlp-tokens", type=int, default=4096)
    parser.add_argument("--d", type=int, default=2048)
    parser.add_argument("--resnet-batch", type=int, default=32)
    parser.add_argument("--gain-ranks", default="2,8")
    args = parser.parse_args()
    only = set(args.only.split(","))
    unknown = only - {"llama", "moe", "mlp", "resnet50"}
    if unknown:
        parser.error(f"--only: unknown bench {', '.join(sorted(unknown))}")
    ranks = [int(r) for r in args.ranks.split(",")]
    gain_ranks = [int(r) for r in args.gain_ranks.split(",")]
    walls = []
    if "llama" in only:
        walls.append(("Llama block", bench_llama(args, ranks, gain_ranks)))
        gc.collect()
    if "moe" in only:
        walls.append(("MoE layer", bench_moe(args, ranks, gain_ranks)))
        gc.collect()
    if "mlp" in only:
        mlp = mlp_block(args.mlp_tokens, args.d)
        table(
            f"transformer MLP block, {args.mlp_tokens} tokens x {args.d} -> {4 * args.d} -> "
            f"{args.d}, fp16 (tensor parallel)",
            list(SMALL_RANKS),
            partial(tensor_parallel, mlp),
        )
        del mlp
    if "resnet50" in only:
        net = resnet50(args.resnet_batch)
        table(
            f"ResNet-50, batch {args.resnet_batch} x 3 x 224 x 224, fp16 (data parallel)",
            list(SMALL_RANKS),
            lambda n: data_parallel(net, n),
        )
    if walls:
        print()
        for name, runs in walls:
            wall_times(name, runs)


if __name__ == "__main__":
    main()
