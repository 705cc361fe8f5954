"""ge-run --input-shape x:?x8 --gears x:0=1,4,8: an ONNX model with a dynamic dim compiled
and run once per gear, one line each (text) or a list (JSON); --inputs used where they fit;
every malformed or inconsistent spec is one usage error line (exit 2)."""

from __future__ import annotations

import io
import json
import re
import sys

import numpy as np
import onnx
import pytest
from helpers.onnx_ref import make_model
from onnx import helper

from ge_dialect.tools.ge_run import main


def run(capsys, args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.fixture
def model(tmp_path) -> str:
    """y = relu(x @ w), x of shape N x 8 with N a dim_param."""
    rng = np.random.default_rng(0)
    proto = make_model(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])],
        {"x": np.zeros((2, 8), np.float32)},
        ["y"],
        {"w": rng.standard_normal((8, 16)).astype(np.float32)},
    )
    dim = proto.graph.input[0].type.tensor_type.shape.dim[0]
    dim.ClearField("dim_value")
    dim.dim_param = "N"
    path = tmp_path / "m.onnx"
    onnx.save(proto, str(path))
    return str(path)


LINE = re.compile(
    r"gear x:0=(\d+): makespan ([\d.]+) us, lower bound [\d.]+ us \([^)]+\), makespan / bound "
    r"[\d.]+; (\d+) launch(?:es)? on (\d+) streams?; peak memory ([\d.]+) KiB(.*)"
)


def _lines(out: str) -> list[tuple[int, float, float, str]]:
    rows = []
    for line in out.splitlines():
        m = LINE.fullmatch(line)
        assert m, line
        rows.append((int(m[1]), float(m[2]), float(m[5]), m[6]))
    return rows


@pytest.mark.parametrize("shape", ["x:?x8", "x=?x8"])
def test_one_line_per_gear(capsys, model, shape):
    code, out, err = run(capsys, [model, "--input-shape", shape, "--gears", "x:0=1,64,512"])
    assert (code, err) == (0, "")
    rows = _lines(out)
    assert [r[0] for r in rows] == [1, 64, 512]
    assert rows[0][1] < rows[2][1] and rows[0][2] < rows[2][2]  # batch 512 runs longer, more memory
    assert all(r[3] == "" for r in rows)


def test_inputs_are_used_where_they_fit(capsys, model, tmp_path):
    npz = tmp_path / "in.npz"
    np.savez(npz, x=np.ones((4, 8), np.float32))
    code, out, err = run(
        capsys, [model, "--input-shape", "x:?x8", "--gears", "x:0=2,4", "--inputs", npz]
    )
    assert (code, err) == (0, "")
    assert [r[3] for r in _lines(out)] == [" (random inputs: --inputs does not fit)", ""]


def test_json_report_lists_the_gears(capsys, model):
    code, out, err = run(
        capsys, [model, "--input-shape", "x:?x8", "--gears", "x:0=3,5", "--report", "json"]
    )
    assert (code, err) == (0, "")
    gears = json.loads(out)["gears"]
    assert [(g["gear"], g["shapes"]) for g in gears] == [
        ("x:0=3", {"x": [3, 8]}),
        ("x:0=5", {"x": [5, 8]}),
    ]
    assert all(g["makespan_us"] > 0 for g in gears)


GEARS_USAGE = "--gears expects NAME:DIM=SIZES (positive integers) such as x:0=1,4,8, got "


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--input-shape", "x:?x8"],
            "--input-shape x: dim 0 is '?': give its sizes with --gears x:0=N,N,...",
        ),
        (
            ["--input-shape", "x:?x8", "--gears", "y:0=1,2"],
            "--gears y:0=1,2: no --input-shape gives input 'y' (with a '?' dim)",
        ),
        (
            ["--input-shape", "x:?x8", "--gears", "x:0=1,2", "--gears", "x:1=1,2"],
            "--gears x:1=1,2: dim 1 of --input-shape x is 8, not '?'",
        ),
        (
            ["--input-shape", "x:?x8", "--gears", "x:2=1,2"],
            "--gears x:2=1,2: dim 2 of --input-shape x has no such dim",
        ),
        (["--input-shape", "x:?x8", "--gears", "x:0=1,a"], GEARS_USAGE + "'x:0=1,a'"),
        (["--input-shape", "x:?x8", "--gears", "x:0=0,2"], GEARS_USAGE + "'x:0=0,2'"),
        (["--input-shape", "x:?x8", "--gears", "x=1,2"], GEARS_USAGE + "'x=1,2'"),
        (["--input-shape", "x:?x8", "--gears", "x:-1=1,2"], GEARS_USAGE + "'x:-1=1,2'"),
        (
            ["--input-shape", "x:?xq", "--gears", "x:0=1,2"],
            "--input-shape expects NAME=DIMS or NAME:DIMS such as x=1x3x224x224 or "
            "x:?x3x224x224, got 'x:?xq'",
        ),
        (
            ["--input-shape", "x:?x?", "--gears", "x:0=1,2", "--gears", "x:1=8"],
            "--gears lists go together (the n-th gear takes the n-th size of each): they must "
            "have one length, got 2 (x:0=1,2), 1 (x:1=8)",
        ),
        (
            ["--input-shape", "x:?x8", "--gears", "x:0=1,2", "--gears", "x:0=3,4"],
            "--gears x:0=3,4: dim 0 of 'x' has sizes already",
        ),
        (
            ["--input-shape", "x:?x8", "--gears", "x:0=1,2", "--outputs", "o.npz"],
            "--gears runs one program per gear: it cannot go with --outputs",
        ),
    ],
)
def test_bad_specs_are_one_usage_error(capsys, model, args, message):
    code, out, err = run(capsys, [model, *args])
    assert (code, out) == (2, "")
    assert err == f"ge-run: error: {message}\n"


def test_gears_apply_to_onnx_only(capsys, tmp_path):
    path = tmp_path / "r.mlir"
    path.write_text(
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = ge.relu %x : tensor<4xf32>\n  func.return %0 : tensor<4xf32>\n}\n"
    )
    code, out, err = run(capsys, [path, "--gears", "x:0=1,2"])
    assert (code, err) == (2, "ge-run: error: --gears applies to ONNX input (.onnx files) only\n")


def test_two_dims_go_together(capsys, model, tmp_path):
    """Two '?' dims zip: gear k takes the k-th size of each list."""
    code, out, err = run(
        capsys,
        [
            model,
            "--input-shape",
            "x:?x?",
            "--gears",
            "x:0=2,6",
            "--gears",
            "x:1=8,8",
            "--report",
            "json",
        ],
    )
    assert (code, err) == (0, "")
    assert [g["shapes"]["x"] for g in json.loads(out)["gears"]] == [[2, 8], [6, 8]]


def test_an_onnx_model_on_stdin_is_imported_once_per_gear(capsys, model, monkeypatch):
    with open(model, "rb") as f:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(f.read())))
    args = ["-f", "onnx", "--input-shape", "x:?x8", "--gears", "x:0=2,3", "--report", "json"]
    code, out, err = run(capsys, args)
    assert (code, err) == (0, "")
    assert [g["shapes"]["x"] for g in json.loads(out)["gears"]] == [[2, 8], [3, 8]]
