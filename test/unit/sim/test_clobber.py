"""The clobber check (`ge_dialect.sim.checker`): a read that sees bytes another value wrote,
and a read of bytes nothing wrote, on programs whose accesses are all ordered.

- Values: the views of a workspace are values of their own; a view of such a view (a
  reshape of a planned buffer) is that value; the views of an allocation are its value; an
  i8 vector a task writes is a value, not a workspace.
- Clobbers, one stream and across streams ordered by events: the message is pinned; a
  launch that reads one value and writes another in its bytes (in place) is fine, a later
  read of the value it overwrote is not.
- Uninitialized reads: pinned messages (an allocation, a view of the workspace); when the
  read races with a later write, the race is the one finding.
- `check(..., clobber=False)` finds none of these; `api.simulate` and ge-run report them.
- No false alarm: the zoo's bundled models under every stream mode, planned with and
  without in-place writes; the device programs of the lit tests.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from helpers.support import ROOT
from xdsl.dialects import func

from ge_dialect import api
from ge_dialect.ir.dialects.npu.program import is_program
from ge_dialect.sim.checker import buffer_values, check
from ge_dialect.sim.order import start_order
from ge_dialect.sim.program import find_program, read_program
from ge_dialect.tools.ge_run import main as ge_run
from ge_dialect.utils.errors import GeError

sys.path.insert(0, os.path.join(ROOT, "examples", "zoo"))
import make_zoo  # noqa: E402

HEADER = (
    'func.func @main(%x: memref<4xf32> {npu.input = "x"}, %y: memref<4xf32> {npu.output = "y"}) '
    "attributes {npu.program} {"
)
WORKSPACE = [
    "%ws = npu.alloc : memref<32xi8>",
    "%a = npu.view %ws[0] : memref<32xi8> -> memref<4xf32>",  # line 3
    "%b = npu.view %ws[0] : memref<32xi8> -> memref<4xf32>",  # line 4: %a's bytes
    "%c = npu.view %ws[16] : memref<32xi8> -> memref<4xf32>",  # line 5
]


def launch(kernel: str, ins: list[str], out: str, stream: int) -> str:
    types = ", ".join(["tensor<4xf32>"] * len(ins))
    return (
        f'npu.launch "{kernel}"({", ".join(ins)}) -> ({out}) stream {stream} priority 0 : '
        f"({types}) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, "
        "bytes_out = 16, blocks = 1> attrs {}"
    )


def relu(src: str, dst: str, stream: int = 0) -> str:
    return launch("relu", [src], dst, stream)


def program_of(lines: list[str], header: str = HEADER):
    """A program: the header is line 1, `lines` start at line 2 (column 3)."""
    text = "\n".join([header, *(f"  {line}" for line in lines), "  func.return", "}"])
    module = api.parse(text, "p.mlir")
    api.verify(module)
    return module, read_program(find_program(module))


def findings(lines: list[str], header: str = HEADER, clobber: bool = True) -> list:
    _, program = program_of(lines, header)
    return check(program, start_order(program).order, clobber=clobber)


# ---- values -------------------------------------------------------------------------------


def test_views_of_a_workspace_are_values_and_views_of_them_are_the_same_value():
    _, program = program_of(
        [
            *WORKSPACE,
            "%r = npu.view %a[0] : memref<4xf32> -> memref<2x2xf32>",  # a reshape of %a
            "%m = npu.alloc : memref<8xf32>",
            "%m1 = npu.view %m[16] : memref<8xf32> -> memref<4xf32>",  # a slice of %m
            relu("%x", "%a"),
        ]
    )
    # buffers: x, y, ws, a, b, c, r, m, m1
    assert buffer_values(program) == [0, 1, 2, 3, 4, 5, 3, 7, 7]


def test_a_reshape_reads_what_its_value_wrote():
    lines = [
        *WORKSPACE,
        "%r = npu.view %a[0] : memref<4xf32> -> memref<4xf32>",
        relu("%x", "%a"),
        relu("%r", "%y"),
    ]
    assert findings(lines) == []


def test_an_i8_vector_a_task_writes_is_a_value_not_a_workspace():
    header = (
        'func.func @main(%x: memref<16xi8> {npu.input = "x"}, %y: memref<4x4xi8> '
        '{npu.output = "y"}) attributes {npu.program} {'
    )
    lines = [
        "%v = npu.alloc : memref<16xi8>",
        "%r = npu.view %v[0] : memref<16xi8> -> memref<4x4xi8>",
        "npu.copy %x -> %v stream 0 cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, "
        "blocks = 1> : memref<16xi8>",
        "npu.copy %r -> %y stream 0 cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, "
        "blocks = 1> : memref<4x4xi8>",
    ]
    assert findings(lines, header) == []
    _, program = program_of(lines, header)
    assert buffer_values(program) == [0, 1, 2, 2]


# ---- clobbers -----------------------------------------------------------------------------

CLOBBERED = [
    *WORKSPACE,
    relu("%x", "%a"),  # 0, line 6: writes %a
    relu("%x", "%b"),  # 1, line 7: writes %b over %a's bytes
    relu("%a", "%y"),  # 2, line 8: reads %a, sees %b
]


def test_a_read_of_bytes_another_value_overwrote_is_a_clobber():
    [finding] = findings(CLOBBERED)
    assert finding.kind == "clobber" and finding.tasks == (1, 2)
    assert finding.message == (
        "clobber: launch 'relu' on stream 0 (p.mlir:8:3) reads %a (the view at p.mlir:3:3) "
        "on bytes [0, 16) of the workspace, but launch 'relu' on stream 0 (p.mlir:7:3) "
        "overwrote them with %b (the view at p.mlir:4:3)"
    )
    assert findings(CLOBBERED, clobber=False) == []


def test_a_clobber_ordered_by_events_across_streams():
    lines = [
        *WORKSPACE,
        relu("%x", "%a", 0),  # 0
        "npu.record 0 stream 0",
        "npu.wait 0 stream 1",
        relu("%x", "%b", 1),  # 3: ordered after task 0, still over %a
        "npu.record 1 stream 1",
        "npu.wait 1 stream 0",
        relu("%a", "%y", 0),  # 6
    ]
    assert [(f.kind, f.tasks) for f in findings(lines)] == [("clobber", (3, 6))]


def test_in_place_is_fine_until_the_overwritten_value_is_read():
    in_place = [*WORKSPACE, relu("%x", "%a"), relu("%a", "%b"), relu("%b", "%y")]
    assert findings(in_place) == []
    read_again = [*WORKSPACE, relu("%x", "%a"), relu("%a", "%b"), relu("%a", "%y")]
    assert [(f.kind, f.tasks) for f in findings(read_again)] == [("clobber", (1, 2))]


def test_disjoint_values_in_one_workspace():
    lines = [*WORKSPACE, relu("%x", "%a"), relu("%x", "%c"), launch("add", ["%a", "%c"], "%y", 0)]
    assert findings(lines) == []


# ---- uninitialized reads ------------------------------------------------------------------


def test_a_read_of_bytes_nothing_wrote_is_uninitialized():
    lines = ["%m = npu.alloc : memref<4xf32>", relu("%m", "%y")]
    [finding] = findings(lines)
    assert finding.kind == "uninitialized" and finding.tasks == (0,)
    assert finding.message == (
        "uninitialized: launch 'relu' on stream 0 (p.mlir:3:3) reads bytes [0, 16) of "
        "allocation 0, which no task wrote before it"
    )
    [finding] = findings([*WORKSPACE, relu("%c", "%y")])
    assert finding.message == (
        "uninitialized: launch 'relu' on stream 0 (p.mlir:6:3) reads %c (the view at "
        "p.mlir:5:3) on bytes [16, 32) of the workspace, which no task wrote before it"
    )
    assert findings(lines, clobber=False) == []


def test_an_uninitialized_read_that_races_with_the_write_is_the_race():
    lines = ["%m = npu.alloc : memref<4xf32>", relu("%m", "%y", 1), relu("%x", "%m", 0)]
    assert [(f.kind, f.tasks) for f in findings(lines)] == [("race", (0, 1))]


# ---- wiring -------------------------------------------------------------------------------


def test_simulate_and_ge_run_report_clobbers(tmp_path, capsys):
    module, _ = program_of(CLOBBERED)
    assert [f.kind for f in api.simulate(module).findings] == ["clobber"]
    assert api.simulate(module, check=False).findings == []
    path = tmp_path / "clobbered.mlir"
    path.write_text("\n".join([HEADER, *(f"  {line}" for line in CLOBBERED), "  func.return", "}"]))
    assert ge_run([str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: error: clobber: launch 'relu' on stream 0 ({path}:8:3)")
    assert ge_run([str(path), "--no-check"]) == 0


# ---- no false alarms ----------------------------------------------------------------------

LAYOUT = "canonicalize,cse,fuse,to-nc1hwc0"


@pytest.mark.parametrize("mode", ["labels", "auto", "single"])
@pytest.mark.parametrize("name", ["inception", "encoder"])
def test_zoo_models_are_clean_under_every_stream_mode(name, mode):
    module = api.load(make_zoo.zoo_model(name))
    api.compile(module, f"{LAYOUT},assign-streams{{mode={mode}}},lower-to-device")
    for options in ("", "{in-place=false}"):
        planned = module.clone()
        api.compile(planned, f"plan-memory{options}")
        program = read_program(find_program(planned))
        assert check(program, start_order(program).order) == [], options


def lit_programs() -> list[tuple[str, int]]:
    """(file, chunk) of the lit tests' chunks holding a device program."""
    found = []
    for path in sorted(Path(ROOT, "test", "lit").rglob("*.mlir")):
        if "Output" in path.parts:
            continue
        text = path.read_text()
        if "npu.program" in text:
            for k, chunk in enumerate(text.split("// -----")):
                if "npu.program" in chunk:
                    found.append((str(path.relative_to(ROOT)), k))
    return found


def test_lit_programs_have_no_clobber():
    """Every device program of the lit tests that verifies and runs to its end: no clobber
    and no uninitialized read (races aside: a round-trip test's program, written to be
    printed, not run, has one)."""
    checked = 0
    for file, k in lit_programs():
        chunk = Path(ROOT, file).read_text().split("// -----")[k]
        try:
            module = api.parse(chunk, file)
            api.verify(module)
        except GeError:  # the diagnostics tests' programs
            continue
        for op in module.walk():
            if isinstance(op, func.FuncOp) and is_program(op):
                program = read_program(op)
                schedule = start_order(program)
                if schedule.findings:
                    continue
                found = check(program, schedule.order)
                assert [f.message for f in found if f.kind != "race"] == [], (file, k)
                checked += 1
    assert checked >= 5, checked
