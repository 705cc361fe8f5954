"""Speed of `--to-nc1hwc0` against xDSL's canonicalize, and the conversions it places.

For generated graphs of about 1k and 10k `ge` ops (constants included) it prints, in one
process:

- the time of `ToNC1HWC0Pass` and of xDSL's `CanonicalizePass` on fresh copies of the same
  module (best of `--repeat`; copying is not timed), and their ratio;
- the `ge.trans_data` ops the pass inserted against the layout boundaries of its result: the
  def-use edges (seen through trans_data) where a value crosses between an op that runs in
  NC1HWC0 and a default-layout op or the function boundary.  Each value that crosses into
  the other layout needs one conversion, shared by all its users there, so the values
  crossing are the least number of trans_data a placement can have; constants never cross
  (they are converted at compile time).

The graphs are GraphBuilder chains of conv-bn-relu blocks (f16, 16 channels) with residual
adds, and, so that boundaries exist inside the graph, a classifier head every 10 blocks
(global_avg_pool -> flatten -> matmul, a function result) and every 7 blocks a channel
concat whose first input (8 channels) is not C0-aligned, which keeps it in NCHW.

    python bench/layout.py [--sizes 1000 10000] [--repeat 3] [--boundary keep|nc1hwc0]
"""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Literal

import numpy as np
from timer import measure
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.transforms.canonicalize import CanonicalizePass

from ge_dialect import ge
from ge_dialect.builder import GraphBuilder
from ge_dialect.dialects import make_context
from transforms.to_nc1hwc0 import ToNC1HWC0Pass

C, HW, DTYPE = 16, 14, np.float16


def generate(n_ops: int, seed: int = 0) -> ModuleOp:
    """About `n_ops` ge ops (constants included) of conv-bn-relu blocks with heads and concats."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder("main")
    x = b.input("x", [1, C, HW, HW], "f16")

    def weights(o: int, i: int, k: int):
        return b.const(rng.normal(0, (i * k * k) ** -0.5, (o, i, k, k)).astype(DTYPE))

    def params(c: int):
        return [b.const(rng.uniform(lo, hi, c).astype(DTYPE))
                for lo, hi in ((0.5, 1.5), (-0.5, 0.5), (-0.5, 0.5), (0.1, 10.0))]

    def count() -> int:
        return sum(1 for op in b.block.ops if op.name.startswith("ge."))

    cur, outputs, k = x, [], 0
    while count() < n_ops:
        y = b.relu(b.batch_norm(b.conv2d(cur, weights(C, C, 3), pads=[1, 1, 1, 1]), *params(C)))
        if k % 4 == 3:
            y = b.add(y, cur)
        if k % 10 == 9:
            head = b.flatten(b.global_avg_pool(y))
            outputs.append(b.matmul(head, b.const(rng.normal(0, 0.25, (C, 10)).astype(DTYPE))))
        if k % 7 == 6:
            side = b.conv2d(y, weights(8, C, 1))
            y = b.conv2d(b.concat([side, y], 1), weights(C, C + 8, 1))
        cur, k = y, k + 1
    return b.build([cur, *outputs])


# --------------------------------------------------------------------------------------
# Boundaries of a result
# --------------------------------------------------------------------------------------


def _nc1hwc0(value: SSAValue) -> bool:
    t = value.type
    return isinstance(t, TensorType) and ge.tensor_format(t) == ge.Format.NC1HWC0


def _runs_in_nc1hwc0(op: Operation) -> bool:
    return any(_nc1hwc0(v) for v in (*op.operands, *op.results))


def _origin(value: SSAValue) -> SSAValue:
    """The value a chain of trans_data starts from."""
    while isinstance(value.owner, ge.TransDataOp):
        value = value.owner.input
    return value


def boundaries(module: ModuleOp) -> tuple[int, int, Counter[str]]:
    """(crossing def-use edges, values crossing, edge kinds) of a module after the pass."""
    edges = 0
    crossing: set[tuple[SSAValue, bool]] = set()
    kinds: Counter[str] = Counter()
    for fn in module.ops:
        if not isinstance(fn, func.FuncOp):
            continue
        ret = fn.body.block.last_op
        for op in fn.body.block.ops:
            if isinstance(op, ge.TransDataOp | ge.ConstOp):
                continue
            for operand in op.operands:
                origin = _origin(operand)
                producer = origin.owner
                if isinstance(producer, ge.ConstOp):
                    continue  # converted at compile time
                if isinstance(producer, Block):  # a function argument: its declared layout
                    src_5d, src = _nc1hwc0(origin), "argument"
                else:
                    src_5d, src = _runs_in_nc1hwc0(producer), producer.name
                if op is ret:
                    dst_5d, dst = _nc1hwc0(operand), "result"
                else:
                    dst_5d, dst = _runs_in_nc1hwc0(op), op.name
                if src_5d != dst_5d:
                    edges += 1
                    crossing.add((origin, dst_5d))
                    mark = {True: " (5D)", False: ""}
                    kinds[f"{src}{mark[src_5d]} -> {dst}{mark[dst_5d]}"] += 1
    return edges, len(crossing), kinds


# --------------------------------------------------------------------------------------


def run(n_ops: int, repeat: int, boundary: Literal["keep", "nc1hwc0"]) -> None:
    ctx = make_context()
    module = generate(n_ops)
    ops = [op for op in module.walk() if op.name.startswith("ge.")]
    n, n_const = len(ops), sum(isinstance(op, ge.ConstOp) for op in ops)
    layout = ToNC1HWC0Pass(boundary=boundary)
    # each run on a fresh copy of the module (copying is not timed)
    t_layout, result = measure(lambda m: layout.apply(ctx, m), repeat, setup=module.clone)
    t_canon, _ = measure(lambda m: CanonicalizePass().apply(ctx, m), repeat, setup=module.clone)

    after = [op for op in result.walk() if op.name.startswith("ge.")]
    n_trans = sum(isinstance(op, ge.TransDataOp) for op in after)
    in_5d = sum(_runs_in_nc1hwc0(op) for op in after
                if not isinstance(op, ge.TransDataOp | ge.ConstOp))
    compute = sum(not isinstance(op, ge.TransDataOp | ge.ConstOp) for op in after)
    edges, values, kinds = boundaries(result)

    print(f"{n} ge ops ({n - n_const} compute + {n_const} constants), boundary={boundary}")
    print(f"  to-nc1hwc0    {t_layout:7.3f} s  ({n / t_layout:10,.0f} ops/s)")
    print(f"  canonicalize  {t_canon:7.3f} s  ({n / t_canon:10,.0f} ops/s)  (xDSL)")
    print(f"  ratio         to-nc1hwc0 / canonicalize = {t_layout / t_canon:.2f}x")
    print(f"  NC1HWC0       {in_5d} of {compute} compute ops")
    print(f"  trans_data    {n_trans} inserted; layout boundaries: {edges} crossing edges, "
          f"{values} values crossing (the least number of conversions)")
    for kind, count in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"      {count:6d}  {kind}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--boundary", choices=["keep", "nc1hwc0"], default="keep")
    args = parser.parse_args()
    for size in args.sizes:
        run(size, args.repeat, args.boundary)


if __name__ == "__main__":
    main()
