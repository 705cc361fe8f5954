"""Several ranks: simulated step time, scaling efficiency and three cluster ratios.

Two models, fp16, each sharded with the `shard` pass and compiled with
`shard{ranks=N mode=...},canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto},
lower-to-device,plan-memory`, then simulated timing-only with `api.simulate_ranks` on
1, 2, 4 and 8 ranks of one 8-NPU Ascend 910 server (`profiles/ascend910-8p.json`) and on
16 ranks of two servers over RoCE (`profiles/ascend910-2x8p.json`):

- a transformer MLP block (tokens x d -> 4d -> d, GELU-free: relu), tensor-parallel
  (Megatron's column- then row-parallel split, one all-reduce per block);
- ResNet-50 (torchvision's layout: 7x7/2 stem, max pool, bottleneck stages 3-4-6-3, global
  average pool, fc to 1000 classes; batch-norm folded into the convs by `fuse`),
  data-parallel over the batch, its logits all-gathered.  The ranks of a data-parallel
  run are identical programs, so rank 0's is compiled once and run as every rank.

Per configuration it prints the step time (the last rank's end), the scaling efficiency
against one rank (strong scaling: the same global batch, T1 / (N x TN)), compute
utilisation (Computing / step), communication ratio (Communication / step) and overlap
efficiency (Overlapped / Communication), as means over ranks; the imbalance across ranks;
and the collectives' algorithm and cost.  The usual targets: compute utilisation > 85%,
communication ratio < 15%, overlap efficiency > 70%.

    python bench/ranks.py [--tokens 4096] [--d 2048] [--batch 32] [--only mlp|resnet50]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from xdsl.dialects import func

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.sim.program import read_program
from ge_dialect.sim.topology import CLUSTER_TOPOLOGY, DEFAULT_TOPOLOGY

REST = "canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto},lower-to-device,plan-memory"
CONFIGS = [
    (1, DEFAULT_TOPOLOGY),
    (2, DEFAULT_TOPOLOGY),
    (4, DEFAULT_TOPOLOGY),
    (8, DEFAULT_TOPOLOGY),
    (16, CLUSTER_TOPOLOGY),
]


def mlp_block(tokens: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    b = GraphBuilder("mlp")
    x = b.input("x", [tokens, d], dtype="f16")
    w1 = b.const(rng.normal(0, 1 / math.sqrt(d), (d, 4 * d)).astype(np.float16))
    b1 = b.const(np.zeros(4 * d, np.float16))
    w2 = b.const(rng.normal(0, 1 / math.sqrt(4 * d), (4 * d, d)).astype(np.float16))
    b2 = b.const(np.zeros(d, np.float16))
    h = b.relu(b.matmul(x, w1, bias=b1))
    return b.build([b.matmul(h, w2, bias=b2, name="y")])


def resnet50(batch: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    b = GraphBuilder("resnet50")

    def conv_bn(x, cin, cout, k, stride, relu):
        w = b.const(rng.normal(0, 1 / math.sqrt(cin * k * k), (cout, cin, k, k)).astype(np.float16))
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
    fc = b.const(rng.normal(0, 1 / math.sqrt(2048), (2048, 1000)).astype(np.float16))
    return b.build([b.matmul(y, fc, bias=b.const(np.zeros(1000, np.float16)), name="logits")])


def run(module, ranks: int, mode: str, topology: str, identical: bool):
    m = module.clone()
    api.compile(m, f"shard{{ranks={ranks} mode={mode}}}")
    if identical:  # data parallel: every rank's program is rank 0's
        for fn in [f for f in m.body.block.ops if isinstance(f, func.FuncOp)][1:]:
            fn.detach()
            fn.erase()
    api.compile(m, REST)
    if identical:
        (program,) = [read_program(f) for f in m.body.block.ops if isinstance(f, func.FuncOp)]
        split = {name: 0 for name in [program.buffers[i].name for i in program.inputs]}
        return api.simulate_ranks(
            [program] * ranks, topology=topology, timing_only=True, check=False, splits=split
        )
    return api.simulate_ranks(m, topology=topology, timing_only=True, check=False)


def table(title: str, module, mode: str, identical: bool) -> None:
    print(f"\n{title} ({mode} parallel)")
    print(
        f"{'ranks':>5} {'topology':<15} {'step us':>10} {'scaling':>8} {'compute':>8} "
        f"{'comm':>7} {'overlap':>8} {'imbal.':>7}  collectives"
    )
    base = None
    for ranks, topology in CONFIGS:
        start = time.perf_counter()
        result = run(module, ranks, mode, topology, identical)
        wall = time.perf_counter() - start
        r = result.report
        step = r.makespan
        base = step if base is None else base
        overlap = r.overlap_efficiency
        kinds: dict[str, float] = {}
        for c in r.extra["collectives"]:
            key = f"{c['kind']} {c['algorithm']} over {'/'.join(c['link_types']) or '-'}"
            kinds[key] = kinds.get(key, 0.0) + c["cost_us"]
        colls = "; ".join(f"{k} {v:.1f} us" for k, v in kinds.items()) or "-"
        print(
            f"{ranks:>5} {result.topology.name:<15} {step:>10.1f} "
            f"{base / (ranks * step):>8.1%} {r.compute_utilisation:>8.1%} "
            f"{r.communication_ratio:>7.1%} "
            f"{'n/a' if overlap is None else f'{overlap:.1%}':>8} "
            f"{r.extra['imbalance']['makespan']:>7.1%}  {colls}  [{wall:.1f} s]"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=4096)
    parser.add_argument("--d", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--only", choices=("mlp", "resnet50"))
    args = parser.parse_args()
    if args.only != "resnet50":
        table(
            f"transformer MLP block, {args.tokens} tokens x {args.d} -> {4 * args.d} -> "
            f"{args.d}, fp16",
            mlp_block(args.tokens, args.d),
            "tensor",
            identical=False,
        )
    if args.only != "mlp":
        table(
            f"ResNet-50, batch {args.batch} x 3 x 224 x 224, fp16",
            resnet50(args.batch),
            "data",
            identical=True,
        )


if __name__ == "__main__":
    main()
