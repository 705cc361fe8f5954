"""--plan-memory on whole programs: the numbers do not change, the memory checker finds
nothing on planned programs (no race, no clobber under every stream mode, with and without
in-place writes), finds the races of a planner that ignores the streams and the clobbers
of one that ignores lifetimes altogether, and the peak sits between its lower bounds and the
size without reuse."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from helpers.random_graphs import Case, cases
from helpers.support import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from ge_dialect import api
from ge_dialect.sim.checker import check as check_memory
from ge_dialect.sim.order import start_order
from transforms import plan_memory

LAYOUT = "canonicalize,cse,fuse,to-nc1hwc0"


def lowered(module, mode: str):
    m = module.clone()
    api.compile(m, f"{LAYOUT},assign-streams{{mode={mode}}},lower-to-device")
    return m


def planned(module, mode: str, options: str = ""):
    m = lowered(module, mode)
    api.compile(m, f"plan-memory{{{options}}}" if options else "plan-memory")
    return m


def test_planned_random_graphs_compute_the_same_race_free_within_bounds():
    seen: Counter = Counter()

    @settings(max_examples=40)
    @given(cases(), st.sampled_from(["labels", "auto"]), st.booleans())
    def check(case: Case, mode: str, in_place: bool) -> None:
        inputs = {f"x{i}": x for i, x in enumerate(case.inputs)}
        before = api.simulate(lowered(case.module, mode), inputs)
        after = api.simulate(
            planned(case.module, mode, f"in-place={str(in_place).lower()}"), inputs
        )
        assert after.findings == [], after.findings
        for name, value in before.outputs.items():
            np.testing.assert_array_equal(after.outputs[name], value)
        memory = after.report.memory
        assert memory["planned"]
        assert memory["sequential_bound_bytes"] <= memory["stream_bound_bytes"]
        assert memory["stream_bound_bytes"] <= memory["peak_bytes"] <= memory["no_reuse_bytes"]
        seen["examples"] += 1
        seen["reuse"] += memory["peak_bytes"] < memory["no_reuse_bytes"]
        seen["streams"] += len(after.report.streams) > 1
        seen["tight"] += memory["peak_bytes"] == memory["stream_bound_bytes"]

    check()
    assert seen["examples"] >= 30 and seen["reuse"] >= 15 and seen["streams"] >= 5, seen
    assert seen["tight"] >= 10, seen


def test_a_planner_that_ignores_the_streams_is_caught(monkeypatch):
    """A planner that takes the start order for happens-before (as if one stream ran every
    task) reuses bytes another stream may still read: the race checker finds it."""

    def one_stream_clocks(order, streams, kinds, events):
        lanes = sorted(set(streams))
        clocks: list[tuple[int, ...]] = [()] * len(streams)
        for position, task in enumerate(order):
            clocks[task] = (position + 1,) * len(lanes)
        return lanes, clocks

    monkeypatch.setattr(plan_memory, "vector_clocks", one_stream_clocks)
    found = 0

    @settings(max_examples=30)
    @given(cases())
    def check(case: Case) -> None:
        nonlocal found
        inputs = {f"x{i}": x for i, x in enumerate(case.inputs)}
        result = api.simulate(planned(case.module, "auto"), inputs)
        found += any(f.kind == "race" for f in result.findings)

    check()
    assert found >= 3, found


def start_order_findings(module) -> list:
    """The memory checker's findings (races, clobbers, uninitialized reads) in the start
    order of the module's device program."""
    program = api.device_program(module)
    return check_memory(program, start_order(program).order)


def test_plan_memory_never_clobbers():
    """Random graphs, every stream mode, in place or not: the planned program has no
    finding, in the start order and in the timed one."""
    seen: Counter = Counter()

    @settings(max_examples=30)
    @given(cases(), st.sampled_from(["labels", "auto", "single"]), st.booleans())
    def check(case: Case, mode: str, in_place: bool) -> None:
        m = planned(case.module, mode, f"in-place={str(in_place).lower()}")
        assert start_order_findings(m) == []
        result = api.simulate(m, timing_only=True)
        assert result.findings == [], [f.message for f in result.findings]
        seen[mode] += 1
        seen["reuse"] += result.report.memory["peak_bytes"] < result.report.memory["no_reuse_bytes"]
        seen["streams"] += len(result.report.streams) > 1

    check()
    assert min(seen["labels"], seen["auto"], seen["single"]) >= 3, seen
    assert seen["reuse"] >= 10 and seen["streams"] >= 3, seen


def test_a_planner_that_ignores_lifetimes_is_caught(monkeypatch):
    """A planner that reads the start order backwards (a later task happens before an
    earlier one) gives bytes away while their value is still to be read: clobbers, on one
    stream, where the race checker alone has nothing to find."""

    def backwards(order, streams, kinds, events):
        lanes = sorted(set(streams))
        clocks: list[tuple[int, ...]] = [()] * len(streams)
        for position, task in enumerate(order):
            clocks[task] = (len(order) - position,) * len(lanes)
        return lanes, clocks

    monkeypatch.setattr(plan_memory, "vector_clocks", backwards)
    found: Counter = Counter()

    @settings(max_examples=20)
    @given(cases())
    def check(case: Case) -> None:
        findings = start_order_findings(planned(case.module, "single"))
        found["clobbered"] += any(f.kind == "clobber" for f in findings)
        found["races"] += any(f.kind == "race" for f in findings)

    check()
    assert found["clobbered"] >= 5 and found["races"] == 0, found


def test_ge_run_reports_memory(capsys):
    from ge_dialect.tools.ge_run import main

    code = main([f"{ROOT}/examples/resnet_block.mlir", "--report", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    import json

    memory = json.loads(out)["memory"]
    assert memory == {
        "planned": True,
        "peak_bytes": 12288,
        "stream_bound_bytes": 12288,
        "sequential_bound_bytes": 12288,
        "no_reuse_bytes": 12288,
        "buffers": 3,
        "optimal": True,
    }


@pytest.mark.parametrize("bad", ["alignment=0", "alignment=3"])
def test_bad_alignment_is_refused(bad):
    with pytest.raises(Exception, match="alignment must be a power of two"):
        api.compile(api.parse("builtin.module {}"), f"plan-memory{{{bad}}}")
