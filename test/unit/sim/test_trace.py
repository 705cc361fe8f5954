"""The trace and the PNG timeline of timed runs (`ge_dialect.sim.trace`).

Programs are small hand-written `npu` programs; their `Timeline`s are made by hand
(fabricated intervals and flows), so these tests do not depend on the time model.

- The JSON validates against a schema of the subset of the trace-event format it emits
  (phases X, M, s, f; the fields each needs; times >= 0; integer pid/tid).
- One process per rank and one named thread per stream; each launch and copy a complete
  event with its cost and location, each record and wait an event slice with its location;
  a wait its stream reached before the record fired is two slices, blocked then satisfied.
- Every flow id appears once as "s", inside its record's slice, and once as "f", inside its
  wait's satisfied slice, on the right pid/tid, and right after that slice in file order;
  every arrow goes forward in time as both viewers draw it, in hand-made timelines and in
  simulated runs (multi-stream examples, zoo models with assign-streams auto, ranks).
- The same timelines give the same bytes, whatever order the timelines and flows come in.
- The PNG starts with the PNG signature, has the same bytes twice, embeds no version; a
  missing matplotlib and an unwritable path are one-line errors.
"""

from __future__ import annotations

import builtins
import json
import os
import re
from collections import Counter
from dataclasses import replace

import jsonschema  # type: ignore[import-untyped, unused-ignore]  # no stubs installed
import numpy as np
import pytest
from helpers.support import ROOT

from ge_dialect import api
from ge_dialect.sim.program import Program, find_program, read_program
from ge_dialect.sim.timeline import FS_PER_US, Flow, Interval, Timeline
from ge_dialect.sim.trace import chrome_trace, timeline_png, write_chrome_trace
from ge_dialect.utils.errors import GeError

PROGRAM = """
func.func @main(%x: memref<4xf32> {{npu.input = "x"}},
                %y: memref<4xf32> {{npu.output = "y"}}) attributes {{npu.program}} {{
  %a = npu.alloc : memref<4xf32>
  %b = npu.alloc : memref<4xf32>
  npu.launch "relu"(%x) -> (%a) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>)
      cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1>
  npu.record 0 stream 0
  npu.wait 0 stream 1
  npu.launch "{kernel}"(%a) -> (%b) stream 1 priority {priority}
      : (tensor<4xf32>) -> (tensor<4xf32>)
      cost <{unit}, flops = 64, bytes_in = 16, bytes_out = 16, blocks = 2>{attrs}
  npu.record 1 stream 1
  npu.wait 1 stream 0
  npu.copy %b -> %y stream 0
      cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> : memref<4xf32>
  func.return
}}
"""


def _program(kernel: str = "sigmoid", unit: str = "cube", priority: int = -1) -> Program:
    attrs = ' attrs {reduction = "sum", group = "g", rank_size = 1 : i64}' if unit == "comm" else ""
    text = PROGRAM.format(kernel=kernel, unit=unit, priority=priority, attrs=attrs)
    module = api.parse(text, "p.mlir")
    api.verify(module)
    return read_program(find_program(module))


def _fs(microseconds: float) -> int:
    return round(microseconds * FS_PER_US)


def _iv(
    task: int,
    stream: int,
    unit: str,
    ready: float,
    start: float,
    end: float,
    compute: float = 0.0,
    memory: float = 0.0,
    blocks: int = 0,
) -> Interval:
    """An interval given in microseconds (the timeline holds femtoseconds)."""
    return Interval(
        task,
        stream,
        unit,
        _fs(ready),
        _fs(start),
        _fs(end),
        blocks=blocks,
        cores=blocks,
        compute_fs=_fs(compute),
        memory_fs=_fs(memory),
    )


def _timeline(program: Program, rank: int = 0, shift: float = 0.0, record_dur: float = 0.05):
    """Task i of `PROGRAM`: 0 relu s0, 1 record e0 s0, 2 wait e0 s1, 3 kernel s1 (queued
    0.4 us for cores), 4 record e1 s1, 5 wait e1 s0, 6 copy s0.  Both waits are reached
    before their record fires: wait e0 at the start, record e0 at 2.0 + record_dur; wait
    e1 at 2.05, record e1 at 5.0 + record_dur."""
    unit = program.tasks[3].cost.unit
    t = shift
    intervals = [
        _iv(0, 0, "vector", t, t, t + 2.0, blocks=1, compute=1.5, memory=2.0),
        _iv(1, 0, "event", t + 2.0, t + 2.0, t + 2.0 + record_dur),
        _iv(2, 1, "event", t, t, t + 2.1),
        _iv(3, 1, unit, t + 2.1, t + 2.5, t + 5.0, blocks=2, compute=2.5, memory=1),
        _iv(4, 1, "event", t + 5.0, t + 5.0, t + 5.0 + record_dur),
        _iv(5, 0, "event", t + 2.05, t + 2.05, t + 5.1),
        _iv(6, 0, "vector", t + 5.1, t + 5.1, t + 6.0, blocks=1, memory=0.9),
    ]
    flows = [Flow(1, 2, 0), Flow(4, 5, 1)]
    return Timeline(program, intervals, flows, rank=rank, device="ascend910")


def _two_ranks() -> list[Timeline]:
    return [
        _timeline(_program()),
        _timeline(_program("hcom_all_reduce", "comm", 0), rank=1, shift=0.25),
    ]


# the subset of the trace-event format that chrome_trace emits
_INT = {"type": "integer", "minimum": 0}
_TIME = {"type": "number", "minimum": 0}
SCHEMA = {
    "type": "object",
    "required": ["traceEvents", "displayTimeUnit", "otherData"],
    "additionalProperties": False,
    "properties": {
        "displayTimeUnit": {"enum": ["ms", "ns"]},
        "otherData": {"type": "object"},
        "traceEvents": {
            "type": "array",
            "items": {
                "oneOf": [
                    {  # complete event
                        "type": "object",
                        "required": ["name", "cat", "ph", "pid", "tid", "ts", "dur", "args"],
                        "additionalProperties": False,
                        "properties": {
                            "name": {"type": "string", "minLength": 1},
                            "cat": {"enum": ["cube", "vector", "comm", "none", "event"]},
                            "ph": {"const": "X"},
                            "pid": _INT,
                            "tid": _INT,
                            "ts": _TIME,
                            "dur": _TIME,
                            "args": {
                                "type": "object",
                                "required": ["location", "task"],
                                "properties": {
                                    "location": {"type": "string"},
                                    "task": _INT,
                                    "flops": _INT,
                                    "bytes_in": _INT,
                                    "bytes_out": _INT,
                                    "blocks": _INT,
                                    "cores": _INT,
                                    "block_compute_us": _TIME,
                                    "block_memory_us": _TIME,
                                    "queue_delay_us": {"type": "number", "exclusiveMinimum": 0},
                                    "event": _INT,
                                    "ready": _TIME,
                                },
                                "additionalProperties": False,
                            },
                        },
                    },
                    {  # process metadata
                        "type": "object",
                        "required": ["name", "ph", "pid", "args"],
                        "additionalProperties": False,
                        "properties": {
                            "name": {"enum": ["process_name", "process_sort_index"]},
                            "ph": {"const": "M"},
                            "pid": _INT,
                            "args": {
                                "type": "object",
                                "oneOf": [
                                    {
                                        "required": ["name"],
                                        "properties": {"name": {"type": "string"}},
                                    },
                                    {
                                        "required": ["sort_index"],
                                        "properties": {"sort_index": _INT},
                                    },
                                ],
                            },
                        },
                    },
                    {  # thread metadata
                        "type": "object",
                        "required": ["name", "ph", "pid", "tid", "args"],
                        "additionalProperties": False,
                        "properties": {
                            "name": {"enum": ["thread_name", "thread_sort_index"]},
                            "ph": {"const": "M"},
                            "pid": _INT,
                            "tid": _INT,
                            "args": {
                                "type": "object",
                                "oneOf": [
                                    {
                                        "required": ["name"],
                                        "properties": {"name": {"type": "string"}},
                                    },
                                    {
                                        "required": ["sort_index"],
                                        "properties": {"sort_index": _INT},
                                    },
                                ],
                            },
                        },
                    },
                    {  # flow start / end
                        "type": "object",
                        "required": ["name", "cat", "ph", "id", "pid", "tid", "ts"],
                        "additionalProperties": False,
                        "properties": {
                            "name": {"type": "string", "pattern": "^e[0-9]+$"},
                            "cat": {"const": "event"},
                            "ph": {"enum": ["s", "f"]},
                            "bp": {"const": "e"},
                            "id": {"type": "integer", "minimum": 1},
                            "pid": _INT,
                            "tid": _INT,
                            "ts": _TIME,
                        },
                        "if": {"properties": {"ph": {"const": "f"}}},
                        "then": {"required": ["bp"]},
                        "else": {"not": {"required": ["bp"]}},
                    },
                ]
            },
        },
    },
}


def _events(trace, ph):
    return [e for e in trace["traceEvents"] if e["ph"] == ph]


def test_trace_validates_against_the_schema():
    validator = jsonschema.Draft202012Validator(SCHEMA)
    validator.check_schema(SCHEMA)
    trace = chrome_trace(_two_ranks())
    errors = sorted(validator.iter_errors(trace), key=str)
    assert not errors, errors[0]
    # the schema rejects what it should (it is not vacuous)
    bad = json.loads(json.dumps(trace))
    bad["traceEvents"][-1]["ts"] = -1
    assert not validator.is_valid(bad)
    bad = json.loads(json.dumps(trace))
    bad["traceEvents"].append({"name": "x", "ph": "B", "pid": 0, "tid": 0, "ts": 0})
    assert not validator.is_valid(bad)


def test_a_process_per_rank_and_a_named_thread_per_stream():
    trace = chrome_trace(_two_ranks())
    assert trace["displayTimeUnit"] == "ns"
    meta = _events(trace, "M")
    processes = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    assert processes == {0: "rank 0: ascend910", 1: "rank 1: ascend910"}
    sort = {e["pid"]: e["args"]["sort_index"] for e in meta if e["name"] == "process_sort_index"}
    assert sort == {0: 0, 1: 1}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    assert threads == {
        (0, 0): "stream 0",
        (0, 1): "stream 1 (priority -1)",  # rank 0's stream 1 launch has priority -1
        (1, 0): "stream 0",
        (1, 1): "stream 1",
    }
    thread_sort = [e for e in meta if e["name"] == "thread_sort_index"]
    assert {(e["pid"], e["tid"]): e["args"]["sort_index"] for e in thread_sort} == {
        k: k[1] for k in threads
    }
    # metadata comes first, and every other event is on a named thread
    phases = [e["ph"] for e in trace["traceEvents"]]
    assert phases[: len(meta)] == ["M"] * len(meta)
    assert {(e["pid"], e["tid"]) for e in trace["traceEvents"] if e["ph"] != "M"} == set(threads)


def test_complete_events_carry_cost_and_location():
    timelines = _two_ranks()
    trace = chrome_trace(timelines)
    slices = _events(trace, "X")
    blocked = [e for e in slices if e["name"].endswith("(blocked)")]
    assert len(blocked) == 4  # both waits of both ranks
    assert len(slices) == sum(len(t.intervals) for t in timelines) + len(blocked)
    by_task = {(e["pid"], e["args"]["task"]): e for e in slices if e not in blocked}
    relu = by_task[0, 0]
    assert relu == {
        "name": "relu",
        "cat": "vector",
        "ph": "X",
        "pid": 0,
        "tid": 0,
        "ts": 0.0,
        "dur": 2.0,
        "args": {
            "location": "p.mlir:6:3",
            "task": 0,
            "flops": 4,
            "bytes_in": 16,
            "bytes_out": 16,
            "blocks": 1,
            "cores": 1,
            "block_compute_us": 1.5,
            "block_memory_us": 2.0,
        },
    }
    kernel = by_task[0, 3]
    assert (kernel["name"], kernel["cat"], kernel["tid"]) == ("sigmoid", "cube", 1)
    assert (kernel["ts"], kernel["dur"]) == (2.5, 2.5)
    assert kernel["args"]["queue_delay_us"] == 0.4 and kernel["args"]["blocks"] == 2
    comm = by_task[1, 3]
    assert (comm["name"], comm["cat"], comm["ts"]) == ("hcom_all_reduce", "comm", 2.75)
    copy = by_task[0, 6]
    assert (copy["name"], copy["cat"], copy["args"]["location"]) == (
        "copy",
        "vector",
        "p.mlir:15:3",
    )
    assert "queue_delay_us" not in copy["args"]
    record, wait = by_task[0, 1], by_task[0, 5]
    assert (record["name"], record["cat"], record["ts"], record["dur"]) == (
        "record e0",
        "event",
        2.0,
        0.05,
    )
    assert record["args"] == {"location": "p.mlir:8:3", "task": 1, "event": 0}
    # stream 0 reached wait e1 at 2.05, record e1 fired at 5.05: blocked from 2.05 to 5.05,
    # then the wait itself from 5.05 to 5.1; `ready` is in its args
    (before,) = [e for e in blocked if (e["pid"], e["args"]["task"]) == (0, 5)]
    assert (before["name"], before["cat"], before["ts"], before["dur"]) == (
        "wait e1 (blocked)",
        "event",
        2.05,
        3.0,
    )
    assert before["args"] == {"location": "p.mlir:14:3", "task": 5, "event": 1}
    assert (wait["name"], wait["ts"], wait["dur"]) == ("wait e1", 5.05, 0.05)
    assert wait["args"] == {"location": "p.mlir:14:3", "task": 5, "event": 1, "ready": 2.05}
    # every slice, records and waits too, is located in the IR
    assert all(re.fullmatch(r"p\.mlir:\d+:3", e["args"]["location"]) for e in slices)


def _ns(us: float) -> int:
    return round(us * 1000)


def _bound_slice(events, position, e):
    """The slice a viewer binds flow event `e` (at `position` in `events`) to: the last slice
    before it on its thread, in file order, which must enclose its timestamp (strictly
    before the slice's end, where the next slice of the stream may begin, unless the slice
    has no interior), and no other slice of the thread may enclose it."""
    thread = (e["pid"], e["tid"])
    slice_ = next(
        x for x in reversed(events[:position]) if x["ph"] == "X" and (x["pid"], x["tid"]) == thread
    )
    start, end, t = _ns(slice_["ts"]), _ns(slice_["ts"] + slice_["dur"]), _ns(e["ts"])
    assert start <= t <= end
    if end - start >= 2:
        assert start < t < end
    assert all(
        not (_ns(x["ts"]) < t < _ns(x["ts"] + x["dur"]))
        for x in events
        if x["ph"] == "X" and (x["pid"], x["tid"]) == thread and x is not slice_
    )
    return slice_


def _check_flows(trace, timelines):
    """Each flow: one "s" bound to its record's slice, one "f" bound to its wait's satisfied
    slice, and an arrow that goes forward in time in both viewers: chrome://tracing draws
    it from the start's timestamp to the end's, Perfetto from the end of the start's slice
    to the start of the end's slice."""
    events = trace["traceEvents"]
    position = {id(e): k for k, e in enumerate(events)}
    flows = [e for e in events if e["ph"] in ("s", "f")]
    counts = Counter((e["id"], e["ph"]) for e in flows)
    ids = {e["id"] for e in flows}
    assert len(ids) == sum(len(t.flows) for t in timelines)
    assert all(counts[i, "s"] == 1 and counts[i, "f"] == 1 for i in ids), counts
    starts = {e["id"]: e for e in flows if e["ph"] == "s"}
    ends = {e["id"]: e for e in flows if e["ph"] == "f"}
    by_rank = {t.rank: t for t in timelines}
    pairs = set()
    for i in sorted(ids):
        start, end = starts[i], ends[i]
        assert (start["name"], start["cat"]) == (end["name"], end["cat"])  # paired by Perfetto
        assert end["bp"] == "e" and "bp" not in start
        assert start["pid"] == end["pid"]
        timeline = by_rank[start["pid"]]
        record, wait = (_bound_slice(events, position[id(e)], e) for e in (start, end))
        for e, slice_ in ((start, record), (end, wait)):
            task = timeline.program.tasks[slice_["args"]["task"]]
            assert e["tid"] == task.stream and e["name"] == f"e{task.event}"
        assert timeline.program.tasks[record["args"]["task"]].kind == "record"
        assert timeline.program.tasks[wait["args"]["task"]].kind == "wait"
        assert wait["name"] == f"wait {end['name']}"  # its satisfied part, never the blocked one
        assert _ns(end["ts"]) >= _ns(start["ts"])  # chrome://tracing's arrow
        assert _ns(wait["ts"]) >= _ns(record["ts"] + record["dur"])  # Perfetto's arrow
        pairs.add((start["pid"], record["args"]["task"], wait["args"]["task"]))
    assert pairs == {(t.rank, f.record, f.wait) for t in timelines for f in t.flows}


def test_flows_bind_to_their_record_and_wait():
    timelines = _two_ranks()
    _check_flows(chrome_trace(timelines), timelines)


@pytest.mark.parametrize("record_dur", [0.0, 0.001, 0.0004, 1e-9])
def test_flows_bind_to_slices_without_interior(record_dur):
    timelines = [_timeline(_program(), record_dur=record_dur)]
    trace = chrome_trace(timelines)
    _check_flows(trace, timelines)
    # slices of a stream never overlap after rounding to nanoseconds
    for tid in (0, 1):
        slices = [e for e in _events(trace, "X") if e["tid"] == tid]
        for a, b in zip(slices, slices[1:], strict=False):
            assert round((a["ts"] + a["dur"]) * 1000) <= round(b["ts"] * 1000)


AUTO = "canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto},lower-to-device"
REPRODUCER = f"{ROOT}/test/unit/data/device/makespan_below_bound_g00.mlir"
SIMULATED = {
    "torchair example": (
        f"{ROOT}/examples/torchair_multistream.mlir",
        "assign-streams,lower-to-device",
    ),
    "encoder, auto streams": (f"{ROOT}/examples/zoo/encoder.onnx", AUTO),
    "inception, auto streams": (f"{ROOT}/examples/zoo/inception.onnx", AUTO),
    "hand-written npu program": (REPRODUCER, ""),
}


def _simulated(name: str) -> api.SimResult:
    path, pipeline = SIMULATED[name]
    module = api.load(path)
    if pipeline:
        api.compile(module, pipeline)
    return api.simulate(module, timing_only=True, check=False)


@pytest.mark.parametrize("name", sorted(SIMULATED))
def test_flow_arrows_go_forward_in_simulated_runs(name):
    """Every arrow from a record to its wait ends no earlier than it starts, in both
    viewers, including where the wait was issued before the record fired."""
    result = _simulated(name)
    trace = api.trace(result)
    _check_flows(trace, [result.timeline])
    blocked = [e for e in _events(trace, "X") if e["name"].endswith("(blocked)")]
    assert blocked  # the case whose arrows used to end before they started
    for e in blocked:  # a blocked part ends where the wait's satisfied part begins
        (satisfied,) = [
            x for x in _events(trace, "X") if x["args"]["task"] == e["args"]["task"] and x is not e
        ]
        assert _ns(e["ts"] + e["dur"]) == _ns(satisfied["ts"])


def test_flow_arrows_go_forward_across_ranks():
    from ge_dialect.frontend.builder import GraphBuilder

    b = GraphBuilder("main")
    x = b.input("x", [8, 32])
    w1 = b.const(np.full((32, 64), 0.01, np.float32))
    w2 = b.const(np.full((64, 32), 0.01, np.float32))
    module = b.build([b.matmul(b.relu(b.matmul(x, w1)), w2, name="y")])
    api.compile(module, "shard{ranks=2 mode=tensor}," + AUTO)
    result = api.simulate_ranks(module, timing_only=True, check=False)
    timelines = [run.timeline for run in result.ranks]
    assert sum(len(t.flows) for t in timelines) > 0
    _check_flows(api.trace(result.ranks), timelines)


def _event_locations(result: api.SimResult) -> list[str]:
    slices = _events(api.trace(result), "X")
    located = [e["args"]["location"] for e in slices if e["cat"] == "event"]
    assert len(located) >= 2 * len(result.timeline.flows) > 0
    return located


def test_records_and_waits_carry_their_location():
    for location in _event_locations(_simulated("hand-written npu program")):
        assert re.fullmatch(r".*/makespan_below_bound_g00\.mlir:\d+:\d+", location), location


def test_lowered_records_and_waits_carry_their_location():
    for location in _event_locations(_simulated("torchair example")):
        assert re.fullmatch(r".*/torchair_multistream\.mlir:\d+:\d+", location), location


def test_trace_is_deterministic():
    first = json.dumps(chrome_trace(_two_ranks()), separators=(",", ":"))
    assert json.dumps(chrome_trace(_two_ranks()), separators=(",", ":")) == first
    # neither the order of the timelines nor of their flows matters
    shuffled = [replace(t, flows=list(reversed(t.flows))) for t in reversed(_two_ranks())]
    assert json.dumps(chrome_trace(shuffled), separators=(",", ":")) == first


def test_write_chrome_trace(tmp_path):
    path = str(tmp_path / "trace.json")
    write_chrome_trace(path, _two_ranks())
    with open(path, "rb") as f:
        data = f.read()
    compact = json.dumps(chrome_trace(_two_ranks()), separators=(",", ":")) + "\n"
    assert data == compact.encode()
    write_chrome_trace(path, _two_ranks())
    with open(path, "rb") as f:
        assert f.read() == data
    bad = str(tmp_path / "missing" / "trace.json")
    with pytest.raises(GeError) as info:
        write_chrome_trace(bad, _two_ranks())
    assert str(info.value) == f"{bad}: error: cannot write trace: No such file or directory"


def test_flow_that_is_not_record_to_wait_is_rejected():
    timeline = _timeline(_program())
    timeline.flows = [Flow(0, 2, 0)]
    with pytest.raises(ValueError, match="does not go from a record to a wait"):
        chrome_trace([timeline])
    with pytest.raises(ValueError, match="share a rank"):
        chrome_trace([_timeline(_program()), _timeline(_program())])


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_png_timeline(tmp_path):
    pytest.importorskip("matplotlib")
    timeline = _two_ranks()[1]
    paths = [str(tmp_path / "a.png"), str(tmp_path / "b.png")]
    for path in paths:
        timeline_png(timeline, path)
    with open(paths[0], "rb") as f:
        data = f.read()
    with open(paths[1], "rb") as f:
        assert f.read() == data
    assert data.startswith(PNG_SIGNATURE)
    assert b"Software" not in data and b"matplotlib" not in data
    titled = str(tmp_path / "t.png")
    timeline_png(_two_ranks()[0], titled, title="rank 0")
    with open(titled, "rb") as f:
        assert f.read().startswith(PNG_SIGNATURE)
    bad = str(tmp_path / "missing" / "t.png")
    with pytest.raises(GeError) as info:
        timeline_png(timeline, bad)
    assert str(info.value) == f"{bad}: error: cannot write timeline: No such file or directory"
    assert not os.path.exists(bad)


def test_png_without_matplotlib(monkeypatch, tmp_path):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named '{name}'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    path = str(tmp_path / "t.png")
    with pytest.raises(GeError) as info:
        timeline_png(_timeline(_program()), path)
    assert str(info.value) == "error: --timeline needs matplotlib (pip install matplotlib)"
    assert not os.path.exists(path)
