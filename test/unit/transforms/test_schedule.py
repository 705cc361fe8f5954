"""`schedule` (GE's priority topological sort) and `assign-streams{comm-streams=2}`.

- `schedule` moves a collective whose inputs are ready early to the front, and on a crafted
  graph (a long compute branch written before the collective's short one) the simulated
  step on 2 ranks gets shorter; the numbers do not change.
- On a 2- and 4-rank tensor-parallel MLP the outputs are bit-identical with and without
  `schedule` (race checker on and clean).
- `comm-streams=2`: the collectives of a group alternate over two comm streams; a 2- and
  4-rank run ends (no deadlock) with the same numbers; a head-of-line case (a collective
  whose input is late ahead of a ready one) gets shorter.
"""

from __future__ import annotations

import numpy as np
import pytest

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.sim.program import find_program, read_program
from ge_dialect.utils.errors import OptionError
from transforms.assign_streams import AssignStreamsPass
from transforms.schedule import moves

TAIL = "lower-to-device,plan-memory"


def late_collective(n=512):
    """A long branch (matmul, relu) written first; then a short op feeding an all-reduce
    whose result feeds two matmuls: the all-reduce could run beside the long branch."""
    rng = np.random.default_rng(0)
    b = GraphBuilder("main")
    x = b.input("x", [n, n], dtype=np.float16)
    w = b.const(rng.integers(-1, 2, (n, n)).astype(np.float16))
    r = b.relu(b.matmul(x, w), name="r")
    s = b.hcom_all_reduce(b.mul(x, x), "sum", "tp", 2)
    t = b.matmul(b.matmul(s, w), w, name="t")
    return b.build([r, t])


def programs(module, pipeline, ranks=2):
    m = module.clone()
    api.compile(m, f"{pipeline}{TAIL}")
    return [read_program(find_program(m))] * ranks, m


def hcom_position(module) -> int:
    ops = [op for op in module.walk() if op.name.startswith("ge.") and op.name != "ge.const"]
    return next(k for k, op in enumerate(ops) if op.name.startswith("ge.hcom_"))


def test_moves_counts_the_fewest_moved_ops():
    assert moves([0, 1, 2]) == 0
    assert moves([2, 0, 1]) == 1
    assert moves([3, 2, 1, 0]) == 3


def test_schedule_issues_the_collective_early_and_shortens_the_step():
    module = late_collective()
    moved = module.clone()
    api.compile(moved, "schedule")
    assert hcom_position(moved) < hcom_position(module)
    x = np.random.default_rng(1).uniform(-1, 1, (512, 512)).astype(np.float16)
    before, _ = programs(module, "assign-streams{mode=auto},")
    after, _ = programs(module, "schedule,assign-streams{mode=auto},")
    one = api.simulate_ranks(before, {"x": x}, splits={})
    two = api.simulate_ranks(after, {"x": x}, splits={})
    assert not one.findings and not two.findings
    assert two.report.makespan < one.report.makespan, (two.report.makespan, one.report.makespan)
    for name in ("r", "t"):
        assert np.array_equal(one.outputs[name], two.outputs[name])


def tp_mlp(batch=8, d=32, hidden=64):
    rng = np.random.default_rng(0)
    b = GraphBuilder("main")
    x = b.input("x", [batch, d])
    w1 = b.const(rng.normal(0, 0.2, (d, hidden)).astype(np.float32))
    b1 = b.const(rng.normal(0, 0.5, hidden).astype(np.float32))
    w2 = b.const(rng.normal(0, 0.2, (hidden, d)).astype(np.float32))
    b2 = b.const(rng.normal(0, 0.5, d).astype(np.float32))
    h = b.relu(b.matmul(x, w1, bias=b1))
    y = b.matmul(h, w2, bias=b2, name="y")
    return b.build([y]), {"x": rng.uniform(-1, 1, (batch, d)).astype(np.float32)}


def sharded(module, ranks, passes):
    m = module.clone()
    api.compile(m, f"shard{{ranks={ranks} mode=tensor}},{passes}{TAIL}")
    return m


@pytest.mark.parametrize("ranks", [2, 4])
@pytest.mark.parametrize(
    "passes",
    [
        "schedule,assign-streams{mode=auto},",
        "schedule,assign-streams,",
        "overlap{chunks=2},assign-streams{mode=auto comm-streams=2},",
        "overlap{chunks=2},schedule,assign-streams,",
    ],
)
def test_tensor_parallel_numbers_unchanged(ranks, passes):
    module, inputs = tp_mlp()
    base = api.simulate_ranks(sharded(module, ranks, "assign-streams{mode=auto},"), inputs)
    other = api.simulate_ranks(sharded(module, ranks, passes), inputs)
    assert not base.findings and not other.findings
    for one, two in zip(base.ranks, other.ranks, strict=True):
        assert np.array_equal(one.outputs["y"], two.outputs["y"])


def test_comm_streams_option_range():
    with pytest.raises(OptionError, match="comm-streams must be 1 or 2"):
        AssignStreamsPass(comm_streams=3)


def head_of_line(n=512):
    """Two all-reduces of one group: the first waits for a long matmul chain, the second
    only for a cheap mul, but comes after the first in block order."""
    rng = np.random.default_rng(0)
    b = GraphBuilder("main")
    x = b.input("x", [n, n], dtype=np.float16)
    w = b.const(rng.integers(-1, 2, (n, n)).astype(np.float16))
    late = b.hcom_all_reduce(b.matmul(b.matmul(x, w), w), "sum", "tp", 4, name="late")
    early = b.hcom_all_reduce(b.mul(x, x), "sum", "tp", 4)
    t = b.matmul(early, w, name="t")
    return b.build([late, t])


def test_comm_streams_two_removes_head_of_line_blocking():
    module = head_of_line()
    x = np.random.default_rng(1).uniform(-1, 1, (512, 512)).astype(np.float16)
    one, _ = programs(module, "assign-streams{mode=auto},", ranks=4)
    two, _ = programs(module, "assign-streams{mode=auto comm-streams=2},", ranks=4)
    m = module.clone()
    api.compile(m, "assign-streams{mode=auto comm-streams=2}")
    streams = [str(op.attributes["stream.id"]) for op in m.walk() if op.name.startswith("ge.hcom_")]
    assert streams == ["#stream.id<2>", "#stream.id<3>"]
    a = api.simulate_ranks(one, {"x": x}, splits={})
    b = api.simulate_ranks(two, {"x": x}, splits={})  # 4 ranks, no deadlock
    assert not a.findings and not b.findings
    assert b.report.makespan < a.report.makespan, (b.report.makespan, a.report.makespan)
    for name in ("late", "t"):
        assert np.array_equal(a.outputs[name], b.outputs[name])
