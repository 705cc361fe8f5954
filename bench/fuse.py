"""Speed of `--fuse` on generated graphs, against xDSL's canonicalize on the same module.

For graphs of about 1k and 10k `ge` ops (a ResNet-like stack built with `GraphBuilder`: a
conv-bn-relu stem, then blocks conv-bn-relu-conv-bn-add(shortcut)-relu, every conv with its
own weight constant of small shape, so that weight folding costs what it costs on a real
model without dominating) it prints, in one process:

- the time of `FusePass` (batch_norm folding, residual and activation fusion) and of xDSL's
  `CanonicalizePass` (folding enabled, DCE), each the best of `--repeat` runs on a fresh
  copy of the same module, their ratio and the time per op (linear scaling keeps it flat);
- the op counts by name before and after each pass.

The fuse time is also given with Python's cyclic GC off: its collections scan the whole
heap, so they grow with the module and hide whether the pass itself scales linearly.

    python bench/fuse.py [--sizes 1000 10000] [--repeat 3] [--channels 16] [--hw 8]
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np
from timer import measure, stopwatch
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.canonicalize import CanonicalizePass

from ge_dialect.frontend.builder import GraphBuilder, Tensor
from ge_dialect.ir.registry import make_context
from transforms.fuse import FusePass

BLOCK_OPS = 17  # 2 weights + 8 BN parameters + conv, bn, relu, conv, bn, add, relu
STEM_OPS = 8


def generate(n_ops: int, channels: int, hw: int, seed: int = 0) -> tuple[ModuleOp, int]:
    """A module of about `n_ops` ge ops and its number of residual blocks."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder("main")
    c = channels
    fan_in = c * 9

    def conv_bn(x: Tensor) -> Tensor:
        w = b.const(rng.normal(0.0, fan_in ** -0.5, (c, c, 3, 3)).astype(np.float32))
        y = b.conv2d(x, w, pads=(1, 1, 1, 1))
        params = [rng.uniform(0.5, 1.5, c), rng.uniform(-0.5, 0.5, c),
                  rng.uniform(-0.3, 0.3, c), rng.uniform(0.1, 10.0, c)]
        scale, offset, mean, variance = (b.const(p.astype(np.float32)) for p in params)
        return b.batch_norm(y, scale, offset, mean, variance)

    x = b.input("x", [1, c, hw, hw])
    y = b.relu(conv_bn(x))
    blocks = max(1, round((n_ops - STEM_OPS) / BLOCK_OPS))
    for _ in range(blocks):
        h = b.relu(conv_bn(y))
        y = b.relu(b.add(conv_bn(h), y))
    return b.build([y]), blocks


def counts(module: ModuleOp) -> Counter[str]:
    return Counter(op.name for op in module.walk() if op.name.startswith(("ge.", "stream.")))


def counts_str(c: Counter[str]) -> str:
    return ", ".join(f"{name} {n}" for name, n in sorted(c.items()))


def run(n_ops: int, repeat: int, channels: int, hw: int) -> None:
    with stopwatch() as build:
        module, blocks = generate(n_ops, channels, hw)
    t_build = build.seconds
    before = counts(module)
    n = sum(before.values())
    ctx = make_context()
    # each run on a fresh copy of the module (copying is not timed)
    t_fuse, fused = measure(lambda m: FusePass().apply(ctx, m), repeat, setup=module.clone)
    t_canon, canon = measure(lambda m: CanonicalizePass().apply(ctx, m), repeat,
                             setup=module.clone)
    t_fuse_nogc, _ = measure(lambda m: FusePass().apply(ctx, m), repeat, setup=module.clone,
                             gc_enabled=False)
    weights = before["ge.conv2d"]
    print(f"{n} ge ops ({blocks} residual blocks, activations 1x{channels}x{hw}x{hw}, {weights} "
          f"weights {channels}x{channels}x3x3 f32; built and verified in {t_build:.2f} s)")
    for name, t in (("fuse", t_fuse), ("canonicalize", t_canon), ("fuse, gc off", t_fuse_nogc)):
        print(f"  {name:<12}  {t:7.3f} s  ({t / n * 1e6:6.1f} us/op, {n / t:9,.0f} ops/s)")
    print(f"  ratio         fuse / canonicalize = {t_fuse / t_canon:.2f}x")
    print(f"  before        {counts_str(before)}")
    print(f"  after fuse    {counts_str(counts(fused))}")
    print(f"  after canon.  {counts_str(counts(canon))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--channels", type=int, default=16)
    parser.add_argument("--hw", type=int, default=8)
    args = parser.parse_args()
    for size in args.sizes:
        run(size, args.repeat, args.channels, args.hw)


if __name__ == "__main__":
    main()
