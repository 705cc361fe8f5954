"""The indexing ops (gather, slice, expand): the reference interpreter against numpy written
here, the simulator's kernels against the interpreter (exact, every dtype), their cost, and an
out-of-range gather index as one located error in the interpreter, the kernel, `ge-run` and
`api.simulate`.
"""

from __future__ import annotations

import numpy as np
import pytest

from ge_dialect import api
from ge_dialect.ir.cost import op_cost
from ge_dialect.ir.interpreter import run_function
from ge_dialect.sim.kernels import Operand, run_kernel
from ge_dialect.sim.kernels.indexing import IndexOutOfRange
from ge_dialect.tools import ge_run
from ge_dialect.utils.errors import GeError

INT64_MAX = 2**63 - 1
DTYPES = ["f16", "f32", "i8", "ui8", "i32", "i64"]


def _arrays(np_dtype, seed=0):
    rng = np.random.default_rng(seed)
    w = (rng.uniform(-100, 100, (10, 4))).astype(np_dtype)
    x = (rng.uniform(-100, 100, (3, 8))).astype(np_dtype)
    return w, x


def _module(text: str):
    module = api.parse(text, "indexing.mlir")
    api.verify(module, "indexing.mlir")
    return module


NP = {
    "f16": np.float16,
    "f32": np.float32,
    "i8": np.int8,
    "ui8": np.uint8,
    "i32": np.int32,
    "i64": np.int64,
}


def _slice_graph(t: str, it: str = "i64") -> str:
    """Gather (negative indices), slices (a negative start, an INT64_MAX end, an end past
    the dim, a step of 3), expand: every op once or twice."""
    return f"""\
func.func @main(%w: tensor<10x4x{t}>, %i: tensor<2x3x{it}>, %x: tensor<3x8x{t}>) ->
    (tensor<2x3x4x{t}>, tensor<2x3x{t}>, tensor<3x2x2x{t}>) {{
  %g = ge.gather %w, %i axis 0 : tensor<10x4x{t}>, tensor<2x3x{it}> -> tensor<2x3x4x{t}>
  %s = ge.slice %x starts [-2, 1] ends [{INT64_MAX}, 100] axes [0, 1] steps [1, 3]
      : tensor<3x8x{t}> -> tensor<2x3x{t}>
  %s2 = ge.slice %s starts [0] ends [1] axes [1] steps [1] : tensor<2x3x{t}> -> tensor<2x1x{t}>
  %e = ge.expand %s2 : tensor<2x1x{t}> -> tensor<3x2x2x{t}>
  func.return %g, %s, %e : tensor<2x3x4x{t}>, tensor<2x3x{t}>, tensor<3x2x2x{t}>
}}
"""


INDICES = np.array([[0, -1, 3], [9, -10, 2]])


@pytest.mark.parametrize("t", DTYPES)
def test_interpreter_against_numpy(t: str):
    w, x = _arrays(NP[t])
    g, s, e = run_function(_module(_slice_graph(t)), [w, INDICES, x])
    np.testing.assert_array_equal(g, w[[[0, 9, 3], [9, 0, 2]]])
    np.testing.assert_array_equal(s, x[1:3, [1, 4, 7]])
    np.testing.assert_array_equal(e, np.broadcast_to(x[1:3, 1:2], (3, 2, 2)))
    assert g.dtype == s.dtype == e.dtype == NP[t]


def _operand(a: np.ndarray) -> Operand:
    return Operand(tuple(a.shape), a.dtype, "ND")


@pytest.mark.parametrize("t", DTYPES)
@pytest.mark.parametrize("it", ["i32", "i64"])
def test_kernels_against_the_interpreter(t: str, it: str):
    w, x = _arrays(NP[t], seed=1)
    indices = INDICES.astype(NP[it])
    module = _module(_slice_graph(t, it))
    g, s, e = run_function(module, [w, indices, x])
    (kg,) = run_kernel(
        "gather", [w, indices], [_operand(w), _operand(indices)], [_operand(g)], {"axis": 0}
    )
    slice_attrs: dict[str, object] = {"starts": [-2, 1], "ends": [INT64_MAX, 100], "axes": [0, 1], "steps": [1, 3]}
    (ks,) = run_kernel("slice", [x], [_operand(x)], [_operand(s)], slice_attrs)
    column = np.ascontiguousarray(s[:, :1])
    (ke,) = run_kernel("expand", [column], [_operand(column)], [_operand(e)], {})
    for actual, expected in ((kg, g), (ks, s), (ke, e)):
        assert actual.dtype == expected.dtype
        np.testing.assert_array_equal(actual, expected)


def test_gather_on_a_middle_axis_with_a_scalar_index():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    text = """\
func.func @main(%x: tensor<2x3x4xf32>, %i: tensor<i32>) -> tensor<2x4xf32> {
  %y = ge.gather %x, %i axis 1 : tensor<2x3x4xf32>, tensor<i32> -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
"""
    (y,) = run_function(_module(text), [x, np.array(-2, np.int32)])
    np.testing.assert_array_equal(y, x[:, 1])
    (k,) = run_kernel(
        "gather",
        [x, np.array(-2, np.int32)],
        [_operand(x), Operand((), np.dtype(np.int32), "ND")],
        [_operand(y)],
        {"axis": 1},
    )
    np.testing.assert_array_equal(k, y)


def test_cost_counts_the_bytes_moved():
    module = _module(_slice_graph("f32"))
    costs = {op.name: op_cost(op) for op in module.walk() if op.name.startswith("ge.")}
    gather = costs["ge.gather"]
    # reads the 6 rows it writes (6 x 4 f32) and the 6 i64 indices, not the whole table
    assert (gather.bytes_in, gather.bytes_out, gather.unit, gather.flops) == (
        6 * 4 * 4 + 6 * 8,
        6 * 4 * 4,
        "vector",
        0,
    )
    expand = costs["ge.expand"]
    assert (expand.bytes_in, expand.bytes_out, expand.unit) == (2 * 4, 12 * 4, "vector")


# ---- an index out of range ----------------------------------------------------------------------

BAD = """\
func.func @main(%w: tensor<5x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  %y = ge.gather %w, %i axis 0 : tensor<5x4xf32>, tensor<3xi32> -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}
"""
BAD_INDICES = np.array([1, -6, 7], np.int32)
REASON = "indices hold -6 at [1], out of range for axis 0 of size 5 (an index must lie in [-5, 5))"


def test_out_of_range_in_the_interpreter():
    with pytest.raises(GeError) as e:
        run_function(_module(BAD), [np.zeros((5, 4), np.float32), BAD_INDICES])
    assert str(e.value) == f"indexing.mlir:2:3: error: 'ge.gather' op {REASON}"


def test_out_of_range_in_the_kernel():
    w = np.zeros((5, 4), np.float32)
    with pytest.raises(IndexOutOfRange) as e:
        run_kernel(
            "gather",
            [w, BAD_INDICES],
            [_operand(w), _operand(BAD_INDICES)],
            [Operand((3, 4), np.dtype(np.float32), "ND")],
            {"axis": 0},
        )
    assert str(e.value) == REASON


def test_out_of_range_in_api_simulate():
    module = _module(BAD)
    api.compile(module, "lower-to-device,plan-memory", name="indexing.mlir")
    with pytest.raises(GeError) as e:
        api.simulate(module, {"arg0": np.zeros((5, 4), np.float32), "arg1": BAD_INDICES})
    assert str(e.value) == (
        "indexing.mlir:2:3: error: 'gather' on stream 0 cannot run on the operands this launch "
        f"gives it: {REASON}"
    )


def test_out_of_range_in_ge_run(tmp_path, capsys):
    source = tmp_path / "bad.mlir"
    source.write_text(BAD)
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg0=np.zeros((5, 4), np.float32), arg1=BAD_INDICES)
    assert ge_run.main([str(source), "--inputs", str(inputs)]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"{source}:2:3: error: 'gather' on stream 0 cannot run on the operands this launch "
        f"gives it: {REASON}\n"
    )


def test_ge_run_check_numbers_end_to_end(tmp_path, capsys):
    source = tmp_path / "ok.mlir"
    source.write_text(_slice_graph("f16", "i32"))
    assert ge_run.main([str(source), "--check-numbers"]) == 0
    out = capsys.readouterr().out
    for i in range(3):
        assert f"check result{i}: max |error| 0 against reference interpreter" in out
