"""Programs that once ran garbage or ended in a traceback are one located error now.

Each reproducer under test/unit/data/device/ runs through ge-run in-process: exit 1, one
`file:line:col: error: ...` line on stderr, no traceback.  The launches are refused by the
launch verifier (`npu.signatures`: a launch is checked against the `ge` op its kernel is
named after), a buffer of more bytes than int64 holds by the buffer verifier, a program
larger than the device's HBM by `sim.run.check_capacity`.  Below the verifier, the kernels
do not trust their operands either: an attribute of the wrong kind is a ValueError, and a
convolution whose shapes disagree never reads outside its input.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest
from helpers.support import ROOT

from ge_dialect import api
from ge_dialect.sim import run
from ge_dialect.sim.executor import execute
from ge_dialect.sim.kernels import Operand, run_kernel
from ge_dialect.sim.kernels.base import integer, ints, real
from ge_dialect.sim.profile import load_profile
from ge_dialect.tools.ge_run import main as ge_run
from ge_dialect.utils.errors import GeError

DATA = os.path.join(ROOT, "test", "unit", "data", "device")


def run_file(capsys, name: str) -> tuple[str, str]:
    """ge-run on a reproducer: (its path, its one line of stderr); exit 1, no traceback."""
    path = os.path.join(DATA, name)
    code = ge_run([path])
    _, err = capsys.readouterr()
    assert "Traceback" not in err
    assert code == 1
    lines = err.splitlines()
    assert len(lines) == 1, err
    return path, lines[0]


# --------------------------------------------------------------------------------------
# The reproducers
# --------------------------------------------------------------------------------------

LAUNCH = "8:5: error: 'npu.launch' op "


@pytest.mark.parametrize(
    ("name", "message"),
    [
        # a conv with pads 0 declaring a 4x4 output: the kernel read outside its input
        (
            "accepted_oob_read_conv_out_spatial_mismatch.mlir",
            LAUNCH + "kernel 'conv2d': result has shape [2, 16, 4, 4], expected [2, 16, 2, 2]",
        ),
        # the NC1HWC0 activation given as the weight: the kernel read outside it
        (
            "accepted_oob_read_conv_weight_is_input.mlir",
            LAUNCH + "kernel 'conv2d': operand 'filter' has format NC1HWC0, expected OIHW or "
            "FRACTAL_Z",
        ),
        (
            "accepted_conv_zero_stride.mlir",
            LAUNCH + "kernel 'conv2d': strides must be 2 positive integers, got [0, 0]",
        ),
        (
            "accepted_conv_weight_cin_mismatch.mlir",
            LAUNCH + "kernel 'conv2d': operand 'filter' has 12 input channels per group, "
            "expected 4 (input channels 4 / groups 1)",
        ),
        (
            "accepted_relu_out_dtype_mismatch.mlir",
            LAUNCH + "kernel 'leaky_relu': result has type tensor<2x48x8x8xf16>, expected "
            "tensor<2x48x8x8xf32> (the input's)",
        ),
        (
            "accepted_conv_groups_float.mlir",
            LAUNCH + "kernel 'conv2d': attribute 'groups' must be an integer (i64), got "
            "1.500000e+00 : f32",
        ),
        (
            "traceback_concat_axis_string.mlir",
            "4:5: error: 'npu.launch' op kernel 'concat': attribute 'axis' must be an integer "
            '(i64), got "one"',
        ),
        (
            "traceback_leaky_alpha_string.mlir",
            LAUNCH + "kernel 'leaky_relu': attribute 'alpha' must be a float (f32), got \"big\"",
        ),
        (
            "traceback_huge_dim_overflow.mlir",
            "4:5: error: 'npu.alloc' op result: memref<4611686018427387904x4xf32> holds "
            "73786976294838206464 bytes, more than a device can address (at most 2^63 - 1 "
            "bytes)",
        ),
    ],
)
def test_reproducer_is_one_located_error(capsys, name: str, message: str):
    path, line = run_file(capsys, name)
    assert line == f"{path}:{message}"


def test_a_program_larger_than_hbm_is_refused_before_allocating(capsys):
    # a 4 PiB npu.alloc: numpy's _ArrayMemoryError in the simulator's memory before
    path, line = run_file(capsys, "traceback_huge_alloc.mlir")
    assert line == (
        f"{path}:10:5: error: the program's peak memory is 4.00 PiB (4503599627481088 bytes: "
        "weights 0, arguments 86016, workspace and other allocations 4503599627395072), more "
        "than the 32.00 GiB (34359738368 bytes) of HBM of 'Ascend 910' (the profile's "
        "memory.hbm_size); the largest live at the peak (at launch 'leaky_relu' on stream 1 "
        f"({path}:10:5)): alloc %big (4.00 PiB, made by 'leaky_relu' at {path}:10:5), "
        f"output \"cat4\" (48.00 KiB, made by 'concat' at {path}:8:5), "
        'output "leakyrelu9" (24.00 KiB)'
    )


# --------------------------------------------------------------------------------------
# HBM capacity
# --------------------------------------------------------------------------------------

PROGRAM = """
func.func @main(%x: memref<64xf32> {npu.input = "x"}, %y: memref<64xf32> {npu.output = "y"})
    attributes {npu.program} {
  %w = npu.weight dense<1.0> : memref<16xf32>
  %a = npu.alloc : memref<128xf32>
  %v = npu.view %a[0] : memref<128xf32> -> memref<64xf32>
  npu.launch "relu"(%x) -> (%v) stream 0 priority 0 : (tensor<64xf32>) -> (tensor<64xf32>)
      cost <vector, flops = 64, bytes_in = 256, bytes_out = 256, blocks = 1> attrs {}
  npu.launch "relu"(%v) -> (%y) stream 0 priority 0 : (tensor<64xf32>) -> (tensor<64xf32>)
      cost <vector, flops = 64, bytes_in = 256, bytes_out = 256, blocks = 1> attrs {}
  func.return
}
"""
# root buffers: x 256 B, y 256 B, w 64 B, a 512 B (the view uses a's bytes) = 1088 B


def _program():
    module = api.parse(PROGRAM, "p.mlir")
    api.verify(module, "p.mlir")
    return api.device_program(module)


def test_a_program_that_fits_runs():
    device = dataclasses.replace(load_profile(), hbm_bytes=1088)
    result = api.simulate(_program(), profile=device)
    np.testing.assert_array_equal(result.outputs["y"], np.maximum(result.inputs["x"], 0))


def test_one_byte_too_many_names_the_total_capacity_and_largest_buffers():
    device = dataclasses.replace(load_profile(), hbm_bytes=1087, name="tiny")
    with pytest.raises(GeError) as info:
        api.simulate(_program(), profile=device, timing_only=True)
    assert str(info.value) == (
        "p.mlir:7:3: error: the program's peak memory is 1.06 KiB (1088 bytes: weights 64, "
        "arguments 512, workspace and other allocations 512), more than the 1.06 KiB (1087 "
        "bytes) of HBM of 'tiny' (the profile's memory.hbm_size); the largest live at the "
        "peak (at launch 'relu' on stream 0 (p.mlir:7:3)): alloc %a (512 B, made by 'relu' "
        'at p.mlir:7:3), input "x" (256 B), output "y" (256 B, made by \'relu\' at '
        "p.mlir:9:3)"
    )


def test_byte_text():
    assert [run.byte_text(n) for n in (0, 1023, 1024, 1536, 32 << 30, 2**52, 2**63 - 1)] == [
        "0 B",
        "1023 B",
        "1.00 KiB",
        "1.50 KiB",
        "32.00 GiB",
        "4.00 PiB",
        "8.00 EiB",
    ]


def test_an_input_the_host_cannot_hold_is_an_error():
    with pytest.raises(GeError) as info:
        run.random_inputs({"x": ((2**60,), np.dtype(np.float32))})
    assert str(info.value) == (
        "error: cannot draw input 'x' of shape [1152921504606846976] (float32): the host "
        "running the simulator cannot allocate it"
    )


def test_an_input_larger_than_the_hbm_is_the_capacity_error_not_a_drawing_error():
    big = "memref<4611686018427387xf32>"
    module = api.parse(
        f'func.func @main(%x: {big} {{npu.input = "x"}}, %y: {big} {{npu.output = "y"}})'
        " attributes {npu.program} {\n"
        '  npu.launch "relu"(%x) -> (%y) stream 0 priority 0 : (tensor<4611686018427387xf32>)'
        " -> (tensor<4611686018427387xf32>) cost <vector, flops = 1, bytes_in = 4,"
        " bytes_out = 4, blocks = 1> attrs {}\n"
        "  func.return\n}\n",
        "big.mlir",
    )
    with pytest.raises(GeError, match=r"^error: the program's peak memory is 32.77 PiB"):
        api.simulate(module)


def test_a_buffer_the_host_cannot_allocate_is_an_error():
    # below the HBM check (executor.execute takes no profile): 1 EiB of zeros
    module = api.parse(
        PROGRAM.replace("memref<128xf32>", "memref<288230376151711744xf32>"), "p.mlir"
    )
    api.verify(module, "p.mlir")
    program = api.device_program(module)
    with pytest.raises(GeError) as info:
        execute(program, {"x": np.zeros(64, np.float32)})
    assert str(info.value) == (
        "p.mlir:5:3: error: cannot allocate the 1152921504606846976 bytes of alloc buffer 3 "
        "on the host running the simulator"
    )


# --------------------------------------------------------------------------------------
# Kernels trust nothing
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("read", "message"),
    [
        (lambda a: integer(a, "axis", 0), "attribute 'axis' must be an integer, got 'one'"),
        (lambda a: integer(a, "flag", 0), "attribute 'flag' must be an integer, got True"),
        (lambda a: integer(a, "groups", 1), "attribute 'groups' must be an integer, got 1.5"),
        (lambda a: real(a, "alpha", 0.01), "attribute 'alpha' must be a number, got 'big'"),
        (
            lambda a: ints(a, "axis", (0,)),
            "attribute 'axis' must be a list of integers, got 'one'",
        ),
        (
            lambda a: ints(a, "pads", (0,)),
            "attribute 'pads' must be a list of integers, got [0, 'x']",
        ),
    ],
)
def test_attribute_readers_raise_value_errors(read, message: str):
    attrs = {"axis": "one", "flag": True, "groups": 1.5, "alpha": "big", "pads": [0, "x"]}
    with pytest.raises(ValueError) as info:
        read(attrs)
    assert str(info.value) == message


def test_attribute_readers_take_what_a_verified_launch_gives():
    attrs = {"axis": np.int64(2), "alpha": 0.1, "count": 3, "pads": [1, np.int64(2)]}
    assert integer(attrs, "axis", 0) == 2 and integer(attrs, "missing", 7) == 7
    assert real(attrs, "alpha", 0.0) == float(np.float32(0.1)) and real(attrs, "count", 0) == 3
    assert ints(attrs, "pads", ()) == (1, 2) and ints(attrs, "missing", [4]) == (4,)


F32 = np.dtype(np.float32)


@pytest.mark.parametrize(
    ("fmt", "padded"),
    [("NCHW", (2, 4, 4, 4)), ("NC1HWC0", (2, 1, 4, 4, 4))],  # NC1HWC0: 4 of 16 lanes kept
)
def test_a_conv_whose_output_shape_is_wrong_reads_nothing_outside_its_input(fmt, padded):
    # the reproducer's launch given straight to the kernel: pads 0, a 4x4 output claimed
    x = np.ones((2, 4, 4, 4), F32) if fmt == "NCHW" else np.ones((2, 1, 4, 4, 16), F32)
    xt = Operand((2, 4, 4, 4), F32, fmt)
    wt = Operand((16, 4, 3, 3), F32, "NCHW")
    yt = Operand((2, 16, 4, 4), F32, fmt)
    with pytest.raises(ValueError) as info:
        run_kernel("conv2d", [x, np.ones((16, 4, 3, 3), F32)], [xt, wt], [yt], {})
    # H (axis 2): 4 rows of 3-row windows reach 6 rows of the 4 there are
    assert str(info.value) == (
        f"conv: the windows reach 6 elements along axis 2 of the padded input {padded}, which has 4"
    )


def test_a_conv_with_zero_strides_is_refused():
    x, w = np.ones((1, 1, 4, 4), F32), np.ones((1, 1, 1, 1), F32)
    t = Operand((1, 1, 4, 4), F32, "NCHW")
    with pytest.raises(ValueError) as info:
        run_kernel(
            "conv2d", [x, w], [t, Operand((1, 1, 1, 1), F32, "NCHW")], [t], {"strides": [0, 0]}
        )
    assert str(info.value) == (
        "conv: strides [0, 0] and dilations [1, 1] must be positive and the output 4x4 not empty"
    )
