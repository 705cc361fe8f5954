"""`ge.scatter_update` (the KV-cache update): the simulator's kernel and the reference
interpreter against a numpy loop written here (exact, several dtypes, ranks, axes and update
lengths), the kernel in place (only the update's positions are written) and out of place,
the cost (only the update's bytes move), and a position out of range as one located error
in the interpreter, the kernel and `api.simulate`.
"""

from __future__ import annotations

import numpy as np
import pytest

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir.cost import op_cost
from ge_dialect.ir.dialects import ge
from ge_dialect.ir.interpreter import run_function
from ge_dialect.sim.kernels import Operand, run_kernel
from ge_dialect.sim.kernels.indexing import IndexOutOfRange
from ge_dialect.utils.errors import GeError

# (cache shape, axis, K): a decode step's [B, N, S, D] along S, several positions, a rank-2
# and a rank-3 cache, a middle axis, the whole axis
CASES = [
    ((1, 2, 16, 8), 2, 1),
    ((3, 2, 16, 8), 2, 3),
    ((2, 6), 1, 1),
    ((2, 5, 3), 1, 2),
    ((2, 4, 3), 2, 3),
]
DTYPES = [np.float32, np.float16, np.int8]


def expected(cache: np.ndarray, positions: np.ndarray, update: np.ndarray, axis: int):
    """The updated cache, one element at a time."""
    out = cache.copy()
    for index in np.ndindex(*update.shape):
        b, k = index[0], index[axis]
        target = list(index)
        target[axis] = int(positions[b]) + k
        out[tuple(target)] = update[index]
    return out


def _data(shape, axis, k, dtype, seed=0):
    rng = np.random.default_rng(seed)
    cache = rng.uniform(-100, 100, shape).astype(dtype)
    update_shape = list(shape)
    update_shape[axis] = k
    update = rng.uniform(-100, 100, update_shape).astype(dtype)
    positions = rng.integers(0, shape[axis] - k + 1, shape[0]).astype(np.int64)
    return cache, positions, update


def _operand(a: np.ndarray) -> Operand:
    return Operand(a.shape, a.dtype, "ND")


def _run(cache, positions, update, axis, outputs=None):
    return run_kernel(
        "scatter_update",
        [cache, positions, update],
        [_operand(cache), _operand(positions), _operand(update)],
        [_operand(cache)],
        {"axis": axis},
        outputs,
    )


def _module(cache, positions, update, axis):
    b = GraphBuilder("main", locate=False)
    c = b.input("cache", list(cache.shape), cache.dtype)
    p = b.input("pos", list(positions.shape), positions.dtype)
    u = b.input("update", list(update.shape), update.dtype)
    return b.build([b.scatter_update(c, p, u, axis)], ["y"])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "axis", "k"), CASES)
def test_kernel_and_interpreter_against_numpy(shape, axis, k, dtype):
    cache, positions, update = _data(shape, axis, k, dtype)
    want = expected(cache, positions, update, axis)
    (got,) = _run(cache, positions, update, axis)
    assert got.dtype == want.dtype and np.array_equal(got, want)
    (ref,) = run_function(_module(cache, positions, update, axis), [cache, positions, update])
    assert ref.dtype == want.dtype and np.array_equal(ref, want)


def test_in_place_on_the_cache_memory():
    # the launch's input and output are two views of one buffer (what --lower-to-device
    # makes): the kernel writes the update there and returns the output it was given
    cache, positions, update = _data((3, 2, 16, 8), 2, 3, np.float16)
    want = expected(cache, positions, update, 2)
    memory = cache.copy()
    (out,) = _run(memory.view(), positions, update, 2, outputs=[memory])
    assert out is memory and np.array_equal(memory, want)


def test_out_of_place_output_buffer_gets_the_whole_cache():
    # another output buffer: the cache is copied there first (its values, not the stale
    # contents of the output), then the update written
    cache, positions, update = _data((2, 5, 3), 1, 2, np.float32)
    out = np.full_like(cache, np.nan)
    _run(cache, positions, update, 1, outputs=[out])
    assert np.array_equal(out, expected(cache, positions, update, 1))
    (new,) = _run(cache, positions, update, 1)  # no output buffer: a new array
    assert not np.shares_memory(new, cache) and np.array_equal(new, out)


def test_cost_moves_only_the_update():
    cache, positions, update = _data((1, 2, 16, 8), 2, 1, np.float32)
    module = _module(cache, positions, update, 2)
    (op,) = [o for o in module.walk() if isinstance(o, ge.ScatterUpdateOp)]
    c = op_cost(op)
    assert (c.flops, c.bytes_in, c.bytes_out, c.unit, c.blocks) == (0, 64 + 8, 64, "vector", 1)


BAD = """\
func.func @main(%c: tensor<2x4xf32>, %p: tensor<2xi64>, %u: tensor<2x2xf32>) -> tensor<2x4xf32> {
  %y = ge.scatter_update %c, %p, %u axis 1
      : tensor<2x4xf32>, tensor<2xi64>, tensor<2x2xf32> -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
"""
REASON = (
    "indices hold 3 at [1], out of range for 2 positions along axis 1 of size 4 (a position "
    "must lie in [0, 2])"
)
BAD_POSITIONS = np.array([0, 3], np.int64)


def _bad_module():
    module = api.parse(BAD, "cache.mlir")
    api.verify(module, "cache.mlir")
    return module


def test_out_of_range_in_the_interpreter():
    with pytest.raises(GeError) as e:
        run_function(
            _bad_module(),
            [np.zeros((2, 4), np.float32), BAD_POSITIONS, np.ones((2, 2), np.float32)],
        )
    assert str(e.value) == f"cache.mlir:2:3: error: 'ge.scatter_update' op {REASON}"


@pytest.mark.parametrize("position", [3, -1])
def test_out_of_range_in_the_kernel(position):
    cache = np.zeros((2, 4), np.float32)
    before = cache.copy()
    positions = np.array([0, position], np.int64)
    with pytest.raises(IndexOutOfRange) as e:
        _run(cache, positions, np.ones((2, 2), np.float32), 1, outputs=[cache])
    assert str(e.value) == REASON.replace("hold 3", f"hold {position}")
    assert np.array_equal(cache, before)  # nothing written


def test_out_of_range_in_api_simulate():
    module = _bad_module()
    api.compile(module, "lower-to-device,plan-memory", name="cache.mlir")
    inputs = {"arg0": np.zeros((2, 4), np.float32), "arg1": BAD_POSITIONS}
    inputs["arg2"] = np.ones((2, 2), np.float32)
    with pytest.raises(GeError) as e:
        api.simulate(module, inputs)
    assert str(e.value) == (
        "cache.mlir:2:3: error: 'scatter_update' on stream 0 cannot run on the operands this "
        f"launch gives it: {REASON}"
    )
