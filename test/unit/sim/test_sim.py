"""The simulated NPU's numbers against the reference interpreter, and its start order.

- Every prefix of the default pipeline (`canonicalize, cse, fuse, to-nc1hwc0,
  assign-streams`, and auto-mode streams), followed by `lower-to-device` (and by
  `plan-memory`, which must change no bit), simulates to the reference interpreter's numbers on the graph before any pass: on both examples, on the
  random graphs of the layout tests (`random_graphs.cases`: 17/24/... channels, grouped and
  depthwise convs, unaligned concats, broadcasts, fp16 and fp32) and on directed graphs.
  The simulator computes on the stored arrays with its own kernels (im2col); the reference
  computes on logical arrays with a direct sliding-window conv.
- Buffers: views alias (a reshape's bytes are its input's), outputs that are arguments,
  constants or returned twice are copied.
- Order: tasks start in an order streams and events allow; a wait whose event is never
  recorded, and two streams waiting on each other, are deadlocks named in one error.  The
  first record of an event counts, alike for the start order, the time model and the race
  checker.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from helpers.random_graphs import Case, cases
from helpers.support import ROOT, assert_close

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.utils.errors import GeError
from ge_dialect.sim.order import SimulationError, start_order
from ge_dialect.sim.program import find_program, read_program

PREFIXES = [
    "",
    "canonicalize,cse",
    "canonicalize,cse,fuse",
    "canonicalize,cse,fuse,to-nc1hwc0",
    "canonicalize,cse,fuse,to-nc1hwc0,assign-streams",
    "canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto}",
]


def lowered(module, prefix: str, plan: bool = False):
    m = module.clone()
    tail = "lower-to-device,plan-memory" if plan else "lower-to-device"
    api.compile(m, f"{prefix},{tail}" if prefix else tail)
    return m


def check_prefixes(module, inputs: dict[str, np.ndarray], prefixes=PREFIXES) -> None:
    """Every prefix, lowered, with and without memory planning: the reference's numbers
    (and planning changes no bit)."""
    ref = api.reference(module, inputs)
    for prefix in prefixes:
        unplanned = api.simulate(lowered(module, prefix), inputs).outputs
        planned = api.simulate(lowered(module, prefix, plan=True), inputs).outputs
        assert unplanned.keys() == planned.keys() == ref.keys()
        for name, value in unplanned.items():
            np.testing.assert_array_equal(planned[name], value, err_msg=f"planned, '{prefix}'")
            try:
                assert_close(value, ref[name], ref[name].dtype)
            except AssertionError as e:
                raise AssertionError(f"after '{prefix}', output {name}: {e}") from None


@pytest.mark.parametrize("example", ["resnet_block.mlir", "torchair_multistream.mlir"])
def test_examples_after_every_prefix(example):
    module = api.load(f"{ROOT}/examples/{example}")
    program = read_program(find_program(lowered(module, "")))
    inputs = api.random_inputs(program, seed=3)
    check_prefixes(module, inputs)


def test_random_graphs_after_every_prefix():
    stats: Counter = Counter()

    @settings(max_examples=40)
    @given(cases())
    def check(case: Case) -> None:
        inputs = {f"x{i}": x for i, x in enumerate(case.inputs)}
        check_prefixes(case.module, inputs)
        stats["examples"] += 1
        stats[case.dtype.name] += 1

    check()
    assert stats["examples"] >= 30, stats
    assert stats["float16"] >= 5 and stats["float32"] >= 5, stats


def _conv_net(c: int, dtype, groups: int = 1, seed: int = 0):
    """conv (groups) -> bn -> relu, a channel concat with an unaligned conv branch, a
    channel-broadcast mul and a global pool: layout-sensitive cases in one graph."""
    rng = np.random.default_rng(seed)
    b = GraphBuilder("main")
    x = b.input("x", [1, c, 9, 9], np.dtype(dtype))
    w = b.const(rng.normal(0, (9 * c // groups) ** -0.5, (c, c // groups, 3, 3)).astype(dtype))
    y = b.conv2d(x, w, pads=[1, 1, 1, 1], groups=groups)
    params = [rng.uniform(0.5, 1.5, c), rng.uniform(-0.5, 0.5, c), rng.uniform(-0.5, 0.5, c),
              rng.uniform(0.1, 10, c)]
    scale, offset, mean, variance = (b.const(p.astype(dtype)) for p in params)
    y = b.relu(b.batch_norm(y, scale, offset, mean, variance))
    w2 = b.const(rng.normal(0, (9 * c) ** -0.5, (17, c, 3, 3)).astype(dtype))
    z = b.conv2d(y, w2, strides=[2, 2], pads=[1, 1, 1, 1])
    y2 = b.max_pool(y, [3, 3], [2, 2], [1, 1, 1, 1], True)
    cat = b.concat([y2, z], 1)
    gate = b.sigmoid(b.global_avg_pool(cat))
    out = b.mul(cat, gate)
    return b.build([out, b.global_avg_pool(out)]), {"x": rng.uniform(-1, 1, (1, c, 9, 9)).astype(dtype)}


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize(("c", "groups"), [(17, 1), (24, 1), (24, 2), (16, 16), (24, 24)])
def test_layout_sensitive_graphs(c, groups, dtype):
    module, inputs = _conv_net(c, dtype, groups)
    check_prefixes(module, inputs)
    m = lowered(module, "canonicalize,cse,fuse,to-nc1hwc0")
    formats = {t.fmt for task in read_program(find_program(m)).tasks for t in task.in_types}
    assert {"NC1HWC0", "FRACTAL_Z"} <= formats


def test_views_alias_and_outputs_are_copied():
    b = GraphBuilder("main")
    x = b.input("x", [2, 3, 4, 4], "f32")
    y = b.relu(x)
    flat = b.reshape(y, [2, 48])
    c = b.const(np.arange(4, dtype=np.float32))
    module = b.build([flat, x, c, y, y], output_names=["flat", "same", "c", "y1", "y2"])
    m = lowered(module, "")
    program = read_program(find_program(m))
    kinds = Counter(t.kind for t in program.tasks)
    assert kinds == {"launch": 1, "copy": 5}, kinds
    views = [buf for buf in program.buffers if buf.kind == "view"]
    assert len(views) == 1 and program.buffers[views[0].root].kind == "alloc"
    inputs = {"x": np.random.default_rng(0).uniform(-1, 1, (2, 3, 4, 4)).astype(np.float32)}
    out = api.simulate(m, inputs).outputs
    np.testing.assert_array_equal(out["flat"], np.maximum(inputs["x"], 0).reshape(2, 48))
    np.testing.assert_array_equal(out["same"], inputs["x"])
    np.testing.assert_array_equal(out["c"], np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(out["y1"], out["y2"])


PROGRAM = """
func.func @main(%x: memref<4xf32> {{npu.input = "x"}}, %y: memref<4xf32> {{npu.output = "y"}}) attributes {{npu.program}} {{
  %a = npu.alloc : memref<4xf32>
  {body}
  func.return
}}
"""


def _launch(src: str, dst: str, stream: int) -> str:
    return (
        f'npu.launch "relu"({src}) -> ({dst}) stream {stream} priority 0 : (tensor<4xf32>) -> '
        "(tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> "
        "attrs {}"
    )


def _program(body: str):
    return api.parse(PROGRAM.format(body=body), "p.mlir")


def test_start_order_follows_events():
    m = _program("\n  ".join([
        "npu.wait 0 stream 1",
        _launch("%a", "%y", 1),
        _launch("%x", "%a", 0),
        "npu.record 0 stream 0",
    ]))
    api.verify(m)
    program = read_program(find_program(m))
    assert start_order(program).order == [2, 3, 0, 1]
    out = api.simulate(m, {"x": np.array([-1, 2, -3, 4], np.float32)}).outputs["y"]
    np.testing.assert_array_equal(out, [0, 2, 0, 4])


def test_the_first_record_of_an_event_counts():
    """Event 0 is recorded on stream 0 at once and again after the launch that writes %a;
    the wait on stream 1 goes on after the first record, so its launch's read of %a is not
    ordered after the write: a race (none if the later record counted)."""
    m = _program("\n  ".join([
        "npu.wait 0 stream 1",
        _launch("%a", "%y", 1),
        "npu.record 0 stream 0",
        _launch("%x", "%a", 0),
        "npu.record 0 stream 0",
    ]))
    m.verify()
    result = api.simulate(m, timing_only=True)
    assert start_order(result.program).order == [2, 0, 1, 3, 4]
    assert [(f.record, f.wait) for f in result.timeline.flows] == [(2, 0)]
    intervals = result.timeline.intervals
    assert intervals[0].end < intervals[4].start  # the wait did not wait for the second record
    assert [(f.kind, f.tasks) for f in result.findings] == [("race", (3, 1))]


def test_wait_never_recorded_is_a_deadlock():
    m = _program("\n  ".join([_launch("%x", "%a", 0), "npu.wait 0 stream 0", _launch("%a", "%y", 0)]))
    with pytest.raises(SimulationError, match="stream 0 is blocked at the wait of event 0 on stream 0 .*which no task records"):
        api.simulate(m, {"x": np.zeros(4, np.float32)})


def test_streams_waiting_on_each_other_deadlock():
    m = _program("\n  ".join([
        "npu.wait 0 stream 0",
        "npu.record 1 stream 0",
        "npu.wait 1 stream 1",
        "npu.record 0 stream 1",
        _launch("%x", "%y", 0),
    ]))
    with pytest.raises(SimulationError) as info:
        api.simulate(m, {"x": np.zeros(4, np.float32)})
    message = str(info.value)
    assert message.count("\n") == 0 and message.startswith("error: deadlock: ")
    assert "stream 0 is blocked at the wait of event 0" in message
    assert "stream 1 is blocked at the wait of event 1" in message


def test_inputs_are_checked_by_name():
    m = _program(_launch("%x", "%y", 0))
    with pytest.raises(GeError, match="missing input 'x' \\(shape \\[4\\], dtype float32\\)"):
        api.simulate(m, {})
    with pytest.raises(GeError, match="unknown input 'z'; the program's inputs are x"):
        api.simulate(m, {"x": np.zeros(4, np.float32), "z": 1})
    with pytest.raises(GeError, match="input 'x' has shape \\[3\\], expected \\[4\\]"):
        api.simulate(m, {"x": np.zeros(3, np.float32)})
    with pytest.raises(GeError, match="no npu program"):
        api.simulate(api.parse("func.func @f() {\n  func.return\n}"), {})


def test_random_inputs_are_seeded():
    m = _program(_launch("%x", "%y", 0))
    a = api.simulate(m, seed=1).inputs["x"]
    assert np.array_equal(a, api.simulate(m, seed=1).inputs["x"])
    assert not np.array_equal(a, api.simulate(m, seed=2).inputs["x"])
    assert a.dtype == np.float32 and np.all(np.abs(a) <= 1)
