"""`--to-fractal-nz` against the reference interpreter, the simulator and brute force.

- Random matmul graphs (weights with biases and transposes, matmuls of two computed values,
  transposed either way, batched; activations; constant biases broadcast over M, same-shape
  and scalar operands, a computed operand broadcast over M; softmax, which stays ND; M, K
  and N off the fractal's multiples, fp32 and fp16): after the pass the module verifies,
  keeps its signature, reads every matmul weight as a FRACTAL_NZ constant and converts no
  constant at run time; the reference interpreter gives the very same bits as before; and
  the simulator, whose kernels work on the stored fractals (padding included), gives the
  numbers the interpreter gave before the pass.
- The placement is a minimum cut: over every labelling of the ops that may run in
  FRACTAL_NZ in small random graphs, each applied by the pass's own rewrite, none leaves
  fewer trans_data bytes plus ND2NZ penalty (then fewer conversions and penalised matmuls)
  than the pass.
- A converted weight holds the weight's values in fractals with zero padding, and the cut's
  burst is the default profile's.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from helpers.tolerances import assert_close
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder, Tensor
from ge_dialect.ir.dialects import ge
from ge_dialect.ir.interpreter import find_function, run_function
from ge_dialect.ir.registry import make_context
from ge_dialect.ir.verify import verify_module
from ge_dialect.sim.profile import load_profile
from ge_dialect.utils import dtypes, layout
from transforms.to_fractal_nz import BURST_BYTES, ToFractalNZPass

CTX = make_context()
F32, F16 = np.dtype(np.float32), np.dtype(np.float16)
UNARY = ("relu", "gelu", "sigmoid", "tanh", "silu", "neg", "sin")


@dataclass
class Case:
    """A random graph, its inputs, and its recipe (`repr`, for shrinking)."""

    module: ModuleOp
    inputs: list[np.ndarray]
    dtype: np.dtype
    steps: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Case({self.dtype.name}):\n  " + "\n  ".join(self.steps)


@st.composite
def cases(draw, max_steps: int = 6) -> Case:
    dtype = draw(st.sampled_from([F32, F16]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    b = GraphBuilder("main")
    inputs: list[np.ndarray] = []
    steps: list[str] = []

    def arg(shape) -> Tensor:
        inputs.append(rng.uniform(-1, 1, shape).astype(dtype))
        steps.append(f"x{len(inputs) - 1} = input {list(shape)}")
        return b.input(f"x{len(inputs) - 1}", shape, dtype)

    def const(shape, scale=1.0) -> Tensor:
        return b.const(rng.normal(0.0, scale, shape).astype(dtype))

    batch = draw(st.sampled_from([(), (2,)]))
    m0, k0 = draw(st.sampled_from([3, 16, 17])), draw(st.sampled_from([8, 20, 32]))
    pool = [arg((*batch, m0, k0))]
    for _ in range(draw(st.integers(1, max_steps))):
        x = pool[len(pool) - 1 - draw(st.integers(0, min(2, len(pool) - 1)))]
        *lead, m, k = x.shape
        kind = draw(
            st.sampled_from(
                [
                    "linear",
                    "linear",
                    "bmm",
                    "act",
                    "act",
                    "bias",
                    "same",
                    "scalar",
                    "bcast",
                    "softmax",
                ]
            )
        )
        if kind == "linear":
            n = draw(st.sampled_from([8, 20, 33]))
            tb, bias = draw(st.booleans()), draw(st.booleans())
            w = const((n, k) if tb else (k, n), k**-0.5)
            y = b.matmul(x, w, const((n,)) if bias else None, transpose_b=tb)
            text = f"linear n={n} transpose_b={tb} bias={bias}"
        elif kind == "bmm":
            others = [t for t in pool if list(t.shape[:-2]) == lead]
            other = others[draw(st.integers(0, len(others) - 1))]
            if other.shape[-1] == k and draw(st.booleans()):  # x @ other^T: [.., m, m']
                y = b.matmul(x, other, transpose_b=True)
            elif other.shape[-2] == m:  # x^T @ other: [.., k, n]
                y = b.matmul(x, other, transpose_a=True)
            else:
                y = b.matmul(x, other, transpose_b=True) if other.shape[-1] == k else x
            y = b.mul(y, b.const(np.asarray([1.0 / max(m, k)], dtype)))  # keeps values O(1)
            text = f"bmm with {list(other.shape)}"
        elif kind == "act":
            name = draw(st.sampled_from(UNARY))
            y = getattr(b, name)(x)
            text = name
        elif kind == "bias":  # a constant broadcast over M (and the batch)
            y = b.add(x, const((k,)))
            text = "add bias"
        elif kind == "same":
            same = [t for t in pool if t.shape == x.shape and t is not x]
            other = same[0] if same else const(x.shape)
            name = draw(st.sampled_from(["sub", "mul", "maximum"]))
            y = getattr(b, name)(x, other)
            text = f"{name} same-shape {'value' if same else 'constant'}"
        elif kind == "scalar":
            y = b.mul(x, b.const(np.asarray([0.5], dtype)))
            text = "mul scalar"
        elif kind == "bcast":  # a computed operand broadcast over M: stays ND
            y = b.add(x, arg((*lead, 1, k)))
            text = "add computed [.., 1, k]"
        else:
            y = b.softmax(x, -1)
            text = "softmax"
        steps.append(f"{text} : {list(y.shape)}")
        pool.append(y)
    outputs = [pool[-1]]
    if len(pool) > 2 and draw(st.booleans()):
        outputs.append(pool[1])
    return Case(b.build(outputs), inputs, dtype, steps)


def _nz(t) -> bool:
    return isinstance(t, TensorType) and ge.tensor_format(t) == ge.Format.FRACTAL_NZ


def _check_ir(module: ModuleOp, before) -> None:
    """The pass's structural promises."""
    verify_module(module, "<test>")
    fn = find_function(module)
    assert fn.function_type == before.function_type, "the signature changed"
    for op in module.walk():
        if isinstance(op, ge.MatMulOp):
            for value in (op.a, op.b):
                if isinstance(value.owner, ge.ConstOp):
                    assert _nz(value.type), f"a matmul weight is not FRACTAL_NZ: {value.type}"
        if isinstance(op, ge.TransDataOp):
            src = op.input.owner
            assert not isinstance(src, ge.ConstOp), "a trans_data converts a constant"
            assert not (isinstance(src, ge.TransDataOp) and src.input.type == op.output.type)


def test_random_graphs_keep_their_numbers_on_the_interpreter_and_the_simulator():
    stats: Counter = Counter()

    @settings(max_examples=40)
    @given(cases())
    def check(case: Case) -> None:
        before = find_function(case.module).clone()
        ref = run_function(case.module, case.inputs)
        m = case.module.clone()
        ToFractalNZPass().apply(CTX, m)
        _check_ir(m, before)
        for got, want in zip(run_function(m, case.inputs), ref, strict=True):
            np.testing.assert_array_equal(got, want)  # only storage changed
        api.compile(m, "lower-to-device,plan-memory")
        names = [f"x{i}" for i in range(len(case.inputs))]
        result = api.simulate(m, dict(zip(names, case.inputs, strict=True)))
        assert not result.findings
        for got, want in zip(result.outputs.values(), ref, strict=True):
            assert_close(got, want, case.dtype)

        launches = [t for t in result.program.tasks if t.kernel]
        nz_in = [t for t in launches if any(o.fmt == "FRACTAL_NZ" for o in t.in_types)]
        stats["examples"] += 1
        stats["nz matmul"] += any(
            t.kernel == "matmul" and t.out_types[0].fmt == "FRACTAL_NZ" for t in nz_in
        )
        stats["nd matmul"] += any(
            t.kernel == "matmul" and t.in_types[0].fmt == "ND" for t in launches
        )
        stats["nz elementwise"] += any(t.kernel not in ("matmul", "trans_data") for t in nz_in)
        stats["trans_data"] += any(t.kernel == "trans_data" for t in launches)
        stats["padded"] += any(
            o.shape[-1] % 16 or o.shape[-2] % 16
            for t in nz_in
            for o in t.in_types
            if o.fmt == "FRACTAL_NZ"
        )
        stats["f16"] += case.dtype == F16

    check()
    n = stats["examples"]
    assert n >= 30, stats
    for key in ("nz matmul", "nd matmul", "nz elementwise", "trans_data", "padded", "f16"):
        assert stats[key] >= n // 10, (key, stats)


# --------------------------------------------------------------------------------------
# The cut is the minimum: against every labelling
# --------------------------------------------------------------------------------------


def _cost(module: ModuleOp) -> tuple[int, int]:
    """(bytes, count) of what a placement costs, computed from the IR: each trans_data moves
    its physical bytes read + written; each matmul reading non-constant ND operands pays
    their ND2NZ penalty, bytes x (burst / row - 1) for rows (last dim padded to 16) shorter
    than the burst."""
    moved = count = 0
    for op in module.walk():
        if isinstance(op, ge.TransDataOp):
            src, dst = op.input.type, op.output.type
            assert isinstance(src, TensorType) and isinstance(dst, TensorType)
            size = dtypes.itemsize(src.element_type)
            moved += size * (math.prod(ge.physical_shape(src)) + math.prod(ge.physical_shape(dst)))
            count += 1
        elif isinstance(op, ge.MatMulOp):
            penalty = 0
            for value in (op.a, op.b):
                t = value.type
                assert isinstance(t, TensorType)
                if _nz(t) or isinstance(value.owner, ge.ConstOp):
                    continue
                size = dtypes.itemsize(t.element_type)
                row = math.ceil(t.get_shape()[-1] / 16) * 16 * size
                if row < BURST_BYTES:
                    penalty += math.ceil(math.prod(t.get_shape()) * size * (BURST_BYTES / row - 1))
            moved += penalty
            count += penalty > 0
    return moved, count


def _apply_labelling(module: ModuleOp, chosen) -> int | tuple[int, int]:
    """`module` rewritten with its free ops (block order) in FRACTAL_NZ as `chosen` says, by
    the pass's own rewrite and simplification; or the number of free ops if None."""
    from transforms.to_fractal_nz import _Layout, _nz_operands, _Rewrite, _simplify_conversions

    fn = find_function(module)
    layout = _Layout()
    free: list[Operation] = []
    for op in fn.body.block.ops:
        operands = _nz_operands(op)
        if operands is not None:
            layout.operands[op] = operands
            free.append(op)
    if chosen is None:
        return len(free)
    layout.nz.update(op for op, label in zip(free, chosen, strict=True) if label)
    _Rewrite(fn, layout).run()
    _simplify_conversions(module)
    return _cost(module)


def test_cut_is_minimal_against_all_labellings():
    stats: Counter = Counter()

    @settings(max_examples=40)
    @given(cases(max_steps=7))
    def check(case: Case) -> None:
        n = _apply_labelling(case.module.clone(), None)
        assert isinstance(n, int)
        if n > 7:
            return
        m = case.module.clone()
        ToFractalNZPass().apply(CTX, m)
        got = _cost(m)
        best = min(
            _apply_labelling(case.module.clone(), bits)
            for bits in itertools.product([False, True], repeat=n)
        )
        assert got == best, case
        stats["examples"] += 1
        stats["labellings"] += 2**n
        stats["nz"] += any(
            _nz(op.results[0].type) for op in m.walk() if isinstance(op, ge.MatMulOp)
        )

    check()
    print(stats)
    assert stats["examples"] >= 30 and stats["labellings"] >= 400, stats
    assert stats["nz"] >= 5, stats


# --------------------------------------------------------------------------------------
# Directed cases
# --------------------------------------------------------------------------------------


def test_a_weight_is_converted_once_into_zero_padded_fractals():
    """Two matmuls read one [20, 33] f32 weight: one FRACTAL_NZ constant serves both, its
    stored array is the weight's fractals (3 x 2 of 16 x 16) with zero padding."""
    rng = np.random.default_rng(0)
    weight = rng.normal(size=(20, 33)).astype(np.float32)
    b = GraphBuilder("main")
    x = b.input("x", (3, 20), "f32")
    w = b.const(weight)
    y = b.matmul(b.tanh(b.matmul(x, w)), w, transpose_b=True)
    module = b.build([y])
    ToFractalNZPass().apply(CTX, module)
    verify_module(module, "<test>")
    (const,) = [op for op in module.walk() if isinstance(op, ge.ConstOp)]
    t = const.output.type
    assert _nz(t) and tuple(t.get_shape()) == (20, 33)
    stored = const.physical_array()
    assert stored.shape == (3, 2, 16, 16)
    np.testing.assert_array_equal(const.logical_array(), weight)
    np.testing.assert_array_equal(stored, layout.nd_to_fractal_nz(weight, 16))
    assert np.count_nonzero(stored) == weight.size  # every padding lane zero


def test_the_cut_uses_the_default_profiles_burst():
    assert BURST_BYTES == load_profile().burst_bytes
