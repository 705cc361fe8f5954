"""The simulated NPU's clock: documented behaviour of the time model, its lower bound, the
report, and ge-run's timing flags.

- Two independent convs small enough to leave cube cores idle finish sooner on two streams
  than on one; two that saturate the cores do not.
- A priority decides which of two contending streams goes first.
- A collective on the comm stream overlaps with compute on another, and the cluster figures
  say so.
- The lower bound never exceeds the makespan, exactly (property test: random graphs, every
  stream mode, random device profiles; and a program whose float makespan once came out a
  few ulps below its bound).
- The timeline never depends on the numbers.
"""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest
from helpers.random_graphs import Case, cases
from helpers.support import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from ge_dialect import api
from ge_dialect.frontend.builder import GraphBuilder
from ge_dialect.sim.profile import load_profile
from ge_dialect.sim.timing import lower_bound
from ge_dialect.tools.ge_run import main

F16 = np.dtype(np.float16)
LAYOUT = "canonicalize,cse,fuse,to-nc1hwc0"


def timed(module, streams: str, profile=None) -> api.SimResult:
    m = module.clone()
    api.compile(m, f"{LAYOUT},assign-streams{{{streams}}},lower-to-device")
    return api.simulate(m, profile=profile, timing_only=True)


def two_convs(batch: int, channels: int, size: int, labels: tuple[int, int] | None = None):
    """x -> conv a, x -> conv b (independent), both outputs returned."""
    rng = np.random.default_rng(0)
    b = GraphBuilder("main")
    x = b.input("x", [batch, channels, size, size], F16)
    outs = []
    for i in range(2):
        w = b.const(rng.normal(0, 0.1, (channels, channels, 3, 3)).astype(F16))
        if labels is None:
            outs.append(b.conv2d(x, w, pads=[1, 1, 1, 1]))
        else:
            with b.stream_switch(f"s{i}", labels[i]):
                outs.append(b.conv2d(x, w, pads=[1, 1, 1, 1]))
    return b.build(outs)


def conv_intervals(result: api.SimResult):
    return [i for i in result.timeline.intervals if result.program.tasks[i.task].kernel == "conv2d"]


def test_small_independent_convs_overlap_on_two_streams():
    module = two_convs(1, 16, 8)
    single, auto = timed(module, "mode=single"), timed(module, "mode=auto")
    a, b = conv_intervals(auto)
    assert a.stream != b.stream and a.cores + b.cores <= 32
    assert max(a.start, b.start) < min(a.end, b.end)  # they run at the same time
    assert auto.report.makespan < 0.9 * single.report.makespan, (
        auto.report.makespan,
        single.report.makespan,
    )


def test_convs_that_saturate_the_cores_gain_little_from_two_streams():
    module = two_convs(32, 64, 64)  # 256 tiles: 8 per core, no tail to share
    single, auto = timed(module, "mode=single"), timed(module, "mode=auto")
    a, b = conv_intervals(auto)
    assert a.stream != b.stream and a.blocks >= 32 and b.blocks >= 32
    small = two_convs(1, 16, 8)
    small_gain = (
        timed(small, "mode=single").report.makespan / timed(small, "mode=auto").report.makespan
    )
    gain = single.report.makespan / auto.report.makespan
    assert gain < 1.05 < small_gain, (gain, small_gain)


@pytest.mark.parametrize(("priorities", "first"), [((5, -1), 1), ((-1, 5), 0)])
def test_priority_decides_which_contending_stream_goes_first(priorities, first):
    result = timed(two_convs(32, 64, 56, labels=priorities), "mode=labels")
    convs = conv_intervals(result)
    by_priority = sorted(convs, key=lambda i: result.program.tasks[i.task].priority)
    urgent, other = by_priority
    assert result.program.tasks[urgent.task].priority == min(priorities)
    assert urgent.start <= other.start and urgent.end < other.end
    assert urgent.task == convs[first].task  # the label built second when its priority is smaller


def test_collective_overlaps_compute_on_another_stream():
    rng = np.random.default_rng(0)
    b = GraphBuilder("main")
    x = b.input("x", [8, 64, 28, 28], F16)
    grads = b.input("grads", [1 << 18], F16)
    w = b.const(rng.normal(0, 0.1, (64, 64, 3, 3)).astype(F16))
    y = b.relu(b.conv2d(x, w, pads=[1, 1, 1, 1]))
    reduced = b.hcom_all_reduce(grads, rank_size=1)
    module = b.build([y, reduced])
    result = timed(module, "mode=labels")
    report = result.report
    comm = [i for i in result.timeline.intervals if i.unit == "comm"]
    assert len(comm) == 1 and comm[0].stream != 0
    assert report.communication > 0 and report.overlapped > 0
    assert report.overlap_efficiency is not None and report.overlap_efficiency > 0.5
    assert report.communication_not_overlapped == pytest.approx(
        report.communication - report.overlapped
    )
    figures = report.to_json()["cluster"]
    assert figures["Overlapped"] == report.overlapped
    total = figures["Computing"] + figures["Communication(Not Overlapped)"] + figures["Free"]
    assert total == pytest.approx(report.makespan)


def test_the_timeline_never_depends_on_the_numbers():
    m = two_convs(1, 16, 8)
    api.compile(m, f"{LAYOUT},assign-streams{{mode=auto}},lower-to-device")
    program = api.device_program(m)
    runs = [
        api.simulate(program, seed=1),
        api.simulate(program, seed=2),
        api.simulate(program, timing_only=True),
    ]
    assert runs[0].timeline.intervals == runs[1].timeline.intervals == runs[2].timeline.intervals
    assert runs[2].outputs == {} and runs[0].outputs


profiles = st.builds(
    lambda cores, shared, vector, sustained, core_bw, launch: dataclasses.replace(
        load_profile(),
        cube_cores=cores,
        vector_cores=cores if shared else vector,
        shared_cores=shared,
        sustained_bandwidth=sustained,
        core_bandwidth=core_bw,
        launch_overhead=launch,
    ),
    st.integers(1, 32),
    st.booleans(),
    st.integers(1, 64),
    st.sampled_from([1e9, 1e11, 5e11, 2e12]),
    st.sampled_from([1e9, 3e10, 1.28e11]),
    st.sampled_from([0.0, 1e-7, 1.5e-6]),
)


def test_lower_bound_never_exceeds_the_makespan():
    seen: dict[str, int] = {"examples": 0, "multi_stream": 0, "tight": 0}

    @settings(max_examples=60)
    @given(cases(), st.sampled_from(["mode=single", "mode=labels", "mode=auto"]), profiles)
    def check(case: Case, mode: str, profile) -> None:
        result = timed(case.module, mode, profile)
        report = result.report
        bound = lower_bound(result.program, profile)
        assert bound.value_fs <= result.timeline.makespan_fs, (bound, report.makespan)
        # and so in what is printed: the conversion to microseconds keeps the order
        assert report.lower_bound <= report.makespan
        assert report.to_json()["makespan_over_bound"] >= 1
        assert all(i.ready_fs <= i.start_fs <= i.end_fs for i in result.timeline.intervals)
        seen["examples"] += 1
        seen["multi_stream"] += len(report.streams) > 1
        seen["tight"] += report.makespan <= 1.05 * report.lower_bound

    check()
    assert seen["examples"] >= 40 and seen["multi_stream"] >= 5 and seen["tight"] >= 5, seen


def test_report_keys(tmp_path):
    m = api.load(f"{ROOT}/examples/torchair_multistream.mlir")
    api.compile(m, "assign-streams,lower-to-device")
    document = api.simulate(m).report.to_json()
    planned = m.clone()
    api.compile(planned, "plan-memory")
    memory = api.simulate(planned).report.to_json()["memory"]
    assert memory["planned"] and memory["peak_bytes"] == 0
    assert set(document) == {
        "device",
        "makespan_us",
        "lower_bound_us",
        "makespan_over_bound",
        "limited_by",
        "critical_path_us",
        "launches",
        "events",
        "streams",
        "units",
        "cluster",
        "ratios",
        "memory",
    }
    assert document["memory"] == {"planned": False, "no_reuse_bytes": 0, "buffers": 0}
    assert document["events"] == {"records": 3, "waits": 3}
    assert [s["stream"] for s in document["streams"]] == [0, 1, 2]
    assert set(document["cluster"]) == {
        "Computing",
        "Communication",
        "Communication(Not Overlapped)",
        "Overlapped",
        "Free",
    }
    assert document["ratios"]["overlap_efficiency"] is None


# ---- ge-run's timing flags ------------------------------------------------------------------


def run(capsys, args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


EXAMPLE = f"{ROOT}/examples/resnet_block.mlir"


def test_ge_run_prints_the_report_and_compares_with_o0(capsys):
    code, out, err = run(capsys, [EXAMPLE, "--compare-unoptimized"])
    assert code == 0, err
    assert re.search(
        r"^makespan \S+ us, lower bound \S+ us \(critical path\), makespan / bound \S+$", out, re.M
    )
    assert re.search(
        r"^Computing \S+ us, Communication \S+ us, Communication\(Not Overlapped\) \S+ us, "
        r"Overlapped \S+ us, Free \S+ us$",
        out,
        re.M,
    )
    match = re.search(
        r"^unoptimized \(-O0\) makespan (\S+) us, optimized (\S+) us: speed-up (\S+)x$", out, re.M
    )
    assert match and float(match[1]) > float(match[2]) and float(match[3]) > 1


def test_ge_run_report_json_trace_and_timeline(capsys, tmp_path):
    trace, png = tmp_path / "t.json", tmp_path / "t.png"
    code, out, err = run(capsys, [EXAMPLE, "--report", "json", "--trace", trace, "--timeline", png])
    assert code == 0, err
    document = json.loads(out)
    assert set(document["outputs"]) == {"result0"} and document["makespan_us"] > 0
    events = json.loads(trace.read_text())["traceEvents"]
    assert {e["name"] for e in events if e["ph"] == "X"} == {"trans_data", "fused_conv2d"}
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_ge_run_timing_only(capsys):
    code, out, err = run(capsys, [EXAMPLE, "--timing-only", "--report", "json"])
    assert code == 0, err
    assert json.loads(out)["outputs"] == {}


PROFILE_ERRORS = {
    "missing": (None, r"^\S+nope\.json: error: cannot read profile: No such file or directory$"),
    "bad unit": ('"clock": "1 GHZ"', r"^\S+p\.json:3:12: error: clock: unknown unit \"GHZ\""),
}


@pytest.mark.parametrize("case", sorted(PROFILE_ERRORS))
def test_ge_run_bad_profile_is_one_located_error(capsys, tmp_path, case):
    replacement, pattern = PROFILE_ERRORS[case]
    if replacement is None:
        path = tmp_path / "nope.json"
    else:
        text = open(f"{ROOT}/ge_dialect/sim/profiles/ascend910.json").read()
        path = tmp_path / "p.json"
        path.write_text(re.sub(r'"clock": "[^"]*"', replacement, text))
    trace = tmp_path / "t.json"
    code, out, err = run(capsys, [EXAMPLE, "--profile", path, "--trace", trace])
    assert code == 1 and out == ""
    assert re.search(pattern, err) and len(err.strip().splitlines()) == 1, err
    assert not trace.exists()


@pytest.mark.parametrize("flag", ["--check", "--outputs=o.npz"])
def test_ge_run_timing_only_refuses_flags_that_need_numbers(capsys, flag):
    code, out, err = run(capsys, [EXAMPLE, "--timing-only", flag])
    assert code == 2 and re.fullmatch(
        r"ge-run: error: --\S+ needs numbers: it cannot go with --timing-only\n", err
    )


def test_a_long_chain_of_events_across_streams():
    """Streams that hand over to each other 2,000 times (no recursion limit; every wait
    starts after its record; the bound is the chain itself)."""
    launch = (
        'npu.launch "relu"(%x) -> (%a) stream {s} priority 0 : (tensor<4xf32>) -> '
        "(tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1>"
    )
    body = []
    for i in range(2000):
        s, other = i % 2, 1 - i % 2
        body += [launch.format(s=s), f"npu.record {i} stream {s}", f"npu.wait {i} stream {other}"]
    text = (
        'func.func @main(%x: memref<4xf32> {npu.input = "x"}, %y: memref<4xf32> '
        '{npu.output = "y"}) attributes {npu.program} {\n  %a = npu.alloc : memref<4xf32>\n  '
        + "\n  ".join(body)
        + "\n  npu.copy %a -> %y stream 0 : memref<4xf32>\n  func.return\n}\n"
    )
    result = api.simulate(api.parse(text, "chain.mlir"), timing_only=True)
    intervals = result.timeline.intervals
    assert len(result.timeline.flows) == 2000
    for flow in result.timeline.flows:
        assert intervals[flow.wait].end >= intervals[flow.record].end
    assert result.report.makespan == result.report.lower_bound


REPRODUCER = f"{ROOT}/test/unit/data/device/makespan_below_bound_g00.mlir"


def test_makespan_is_not_below_its_bound_by_rounding(capsys):
    """A program whose makespan is its critical path: summed as floats, in the order events
    happen, the makespan came out 22.515306122448976 us against a bound of
    22.51530612244898 us (makespan / bound 0.9999999999999999).  On the exact time base
    the two are equal, and so is what ge-run prints."""
    result = api.simulate(api.load(REPRODUCER), timing_only=True, check=False)
    bound = lower_bound(result.program, load_profile())
    assert result.timeline.makespan_fs == bound.value_fs == bound.critical_path_fs
    code, out, err = run(capsys, [REPRODUCER, "--timing-only", "--report", "json"])
    assert code == 0, err
    document = json.loads(out)
    assert document["makespan_us"] == document["lower_bound_us"] == document["critical_path_us"]
    assert document["makespan_us"] == pytest.approx(22.515306122448976, abs=1e-8)
    assert document["makespan_over_bound"] == 1.0
    assert document["limited_by"] == "critical path"
    code, out, err = run(capsys, [REPRODUCER, "--timing-only"])
    assert code == 0, err
    line = re.search(
        r"^makespan (\S+) us, lower bound (\S+) us \(critical path\), "
        r"makespan / bound (\S+)$",
        out,
        re.M,
    )
    assert line and line[1] == line[2] == "22.52" and line[3] == "1.000", out
