"""The device's HBM capacity (`sim.run.check_capacity`): a program whose peak (arguments,
weights, the planned workspace) exceeds the profile's `memory.hbm_size` is one located
error naming the peak, the capacity and the largest buffers live at the peak with the op
that makes each; a program that fits runs; every rank of a multi-rank run is checked (the
error names the rank); ge-run prints the error as one line, exits 1 and leaves
`--outputs` untouched.

The profiles are the shipped Ascend 910 profile, copied with a small `hbm_size`.  The
expected peak is computed here from the IR (the arguments' and weights' types and
`plan-memory`'s recorded workspace size), not from the simulator's buffers.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from helpers.support import ROOT
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, MemRefType
from xdsl.ir import Attribute

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir.dialects import npu
from ge_dialect.tools.ge_run import main
from ge_dialect.utils.errors import GeError

PROFILE = os.path.join(ROOT, "ge_dialect", "sim", "profiles", "ascend910.json")
PIPELINE = "lower-to-device,plan-memory"


def mlp(d=32, hidden=64, batch=8):
    rng = np.random.default_rng(0)
    b = GraphBuilder("main")
    x = b.input("x", [batch, d])
    w1 = b.const(rng.normal(0, 0.2, (d, hidden)).astype(np.float32))
    w2 = b.const(rng.normal(0, 0.2, (hidden, d)).astype(np.float32))
    y = b.matmul(b.relu(b.matmul(x, w1)), w2, name="y")
    return b.build([y])


def tiny_profile(tmp_path: Path, hbm_bytes: int, name: str = "tiny") -> str:
    """The shipped profile with `hbm_size` = `hbm_bytes` bytes."""
    with open(PROFILE) as f:
        data = json.load(f)
    data["memory"]["hbm_size"] = f"{hbm_bytes} B"
    data["name"] = name
    path = tmp_path / f"{name}-{hbm_bytes}.json"
    path.write_text(json.dumps(data, indent=2))
    return str(path)


def _bytes(t: Attribute) -> int:
    assert isinstance(t, MemRefType)
    width = {"f32": 4, "f16": 2, "i32": 4, "i64": 8, "i8": 1}[str(t.element_type)]
    return math.prod(t.get_shape()) * width


def ir_peak(module) -> tuple[int, int, int]:
    """(weights, arguments, workspace) bytes of the one npu program in `module`, read
    from its IR: the `npu.weight` results, the function's arguments, `npu.memory.peak`."""
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    weights = sum(_bytes(op.results[0].type) for op in fn.walk() if isinstance(op, npu.WeightOp))
    args = sum(_bytes(a.type) for a in fn.args)
    memory = fn.attributes["npu.memory"]
    assert isinstance(memory, DictionaryAttr)
    peak = memory.data["peak"]
    assert isinstance(peak, IntegerAttr)
    workspace = peak.value.data
    return weights, args, workspace


def compiled(pipeline=PIPELINE):
    module = mlp()
    api.compile(module, pipeline)
    return module


def test_a_program_at_exactly_its_peak_runs_and_one_byte_less_is_refused(tmp_path):
    module = compiled()
    weights, args, workspace = ir_peak(module)
    peak = weights + args + workspace
    result = api.simulate(module, profile=tiny_profile(tmp_path, peak), timing_only=True)
    assert result.report is not None
    with pytest.raises(GeError) as info:
        api.simulate(module, profile=tiny_profile(tmp_path, peak - 1), timing_only=True)
    text = str(info.value)
    assert "\n" not in text
    assert (
        f"error: the program's peak memory is {peak / 1024:.2f} KiB ({peak} bytes: weights "
        f"{weights}, arguments {args}, workspace and other allocations {workspace}), more "
        f"than the {(peak - 1) / 1024:.2f} KiB ({peak - 1} bytes) of HBM of 'tiny' (the "
        "profile's memory.hbm_size); the largest live at the peak (at launch "
    ) in text
    # located at a task of the program (the builder's locations are the graph's op names)
    assert text.index(": error:") > 0
    # three buffers, the planned ones with the launch that makes them
    listed = text.split("the largest live at the peak")[1]
    assert listed.count(" B") + listed.count("KiB") == 3
    assert "made by 'matmul'" in listed


def test_an_unplanned_program_counts_every_allocation(tmp_path):
    module = compiled("lower-to-device")
    fn = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    allocs = [op for op in fn.walk() if isinstance(op, npu.AllocOp)]
    assert len(allocs) >= 2
    total = sum(_bytes(a.results[0].type) for a in allocs)
    total += sum(_bytes(a.type) for a in fn.args)
    total += sum(_bytes(op.results[0].type) for op in fn.walk() if isinstance(op, npu.WeightOp))
    api.simulate(module, profile=tiny_profile(tmp_path, total), timing_only=True)
    with pytest.raises(GeError, match=rf"peak memory is .* \({total} bytes: "):
        api.simulate(module, profile=tiny_profile(tmp_path, total - 1), timing_only=True)


def test_every_rank_is_checked_and_named(tmp_path):
    from ge_dialect.sim.program import find_program, read_program

    small, big = compiled(), mlp(d=32, hidden=256)
    api.compile(big, PIPELINE)
    programs = [read_program(find_program(m)) for m in (small, big)]
    sizes = [sum(b.nbytes for b in p.buffers if b.root == b.index) for p in programs]
    assert sizes[0] < sizes[1]
    profile = tiny_profile(tmp_path, sizes[0])
    with pytest.raises(GeError, match=r": error: rank 1: the program's peak memory is "):
        api.simulate_ranks(programs, profile=profile, timing_only=True)


def test_a_sharded_model_checks_each_rank(tmp_path):
    module = mlp()
    api.compile(module, f"shard{{ranks=2 mode=tensor}},{PIPELINE}")
    with pytest.raises(GeError, match=r"^[^\n]*:\d+:\d+: error: rank 0: the program's peak"):
        api.simulate_ranks(module, profile=tiny_profile(tmp_path, 1024), timing_only=True)


def test_ge_run_prints_one_line_and_leaves_outputs_untouched(tmp_path, capsys):
    source = tmp_path / "m.mlir"
    source.write_text(api.print_module(mlp()))
    outputs = tmp_path / "out.npz"
    outputs.write_bytes(b"before")
    profile = tiny_profile(tmp_path, 1024)
    code = main([str(source), "--profile", profile, "--outputs", str(outputs)])
    out, err = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert ": error: the program's peak memory is " in lines[0]
    assert "more than the 1.00 KiB (1024 bytes) of HBM of 'tiny'" in lines[0]
    assert outputs.read_bytes() == b"before"
    code = main([str(source), "--ranks", "2", "--profile", profile, "--outputs", str(outputs)])
    _, err = capsys.readouterr()
    assert code == 1 and len(err.splitlines()) == 1, err
    assert ": error: rank 0: the program's peak memory is " in err
    assert outputs.read_bytes() == b"before"
