"""FRACTAL_NZ on the simulated NPU: the matmul kernel on stored fractals, trans_data,
end to end through ge-run, and npu launches whose logical types are FRACTAL_NZ.

- The matmul kernel, given the stored (fractal) arrays of FRACTAL_NZ operands, equals the
  reference interpreter run on the same `ge.matmul` (batched, broadcast, transposed, with a
  bias, fp16 and fp32, c0 = 8, mixed ND / FRACTAL_NZ), and its FRACTAL_NZ result has zero
  padding lanes (the bias lands on padding rows before the result is stored).
- trans_data ND <-> FRACTAL_NZ is exact.
- `ge-run --check-numbers` on trans_data(ND->NZ) x2 -> matmul(NZ, NZ -> NZ) ->
  trans_data(NZ->ND) passes, and the lowered launches carry FRACTAL_NZ types.
- An npu launch with FRACTAL_NZ logical types verifies with buffers of the physical shape
  and is refused, with a located error, when a buffer has the logical shape.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers.tolerances import assert_close, assert_exact

from ge_dialect import api
from ge_dialect.ir.interpreter import run_function
from ge_dialect.sim.kernels import Operand, run_kernel
from ge_dialect.tools.ge_run import main as ge_run
from ge_dialect.utils import layout
from ge_dialect.utils.errors import GeError

NAMES = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32"}


def ttype(shape, dtype, fmt, c0=None) -> str:
    """The `ge` tensor type text of a logical shape stored in `fmt`."""
    text = "x".join(map(str, shape)) + "x" + NAMES[np.dtype(dtype)]
    if fmt == "FRACTAL_NZ":
        text += ", #ge.format<FRACTAL_NZ" + (f", c0 = {c0}" if c0 else "") + ">"
    return f"tensor<{text}>"


def operand(shape, dtype, fmt, c0=None) -> Operand:
    dtype = np.dtype(dtype)
    return Operand(tuple(shape), dtype, fmt, c0 or layout.default_c0(dtype.itemsize))


CASES = [
    # a shape, b shape, formats of a, b, result, transpose_a, transpose_b, bias, dtype, c0
    ((17, 20), (20, 33), ("FRACTAL_NZ",) * 3, False, False, False, np.float16, None),
    ((2, 17, 20), (20, 33), ("FRACTAL_NZ",) * 3, False, False, True, np.float16, None),
    ((3, 1, 5, 7), (4, 7, 9), ("FRACTAL_NZ",) * 3, False, False, False, np.float32, None),
    ((20, 17), (33, 20), ("FRACTAL_NZ",) * 3, True, True, True, np.float32, None),
    ((17, 20), (20, 33), ("FRACTAL_NZ",) * 3, False, False, True, np.float32, 8),
    ((20, 17), (20, 33), ("FRACTAL_NZ",) * 3, True, False, False, np.float32, 8),
    ((17, 20), (20, 33), ("ND", "FRACTAL_NZ", "ND"), False, False, True, np.float16, None),
    ((17, 20), (33, 20), ("FRACTAL_NZ", "ND", "FRACTAL_NZ"), False, True, False, np.float32, 8),
    ((16, 32), (32, 16), ("FRACTAL_NZ",) * 3, False, False, True, np.float16, None),
]


def _out_shape(sa, sb, ta, tb):
    m = sa[-1] if ta else sa[-2]
    n = sb[-2] if tb else sb[-1]
    batch = np.broadcast_shapes(tuple(sa[:-2]), tuple(sb[:-2]))
    return (*batch, m, n)


def _module(sa, sb, sy, formats, ta, tb, bias, dtype, c0) -> str:
    fa, fb, fy = formats
    ta_text, tb_text, ty_text = (
        ttype(s, dtype, f, c0) for s, f in zip((sa, sb, sy), formats, strict=True)
    )
    args = [f"%a: {ta_text}", f"%b: {tb_text}"]
    types = [ta_text, tb_text]
    operands = "%a, %b"
    if bias:
        bias_text = f"tensor<{sy[-1]}x{NAMES[np.dtype(dtype)]}>"
        args.append(f"%c: {bias_text}")
        types.append(bias_text)
        operands += " bias %c"
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    return (
        f"func.func @main({', '.join(args)}) -> {ty_text} {{\n"
        f"  %y = ge.matmul {operands}{flags} : {', '.join(types)} -> {ty_text}\n"
        f"  func.return %y : {ty_text}\n}}\n"
    )


@pytest.mark.parametrize("sa,sb,formats,ta,tb,bias,dtype,c0", CASES)
def test_matmul_kernel_on_nz_equals_interpreter(sa, sb, formats, ta, tb, bias, dtype, c0):
    rng = np.random.default_rng(1)
    sy = _out_shape(sa, sb, ta, tb)
    module = api.parse(_module(sa, sb, sy, formats, ta, tb, bias, dtype, c0), "m.mlir")
    api.verify(module)
    a = rng.uniform(-1, 1, sa).astype(dtype)
    b = rng.uniform(-1, 1, sb).astype(dtype)
    logical_in = [a, b] + ([rng.uniform(-1, 1, sy[-1]).astype(dtype)] if bias else [])
    (expected,) = run_function(module, logical_in)
    types = [operand(s, dtype, f, c0) for s, f in zip((sa, sb), formats[:2], strict=True)]
    stored = [layout.to_physical(x, t.fmt, t.c0) for x, t in zip((a, b), types, strict=True)]
    if bias:
        types.append(operand((sy[-1],), dtype, "ND"))
        stored.append(logical_in[2])
    yt = operand(sy, dtype, formats[2], c0)
    attrs = {"transpose_a": ta, "transpose_b": tb, "has_bias": bias}
    (actual,) = run_kernel("matmul", stored, types, [yt], attrs)
    assert actual.shape == yt.physical_shape and actual.dtype == np.dtype(dtype)
    assert_close(layout.to_logical(actual, yt.fmt, yt.shape, yt.c0), expected, dtype)
    # the stored result is exactly the fractal storage of its logical array: zero padding
    assert_exact(
        actual, layout.to_physical(layout.to_logical(actual, yt.fmt, sy, yt.c0), yt.fmt, yt.c0)
    )


def test_nz_matmul_result_padding_is_zero_with_a_bias():
    """A bias is added to every row, padding rows of the fractal included, before the
    result is stored; the stored result has them zero."""
    a = np.ones((3, 4), np.float16)
    b = np.ones((4, 5), np.float16)
    c = np.full(5, 2.0, np.float16)
    types = [operand((3, 4), a.dtype, "FRACTAL_NZ"), operand((4, 5), a.dtype, "FRACTAL_NZ")]
    stored = [layout.to_physical(x, "FRACTAL_NZ") for x in (a, b)] + [c]
    yt = operand((3, 5), a.dtype, "FRACTAL_NZ")
    (y,) = run_kernel("matmul", stored, [*types, operand((5,), a.dtype, "ND")], [yt], {})
    assert y.shape == (1, 1, 16, 16)
    assert np.all(y[0, 0, :3, :5] == 6.0)
    assert np.count_nonzero(y) == 15


@pytest.mark.parametrize("dtype,c0", [(np.float16, None), (np.float32, None), (np.float32, 8)])
def test_trans_data_nd_nz_round_trip_is_exact(dtype, c0):
    rng = np.random.default_rng(2)
    x = rng.uniform(-1, 1, (2, 17, 20)).astype(dtype)
    nd, nz = operand(x.shape, dtype, "ND"), operand(x.shape, dtype, "FRACTAL_NZ", c0)
    (p,) = run_kernel("trans_data", [x], [nd], [nz], {})
    assert_exact(p, layout.to_physical(x, "FRACTAL_NZ", nz.c0))
    (back,) = run_kernel("trans_data", [p], [nz], [nd], {})
    assert_exact(back, x)


NZ_GRAPH = """\
func.func @main(%a: tensor<2x17x20xf16>, %b: tensor<20x33xf16>) -> tensor<2x17x33xf16> {
  %0 = ge.trans_data %a : tensor<2x17x20xf16> -> tensor<2x17x20xf16, #ge.format<FRACTAL_NZ>>
  %1 = ge.trans_data %b : tensor<20x33xf16> -> tensor<20x33xf16, #ge.format<FRACTAL_NZ>>
  %2 = ge.matmul %0, %1 : tensor<2x17x20xf16, #ge.format<FRACTAL_NZ>>, \
tensor<20x33xf16, #ge.format<FRACTAL_NZ>> -> tensor<2x17x33xf16, #ge.format<FRACTAL_NZ>>
  %3 = ge.trans_data %2 : tensor<2x17x33xf16, #ge.format<FRACTAL_NZ>> -> tensor<2x17x33xf16>
  func.return %3 : tensor<2x17x33xf16>
}
"""


def test_ge_run_check_numbers_on_an_nz_matmul(tmp_path, capsys):
    path = tmp_path / "nz.mlir"
    path.write_text(NZ_GRAPH)
    assert ge_run([str(path), "--check-numbers", "--report", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (check,) = report["checks"]
    assert check["within_tolerance"] and check["max_error"] > 0  # fp16 rounding, not a copy
    device = api.parse(NZ_GRAPH, "nz.mlir")
    api.compile(device, "lower-to-device,plan-memory")
    text = api.print_module(device)
    assert (
        'npu.launch "matmul"' in text
        and "memref<2x3x2x16x16xf16>" in text  # the result's fractals: N1 = 3, M1 = 2
        and "tensor<2x17x33xf16, #npu.format<FRACTAL_NZ>>" in text
    )


LAUNCH = """\
func.func @main(%a: memref<17x20xf16> {{npu.input = "a"}}, %y: memref<17x20xf16> \
{{npu.output = "y"}}) attributes {{npu.program}} {{
  %ws = npu.alloc : {buffer}
  npu.launch "trans_data"(%a) -> (%ws) stream 0 priority 0 : (tensor<17x20xf16>) -> \
(tensor<17x20xf16, #npu.format<FRACTAL_NZ>>) cost <vector, flops = 0, bytes_in = 680, \
bytes_out = 2048, blocks = 1> attrs {{}}
  npu.launch "trans_data"(%ws) -> (%y) stream 0 priority 0 : \
(tensor<17x20xf16, #npu.format<FRACTAL_NZ>>) -> (tensor<17x20xf16>) cost <vector, flops = 0, \
bytes_in = 2048, bytes_out = 680, blocks = 1> attrs {{}}
  func.return
}}
"""


def test_npu_launch_with_nz_types_uses_the_physical_buffer():
    module = api.parse(LAUNCH.format(buffer="memref<2x2x16x16xf16>"), "p.mlir")
    api.verify(module)
    bad = api.parse(LAUNCH.format(buffer="memref<17x20xf16>"), "p.mlir")
    with pytest.raises(GeError) as e:
        api.verify(bad)
    assert str(e.value) == (
        "p.mlir:3:3: error: 'npu.launch' op output 0 has type memref<17x20xf16>, expected "
        "memref<2x2x16x16xf16> (the physical shape of tensor<17x20xf16, "
        "#npu.format<FRACTAL_NZ>>)"
    )
