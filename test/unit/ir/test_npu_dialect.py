"""The `npu` dialect from Python: building a program with the op constructors, whole-program
verification, weight data (dense, external, elided), the attributes it shares with `ge`,
moving weights with `ge_dialect.ir.weights`, and its layering (it never loads `ge`)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from helpers.support import ROOT
from xdsl.builder import ImplicitBuilder
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
)
from xdsl.ir import Block, Region

from ge_dialect.ir import encodings, weights
from ge_dialect.ir.dialects import ge, npu
from ge_dialect.ir.verify import verify_module
from ge_dialect.utils.errors import GeError

COST = npu.CostAttr("vector", 16, 64, 64, 1)
BUFFERS = (MemRefType(f32, [4]), MemRefType(f32, [4]))


def program(build, arg_types=BUFFERS, roles=("input", "output")):
    """A module with one device program `@main` whose body `build(args)` fills."""
    block = Block(arg_types=list(arg_types))
    with ImplicitBuilder(block):
        build(block.args)
        func.ReturnOp()
    fn = func.FuncOp("main", FunctionType.from_lists(list(arg_types), []), Region(block))
    fn.arg_attrs = ArrayAttr(
        [DictionaryAttr({f"npu.{role}": StringAttr(f"{role}{i}")}) for i, role in enumerate(roles)]
    )
    fn.attributes[npu.PROGRAM] = UnitAttr()
    return ModuleOp([fn]), fn


def relu(x, y, stream=0):
    t = TensorType(f32, [4])
    return npu.LaunchOp("relu", [x], [y], stream=stream, in_types=[t], out_types=[t], cost=COST)


# --------------------------------------------------------------------------------------
# Building and verifying programs
# --------------------------------------------------------------------------------------


def test_a_program_built_with_the_constructors_verifies():
    def body(args):
        x, y = args
        w = npu.WeightOp(ge.dense_from_numpy(np.arange(4, dtype=np.float32), f32))
        b = npu.AllocOp(MemRefType(f32, [4]))
        v = npu.ViewOp(b.result, 8, MemRefType(f32, [2]))
        t = TensorType(f32, [4])
        npu.LaunchOp(
            "add",
            [x, w.result],
            [b.result],
            stream=0,
            priority=-1,
            in_types=[t, t],
            out_types=[t],
            cost=COST,
            attrs={},
        )
        npu.RecordOp(0, 0)
        npu.WaitOp(0, 1)
        npu.CopyOp(b.result, y, 1, COST)
        assert npu.root_buffer(v.result) is b.result

    module, fn = program(body)
    verify_module(module, "built")
    npu.verify_program(fn)
    launch = next(op for op in fn.walk() if isinstance(op, npu.LaunchOp))
    assert launch.properties["operandSegmentSizes"] is not None
    assert launch.kernel.data == "add" and len(launch.inputs) == 2 and len(launch.outputs) == 1
    assert launch.attrs.data == {}


def test_gaps_in_event_and_stream_ids_are_located_errors():
    module, _ = program(lambda args: (npu.RecordOp(0, 0), npu.WaitOp(2, 0)))
    with pytest.raises(
        GeError,
        match=r"'npu.wait' op event ids must be numbered 0\.\.n-1: "
        r"event 2 is used but 1 is not",
    ):
        verify_module(module, "gap.mlir")
    module, _ = program(lambda args: relu(args[0], args[1], stream=1))
    with pytest.raises(GeError, match="stream 1 is used but 0 is not"):
        verify_module(module, "gap.mlir")


def test_a_wait_without_record_is_not_the_verifiers_business():
    module, fn = program(lambda args: (npu.WaitOp(0, 1), relu(args[0], args[1])))
    verify_module(module)  # the simulator reports the deadlock


def test_argument_rules():
    module, _ = program(lambda args: None, roles=("input", "input"))
    verify_module(module)
    module, fn = program(lambda args: None)
    fn.arg_attrs = ArrayAttr(
        [
            DictionaryAttr({"npu.input": StringAttr("x")}),
            DictionaryAttr({"npu.output": StringAttr("x")}),
        ]
    )
    verify_module(module)  # a graph returning its input `x` as its output `x`
    module, _ = program(lambda args: None, roles=("output", "input"))
    with pytest.raises(GeError, match="argument 1 is an input after output argument 0"):
        verify_module(module)


def test_a_launch_must_not_write_an_input_or_a_weight():
    module, _ = program(lambda args: relu(args[1], args[0]))
    with pytest.raises(GeError, match='output 0 is the program input "input0", which is read-only'):
        verify_module(module)


def test_a_program_verifies_standalone_without_the_module():
    _, fn = program(lambda args: (npu.RecordOp(1, 0),))
    with pytest.raises(GeError, match="event 1 is used but 0 is not"):
        npu.verify_program(fn)


# --------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------


def test_physical_array_of_a_dense_weight():
    data = np.array([[1.5, -2.0], [0.25, 3.0]], dtype=np.float32)
    w = npu.WeightOp(ge.dense_from_numpy(data, f32))
    assert w.buffer_type == MemRefType(f32, [2, 2])
    np.testing.assert_array_equal(w.physical_array(), data)
    one = ge.dense_from_numpy(np.array([7.0], np.float32), f32)
    splat = npu.WeightOp(type(one)(TensorType(f32, [3, 2]), one.data))  # one element stored
    np.testing.assert_array_equal(splat.physical_array(), np.full((3, 2), 7.0, np.float32))


def test_physical_array_of_an_external_weight_is_memory_mapped(tmp_path):
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    (tmp_path / "w.bin").write_bytes(b"\0" * 64 + data.tobytes())
    module, fn = program(
        lambda args: npu.WeightOp(
            npu.ExternalDataAttr("w.bin", 64, data.nbytes), MemRefType(f32, [2, 3])
        )
    )
    verify_module(module)
    weight = next(op for op in fn.walk() if isinstance(op, npu.WeightOp))
    npu.set_data_dir(module, str(tmp_path))  # relative paths: against the IR file's directory
    array = weight.physical_array()
    assert isinstance(array, np.memmap) and not array.flags.writeable
    np.testing.assert_array_equal(array, data)
    npu.set_data_dir(module, str(tmp_path / "elsewhere"))
    with pytest.raises(GeError, match="'npu.weight' op cannot open external data"):
        weight.physical_array()


def test_an_elided_weight_cannot_be_read():
    module, fn = program(lambda args: npu.WeightOp(npu.ElidedAttr(), MemRefType(f32, [4])))
    verify_module(module)
    weight = next(op for op in fn.walk() if isinstance(op, npu.WeightOp))
    assert not weight.is_readable()
    with pytest.raises(GeError, match="'npu.weight' op constant data was elided"):
        weight.physical_array()


def test_elide_and_externalize_treat_npu_weights_as_constants(tmp_path):
    big = np.arange(40, dtype=np.float32)
    module, fn = program(
        lambda args: (
            npu.WeightOp(ge.dense_from_numpy(big, f32)),
            npu.WeightOp(ge.dense_from_numpy(big[:2], f32)),
        )
    )
    writer = weights.ExternalWriter(str(tmp_path / "m.weights"), str(tmp_path))
    assert weights.externalize(module, writer, larger_than=8) == 1
    writer.close()
    large, small = (op for op in fn.walk() if isinstance(op, npu.WeightOp))
    assert large.value == npu.ExternalDataAttr("m.weights", 0, big.nbytes)
    npu.set_data_dir(module, str(tmp_path))
    np.testing.assert_array_equal(large.physical_array(), big)
    verify_module(module)
    (tmp_path / "sub").mkdir()
    weights.rebase_external_paths(module, str(tmp_path / "sub"))
    assert large.value == npu.ExternalDataAttr(os.path.join("..", "m.weights"), 0, big.nbytes)
    np.testing.assert_array_equal(large.physical_array(), big)
    assert weights.has_elided(module) is None
    weights.elide(module, larger_than=1)
    assert large.value == npu.ElidedAttr() and small.value == npu.ElidedAttr()
    assert weights.has_elided(module) is large


# --------------------------------------------------------------------------------------
# Attributes shared with `ge`
# --------------------------------------------------------------------------------------


def test_format_attributes_share_one_implementation_and_compare_by_value():
    assert issubclass(ge.FormatAttr, encodings.FormatEncoding)
    assert issubclass(npu.FormatAttr, encodings.FormatEncoding)
    assert ge.Format is npu.Format is encodings.Format
    assert ge.physical_shape is npu.physical_shape
    assert npu.FormatAttr("NC1HWC0", 8) == npu.FormatAttr("NC1HWC0", 8)
    assert npu.FormatAttr("NC1HWC0", 8) != npu.FormatAttr("NC1HWC0")
    assert npu.FormatAttr("NC1HWC0") != ge.FormatAttr("NC1HWC0")
    assert ge.ExternalDataAttr("a", 0, 4) != ge.ExternalDataAttr("a", 0, 8)
    assert str(npu.FormatAttr("FRACTAL_Z", 8, 2)) == "#npu.format<FRACTAL_Z, c0 = 8, groups = 2>"


def test_physical_shapes_and_logical_types():
    t = TensorType(f32, [1, 17, 4, 4], npu.FormatAttr("NC1HWC0"))
    assert npu.physical_shape(t) == (1, 2, 4, 4, 16)
    assert npu.buffer_type(t) == MemRefType(f32, [1, 2, 4, 4, 16])
    g = ge.with_format(TensorType(f32, [16, 3, 3, 3]), "FRACTAL_Z")
    assert npu.logical_type(g) == TensorType(f32, [16, 3, 3, 3], npu.FormatAttr("FRACTAL_Z"))
    assert npu.physical_shape(npu.logical_type(g)) == ge.physical_shape(g) == (9, 1, 16, 16)


# --------------------------------------------------------------------------------------
# Layers
# --------------------------------------------------------------------------------------


def test_npu_never_loads_ge_stream_transforms_or_sim():
    """Importing `npu` loads neither the `ge` and `stream` dialects (a launch's signature
    finds its `ge` op through the registry, when a launch is first verified), nor the
    simulator, nor the passes."""
    code = (
        "import sys, ge_dialect.ir.dialects.npu\n"
        "bad = sorted(m for m in sys.modules if m.startswith(("
        "'ge_dialect.ir.dialects.ge', 'ge_dialect.ir.dialects.stream', 'ge_dialect.sim', "
        "'transforms')))\n"
        "print(bad)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
