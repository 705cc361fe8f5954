"""Symmetric memory: `plan-memory` puts the buffers collectives read and write at one offset
on every rank (a communication region at the start of each rank's workspace), and
`sim.run.check_symmetric` (run by `api.simulate_ranks` and ge-run) refuses rank programs
where they are not.

- A tensor-parallel MLP on 2 and 4 ranks, a pipeline-parallel one on 2, and tensor
  parallel inside data parallel on 4 (a buffer two groups' collectives share): every
  collective's planned operands (a send's input and its receive's output) sit at one
  offset on every member, inside the region, and the numbers stay the reference's.
- A rank program whose collective buffer was moved by hand: one located error naming the
  collective, the ranks and their offsets (API and ge-run).
- A program without `ge.shard` is planned as before: no region.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from helpers.support import assert_close
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, i64

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.ir.dialects import npu
from ge_dialect.sim.program import VIEW, Program, python_value
from ge_dialect.tools.ge_run import main
from ge_dialect.utils.errors import GeError

LOWER = "lower-to-device,plan-memory"


def mlp(batch=4, d=32, hidden=64):
    """x -> matmul(W1) -> relu -> matmul(W2): Megatron's MLP block, split by `shard`."""
    rng = np.random.default_rng(0)
    b = GraphBuilder("main")
    x = b.input("x", [batch, d])
    w1 = b.const(rng.normal(0, 1 / math.sqrt(d), (d, hidden)).astype(np.float32))
    w2 = b.const(rng.normal(0, 1 / math.sqrt(hidden), (hidden, d)).astype(np.float32))
    y = b.matmul(b.relu(b.matmul(x, w1)), w2, name="y")
    return b.build([y]), {"x": rng.uniform(-1, 1, (batch, d)).astype(np.float32)}


def compiled(options: str, pipeline: str = LOWER):
    module, inputs = mlp()
    m = module.clone()
    api.compile(m, f"shard{{{options}}},{pipeline}")
    return module, m, inputs


def comm_operands(program: Program) -> list[tuple[tuple, int]]:
    """Per collective operand: its pairing key and its byte offset in the workspace (views
    of the workspace only).  Written apart from plan-memory and the simulator's check: the
    k-th collective of a group meets the k-th on every member; a send meets the receive of
    the same (group, k-th message between that pair)."""
    seq: dict[str, int] = {}
    out = []
    for task in program.tasks:
        if not task.kernel.startswith("hcom_"):
            continue
        group = task.attrs["group"]
        if task.kernel in ("hcom_send", "hcom_receive"):
            key: tuple = (group, "message", seq.setdefault(group + "/p2p", 0))
            seq[group + "/p2p"] += 1
            operands = [*task.inputs, *task.outputs]
        else:
            key = (group, seq.setdefault(group, 0))
            seq[group] += 1
            operands = [*task.inputs, *task.outputs]
        for i, index in enumerate(operands):
            buffer = program.buffers[index]
            if buffer.kind == VIEW:
                out.append(((*key, i), buffer.offset))
    return out


# ranks=4 tp=2: the all-reduce's output in group "tp<d>" is the input of the all-gather of
# group "dp<t>": one buffer of two groups, at one offset on all four ranks
@pytest.mark.parametrize(
    "options", ["ranks=2 mode=tensor", "ranks=4 mode=tensor", "ranks=2 pp=2", "ranks=4 tp=2"]
)
def test_collective_buffers_at_one_offset_on_every_rank(options):
    module, m, inputs = compiled(options)
    programs = [p for p, _ in api.rank_programs(m)]
    offsets: dict[tuple, set[int]] = {}
    for p in programs:
        region = p.memory["comm_bytes"]
        assert p.memory["comm_offset"] == 0 and region > 0
        for key, offset in comm_operands(p):
            assert 0 <= offset < region  # inside the communication region
            offsets.setdefault(key, set()).add(offset)
    assert offsets  # the MLP's collectives have planned buffers
    assert all(len(o) == 1 for o in offsets.values()), offsets
    result = api.simulate_ranks(m, inputs)
    assert_close(result.outputs["y"], api.reference(module, inputs)["y"], np.dtype(np.float32))


def test_collectives_on_streams_keep_one_offset():
    _, m, _ = compiled("ranks=4 mode=tensor", f"assign-streams{{mode=auto}},{LOWER}")
    offsets: dict[tuple, set[int]] = {}
    for p, _ in api.rank_programs(m):
        for key, offset in comm_operands(p):
            offsets.setdefault(key, set()).add(offset)
    assert offsets and all(len(o) == 1 for o in offsets.values())


def moved(m) -> str:
    """Moves rank 1's all-reduce input to the byte after the region; returns that op's
    location."""
    rank1 = [f for f in m.walk() if isinstance(f, func.FuncOp)][1]
    (reduce,) = [
        op
        for op in rank1.walk()
        if isinstance(op, npu.LaunchOp) and op.kernel.data == "hcom_all_reduce"
    ]
    view = reduce.inputs[0].owner
    assert isinstance(view, npu.ViewOp)
    region = python_value(rank1.attributes["npu.memory"])["comm_bytes"]
    view.properties["offset"] = IntegerAttr(region, i64)
    return str(reduce.location)


MESSAGE = (
    r"error: symmetric memory: input 0 of all_reduce 0 of group 'tp' \('hcom_all_reduce'\) "
    r"is not at one offset on every member: rank 0 at 0x0, rank 1 at 0x200$"
)


def test_check_refuses_a_buffer_moved_by_hand():
    _, m, inputs = compiled("ranks=2 mode=tensor")
    moved(m)
    with pytest.raises(GeError) as e:
        api.simulate_ranks(m, inputs)
    assert re.fullmatch(r"\S+\.py:\d+:\d+: " + MESSAGE, str(e.value)), str(e.value)


def test_ge_run_refuses_a_buffer_moved_by_hand(tmp_path, capsys):
    _, m, _ = compiled("ranks=2 mode=tensor")
    moved(m)
    path = tmp_path / "moved.mlir"
    path.write_text(api.print_module(m))
    assert main([str(path), "--no-race-check"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.fullmatch(rf"{re.escape(str(path))}:\d+:\d+: " + MESSAGE, err[0])


def test_program_without_ranks_has_no_region():
    module, _ = mlp()
    m = module.clone()
    api.compile(m, "fuse," + LOWER)
    program = api.device_program(m)
    assert set(program.memory) == {
        "peak",
        "no_reuse",
        "sequential_bound",
        "stream_bound",
        "buffers",
        "optimal",
    }
