"""Random GE graphs for property tests, built with GraphBuilder from Hypothesis draws.

`cases()` is a Hypothesis strategy giving a `Case`: a module of convs of every grouping
(dense, grouped, depthwise; 17, 24, ... channels), batch_norm, activations, elementwise ops
with same-shape, per-channel, channel-broadcast and scalar operands, pools (ceil mode too),
channel and spatial concats (unaligned channels), flatten/reshape/matmul tails; its inputs;
layout options; and the recipe (`repr`) for shrinking.  Used by the layout pass's tests and
by the simulator's (every prefix of the pipeline against the reference interpreter).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from ge_dialect.ir.dialects import ge
from ge_dialect.frontend.builder import GraphBuilder, Tensor
from ge_dialect.utils import dtypes
from transforms.to_nc1hwc0 import Boundary, Fp32C0

F32, F16 = np.float32, np.float16

BOUNDARIES: tuple[Boundary, ...] = ("keep", "nc1hwc0")
FP32_C0S: tuple[Fp32C0, ...] = (16, 8)
ACTIVATIONS = ("sigmoid", "relu", "silu", "relu6", "clip", "leaky_relu", "sigmoid", "identity")
KINDS = ("conv", "conv", "batch_norm", "act", "act", "act", "binary", "binary", "binary", "pool",
         "concat1", "concat1", "concat2", "tail", "reshape4", "matmul4")


@dataclass
class Case:
    """A random graph, its inputs and the pass options; `repr` is the recipe, for shrinking."""

    module: ModuleOp
    inputs: list[np.ndarray]
    boundary: Boundary
    fp32_c0: Fp32C0
    dtype: np.dtype
    steps: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return (f"Case({self.dtype.name}, boundary={self.boundary}, fp32_c0={self.fp32_c0}):\n  "
                + "\n  ".join(self.steps))


class _Gen:
    """Builds one random graph with GraphBuilder, drawing every choice from Hypothesis."""

    def __init__(self, draw, seed: int, dtype: np.dtype):
        self.draw = draw
        self.rng = np.random.default_rng(seed)
        self.dtype = dtype
        self.b = GraphBuilder("main")
        self.inputs: list[np.ndarray] = []
        self.pool: list[Tensor] = []  # rank-4 values
        self.outputs: list[Tensor] = []
        self.steps: list[str] = []
        self.names: dict[SSAValue, str] = {}

    # values -------------------------------------------------------------------------------

    def name(self, t: Tensor) -> str:
        """A short name for a built value (constants are `const`), for the recipe."""
        if isinstance(t.value.owner, ge.ConstOp):
            return f"const{list(t.shape)}"
        return self.names.setdefault(t.value, f"%{len(self.names)}")

    def log(self, text: str, y: Tensor, *operands: Tensor) -> None:
        """Records `%y = text(operands) : shape` in the recipe that `Case` prints."""
        op, _, attrs = text.partition(" ")
        args = ", ".join(self.name(t) for t in operands)
        attrs = f" {attrs}" if attrs else ""
        self.steps.append(f"{self.name(y)} = {op}({args}){attrs} : {list(y.shape)}")

    def arg(self, shape: Sequence[int]) -> Tensor:
        name = f"x{len(self.inputs)}"
        self.inputs.append(self.rng.uniform(-1, 1, shape).astype(self.dtype))
        t = self.b.input(name, shape, self.dtype)
        self.log(f"input {name}", t)
        return t

    def const(self, array: np.ndarray, dtype=None) -> Tensor:
        return self.b.const(np.asarray(array, dtype or self.dtype))

    def weights(self, shape: Sequence[int]) -> Tensor:
        fan_in = int(np.prod(shape[1:]))
        return self.const(self.rng.normal(0.0, (1.0 / fan_in) ** 0.5, shape))

    def pick(self) -> Tensor:
        """A pool value, mostly one of the latest."""
        back = self.draw(st.integers(0, min(3, len(self.pool) - 1)))
        return self.pool[len(self.pool) - 1 - back]

    def matching(self, shape: Sequence[int], free_axis: int | None) -> Tensor | None:
        """A pool value with `shape` (except on `free_axis`), if any."""
        found = [t for t in self.pool if all(
            a == b for i, (a, b) in enumerate(zip(t.shape, shape)) if i != free_axis)]
        if not found:
            return None
        return found[self.draw(st.integers(0, len(found) - 1))]

    # ops ----------------------------------------------------------------------------------

    def conv(self, x: Tensor, out_channels: int | None = None) -> Tensor:
        n, c, h, w = x.shape
        grouping = self.draw(st.sampled_from(["dense", "dense", "depthwise", "grouped"]))
        groups = 1
        if grouping == "depthwise":
            groups = c
            out = c * self.draw(st.sampled_from([1, 2]))
        elif grouping == "grouped" and c % 2 == 0:
            groups = self.draw(st.sampled_from([g for g in (2, 4) if c % g == 0]))
            out = groups * self.draw(st.sampled_from([1, 3, 4, 8]))
        else:
            grouping = "dense"
            out = self.draw(st.sampled_from([4, 8, 16, 17, 24, 32]))
        if out_channels is not None:
            groups, grouping, out = 1, "dense", out_channels
        k = self.draw(st.sampled_from([1, 3, 3]))
        stride = self.draw(st.sampled_from([1, 1, 2])) if min(h, w) >= 4 else 1
        dil = self.draw(st.sampled_from([1, 1, 2])) if k == 3 and min(h, w) >= 5 else 1
        pad = dil * (k // 2) if self.draw(st.booleans()) or k == 1 else 0
        if (min(h, w) + 2 * pad - dil * (k - 1)) < 1:
            pad = dil * (k // 2)
        wt = self.weights((out, c // groups, k, k))
        bias = self.const(self.rng.uniform(-0.5, 0.5, out)) if self.draw(st.booleans()) else None
        y = self.b.conv2d(x, wt, bias, strides=(stride, stride), pads=[pad] * 4,
                          dilations=(dil, dil), groups=groups)
        self.log(f"conv {grouping} groups={groups} k={k} s={stride} d={dil} p={pad} "
                 f"bias={bias is not None}", y, x)
        return y

    def batch_norm(self, x: Tensor) -> Tensor:
        c = x.shape[1]
        pdtype = self.draw(st.sampled_from([self.dtype, np.dtype(F32)]))
        u = self.rng.uniform
        scale, offset = self.const(u(0.5, 1.5, c), pdtype), self.const(u(-0.5, 0.5, c), pdtype)
        mean, var = self.const(u(-0.5, 0.5, c), pdtype), self.const(u(0.1, 10.0, c), pdtype)
        y = self.b.batch_norm(x, scale, offset, mean, var, epsilon=1e-5)
        self.log(f"batch_norm params={pdtype.name}", y, x)
        return y

    def act(self, x: Tensor) -> Tensor:
        kind = self.draw(st.sampled_from(ACTIVATIONS))
        if kind == "clip":
            lo, hi = self.draw(st.sampled_from([(0.0, 6.0), (-0.5, 0.5), (0.1, 1.0)]))
            y = self.b.clip(x, lo, hi)
            kind += f" min={lo} max={hi}"
        elif kind == "leaky_relu":
            y = self.b.leaky_relu(x, 0.1)
        else:
            y = getattr(self.b, kind)(x)
        self.log(kind, y, x)
        return y

    def binary(self, x: Tensor) -> Tensor:
        n, c, h, w = x.shape
        kind = self.draw(st.sampled_from(["add", "sub", "mul"]))
        form = self.draw(st.sampled_from(
            ["same", "same", "channel", "channel", "channel_value", "c_bcast_const",
             "c_bcast_value", "low_rank", "scalar"]))
        if form == "same":
            other = self.matching(x.shape, None) if self.draw(st.booleans()) else None
            if other is None:
                other = self.arg(x.shape) if self.draw(st.booleans()) else self.const(
                    self.rng.uniform(-1, 1, x.shape))
        elif form == "channel":  # [1, C, 1, 1] constant: layout-safe for add/sub/mul
            other = self.const(self.rng.uniform(-1, 1, (1, c, 1, 1)))
        elif form == "channel_value":  # [N, C, 1, 1] computed, as in a squeeze-excite block
            other = self.b.sigmoid(self.b.global_avg_pool(x))
            self.log("sigmoid global_avg_pool", other, x)
        elif form == "c_bcast_const":  # broadcast over C: only mul may run in NC1HWC0
            other = self.const(self.rng.uniform(-1, 1, (1, 1, h, w)))
        elif form == "c_bcast_value":  # [N, 1, H, W] computed by a 1-channel conv, or an input
            if self.draw(st.booleans()):
                other = self.b.conv2d(x, self.weights((1, c, 1, 1)))
                self.log("conv 1x1", other, x)
            else:
                other = self.arg((n, 1, h, w))
        elif form == "low_rank":  # lower-rank constant: [C, 1, 1] or [W]
            shape = self.draw(st.sampled_from([(c, 1, 1), (w,)]))
            other = self.const(self.rng.uniform(-1, 1, shape))
        else:  # a scalar broadcast over everything: [1, 1, 1, 1], [] or [1]; rarely an input
            shape = self.draw(st.sampled_from([(1, 1, 1, 1), (), (1,)]))
            if self.draw(st.integers(0, 3)) == 0:
                other = self.arg(shape)
            else:
                other = self.const(self.rng.uniform(0.5, 1.5, shape))
        lhs, rhs = (other, x) if self.draw(st.booleans()) else (x, other)
        y = getattr(self.b, kind)(lhs, rhs)
        self.log(f"{kind} {form}-shaped operand", y, lhs, rhs)
        return y

    def pool_op(self, x: Tensor) -> Tensor:
        n, c, h, w = x.shape
        kind = self.draw(st.sampled_from(["max", "avg", "global"]))
        k = self.draw(st.sampled_from([2, 3]))
        if kind == "global" or min(h, w) < k:
            y = self.b.global_avg_pool(x)
            self.log("global_avg_pool", y, x)
            return y
        s = self.draw(st.sampled_from([1, 2]))
        p = self.draw(st.integers(0, k // 2))
        ceil = self.draw(st.booleans())
        if kind == "max":
            y = self.b.max_pool(x, [k, k], [s, s], [p] * 4, ceil)
        else:
            y = self.b.avg_pool(x, [k, k], [s, s], [p] * 4, ceil, self.draw(st.booleans()))
        self.log(f"{kind}_pool k={k} s={s} p={p} ceil={ceil}", y, x)
        return y

    def concat(self, x: Tensor, axis: int) -> Tensor:
        n, c, h, w = x.shape
        parts = [x]
        for _ in range(self.draw(st.integers(1, 2))):
            other = self.matching(x.shape, axis) if self.draw(st.booleans()) else None
            if other is None:
                size = self.draw(st.sampled_from([1, 3, 8, 16, 17]))
                shape = list(x.shape)
                shape[axis] = size
                ways = ["arg", "const", "conv"] if axis == 1 else ["arg", "const"]
                how = self.draw(st.sampled_from(ways))
                if how == "arg":
                    other = self.arg(shape)
                elif how == "const":
                    other = self.const(self.rng.uniform(-1, 1, shape))
                else:
                    other = self.b.conv2d(x, self.weights((size, c, 1, 1)))
                    self.log("conv 1x1", other, x)
            parts.insert(self.draw(st.integers(0, len(parts))), other)
        y = self.b.concat(parts, axis)
        self.log(f"concat axis={axis}", y, *parts)
        return y

    def tail(self, x: Tensor) -> None:
        """A head that leaves rank 4: [global pool ->] flatten or reshape -> matmul (+ bias)."""
        src = x
        if self.draw(st.booleans()):
            x = self.b.global_avg_pool(x)
        n = x.shape[0]
        flat = self.b.flatten(x) if self.draw(st.booleans()) else self.b.reshape(x, [n, -1])
        k = flat.shape[1]
        bias = self.const(self.rng.uniform(-0.5, 0.5, 5)) if self.draw(st.booleans()) else None
        y = self.b.matmul(flat, self.weights((5, k)), bias, transpose_b=True)
        self.log(f"head {'global_avg_pool+' if x is not src else ''}flatten/reshape+matmul", y, src)
        self.outputs.append(y)

    def reshape4(self, x: Tensor) -> Tensor:
        n, c, h, w = x.shape
        y = self.b.reshape(x, [n, c, w, h])
        self.log("reshape", y, x)
        return y

    def matmul4(self, x: Tensor) -> Tensor:
        w = x.shape[3]
        y = self.b.matmul(x, self.weights((w, w)))
        self.log("matmul", y, x)
        return y


@st.composite
def cases(draw) -> Case:
    dtype = dtypes.row(draw(st.sampled_from(["f32", "f16"]))).numpy
    boundary = draw(st.sampled_from(BOUNDARIES))
    fp32_c0 = draw(st.sampled_from(FP32_C0S))
    g = _Gen(draw, draw(st.integers(0, 2**32 - 1)), dtype)
    shape = [draw(st.integers(1, 2)), draw(st.sampled_from([3, 8, 16, 17, 20, 32])),
             draw(st.integers(4, 8)), draw(st.integers(4, 8))]
    g.pool.append(g.arg(shape))
    n_steps = draw(st.integers(3, 9))
    conv_at = draw(st.integers(0, 1))  # every graph has a conv, so NC1HWC0 values exist
    for i in range(n_steps):
        kind = "conv" if i == conv_at else draw(st.sampled_from(KINDS))
        x = g.pick()
        if kind == "conv":
            y = g.conv(x)
        elif kind == "batch_norm":
            y = g.batch_norm(x)
        elif kind == "act":
            y = g.act(x)
        elif kind == "binary":
            y = g.binary(x)
        elif kind == "pool":
            y = g.pool_op(x)
        elif kind == "concat1":
            y = g.concat(x, 1)
        elif kind == "concat2":
            y = g.concat(x, 2)
        elif kind == "reshape4":
            y = g.reshape4(x)
        elif kind == "matmul4":
            y = g.matmul4(x)
        else:
            g.tail(x)
            continue
        g.pool.append(y)
    # Every value without users is an output (so nothing is dead), plus maybe an
    # intermediate value that also has users (a function result inside the graph).
    outputs = [t for t in g.pool if not t.value.uses and not isinstance(t.value.owner, func.FuncOp)]
    outputs += g.outputs
    inner = [t for t in g.pool if t.value.uses and t not in outputs]
    if inner and draw(st.booleans()):
        outputs.append(inner[draw(st.integers(0, len(inner) - 1))])
    if not outputs:
        outputs = [g.pool[-1]]
    g.steps.append("return " + ", ".join(g.name(t) for t in outputs))
    module = g.b.build(outputs)
    return Case(module, g.inputs, boundary, fp32_c0, dtype, g.steps)
