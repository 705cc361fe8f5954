"""The race checker (`ge_dialect.sim.checker`) on broken and correct device programs.

- Broken programs written by hand: a missing wait (read-after-write across streams), a
  buffer written again while another stream still reads it (write-after-read, also with the
  reads shared by two streams), two unordered writers (write-after-write), two views of one
  allocation at different offsets racing only on their shared bytes; each finding's message
  is pinned for one case of each kind.  The same programs with the right events give no
  finding, also when the timed order puts a wait before its record.
- Every racing pair: two unordered writers and a read ordered after the second only (both
  pairs); two reads on one stream unordered with a write (both); the accesses of a stream
  that ended stay until every stream has seen them.
- Against brute force: random programs on up to three streams with views of a workspace and
  of an allocation, in random legal orders, give exactly the racing pairs (per kind),
  clobbers and uninitialized reads that comparing every pair of tasks (happens-before from
  `task_order.vector_clocks`) and replaying memory byte by byte gives; `clobber=False`
  exactly the races.
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
from helpers.random_graphs import Case, cases
from helpers.support import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from ge_dialect import api
from ge_dialect.sim.checker import check
from ge_dialect.sim.order import SimulationError, start_order
from ge_dialect.sim.program import WEIGHT, find_program, read_program
from ge_dialect.tools.ge_run import main as ge_run
from ge_dialect.utils.task_order import RECORD, WAIT, vector_clocks

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
    waw, raw = races(UNORDERED_WRITERS)
    assert waw.tasks == (0, 1)
    assert waw.message == (
        "race: write-after-write on bytes [0, 16) of allocation 0: launch 'relu' on stream 1 "
        "(p.mlir:4:3) writes what launch 'relu' on stream 0 (p.mlir:3:3) writes too, and no "
        "event orders them"
    )
    # the read on stream 1 is ordered after the second write, not the first
    assert raw.tasks == (0, 2)
    assert raw.message.startswith("race: read-after-write on bytes [0, 16) of allocation 0")


def test_every_earlier_access_of_a_stream_races_with_an_unordered_access():
    """Two reads of %a in a row on stream 1 and a write of %a on stream 0 that no event
    orders after either: two write-after-reads (not only the last read's)."""
    lines = [
        ALLOC,
        "%b = npu.alloc : memref<4xf32>",
        relu("%x", "%a", 0),  # 0
        "npu.record 0 stream 0",  # 1
        "npu.wait 0 stream 1",  # 2
        relu("%a", "%y", 1),  # 3
        relu("%a", "%b", 1),  # 4
        relu("%x", "%a", 0),  # 5
    ]
    assert [(f.message.split(" on bytes")[0], f.tasks) for f in races(lines)] == [
        ("race: write-after-read", (3, 5)),
        ("race: write-after-read", (4, 5)),
    ]


def test_accesses_of_a_finished_stream_are_settled_once_every_stream_saw_them():
    """Stream 1 writes %a and ends; stream 0 waits for it, then stream 2 reads %a without
    waiting: stream 1's write is not settled (stream 2 has not seen it), a race."""
    lines = [
        ALLOC,
        "%b = npu.alloc : memref<4xf32>",
        relu("%x", "%a", 1),  # 0
        "npu.record 0 stream 1",  # 1
        "npu.wait 0 stream 0",  # 2
        relu("%a", "%y", 0),  # 3
        relu("%a", "%b", 2),  # 4: reads %a, ordered after task 0 by nothing
    ]
    assert [(f.message.split(" on bytes")[0], f.tasks) for f in races(lines)] == [
        ("race: read-after-write", (0, 4))
    ]


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


# ---- against brute force ------------------------------------------------------------------

RANDOM_BUFFERS = [
    "%ws = npu.alloc : memref<48xi8>",  # a workspace: its views are values of their own
    *(
        f"%w{k} = npu.view %ws[{off}] : memref<48xi8> -> memref<4xf32>"
        for k, off in enumerate([0, 8, 16, 32])
    ),
    "%a = npu.alloc : memref<8xf32>",  # an allocation: its views are its value
    "%a0 = npu.view %a[0] : memref<8xf32> -> memref<4xf32>",
    "%a1 = npu.view %a[16] : memref<8xf32> -> memref<4xf32>",
]
WRITABLE = ["%y", "%w0", "%w1", "%w2", "%w3", "%a0", "%a1"]


@st.composite
def random_programs(draw) -> list[str]:
    """A hand-written program on up to 3 streams: launches reading and writing views of a
    workspace and of an allocation (overlapping at random), records of fresh events and
    waits for events already recorded (so the issue order itself runs: no deadlock)."""
    streams = draw(st.lists(st.integers(0, 2), min_size=2, max_size=14))
    dense = {s: k for k, s in enumerate(dict.fromkeys(streams))}  # stream ids 0..n-1
    lines = list(RANDOM_BUFFERS)
    events = 0
    for stream in (dense[s] for s in streams):
        what = draw(st.sampled_from(["launch", "launch", "launch", "record", "wait"]))
        if what == "record":
            lines.append(f"npu.record {events} stream {stream}")
            events += 1
        elif what == "wait" and events:
            lines.append(f"npu.wait {draw(st.integers(0, events - 1))} stream {stream}")
        else:
            ins = draw(
                st.lists(st.sampled_from(["%x", "%x", "%x", *WRITABLE]), min_size=1, max_size=2)
            )
            kernel = "relu" if len(ins) == 1 else "add"
            lines.append(launch(kernel, ins, draw(st.sampled_from(WRITABLE)), stream))
    return lines


def legal_order(program, picks: list[int]) -> list[int]:
    """A start order the streams and events allow, the next stream drawn from `picks`."""
    queues: dict[int, list[int]] = {}
    for task in program.tasks:
        queues.setdefault(task.stream, []).append(task.index)
    recorded: set[int] = set()
    order: list[int] = []
    k = 0
    while any(queues.values()):
        ready = [
            s
            for s in sorted(queues)
            if queues[s]
            and (
                program.tasks[queues[s][0]].kind != WAIT
                or program.tasks[queues[s][0]].event in recorded
            )
        ]
        s = ready[picks[k % len(picks)] % len(ready)]
        k += 1
        task = program.tasks[queues[s].pop(0)]
        if task.kind == RECORD:
            recorded.add(task.event)
        order.append(task.index)
    return order


def expected_findings(program, order: list[int]) -> list[tuple]:
    """Every racing pair, clobber and uninitialized read, by brute force: happens-before
    from `task_order.vector_clocks`, every pair of tasks, memory byte by byte."""
    races = expected_races(program, order)
    clobbers, unwritten = expected_values(program, order)
    war = {tasks[0] for _, what, tasks in races if what == "write-after-read"}
    uninitialized = [("uninitialized", "", (i,)) for i, _ in sorted(unwritten) if i not in war]
    return sorted([*races, *clobbers, *uninitialized])


def bytes_of(program, i: int) -> set[tuple[int, int]]:
    """The (root, byte) pairs of buffer `i` (none for weights)."""
    b = program.buffers[i]
    if program.buffers[b.root].kind == WEIGHT:
        return set()
    return {(b.root, x) for x in range(b.offset, b.offset + b.nbytes)}


def expected_races(program, order: list[int]) -> set[tuple]:
    tasks = program.tasks
    _, clocks = vector_clocks(
        order, [t.stream for t in tasks], [t.kind for t in tasks], [t.event for t in tasks]
    )
    lanes = program.streams

    def before(a: int, b: int) -> bool:
        k = lanes.index(tasks[a].stream)
        return clocks[a][k] <= clocks[b][k]

    reads = [set().union(*(bytes_of(program, i) for i in t.inputs)) for t in tasks]
    writes = [set().union(*(bytes_of(program, i) for i in t.outputs)) for t in tasks]
    found = set()
    for p, i in enumerate(order):
        for j in order[p + 1 :]:
            if before(i, j):
                continue
            for kind, mine, theirs in (
                ("read-after-write", writes[i], reads[j]),
                ("write-after-read", reads[i], writes[j]),
                ("write-after-write", writes[i], writes[j]),
            ):
                if mine & theirs:
                    found.add(("race", kind, (i, j)))
    return found


def expected_values(program, order: list[int]) -> tuple[set[tuple], set[tuple[int, int]]]:
    """The clobbers, and the (reader, value) of the reads of never-written bytes."""
    buffers = program.buffers

    def value(i: int) -> int:  # a view of the workspace (the only i8 allocation) is a value
        b = buffers[i]
        pool = buffers[b.source] if b.source is not None else None
        if pool is None or (pool.kind == "alloc" and pool.dtype == np.int8):
            return i
        return value(b.source)

    last = {
        byte: (b.index, -1)
        for b in buffers
        if b.kind == "input"
        for byte in bytes_of(program, b.index)
    }
    clobbers = set()
    unwritten = set()
    for i in order:
        for k in program.tasks[i].inputs:
            for byte in bytes_of(program, k):
                seen = last.get(byte)
                if seen is None:
                    unwritten.add((i, value(k)))
                elif seen[0] != value(k):
                    clobbers.add(("clobber", "", (seen[1], i)))
        for k in program.tasks[i].outputs:
            for byte in bytes_of(program, k):
                last[byte] = (value(k), i)
    return clobbers, unwritten


def found_by_checker(program, order: list[int], clobber: bool = True) -> list[tuple]:
    return sorted(
        (
            f.kind,
            f.message.split(" on bytes")[0].removeprefix("race: ") if f.kind == "race" else "",
            f.tasks,
        )
        for f in check(program, order, clobber=clobber)
    )


def test_the_checker_finds_what_brute_force_finds():
    """Random programs in random legal orders: exactly the racing pairs (each kind of each
    pair), clobbers and uninitialized reads that comparing every pair of tasks and every
    byte finds; without the clobber check, exactly the races."""
    seen: Counter = Counter()

    @settings(max_examples=150)
    @given(random_programs(), st.lists(st.integers(0, 5), min_size=1, max_size=8))
    def run(lines: list[str], picks: list[int]) -> None:
        _, program = program_of(lines)
        order = legal_order(program, picks)
        expected = expected_findings(program, order)
        assert found_by_checker(program, order) == expected
        assert found_by_checker(program, order, clobber=False) == [
            e for e in expected if e[0] == "race"
        ]
        seen.update({kind for kind, _, _ in expected} or {"clean"})  # examples with each

    run()
    assert min(seen["race"], seen["clobber"], seen["uninitialized"], seen["clean"]) >= 10, seen


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
