"""The fuzzer's device mode (`dev/fuzz_device.py`): its happens-before model on hand-written
programs (ordered, racy, clobbered, uninitialized, deadlocked, an event on two streams),
the reading of ge-run's answers, each failure class caught on a planted ge-run, and a
fixed-seed campaign in CI that must be clean.  A longer campaign is a command:

    python dev/fuzz.py --device --mutants 2000 --seed 0 --save build/fuzz-device --reduce
"""

from __future__ import annotations

import os
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.support import ROOT

from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context

sys.path.insert(0, os.path.join(ROOT, "dev"))
import fuzz_device  # noqa: E402  (dev/fuzz_device.py: a developer's tool, not installed)

COST = "cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1>"


def relu(src: str, dst: str, stream: int) -> str:
    """A relu launch on 4 f32s (16 bytes)."""
    return (
        f'npu.launch "relu"({src}) -> ({dst}) stream {stream} priority 0 : '
        f"(tensor<4xf32>) -> (tensor<4xf32>) {COST} attrs {{}}"
    )


def program(*body: str) -> list[fuzz_device.ModelFinding]:
    """The model's findings on a program of input %x, output %y, a 64-byte workspace and
    the `body` lines (one op each; line 3 is the first)."""
    lines = [
        'func.func @main(%x: memref<4xf32> {npu.input = "x"}, '
        '%y: memref<4xf32> {npu.output = "y"}) attributes {npu.program} {',
        "  %ws = npu.alloc : memref<64xi8>",
        *("  " + line for line in body),
        "  func.return",
        "}",
    ]
    text = "\n".join(lines) + "\n"
    module = LocatingParser(make_context(), text, "p.mlir").parse_module()
    return fuzz_device.analyse(module)


def view(name: str, offset: int) -> str:
    return f"{name} = npu.view %ws[{offset}] : memref<64xi8> -> memref<4xf32>"


def kinds(findings: list[fuzz_device.ModelFinding]) -> list[str]:
    return [f.kind for f in findings]


# ---- the model ----------------------------------------------------------------------------


def test_an_event_orders_two_streams() -> None:
    assert (
        program(
            view("%a", 0),
            relu("%x", "%a", 0),
            "npu.record 0 stream 0",
            "npu.wait 0 stream 1",
            relu("%a", "%y", 1),
        )
        == []
    )


def test_happens_before_is_transitive_through_streams() -> None:
    assert (
        program(
            view("%a", 0),
            relu("%x", "%a", 0),
            "npu.record 0 stream 0",
            "npu.wait 0 stream 1",
            "npu.record 1 stream 1",
            "npu.wait 1 stream 2",
            relu("%a", "%y", 2),
        )
        == []
    )


def test_a_read_without_the_wait_races() -> None:
    findings = program(view("%a", 0), relu("%x", "%a", 0), relu("%a", "%y", 1))
    assert kinds(findings) == ["race"]
    assert findings[0].tasks == ("4:3", "5:3")
    assert findings[0].message == (
        "race: launch 'relu' on stream 0 (4:3) writes and launch 'relu' on stream 1 (5:3) "
        "reads bytes [0, 16) of %ws, and nothing orders them"
    )


def test_a_wait_placed_before_the_write_does_not_order_it() -> None:
    findings = program(
        view("%a", 0),
        "npu.record 0 stream 0",
        relu("%x", "%a", 0),
        "npu.wait 0 stream 1",
        relu("%a", "%y", 1),
    )
    assert kinds(findings) == ["race"]


def test_overlapping_views_race_on_their_common_bytes() -> None:
    findings = program(
        view("%a", 0),
        view("%b", 8),
        relu("%x", "%a", 0),
        relu("%x", "%b", 1),
    )
    assert kinds(findings) == ["race"]
    assert "bytes [8, 16) of %ws" in findings[0].message


def test_disjoint_bytes_and_two_reads_do_not_race() -> None:
    assert program(view("%a", 0), view("%b", 16), relu("%x", "%a", 0), relu("%x", "%b", 1)) == []


def test_an_ordered_overwrite_is_a_clobber() -> None:
    findings = program(
        view("%a", 0),
        view("%b", 0),
        relu("%x", "%a", 0),
        relu("%x", "%b", 0),
        relu("%a", "%y", 0),
    )
    assert kinds(findings) == ["clobber"]
    assert findings[0].tasks == ("7:3", "6:3")
    assert "last written as %b by launch 'relu' on stream 0 (6:3)" in findings[0].message


def test_a_reshape_view_reads_its_source_value() -> None:
    """A view of a workspace view is that view's value: a copy through it reads what the
    view's writer wrote (no clobber)."""
    findings = program(
        view("%a", 0),
        "%b = npu.view %ws[16] : memref<64xi8> -> memref<2x2xf32>",
        relu("%x", "%a", 0),
        "%r = npu.view %a[0] : memref<4xf32> -> memref<2x2xf32>",
        "npu.copy %r -> %b stream 0 : memref<2x2xf32>",
    )
    assert findings == []


def test_an_in_place_update_is_a_value_of_its_own() -> None:
    """A launch writing a view of the buffer it reads (scatter_update's in-place update)
    leaves a new value there: a later read of the old value is a clobber, of the new one
    fine (as the simulator's checker has it)."""
    update = [
        view("%a", 0),
        relu("%x", "%a", 0),
        "%n = npu.view %a[0] : memref<4xf32> -> memref<4xf32>",
        relu("%a", "%n", 0),
    ]
    findings = program(*update, relu("%a", "%y", 0))
    assert kinds(findings) == ["clobber"]
    assert findings[0].tasks == ("7:3", "6:3")
    assert program(*update, relu("%n", "%y", 0)) == []


def test_a_read_of_bytes_nothing_wrote_is_uninitialized() -> None:
    findings = program(view("%a", 0), relu("%a", "%y", 0))
    assert kinds(findings) == ["uninitialized"]
    assert findings[0].tasks == ("4:3",)


def test_inputs_hold_their_value_from_the_start() -> None:
    assert program(relu("%x", "%y", 0)) == []


def test_a_wait_nothing_records_is_a_deadlock() -> None:
    findings = program(relu("%x", "%y", 0), "npu.wait 0 stream 0")
    assert kinds(findings) == ["deadlock"]
    assert "wait of event 0 on stream 0 (4:3) waits for a record nothing issues" in (
        findings[0].message
    )


def test_streams_waiting_on_each_other_deadlock() -> None:
    findings = program(
        "npu.wait 1 stream 0",
        "npu.record 0 stream 0",
        "npu.wait 0 stream 1",
        "npu.record 1 stream 1",
    )
    assert kinds(findings) == ["deadlock"]
    assert findings[0].message.startswith("deadlock: a cycle of waits: wait of event 1")


def test_a_wait_before_its_record_on_one_stream_deadlocks() -> None:
    assert kinds(program("npu.wait 0 stream 0", "npu.record 0 stream 0")) == ["deadlock"]


def test_an_event_recorded_on_two_streams_is_a_finding() -> None:
    findings = program(
        view("%a", 0),
        relu("%x", "%a", 0),
        "npu.record 0 stream 0",
        "npu.record 0 stream 1",
        "npu.wait 0 stream 2",
        relu("%a", "%y", 2),
    )
    assert kinds(findings) == ["event"]
    assert findings[0].message == "event 0 is recorded on streams 0, 1 (first at 5:3)"


def test_the_first_record_of_an_event_counts() -> None:
    """A second record of the event, after the write, does not order the read."""
    findings = program(
        view("%a", 0),
        "npu.record 0 stream 0",
        relu("%x", "%a", 0),
        "npu.record 0 stream 0",
        "npu.wait 0 stream 1",
        relu("%a", "%y", 1),
    )
    assert kinds(findings) == ["race"]


def test_unordered_writes_before_a_read_are_a_race_not_a_clobber() -> None:
    findings = program(
        view("%a", 0),
        view("%b", 0),
        relu("%x", "%a", 0),
        relu("%x", "%b", 1),
        "npu.record 0 stream 1",
        "npu.wait 0 stream 0",
        relu("%a", "%y", 0),
    )
    assert kinds(findings) == ["race"]  # the two writes


# ---- reading ge-run's answer --------------------------------------------------------------


def test_located_lines_and_finding_lines() -> None:
    stderr = textwrap.dedent(
        """\
        p.mlir:3:5: error: bad
        p.mlir: error: race: read-after-write on bytes [0, 16) of x: launch 'relu' on stream 1 \
        (p.mlir:5:3) reads what launch 'relu' on stream 0 (p.mlir:4:3) writes
        p.mlir: error: something went wrong
        Traceback (most recent call last):
        """
    )
    assert fuzz_device.unlocated(stderr) == [
        "p.mlir: error: something went wrong",
        "Traceback (most recent call last):",
    ]
    assert fuzz_device.tool_findings(stderr) == [("race", ("5:3", "4:3"))]


def test_a_checker_finding_the_model_does_not_share_is_a_false_alarm() -> None:
    racy = program(view("%a", 0), relu("%x", "%a", 0), relu("%a", "%y", 1))
    assert fuzz_device.compare([("race", ("5:3", "4:3"))], racy, "") == ("", "")
    failure, _ = fuzz_device.compare([("race", ("5:3", "9:9"))], racy, "")
    assert failure == "false-alarm-race"
    failure, _ = fuzz_device.compare([("deadlock", ("5:3",))], racy, "")
    assert failure == "false-alarm-deadlock"
    failure, _ = fuzz_device.compare([("clobber", ("7:7", "8:8"))], racy, "")
    assert failure == "false-alarm-clobber"
    race = ("race", ("5:3", "4:3"))
    failure, _ = fuzz_device.compare([race, ("uninitialized", ("5:3",))], racy, "")
    assert failure == ""  # a finding at a racing task: the race decides what it reads
    failure, _ = fuzz_device.compare([("clobber", ("9:9", "4:3"))], [], "")
    assert failure == "false-alarm-clobber"


def test_a_race_the_checker_leaves_out_is_incomplete() -> None:
    two = program(
        view("%a", 0),
        relu("%x", "%a", 0),
        relu("%a", "%y", 1),
        relu("%x", "%a", 2),
    )
    assert kinds(two) == ["race", "race", "race"]
    failure, detail = fuzz_device.compare([("race", ("5:3", "4:3"))], two, "")
    assert failure == "incomplete-race"
    assert "not reported" in detail


# ---- mutations ----------------------------------------------------------------------------


def test_launch_lines_split_and_print_back() -> None:
    line = (
        '    npu.launch "conv2d"(%2, %3) -> (%5) stream 1 priority 0 : (tensor<1x8x8x8xf32, '
        "#npu.format<NC1HWC0>>, tensor<8x8x3x3xf32, #npu.format<FRACTAL_Z>>) -> (tensor<1x8x8x8xf32"
        ", #npu.format<NC1HWC0>>) cost <cube, flops = 1, bytes_in = 2, bytes_out = 3, blocks = 4> "
        'attrs {dilations = array<i64: 1, 1>, groups = 1 : i64, name = "a, b"}'
    )
    launch = fuzz_device.Launch.parse(line)
    assert launch is not None
    assert launch.ins == ["%2", "%3"] and launch.outs == ["%5"] and launch.stream == 1
    assert launch.in_types[1] == "tensor<8x8x3x3xf32, #npu.format<FRACTAL_Z>>"
    span = launch.attrs()
    assert span is not None
    assert fuzz_device.split_top(launch.rest[span[0] : span[1]]) == [
        "dilations = array<i64: 1, 1>",
        "groups = 1 : i64",
        'name = "a, b"',
    ]
    assert launch.text() == line


def test_mutants_are_the_same_for_the_same_seed() -> None:
    import random

    text = _tiny_program()
    seed = fuzz_device.Seed("tiny", text, None)
    first = list(fuzz_device.mutants([seed], 30, random.Random(5)))
    again = list(fuzz_device.mutants([seed], 30, random.Random(5)))
    assert [m.text for m in first] == [m.text for m in again]
    assert all(m.text != text for m in first)
    assert len({k for m in first for k in m.kinds}) >= 6


def _tiny_program() -> str:
    return "\n".join(
        [
            "builtin.module {",
            '  func.func @main(%x: memref<4xf32> {npu.input = "x"}, %y: memref<4xf32> '
            '{npu.output = "y"}) attributes {npu.program} {',
            "    %ws = npu.alloc : memref<64xi8>",
            "    " + view("%a", 0),
            "    " + view("%b", 32),
            "    " + relu("%x", "%a", 0),
            "    npu.record 0 stream 0",
            "    npu.wait 0 stream 1",
            "    " + relu("%a", "%b", 1),
            "    npu.copy %b -> %y stream 1 : memref<4xf32>",
            "    func.return",
            "  }",
            "}",
        ]
    )


# ---- judging one mutant -------------------------------------------------------------------


def _judge(text: str, entry: Callable[[list[str]], int], tmp_path: Path) -> tuple[str, str]:
    """(outcome, failure class) of a mutant whose ge-run is `entry`."""
    campaign = fuzz_device.DeviceCampaign(timeout=20.0, entry=entry)
    mutant = fuzz_device.Mutant(fuzz_device.Seed("tiny", text, None), text, ("test",), ())
    outcome, failure, _ = campaign.judge(mutant, tmp_path, [])
    return outcome, failure


def _racy_program() -> str:
    return _tiny_program().replace("    npu.wait 0 stream 1\n", "")


def test_each_failure_class_is_caught(tmp_path: Path) -> None:
    """A ge-run that crashes, answers differently twice, accepts a race, reports a race
    the model does not see, or prints an unlocated error: each is its failure class."""
    from ge_dialect.tools import ge_run

    def crash(args: list[str]) -> int:
        raise IndexError("planted")

    def clock(args: list[str]) -> int:
        print(time.monotonic_ns())
        return 0

    def unchecked(args: list[str]) -> int:
        return ge_run.main([*args, "--no-race-check"])

    def alarm(args: list[str]) -> int:
        where = "mutant.mlir"
        print(
            f"{where}: error: race: launch 'relu' on stream 0 ({where}:6:5) and copy on "
            f"stream 1 ({where}:10:5)",
            file=sys.stderr,
        )
        return 1

    def unlocated(args: list[str]) -> int:
        print("error: something broke", file=sys.stderr)
        return 1

    clean, racy = _tiny_program(), _racy_program()
    assert _judge(clean, ge_run.main, tmp_path) == ("accepted", "")
    assert _judge(racy, ge_run.main, tmp_path) == ("rejected by checker", "")
    assert _judge(clean, crash, tmp_path) == ("traceback", "traceback")
    assert _judge(clean, clock, tmp_path) == ("nondeterministic", "nondeterministic")
    assert _judge(racy, unchecked, tmp_path) == ("accepted", "miss-race")
    assert _judge(clean, alarm, tmp_path) == ("rejected by checker", "false-alarm-race")
    assert _judge(clean, unlocated, tmp_path) == ("rejected other", "unlocated")
    bad = clean.replace("memref<64xi8>", "memref<8xi8>", 1)
    assert _judge(bad, ge_run.main, tmp_path) == ("rejected by verifier", "")


# ---- campaigns ----------------------------------------------------------------------------


def test_the_campaign_catches_a_ge_run_that_accepts_races() -> None:
    """The checks can fail: ge-run without its race checker accepts racy mutants, which
    the model convicts (misses)."""
    from ge_dialect.tools import ge_run

    def unchecked(args: list[str]) -> int:
        return ge_run.main([*args, "--no-race-check"])

    campaign, _ = fuzz_device.fuzz_device(30, seed=3, graphs=4, zoo=False, entry=unchecked)
    assert any(f.startswith("miss-") for f in campaign.failures), campaign.report(0.0, 0)


def test_a_fixed_seed_campaign_is_clean(capsys: pytest.CaptureFixture[str]) -> None:
    campaign, seeds = fuzz_device.fuzz_device(120, seed=2026, graphs=8, zoo=False, timeout=20.0)
    report = campaign.report(0.0, seeds)
    with capsys.disabled():
        print("\n" + "\n".join(report.splitlines()[:3]).replace(" in 0 s", ""))
    assert not campaign.failures, report
    assert campaign.outcomes["accepted"] >= 12  # mutants that reach the model
    assert campaign.outcomes["rejected by checker"] >= 25  # and the checker
