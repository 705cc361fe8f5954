"""ge-run's per-rank package, run in-process: `--ranks N --package DIR` writes the manifest
and each rank's program, groups, memory plan and trace; `ge-run DIR` runs the package and
prints the same report byte for byte; a bad or missing manifest or file is one located
error line; a run that fails writes no package (and leaves an older one whole)."""

from __future__ import annotations

import json
import os
import re

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest

from ge_dialect.sim.package import SCHEMA
from ge_dialect.tools.ge_run import main


def dense(rows: int, cols: int, k: int) -> str:
    """A constant of varied values (multiples of 1/8 in [-1, 1))."""
    values = [[((i * 7 + j * 3 + k) % 16 - 8) / 8 for j in range(cols)] for i in range(rows)]
    return f"dense<{values}> : tensor<{rows}x{cols}xf32>"


MLP = f"""func.func @mlp(%x: tensor<4x8xf32> {{ge.name = "x"}})
    -> (tensor<4x8xf32> {{ge.name = "y"}}) {{
  %w1 = ge.const {dense(8, 16, 1)}
  %w2 = ge.const {dense(16, 8, 5)}
  %h = ge.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %r = ge.relu %h : tensor<4x16xf32>
  %p = ge.matmul %r, %w2 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %y = ge.relu %p : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}}
"""

SIMPLE = """func.func @mlp(%x: tensor<4x8xf32> {ge.name = "x"})
    -> (tensor<4x8xf32> {ge.name = "y"}) {
  %w1 = ge.const dense<0.25> : tensor<8x16xf32>
  %w2 = ge.const dense<0.5> : tensor<16x8xf32>
  %h = ge.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %r = ge.relu %h : tensor<4x16xf32>
  %p = ge.matmul %r, %w2 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %y = ge.relu %p : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
"""

SHARDS = {"tensor": "--shard=ranks=2,mode=tensor", "pipeline": "--shard=ranks=2,pp=2"}


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def packaged(tmp_path, capsys, shard="tensor", *extra):
    model = tmp_path / "mlp.mlir"
    model.write_text(SIMPLE)
    out = tmp_path / "out"
    code, text, err = run(capsys, model, "--ranks", 2, SHARDS[shard], "--package", out, *extra)
    assert code == 0, err
    return out, text


def files_under(directory) -> list[str]:
    return sorted(
        os.path.relpath(os.path.join(root, f), directory)
        for root, _, names in os.walk(directory)
        for f in names
    )


@pytest.mark.parametrize("shard", ["tensor", "pipeline"])
def test_package_holds_every_rank_and_reproduces_the_report(tmp_path, capsys, shard):
    out, text = packaged(tmp_path, capsys, shard)
    per_rank = [f"rank{r}/{f}" for r in (0, 1) for f in ("groups.json", "memory.json")]
    per_rank += [f"rank{r}/{f}" for r in (0, 1) for f in ("program.mlir", "trace.json")]
    assert files_under(out) == sorted(["manifest.json", "profile.json", "topology.json", *per_rank])
    manifest = json.loads((out / "manifest.json").read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(manifest)
    assert manifest["ranks"] == 2 and manifest["version"] == 1
    assert manifest["topology"]["name"] == "ascend910-8p"
    group = "tp" if shard == "tensor" else "pp0"
    for r in (0, 1):
        entry = manifest["per_rank"][r]
        assert entry["rank"] == r and entry["groups"] == [group]
        groups = json.loads((out / entry["files"]["groups"]).read_text())
        assert groups["groups"] == [
            {"name": group, "members": [0, 1], "group_rank": r, "collectives": 1}
        ]
        program = (out / entry["files"]["program"]).read_text()
        assert f"@mlp_rank{r}(" in program and "mlp.mlir" in program  # the locations
        trace = json.loads((out / entry["files"]["trace"]).read_text())
        assert {e["pid"] for e in trace["traceEvents"]} == {r}
    memory = [json.loads((out / f"rank{r}/memory.json").read_text()) for r in (0, 1)]
    comm = [[b["offset"] for b in m["buffers"] if b["collective"]] for m in memory]
    assert comm[0] and comm[0] == comm[1]  # symmetric: the same offsets on both ranks
    assert all(o < m["memory"]["comm_bytes"] for o, m in zip(comm[0], memory, strict=False))
    assert "communication region" in text
    code, again, err = run(capsys, out)
    assert code == 0, err
    assert again == text  # byte for byte
    code, again, err = run(capsys, f"{out}/")
    assert code == 0 and again == text


def test_package_reproduces_the_json_report_and_numbers(tmp_path, capsys):
    model = tmp_path / "mlp.mlir"
    model.write_text(MLP)
    out = tmp_path / "out"
    args = ["--report", "json"]
    code, first, err = run(capsys, model, "--ranks", 2, SHARDS["tensor"], "--package", out, *args)
    assert code == 0, err
    code, again, err = run(capsys, out, *args)
    assert code == 0, err
    assert json.loads(again) == json.loads(first) and again == first
    assert json.loads(first)["outputs"]["y"]["max"] > 0


def corrupt(out, edit) -> str:
    manifest = out / "manifest.json"
    manifest.write_text(edit(manifest.read_text()))
    return str(manifest)


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda t: t.replace('"version": 1', '"version": 2'),
            r":3:14: error: version: expected 1 \(the format's version\), got 2",
        ),
        (lambda t: t.replace('"ranks": 2', '"ranks": 3'), r":\d+:\d+: error: per_rank: 2 ranks"),
        (
            lambda t: t.replace('"rank1/trace.json"', '"rank1/missing.json"'),
            r":\d+:\d+: error: per_rank\.1\.files\.trace: no file 'rank1/missing\.json' in the "
            "package",
        ),
        (
            lambda t: t.replace('"rank0/program.mlir"', '"../mlp.mlir"'),
            r":\d+:\d+: error: per_rank\.0\.files\.program: expected a relative path inside "
            r"the package \(no '\.\.'\), got \"\.\./mlp\.mlir\"",
        ),
        (lambda t: t[:-3], r":\d+:\d+: error: invalid JSON: "),
        (
            lambda t: t.replace('"groups": [', '"group": ['),
            r":\d+:\d+: error: per_rank\.0\.group: unknown key",
        ),
    ],
)
def test_a_bad_manifest_is_one_located_error(tmp_path, capsys, edit, message):
    out, _ = packaged(tmp_path, capsys)
    manifest = corrupt(out, edit)
    code, text, err = run(capsys, out)
    assert code == 1 and text == ""
    assert len(err.splitlines()) == 1 and re.match(re.escape(manifest) + message, err), err


def test_a_missing_manifest_or_bad_program_is_one_error(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, empty)
    assert code == 1
    manifest = empty / "manifest.json"
    assert err == f"{manifest}: error: cannot read package manifest: No such file or directory\n"
    out, _ = packaged(tmp_path, capsys)
    program = out / "rank1" / "program.mlir"
    program.write_text(program.read_text().replace("npu.launch", "npu.lunch", 1))
    code, _, err = run(capsys, out)
    assert code == 1 and len(err.splitlines()) == 1
    assert err.startswith(f"{program}:"), err
    program.write_text(SIMPLE)  # a graph, not a lowered program
    code, _, err = run(capsys, out)
    assert code == 1
    assert err == f"{program}: error: not an npu program (a package holds lowered programs)\n"


def test_a_failed_run_writes_no_package(tmp_path, capsys):
    model = tmp_path / "mlp.mlir"
    model.write_text(SIMPLE)
    out = tmp_path / "out"
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not an archive")
    code, _, err = run(capsys, model, "--ranks", 2, "--package", out, "--inputs", bad)
    assert code == 1 and "not a readable .npz archive" in err
    assert not out.exists()
    assert sorted(os.listdir(tmp_path)) == ["bad.npz", "mlp.mlir"]  # no temporary left
    # an older package stays whole
    out, _ = packaged(tmp_path, capsys)
    before = {f: (out / f).read_bytes() for f in files_under(out)}
    code, _, err = run(capsys, model, "--ranks", 2, "--package", out, "--inputs", bad)
    assert code == 1
    assert {f: (out / f).read_bytes() for f in files_under(out)} == before
    assert sorted(os.listdir(tmp_path)) == ["bad.npz", "mlp.mlir", "out"]


def test_package_flag_errors(tmp_path, capsys):
    model = tmp_path / "mlp.mlir"
    model.write_text(SIMPLE)
    out = tmp_path / "out"
    code, _, err = run(capsys, model, "--package", out)
    assert code == 2 and not out.exists()
    assert err == (
        "ge-run: error: --package needs a multi-rank run: --ranks N (or a sharded program)\n"
    )
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "keep.txt").write_text("mine")
    code, _, err = run(capsys, model, "--ranks", 2, "--package", taken)
    assert code == 1 and (taken / "keep.txt").read_text() == "mine"
    assert err == (
        f"{taken}: error: cannot write package: it exists and is not a package (no "
        "manifest.json); remove it or choose another directory\n"
    )
