"""Speed of `--to-nc1hwc0` and the conversions it places, against the greedy placement.

For generated graphs of about 1k and 10k `ge` ops (constants included) it prints, in one
process:

- the time of `ToNC1HWC0Pass` and of xDSL's `CanonicalizePass` on fresh copies of the same
  module (best of `--repeat`; copying is not timed), their ratio, and how much of the pass is
  the placement itself (building the hypergraph and the minimum cut);
- the `ge.trans_data` ops the pass leaves and the bytes they move (physical bytes read +
  written, what the cut minimises), against the greedy placement the pass used before
  (forward from the convs, backward from users whose readers all run in NC1HWC0), run here
  with today's legality rules through the pass's own rewrite, so that only the placement
  differs.

The graphs are GraphBuilder chains of conv-bn-relu blocks (f16, 16 channels) with residual
adds; every 5 blocks a scale by a [1, 1, 1, 1] constant, every 10 a classifier head
(global_avg_pool -> flatten -> matmul, a function result), every 7 a channel concat whose
first input (8 channels) is not C0-aligned, which keeps it in NCHW, and every 13 the block's
output also leaves the function through a sigmoid (a second exit of an NC1HWC0 region).

`--random N` also prints the totals over N small random CNN graphs (2 to 14 ops: convs,
batch_norm, relu/sigmoid, pools, residual adds, scales, concats, several results).

    python bench/layout.py [--sizes 1000 10000] [--repeat 3] [--boundary keep|nc1hwc0]
                           [--random 320]
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal
from unittest import mock

import numpy as np
from timer import measure
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation
from xdsl.transforms.canonicalize import CanonicalizePass

import transforms.to_nc1hwc0 as layout_pass
from ge_dialect.frontend.builder import GraphBuilder, Tensor
from ge_dialect.ir.dialects import ge
from ge_dialect.ir.registry import make_context
from ge_dialect.utils.dtypes import itemsize
from transforms.to_nc1hwc0 import ToNC1HWC0Pass

C, HW, DTYPE = 16, 14, np.float16
Boundary = Literal["keep", "nc1hwc0"]


def generate(n_ops: int, seed: int = 0) -> ModuleOp:
    """About `n_ops` ge ops (constants included) of conv-bn-relu blocks (module docstring)."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder("main")
    x = b.input("x", [1, C, HW, HW], "f16")

    def weights(o: int, i: int, k: int) -> Tensor:
        return b.const(rng.normal(0, (i * k * k) ** -0.5, (o, i, k, k)).astype(DTYPE))

    def params(c: int) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """A batch norm's scale, offset, mean and variance over `c` channels."""
        scale, offset, mean, variance = (
            b.const(rng.uniform(lo, hi, c).astype(DTYPE))
            for lo, hi in ((0.5, 1.5), (-0.5, 0.5), (-0.5, 0.5), (0.1, 10.0)))
        return scale, offset, mean, variance

    def count() -> int:
        return sum(1 for op in b.block.ops if op.name.startswith("ge."))

    cur, outputs, k = x, [], 0
    while count() < n_ops:
        y = b.relu(b.batch_norm(b.conv2d(cur, weights(C, C, 3), pads=[1, 1, 1, 1]), *params(C)))
        if k % 4 == 3:
            y = b.add(y, cur)
        if k % 5 == 4:
            y = b.mul(y, b.const(np.full((1, 1, 1, 1), 0.5, DTYPE)))
        if k % 10 == 9:
            head = b.flatten(b.global_avg_pool(y))
            outputs.append(b.matmul(head, b.const(rng.normal(0, 0.25, (C, 10)).astype(DTYPE))))
        if k % 7 == 6:
            side = b.conv2d(y, weights(8, C, 1))
            y = b.conv2d(b.concat([side, y], 1), weights(C, C + 8, 1))
        if k % 13 == 12:
            outputs.append(b.sigmoid(y))
        cur, k = y, k + 1
    return b.build([cur, *outputs])


def random_graph(rng: np.random.Generator) -> ModuleOp:
    """A small random CNN graph (module docstring); every value without users is a result."""
    b = GraphBuilder("main")
    c = int(rng.choice([8, 16, 17, 32]))
    hw = int(rng.integers(4, 9))
    x = b.input("x", [1, c, hw, hw], "f16")
    pool: list[Tensor] = [x]
    extra: list[Tensor] = []

    def conv(t: Tensor, out: int, k: int) -> Tensor:
        w = rng.normal(0, (t.shape[1] * k * k) ** -0.5, (out, t.shape[1], k, k)).astype(DTYPE)
        return b.conv2d(t, b.const(w), pads=[k // 2] * 4)

    kinds = ["conv", "conv", "conv", "bn", "relu", "sigmoid", "pool", "gap", "add", "scale",
             "concat", "exit"]
    for _ in range(int(rng.integers(2, 15))):
        t = pool[-1 - int(rng.integers(0, min(3, len(pool))))]
        kind = str(rng.choice(kinds))
        n, ch, h, w = t.shape
        if kind == "conv" or len(pool) == 1:
            y = conv(t, int(rng.choice([8, 16, 17, 32])), int(rng.choice([1, 3])))
        elif kind == "bn":
            scale, offset, mean, variance = (
                b.const(rng.uniform(lo, hi, ch).astype(DTYPE))
                for lo, hi in ((0.5, 1.5), (-0.5, 0.5), (-0.5, 0.5), (0.1, 9)))
            y = b.batch_norm(t, scale, offset, mean, variance)
        elif kind in ("relu", "sigmoid"):
            y = getattr(b, kind)(t)
        elif kind == "pool" and min(h, w) >= 2:
            y = b.max_pool(t, [2, 2], [2, 2], [0, 0, 0, 0], False)
        elif kind == "gap":
            y = b.global_avg_pool(t)
        elif kind == "add":
            same = [u for u in pool if u.shape == t.shape and u is not t]
            y = b.add(t, same[-1] if same else conv(t, ch, 1))
        elif kind == "scale":
            y = b.mul(t, b.const(np.full((1, 1, 1, 1), 0.5, DTYPE)))
        elif kind == "concat":
            y = b.concat([t, conv(t, int(rng.choice([8, 16])), 1)], 1)
        else:  # another result: an exit of the region that computes it
            extra.append(b.relu(t))
            continue
        pool.append(y)
    results = [t for t in pool if not t.value.uses and t is not x] + extra
    return b.build(results or [pool[-1]])


# --------------------------------------------------------------------------------------
# The greedy placement (the pass's earlier one), and what a placement costs
# --------------------------------------------------------------------------------------


def greedy_layout(fn: func.FuncOp, fp32_c0: int, boundary: Boundary) -> layout_pass._Layout:
    """The placement the pass used before the cut: convs, then forward to every op that may run
    in NC1HWC0 and reads an NC1HWC0 op's result, then backward to ops whose readers all run in
    NC1HWC0 (and, with boundary=nc1hwc0, arguments whose readers all do)."""
    layout = layout_pass._Layout(fp32_c0)
    block = fn.body.block
    ops = list(block.ops)
    if not any(isinstance(op, layout_pass._SOURCES) for op in ops):
        return layout
    for op in ops:
        operands = layout_pass._nc1hwc0_operands(op, layout)
        if operands is not None:
            layout.operands[op] = operands

    def reads_nc1hwc0(use) -> bool:
        op = use.operation
        return op in layout.nc1hwc0 and use.index in layout.operands[op]

    for op in ops:  # forward
        if isinstance(op, layout_pass._SOURCES) or (op in layout.operands and any(
                isinstance(op.operands[i].owner, Operation)
                and op.operands[i].owner in layout.nc1hwc0 for i in layout.operands[op])):
            layout.nc1hwc0.add(op)
    changed = True
    while changed:  # backward
        changed = False
        for op in reversed(ops):
            if op in layout.nc1hwc0 or op not in layout.operands:
                continue
            uses = [use for r in op.results for use in r.uses]
            if uses and all(reads_nc1hwc0(use) for use in uses):
                layout.nc1hwc0.add(op)
                changed = True
    if boundary == "nc1hwc0":
        for arg in block.args:
            if layout.conversion_bytes(arg) and arg.uses and all(
                    reads_nc1hwc0(use) for use in arg.uses):
                layout.arguments.add(arg)
    return layout


def conversions(module: ModuleOp) -> tuple[int, int]:
    """(trans_data ops, bytes they move: physical bytes read + written)."""
    count = moved = 0
    for op in module.walk():
        if isinstance(op, ge.TransDataOp):
            t_in, t_out = op.input.type, op.output.type
            assert isinstance(t_in, TensorType) and isinstance(t_out, TensorType)
            count += 1
            moved += itemsize(t_in.element_type) * (
                math.prod(ge.physical_shape(t_in)) + math.prod(ge.physical_shape(t_out)))
    return count, moved


@contextmanager
def placement(decide: Callable | None, clock: list[float] | None = None) -> Iterator[None]:
    """Runs the pass with another placement function, or times the pass's own."""
    real = layout_pass._decide_layout
    chosen = decide or real

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return chosen(*args, **kwargs)
        finally:
            if clock is not None:
                clock[0] += time.perf_counter() - start

    with mock.patch.object(layout_pass, "_decide_layout", timed):
        yield


# --------------------------------------------------------------------------------------


def run(n_ops: int, repeat: int, boundary: Boundary) -> None:
    ctx = make_context()
    module = generate(n_ops)
    ops = [op for op in module.walk() if op.name.startswith("ge.")]
    n, n_const = len(ops), sum(isinstance(op, ge.ConstOp) for op in ops)
    pass_ = ToNC1HWC0Pass(boundary=boundary)
    t_layout, result = measure(lambda m: pass_.apply(ctx, m), repeat, setup=module.clone)
    t_canon, _ = measure(lambda m: CanonicalizePass().apply(ctx, m), repeat, setup=module.clone)
    clock = [0.0]
    with placement(None, clock):
        pass_.apply(ctx, module.clone())
    greedy = module.clone()
    with placement(greedy_layout):
        pass_.apply(ctx, greedy)

    after = [op for op in result.walk() if op.name.startswith("ge.")]
    compute = [op for op in after if not isinstance(op, ge.TransDataOp | ge.ConstOp)]
    in_5d = sum(any(isinstance(v.type, TensorType)
                    and ge.tensor_format(v.type) == ge.Format.NC1HWC0 for v in op.results)
                for op in compute)
    cut, old = conversions(result), conversions(greedy)
    print(f"{n} ge ops ({n - n_const} compute + {n_const} constants), boundary={boundary}")
    print(f"  to-nc1hwc0    {t_layout:7.3f} s  ({n / t_layout:10,.0f} ops/s); "
          f"placement (hypergraph + cut) {clock[0]:.3f} s")
    print(f"  canonicalize  {t_canon:7.3f} s  ({n / t_canon:10,.0f} ops/s)  (xDSL)")
    print(f"  ratio         to-nc1hwc0 / canonicalize = {t_layout / t_canon:.2f}x")
    print(f"  NC1HWC0       {in_5d} of {len(compute)} compute ops")
    print(f"  trans_data    cut {cut[0]} ({cut[1]:,} bytes); greedy {old[0]} ({old[1]:,} bytes)")


def run_random(count: int, boundary: Boundary, seed: int = 0) -> None:
    ctx = make_context()
    rng = np.random.default_rng(seed)
    pass_ = ToNC1HWC0Pass(boundary=boundary)
    totals = {"cut": [0, 0], "greedy": [0, 0]}
    better = 0
    for _ in range(count):
        module = random_graph(rng)
        cut, greedy = module.clone(), module.clone()
        pass_.apply(ctx, cut)
        with placement(greedy_layout):
            pass_.apply(ctx, greedy)
        for key, m in (("cut", cut), ("greedy", greedy)):
            ops, moved = conversions(m)
            totals[key][0] += ops
            totals[key][1] += moved
        better += conversions(cut)[1] < conversions(greedy)[1]
    print(f"{count} random CNN graphs, boundary={boundary}: trans_data cut {totals['cut'][0]} "
          f"({totals['cut'][1]:,} bytes), greedy {totals['greedy'][0]} "
          f"({totals['greedy'][1]:,} bytes); the cut moves fewer bytes in {better}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--boundary", choices=["keep", "nc1hwc0"], default="keep")
    parser.add_argument("--random", type=int, default=0, metavar="N")
    args = parser.parse_args()
    for size in args.sizes:
        run(size, args.repeat, args.boundary)
    if args.random:
        run_random(args.random, args.boundary)


if __name__ == "__main__":
    main()
