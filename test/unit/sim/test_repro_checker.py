"""The memory checker's reproducers (test/unit/data/device/), through ge-run in-process: each
exits as it should and prints exactly the error it should.

- pair_unreported_raw.mlir: two unordered writers of %a and a read of it ordered after the
  second only: both racing pairs, the write-after-write and the read-after-write.
- miss_double_record_event.mlir: event 0 recorded on streams 0 and 1 (which record comes
  first decides what the stream-2 read is ordered after): the verifier refuses it.
- miss_use_after_reuse_same_stream.mlir, miss_use_after_reuse_cross_stream_ordered.mlir:
  planned programs with one view moved onto bytes a later task still reads, every access
  ordered (one stream; events): a clobber each; their .ORIG plans run clean.
- planmem_better_plan_gNN.mlir / planmem_tool_plan_gNN.mlir: valid plans, the better ones in
  a smaller workspace: no finding, and the same outputs bit for bit.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.support import ROOT

from ge_dialect import api
from ge_dialect.tools.ge_run import main as ge_run

DATA = Path(ROOT) / "test" / "unit" / "data" / "device"


def run(capsys, monkeypatch, *args: str) -> tuple[int, str]:
    """ge-run on files of the data folder named as written (the messages' paths)."""
    monkeypatch.chdir(DATA)
    code = ge_run(list(args))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def test_every_racing_pair_is_reported(capsys, monkeypatch):
    f = "pair_unreported_raw.mlir"
    code, err = run(capsys, monkeypatch, f)
    assert code == 1
    assert err.splitlines() == [
        f"{f}: error: race: write-after-write on bytes [0, 64) of allocation 0: launch "
        f"'sigmoid' on stream 1 ({f}:4:3) writes what launch 'relu' on stream 0 ({f}:3:3) "
        "writes too, and no event orders them",
        f"{f}: error: race: read-after-write on bytes [0, 64) of allocation 0: launch 'relu' "
        f"on stream 1 ({f}:5:3) reads what launch 'relu' on stream 0 ({f}:3:3) writes, and no "
        "event orders them",
    ]


def test_an_event_recorded_on_two_streams_is_refused(capsys, monkeypatch):
    f = "miss_double_record_event.mlir"
    code, err = run(capsys, monkeypatch, f)
    assert code == 1
    assert err == (
        f"{f}:6:3: error: 'npu.record' op event 0 is recorded on stream 1 here and on stream 0 "
        f"at {f}:4:3: the records of an event must be on one stream (which one comes first "
        "would depend on timing)\n"
    )


@pytest.mark.parametrize(
    ("f", "orig", "message"),
    [
        (
            "miss_use_after_reuse_same_stream.mlir",
            "miss_use_after_reuse_same_stream.ORIG.mlir",
            "clobber: launch 'fused_conv2d' on stream 0 ({f}:13:5) reads the view at {f}:4:5 on "
            "bytes [0, 4096) of the workspace, but launch 'fused_conv2d' on stream 0 ({f}:9:5) "
            "overwrote them with the view at {f}:8:5",
        ),
        (
            "miss_use_after_reuse_cross_stream_ordered.mlir",
            "miss_use_after_reuse_cross_stream_ordered.ORIG.mlir",
            "clobber: launch 'fused_conv2d' on stream 0 ({f}:35:5) reads the view at {f}:4:5 on "
            "bytes [0, 3136) of the workspace, but launch 'sub' on stream 0 ({f}:33:5) "
            "overwrote them with %sub18 (the view at {f}:32:5)",
        ),
    ],
)
def test_a_use_after_reuse_is_a_clobber(capsys, monkeypatch, tmp_path, f, orig, message):
    out = tmp_path / "out.npz"
    code, err = run(capsys, monkeypatch, f, "--outputs", str(out))
    assert code == 1
    assert err == f"{f}: error: {message.format(f=f)}\n"
    assert not out.exists()
    # the plan it was made from runs clean, and computes other numbers than the broken one
    code, err = run(capsys, monkeypatch, orig, "--outputs", str(out))
    assert (code, err) == (0, "")
    broken = tmp_path / "broken.npz"
    assert run(capsys, monkeypatch, f, "--no-check", "--outputs", str(broken)) == (0, "")
    with np.load(out) as right, np.load(broken) as wrong:
        assert any(not np.array_equal(right[k], wrong[k]) for k in right)


@pytest.mark.parametrize(
    ("tool", "better"),
    [
        ("planmem_tool_plan_g05.mlir", "planmem_better_plan_g05.mlir"),
        ("planmem_tool_plan_g07.mlir", "planmem_better_plan_g07.mlir"),
        ("planmem_tool_plan_g18.mlir", "planmem_better_plan_g18.mlir"),
    ],
)
def test_valid_plans_are_clean_and_compute_the_same(capsys, monkeypatch, tmp_path, tool, better):
    outputs = []
    for plan in (tool, better):
        out = tmp_path / f"{plan}.npz"
        code, err = run(capsys, monkeypatch, plan, "--outputs", str(out))
        assert (code, err) == (0, "")
        with np.load(out) as saved:
            outputs.append(dict(saved))
    assert outputs[1].keys() == outputs[0].keys()
    for key, value in outputs[0].items():
        assert outputs[1][key].tobytes() == value.tobytes(), key
    assert workspace(better) < workspace(tool)


def workspace(name: str) -> int:
    """The bytes of a planned program's workspace."""
    program = api.device_program(api.load(str(DATA / name)))
    [size] = [b.nbytes for b in program.buffers if b.kind == "alloc" and b.dtype == np.int8]
    return size
