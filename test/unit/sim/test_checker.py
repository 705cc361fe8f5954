"""The race checker (`ge_dialect.sim.checker`) on broken and correct device programs.

- Broken programs written by hand: a missing wait (read-after-write across streams), a
  buffer written again while another stream still reads it (write-after-read, also with the
  reads shared by two streams), two unordered writers (write-after-write), two views of one
  allocation at different offsets racing only on their shared bytes; each finding's message
  is pinned for one case of each kind.  The same programs with the right events give no
  finding, also when the timed order puts a wait before its record.
- Zero false positives: the examples and random graphs (`random_graphs.cases`) compiled with
  automatic and labelled streams give no finding, in the simulated order and in
  `start_order`'s.
- Wiring: `api.simulate` returns the findings (also timing only, and none with
  `check=False`); ge-run prints each as a located error after the report and exits 1
  without writing its files; `--no-check` skips the checker; `--report json` lists them.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from helpers.random_graphs import Case, cases
from helpers.support import ROOT

from ge_dialect import api
from ge_dialect.sim.checker import check
from ge_dialect.sim.order import SimulationError, start_order
from ge_dialect.sim.program import find_program, read_program
from ge_dialect.tools.ge_run import main as ge_run

HEADER = (
    'func.func @main(%x: memref<{n}xf32> {{npu.input = "x"}}, '
    '%y: memref<4xf32> {{npu.output = "y"}}) attributes {{npu.program}} {{'
)


def launch(kernel: str, ins: list[str], out: str, stream: int, n: int = 4) -> str:
    types = ", ".join([f"tensor<{n}xf32>"] * len(ins))
    return (
        f'npu.launch "{kernel}"({", ".join(ins)}) -> ({out}) stream {stream} priority 0 : '
        f"({types}) -> (tensor<{n}xf32>) cost <vector, flops = {n}, bytes_in = {4 * n}, "
        f"bytes_out = {4 * n}, blocks = 1> attrs {{}}"
    )


def relu(src: str, dst: str, stream: int, n: int = 4) -> str:
    return launch("relu", [src], dst, stream, n)


def source(lines: list[str], n: int = 4) -> str:
    """A program: the header is line 1, `lines` start at line 2 (column 3)."""
    return "\n".join([HEADER.format(n=n), *(f"  {line}" for line in lines), "  func.return", "}"])


def program_of(lines: list[str], n: int = 4):
    module = api.parse(source(lines, n), "p.mlir")
    api.verify(module)
    return module, read_program(find_program(module))


def races(lines: list[str], n: int = 4) -> list:
    """The findings in `start_order`'s order; the simulated order finds races too (maybe
    with the pair the other way round), or none when there are none."""
    module, program = program_of(lines, n)
    findings = check(program, start_order(program).order)
    simulated = api.simulate(module, timing_only=True).findings
    assert bool(simulated) == bool(findings), (findings, simulated)
    return findings


ALLOC = "%a = npu.alloc : memref<4xf32>"

MISSING_WAIT = [
    ALLOC,
    relu("%x", "%a", 0),  # line 3: writes %a
    relu("%a", "%y", 1),  # line 4: reads it on another stream, nothing waited for
]


def test_missing_wait_is_a_read_after_write():
    [finding] = races(MISSING_WAIT)
    assert finding.kind == "race" and finding.tasks == (0, 1)
    assert finding.message == (
        "race: read-after-write on bytes [0, 16) of allocation 0: launch 'relu' on stream 1 "
        "(p.mlir:4:3) reads what launch 'relu' on stream 0 (p.mlir:3:3) writes, and no "
        "event orders them"
    )


def test_the_wait_orders_the_read():
    fixed = [
        ALLOC,
        "npu.wait 0 stream 1",
        relu("%x", "%a", 0),
        "npu.record 0 stream 0",
        relu("%a", "%y", 1),
    ]
    module, program = program_of(fixed)
    assert check(program, start_order(program).order) == []
    result = api.simulate(module)
    assert result.findings == []
    # the timed order has the wait (task 0, ready at once) before its record (task 2)
    assert result.order.index(0) < result.order.index(2)


REUSED = [
    ALLOC,
    "%b = npu.alloc : memref<4xf32>",
    relu("%x", "%a", 0),  # 0, line 4: writes %a
    "npu.record 0 stream 0",  # 1
    "npu.wait 0 stream 1",  # 2
    relu("%a", "%y", 1),  # 3, line 7: reads %a on stream 1
    relu("%x", "%b", 0),  # 4
    relu("%b", "%a", 0),  # 5, line 9: reuses %a while stream 1 may still read it
]


def test_reuse_while_another_stream_reads_is_a_write_after_read():
    [finding] = races(REUSED)
    assert finding.tasks == (3, 5)
    assert finding.message == (
        "race: write-after-read on bytes [0, 16) of allocation 0: launch 'relu' on stream 0 "
        "(p.mlir:9:3) writes what launch 'relu' on stream 1 (p.mlir:7:3) reads, and no "
        "event orders them"
    )


def test_reuse_after_the_reader_is_done():
    fixed = [
        *REUSED[:6],
        "npu.record 1 stream 1",
        relu("%x", "%b", 0),
        "npu.wait 1 stream 0",
        REUSED[7],
    ]
    assert races(fixed) == []


def test_shared_reads_then_a_write_ordered_after_one_reader():
    lines = [
        ALLOC,
        "%b = npu.alloc : memref<4xf32>",
        relu("%x", "%a", 0),  # 0
        "npu.record 0 stream 0",  # 1
        "npu.wait 0 stream 1",  # 2
        "npu.wait 0 stream 2",  # 3
        relu("%a", "%y", 1),  # 4: reads %a
        relu("%a", "%b", 2),  # 5: reads %a, concurrently
        "npu.record 1 stream 2",  # 6
        "npu.wait 1 stream 0",  # 7
        relu("%x", "%a", 0),  # 8: after stream 2's read (the later one), not stream 1's
    ]
    assert [(f.message.split(" on bytes")[0], f.tasks) for f in races(lines)] == [
        ("race: write-after-read", (4, 8))
    ]
    both = [
        *lines[:9],
        "npu.record 2 stream 1",
        "npu.wait 1 stream 0",
        "npu.wait 2 stream 0",
        lines[10],
    ]
    assert races(both) == []


UNORDERED_WRITERS = [
    ALLOC,
    relu("%x", "%a", 0),  # line 3
    relu("%x", "%a", 1),  # line 4
    relu("%a", "%y", 1),
]


def test_two_unordered_writers_are_a_write_after_write():
    [finding] = races(UNORDERED_WRITERS)
    assert finding.tasks == (0, 1)
    assert finding.message == (
        "race: write-after-write on bytes [0, 16) of allocation 0: launch 'relu' on stream 1 "
        "(p.mlir:4:3) writes what launch 'relu' on stream 0 (p.mlir:3:3) writes too, and no "
        "event orders them"
    )


def test_ordered_writers():
    fixed = [
        ALLOC,
        relu("%x", "%a", 0),
        "npu.record 0 stream 0",
        "npu.wait 0 stream 1",
        *UNORDERED_WRITERS[2:],
    ]
    assert races(fixed) == []


VIEWS = [
    "%w = npu.alloc : memref<8xf32>",
    "%v0 = npu.view %w[0] : memref<8xf32> -> memref<4xf32>",  # bytes [0, 16)
    "%v1 = npu.view %w[8] : memref<8xf32> -> memref<4xf32>",  # bytes [8, 24)
    "%v2 = npu.view %w[16] : memref<8xf32> -> memref<4xf32>",  # bytes [16, 32)
]


def test_partial_overlap_races_on_the_shared_bytes_only():
    lines = [
        *VIEWS,
        relu("%x", "%v0", 0),  # 0, line 6: bytes [0, 16)
        relu("%x", "%v2", 1),  # 1: bytes [16, 32), disjoint from task 0's
        relu("%x", "%v1", 1),  # 2, line 8: bytes [8, 24): shares [8, 16) with task 0
    ]
    [finding] = races(lines)
    assert finding.tasks == (0, 2)
    assert finding.message.startswith(
        "race: write-after-write on bytes [8, 16) of allocation 0: launch 'relu' on stream 1 "
        "(p.mlir:8:3)"
    )
    disjoint = [*VIEWS, relu("%x", "%v0", 0), relu("%x", "%v2", 1), relu("%v2", "%y", 1)]
    assert races(disjoint) == []


def test_one_finding_per_pair_over_several_segments():
    lines = [
        *VIEWS,
        relu("%x", "%w", 0, n=8),  # 0: writes all 32 bytes
        launch("add", ["%v0", "%v1"], "%y", 1),  # 1: reads [0, 16) and [8, 24)
    ]
    [finding] = races(lines, n=8)
    assert finding.tasks == (0, 1)
    assert finding.message.startswith("race: read-after-write on bytes [0, 24) of allocation 0")


def test_the_workspace_is_named():
    lines = [
        "%ws = npu.alloc : memref<64xi8>",
        "%v = npu.view %ws[16] : memref<64xi8> -> memref<4xf32>",
        relu("%x", "%v", 0),
        relu("%v", "%y", 1),
    ]
    [finding] = races(lines)
    assert "race: read-after-write on bytes [16, 32) of the workspace: " in finding.message


def test_inputs_and_weights_count_as_written_before_every_task():
    lines = [
        "%c = npu.weight dense<[1.0, 2.0, 3.0, 4.0]> : memref<4xf32>",
        ALLOC,
        launch("add", ["%x", "%c"], "%a", 1),
        launch("add", ["%x", "%c"], "%y", 0),
    ]
    assert races(lines) == []


def test_a_deadlock_is_not_a_race_finding():
    lines = [ALLOC, relu("%x", "%a", 0), "npu.wait 0 stream 1", relu("%a", "%y", 1)]
    module, program = program_of(lines)
    assert check(program, start_order(program).order) == []
    with pytest.raises(SimulationError, match="deadlock"):
        api.simulate(module)


def test_simulate_returns_the_findings():
    module, _ = program_of(MISSING_WAIT)
    result = api.simulate(module, {"x": np.ones(4, np.float32)})
    assert [f.tasks for f in result.findings] == [(0, 1)]
    assert [f.tasks for f in api.simulate(module, timing_only=True).findings] == [(0, 1)]
    assert api.simulate(module, check=False).findings == []


# ---- zero false positives -----------------------------------------------------------------

PIPELINES = [
    "canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto},lower-to-device",
    "canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=labels},lower-to-device",
]


def assert_race_free(module, streams: Counter) -> None:
    for pipeline in PIPELINES:
        m = module.clone()
        api.compile(m, pipeline)
        result = api.simulate(m, timing_only=True)
        assert result.findings == [], (pipeline, [f.message for f in result.findings])
        program = result.program
        assert check(program, start_order(program).order) == [], pipeline
        streams[len(program.streams)] += 1


@pytest.mark.parametrize("example", ["resnet_block.mlir", "torchair_multistream.mlir"])
def test_examples_are_race_free(example):
    streams: Counter = Counter()
    assert_race_free(api.load(f"{ROOT}/examples/{example}"), streams)


def test_random_graphs_are_race_free():
    streams: Counter = Counter()

    @settings(max_examples=40, deadline=None)
    @given(cases())
    def run(case: Case) -> None:
        assert_race_free(case.module, streams)

    run()
    assert sum(streams.values()) >= 60, streams
    assert sum(n for k, n in streams.items() if k > 1) >= 5, streams  # multi-stream programs


# ---- ge-run -----------------------------------------------------------------------------


@pytest.fixture
def racy(tmp_path):
    path = tmp_path / "race.mlir"
    path.write_text(source(MISSING_WAIT) + "\n")
    return path


def test_ge_run_reports_races_and_fails(racy, tmp_path, capsys):
    out = tmp_path / "out.npz"
    assert ge_run([str(racy), "--outputs", str(out)]) == 1
    captured = capsys.readouterr()
    assert "makespan" in captured.out  # the report first
    assert captured.err == (
        f"{racy}: error: race: read-after-write on bytes [0, 16) of allocation 0: launch "
        f"'relu' on stream 1 ({racy}:4:3) reads what launch 'relu' on stream 0 ({racy}:3:3) "
        "writes, and no event orders them\n"
    )
    assert not out.exists()


def test_ge_run_no_check(racy, tmp_path, capsys):
    out = tmp_path / "out.npz"
    assert ge_run([str(racy), "--no-check", "--outputs", str(out)]) == 0
    assert capsys.readouterr().err == ""
    assert out.exists()


def test_ge_run_json_lists_findings(racy, capsys):
    assert ge_run([str(racy), "--report", "json", "--timing-only"]) == 1
    document = json.loads(capsys.readouterr().out)
    [finding] = document["findings"]
    assert finding["kind"] == "race" and finding["tasks"] == [0, 1]
    assert finding["message"].startswith("race: read-after-write on bytes [0, 16)")
